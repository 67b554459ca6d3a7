"""A pane's error in the UI's language: a headline per error class, the cause and fix of that
class (the core's texts, marked for translation in core/foundation/errors.py), then the request's
message verbatim, because it quotes the server.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication

from workbench.core.foundation.error_messages import cause_and_fix

translate = QCoreApplication.translate


def error_title(error_class: str | None) -> str:
    titles = {
        "auth": translate("ErrorClass", "The server rejected the API key"),
        "not_found": translate("ErrorClass", "Wrong base URL or path (404)"),
        "model_not_found": translate("ErrorClass", "The server does not serve this model"),
        "rate_limit": translate("ErrorClass", "Rate-limited by the provider (429)"),
        "quota": translate("ErrorClass", "No quota or balance left"),
        "server_error": translate("ErrorClass", "The server failed (5xx)"),
        "bad_request": translate("ErrorClass", "The server refused the request"),
        "out_of_memory": translate("ErrorClass", "The server is out of memory for this request"),
        "html_response": translate("ErrorClass", "An HTML page came back instead of the API"),
        "connect_error": translate("ErrorClass", "Cannot reach the server"),
        "dropped": translate("ErrorClass", "The connection dropped mid-stream"),
        "truncated": translate("ErrorClass", "The stream was cut short"),
        "overrun": translate("ErrorClass", "More output than max_tokens allows"),
        "oversized": translate("ErrorClass", "The server sent more data than allowed"),
        "protocol_error": translate("ErrorClass", "The server broke the HTTP protocol"),
        "redirect": translate("ErrorClass", "The server redirects elsewhere"),
        "invalid_key": translate("ErrorClass", "The API key cannot be sent"),
        "malformed_chunk": translate("ErrorClass", "The stream sent invalid JSON"),
        "first_token_timeout": translate("ErrorClass", "No first token within the time limit"),
        "stall_timeout": translate("ErrorClass", "The stream stalled"),
        "total_timeout": translate("ErrorClass", "The request ran past its time limit"),
        "empty_response": translate("ErrorClass", "The stream ended without any text"),
        "no_visible_text": translate("ErrorClass", "Tokens came back, but no visible text"),
        "cancelled": translate("ErrorClass", "Cancelled"),
        "internal": translate("ErrorClass", "Unexpected error inside Attention Workbench"),
    }
    return titles.get(error_class or "", translate("ErrorClass", "Request failed"))


def error_html(error_class: str | None, message: str) -> str:
    """The headline, then (in a translated UI) the cause and fix in its language, then the
    message verbatim: it quotes the server, and it is what the CSV and the history keep."""
    parts = [f"<b>{html.escape(error_title(error_class))}</b>"]
    try:
        cause, fix = cause_and_fix(error_class or "")
    except ValueError:
        cause = fix = ""
    local_cause = translate("ErrorFix", cause) if cause else ""
    if local_cause and local_cause != cause:
        local_fix = translate("ErrorFix", fix)
        parts.append(html.escape(translate("ErrorClass", "Cause: %1").replace("%1", local_cause)))
        parts.append(html.escape(translate("ErrorClass", "Fix: %1").replace("%1", local_fix)))
    parts.append(html.escape(message))
    return "<br>".join(parts)
