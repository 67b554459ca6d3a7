#!/usr/bin/env bash
# A .deb of the packaged app, from the PyInstaller folder scripts/package.sh leaves:
#   scripts/package_deb.sh [dist/attention-workbench]     -> dist/attention-workbench_<v>_<arch>.deb
# The app under /opt/attention-workbench/, a launcher /usr/bin/attention-workbench, the desktop
# entry, the hicolor icons and the AppStream metainfo under /usr/share. `Depends:` is computed:
# the system libraries Qt's xcb plugin links (ldd), each mapped to its Debian package (dpkg -S).
# Needs dpkg-deb, ldd and dpkg (Debian/Ubuntu); desktop-file-validate and appstreamcli check
# the entry and the metainfo where they are installed. docs/packaging.md has the details.
set -euo pipefail
cd "$(dirname "$0")/.."

app=attention-workbench
bundle="${1:-dist/$app}"
metainfo=resources/desktop/io.github.attention_workbench.AttentionWorkbench.metainfo.xml
[ -x "$bundle/$app" ] || { echo "no $bundle/$app: run scripts/package.sh first" >&2; exit 1; }
for tool in dpkg-deb dpkg ldd; do
    command -v "$tool" >/dev/null 2>&1 || { echo "missing: $tool (a Debian or Ubuntu system)" >&2; exit 1; }
done

# the two validators, where this machine can install them (CI runs as root)
if ! command -v desktop-file-validate >/dev/null 2>&1 || ! command -v appstreamcli >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq desktop-file-utils appstream >/dev/null
    else
        echo "warning: desktop-file-validate or appstreamcli missing: the entry and metainfo go unchecked" >&2
    fi
fi

version=$(grep -m1 '^version = ' pyproject.toml | cut -d'"' -f2)
arch=$(dpkg --print-architecture)
root=build/deb/root
rm -rf build/deb
mkdir -p "$root/DEBIAN" "$root/opt" "$root/usr/bin" "$root/usr/share/applications" \
    "$root/usr/share/icons" "$root/usr/share/metainfo"

cp -a "$bundle" "$root/opt/$app"
rm -rf "$root/opt/$app/share"  # the freedesktop files go to /usr/share below
printf '#!/bin/sh\nexec /opt/%s/%s "$@"\n' "$app" "$app" > "$root/usr/bin/$app"
chmod 0755 "$root/usr/bin/$app"
cp resources/desktop/$app.desktop "$root/usr/share/applications/"
cp -r resources/icons/hicolor "$root/usr/share/icons/"
cp "$metainfo" "$root/usr/share/metainfo/"

if command -v desktop-file-validate >/dev/null 2>&1; then
    desktop-file-validate "$root/usr/share/applications/$app.desktop"
fi
if command -v appstreamcli >/dev/null 2>&1; then
    appstreamcli validate --no-net "$root/usr/share/metainfo/$(basename "$metainfo")" >/dev/null
fi

# Depends: what the xcb plugin links from outside the bundle, by the package that owns it.
plugin=$(find "$root/opt/$app" -name libqxcb.so | head -1)
[ -n "$plugin" ] || { echo "no libqxcb.so in $bundle" >&2; exit 1; }
# the loader finds the bundle's own libraries as the frozen app does: from the bundle first
bundled=$(find "$root/opt/$app" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:)
links=$(LD_LIBRARY_PATH="$bundled" ldd "$plugin")
if grep -q 'not found' <<<"$links"; then
    echo "the xcb plugin links libraries this machine lacks:" >&2
    grep 'not found' <<<"$links" >&2
    exit 1
fi
packages=()
while read -r lib; do
    case "$lib" in "$root"/* | "$PWD/$root"/*) continue ;; esac  # shipped in the bundle
    owner=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$(readlink -f "$lib")" 2>/dev/null ||
        dpkg -S "${lib#/usr}" 2>/dev/null || true)
    [ -n "$owner" ] || { echo "no Debian package owns $lib" >&2; exit 1; }
    packages+=("${owner%%:*}")
done < <(awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' <<<"$links")
depends=$(printf '%s\n' "${packages[@]}" | sort -u | paste -sd, | sed 's/,/, /g')

# The app itself writes nothing under /opt, but the kernel worker's outside Python may leave
# __pycache__ beside the sources shipped there: removal takes the folder whole.
cat > "$root/DEBIAN/postrm" <<EOF
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = purge ]; then
    rm -rf /opt/$app
fi
EOF
chmod 0755 "$root/DEBIAN/postrm"

cat > "$root/DEBIAN/control" <<EOF
Package: $app
Version: $version
Architecture: $arch
Maintainer: Attention Workbench developers <attention-workbench@users.noreply.github.com>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Section: devel
Priority: optional
Description: compare LLM servers: time to first token and decode speed
 Sends the same prompt to several LLMs behind OpenAI-compatible, Anthropic or
 Responses APIs, shows time to first token, decode speed and cost live, and
 explains the differences from each model's attention variant.
EOF

out="dist/${app}_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "built $out ($(du -h "$out" | cut -f1)); Depends: $depends"
