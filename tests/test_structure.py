"""The size rules of the library and the service (issue 27): no module over 1,000 lines, no function over 100, so
that a newcomer reads each in one go. Tables are module-level data, not functions: they count only towards their
module's lines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*(ROOT / "codecs" / "plybits").rglob("*.py"), *(ROOT / "app").rglob("*.py")])
MAX_MODULE_LINES = 1_000
MAX_FUNCTION_LINES = 100


def test_the_rules_see_every_source() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in SOURCES}
    assert {"codecs/plybits/chess/board.py", "codecs/plybits/recordsection.py", "app/dataset.py"} <= names


def test_no_module_is_over_a_thousand_lines() -> None:
    long = {path.relative_to(ROOT).as_posix(): lines for path in SOURCES
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_is_over_a_hundred_lines() -> None:
    long = {}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name}"] = lines
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"
