"""One side-by-side pane: model picker, attention badge, KV size, live text and figures."""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QPalette, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from kernels_bridge.variants import kv_bytes_per_token
from workbench.core.foundation.token_counts import tokens_label
from workbench.core.models.catalog import Catalog, ModelInfo
from workbench.core.planning.memory_fit import gb, memory_fit, memory_refusal
from workbench.ui.colors import NO_MODEL_GREY
from workbench.ui.figure_strip import FigureStrip
from workbench.ui.panes_model import PaneModel, PaneState, pane_key, split_pane_key
from workbench.ui.protocol_choice import protocol_texts
from workbench.ui.retranslate import Retranslating
from workbench.ui.theme import error_colors


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:,.0f} {unit}" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


class DisplayBreaks:
    """Line breaks the live view adds to very long paragraphs while a stream runs.

    Each append re-lays out the whole paragraph it lands in, so an answer streamed as one
    10,000-character paragraph costs more per frame as it grows (8 panes: 20 ms of a 33 ms
    frame). Past SOFT_BREAK_CHARS the view starts a new line after the next sentence end; once
    the request has finished, the exact text replaces the view when the reader focuses it.
    """

    SOFT_BREAK_CHARS = 600
    SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？]")

    def __init__(self) -> None:
        self.run = 0  # characters since the last line break in the view
        self.inserted = 0

    def add(self, text: str) -> str:
        newline = text.rfind("\n")
        if newline >= 0:
            self.run = len(text) - newline - 1
            return text
        lines = []  # a late paint brings many sentences at once: break each long stretch
        while self.run + len(text) > self.SOFT_BREAK_CHARS:
            end = self.SENTENCE_END.search(text, max(0, self.SOFT_BREAK_CHARS - self.run))
            if end is None:
                break
            lines.append(text[: end.end()])
            text = text[end.end() :].lstrip(" ")
            self.run = 0
            self.inserted += 1
        self.run += len(text)
        return "\n".join([*lines, text])


FIGURE_KEYS = ("ttft", "decode", "tokens", "elapsed", "cost")
FIGURE_WIDEST = ("00,000 ms", "00,000.0 tok/s", "000,000", "0,000.0 s", "$0.00000")


