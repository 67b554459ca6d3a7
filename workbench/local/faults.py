"""Fault modes of the local provider, and the OpenAI-style error answers they (and the server) give.

A request picks faults by header `X-Sim-Fault: mode[,mode...]` or by a model-id suffix
`<model>+mode[+mode...]`, e.g. `sim-70b-gqa+429` or `sim-70b-gqa+reasoning+pack`.
"""

from __future__ import annotations

from aiohttp import web

FAULT_HEADER = "X-Sim-Fault"

# Faults that answer at once with an error status instead of a completion.
STATUS_FAULTS = frozenset({"401", "404", "429", "500", "503", "html", "html200"})
# Faults that change how a completion is streamed.
STREAM_FAULTS = frozenset({"stall", "drop", "malformed", "no-usage", "reasoning", "pack"})
FAULT_MODES = STATUS_FAULTS | STREAM_FAULTS

TOKENS_BEFORE_FAULT = 3  # content tokens streamed before stall / drop / malformed
TOKENS_PER_PACK = 4  # tokens per SSE event in `pack` mode

_HTML_PAGE = (
    "<html>\r\n<head><title>{status}</title></head>\r\n<body>\r\n<center><h1>{status}</h1></center>"
    "\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
)


class UnknownFault(ValueError):
    """A fault name the server does not know."""


def split_model(model: str) -> tuple[str, list[str]]:
    """'sim-70b-gqa+429+pack' -> ('sim-70b-gqa', ['429', 'pack'])."""
    base, *modes = model.split("+")
    return base, modes


def parse_faults(header: str | None, suffix_modes: list[str]) -> frozenset[str]:
    modes = [m.strip().lower() for m in (header or "").split(",") if m.strip()]
    modes += [m.strip().lower() for m in suffix_modes]
    unknown = sorted(set(modes) - FAULT_MODES)
    if unknown:
        raise UnknownFault(
            f"Unknown simulated fault {', '.join(unknown)}; valid modes: "
            + ", ".join(sorted(FAULT_MODES))
        )
    return frozenset(modes)


def error_response(
    status: int,
    message: str,
    *,
    type_: str = "invalid_request_error",
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> web.Response:
    """An OpenAI-style error: {"error": {"message", "type", "param", "code"}}."""
    body = {"error": {"message": message, "type": type_, "param": param, "code": code}}
    return web.json_response(body, status=status, headers=headers)


def status_fault_response(modes: frozenset[str]) -> web.Response | None:
    """The answer of the first status fault in `modes`, or None when there is none."""
    if "401" in modes:
        return error_response(
            401, "Incorrect API key provided (simulated).", code="invalid_api_key"
        )
    if "404" in modes:
        return error_response(404, "Not found (simulated).", code="not_found")
    if "429" in modes:
        return error_response(
            429,
            "Rate limit reached for requests (simulated). Please retry after 1 second.",
            type_="rate_limit_error",
            code="rate_limit_exceeded",
            headers={"Retry-After": "1"},
        )
    if "500" in modes:
        return error_response(
            500, "The server had an error (simulated).", type_="server_error", code="server_error"
        )
    if "503" in modes:
        return error_response(
            503,
            "The engine is currently overloaded (simulated). Please try again later.",
            type_="server_error",
            code="service_unavailable",
            headers={"Retry-After": "1"},
        )
    if "html" in modes:
        page = _HTML_PAGE.format(status="502 Bad Gateway")
        return web.Response(status=502, text=page, content_type="text/html")
    if "html200" in modes:
        page = _HTML_PAGE.format(status="Welcome to nginx!")
        return web.Response(status=200, text=page, content_type="text/html")
    return None
