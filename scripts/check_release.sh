#!/usr/bin/env bash
# The release as a user meets it: build the wheel and the sdist, install the wheel into a fresh
# venv outside the checkout (and with pipx, as docs/install.md shows), and run the app from a folder
# that is not the checkout. Fails on any error, on a deprecation warning from the build, or when
# the installed app imports anything from this checkout.
#   scripts/check_release.sh            # .ci/run runs it after the tests; about 1-2 minutes
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
scripts/bootstrap.sh test  # `build` is in the test group

say() { printf '== %s\n' "$*"; }
fail() { printf 'check_release: %s\n' "$*" >&2; exit 1; }

out=build/release
rm -rf "$out" && mkdir -p "$out"
say "building the sdist and the wheel (the wheel from the sdist, as \`python -m build\` does)"
.venv/bin/python -m build --outdir "$out" . >"$out/build.log" 2>&1 || { cat "$out/build.log"; fail "the build failed"; }
if grep -i -E "deprecat" "$out/build.log"; then
    fail "the build printed a deprecation warning (full log: $out/build.log)"
fi
wheel=$(ls "$out"/attention_workbench-*.whl)
sdist=$(ls "$out"/attention_workbench-*.tar.gz)
say "built $(basename "$wheel") ($(du -h "$wheel" | cut -f1)), $(basename "$sdist") ($(du -h "$sdist" | cut -f1))"

# What the app reads at run time is in the wheel; what it takes to test is in the sdist.
.venv/bin/python - "$wheel" "$sdist" <<'EOF'
import sys, tarfile, zipfile
wheel, sdist = sys.argv[1:]
names = set(zipfile.ZipFile(wheel).namelist())
need = ["workbench/_resources/models.toml", "workbench/_resources/hardware.toml",
        "workbench/_resources/corpus/en.txt", "workbench/_resources/corpus/zh.txt",
        "workbench/_resources/translations/workbench_zh_CN.qm",
        "workbench/_resources/icons/attention-workbench.png", "workbench/py.typed"]
missing = [n for n in need if n not in names]
if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
    missing.append("LICENSE in .dist-info/licenses")
members = {m.split("/", 1)[1] for m in tarfile.open(sdist).getnames() if "/" in m}
missing += [f"sdist: {n}" for n in ("LICENSE", "resources/models.toml", "tests/conftest.py",
            "tests/data/README.md", "docs/metrics.md", "scripts/test.sh") if n not in members]
if missing:
    sys.exit(f"check_release: missing from the release: {', '.join(missing)}")
print(f"wheel: {len(names)} files; sdist: {len(members)} files; resources and license present")
EOF

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python=$(.venv/bin/python -c 'import sys; print(sys._base_executable)')
say "installing the wheel into a fresh venv at $work/venv"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --upgrade pip
"$work/venv/bin/python" -m pip install -q "$wheel"

# From a folder that is not the checkout, with the user's folders in the temp dir.
mkdir -p "$work/user"
cd "$work/user"
export WORKBENCH_DATA_DIR="$work/data" WORKBENCH_CONFIG_DIR="$work/config"
wb="$work/venv/bin/workbench"
where=$("$work/venv/bin/python" -c 'import workbench, workbench.resources as r; print(workbench.__file__); print(r.resources_dir())')
case "$where" in *"$repo"*) fail "the installed app imports from the checkout: $where" ;; esac
say "installed: $(echo "$where" | tr '\n' ' ')"

say "workbench --version"
"$wb" --version
say "workbench models"
"$wb" models >models.txt
grep -q "sim-70b-gqa" models.txt || { cat models.txt; fail "workbench models does not list sim-70b-gqa"; }
say "workbench bench --model sim-70b-gqa --prompt-tokens 1K --max-tokens 16"
"$wb" bench --model sim-70b-gqa --prompt-tokens 1K --max-tokens 16 --csv run.csv
# one measured row (and the model's calibration row beside it, phase=calibration)
measured=$("$work/venv/bin/python" -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8-sig", newline="")))
print(sum(r["phase"] == "measured" and not r["error_class"] for r in rows))' run.csv)
[ "$measured" -eq 1 ] || fail "bench wrote $measured measured rows that succeeded, expected 1"
say "workbench gui --demo-screenshot x.png (offscreen)"
QT_QPA_PLATFORM=offscreen "$wb" gui --demo-screenshot x.png
[ -s x.png ] || fail "no screenshot written"
say "workbench --self-test (offscreen)"
QT_QPA_PLATFORM=offscreen "$wb" --self-test
say "the windowed launcher with no display says why and exits 2"
set +e
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$work/venv/bin/attention-workbench" 2>launcher.err
code=$?
set -e
[ "$code" -eq 2 ] && grep -q "cannot open the window" launcher.err ||
    { cat launcher.err; fail "attention-workbench with no display exited $code"; }

say "pipx install of the wheel (docs/install.md's line)"
"$python" -m venv "$work/pipx-tool"
"$work/pipx-tool/bin/python" -m pip install -q pipx
PIPX_HOME="$work/pipx" PIPX_BIN_DIR="$work/pipx-bin" "$work/pipx-tool/bin/pipx" install -q "$repo/$wheel" >/dev/null
"$work/pipx-bin/workbench" models >pipx-models.txt
grep -q "sim-deepseek-v3" pipx-models.txt || fail "the pipx-installed workbench does not list models"
say "release checks passed"
