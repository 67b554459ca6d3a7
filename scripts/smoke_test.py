"""Smoke-test the packaged app: run its self-test offscreen, then start it with no display.

    .venv/bin/python scripts/smoke_test.py [BINARY] [--screenshot PATH]

1. `QT_QPA_PLATFORM=offscreen <binary> --self-test` must exit 0, print `self-test passed`,
   and print no `Traceback` and no `ModuleNotFoundError` (a module PyInstaller missed).
2. On Linux, `<binary>` with DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM unset must print a
   clear "cannot open the window" message and exit non-zero, not abort in Qt (SIGABRT) or hang.
3. `<binary> --version` prints the version of pyproject.toml.
4. Where `xvfb-run` exists (Linux), the main window opens under Xvfb: `<binary>
   --demo-screenshot PNG` runs the default comparison in a real X11 window and saves it;
   `--screenshot PATH` keeps that PNG (docs/screenshots/packaged-main-window.png).
5. On Linux, where `dbus-run-session` and `gnome-keyring-daemon` exist, `--self-test
   --keyring-store` in a throwaway Secret Service: a secret stored, read back and deleted.

The self-test itself paints every tab and exports the summary as PDF, so a library or plugin
that build.spec leaves out and the app needs fails here.

Exits 0 when all pass; otherwise prints what failed (with the binary's output) and exits 1.
Uses only the standard library, so any Python 3.11+ can run it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXE = ".exe" if sys.platform == "win32" else ""
DEFAULT_BINARY = ROOT / "dist" / "attention-workbench" / f"attention-workbench{EXE}"
# a windowed (GUI-subsystem) .exe may get no stdout/stderr at all: there the exit code decides
WINDOWED_SILENT = sys.platform == "win32"
FORBIDDEN = ("Traceback", "ModuleNotFoundError", "ImportError: ")


def run(binary: Path, args: list[str], env: dict[str, str], timeout: float):
    with tempfile.TemporaryDirectory(prefix="workbench-smoke-") as home:
        # a fresh, empty place for settings and history, as on a first launch
        env = {**env, "WORKBENCH_DATA_DIR": f"{home}/data", "WORKBENCH_CONFIG_DIR": f"{home}/cfg"}
        try:
            proc = subprocess.run(
                [str(binary), *args],
                env=env,
                cwd=home,  # a stray results.csv or the like lands in the temp folder
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            out = (exc.stdout or "") + (exc.stderr or "")
            if isinstance(out, bytes):
                out = out.decode("utf-8", "replace")
            return None, out
    return proc.returncode, proc.stdout + proc.stderr


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binary", nargs="?", type=Path, default=DEFAULT_BINARY)
    parser.add_argument("--screenshot", type=Path, help="keep the Xvfb screenshot here")
    args = parser.parse_args(argv)
    binary = args.binary.resolve()
    if not binary.is_file():
        print(f"smoke test: no binary at {binary} (build it with scripts/package.sh)")
        return 1
    failures: list[str] = []
    base = dict(os.environ)

    # 1. the self-test, offscreen
    code, out = run(binary, ["--self-test"], {**base, "QT_QPA_PLATFORM": "offscreen"}, 300)
    print(out.rstrip())
    if code is None:
        failures.append("--self-test did not finish within 300 s")
    elif code != 0:
        failures.append(f"--self-test exited {code}")
    elif "self-test passed" not in out and not (WINDOWED_SILENT and not out.strip()):
        failures.append("--self-test exited 0 but did not print 'self-test passed'")
    bad = [word for word in FORBIDDEN if word in out]
    if bad:
        failures.append(f"--self-test output contains {', '.join(bad)}")

    # 2. no display at all: a message and a non-zero exit, not a Qt abort
    if sys.platform.startswith("linux"):
        env = {
            k: v
            for k, v in base.items()
            if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
        }
        code, out = run(binary, [], env, 60)
        print(f"no display: exit {code}: {out.strip()}")
        if code is None:
            failures.append("with no display the app did not exit within 60 s")
        elif code == 0:
            failures.append("with no display the app exited 0 (expected a non-zero exit)")
        elif code < 0 or code in (134, 139):
            failures.append(f"with no display the app crashed (exit {code}) instead of exiting")
        elif "cannot open the window" not in out:
            failures.append("with no display the app gave no 'cannot open the window' message")
        if any(word in out for word in FORBIDDEN):
            failures.append("with no display the app printed a Python traceback")

    # 3. the version compiled in is the project's
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    code, out = run(binary, ["--version"], base, 60)
    print(f"--version: {out.strip()}")
    if code != 0 or (version not in out and not (WINDOWED_SILENT and not out.strip())):
        failures.append(f"--version printed {out.strip()!r} (exit {code}), expected {version}")

    # 4. a real X11 window under Xvfb
    xvfb = shutil.which("xvfb-run") if sys.platform.startswith("linux") else None
    if xvfb:
        with tempfile.TemporaryDirectory(prefix="workbench-shot-") as folder:
            png = Path(folder) / "main-window.png"
            env = {k: v for k, v in base.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
            code, out = run(
                Path(xvfb),
                [
                    "-a",
                    "-s",
                    "-screen 0 1600x1000x24",
                    str(binary),
                    "--demo-screenshot",
                    str(png),
                    "--time-scale",
                    "1" if args.screenshot else "0.05",  # real speed for the docs picture
                ],
                env,
                300,
            )
            print(f"under Xvfb: exit {code}: {out.strip()[-400:]}")
            if code != 0 or not png.is_file() or png.stat().st_size < 10_000:
                failures.append(f"the main window did not open and save under Xvfb (exit {code})")
            elif any(word in out for word in FORBIDDEN):
                failures.append("under Xvfb the app printed a Python traceback")
            elif args.screenshot:
                args.screenshot.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(png, args.screenshot)
                print(f"screenshot: {args.screenshot}")
    else:
        print("no xvfb-run here: the X11 window check is skipped")

    # 5. a keyring store (Linux): the self-test stores a secret in a throwaway Secret Service
    # (gnome-keyring in its own D-Bus session and home) and reads it back, through the AES-CBC
    # the bundle gets from OpenSSL (packaging/rthook_openssl_aes.py) instead of `cryptography`
    keyring_tools = [shutil.which(t) for t in ("dbus-run-session", "gnome-keyring-daemon")]
    keyring_store = sys.platform.startswith("linux") and all(keyring_tools)
    if keyring_store:
        with tempfile.TemporaryDirectory(prefix="workbench-keyring-") as home:
            env = {**base, "QT_QPA_PLATFORM": "offscreen", "HOME": home}
            env.update(XDG_DATA_HOME=f"{home}/share", XDG_RUNTIME_DIR=home)
            unlocked = "printf self-test | gnome-keyring-daemon --unlock --components=secrets"
            script = f'{unlocked} >/dev/null; exec "$@"'
            command = ["--", "sh", "-c", script, "sh", str(binary), "--self-test"]
            code, out = run(Path(str(keyring_tools[0])), [*command, "--keyring-store"], env, 300)
        stored = [line.strip() for line in out.splitlines() if "keyring store" in line]
        print(f"keyring store: exit {code}: {stored[-1] if stored else out.strip()[-600:]}")
        if code != 0 or not stored or not stored[-1].startswith("ok"):
            failures.append(f"the self-test's keyring store failed (exit {code})")
    elif sys.platform.startswith("linux"):
        print("no dbus-run-session or gnome-keyring-daemon here: the keyring store is skipped")

    checks = 3 + bool(xvfb) + bool(keyring_store)
    print(f"smoke: {checks - min(len(failures), checks)} passed, {len(failures)} failed")
    if failures:
        print("smoke test FAILED:\n  " + "\n  ".join(failures))
        return 1
    print(f"smoke test passed: {binary}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
