"""A model list that never finishes arriving does not hang `bench` before its first request."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from aiohttp import web

from tests.support.loopback import serving
from workbench.cli import main
from workbench.commands import common


async def test_a_model_list_that_never_arrives_ends_bench_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench_gave_up = asyncio.Event()

    async def models(request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        await response.write(b'{"object": "list", "data": [')
        await bench_gave_up.wait()  # the rest of the list never comes while bench waits
        return response

    app = web.Application()
    app.router.add_get("/v1/models", models)
    monkeypatch.setattr(common, "MODEL_LIST_TIMEOUT_S", 0.5)
    async with serving(app) as base_url:
        started = time.monotonic()
        args = ["bench", "--base-url", base_url, "--model", "m", "--csv", str(tmp_path / "r.csv")]
        code = await asyncio.to_thread(main, args)
        elapsed = time.monotonic() - started
        bench_gave_up.set()
    assert code == 2
    assert elapsed < 10
    assert "took longer than 0.5 s" in capsys.readouterr().err
