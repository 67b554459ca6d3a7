"""Read back the text and page sizes of a PDF that Qt's PDF engine wrote, in plain Python.

Enough of PDF for that engine's output and nothing more: numbered objects, Flate streams cut
by their /Length (direct or an indirect object), Type0 fonts with a ToUnicode CMap (bfchar and
bfrange), and `/F Tf` + `<hex> Tj` text in page content streams. It does not use Qt to read
the file, so it checks what any reader would find: that the names and sentences went in as
text (not pictures) and map back to Unicode.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from dataclasses import dataclass
from pathlib import Path

_OBJECT = re.compile(rb"(\d+) 0 obj(.*?)endobj", re.S)
_STREAM = re.compile(rb"\bstream\r?\n")
_LENGTH = re.compile(rb"/Length\s+(\d+)(\s+0\s+R)?")


@dataclass
class PdfText:
    pages: list[str]  # the text of each page, one line per BT..ET block
    media_boxes: list[tuple[float, float]]  # (width, height) in points, per page

    @property
    def text(self) -> str:
        """All pages; ligatures unfolded (NFKC: "ﬁ" -> "fi") and blanks as single spaces
        (Qt's engine writes each space as a glyph that maps back to a tab)."""
        folded = unicodedata.normalize("NFKC", "\n".join(self.pages))
        return "\n".join(" ".join(line.split()) for line in folded.splitlines())


def units_joined(text: str) -> str:
    """The text with "tok/ s" read back as "tok/s": a unit is drawn as two text runs (the word
    joiner that keeps it on one line comes from a fallback font), which this reader returns
    as two blocks; pdftotext reads it whole."""
    return re.sub(r"/ (s|token|req)\b", r"/\1", text)


def _objects(data: bytes) -> dict[int, bytes]:
    return {int(m.group(1)): m.group(2) for m in _OBJECT.finditer(data)}


def _stream(objects: dict[int, bytes], body: bytes) -> bytes:
    """The decoded data of a stream object. Its end is its /Length, never a search for
    "endstream": compressed data may end in a CR byte, which a search takes for the EOL."""
    match = _STREAM.search(body)
    if match is None:
        return b""
    head = body[: match.start()]
    length = _LENGTH.search(head)
    assert length is not None, f"a stream without /Length: {head[:80]!r}"
    size = int(length.group(1))
    if length.group(2):  # Qt writes a page's length as an object after the stream
        size = int(objects[size].strip())
    raw = body[match.end() : match.end() + size]
    assert len(raw) == size, f"a stream of {len(raw)} bytes where /Length says {size}"
    return zlib.decompress(raw) if b"/FlateDecode" in head else raw


def _cmap(text: bytes) -> dict[int, str]:
    """code -> Unicode text from a ToUnicode CMap."""
    out: dict[int, str] = {}

    def uni(hexa: bytes) -> str:
        return bytes.fromhex(hexa.decode()).decode("utf-16-be")

    for block in re.findall(rb"beginbfchar(.*?)endbfchar", text, re.S):
        for src, dst in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            out[int(src, 16)] = uni(dst)
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", text, re.S):
        for lo, hi, dst in re.findall(
            rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(\[[^\]]*\]|<[0-9A-Fa-f]+>)", block
        ):
            start, end = int(lo, 16), int(hi, 16)
            if dst.startswith(b"["):
                for i, item in enumerate(re.findall(rb"<([0-9A-Fa-f]+)>", dst)):
                    out[start + i] = uni(item)
            else:
                first = int(dst[1:-1], 16)
                for code in range(start, end + 1):
                    out[code] = chr(first + code - start)
    return out


def _ref(body: bytes, key: bytes) -> int | None:
    match = re.search(rb"/" + key + rb"\s+(\d+) 0 R", body)
    return int(match.group(1)) if match else None


def _fonts(objects: dict[int, bytes], page: bytes) -> dict[bytes, dict[int, str]]:
    """Font resource name -> its code-to-Unicode map, for one page."""
    resources = page
    ref = _ref(page, b"Resources")
    if ref is not None:
        resources = objects[ref]
    font_dict = re.search(rb"/Font\s*<<(.*?)>>", resources, re.S)
    fonts: dict[bytes, dict[int, str]] = {}
    if font_dict is None:
        return fonts
    for name, number in re.findall(rb"/(\w+)\s+(\d+) 0 R", font_dict.group(1)):
        cmap_ref = _ref(objects[int(number)], b"ToUnicode")
        fonts[name] = {} if cmap_ref is None else _cmap(_stream(objects, objects[cmap_ref]))
    return fonts


def _page_text(content: bytes, fonts: dict[bytes, dict[int, str]]) -> str:
    lines, current, cmap = [], [], {}
    for token in re.finditer(rb"/(\w+)\s+[\d.]+\s+Tf|<([0-9A-Fa-f]*)>\s*Tj|\bET\b", content):
        if token.group(1) is not None:
            cmap = fonts.get(token.group(1), {})
        elif token.group(2) is not None:
            hexa = token.group(2).decode()
            codes = [int(hexa[i : i + 4], 16) for i in range(0, len(hexa), 4)]
            current.append("".join(cmap.get(c, "\ufffd") for c in codes))
        else:
            lines.append("".join(current))
            current = []
    return "\n".join(line for line in lines if line.strip())


def read_pdf(path: Path) -> PdfText:
    data = path.read_bytes()
    assert data.startswith(b"%PDF"), f"{path} is not a PDF"
    # a writer that is not done (or a file cut short) has no end-of-file marker yet
    assert data.rstrip().endswith(b"%%EOF"), f"{path} ends before its %%EOF: not complete"
    objects = _objects(data)
    pages, boxes = [], []
    for body in objects.values():
        if not re.search(rb"/Type\s*/Page\b", body):
            continue
        box = re.search(rb"/MediaBox\s*\[\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", body)
        if box:
            x0, y0, x1, y1 = (float(v) for v in box.groups())
            boxes.append((x1 - x0, y1 - y0))
        fonts = _fonts(objects, body)
        contents = _ref(body, b"Contents")
        pages.append(_page_text(_stream(objects, objects[contents]), fonts) if contents else "")
    return PdfText(pages, boxes)
