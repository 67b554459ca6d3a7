"""A doctor check's outcome (`Check`), the check names in their order, and the map from the errors
troubleshooting guides list to the checks that detect them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workbench.core.doctor import messages as msg
from workbench.core.foundation.i18n import Phrase, phrase, together
from workbench.core.foundation.redaction import redact

CHECK_NAMES: tuple[str, ...] = (
    "base_url",
    "proxy",
    "dns",
    "tcp",
    "tls",
    "models_path",
    "auth",
    "model",
    "stream",
    "rate_limit",
    "html",
    "baseline",
)

# Each error that troubleshooting guides for LLM gateways and coding tools list (the phrase as
# such a guide writes it, often in Chinese) -> the checks that detect it and say its cause.
TROUBLESHOOTING_ERRORS: dict[str, tuple[str, ...]] = {
    "401 Unauthorized": ("auth",),  # key incomplete, spaces, quotes, Bearer format, expired
    "有没有多余的空格": ("auth",),  # a key with stray whitespace
    "多写引号": ("auth",),  # quotes around the key
    "OAuth": ("auth",),  # a leftover OAuth token sent instead of the key
    # an env var not set in this shell: the key's source is shown
    "配置改了不生效": ("auth", "base_url"),
    "404 Not Found": ("models_path",),
    "多写了/v1": ("models_path",),  # an extra /v1
    "/v1反而会 404": ("models_path",),
    "也不要加/chat/completions": ("base_url",),  # a full endpoint URL pasted as the base URL
    "返回 429": ("rate_limit",),
    "并发过高触发限流": ("rate_limit",),
    "insufficient quota": ("rate_limit",),
    "余额不足": ("rate_limit",),
    "local proxy failed": ("proxy",),
    "reading choices": ("html", "stream", "model"),  # HTML or a JSON shape that is not OpenAI's
    "model not found": ("model", "stream"),
    "模型名不识别": ("model",),
    "timeout": ("tcp", "stream"),  # connect timeout; first-token timeout
    "长上下文请求超时": ("stream",),
    "返回内容被截断": ("stream",),  # finish_reason "length": max_tokens cut the answer
}


@dataclass(frozen=True)
class Check:
    """One check's outcome. Its evidence, cause and fix are phrases (core/foundation/i18n.py):
    the UI shows them in its language; `evidence`, `cause` and `fix` are their English."""

    name: str
    ok: bool
    evidence_phrases: tuple[Phrase, ...]
    cause_phrases: tuple[Phrase, ...] = ()
    fix_phrases: tuple[Phrase, ...] = ()
    skipped: bool = False
    # what a check that sent HTTP requests tested: the protocol and the path ("/v1/messages")
    protocol: str | None = None
    endpoint: str | None = None

    @property
    def tested(self) -> str:
        """'anthropic /v1/messages' for a check that sent requests; '' for one that did not."""
        return " ".join(x for x in (self.protocol, self.endpoint) if x)

    @property
    def evidence(self) -> str:
        return redact("".join(str(p) for p in self.evidence_phrases))

    @property
    def cause(self) -> str:
        return redact("".join(str(p) for p in self.cause_phrases))

    @property
    def fix(self) -> str:
        return redact("".join(str(p) for p in self.fix_phrases))

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "evidence": self.evidence,
            "cause": self.cause,
            "fix": self.fix,
            "skipped": self.skipped,
            "protocol": self.protocol,
            "endpoint": self.endpoint,
        }


Said = Phrase | Sequence[Phrase]


def _phrases(text: Said) -> tuple[Phrase, ...]:
    """A cause or a fix as phrases, every data field redacted."""
    parts = (text,) if isinstance(text, Phrase) else tuple(text)
    return tuple(p.map_fields(redact) for p in parts)


def checked(
    name: str, ok: bool, evidence: Said, cause: Said = (), fix: Said = (), skipped: bool = False
) -> Check:
    """Every text a check carries goes through `redact`: no key ever leaves in a Check."""
    return Check(name, ok, _phrases(evidence), _phrases(cause), _phrases(fix), skipped)


def skipped(name: str, reason: Said, *, applies: bool = True) -> Check:
    """A check that did not run. `applies=False`: it does not apply here (plain http has no
    TLS), so it is ok; otherwise an earlier failure made it meaningless, so it is not ok."""
    because = phrase(msg.SKIPPED_REASON, reason=together(_phrases(reason), ""))
    return checked(name, not applies, because, skipped=True)


def passed(checks: list[Check]) -> bool:
    """True when every check that ran passed (skipped checks are not failures)."""
    return all(c.ok for c in checks if not c.skipped)
