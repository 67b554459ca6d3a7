#!/usr/bin/env bash
# The .deb as a user meets it (root, Debian/Ubuntu; .ci/run calls it after scripts/package.sh):
# installed with apt-get, started from its desktop entry's Exec line with --self-test offscreen
# and under Xvfb, purged, and nothing of it left on disk.
#   scripts/check_deb.sh [dist/attention-workbench_*.deb]
set -euo pipefail
cd "$(dirname "$0")/.."

app=attention-workbench
deb="${1:-$(ls dist/${app}_*.deb | tail -1)}"
[ "$(id -u)" = 0 ] || { echo "check_deb.sh installs a package: run it as root" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT

apt-get install -y -qq "./$deb" >/dev/null
files=$(dpkg -L "$app")
entry=/usr/share/applications/$app.desktop
exec_line=$(sed -n 's/^Exec=//p' "$entry" | head -1)
[ -n "$exec_line" ] || { echo "no Exec line in $entry" >&2; exit 1; }
command -v "${exec_line%% *}" >/dev/null || { echo "Exec=$exec_line is not on PATH" >&2; exit 1; }

self_test() {  # the Exec line as a menu runs it, in a fresh home, plus --self-test
    local out
    out=$(cd "$home" && HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" \
        timeout 300 "$@" $exec_line --self-test 2>&1) ||
        { echo "$out" >&2; echo "--self-test failed: $*" >&2; exit 1; }
    grep -q "self-test passed" <<<"$out" || { echo "$out" >&2; echo "no 'self-test passed'" >&2; exit 1; }
    ! grep -Eq "Traceback|ModuleNotFoundError" <<<"$out" || { echo "$out" >&2; exit 1; }
}
self_test env QT_QPA_PLATFORM=offscreen
if ! command -v xvfb-run >/dev/null 2>&1; then  # a fresh CI box: the X11 launch is not skipped
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq xvfb >/dev/null 2>&1 || true
fi
if command -v xvfb-run >/dev/null 2>&1; then
    self_test env -u QT_QPA_PLATFORM xvfb-run -a
else
    echo "no xvfb-run: the X11 self-test is skipped" >&2
fi

apt-get purge -y -qq "$app" >/dev/null
if dpkg -s "$app" >/dev/null 2>&1; then echo "$app is still known to dpkg after purge" >&2; exit 1; fi
left=0
while read -r path; do
    [ -n "$path" ] || continue
    case "$path" in /. | /opt | /usr | /usr/bin | /usr/share | /usr/share/*/ ) continue ;; esac
    if [ -f "$path" ] || [ -L "$path" ]; then echo "left after purge: $path" >&2; left=1; fi
done <<<"$files"
[ ! -e /opt/$app ] || { echo "left after purge: /opt/$app" >&2; left=1; }
[ "$left" = 0 ] || exit 1
echo "deb: installed, --self-test passed from its desktop entry (offscreen and Xvfb), purged clean"
