#!/usr/bin/env bash
# The arm64 check: installs the project through install.sh, as on a Raspberry Pi, in an
# emulated Debian arm64 root (the base of 64-bit Raspberry Pi OS), then imports every
# library, runs doctor, the scripted demo and the engine, hardware and vision tests there.
# Run it (as root, on an x86-64 Debian with qemu-user-static and debootstrap) whenever the
# dependencies, constraints/ or install.sh change; the README's Pi section says the last result.
#
#   sudo systemd/arm64-check.sh [--release bookworm|trixie] [--model "Raspberry Pi 4 Model B Rev 1.5"]
#                               [--roots /var/tmp/arm64] [--out DIR] [--tests "FILES..."]
#                               [--test-timeout SECONDS] [--no-tests]   (SIGINT at the timeout:
#                               pytest still prints what failed so far)
#
# 1. the root ROOTS/RELEASE: reused if there, else made by debootstrap --arch=arm64 with
#    python3-venv, python3-dev, build-essential and python3-numpy (what Raspberry Pi OS has;
#    its own archive, with picamera2 and lgpio, is not Debian's and not used here).
# 2. proc, sys and dev mounted in it, and a Raspberry Pi's /proc/cpuinfo laid over the host's
#    (qemu-user shows the host's x86 one, and onnxruntime's CPU probe crashes on it).
# 3. this working tree (git's tracked and untracked-not-ignored files) copied to /opt/src.
# 4. install.sh as on a Pi: MODEL_FILE says the model (install.sh reads it in place of
#    /proc/device-tree/model). First with apt, which must stop and suggest --no-apt (no Pi
#    archive here); then --no-apt into a fresh /opt/cribbage-board, then once more (it must
#    say everything is in place). pip's --report records what came as a wheel and what was
#    built from source.
# 5. each library imported in its own process (a crash names the library), `doctor`,
#    `demo --camera scripted`, and the tests (default: engine, hardware and vision, not the
#    training ones), each with its exit code and wall time.
# Results: OUT (default ROOTS/results/RELEASE-piN): summary.txt (the lines the README quotes),
# packages.txt (name, version, wheel / built / apt), and one log per step. Exit 0 only when
# every step passed.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(dirname "$here")"
release=bookworm
model="Raspberry Pi 4 Model B Rev 1.5"
roots=/var/tmp/arm64
out=""
tests=""
test_timeout=3600
run_tests=1

while [[ $# -gt 0 ]]; do
    case "$1" in
        --release) release="${2:?}"; shift ;;
        --model) model="${2:?}"; shift ;;
        --roots) roots="${2:?}"; shift ;;
        --out) out="${2:?}"; shift ;;
        --tests) tests="${2:?}"; shift ;;
        --test-timeout) test_timeout="${2:?}"; shift ;;
        --no-tests) run_tests=0 ;;
        -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "arm64-check.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case "$release" in bookworm|trixie) ;; *) echo "arm64-check.sh: --release must be bookworm or trixie" >&2; exit 2 ;; esac
case "$model" in
    "Raspberry Pi 5"*) pi=pi5; cpu_part=0xd0b; features="fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp" ;;
    "Raspberry Pi 4"*|"Raspberry Pi 400"*) pi=pi4; cpu_part=0xd08; features="fp asimd evtstrm crc32 cpuid" ;;
    *) echo "arm64-check.sh: --model must be a Raspberry Pi 4 or 5 model string, not '$model'" >&2; exit 2 ;;
esac
[[ "$(id -u)" == 0 ]] || { echo "arm64-check.sh: run as root (debootstrap, chroot and mount need it)" >&2; exit 1; }
if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
    echo "arm64-check.sh: no binfmt_misc entry for aarch64: apt-get install qemu-user-static binfmt-support" >&2
    exit 1
fi
root="$roots/$release"
out="${out:-$roots/results/$release-$pi}"
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
failed=0

