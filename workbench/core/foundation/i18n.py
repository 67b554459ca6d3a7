"""Marks core strings for the UI's translation files, without importing Qt into the core.

`pyside6-lupdate` collects the texts of calls named QT_TRANSLATE_NOOP from the files
scripts/update_translations.sh gives it; at run time this returns the English text unchanged,
and the UI translates it with QCoreApplication.translate(context, text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # the name lupdate knows
    return text


@dataclass(frozen=True)
class Phrase:
    """An English sentence with {named} fields whose template the UI can translate.

    Written as phrase(QT_TRANSLATE_NOOP("Doctor", "the host {host} ..."), host=name): lupdate
    collects the template, str() gives the English, and the UI renders it with a translator.
    A field is data (a host, a status code: never translated) or itself a Phrase.
    """

    template: str
    fields: tuple[tuple[str, str | Phrase], ...] = ()
    context: str = "Doctor"  # the translation context its template was marked in

    def render(self, translate: Callable[[str, str], str] | None = None) -> str:
        """The text; with translate(context, template), in the UI's language."""
        text = translate(self.context, self.template) if translate else self.template
        if not self.fields:
            return text
        values = {
            name: value.render(translate) if isinstance(value, Phrase) else value
            for name, value in self.fields
        }
        return text.format_map(values)

    def map_fields(self, change: Callable[[str], str]) -> Phrase:
        """The same phrase with `change` applied to every data field (redaction)."""
        return Phrase(
            self.template,
            tuple(
                (name, value.map_fields(change) if isinstance(value, Phrase) else change(value))
                for name, value in self.fields
            ),
            self.context,
        )

    def __str__(self) -> str:
        return self.render()


def phrase(template: str, *, context: str = "Doctor", **fields: object) -> Phrase:
    """A phrase whose template was marked with QT_TRANSLATE_NOOP(context, template); a field
    that is a PhrasedText is said as its phrase."""
    return Phrase(
        template,
        tuple((name, _field(value)) for name, value in fields.items()),
        context,
    )


def _field(value: object) -> str | Phrase:
    if isinstance(value, Phrase):
        return value
    if isinstance(value, PhrasedText):
        return value.phrase
    return str(value)


def joined(parts: Sequence[Phrase], separator: str = "; ") -> list[Phrase]:
    """Phrases to show one after another, with a separator between them."""
    out: list[Phrase] = []
    for i, part in enumerate(parts):
        if i:
            out.append(Phrase(separator))
        out.append(part)
    return out


def together(parts: Sequence[Phrase | str], separator: str = "; ") -> Phrase:
    """Phrases (and data: a str is never translated) as one phrase, `separator` between them:
    a field's value can then be a list said in the UI's language."""
    names = [f"p{i}" for i in range(len(parts))]
    template = separator.replace("{", "{{").replace("}", "}}").join(f"{{{n}}}" for n in names)
    return Phrase(template, tuple(zip(names, parts, strict=True)))


def data(value: object) -> Phrase:
    """A text that is data (a URL, a server's words), never translated, as a phrase."""
    return Phrase("{value}", (("value", str(value)),))


def marked(context: str, text: str) -> Phrase:
    """A fixed text marked for translation elsewhere, in `context` (e.g. "ErrorFix")."""
    return Phrase(text, (), context)


class PhrasedText(str):
    """A phrase's English as a str (printed, compared and written to JSON as that text) that
    keeps its phrase, so a list of messages the CLI prints can be said by the window in its
    language: `phrased(phrase)` makes one, `localize(text, translate)` says one."""

    phrase: Phrase


def phrased(message: Phrase) -> PhrasedText:
    text = PhrasedText(str(message))
    text.phrase = message
    return text


def localize(text: str, translate: Callable[[str, str], str]) -> str:
    """`text` in the UI's language where it is a PhrasedText, else as it is (data, or not
    marked)."""
    return text.phrase.render(translate) if isinstance(text, PhrasedText) else text