class PaneWidget(Retranslating, QFrame):
    """Shows a PaneModel; `choose` emits the picked choice key, `stop` the pane's wish to stop."""

    choose = Signal(int, str)
    stop = Signal(int)
    clamp = Signal(int)  # a prompt length that fits this pane's context window

    def __init__(self, index: int, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.index = index
        self.catalog = catalog
        self.setObjectName("pane")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.color = ""
        self._fit_problem = False
        # over the context window: Run all refuses it here (a memory refusal is the plan's, and
        # becomes a row the Summary explains)
        self.context_refusal = ""
        self.clamp_to: int | None = None
        self.picker = QComboBox()
        self.picker.setObjectName("modelPicker")
        self.picker.setMinimumContentsLength(18)
        self.pane = index + 1
        self.badge = QLabel("?")
        self.badge.setObjectName("attentionBadge")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._build_protocol(self.pane)
        self.kv = QLabel()
        self.kv.setObjectName("kvLabel")
        self.fit = QLabel()
        self.fit.setObjectName("fitLabel")
        self.fit.setWordWrap(True)
        self.clamp_button = QPushButton()
        self.clamp_button.setObjectName("clampButton")
        self.clamp_button.hide()
        self.clamp_button.clicked.connect(
            lambda: self.clamp_to is not None and self.clamp.emit(self.clamp_to)
        )
        self.stop_button = QPushButton()
        self.stop_button.setEnabled(False)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setObjectName("paneText")
        self.text.setMaximumBlockCount(2000)
        self.text.setMinimumHeight(44)  # four panes fit a 1000 px window without scrolling
        self.error = QLabel()
        self.error.setObjectName("paneError")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        self.figures = FigureStrip(
            [(key, "", widest) for key, widest in zip(FIGURE_KEYS, FIGURE_WIDEST, strict=True)]
        )
        self.figures.setObjectName("figures")
        self._lay_out()
        self._painted_parts = 0
        self._painted_version = -1
        self._painted_request: str | None = None
        self._breaks = DisplayBreaks()
        self._exact_pending: PaneModel | None = None  # finished, still showing display breaks
        self.text.installEventFilter(self)
        self.picker.activated.connect(
            lambda _i: self.choose.emit(self.index, self.picker.currentData() or "")
        )
        self.stop_button.clicked.connect(lambda: self.stop.emit(self.index))
        self.retranslate()

    def retranslate(self) -> None:
        """The pane's fixed texts in the language installed; the figures' values and the
        context note follow at the next paint and context refresh."""
        pane = str(self.pane)
        self.picker.setAccessibleName(self.tr("Model of pane %1").replace("%1", pane))
        self.clamp_button.setAccessibleName(
            self.tr("Fit the prompt to pane %1's context window").replace("%1", pane)
        )
        self.stop_button.setText(self.tr("Stop"))
        self.text.setAccessibleName(self.tr("Answer in pane %1").replace("%1", pane))
        self.protocol.setAccessibleName(self.tr("Protocol of pane %1").replace("%1", pane))
        for protocol, tip in protocol_texts().items():  # each item's tip: its label and path
            item = self.protocol.findData(protocol)
            self.protocol.setItemData(item, tip, Qt.ItemDataRole.ToolTipRole)
        self.protocol.setToolTip(
            self.tr("The protocol this pane sends with; it starts as its provider's")
        )
        self.figures.set_captions(
            [self.tr("TTFT"), self.tr("decode"), self.tr("tokens"), self.tr("elapsed"),
             self.tr("cost")]
        )  # fmt: skip

    def _build_protocol(self, pane: int) -> None:
        """The protocol choice beside the KV size, and the chip in the header."""
        self.protocol_chip = QLabel()  # the wire this pane speaks, shown when it is not chat
        self.protocol_chip.setObjectName("protocolChip")
        self.protocol_chip.hide()
        self.protocol = QComboBox()
        self.protocol.setObjectName("paneProtocol")
        self.protocol.setAccessibleName(self.tr("Protocol of pane %1").replace("%1", str(pane)))
        for protocol in protocol_texts():
            self.protocol.addItem(protocol, protocol)  # the wire's own word, as in the CSV
        self.protocol.activated.connect(self._on_protocol)

    def _lay_out(self) -> None:
        """Model, protocol chip, badge and Stop; KV size and protocol; notes, figures, text."""
        header = QHBoxLayout()
        header.addWidget(self.picker, 1)
        header.addWidget(self.protocol_chip)
        header.addWidget(self.badge)
        header.addWidget(self.stop_button)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        info = QHBoxLayout()
        info.addWidget(self.kv)
        info.addStretch(1)
        info.addWidget(self.protocol)
        layout.addLayout(info)
        layout.addWidget(self.fit)
        layout.addWidget(self.clamp_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.figures)
        layout.addWidget(self.error)
        layout.addWidget(self.text, 1)

    def _on_protocol(self, _index: int) -> None:
        chosen = self.picker.currentData()
        if chosen:
            self.choose.emit(self.index, pane_key(chosen, self.protocol.currentData()))

    def set_choices(self, choices: list[tuple[str, str]], current: str) -> None:
        """(key, label) pairs; keys are 'provider|model'; `current` may name a protocol after."""
        self.picker.blockSignals(True)
        self.picker.clear()
        for key, label in choices:
            self.picker.addItem(label, key)
        provider, model, _ = split_pane_key(current)
        if self.picker.findData(f"{provider}|{model}") < 0:  # a replayed run's, no longer saved
            self.picker.addItem(f"{model}  ({provider})", f"{provider}|{model}")
        self.picker.setCurrentIndex(self.picker.findData(f"{provider}|{model}"))
        self.picker.blockSignals(False)

    def show_context(
        self, model: PaneModel, prompt_tokens: int, max_tokens: int, color: str = NO_MODEL_GREY
    ) -> None:
        """Colour (the window gives the panes theirs together: colors.pane_colors), badge, KV
        size and what will not fit, before anything is sent."""
        target = model.target
        info = self.catalog.get(target.model.split("+", 1)[0]) if target else None
        attention = (target.attention if target else None) or (info.attention if info else "?")
        if color != self.color:
            self.color = color
            self.setStyleSheet(f"#pane {{ border-top: 4px solid {color}; }}")
            self.badge.setStyleSheet(
                f"background: {color}; color: white; font-weight: 700; padding: 2px 8px;"
                " border-radius: 8px;"
            )
            self.protocol_chip.setStyleSheet(
                f"border: 2px solid {color}; font-weight: 700; padding: 1px 6px;"
                " border-radius: 8px;"
            )
        self.badge.setText(attention)
        self._show_protocol(target.protocol if target else "chat")
        if info is not None:
            per_token = kv_bytes_per_token(info.shape)
            self.kv.setText(
                self.tr("KV cache %1 at %2")
                .replace("%1", human_bytes(per_token * prompt_tokens))
                .replace("%2", tokens_label(prompt_tokens))
            )
            self.kv.setToolTip(
                self.tr("%1 per token, all layers (bf16)").replace("%1", human_bytes(per_token))
            )
        else:
            self.kv.setText(self.tr("KV cache: unknown model shape"))
        window = (target.context_window if target else None) or (
            info.context_window if info else None
        )
        problem = self.context_refusal = self._context_problem(prompt_tokens, max_tokens, window)
        problem = problem or self._memory_problem(info, prompt_tokens, max_tokens)
        if bool(problem) != self._fit_problem:
            self._fit_problem = bool(problem)
            self._style_fit(self.palette())
        if problem:
            self.fit.setText(problem)
        elif window:
            price = ""
            if info is not None and (info.prices.input or info.prices.output):
                cost = (prompt_tokens * info.prices.input + max_tokens * info.prices.output) / 1e6
                price = self.tr(", about $%1 per request").replace("%1", f"{cost:.4f}")
            self.fit.setText(
                self.tr("Fits the %1 context window%2")
                .replace("%1", tokens_label(window))
                .replace("%2", price)
                + self._memory_note(info, prompt_tokens + max_tokens)
            )
        else:
            self.fit.setText("")
        self.clamp_to = None
        if window and prompt_tokens + max_tokens > window:
            # a prompt's token count varies a little by server and text: leave 1 % of headroom
            self.clamp_to = max(1, window - max_tokens - window // 100)
            self.clamp_button.setText(
                self.tr("Fit: prompt %1 tokens").replace("%1", f"{self.clamp_to:,}")
            )
        self.clamp_button.setVisible(self.clamp_to is not None and self.clamp_to >= 128)

    def _show_protocol(self, protocol: str) -> None:
        """The protocol choice, and the chip a presenter reads when it is not chat."""
        self.protocol.setCurrentIndex(max(0, self.protocol.findData(protocol)))
        self.protocol_chip.setText(protocol)
        self.protocol_chip.setToolTip(
            self.protocol.itemData(self.protocol.currentIndex(), Qt.ItemDataRole.ToolTipRole)
        )
        self.protocol_chip.setVisible(protocol != "chat")

    def restyle(self, palette: QPalette) -> None:
        """Notes and the error box take their colours from the palette (a theme switch)."""
        error_bg, error_text = error_colors(palette)
        # a widget with a style sheet keeps the palette it was polished with: set it anew so
        # the pane and its children (the answer area) take the new palette
        border = self.styleSheet()
        self.setStyleSheet("")
        self.setStyleSheet(border)
        self.error.setStyleSheet(
            f"#paneError {{ background: {error_bg.name()}; color: {error_text.name()};"
            " padding: 6px; border-radius: 4px; }"
            # a user's Stop is no failure: the note in the window's own muted colours
            '#paneError[stopped="true"] { background: palette(alternate-base);'
            " color: palette(placeholder-text); }"
        )
        self._style_fit(palette)

    def _style_fit(self, palette: QPalette) -> None:
        """The fit note: the error text colour when something will not fit, else muted."""
        if self._fit_problem:
            color = error_colors(palette)[1]
            self.fit.setStyleSheet(f"color: {color.name()}; font-weight: 600;")
        else:
            muted = palette.color(QPalette.ColorRole.PlaceholderText)
            self.fit.setStyleSheet(f"color: {muted.name()};")

    def _context_problem(self, prompt: int, max_tokens: int, window: int | None) -> str:
        if not window or prompt + max_tokens <= window:
            return ""
        return (
            self.tr("Will not fit: prompt %1 + output %2 = %3 tokens, over the %4 context window.")
            .replace("%1", f"{prompt:,}")
            .replace("%2", f"{max_tokens:,}")
            .replace("%3", f"{prompt + max_tokens:,}")
            .replace("%4", f"{window:,}")
        )

    def _memory_problem(self, info: ModelInfo | None, prompt: int, max_tokens: int) -> str:
        """Where the catalog knows the deployment: the refusal the run would meet (the rule's
        one home, core/planning/memory_fit.py), naming what would fit."""
        if info is None or info.deployment is None:
            return ""
        why = memory_refusal(self.catalog, info, info.deployment, prompt, max_tokens, short=True)
        return self.tr("Will not fit in memory: %1").replace("%1", why) if why else ""

    def _memory_note(self, info: ModelInfo | None, tokens: int) -> str:
        """That the KV cache fits, and how much of a device it takes."""
        if info is None or info.deployment is None:
            return ""
        fit = memory_fit(info, info.deployment, tokens)
        return (
            self.tr("; its KV cache fits: %1 per device beside %2 of weights (%3 usable)")
            .replace("%1", gb(fit.kv_per_device))
            .replace("%2", gb(fit.weights_per_device))
            .replace("%3", gb(fit.available_per_device))
        )

    def paint(self, model: PaneModel) -> None:
        """Repaint from the model: called on the frame timer, never per token."""
        if model.request_id != self._painted_request:
            self._painted_request = model.request_id
            self._painted_parts = -1  # a new request: repaint from scratch, never append
            self._exact_pending = None
        if model.text_version != self._painted_version:
            if model.state == PaneState.WAITING and not model.text_parts:
                self.text.setPlainText(self.tr("Waiting for the first token…"))
                self._painted_parts = -1
            elif self._painted_parts > len(model.text_parts) or (
                self._painted_parts < 0 and model.result is not None
            ):
                self._show_exact(model)
            else:
                if self._painted_parts < 0:  # the first paint of a stream, however late: the
                    self.text.clear()  # text so far goes in with display breaks, as appends do
                    self._breaks = DisplayBreaks()
                    self._painted_parts = 0
                if self._painted_parts < len(model.text_parts):
                    cursor = self.text.textCursor()
                    cursor.movePosition(QTextCursor.MoveOperation.End)
                    new = "".join(model.text_parts[self._painted_parts :])
                    cursor.insertText(self._breaks.add(new))
                    self._painted_parts = len(model.text_parts)
                    self.text.ensureCursorVisible()
                if model.result is not None and self._breaks.inserted:
                    # the exact text replaces the display breaks when the reader reaches for
                    # the text (focus, context menu): laying out one 12K-character paragraph
                    # costs ~45 ms, and 8 panes finishing together would stall for 0.4 s
                    self._exact_pending = model
                    self._breaks.inserted = 0
            self._painted_version = model.text_version
        ttft = model.ttft_ms()
        decode = model.decode_tps()
        elapsed = model.elapsed_s()
        cost = model.cost_usd()
        self.figures.set("ttft", "–" if ttft is None else f"{ttft:,.0f} ms")
        self.figures.set("decode", "–" if decode is None else f"{decode:,.1f} tok/s")
        self.figures.set("tokens", str(model.tokens) if model.t_send_ns else "–")
        self.figures.set("elapsed", "–" if elapsed is None else f"{elapsed:,.1f} s")
        if cost is None and model.target is not None and not model.target.prices.known:
            self.figures.set("cost", self.tr("no price"))
        else:
            self.figures.set("cost", "–" if cost is None else f"${cost:.5f}")
        busy = model.state in (PaneState.WAITING, PaneState.STREAMING)
        self.stop_button.setEnabled(busy)
        if model.state == PaneState.ERROR and model.error:
            from workbench.ui.error_titles import error_html  # html's tables: at the first error

            self._show_error(error_html(model.error_class, model.error))
        elif model.state == PaneState.STOPPED:
            self._show_error(self.tr("Stopped."), stopped=True)
        elif model.state == PaneState.REFUSED:
            self._show_error(self.tr("Not sent: %1").replace("%1", model.error or ""))
        else:
            self.error.hide()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.text
            and self._exact_pending is not None
            and event.type() in (QEvent.Type.FocusIn, QEvent.Type.ContextMenu)
        ):
            self._show_exact(self._exact_pending)  # a new request clears it in paint()
        return super().eventFilter(watched, event)

    def exact_text_shown(self) -> bool:
        """Whether the view holds the text exactly as received (no display breaks)."""
        return self._exact_pending is None and not self._breaks.inserted

    def _show_exact(self, model: PaneModel) -> None:
        self._exact_pending = None
        self.text.setPlainText(model.text)
        self._painted_parts = len(model.text_parts)
        self._breaks = DisplayBreaks()
        if model.result is not None:
            self.text.moveCursor(QTextCursor.MoveOperation.End)

    def _show_error(self, text: str, stopped: bool = False) -> None:
        if self.error.property("stopped") is not stopped:
            self.error.setProperty("stopped", stopped)
            self.error.style().unpolish(self.error)  # the style sheet's [stopped] rule anew
            self.error.style().polish(self.error)
        if self.error.text() != text:  # painted every frame: an unchanged label costs nothing
            self.error.setText(text)
        self.error.show()