note() { printf '%s\n' "$*" | tee -a "$summary"; }
# Runs "$@" inside the root with a clean environment; pip reaches PyPI through the host's CAs.
inroot() {
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        PIP_CERT=/etc/ssl/certs/host-bundle.crt SSL_CERT_FILE=/etc/ssl/certs/host-bundle.crt \
        REQUESTS_CA_BUNDLE=/etc/ssl/certs/host-bundle.crt PIP_DEFAULT_TIMEOUT=180 \
        PIP_DISABLE_PIP_VERSION_CHECK=1 MODEL_FILE=/tmp/model "$@"
}
# step NAME CMD...: runs a step inside the root, logs it to OUT/NAME.log, notes its exit and time.
step() {
    local name="$1"; shift
    local began=$SECONDS rc
    inroot "$@" >"$out/$name.log" 2>&1
    rc=$?
    note "$name: exit $rc in $((SECONDS - began)) s"
    return $rc
}

began_all=$SECONDS
note "arm64 check: $release, '$model', $(date -u +%Y-%m-%dT%H:%MZ), host $(uname -m), qemu $(qemu-aarch64-static --version | head -1 | awk '{print $3}')"

# 1. the root
if [[ ! -x "$root/usr/bin/python3" ]]; then
    mkdir -p "$roots"
    t=$SECONDS
    if ! debootstrap --arch=arm64 \
            --include=python3,python3-venv,python3-dev,build-essential,python3-numpy,systemd,ca-certificates \
            "$release" "$root" http://deb.debian.org/debian >"$out/debootstrap.log" 2>&1; then
        note "debootstrap: FAILED (see $out/debootstrap.log)"; exit 1
    fi
    note "debootstrap: made $root in $((SECONDS - t)) s"
else
    note "root: reused $root"
fi

