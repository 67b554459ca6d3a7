"""Text cells made inert for spreadsheets (OWASP's CSV-injection rule), for every CSV we write.

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is read by Excel,
LibreOffice and Google Sheets as a formula (`=HYPERLINK(...)`, `=cmd|' /C calc'!A0`), so such a
text cell gets a single quote in front, which spreadsheets show and do not evaluate. Only text
is touched (server-chosen ids, finish reasons, model ids, error messages): a number we format
ourselves, such as -3.5, stays a number. The raw value stays in the history and in JSON.
"""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(text: str) -> str:
    """`text` with a leading single quote when a spreadsheet would take it for a formula."""
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def inert_shown(cell: str) -> str:
    """A cell of a table as a view shows it: a number it formatted ("-3.5", "-1,234") stays a
    number, any other text is made inert."""
    try:
        float(cell.replace(",", ""))
    except ValueError:
        return inert(cell)
    return cell
