"""The benchmarks run: each bench's ``--quick`` mode over a few games prints its table with the expected rows
(no timing is asserted), and the shared timing loop (bench/timing.py) does what the benches rely on."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from bench import timing
from plybits.compiled import compiled_modules
from tests.conftest import ROOT, shared_data

TABLE = "| task | unit | plybits, pure Python | plybits, compiled |"

QUICK_RUNS = {
    "chess": ([], ["read PGN: `plybits.read_record", "PGN → container", "decode: `plybits.decode",
                   "scheme-internal: `X88.decode_uci`", "legal moves from a FEN", "scheme-internal: `Board.legal_moves()`"]),
    "xiangqi": ([], ["validate whole games: `plybits.read_record(moves=…)` + final FEN vs pyffish",
                     "the same, cost a call", "the same, cost a ply", "decode: `plybits.decode(data)`",
                     "vs cchess replay", "vs pyffish `legal_moves`", "vs cchess `create_moves`",
                     "scheme-internal: `Board.legal_moves()`"]),
    "abalone": ([], ["validate a move list", "decode: `plybits.decode(data)`", "legal moves from a FEN",
                     "a list copy instead of its deepcopy", "scheme-internal: `Board.legal_moves()`"]),
    "entropy": ([], ["`plybits.encode(\"entropy\"", "`plybits.decode(data)`", "scheme-internal: e13 encode",
                     "scheme-internal: e13 decode", "| information content |"]),
    "rank": ([], [f"{game}: `plybits.{verb}" for game in ("chess", "xiangqi", "abalone") for verb in ("encode", "decode")]
             + ["scheme-internal, chess: 0x88 decode", "scheme-internal, chess: rank, model 1 decode"]),
}


def run_bench(name: str, *argv: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "codecs")])}
    done = subprocess.run([sys.executable, "-m", f"bench.{name}", *argv], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.parametrize("name", sorted(QUICK_RUNS))
def test_quick_mode_prints_the_table(name: str) -> None:
    shared_data()
    argv, expected = QUICK_RUNS[name]
    out = run_bench(name, "--quick", *argv)
    lines = out.splitlines()
    assert any(line.startswith(TABLE) for line in lines), out
    for text in expected:
        rows = [line for line in lines if line.startswith("|") and text in line]
        assert rows, f"{name}: no row with {text!r} in\n{out}"
    # every timed row states its spread, and the compiled column is marked until a compiled run fills it
    timed = [line for line in lines if line.startswith("| ") and ("/s |" in line or "µs a" in line)]
    assert timed and all("(" in row and "not measured" in row for row in timed), out


@pytest.mark.slow
@pytest.mark.data
def test_speed_quick_mode() -> None:
    shared_data()
    if not compiled_modules():
        pytest.skip("no compiled build here (make compile): bench.speed times it beside pure Python")
    out = run_bench("speed", "--base", "HEAD", "--quick")
    for case in ("chess/rank", "chess/rank, moves only", "chess/rank, moves only to SAN", "xiangqi/rank",
                 "abalone/rank", "chess/0x88", "xiangqi/xq10", "abalone/abapro"):
        for verb in ("decode", "encode"):
            assert any(line.startswith(f"| {case} | `plybits.{verb}` |") for line in out.splitlines()), out
    # the moves-only row has its own ratio to python-chess's replay of the same UCI moves
    peer = [line for line in out.splitlines()
            if line.startswith("| chess/rank, moves only") and "x (" in line]  # "ratio (min-max)"
    assert len(peer) == 3, out
    assert "| `plybits encode` of 8 chess games (`rank`) |" in out, out
    # every side decodes the base revision's own containers, and codes model 1 by the scheme (labelled so)
    for case in ("chess/rank", "xiangqi/rank", "abalone/rank"):
        assert f"| {case}, HEAD's containers | `plybits.decode` |" in out, out
        assert f"| {case}, HEAD's containers | scheme-internal: model 1 `encode`" in out, out


def test_speed_base_compiled_side_runs_the_base_tree_with_its_extensions(tmp_path) -> None:
    # --base-compiled's fourth side imports the base worktree's codecs with the pure switch off, and counts only
    # when its worker loaded compiled modules (the pure base side only when it loaded none)
    from bench import speed

    path, env = speed.side_setting(speed.BASE_COMPILED, tmp_path)
    assert path.split(os.pathsep)[0] == str(tmp_path / "codecs") and env == {"PLYBITS_PURE": "0"}
    assert speed.side_setting("base", tmp_path) == (path, {"PLYBITS_PURE": "1"})
    assert speed.loaded_as_expected(speed.BASE_COMPILED, ["plybits.rank"])
    assert not speed.loaded_as_expected(speed.BASE_COMPILED, [])
    assert speed.loaded_as_expected("base", []) and not speed.loaded_as_expected("base", ["plybits.rank"])
    with pytest.raises(SystemExit, match="predates the compiled build"):
        speed.compile_base(tmp_path)


@pytest.mark.slow
def test_inline_quick_mode() -> None:
    out = run_bench("inline", "--quick")
    for game in ("chess", "xiangqi", "abalone", "entropy"):
        assert f"| {game} |" in out, out


@pytest.mark.slow
@pytest.mark.data
def test_load_quick_mode() -> None:
    shared_data("chess", "carlsen_otb.pgn")
    out = run_bench("load", "--quick")
    for row in ("| GET /healthz |", "| POST /v1/encode (80 plies, SAN) |", "| the service's keep-alive |"):
        assert row in out, out


# --- the timing loop ---------------------------------------------------------------------------------


def test_sides_alternate_in_reversed_order_each_round() -> None:
    order: list[str] = []
    times = timing.alternate({"a": lambda: order.append("a"), "b": lambda: order.append("b")}, 4)
    assert order == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert [len(t) for t in times.values()] == [4, 4]


def test_collector_runs_before_every_pass_and_stays_on(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    monkeypatch.setattr(timing.gc, "collect", lambda: events.append("collect"))
    import gc

    enabled = []
    timing.alternate({"a": lambda: (events.append("a"), enabled.append(gc.isenabled())),
                      "b": lambda: (events.append("b"), enabled.append(gc.isenabled()))}, 2)
    assert events == ["collect", "a", "collect", "b", "collect", "b", "collect", "a"]
    assert enabled == [gc.isenabled()] * 4


def test_each_drops_every_result() -> None:
    import weakref

    class Thing:
        pass

    alive: list[weakref.ref[Thing]] = []

    def make(_: int) -> Thing:
        if alive:
            assert alive[-1]() is None  # the previous call's result is gone before the next call
        thing = Thing()
        alive.append(weakref.ref(thing))
        return thing

    timing.each(make, range(5))()
    assert len(alive) == 5 and alive[-1]() is None


def test_fit_cost_separates_the_cost_a_call_from_the_cost_a_ply() -> None:
    # 10 calls a group; 1.5 ms a call and 8 µs a ply, two rounds (the second twice as slow)
    calls = {4: 10, 20: 10, 60: 10}
    plies = {n: 10 * n for n in calls}
    seconds = {n: [10 * (1.5e-3 + 8e-6 * n), 2 * 10 * (1.5e-3 + 8e-6 * n)] for n in calls}
    per_call, per_ply = timing.fit_cost(seconds, calls, plies)
    assert per_call == pytest.approx([1.5e-3, 3e-3])
    assert per_ply == pytest.approx([8e-6, 16e-6])


def test_rows_and_the_table_of_both_builds() -> None:
    row = timing.rates_row("x", "plies/s", 100, [1.0, 2.0, 4.0], [2.0, 2.0, 2.0])
    assert row.ours == [100, 50, 25] and row.ratios == [2.0, 1.0, 0.5]
    cost = timing.cost_row("y", "µs a call", [1.0, 2.0], [10.0, 10.0])
    assert cost.ratios == [10.0, 5.0] and cost.lower_is_better
    pure = {"command": "c", "context": "", "rows": {"x": vars(row), "y": vars(cost)}}
    lines = timing.table({"pure": pure}, "peer")
    assert "| x | plies/s | 50.0 (25.0-100) | not measured | 50.0 (50.0-50.0) | 1.00x (0.50-2.00) | not measured | not measured |" in lines
    faster = timing.rates_row("x", "plies/s", 100, [0.5, 0.5, 0.5], [2.0, 2.0, 2.0])
    cheaper = timing.cost_row("y", "µs a call", [0.5, 0.5], [10.0, 10.0])
    compiled = {"command": "c", "context": "", "rows": {"x": vars(faster), "y": vars(cheaper)}}
    both = timing.table({"pure": pure, "compiled": compiled}, None)
    assert both[2].endswith("| 4.00x |")  # 200 plies/s compiled against a median of 50 pure
    assert both[3].endswith("| 3.00x |")  # 0.5 µs compiled against a median of 1.5 pure


def test_a_label_must_name_the_build_imported() -> None:
    wrong = "compiled" if timing.build() == "pure" else "pure"
    with pytest.raises(SystemExit, match="--label"):
        timing.label_of(argparse.Namespace(label=wrong))
    assert timing.label_of(argparse.Namespace(label=None)) == timing.build()


def test_verb_instructions_counts_the_plies_of_one_pass(capsys):
    from bench import verb_instructions
    from plybits.records import read_record
    from plybits.registry import get_game

    path = ROOT / "tests" / "fixtures" / "records" / "v1_lichess.pgn"
    records = list(get_game("chess").split_records(path.read_text(encoding="utf-8")))[:2]
    expected = sum(len(read_record("chess", record=r).moves) for r in records)
    assert expected > 0
    assert verb_instructions.main(["chess", str(path), "2", "2"]) == expected
    assert f"{expected} plies a pass" in capsys.readouterr().err
    assert verb_instructions.main(["chess", str(path), "2", "2", "moves"]) == expected  # the UCI moves alone
    assert verb_instructions.main(["chess", str(path), "2", "2", "moves", "san"]) == expected  # decoded to SAN
    with pytest.raises(SystemExit):
        verb_instructions.main(["chess", str(path), "2", "2", "moves", "pgn"])
