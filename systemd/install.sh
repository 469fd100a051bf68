#!/usr/bin/env bash
# Installs the cribbage board as a boot service on Raspberry Pi OS (Bookworm or Trixie),
# and with --with-club the club server (on a Pi or any Debian machine).
#
#   sudo systemd/install.sh [--dry-run] [--with-voice] [--with-club[=BOARD,...]] [--no-apt]
#                           [--leds spi|pio] [--prefix /opt/cribbage-board] [--user cribbage]
#                           [--root DIR]   (or DESTDIR=DIR)
#
# What it does, in order (each step is safe to repeat; run it again to upgrade):
#   1. apt: python3-venv, python3-picamera2 and python3-lgpio (apt builds, matched to
#      the Pi's libcamera and kernel), python3-dev and build-essential (rpi-ws281x is
#      built from source), espeak-ng with --with-voice, mosquitto with --with-club.
#      On a machine that is no 64-bit Pi (a club's server) only python3-venv and those
#      two: the project goes in without the Pi's camera, GPIO and LED libraries.
#   2. groups gpio, video, spi, leds and audio (created if missing) and the system
#      user (default "cribbage", home /var/lib/cribbage-board, no login shell) in them.
#   3. a virtualenv at PREFIX/.venv made with --system-site-packages, so apt's
#      picamera2 and lgpio are visible, and the project (with its "pi" extra on a
#      Pi) installed into it under
#      constraints/bookworm.txt (Python 3.11) or constraints/trixie.txt (3.13): the
#      library versions the tests run against (Bookworm's numpy is 1.24, and OpenCV
#      4.12+ wheels need numpy 2).
#   4. /etc/cribbage-board/config.toml from firmware/config.example.toml, only if
#      absent (an existing config is never overwritten), with the LED backend for
#      this board: "spi" (GPIO10) on a Pi 3, 4, 5 or Zero 2 W, or with --leds pio on
#      a Pi 5, "pi5_pio" (GPIO18, /dev/leds0).
#   5. the board's boot settings (/proc/device-tree/model says which Pi): lines
#      added to /boot/firmware/config.txt (dtparam=spi=on and the core clock pin of
#      a Pi 3/4, or dtoverlay=ws2812-pio on a Pi 5) and, for long SPI strips,
#      spidev.bufsiz to cmdline.txt; for --leds pio a udev rule that gives
#      /dev/leds* to the group leds. These need a reboot, which it says.
#   6. the unit at /etc/systemd/system/cribbage-board.service (ExecStart pointed at
#      PREFIX), enabled for boot; restarted if it was running, so an upgrade takes.
#      With --with-club also the club server: cribbage-club.service, with its options
#      in /etc/cribbage-board/club.env (placed only if absent), enabled the same way,
#      and the broker's logins (`cribbage-board club setup-broker`: one per BOARD, an
#      ACL, no anonymous clients; a new board's password is printed once; run again to
#      add boards).
#      Where systemd is not running (a chroot: pi-gen, sdm, an image build; no
#      /run/systemd/system) the units are enabled offline and nothing is reloaded or
#      restarted: they start at first boot.
#
# Without the Raspberry Pi archive (plain Debian: apt knows no python3-picamera2 or
# python3-lgpio) step 1 stops and says so; --no-apt skips apt (install python3-venv,
# python3-dev and build-essential yourself), and the board then has no picamera2
# camera and gpiozero's pins only through pip's lgpio wheel.
# --dry-run prints every step and changes nothing (no root needed).
# --root DIR (or DESTDIR) places the files (steps 4-6 and the docs) under DIR, reads
# DIR/proc/device-tree/model and enables the unit there with `systemctl --root`;
# steps 1-3 change the running system, so they are only said. Paths written into
# the files stay the real ones.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(dirname "$here")"
unit_name="cribbage-board.service"

