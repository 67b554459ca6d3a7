"""An HTTP 500 whose gzip body inflates to 200 MB (a gzip bomb, 200 KB on the wire): the error
body is inflated no further than its 64 KiB cap, so the client's memory barely moves.

The request runs in a subprocess of its own (the openai SDK against
tests/support/hostile_server.py on 127.0.0.1, both transports) and reports its peak RSS
(VmHWM) before and after: httpx inflated each read whole, and the 64 KiB cap applied only
after about 190 MB had been made.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
GROWTH_LIMIT_MB = 40  # the bomb inflates to 200 MB; a bounded read stays far below this

SCRIPT = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
from tests.support.hostile_server import gzip_bomb, hostile_server_thread
from tests.support.hostile_server import gzip_bomb, hostile_server_thread
from workbench.core.transport.clients import make_client, warm_up
from workbench.core.foundation.results import RequestResult
from workbench.core.transport.streaming import RequestSpec, stream_chat

def hwm_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024

async def send(url, transport, model):
    client = make_client(url, None, transport)
    try:
        spec = RequestSpec(messages=[{"role": "user", "content": "hi"}], max_tokens=8)
        return await stream_chat(client, RequestResult(model=model), spec)
    finally:
        await client.close()

warm_up()
gzip_bomb()  # made before the baseline: the server's own bytes are not the client's
with hostile_server_thread() as server:
    asyncio.run(send(server.base_url, sys.argv[2], "rate-limited"))  # one-off costs, a small error
    before = hwm_mb()
    result = asyncio.run(send(server.base_url, sys.argv[2], "gzip-bomb-500"))
    after = hwm_mb()
print(json.dumps({"before": before, "after": after, "class": str(result.error_class),
                  "status": result.http_status, "message": result.error_message}))
"""


@pytest.mark.parametrize("transport", ["aiohttp", "httpx"])
def test_a_gzip_bomb_on_a_500_is_inflated_only_up_to_the_error_body_cap(transport: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(TESTS), transport],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS.parent), *sys.path])},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["status"] == 500 and seen["class"] == "server_error", seen
    assert "boom" in seen["message"]  # the start of the inflated body still names the error
    assert seen["after"] - seen["before"] < GROWTH_LIMIT_MB, seen
