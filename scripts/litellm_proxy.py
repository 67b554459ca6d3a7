"""Start a real LiteLLM proxy on 127.0.0.1 in front of an OpenAI-compatible upstream.

Used by the gateway conformance tests and by benchmarks that measure a gateway's overhead;
also runnable by hand:

    python scripts/litellm_proxy.py --venv .venv-litellm --upstream http://127.0.0.1:8000/v1

The proxy runs from its own venv (LiteLLM's dependencies clash with ours), with a generated
config, a random master key and no database, offline (LITELLM_LOCAL_MODEL_COST_MAP=True), as a
subprocess in its own process group with its output in a log file. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_MODELS = ("sim-70b-gqa", "sim-deepseek-v3")
READY_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 10.0
LOG_TAIL_CHARS = 4000


class LiteLLMError(RuntimeError):
    """The proxy could not be found or did not come up; the message names cause and fix."""


def master_key() -> str:
    """A fresh master key; LiteLLM requires the `sk-` prefix."""
    return "sk-" + secrets.token_urlsafe(24)


def model_entry(
    alias: str, upstream_id: str, upstream_base_url: str, provider: str = "openai"
) -> dict[str, Any]:
    """One model_list entry: gateway alias -> `<provider>/<upstream_id>` at the upstream. The
    provider picks LiteLLM's upstream path: `openai` takes /v1/messages to the upstream's
    /v1/responses, `hosted_vllm` to its /v1/chat/completions."""
    return {
        "model_name": alias,
        "litellm_params": {
            "model": f"{provider}/{upstream_id}",
            "api_base": upstream_base_url,
            # The upstream may not check keys, but the openai client insists on one.
            "api_key": "sk-upstream-unused",
        },
    }


def make_config(
    upstream_base_url: str,
    key: str,
    models: Mapping[str, str] | Sequence[str] = DEFAULT_MODELS,
    extra_entries: Sequence[Mapping[str, Any]] = (),
    num_retries: int = 0,
    router_settings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The proxy config. `models` maps alias -> upstream id (a plain list uses the id as the
    alias); `extra_entries` are further model_list entries taken as they are; `router_settings`
    are added to LiteLLM's (e.g. cooldown_time). Retries are off by default so that what the
    upstream answered reaches the client once, unchanged."""
    pairs = models.items() if isinstance(models, Mapping) else ((m, m) for m in models)
    model_list = [model_entry(alias, up, upstream_base_url) for alias, up in pairs]
    model_list.extend(dict(entry) for entry in extra_entries)
    return {
        "model_list": model_list,
        "general_settings": {"master_key": key},
        "litellm_settings": {"num_retries": num_retries, "telemetry": False},
        "router_settings": {"num_retries": num_retries, **(router_settings or {})},
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def litellm_executable(venv: Path) -> Path:
    exe = venv / "bin" / "litellm"
    if not exe.is_file():
        raise LiteLLMError(
            f"no LiteLLM at {exe}: install it with scripts/test.sh (it puts litellm[proxy] into"
            " .venv-litellm), or point WORKBENCH_LITELLM_VENV at a venv that has it"
        )
    return exe


def _tail(log_path: Path) -> str:
    try:
        text = log_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no log)"
    return text[-LOG_TAIL_CHARS:]


