#!/usr/bin/env bash
# A fresh Debian box as issue 25 met it: a debootstrap'd minimal bookworm (no Python, no X
# libraries), a clean clone of this checkout, `scripts/run.sh` in it, and the window it opens
# on an Xvfb of the host (only the X socket is shared, so the chroot's libraries are exactly
# what scripts/bootstrap.sh installed). Root, debootstrap, Xvfb and xdotool on the host; the
# Debian mirror and PyPI reachable. About 4 minutes; not part of CI (it downloads ~250 MB).
#   scripts/check_minimal_debian.sh [ROOT]   (default: a temporary folder, removed after)
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" = 0 ] || { echo "check_minimal_debian.sh builds a chroot: run it as root" >&2; exit 1; }
for tool in debootstrap Xvfb xdotool git; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install debootstrap xvfb xdotool git)" >&2; exit 1; }
done
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
keep="${1:+yes}"  # a ROOT given is kept (and reused: debootstrap is skipped)
root="${1:-$(mktemp -d /var/tmp/workbench-minimal.XXXXXX)}"
display=":$((90 + RANDOM % 9))"
xvfb_pid=""
cleanup() {
    [ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
    for m in tmp/.X11-unix dev/pts dev proc; do umount -l "$root/$m" 2>/dev/null || true; done
    [ -n "$keep" ] || rm -rf --one-file-system "$root"
}
trap cleanup EXIT

[ -x "$root/bin/bash" ] || debootstrap --variant=minbase "$suite" "$root" http://deb.debian.org/debian >/dev/null
cp /etc/resolv.conf "$root/etc/"
# the host's trust store, so a TLS proxy the host trusts works for apt and pip alike
mkdir -p "$root/etc/ssl/certs" && cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$root/etc/pip.conf"
mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" && mount --bind /dev/pts "$root/dev/pts"
mkdir -p "$root/tmp/.X11-unix" && mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix"
rm -rf "$root/srv/wb" && git clone -q . "$root/srv/wb"

Xvfb "$display" -screen 0 1280x800x24 >/dev/null 2>&1 & xvfb_pid=$!
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DISPLAY="$display" bash -c "$1"; }
in_root 'cd /srv/wb && timeout 600 scripts/run.sh' >"$root/run.log" 2>&1 & app=$!
window=""
for _ in $(seq 1 600); do
    window=$(DISPLAY=$display xdotool search --onlyvisible --name "^Attention Workbench$" 2>/dev/null | head -1 || true)
    [ -n "$window" ] || ! kill -0 "$app" 2>/dev/null || { sleep 1; continue; }
    break
done
shot="${SHOT:-/tmp/minimal-debian-window.png}"
if [ -n "$window" ]; then
    sleep 3
    command -v import >/dev/null && DISPLAY=$display import -window root "$shot" && echo "screenshot: $shot"
fi
pkill -f "^/srv/wb/.venv/bin/" 2>/dev/null || true  # the app, as the chroot names it
wait "$app" 2>/dev/null || true
if [ -z "$window" ]; then
    tail -20 "$root/run.log" >&2
    echo "FAILED: scripts/run.sh opened no window in a minimal $suite" >&2
    exit 1
fi
packages=$(in_root 'dpkg-query -W -f "\${Package}\n"' | wc -l)
echo "passed: scripts/run.sh opened the window in a minimal $suite ($packages packages after bootstrap.sh)"
