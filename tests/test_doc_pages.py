"""The README is a front door and the pages behind it hold together.

README.md stays short (≤ 120 lines, none over 200 characters) with the two quick-start commands;
docs/index.md maps every page under docs/; a relative link on any of them points at a file that
exists (and a `#fragment` at a heading of that page).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for the page's headings: lower case, spaces to '-', punctuation dropped."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    headings = re.findall(r"^#+ (.+)$", text, re.M)
    return {
        "".join(c for c in h.lower() if c.isalnum() or c in " -_").replace(" ", "-")
        for h in headings
    }


def test_the_readme_is_a_front_door() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 120, f"README.md has {len(lines)} lines: move the detail into docs/"
    long = [n for n, line in enumerate(lines, 1) if len(line) > 200]
    assert not long, f"README.md lines over 200 characters: {long}"
    quick = text.split("## Quick start\n", 1)[1].split("\n## ", 1)[0]
    block = quick.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split()[0] for line in block.splitlines()] == ["scripts/run.sh", "scripts/test.sh"]
    assert "scripts/test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_index_maps_every_page() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = set(LINK.findall(index))
    missing = [p.name for p in DOCS.glob("*.md") if p.name != "index.md" and p.name not in linked]
    assert not missing, f"docs/index.md does not map {missing}"


def test_every_relative_link_points_at_something_that_exists() -> None:
    broken = []
    for page in _pages():
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            path, _, fragment = target.partition("#")
            resolved = (page.parent / path).resolve() if path else page
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif fragment and resolved.suffix == ".md" and fragment not in _anchors(resolved):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "links that point nowhere:\n" + "\n".join(broken)