# 2. mounts, undone on exit
mounted=()
cleanup() {
    local i
    for (( i=${#mounted[@]}-1; i>=0; i-- )); do umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}"; done
}
trap cleanup EXIT
mount_once() {  # mount_once TARGET mount-args...
    local target="$1"; shift
    mountpoint -q "$target" && return 0
    mount "$@" "$target" && mounted+=("$target")
}
mount_once "$root/proc" -t proc proc
mount_once "$root/sys" -t sysfs sys
mount_once "$root/dev" --bind /dev
mount_once "$root/dev/pts" --bind /dev/pts  # os.openpty (the keyboard panel's tests)
cpuinfo="$out/cpuinfo"
{
    for n in 0 1 2 3; do
        printf 'processor\t: %s\nBogoMIPS\t: 108.00\nFeatures\t: %s\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: %s\nCPU revision\t: 1\n\n' \
            "$n" "$features" "$cpu_part"
    done
    printf 'Revision\t: %s\nModel\t\t: %s\n' "$([[ $pi == pi5 ]] && echo d04170 || echo c03115)" "$model"
} >"$cpuinfo"
mount --bind "$cpuinfo" "$root/proc/cpuinfo" && mounted+=("$root/proc/cpuinfo")
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/host-bundle.crt"
printf '%s\0' "$model" >"$root/tmp/model"
note "root: $(inroot uname -m), $(inroot python3 --version), apt numpy $(inroot dpkg-query -W -f='${Version}' python3-numpy)"

# 3. the working tree
rm -rf "$root/opt/src" && mkdir -p "$root/opt/src"
(cd "$src" && git ls-files -z -co --exclude-standard | xargs -0 tar -c --ignore-failed-read 2>/dev/null) \
    | tar -x -C "$root/opt/src"
note "source: $(cd "$src" && git rev-parse --short HEAD)$(cd "$src" && git diff --quiet HEAD || echo ' with uncommitted changes') copied to /opt/src"

# 4. install.sh, as on a Pi
inroot bash /opt/src/systemd/install.sh >"$out/install-apt.log" 2>&1
rc=$?
if [[ $rc == 1 ]] && grep -q -- "--no-apt" "$out/install-apt.log"; then
    note "install.sh (with apt, no Pi archive): exit 1 and suggests --no-apt, as it should"
else
    note "install.sh (with apt): exit $rc, expected 1 with --no-apt suggested: FAILED"; failed=1
fi
rm -rf "$root/opt/cribbage-board" "$root/etc/cribbage-board" "$root/etc/systemd/system/cribbage-board.service" \
    "$root/etc/systemd/system/multi-user.target.wants/cribbage-board.service"
step install env PIP_REPORT=/tmp/pip-report.json bash /opt/src/systemd/install.sh --no-apt || failed=1
grep -E "^(note|at first boot|installed|\+ systemctl)" "$out/install.log" | sed 's/^/  /' | tee -a "$summary"
step install-again bash /opt/src/systemd/install.sh --no-apt || failed=1
if inroot systemctl is-enabled cribbage-board.service >/dev/null 2>&1; then
    note "unit: enabled for boot (offline)"
else
    note "unit: NOT enabled: FAILED"; failed=1
fi
V=/opt/cribbage-board/.venv/bin

# What came as a wheel, what was built here from an sdist, and what apt gave.
inroot $V/python -m pip inspect >"$out/pip-inspect.json" 2>/dev/null
cp "$root/tmp/pip-report.json" "$out/pip-report.json" 2>/dev/null
python3 - "$out/pip-report.json" "$out/pip-inspect.json" >"$out/packages.txt" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))["install"]
how = {}
for item in report:
    url = item["download_info"]["url"]
    name = item["metadata"]["name"].lower()
    if url.endswith(".whl"):
        how[name] = "wheel " + url.rsplit("/", 1)[1].split("-", 2)[2].removesuffix(".whl")
    elif url.startswith("file:"):
        how[name] = "built (this tree)"
    else:
        how[name] = "built from sdist " + url.rsplit("/", 1)[1]
for dist in sorted(json.load(open(sys.argv[2]))["installed"], key=lambda d: d["metadata"]["name"].lower()):
    name = dist["metadata"]["name"].lower()
    where = dist.get("metadata_location", "")
    source = how.get(name) or ("apt (system site-packages)" if "/usr/lib/python3" in where else "venv, from before")
    if name in how or name in {"numpy", "picamera2", "lgpio"}:
        print(f"{name} {dist['metadata']['version']}: {source}")
EOF
note "packages (wheel / built / apt):"
sed 's/^/  /' "$out/packages.txt" | tee -a "$summary"

# 5. the libraries, doctor, the demo, the tests
for lib in numpy cv2 onnxruntime gpiozero lgpio spidev rpi_ws281x starlette uvicorn paho.mqtt.client \
           engine hardware vision.recognise.detection firmware.commands.cli; do
    version="$(inroot $V/python -c "import $lib as m; print(getattr(m, '__version__', 'ok'))" 2>&1 | tail -1)"
    rc=$?
    [[ $rc == 0 ]] || { version="FAILED: $version"; failed=1; }
    printf '%s %s; ' "$lib" "$version" >>"$out/imports.txt"
done
note "imports: $(cat "$out/imports.txt")"; rm -f "$out/imports.txt"
step doctor $V/cribbage-board doctor --config /etc/cribbage-board/config.toml
grep -E "^(error|warning)" "$out/doctor.log" | sed 's/^/  /' | tee -a "$summary"
step demo bash -c "cd /tmp && $V/cribbage-board demo --camera scripted --out /tmp/demo-arm64" || failed=1
tail -2 "$out/demo.log" | sed 's/^/  /' | tee -a "$summary"

if (( run_tests )); then
    step test-deps $V/pip install -c "/opt/src/constraints/$release.txt" pytest hypothesis httpx || failed=1
    if [[ -z "$tests" ]]; then
        tests="$(cd "$root/opt/src" && ls tests/test_engine_*.py tests/test_hardware_*.py tests/test_vision_*.py \
                 | grep -v training | tr '\n' ' ')"
    fi
    step tests timeout -s INT -k 60 "$test_timeout" bash -c "cd /opt/src && $V/python -m pytest -q -p no:cacheprovider $tests" || failed=1
    note "  tests run: $(echo $tests | wc -w) files ($(echo $tests | tr ' ' '\n' | sed -E 's#tests/test_([a-z]+)_.*#\1#' | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep = ", "}'))"
    grep -q "KeyboardInterrupt" "$out/tests.log" && note "  stopped at --test-timeout $test_timeout s: the counts are of the tests run by then"
    grep -E "passed|failed|error" "$out/tests.log" | tail -1 | sed 's/^/  /' | tee -a "$summary"
    grep -E "^(FAILED|ERROR) " "$out/tests.log" | head -20 | sed 's/^/  /' | tee -a "$summary"
fi
note "total: $((SECONDS - began_all)) s; $( ((failed)) && echo FAILED || echo passed)"
exit $failed
