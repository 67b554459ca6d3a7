"""No SQL above core (issue 27): the window and the CLI ask the run history through RunStore's
methods (core/history/run_history.py, ui/history_queries.py), never with SQL of their own.

The scan reads each module's source (AST) under workbench/ui, workbench/commands and the
modules at workbench/'s top (cli.py, report.py, ...) and flags
- a call of `.query(...)` or `.execute(...)` / `.executemany(...)` / `.executescript(...)` on
  anything: RunStore.query (for reports and tests) and sqlite3's own;
- an import of sqlite3;
- a string constant that reads as SQL: SELECT … FROM, INSERT INTO, UPDATE … SET, DELETE FROM,
  CREATE TABLE/INDEX, GROUP BY, ORDER BY … (upper-case keywords, as SQL is written here).
It cannot see SQL built from pieces at run time; the review rule covers that.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "workbench"
ABOVE_CORE = [
    *sorted((ROOT / "ui").glob("*.py")),
    *sorted((ROOT / "commands").glob("*.py")),
    *sorted(ROOT.glob("*.py")),
]
SQL = re.compile(
    r"\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\b\s+\w+\s+SET\b|\bDELETE\s+FROM\b"
    r"|\bCREATE\s+(?:TABLE|INDEX)\b|\bGROUP\s+BY\b|\bORDER\s+BY\b"
)
DATABASE_CALLS = {"query", "execute", "executemany", "executescript"}


def sql_in(source: str) -> list[str]:
    """Where `source` holds SQL or calls the database directly, one line each."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in DATABASE_CALLS:
                found.append(f"line {node.lineno}: .{node.func.attr}(...)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if SQL.search(node.value):
                found.append(f"line {node.lineno}: SQL text {node.value[:60]!r}")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names]
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if "sqlite3" in names or module == "sqlite3":
                found.append(f"line {node.lineno}: import sqlite3")
    return found


def test_the_scan_finds_what_the_compare_controller_once_held() -> None:
    """The history query the window once ran itself (issue 27), and a direct call."""
    once = """
def history(self):
    return self.store.query(
        "SELECT run_id, COUNT(*) FROM requests WHERE phase = 'measured' GROUP BY run_id"
    )
"""
    found = sql_in(once)
    assert any(".query(" in f for f in found) and any("SQL text" in f for f in found)
    assert sql_in("import sqlite3\n") == ["line 1: import sqlite3"]
    assert sql_in("label = 'Select a run from the list'\n") == []  # words, not SQL


def test_no_module_above_core_holds_sql_or_queries_the_store() -> None:
    assert len(ABOVE_CORE) > 100  # the folders are where this test thinks they are
    found = {
        str(path.relative_to(ROOT.parent)): hits
        for path in ABOVE_CORE
        if (hits := sql_in(path.read_text(encoding="utf-8")))
    }
    assert found == {}, f"SQL above core; ask core/history/run_history.py instead: {found}"
