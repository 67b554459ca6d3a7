"""A model list that never finishes arriving does not hang `bench` before its first request."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from aiohttp import web

from workbench.cli import main
from workbench.commands import common


async def test_a_model_list_that_never_arrives_ends_bench_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def models(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        await response.write(b'{"object": "list", "data": [')
        await asyncio.sleep(4)  # far longer than the limit the test sets
        return response

    app = web.Application()
    app.router.add_get("/v1/models", models)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    monkeypatch.setattr(common, "MODEL_LIST_TIMEOUT_S", 0.5)
    try:
        started = time.monotonic()
        code = await asyncio.to_thread(
            main,
            [
                "bench",
                "--base-url",
                f"http://127.0.0.1:{port}/v1",
                "--model",
                "m",
                "--csv",
                str(tmp_path / "r.csv"),
            ],
        )
        elapsed = time.monotonic() - started
    finally:
        await runner.cleanup()
    assert code == 2
    assert elapsed < 10
    assert "took longer than 0.5 s" in capsys.readouterr().err
