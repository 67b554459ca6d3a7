"""How a token count is written, everywhere: the window, History, the reports and the CLI.

A round binary step reads as "32K" or "1M" (the prompt lengths the app offers); any other count,
such as one a Fit found, is written whole with separators ("1,772"), never "1.73047K".
"""

from __future__ import annotations

KI = 1024
MI = 1024 * 1024


def tokens_label(n: int) -> str:
    """'512', '32K', '1M', '1,772' or '129,506': exact, and short where the count is round."""
    if n >= MI and n % MI == 0:
        return f"{n // MI}M"
    if n >= KI and n % KI == 0:
        return f"{n // KI}K"
    return f"{n:,}"
