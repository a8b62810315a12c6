"""Xiangqi: plybits' public verbs side by side with pyffish and cchess, on the same real games.

Run: ``.venv/bin/python -m bench.xiangqi [--games N] [--positions N] [--cchess-games N] [--repeats R] [--quick]
[--label pure|compiled] [--write]``; prints a markdown section (``--write`` also stores the run in
bench/results/xiangqi.json and puts the section into BENCHMARKS.md between the xiangqi markers).

Games: the first ``--games`` distinct games (by move sequence) of ``../shared/data/xiangqi/``. Every side's
timed call takes the same input in its own notation (ICCS for plybits and cchess, pyffish's UCI with ranks
from 1) and builds the same objects:

- validate a move list: ``plybits.read_record("xiangqi", moves=...)`` and the final FEN vs
  ``pyffish.get_fen("xiangqi", start, moves)`` (each move matched against its legal moves, the final FEN) and
  vs cchess replaying the moves with its own legality test a ply (``is_valid_move`` + ``is_checked_move``,
  then its internal ``_move_piece``, its cheapest way to play a move; the final ``to_fen()``), cchess on the
  first ``--cchess-games`` games (it is slow).
- decode: ``plybits.decode(data)`` of the game's xq10 container vs the same ``pyffish.get_fen``.
- per call and per ply: pyffish pays a large fixed cost a call (it builds a position from the FEN each
  time), so the whole-game rate mixes the two. The games of at least ``LONGEST`` plies are cut to each of
  ``LENGTHS`` and both sides validate each cut; ``seconds a call = a + b * plies`` is fitted per side and per
  round: ``a`` is the cost a call, ``b`` the cost a ply.
- legal moves of a position given as FEN: ``plybits.legal_moves("xiangqi", start=fen)`` vs
  ``pyffish.legal_moves("xiangqi", fen, [])`` vs cchess's ``ChessBoard(fen).create_moves()`` filtered by
  its legality test, on every k-th position of the games (the move counts are checked equal first).

The timing loop is bench.timing's (alternated sides, repeats, the collector alike for both).
"""

from __future__ import annotations

import argparse
import platform

import cchess
import pyffish

import plybits
from plybits.xiangqi import GAME
from plybits.xiangqi.board import Move

from bench.report import ROOT, load_average
from bench.timing import POLICY, alternate, arguments, command, cost_row, each, fit_cost, rates_row, report

DATA = ROOT.parent / "shared" / "data" / "xiangqi"
VARIANT = "xiangqi"
LENGTHS = (4, 20, 40, 60)
LONGEST = max(LENGTHS)


def to_ffish(iccs: str) -> str:
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


def load_games(limit: int) -> list[list[str]]:
    """The first ``limit`` distinct games' ICCS moves."""
    seen: set[tuple[str, ...]] = set()
    games = []
    for path in sorted(DATA.glob("*.pgn")):
        for text in GAME.split_records(path.read_text(encoding="utf-8")):
            moves = GAME.parse_record(text).moves
            if tuple(moves) not in seen:
                seen.add(tuple(moves))
                games.append(moves)
    return games[:limit]


def cchess_legal(fen: str) -> None:
    board = cchess.ChessBoard(fen)
    [m for m in board.create_moves() if board.is_valid_move_t(m) and not board.is_checked_move(m[0], m[1])]


def cchess_count(fen: str) -> int:
    board = cchess.ChessBoard(fen)
    return sum(1 for m in board.create_moves() if board.is_valid_move_t(m) and not board.is_checked_move(m[0], m[1]))


def cchess_replay(moves: list[str]) -> None:
    board = cchess.ChessBoard(cchess.FULL_INIT_FEN)
    for text in moves:
        frm, to = cchess.iccs2pos(text)
        if not board.is_valid_move(frm, to) or board.is_checked_move(frm, to):
            raise ValueError(f"cchess: illegal {text}")
        board._move_piece(frm, to)
        board.next_turn()
    board.to_fen()


def ours_validate(moves: list[str]) -> None:
    plybits.read_record("xiangqi", moves=moves).final.fen()


