"""The reference pages generated from the code are current: docs/cli.md from the argparse
parsers, docs/csv.md from `COLUMN_DOCS`. A flag or a column added without regenerating its page
fails here, and the message names the command that regenerates it."""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from workbench.cli import build_parser
from workbench.core.history.csv_export import COLUMN_DOCS, COLUMNS

ROOT = Path(__file__).resolve().parents[1]


def _gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _gen_docs()


@pytest.mark.parametrize("page", sorted(GEN.PAGES, key=str), ids=lambda p: p.name)
def test_the_committed_page_is_what_the_code_generates(page: Path) -> None:
    committed = page.read_text(encoding="utf-8") if page.exists() else ""
    assert committed == GEN.PAGES[page](), (
        f"{page.relative_to(ROOT)} is not current: run `{GEN.REGENERATE}` and commit the result"
    )


def test_the_cli_page_names_every_flag_of_every_command() -> None:
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    parts = page.split("\n## `")[1:]
    sections = {part.split("`", 1)[0]: part for part in parts}
    for command, parser, _ in GEN._walk(build_parser(), "workbench", ""):
        assert command in sections, f"docs/cli.md has no section for {command}"
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue  # hidden from --help (a worker's token): hidden here too
            for flag in action.option_strings:
                assert f"`{flag}`" in sections[command], f"{command} {flag} is not in docs/cli.md"


def test_the_csv_page_lists_the_columns_in_the_files_order() -> None:
    page = (ROOT / "docs" / "csv.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([a-z0-9_]+)` \| (.+) \|$", page, re.M)
    assert [name for name, _ in listed] == list(COLUMNS)
    assert all(meaning.strip() for _, meaning in listed)
    assert len(COLUMN_DOCS) == len(set(COLUMNS))  # no column twice
