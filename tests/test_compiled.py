"""The compiled build (``make compile``): the hot core really is the C extension modules, and they decode and
re-encode every golden vector exactly as the pure-Python modules do (run in a subprocess with PLYBITS_PURE=1).

Run as a script, this file prints what the plybits it imports makes of the golden vectors given on stdin.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest

import plybits
from plybits.compiled import MODULES, PURE_ENV, compiled_modules, stale_extensions

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _test_module(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"_golden_{name}", TESTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def golden_vectors() -> list[bytes]:
    """Every golden container the suite pins, gathered from the test files that pin them (not copied)."""
    blobs: list[bytes] = []
    fmt = _test_module("test_format_golden")
    blobs += [fmt.E4_E5_NF3, fmt.E4_E5_NF3_WITH_RESULT, fmt.E4_E5_NF3_WITH_CODED_RESULT, fmt.E4_E5_NF3_WITH_V3_RESULT]
    blobs += [bytes.fromhex(case[0]) for case in _test_module("test_chess_codec").GOLDEN]
    blobs += [bytes.fromhex(case[0]) for case in _test_module("test_xiangqi_xq10").GOLDEN]
    blobs += [bytes.fromhex(case[3]) for case in _test_module("test_abalone_abapro").GOLDEN]
    blobs += [_b64(case[0]) for case in _test_module("test_rank_games").GOLDEN.values()]
    blobs.append(_b64(_test_module("test_xiangqi_rank2").GOLDEN_GAME))
    blobs += [_b64(case[0]) for case in _test_module("test_rank_entropy").GOLDEN.values()]
    e13 = _test_module("test_entropy_e13")
    blobs += [bytes.fromhex(h) for h in (e13.GOLDEN_SHORT, e13.GOLDEN_ROUND_2_START, e13.GOLDEN_FULL)]
    records = _test_module("test_record_golden")
    blobs += [bytes.fromhex(case[1]) for version in (records.GOLDEN_V1, records.GOLDEN_V2, records.GOLDEN_V3)
              for case in version]
    return list(dict.fromkeys(blobs))  # docs/format.md's worked example is pinned twice


def what_plybits_makes_of(blobs: list[bytes]) -> list[dict[str, Any]]:
    """Each blob decoded (default notation and raw moves), its final position, and the game re-encoded."""
    results = []
    for blob in blobs:
        decoded = plybits.decode(blob)
        raw = plybits.decode(blob, notation=None)
        again = plybits.encode(decoded.game, decoded.scheme, moves=raw.moves, start=decoded.start, tags=decoded.tags)
        results.append({
            "game": decoded.game, "scheme": decoded.scheme, "start": decoded.start, "tags": decoded.tags,
            "moves": decoded.moves, "raw": raw.moves, "final": decoded.final_position, "again": again.data.hex(),
            "record": plybits.decode(blob, format="record").record,
        })
    return results


def _run_self(env_pure: bool, blobs: list[bytes]) -> tuple[list[str], list[dict[str, Any]]]:
    env = dict(os.environ)
    env.pop(PURE_ENV, None)
    if env_pure:
        env[PURE_ENV] = "1"
    out = subprocess.run([sys.executable, __file__], input="\n".join(b.hex() for b in blobs), env=env,
                         capture_output=True, text=True, check=True).stdout
    answer = json.loads(out)
    return answer["compiled"], answer["results"]


def test_the_golden_vectors_are_gathered():
    blobs = golden_vectors()
    games = {blob[3] >> 4 for blob in blobs}  # the codec byte's game nibble
    assert len(blobs) >= 20 and games == {0, 1, 2, 3}


def test_the_pure_switch_loads_every_module_from_its_py_file():
    compiled, results = _run_self(True, golden_vectors()[:1])
    assert compiled == []
    assert results[0]["moves"] == ["e4", "e5", "Nf3"]


def test_the_build_is_all_compiled_or_all_pure():
    compiled = compiled_modules()
    assert compiled in ([], list(MODULES)), f"partly compiled build: only {compiled}"


@pytest.fixture
def compiled_build() -> None:
    if os.environ.get(PURE_ENV) == "1":
        pytest.skip(f"{PURE_ENV}=1: the pure-Python modules were asked for")
    if not compiled_modules():
        reason = "plybits is not compiled here (`make compile` builds the mypyc extension modules)"
        if os.environ.get("PLYBITS_REQUIRE_COMPILED") == "1":
            pytest.fail(f"PLYBITS_REQUIRE_COMPILED=1 but {reason}")
        pytest.skip(reason)


@pytest.mark.usefixtures("compiled_build")
def test_the_compiled_modules_are_extension_modules():
    for name in MODULES:
        file = sys.modules[name].__file__ or ""
        assert file.endswith(".so") or file.endswith(".pyd"), f"{name} loaded from {file}"
        assert Path(file).with_name(Path(file).name.split(".")[0] + ".py").exists(), f"{name} ships no .py"


@pytest.mark.usefixtures("compiled_build")
def test_compiled_and_pure_modules_agree_on_every_golden_vector():
    blobs = golden_vectors()
    compiled_here = what_plybits_makes_of(blobs)
    pure_modules, pure = _run_self(True, blobs)
    assert pure_modules == []
    assert len(pure) == len(compiled_here) == len(blobs)
    for blob, mine, theirs in zip(blobs, compiled_here, pure):
        assert mine == theirs, f"compiled and pure builds differ on {blob.hex()}"


def test_an_extension_older_than_its_source_is_stale_in_a_checkout_only(tmp_path):
    package = tmp_path / "codecs" / "plybits"
    (package / "chess").mkdir(parents=True)
    for name in ("rank", "chess/board"):
        (package / f"{name}.py").write_text("")
        (package / f"{name}{EXTENSION_SUFFIXES[0]}").write_bytes(b"")
    os.utime(package / "chess" / f"board{EXTENSION_SUFFIXES[0]}", (1_000_000, 1_000_000))  # built, then edited
    assert stale_extensions(str(package)) == []  # no setup.py: an installed package
    (tmp_path / "setup.py").write_text("")
    assert stale_extensions(str(package)) == ["plybits.chess.board"]


def test_a_stale_in_place_build_loads_the_pure_python_modules_and_says_so(tmp_path):
    """Run on a copy of the package whose rank.py is newer than a (dummy) extension beside it."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "codecs", tree / "codecs", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    (tree / "setup.py").write_text("")
    dummy = tree / "codecs" / "plybits" / f"rank{EXTENSION_SUFFIXES[0]}"
    dummy.write_bytes(b"not an extension module")
    os.utime(dummy, (1_000_000, 1_000_000))
    env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    env["PYTHONPATH"] = str(tree / "codecs")
    done = subprocess.run([sys.executable, "-c", "import plybits.rank; print(plybits.rank.__file__)"], env=env,
                          cwd=tmp_path, capture_output=True, text=True, check=True)
    assert done.stdout.strip().endswith("rank.py")
    assert "plybits.rank changed since compiled" in done.stderr