def _ready(base: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base}/health/liveliness", timeout=2) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@dataclass
class LiteLLMProxy:
    """One proxy process; `start` waits until it answers, `stop` ends its process group."""

    venv: Path
    config: dict[str, Any]
    key: str
    workdir: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    @property
    def log_path(self) -> Path:
        return self.workdir / "litellm.log"

    def start(self, ready_timeout_s: float = READY_TIMEOUT_S) -> None:
        exe = litellm_executable(self.venv)
        config_path = self.workdir / "litellm_config.yaml"
        # JSON is YAML, so no YAML library is needed here; 0600 from the start: it holds the key
        config_path.unlink(missing_ok=True)
        fd = os.open(config_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(self.config, out, indent=2)
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", NO_PROXY="127.0.0.1,localhost")
        args = [str(exe), "--config", str(config_path), "--host", "127.0.0.1"]
        args += ["--port", str(self.port), "--telemetry", "False"]
        with self.log_path.open("wb") as log:
            try:
                self.process = subprocess.Popen(
                    args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                    env=env, cwd=self.workdir, start_new_session=True,
                )  # fmt: skip
            except OSError as exc:
                raise LiteLLMError(
                    f"cannot start {exe} ({exc}): reinstall it with scripts/test.sh, or point"
                    " WORKBENCH_LITELLM_VENV at a venv that has litellm[proxy]"
                ) from exc
        self._wait_ready(ready_timeout_s)

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        assert self.process is not None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise LiteLLMError(
                    f"LiteLLM exited with code {self.process.returncode} before it answered;"
                    f" its log ({self.log_path}) ends:\n{_tail(self.log_path)}"
                )
            if _ready(self.root_url):
                return
            time.sleep(0.25)
        self.stop()
        raise LiteLLMError(
            f"LiteLLM did not answer on {self.root_url} within {timeout_s:.0f} s;"
            f" its log ({self.log_path}) ends:\n{_tail(self.log_path)}"
        )

    def stop(self) -> None:
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        for sig, wait_s in ((signal.SIGTERM, STOP_TIMEOUT_S), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(proc.pid, sig)  # its own group: uvicorn workers go too
            except ProcessLookupError:
                return
            try:
                proc.wait(timeout=wait_s)
                return
            except subprocess.TimeoutExpired:
                continue


@contextmanager
def running_litellm(
    venv: str | Path,
    upstream_base_url: str,
    models: Mapping[str, str] | Sequence[str] = DEFAULT_MODELS,
    extra_entries: Sequence[Mapping[str, Any]] = (),
    workdir: str | Path | None = None,
    ready_timeout_s: float = READY_TIMEOUT_S,
    key: str | None = None,
    router_settings: Mapping[str, Any] | None = None,
    port: int | None = None,
) -> Iterator[tuple[str, str]]:
    """A running proxy; yields (base_url ending in /v1, master_key). The log is kept in
    `workdir` when one is given (a temporary directory otherwise, removed afterwards). `port`:
    the one to listen on (a free one, picked here, when none is given)."""
    key = key or master_key()
    config = make_config(
        upstream_base_url, key, models, extra_entries, router_settings=router_settings
    )
    with tempfile.TemporaryDirectory(prefix="litellm-") as scratch:
        where = Path(workdir) if workdir is not None else Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        # absolute: the proxy runs with `where` as its working directory
        proxy = LiteLLMProxy(Path(venv).absolute(), config, key, where.absolute())
        if port is not None:
            proxy.port = port
        try:
            proxy.start(ready_timeout_s)
            yield proxy.base_url, key
        finally:
            proxy.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", default=os.environ.get("WORKBENCH_LITELLM_VENV", ".venv-litellm"))
    parser.add_argument("--upstream", required=True, help="upstream base URL, e.g. .../v1")
    parser.add_argument("--model", action="append", help="alias[=upstream id]; repeatable")
    parser.add_argument("--workdir", help="where the config and log go (default: a temp dir)")
    args = parser.parse_args(argv)
    models = dict(m.partition("=")[::2] for m in args.model or DEFAULT_MODELS)
    models = {alias: up or alias for alias, up in models.items()}
    # The key never goes to stdout: it is the caller's (LITELLM_MASTER_KEY) or in a 0600 file.
    key = os.environ.get("LITELLM_MASTER_KEY") or master_key()
    # SIGTERM (kill, timeout) unwinds like Ctrl-C, so the proxy's process group is ended too.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="litellm-"))
    try:
        with running_litellm(args.venv, args.upstream, models, workdir=workdir, key=key) as up:
            key_file = workdir / "master_key"
            key_file.unlink(missing_ok=True)
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(key + "\n")
            print(f"LiteLLM at {up[0]}; master key in {key_file}; log in {workdir}; Ctrl-C stops")
            sys.stdout.flush()
            while True:
                time.sleep(3600)
    except LiteLLMError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
