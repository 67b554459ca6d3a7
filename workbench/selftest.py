"""`workbench --self-test`: prove that this install (a checkout or the frozen app) works.

    QT_QPA_PLATFORM=offscreen dist/attention-workbench/attention-workbench --self-test

It checks the shipped resources (model catalog, hardware profiles, prompt corpus, translations,
icon, and, in the frozen app, the kernel bridge sources an outside Python imports), then starts
the built-in provider, streams a two-pane comparison through the real MainWindow and
CompareController offscreen, exports the results as CSV into a temporary folder and reads it
back. Everything it writes (history database, settings, calibration, CSV, charts) goes to that
temporary folder, removed at the end; the user's own data and settings are never touched.

Prints one line per check and `self-test passed` with exit code 0, or `self-test FAILED: <why>`
with exit code 1. This module has no Qt import; the window part is `workbench.ui.selftest_window`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import traceback
from collections.abc import Sequence
from pathlib import Path

from workbench import resources
from workbench.selftest_error import SelfTestError

# The first 16 bytes of every compiled Qt translation (.qm) file.
QM_MAGIC = bytes.fromhex("3cb86418caef9c95cd211cbf60a1bddd")
MIN_CORPUS_CHARS = 10_000


def say(line: str) -> None:
    # a windowed app on Windows has no stdout at all
    if sys.stdout is not None:
        print(line, flush=True)


def check_resources() -> list[str]:
    """The files the app reads at run time, found where resources_dir() says; returns notes."""
    try:
        root = resources.resources_dir()
    except resources.ResourcesMissing as exc:
        raise SelfTestError(str(exc)) from exc
    notes = [f"resources at {root}"]

    models = root / "models.toml"
    try:
        catalog = tomllib.loads(models.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SelfTestError(f"model catalog unreadable: {models}: {exc}") from exc
    entries = catalog.get("models") or catalog.get("model") or []
    count = len(entries) if isinstance(entries, list | dict) else 0
    if count == 0:
        raise SelfTestError(f"model catalog has no models: {models}")
    notes.append(f"models.toml: {count} models")

    hardware = root / "hardware.toml"
    try:
        tomllib.loads(hardware.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SelfTestError(f"hardware profiles unreadable: {hardware}: {exc}") from exc
    notes.append("hardware.toml: ok")

    for lang in ("en", "zh"):
        corpus = root / "corpus" / f"{lang}.txt"
        try:
            chars = len(corpus.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise SelfTestError(f"prompt corpus unreadable: {corpus}: {exc}") from exc
        if chars < MIN_CORPUS_CHARS:
            raise SelfTestError(f"prompt corpus too short ({chars} chars): {corpus}")
    notes.append("corpus: en.txt, zh.txt")

    notes.append(check_translations(root / "translations"))

    icon = root / "icons" / "attention-workbench.png"
    if not icon.is_file() or icon.stat().st_size == 0:
        raise SelfTestError(f"app icon not found: {icon}")
    notes.append("icon: ok")

    notes.append(keyring_note())
    if getattr(sys, "frozen", False):
        notes.append(check_kernel_sources())
    return notes


def keyring_note() -> str:
    """Which keychain backend keyring picked (a frozen app can lose its backends silently).
    Informational: a machine without a keychain service is not a failure."""
    try:
        import keyring

        backend = keyring.get_keyring()
    except Exception as exc:
        raise SelfTestError(f"keyring cannot load: {type(exc).__name__}: {exc}") from exc
    note = f"keyring backend: {type(backend).__module__}.{type(backend).__name__}"
    if sys.platform.startswith("linux"):
        note += f"; {secret_service_crypto()}"
    return note


def secret_service_crypto() -> str:
    """The Secret Service session cipher works (Linux keyring: secretstorage encrypts each
    secret with AES through `cryptography`, whose library the build strips)."""
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from secretstorage import dhcrypto  # noqa: F401 - what keyring imports for it

        key, iv, block = bytes(range(16)), bytes(16), b"attention-wb-key"
        sealed = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor().update(block)
        opened = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor().update(sealed)
    except Exception as exc:
        why = f"{type(exc).__name__}: {exc}"
        raise SelfTestError(f"the Secret Service cipher fails: {why}") from exc
    if opened != block or sealed == block:
        raise SelfTestError("the Secret Service cipher does not round-trip")
    return "Secret Service cipher ok"


def keyring_store() -> str:
    """A secret through the app's own keyring path and back (on Linux: secretstorage's
    AES-CBC session, which the packaged app gets from packaging/rthook_openssl_aes.py)."""
    import secrets as random_bytes

    from workbench.core.access.keys import KEYRING_SERVICE, keyring_status, store_in_keyring
    from workbench.core.foundation.redaction import redact

    account, secret = "self-test", f"sk-self-test-{random_bytes.token_hex(8)}"
    try:
        store_in_keyring(account, secret)
        import keyring

        read_back = keyring.get_password(KEYRING_SERVICE, account)
        keyring.delete_password(KEYRING_SERVICE, account)
    except Exception as exc:
        raise SelfTestError(f"keyring store: {type(exc).__name__}: {redact(str(exc))}") from None
    if read_back != secret:
        raise SelfTestError("keyring store: another secret came back than the one stored")
    return f"keyring store: a secret stored, read back and deleted ({keyring_status()[1]})"


def check_translations(folder: Path) -> str:
    """Every .qm is a compiled Qt translation; a .ts source (checkout) needs its .qm beside it."""
    qms = sorted(folder.glob("*.qm")) if folder.is_dir() else []
    for qm in qms:
        with qm.open("rb") as f:
            if f.read(16) != QM_MAGIC:
                raise SelfTestError(f"not a compiled Qt translation: {qm}")
    compiled = {q.stem for q in qms}
    for ts in sorted(folder.glob("*.ts")) if folder.is_dir() else []:
        if ts.stem not in compiled:
            raise SelfTestError(
                f"translation {ts.name} has no compiled {ts.stem}.qm beside it "
                "(run scripts/update_translations.sh)"
            )
    if not qms:
        return "translations: none of our own shipped (English only)"
    return "translations: " + ", ".join(q.name for q in qms)


def check_kernel_sources() -> str:
    """The frozen app ships kernels_bridge/ and workbench/ as source for the kernel worker,
    which runs in an outside Python that has torch (see kernels_bridge/client/launcher.py)."""
    from kernels_bridge.client.launcher import PROJECT_ROOT, child_env

    shipped = (
        "kernels_bridge/worker/__main__.py",
        "kernels_bridge/worker/server.py",
        "kernels_bridge/protocol.py",
        "workbench/resources.py",
        "workbench/_resources/__init__.py",
        "workbench/_resources/hardware.toml",
    )
    for rel in shipped:
        if not (PROJECT_ROOT / rel).is_file():
            raise SelfTestError(
                f"kernel worker source missing from the bundle: {PROJECT_ROOT / rel}"
            )
    python = shutil.which("python3")
    if python is None:
        return "kernel worker sources: shipped (no python3 on PATH to try them)"
    probe = subprocess.run(
        [python, "-c", "import sys; sys.exit(sys.version_info < (3, 11))"],
        capture_output=True,
        env=child_env(),
        timeout=30,
        check=False,
    )
    if probe.returncode != 0:
        return f"kernel worker sources: shipped ({python} is older than 3.11; not tried)"
    proc = subprocess.run(
        # the worker reads the hardware profiles through workbench.resources, as the app does
        [
            python,
            "-c",
            "import kernels_bridge.protocol, kernels_bridge.worker.server;"
            " import kernels_bridge.analytic as a; a.load_hardware_profiles()",
        ],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
        check=False,
    )
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise SelfTestError(f"{python} cannot import the shipped kernel bridge: {tail[0]}")
    return f"kernel worker sources: importable by {python}"


def check_csv(path: Path, expected_rows: int, models: Sequence[str], max_tokens: int) -> str:
    """Read the exported CSV back: the documented columns, one clean row per request."""
    import csv

    from workbench.core.history.csv_export import COLUMNS

    try:
        with path.open(encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            header = tuple(reader.fieldnames or ())
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise SelfTestError(f"exported CSV unreadable: {path}: {exc}") from exc
    if header != COLUMNS:
        missing = [c for c in COLUMNS if c not in header]
        raise SelfTestError(f"CSV columns differ from csv_export.COLUMNS (missing {missing})")
    rows = [r for r in rows if r["phase"] == "measured"]  # calibration rows are exported too
    if len(rows) != expected_rows:
        raise SelfTestError(f"CSV has {len(rows)} rows, expected {expected_rows}")
    if sorted(r["model"] for r in rows) != sorted(models):
        raise SelfTestError(f"CSV models {[r['model'] for r in rows]} != {list(models)}")
    for row in rows:
        if row["error_class"]:
            raise SelfTestError(
                f"{row['model']} failed: {row['error_class']}: {row['error_message']}"
            )
        if int(row["completion_tokens"] or 0) != max_tokens:
            raise SelfTestError(
                f"{row['model']}: {row['completion_tokens']} completion tokens, "
                f"expected {max_tokens}"
            )
        for column in ("ttft_ms", "decode_tps", "e2e_ms"):
            if not row[column] or float(row[column]) <= 0:
                raise SelfTestError(f"{row['model']}: {column} is {row[column]!r}")
    return f"CSV: {len(rows)} rows, {len(header)} columns read back"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="workbench --self-test",
        description="Check this install: resources, a two-pane comparison in the real window "
        "(offscreen), CSV export and re-read. Exit 0 when all pass.",
    )
    p.add_argument("--prompt-tokens", type=int, default=4096)
    p.add_argument("--max-tokens", type=int, default=32)
    p.add_argument("--time-scale", type=float, default=0.02, help="built-in provider speed")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds for the whole run")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder and say where")
    p.add_argument(
        "--keyring-store",
        action="store_true",
        help="also store a secret in the OS keyring, read it back and delete it (the packaged "
        "build's smoke test runs it in a throwaway Secret Service)",
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(argv or ()))
    started = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="workbench-selftest-"))
    # nothing of the user's is read or written: history, settings and calibration live in tmp
    os.environ["WORKBENCH_DATA_DIR"] = str(tmp / "data")
    os.environ["WORKBENCH_CONFIG_DIR"] = str(tmp / "config")
    # headless by default: a window that nobody sees, on any machine (a display is not needed)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QT_API", "pyside6")
    checks = 0
    try:
        say(
            f"self-test: workbench {_version()}, Python {sys.version.split()[0]}, "
            f"{'frozen' if getattr(sys, 'frozen', False) else 'from source'}"
        )
        for note in check_resources():
            checks += 1
            say(f"  ok  {note}")
        if args.keyring_store:
            checks += 1
            say(f"  ok  {keyring_store()}")
        try:
            from workbench.ui import selftest_window
        except ImportError as exc:
            raise SelfTestError(f"the desktop app cannot load: {exc}") from exc
        outcome = selftest_window.run(tmp, args)
        for note in outcome.notes:
            checks += 1
            say(f"  ok  {note}")
        checks += 1
        read_back = check_csv(
            outcome.csv_path, len(outcome.models), outcome.models, args.max_tokens
        )
        say(f"  ok  {read_back}")
    except SelfTestError as exc:
        say(f"self-test FAILED: {exc}")
        return 1
    except Exception as exc:  # anything unexpected is a failure with its reason, not a crash
        where = traceback.extract_tb(exc.__traceback__)[-1:]
        at = f" (at {Path(where[0].filename).name}:{where[0].lineno})" if where else ""
        say(f"self-test FAILED: unexpected {type(exc).__name__}: {exc}{at}")
        return 1
    finally:
        if args.keep:
            say(f"self-test files kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    say(f"self-test passed ({checks} checks, {time.monotonic() - started:.1f} s)")
    return 0


def _version() -> str:
    from workbench import __version__

    return __version__