def run(args: argparse.Namespace) -> None:
    games = load_games(args.games)
    plies = sum(len(g) for g in games)
    start = pyffish.start_fen(VARIANT)
    ff_games = [[to_ffish(m) for m in g] for g in games]
    datas = [plybits.encode("xiangqi", "xq10", moves=g).data for g in games]
    cc_games = games[: args.cchess_games]
    cc_plies = sum(len(g) for g in cc_games)
    for moves, ff in zip(games, ff_games):  # the libraries agree before anything is timed
        assert plybits.read_record("xiangqi", moves=moves).final.fen().split()[0] == pyffish.get_fen(VARIANT, start, ff).split()[0]

    long_games = [g for g in games if len(g) >= LONGEST]
    cuts = {n: [g[:n] for g in long_games] for n in LENGTHS}
    ff_cuts = {n: [[to_ffish(m) for m in g] for g in cut] for n, cut in cuts.items()}

    fens: list[str] = []
    for moves in games:
        board = GAME.position()
        fens.append(board.fen())
        for text in moves:
            board.push(Move.from_iccs(text))
            fens.append(board.fen())
    step = max(1, len(fens) // args.positions)
    sample = fens[::step]
    for fen in sample:
        ours = len(plybits.legal_moves("xiangqi", start=fen)[1])
        assert ours == len(pyffish.legal_moves(VARIANT, fen, [])) == cchess_count(fen), fen

    boards = [GAME.position(f) for f in sample]
    ff_boards = [cchess.ChessBoard(f) for f in sample]
    sides = {
        "gen ours": each(lambda b: b.legal_moves(), boards),
        "gen cchess": each(lambda b: [m for m in b.create_moves() if b.is_valid_move_t(m)
                                      and not b.is_checked_move(m[0], m[1])], ff_boards),
        "validate ours": each(ours_validate, games),
        "validate pyffish": each(lambda m: pyffish.get_fen(VARIANT, start, m), ff_games),
        "decode ours": each(plybits.decode, datas),
        "cc validate ours": each(ours_validate, cc_games),
        "cc validate cchess": each(cchess_replay, cc_games),
        "legal ours": each(lambda f: plybits.legal_moves("xiangqi", start=f), sample),
        "legal pyffish": each(lambda f: pyffish.legal_moves(VARIANT, f, []), sample),
        "legal cchess": each(cchess_legal, sample),
    }
    for n in LENGTHS:
        sides[f"cut {n} ours"] = each(ours_validate, cuts[n])
        sides[f"cut {n} pyffish"] = each(lambda m: pyffish.get_fen(VARIANT, start, m), ff_cuts[n])
    t = alternate(sides, args.repeats)

    calls = {n: len(long_games) for n in LENGTHS}
    cut_plies = {n: n * len(long_games) for n in LENGTHS}
    ours_a, ours_b = fit_cost({n: t[f"cut {n} ours"] for n in LENGTHS}, calls, cut_plies)
    ff_a, ff_b = fit_cost({n: t[f"cut {n} pyffish"] for n in LENGTHS}, calls, cut_plies)
    micro = [1e6 * x for x in ours_a], [1e6 * x for x in ours_b], [1e6 * x for x in ff_a], [1e6 * x for x in ff_b]
    n_pos = len(sample)
    rows = [
        rates_row("validate whole games: `plybits.read_record(moves=…)` + final FEN vs pyffish `get_fen` "
                  "(one call a game)", "plies/s", plies, t["validate ours"], t["validate pyffish"]),
        cost_row("the same, cost a call (fitted over games cut to "
                 f"{'/'.join(map(str, LENGTHS))} plies) vs pyffish", "µs a call", micro[0], micro[2]),
        cost_row("the same, cost a ply (fitted) vs pyffish", "µs a ply", micro[1], micro[3]),
        rates_row("decode: `plybits.decode(data)` of the xq10 container vs pyffish `get_fen` of the moves",
                  "plies/s", plies, t["decode ours"], t["validate pyffish"]),
        rates_row(f"validate whole games ({len(cc_games)} games): `plybits.read_record` vs cchess replay with its "
                  "legality test a ply", "plies/s", cc_plies, t["cc validate ours"], t["cc validate cchess"]),
        rates_row("legal moves from a FEN: `plybits.legal_moves(start=fen)` vs pyffish `legal_moves`",
                  "positions/s", n_pos, t["legal ours"], t["legal pyffish"]),
        rates_row("legal moves from a FEN: `plybits.legal_moves(start=fen)` vs cchess `create_moves` + its "
                  "legality test", "positions/s", n_pos, t["legal ours"], t["legal cchess"]),
        rates_row("scheme-internal: `Board.legal_moves()` vs cchess's filtered `create_moves()`, both on positions "
                  "built beforehand", "positions/s", n_pos, t["gen ours"], t["gen cchess"]),
    ]
    options = f"--games {args.games} --positions {args.positions} --cchess-games {args.cchess_games}"
    context = (f"{len(games):,} distinct games, {plies:,} plies; {len(long_games):,} games of >= {LONGEST} plies "
               f"for the fit; {n_pos:,} positions (one in {step}); pyffish "
               f"{'.'.join(map(str, pyffish.version()))}; Python {platform.python_version()}; load average "
               f"{load_average():.1f} at the end")
    report("xiangqi", args, rows, heading="## Xiangqi", command_line=command("xiangqi", args, options),
           context=context, peer="peer",
           before=[f"Timing: {POLICY}. The load average of each run is given with its command."],
           after=[
               "A pyffish call builds a fresh position from the FEN and replays the moves in C++: its cost is "
               "mostly the fixed part a call, so its whole-game rate depends on the games' length; the per-call "
               "and per-ply rows separate the two (a ratio below 1 means pyffish is cheaper there). Move counts "
               "agree with pyffish and cchess on every sampled position, and final positions with pyffish on "
               "every game (checked in the run before timing). cchess's replay takes its cheapest path: its public "
               "legality tests, then its internal `_move_piece`; its public `ChessBoard.move` also copies the board "
               "and looks for check and mate after every move (about 4x slower in a trial), which would only widen "
               "the gap."
               " `plybits.legal_moves(start=fen)` also reads the FEN and writes each move, which is most of its time (compare the scheme-internal row).",
           ])


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv, __doc__, "xiangqi", 7, [
        ("--games", 600, "distinct games to use (all: 2401)"),
        ("--positions", 300, "about this many positions for the move rows"),
        ("--cchess-games", 40, "games for the cchess replay"),
    ], {"games": 12, "positions": 20, "cchess_games": 3, "repeats": 2})
    run(args)


if __name__ == "__main__":
    main()
