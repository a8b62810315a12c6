"""The pure-Python pass: the test files of the compiled modules run again on their ``.py`` files (``PLYBITS_PURE=1``),
in a child pytest, so that plain ``pytest`` and ``make test`` hold both builds to the same tests, once.

Which files: :func:`pure_pass_files`, derived from :data:`plybits.compiled.MODULES` (never a list kept by hand):
every test file named after a compiled module, and every one that imports a compiled module or the game package
one lives in (``plybits.chess``, ...) and not the service (``app``), whose tests exercise the library through the
verbs the library's own tests already cover. The pass is sampled (``PLYBITS_QUICK=1``) to keep ``make test``
within its budget.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from plybits.compiled import MODULES, PURE_ENV, compiled_modules, pure_requested

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def imported_names(path: Path) -> tuple[set[str], set[str]]:
    """The modules a Python file imports (with ``package.name`` for each ``from package import name``): anywhere,
    and at its top level."""
    anywhere: set[str] = set()
    top: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names: set[str] = set()
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
        anywhere |= names
        if node in tree.body:
            top |= names
    return anywhere, top


def pure_pass_files() -> list[Path]:
    """The test files of the compiled modules (this one aside): a file named after one (``test_container.py``,
    ``test_chess_notation.py``; ``test_compiled.py`` for the build switch), and a file that imports one or the
    game package holding one (``plybits.chess``) and does not import the service at its top level."""
    named = {"test_" + name.removeprefix("plybits.").replace(".", "_") + ".py" for name in (*MODULES, "plybits.compiled")}
    wanted = {*MODULES, *({name.rpartition(".")[0] for name in MODULES} - {"plybits"})}
    files = []
    for path in sorted(TESTS.glob("test_*.py")):
        anywhere, top = imported_names(path)
        uses_app = any(name == "app" or name.startswith("app.") for name in top)
        if path.name != Path(__file__).name and (path.name in named or (anywhere & wanted and not uses_app)):
            files.append(path)
    return files


def test_every_compiled_module_has_test_files_in_the_pure_pass() -> None:
    files = pure_pass_files()
    tested = set().union(*(imported_names(path)[0] for path in files))
    for module in MODULES:
        package = module.rpartition(".")[0]
        assert module in tested or package in tested, f"no test file of the pure pass imports {module}"
    names = {path.name for path in files}
    # Left out by the list the Makefile kept by hand before it was derived:
    assert {"test_chess_notation.py", "test_container.py", "test_abalone_rank.py", "test_compiled.py"} <= names


@pytest.mark.slow
def test_the_compiled_modules_tests_pass_on_pure_python() -> None:
    """The pure pass, when this run is on the compiled build (on pure Python the whole suite already is one)."""
    if pure_requested():
        pytest.skip(f"{PURE_ENV}=1: this run is on the pure-Python modules already")
    if compiled_modules() != list(MODULES):
        pytest.skip("plybits is not compiled here: this whole run is on the pure-Python modules")
    env = {**os.environ, PURE_ENV: "1", "PLYBITS_QUICK": "1"}
    env.pop("PLYBITS_REQUIRE_COMPILED", None)  # CI's demand is of the compiled run, not of this pass
    files = [str(path.relative_to(ROOT)) for path in pure_pass_files()]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    tail = "\n".join((done.stdout + done.stderr).splitlines()[-60:])
    assert done.returncode == 0, f"the pure-Python pass failed:\n{tail}"