dry_run=0
leds="spi"
with_voice=0
with_club=0
club_boards=""
apt=1
prefix="/opt/cribbage-board"
user="cribbage"
root="${DESTDIR:-}"

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) dry_run=1 ;;
        --with-voice) with_voice=1 ;;
        --with-club) with_club=1 ;;
        --with-club=*) with_club=1; club_boards="${1#*=}" ;;
        --no-apt) apt=0 ;;
        --leds) leds="${2:?--leds needs spi or pio}"; shift ;;
        --leds=*) leds="${1#*=}" ;;
        --prefix) prefix="${2:?--prefix needs a directory}"; shift ;;
        --prefix=*) prefix="${1#*=}" ;;
        --user) user="${2:?--user needs a name}"; shift ;;
        --user=*) user="${1#*=}" ;;
        --root) root="${2:?--root needs a directory}"; shift ;;
        --root=*) root="${1#*=}" ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done
root="${root%/}"
[[ "$prefix" == /* ]] || { echo "install.sh: --prefix must be absolute, not '$prefix'" >&2; exit 2; }
if [[ -n "$root" && "$root" != /* ]]; then root="$(pwd)/$root"; fi
[[ "$leds" == spi || "$leds" == pio ]] \
    || { echo "install.sh: --leds must be spi or pio, not '$leds'" >&2; exit 2; }

state_dir="/var/lib/cribbage-board"
venv="$prefix/.venv"
config="/etc/cribbage-board/config.toml"
unit="/etc/systemd/system/$unit_name"
club_unit_name="cribbage-club.service"
club_env="/etc/cribbage-board/club.env"
units=("$unit_name")
(( with_club )) && units+=("$club_unit_name")
# leds: /dev/leds* through the udev rule (Pi 5 PIO); audio: espeak-ng's sound card.
# Every group is created if missing, because the unit names them all and systemd
# refuses to start a unit with a supplementary group that does not exist.
groups=(gpio video spi leds audio)
udev_rule="/etc/udev/rules.d/99-cribbage-board-leds.rules"
reboot_for=()
# Present only while systemd runs as PID 1 (sd_booted(3)); SYSTEMD_RUN_DIR stands in for it
# in tests of the steps that change the running system.
systemd_run_dir="${SYSTEMD_RUN_DIR:-/run/systemd/system}"
# The apt packages that come only from the Raspberry Pi archive, and what each gives.
pi_packages=(python3-picamera2 python3-lgpio)

say() { printf '%s\n' "$*"; }
# Runs a command, or with --dry-run prints it.
run() {
    if (( dry_run )); then say "would run: $*"; else say "+ $*"; "$@"; fi
}

if (( ! dry_run )) && [[ -z "$root" && "$(id -u)" != 0 ]]; then
    echo "install.sh: run as root (sudo), or use --dry-run or --root DIR" >&2
    exit 1
fi

# The constraints file for this OS release (Debian codename), if the project has one.
constraints_file() {
    local codename=""
    if [[ -r /etc/os-release ]]; then
        codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
    fi
    if [[ -n "$codename" && -f "$src/constraints/$codename.txt" ]]; then
        echo "$src/constraints/$codename.txt"
    fi
}

system_steps() {
    local extra="[pi]"
    case "$kind" in
        pi3|pi4|pi5) ;;
        *) extra=""
           say "note: not a 64-bit Raspberry Pi: installing without the camera, GPIO and LED libraries" ;;
    esac
    if (( apt )); then
        local packages=(python3-venv)
        [[ -n "$extra" ]] && packages+=(python3-picamera2 python3-lgpio python3-dev build-essential)
        (( with_voice )) && packages+=(espeak-ng)
        (( with_club )) && packages+=(mosquitto)
        run apt-get update
        [[ -n "$extra" ]] && check_pi_archive
        run apt-get install -y --no-install-recommends "${packages[@]}"
        (( dry_run )) || say "installed with apt: ${packages[*]}"
    else
        say "skip: apt packages (--no-apt)"
    fi

    local group
    for group in "${groups[@]}"; do
        if getent group "$group" >/dev/null; then
            say "ok: group $group exists"
        else
            run groupadd --system "$group"
        fi
    done
    if id -u "$user" >/dev/null 2>&1; then
        say "ok: user $user exists"
    else
        run useradd --system --user-group --home-dir "$state_dir" --no-create-home \
            --shell /usr/sbin/nologin "$user"
    fi
    run usermod --append --groups "$(IFS=,; echo "${groups[*]}")" "$user"

    if [[ -x "$venv/bin/python" ]]; then
        say "ok: virtualenv $venv exists"
    else
        run python3 -m venv --system-site-packages "$venv"
    fi
    local constraints
    constraints="$(constraints_file)"
    if [[ -n "$constraints" ]]; then
        run "$venv/bin/pip" install --disable-pip-version-check --upgrade \
            -c "$constraints" "$src$extra"
    else
        say "note: no constraints/ file for this OS release; installing the newest libraries"
        run "$venv/bin/pip" install --disable-pip-version-check --upgrade "$src$extra"
    fi
    (( dry_run )) || say "installed: cribbage-board$extra into $venv${constraints:+ under $constraints}"
}

# Stops before apt-get install when apt knows none of the Raspberry Pi archive's packages
# (apt's own "Unable to locate package" names neither the cause nor --no-apt). --dry-run has
# not updated the package lists, so there it only notes.
check_pi_archive() {
    local missing=() package
    for package in "${pi_packages[@]}"; do
        apt-cache show "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    (( ${#missing[@]} )) || return 0
    if (( dry_run )); then
        say "note: apt does not know ${missing[*]} (yet): without the Raspberry Pi archive the install stops here; see --no-apt"
        return 0
    fi
    {
        echo "install.sh: apt has no ${missing[*]}: this machine's apt sources lack the Raspberry Pi archive (archive.raspberrypi.com), which Raspberry Pi OS has. Nothing was installed."
        echo "  To install without them, run again with --no-apt (and first: apt-get install python3-venv python3-dev build-essential). Without them:"
        echo "  - python3-picamera2: no Camera Module through picamera2 ([camera] source = \"picamera2\"); a USB camera (source = \"opencv\") still works."
        echo "  - python3-lgpio: gpiozero's lgpio pins (the buttons) come only from pip's lgpio wheel, not the build matched to the Pi's kernel."
    } >&2
    exit 1
}

# Installs a file (mode 0644) at $root$2 if its content differs.
place() {
    local from="$1" to="$root$2"
    if [[ -f "$to" ]] && cmp -s "$from" "$to"; then
        say "ok: $2 is up to date"
    elif (( dry_run )); then
        say "would install: $2"
    else
        install -D -m 0644 "$from" "$to"
        say "installed: $2"
    fi
}

# The board: pi5, pi4 or pi3 (a Pi 3 or Zero 2 W), "old" (32-bit only: no onnxruntime)
# or "none" (not a Raspberry Pi), from the device tree's model string.
board_kind() {
    case "$1" in
        "Raspberry Pi 5"*|"Raspberry Pi 500"*|"Raspberry Pi Compute Module 5"*) echo pi5 ;;
        "Raspberry Pi 4"*|"Raspberry Pi 400"*|"Raspberry Pi Compute Module 4"*) echo pi4 ;;
        "Raspberry Pi 3"*|"Raspberry Pi Zero 2"*|"Raspberry Pi Compute Module 3"*) echo pi3 ;;
        "Raspberry Pi"*) echo old ;;
        *) echo none ;;
    esac
}

# The Python that runs the project's own code here: the venv's once made (the system's under
# --root, where the venv is not this machine's to run).
project_python() {
    if [[ -z "$root" && -x "$venv/bin/python" ]]; then echo "$venv/bin/python"; else echo python3; fi
}

# The layout's LED count, read from the config by the project's own code.
led_count() {
    PYTHONPATH="$src" "$(project_python)" -c 'import sys
from hardware.config import load_config
print(load_config(sys.argv[1]).layout.n_leds)' "$1" 2>/dev/null
}

# The bytes one SPI frame of $1 LEDs takes, by the project's own code (RGBW: the larger).
spi_frame_bytes() {
    PYTHONPATH="$src" "$(project_python)" -c 'import sys
from hardware.strips.spi import frame_bytes
print(frame_bytes(int(sys.argv[1]), order="GRBW"))' "$1" 2>/dev/null
}

# Appends each line that $1 (a file under $root) lacks, under one comment and [all].
add_lines() {
    local file="$1" why="$2"; shift 2
    local missing=() line
    for line in "$@"; do
        grep -qxF "$line" "$root$file" 2>/dev/null || missing+=("$line")
    done
    if (( ${#missing[@]} == 0 )); then
        say "ok: $file has $*"
        return
    fi
    if [[ ! -f "$root$file" ]]; then
        # Nothing was (or would be) changed here, so nothing here asks for a reboot.
        say "note: no $file here: add by hand: ${missing[*]}"
        return
    elif (( dry_run )); then
        say "would add to $file: ${missing[*]}"
    else
        { printf '\n# cribbage-board (systemd/install.sh): %s\n[all]\n' "$why"
          printf '%s\n' "${missing[@]}"; } >>"$root$file"
        say "added to $file: ${missing[*]}"
    fi
    reboot_for+=("$file")
}

# Appends a kernel option to the one line of cmdline.txt if absent.
add_kernel_option() {
    local file="$1" option="$2"
    if grep -qwF -- "$option" "$root$file" 2>/dev/null; then
        say "ok: $file has $option"
    elif [[ ! -f "$root$file" ]]; then
        say "note: no $file here: add by hand: $option"
    elif (( dry_run )); then
        say "would add to $file: $option"
    else
        sed -i "1s#\$# $option#" "$root$file"
        say "added to $file: $option"
        reboot_for+=("$file")
    fi
}

# Says the model, enables its LED interface, and prints the backend that drives it.
board_steps() {
    backend="simulator"
    case "$kind" in
        none)
            say "note: not a Raspberry Pi (${model:-no $model_file}): boot settings left alone, LEDs simulated"
            if [[ "$leds" == pio ]]; then
                echo "install.sh: --leds pio needs a Raspberry Pi 5" >&2
                exit 2
            fi
            return ;;
        old)
            say "note: '$model' runs only a 32-bit OS, which the recogniser (onnxruntime) does not support: boot settings left alone, LEDs simulated"
            return ;;
    esac
    say "board: $model"
    if [[ "$leds" == pio && "$kind" != pi5 ]]; then
        echo "install.sh: --leds pio needs a Raspberry Pi 5, not '$model'; use --leds spi" >&2
        exit 2
    fi
    local boot=/boot/firmware
    [[ -d "$root$boot" || ! -d "$root/boot" ]] || boot=/boot
    local config_txt="$boot/config.txt" cmdline="$boot/cmdline.txt" n
    local source="$root$config"
    [[ -f "$source" ]] || source="$src/firmware/config.example.toml"
    n="$(led_count "$source")" || n=""
    if [[ -z "$n" ]]; then
        n=366
        say "note: could not read the LED count from $config; assuming $n"
    fi
    if [[ "$leds" == pio ]]; then
        backend="pi5_pio"
        add_lines "$config_txt" "WS2812 strip on GPIO18 through the RP1's PIO (/dev/leds0)" \
            "dtoverlay=ws2812-pio,gpio=18,num_leds=$n"
        place "$here/99-cribbage-board-leds.rules" "$udev_rule"
        placed_udev=1
    else
        backend="spi"
        case "$kind" in
            pi4) add_lines "$config_txt" "WS2812 strip on SPI0 MOSI (GPIO10); the SPI clock follows the core clock, so pin it" \
                     "dtparam=spi=on" "core_freq=500" "core_freq_min=500" ;;
            pi3) add_lines "$config_txt" "WS2812 strip on SPI0 MOSI (GPIO10); the SPI clock follows the core clock, so pin it" \
                     "dtparam=spi=on" "core_freq=250" ;;
            pi5) add_lines "$config_txt" "WS2812 strip on SPI0 MOSI (GPIO10)" "dtparam=spi=on" ;;
        esac
        # One frame goes in one transfer (hardware.strips.spi.frame_bytes: 12 bytes per RGB
        # LED, 16 per RGBW, and the reset gap): past 331 RGB LEDs that outgrows spidev's
        # default 4096-byte buffer.
        local frame
        frame="$(spi_frame_bytes "$n")" || frame=$(( n * 16 + 120 ))
        if (( frame > 4096 )); then
            add_kernel_option "$cmdline" "spidev.bufsiz=65536"
        fi
    fi
}

# Writes the config with this board's backend if there is none yet.
config_steps() {
    if [[ -e "$root$config" ]]; then
        say "ok: kept existing $config"
        if [[ "$backend" != simulator ]] && ! grep -qE "^backend *= *\"$backend\"" "$root$config"; then
            say "note: set [board.strip] backend = \"$backend\" in $config to light the strip"
        fi
        return
    fi
    if [[ "$backend" == simulator ]]; then
        place "$src/firmware/config.example.toml" "$config"
        return
    fi
    local rendered
    rendered="$(mktemp)"
    sed -e "s@^backend = \"simulator\".*@backend = \"$backend\"              # chosen by install.sh: spi | pi5_pio | ws281x (Pi 1-4, root only) | simulator@" \
        "$src/firmware/config.example.toml" >"$rendered"
    place "$rendered" "$config"
    rm -f "$rendered"
}

file_steps() {
    place "$src/docs/installing.md" "$prefix/docs/installing.md"

    local rendered name
    rendered="$(mktemp)"
    trap 'rm -f "$rendered"' RETURN
    for name in "${units[@]}"; do
        sed -e "s#/opt/cribbage-board#$prefix#g" -e "s#^User=cribbage\$#User=$user#" \
            -e "s#^Group=cribbage\$#Group=$user#" "$here/$name" >"$rendered"
        place "$rendered" "/etc/systemd/system/$name"
    done
    if (( with_club )); then
        if [[ -e "$root$club_env" ]]; then
            say "ok: kept existing $club_env"
        else
            place "$here/club.env.example" "$club_env"
        fi
        run env PYTHONPATH="$src" "$(project_python)" -m firmware.commands.cli club setup-broker \
            --root "${root:-/}" --group "$user" --boards "$club_boards"
    fi
}

enable_steps() {
    if [[ -n "$root" ]]; then
        run systemctl --root="$root" enable "${units[@]}"
        first_boot=1
        return
    fi
    if [[ ! -d "$systemd_run_dir" ]]; then
        say "note: systemd is not running here (no $systemd_run_dir: a chroot or an image build): enabling offline, no daemon-reload or restart"
        run systemctl enable "${units[@]}"
        first_boot=1
        return
    fi
    run systemctl daemon-reload
    run systemctl enable "${units[@]}"
    run systemctl try-restart "${units[@]}"
    if [[ -n "${placed_udev:-}" ]]; then
        run udevadm control --reload
        run udevadm trigger --sysname-match='leds[0-9]*'
    fi
}

# The machine's model, read once (MODEL_FILE stands in for the device tree in tests of the
# steps that change the running system), and its kind (board_kind).
model_file="${MODEL_FILE:-$root/proc/device-tree/model}"
model=""
[[ -r "$model_file" ]] && model="$(tr -d '\0' <"$model_file")"
kind="$(board_kind "$model")"

if [[ -n "$root" ]]; then
    say "skip: apt, users and the virtualenv change the running system (--root $root)"
    say "skip: usermod --append --groups $(IFS=,; echo "${groups[*]}") $user (--root $root)"
else
    system_steps
fi
board_steps
config_steps
file_steps
enable_steps
if (( ${#reboot_for[@]} )) && (( dry_run )); then
    say "reboot would be needed: $(printf '%s\n' "${reboot_for[@]}" | sort -u | paste -sd' ') would change"
elif (( ${#reboot_for[@]} )); then
    say "reboot needed: $(printf '%s\n' "${reboot_for[@]}" | sort -u | paste -sd' ') changed"
fi
if (( ! dry_run )); then
    say "done: check it with: $venv/bin/cribbage-board doctor --config $config"
    if [[ -n "${first_boot:-}" ]]; then
        say "at first boot: systemd starts ${units[*]}${placed_udev:+, the udev rule gives /dev/leds* to the group leds}${reboot_for[*]:+ and the boot settings take effect}"
    else
        say "then: sudo systemctl start ${units[*]}"
    fi
fi
