"""A one-line headline per error class, in the UI's language, above the doctor's own words.

The message under it (what happened, cause, fix) comes from the core in English, verbatim,
because it quotes the server; the headline tells a reader of any language what kind of fault it is.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

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
        "html_response": translate("ErrorClass", "An HTML page came back instead of the API"),
        "connect_error": translate("ErrorClass", "Cannot reach the server"),
        "dropped": translate("ErrorClass", "The connection dropped mid-stream"),
        "malformed_chunk": translate("ErrorClass", "The stream sent invalid JSON"),
        "first_token_timeout": translate("ErrorClass", "No first token within the time limit"),
        "stall_timeout": translate("ErrorClass", "The stream stalled"),
        "total_timeout": translate("ErrorClass", "The request ran past its time limit"),
        "empty_response": translate("ErrorClass", "The stream ended without any text"),
        "cancelled": translate("ErrorClass", "Cancelled"),
        "internal": translate("ErrorClass", "Unexpected error inside Attention Workbench"),
    }
    return titles.get(error_class or "", translate("ErrorClass", "Request failed"))