def test_the_image_compiles_in_its_build_stage_and_checks_the_core_it_ships():
    build, *_, image = _test_module("test_packaging").dockerfile_stages()
    runs = [args for keyword, args in build if keyword == "RUN"]
    assert "gcc" in runs[0] and any("PLYBITS_COMPILE=1 pip wheel ." in run for run in runs)
    (install,) = [args for keyword, args in image if keyword == "RUN" and "/wheels/" in args]
    assert install.index("pip install --no-deps /wheels/") < install.index("compiled_modules() == list(MODULES)")
    copied = " ".join(args for keyword, args in build if keyword == "COPY")
    assert "setup.py" in copied


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_test_compiles_then_runs_the_suite_once(tmp_path):
    """The pure-Python pass is a test of the suite (tests/test_pure_pass.py), not a second pytest of make's."""
    plan = subprocess.run(["make", "-n", "test", f"VENV={tmp_path / 'venv'}"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.splitlines()
    compile_at = next(i for i, line in enumerate(plan) if "PLYBITS_COMPILE=1" in line and "--inplace" in line)
    suites = [i for i, line in enumerate(plan) if "-m pytest" in line]
    assert len(suites) == 1 and compile_at < suites[0] and "PLYBITS_PURE" not in plan[suites[0]]


if __name__ == "__main__":
    given = [bytes.fromhex(line) for line in sys.stdin.read().split()]
    print(json.dumps({"compiled": compiled_modules(), "results": what_plybits_makes_of(given)}))
