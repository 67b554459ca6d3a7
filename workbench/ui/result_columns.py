"""The Results table's words in the UI's language: its column headers (the CSV's column names,
core/csv_export.COLUMNS, and the per-model view's) and the CSV's vocabulary values (booleans,
phases, tasks, finish reasons, routes). The English UI shows the CSV's own names; a header's
tooltip always names its CSV column, so a translated table still maps onto the exported file.
Sorting keeps reading the CSV's text (request_rows.py): only what is painted is translated.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

HEADERS = (  # each column, marked for translation as the CSV and the per-model view name it
    QT_TRANSLATE_NOOP("ResultColumns", "run_id"),
    QT_TRANSLATE_NOOP("ResultColumns", "request_id"),
    QT_TRANSLATE_NOOP("ResultColumns", "started_at"),
    QT_TRANSLATE_NOOP("ResultColumns", "provider"),
    QT_TRANSLATE_NOOP("ResultColumns", "base_url_host"),
    QT_TRANSLATE_NOOP("ResultColumns", "model"),
    QT_TRANSLATE_NOOP("ResultColumns", "attention"),
    QT_TRANSLATE_NOOP("ResultColumns", "task"),
    QT_TRANSLATE_NOOP("ResultColumns", "prompt_tokens_target"),
    QT_TRANSLATE_NOOP("ResultColumns", "prompt_tokens"),
    QT_TRANSLATE_NOOP("ResultColumns", "completion_tokens"),
    QT_TRANSLATE_NOOP("ResultColumns", "cached_tokens"),
    QT_TRANSLATE_NOOP("ResultColumns", "usage_estimated"),
    QT_TRANSLATE_NOOP("ResultColumns", "ttft_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "ttfc_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "e2e_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "decode_tps"),
    QT_TRANSLATE_NOOP("ResultColumns", "overall_tps"),
    QT_TRANSLATE_NOOP("ResultColumns", "prefill_tps"),
    QT_TRANSLATE_NOOP("ResultColumns", "tpot_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "itl_p50_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "itl_p90_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "itl_p99_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "network_baseline_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "baseline_method"),
    QT_TRANSLATE_NOOP("ResultColumns", "cost_usd"),
    QT_TRANSLATE_NOOP("ResultColumns", "finish_reason"),
    QT_TRANSLATE_NOOP("ResultColumns", "needle_found"),
    QT_TRANSLATE_NOOP("ResultColumns", "http_status"),
    QT_TRANSLATE_NOOP("ResultColumns", "error_class"),
    QT_TRANSLATE_NOOP("ResultColumns", "error_message"),
    QT_TRANSLATE_NOOP("ResultColumns", "repeat"),
    QT_TRANSLATE_NOOP("ResultColumns", "concurrency"),
    QT_TRANSLATE_NOOP("ResultColumns", "attempt"),
    QT_TRANSLATE_NOOP("ResultColumns", "warmup"),
    QT_TRANSLATE_NOOP("ResultColumns", "price_known"),
    QT_TRANSLATE_NOOP("ResultColumns", "usage_suspect"),
    QT_TRANSLATE_NOOP("ResultColumns", "phase"),
    QT_TRANSLATE_NOOP("ResultColumns", "route"),
    QT_TRANSLATE_NOOP("ResultColumns", "dispatch_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "response_id"),
    QT_TRANSLATE_NOOP("ResultColumns", "protocol"),
    QT_TRANSLATE_NOOP("ResultColumns", "cache_creation_tokens"),
    QT_TRANSLATE_NOOP("ResultColumns", "reasoning_tokens"),
    QT_TRANSLATE_NOOP("ResultColumns", "scheduled_s"),
    QT_TRANSLATE_NOOP("ResultColumns", "offered_rate"),
    QT_TRANSLATE_NOOP("ResultColumns", "ttft_from_scheduled_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "e2e_from_scheduled_ms"),
    QT_TRANSLATE_NOOP("ResultColumns", "slo_met"),
    # the per-model and prompt length view's own (results_view.AGGREGATE_COLUMNS)
    QT_TRANSLATE_NOOP("ResultColumns", "prompt"),
    QT_TRANSLATE_NOOP("ResultColumns", "n"),
    QT_TRANSLATE_NOOP("ResultColumns", "errors"),
    QT_TRANSLATE_NOOP("ResultColumns", "ttft_ms p50"),
    QT_TRANSLATE_NOOP("ResultColumns", "ttft_ms p10"),
    QT_TRANSLATE_NOOP("ResultColumns", "ttft_ms p90"),
    QT_TRANSLATE_NOOP("ResultColumns", "decode_tps p50"),
    QT_TRANSLATE_NOOP("ResultColumns", "decode_tps p10"),
    QT_TRANSLATE_NOOP("ResultColumns", "decode_tps p90"),
    QT_TRANSLATE_NOOP("ResultColumns", "prefill_tps p50"),
    QT_TRANSLATE_NOOP("ResultColumns", "e2e_ms p50"),
    QT_TRANSLATE_NOOP("ResultColumns", "cost_usd p50"),
)
# the columns whose values are the CSV's vocabulary (docs/metrics.md), not data
WORDED = frozenset(
    {"task", "usage_estimated", "baseline_method", "finish_reason", "needle_found", "warmup",
     "price_known", "usage_suspect", "phase", "route", "slo_met"}
)  # fmt: skip
VALUES = (
    QT_TRANSLATE_NOOP("ResultValues", "true"),
    QT_TRANSLATE_NOOP("ResultValues", "false"),
    QT_TRANSLATE_NOOP("ResultValues", "measured"),
    QT_TRANSLATE_NOOP("ResultValues", "calibration"),
    QT_TRANSLATE_NOOP("ResultValues", "warmup"),
    QT_TRANSLATE_NOOP("ResultValues", "summary"),
    QT_TRANSLATE_NOOP("ResultValues", "needle"),
    QT_TRANSLATE_NOOP("ResultValues", "stop"),
    QT_TRANSLATE_NOOP("ResultValues", "length"),
    QT_TRANSLATE_NOOP("ResultValues", "direct"),
    QT_TRANSLATE_NOOP("ResultValues", "gateway"),
    QT_TRANSLATE_NOOP("ResultValues", "models"),
    QT_TRANSLATE_NOOP("ResultValues", "chat"),
)
_IMPORTED = "imported from "  # an imported row's task: "imported from vllm" (result_files)


def header_text(column: str) -> str:
    return QCoreApplication.translate("ResultColumns", column)


def cell_text(column: str, text: str) -> str:
    """A cell as painted: a vocabulary value in the UI's language, anything else as it is."""
    if column not in WORDED or not text:
        return text
    if text.startswith(_IMPORTED):
        return QCoreApplication.translate("ResultValues", "imported from %1").replace(
            "%1", text.removeprefix(_IMPORTED)
        )
    return QCoreApplication.translate("ResultValues", text)
