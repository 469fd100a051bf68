#!/usr/bin/env bash
# Installs the cribbage board as a boot service on Raspberry Pi OS Bookworm.
#
#   sudo systemd/install.sh [--dry-run] [--with-voice] [--no-apt]
#                           [--prefix /opt/cribbage-board] [--user cribbage]
#                           [--root DIR]   (or DESTDIR=DIR)
#
# What it does, in order (each step is safe to repeat; run it again to upgrade):
#   1. apt: python3-venv, python3-picamera2 and python3-lgpio (apt builds, matched to
#      the Pi's libcamera and kernel), python3-dev and build-essential (rpi-ws281x is
#      built from source), espeak-ng with --with-voice.
#   2. groups gpio, video and spi (created if missing) and the system user (default
#      "cribbage", home /var/lib/cribbage-board, no login shell) in them.
#   3. a virtualenv at PREFIX/.venv made with --system-site-packages, so apt's
#      picamera2 and lgpio are visible, and the project installed into it with the
#      "pi" extra and opencv-python-headless==4.11.0.86: Bookworm's numpy is 1.24 and
#      OpenCV 4.12+ wheels need numpy 2 (shared PI-NOTES.md).
#   4. /etc/cribbage-board/config.toml from firmware/config.example.toml, only if
#      absent: an existing config is never overwritten.
#   5. the unit at /etc/systemd/system/cribbage-board.service (ExecStart pointed at
#      PREFIX), enabled for boot; restarted if it was running, so an upgrade takes.
#
# --dry-run prints every step and changes nothing (no root needed).
# --root DIR (or DESTDIR) places the files (steps 4, 5 and the docs) under DIR and
# enables the unit there with `systemctl --root`; steps 1-3 change the running
# system, so they are skipped. Paths written into the files stay the real ones.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(dirname "$here")"
unit_name="cribbage-board.service"
opencv_pin="opencv-python-headless==4.11.0.86"

dry_run=0
with_voice=0
apt=1
prefix="/opt/cribbage-board"
user="cribbage"
root="${DESTDIR:-}"

usage() { sed -n '2,26p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) dry_run=1 ;;
        --with-voice) with_voice=1 ;;
        --no-apt) apt=0 ;;
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

state_dir="/var/lib/cribbage-board"
venv="$prefix/.venv"
config="/etc/cribbage-board/config.toml"
unit="/etc/systemd/system/$unit_name"
groups=(gpio video spi)

say() { printf '%s\n' "$*"; }
# Runs a command, or with --dry-run prints it.
run() {
    if (( dry_run )); then say "would run: $*"; else say "+ $*"; "$@"; fi
}

if (( ! dry_run )) && [[ -z "$root" && "$(id -u)" != 0 ]]; then
    echo "install.sh: run as root (sudo), or use --dry-run or --root DIR" >&2
    exit 1
fi

system_steps() {
    if (( apt )); then
        local packages=(python3-venv python3-picamera2 python3-lgpio python3-dev build-essential)
        (( with_voice )) && packages+=(espeak-ng)
        run apt-get update
        run apt-get install -y --no-install-recommends "${packages[@]}"
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
    run "$venv/bin/pip" install --disable-pip-version-check --upgrade "$src[pi]" "$opencv_pin"
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

file_steps() {
    if [[ -e "$root$config" ]]; then
        say "ok: kept existing $config"
    else
        place "$src/firmware/config.example.toml" "$config"
    fi
    place "$here/README.md" "$prefix/systemd/README.md"

    local rendered
    rendered="$(mktemp)"
    trap 'rm -f "$rendered"' RETURN
    sed -e "s#/opt/cribbage-board#$prefix#g" -e "s#^User=cribbage\$#User=$user#" \
        -e "s#^Group=cribbage\$#Group=$user#" "$here/$unit_name" >"$rendered"
    place "$rendered" "$unit"
}

enable_steps() {
    if [[ -n "$root" ]]; then
        run systemctl --root="$root" enable "$unit_name"
        return
    fi
    run systemctl daemon-reload
    run systemctl enable "$unit_name"
    run systemctl try-restart "$unit_name"
}

if [[ -n "$root" ]]; then
    say "skip: apt, users and the virtualenv change the running system (--root $root)"
else
    system_steps
fi
file_steps
enable_steps
if (( ! dry_run )); then
    say "done: edit $config, then: sudo systemctl start $unit_name"
fi
