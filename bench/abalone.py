"""Abalone: plybits' public verbs side by side with abalone-boai's public calls, on the same real games.

Run: ``.venv/bin/python -m bench.abalone [--games N] [--positions N] [--repeats R] [--quick]
[--label pure|compiled] [--write]``; prints a markdown section (``--write`` also stores the run in
bench/results/abalone.json and puts the section into BENCHMARKS.md between the abalone markers).

Games: the first N MiGs games of ``../shared/data/abalone/`` (Belgian daisy, Aba-Pro). Both libraries
work on the same positions and the same moves, and each side's timed call builds the same objects:

- validate a move list: ``plybits.read_record("abalone", moves=...)`` (each move parsed, checked legal,
  played) vs the peer replaying the same moves, given in its ``(marbles, Direction)`` form, from
  ``Game(InitialPosition.BELGIAN_DAISY, Player.BLACK)`` through ``Game.move`` (which checks each one) and
  ``switch_player``.
- decode: ``plybits.decode(data)`` of the game's abapro container vs the same peer replay (the peer has no
  bit format).
- legal moves of a position given as FEN: ``plybits.legal_moves("abalone", start=fen)`` vs the peer's game
  built at that position and ``list(game.generate_legal_moves())`` as shipped (it deep-copies the game for
  every candidate); also with a cheap list copy in place of its deepcopy (its own ``move`` rules, our copy),
  to separate its rule code from its copying. On every k-th position of the games.
- size: abapro's bits/ply against log2(number of legal moves) averaged over the same plies, the cost of
  a uniform index (what ``rank`` spends under a uniform model).

The timing loop is bench.timing's (alternated sides, repeats, the collector alike for both).
"""

from __future__ import annotations

import argparse
import math
import platform
from collections.abc import Iterator

from abalone.enums import Direction, InitialPosition, Marble, Player, Space
from abalone.game import Game as PeerGame
from abalone.game import IllegalMoveException

import plybits
from plybits.abalone import GAME, Position, apgn
from plybits.abalone.abapro import ABAPRO

from bench.report import ROOT, load_average
from bench.timing import POLICY, alternate, arguments, command, each, rates_row, report

DATA = ROOT.parent / "shared" / "data" / "abalone" / "migs-2016-2017.train.apgn"
PEER_DIRECTION = {
    0: Direction.EAST, 1: Direction.NORTH_EAST, 2: Direction.NORTH_WEST,
    3: Direction.WEST, 4: Direction.SOUTH_WEST, 5: Direction.SOUTH_EAST,
}


def peer_board(board: Position) -> PeerGame:
    rows, side = board.fen().split()[:2]
    game = PeerGame.__new__(PeerGame)
    game.board = []
    for row in rows.split("/"):
        cells: list[Marble] = []
        for ch in row:
            if ch in "bw":
                cells.append(Marble.BLACK if ch == "b" else Marble.WHITE)
            else:
                cells.extend([Marble.BLANK] * int(ch))
        game.board.append(cells)
    game.turn = Player.BLACK if side == "b" else Player.WHITE
    return game


def peer_board_of(fen: str) -> PeerGame:
    """The peer's game at the position ``fen`` describes."""
    return peer_board(GAME.position(fen))


def peer_args(text: str, direction: int) -> tuple[object, Direction]:
    cells = [Space[text[k:k + 2].upper()] for k in range(0, len(text), 2)]
    return (cells[0] if len(cells) == 2 else (cells[0], cells[1])), PEER_DIRECTION[direction]


def peer_legal_moves(game: PeerGame) -> Iterator[tuple[Space | tuple[Space, Space], Direction]]:
    """The peer's legal moves: its own ``generate_legal_moves`` with a cheap copy (its deepcopy of the whole game
    per candidate is what makes it slow, not the rules)."""
    for marbles in game.generate_own_marble_lines():
        for direction in Direction:
            trial = PeerGame.__new__(PeerGame)
            trial.board = [row[:] for row in game.board]
            trial.turn = game.turn
            try:
                trial.move(marbles, direction)
            except IllegalMoveException:
                continue
            yield marbles, direction


def peer_legal_cheap(game: PeerGame) -> int:
    return sum(1 for _ in peer_legal_moves(game))


def peer_start(board: Position) -> tuple[InitialPosition, Player]:
    """The peer's named start position and first player equal to ``board`` (its public constructor's arguments)."""
    game = peer_board(board)
    for start in InitialPosition:
        if start.value == game.board:
            return start, game.turn
    raise SystemExit(f"abalone-boai has no initial position {board.fen()!r}")


def peer_replay(case: tuple[InitialPosition, Player, list[tuple[object, Direction]]]) -> None:
    """The peer's side of a validated replay: ``Game(start, first)``, each move through ``Game.move``."""
    start, first, moves = case
    game = PeerGame(start, first)
    for marbles, direction in moves:
        game.move(marbles, direction)
        game.switch_player()


def peer_generate(fen: str) -> None:
    list(peer_board_of(fen).generate_legal_moves())


def peer_generate_cheap(fen: str) -> None:
    peer_legal_cheap(peer_board_of(fen))


def run(args: argparse.Namespace) -> None:
    text = DATA.read_text(encoding="utf-8")
    records = []
    for game_text in apgn.split_records(text):
        if len(records) == args.games:
            break
        records.append(game_text)
    replays = [plybits.read_record("abalone", record=r) for r in records]
    plies = sum(len(replay.moves) for replay in replays)
    texts: list[tuple[str | None, list[str]]] = []
    peer_cases = []
    fens: list[str] = []
    uniform = 0.0
    total_moves = 0
    payload_bits = 0
    for replay in replays:
        board = replay.start_position.copy()
        moves, peer_moves = [], []
        for move in replay.moves:
            fens.append(board.fen())
            legal = len(board.legal_moves())
            total_moves += legal
            uniform += math.log2(legal)
            moves.append(board.move_text(move))
            peer_moves.append(peer_args(board.move_text(move), move.direction))
            board.push(move)
        texts.append((replay.start, moves))
        peer_cases.append((*peer_start(replay.start_position), peer_moves))
        payload_bits += len(ABAPRO.encode(replay.start_position.copy(), replay.moves))
    datas = [plybits.encode("abalone", "abapro", start=s, moves=m).data for s, m in texts]
    broadside = sum(1 for r in replays for m in r.moves if not m.is_inline)
    step = max(1, len(fens) // args.positions)
    sample = fens[::step]
    for fen in sample:  # the two libraries agree before anything is timed
        ours = len(plybits.legal_moves("abalone", start=fen)[1])
        assert ours == sum(1 for _ in peer_board_of(fen).generate_legal_moves()) == peer_legal_cheap(peer_board_of(fen)), fen

    boards = [GAME.position(f) for f in sample]
    peer_games = [peer_board_of(f) for f in sample]
    sides = {
        "gen ours": each(lambda b: b.legal_moves(), boards),
        "gen peer": each(lambda g: list(g.generate_legal_moves()), peer_games),
        "validate ours": each(lambda c: plybits.read_record("abalone", start=c[0], moves=c[1]), texts),
        "validate peer": each(peer_replay, peer_cases),
        "decode ours": each(plybits.decode, datas),
        "legal ours": each(lambda f: plybits.legal_moves("abalone", start=f), sample),
        "legal peer": each(peer_generate, sample),
        "legal peer cheap": each(peer_generate_cheap, sample),
    }
    t = alternate(sides, args.repeats)
    n = len(sample)
    rows = [
        rates_row("validate a move list: `plybits.read_record(moves=…)` vs the peer's `Game.move` + "
                  "`switch_player` a ply", "plies/s", plies, t["validate ours"], t["validate peer"]),
        rates_row("decode: `plybits.decode(data)` of the abapro container vs the same peer replay", "plies/s", plies,
                  t["decode ours"], t["validate peer"]),
        rates_row("legal moves from a FEN: `plybits.legal_moves(start=fen)` vs the peer's "
                  "`generate_legal_moves()` (as shipped: a deepcopy a candidate)", "positions/s", n,
                  t["legal ours"], t["legal peer"]),
        rates_row("the same, the peer with a list copy instead of its deepcopy (its rules, our copy)",
                  "positions/s", n, t["legal ours"], t["legal peer cheap"]),
        rates_row("scheme-internal: `Board.legal_moves()` vs `generate_legal_moves()`, both on positions built "
                  "beforehand", "positions/s", n, t["gen ours"], t["gen peer"]),
    ]
    options = f"--games {args.games} --positions {args.positions}"
    context = (f"{len(replays):,} MiGs games (the first of the file; Belgian daisy), {plies:,} plies, {broadside:,} "
               f"broadside; {n:,} positions (one in {step}); abalone-boai 1.0.0; Python "
               f"{platform.python_version()}; load average {load_average():.1f} at the end")
    report("abalone", args, rows, heading="## Abalone", command_line=command("abalone", args, options),
           context=context, peer="abalone-boai",
           before=[f"Timing: {POLICY}. The load average of each run is given with its command. The peer has no "
                   "notation reader and no FEN: its moves are given in its own `(marbles, Direction)` form and its "
                   "positions built from the FEN by this bench's `peer_board` (inside its timed region, a small "
                   "cost next to its move generation)."],
           after=[
               f"Size on the same plies: abapro (10 bits inline, 14 broadside) {payload_bits / plies:.3f} bits/ply; "
               f"log2(number of legal moves), the uniform-index bound, {uniform / plies:.3f} "
               f"({total_moves / plies:.1f} legal moves a position on average); abapro is "
               f"{payload_bits / uniform:.2f}x the bound. Move counts agree with the peer's on every sampled "
               "position (checked in the run before timing).",
           ])


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv, __doc__, "abalone", 5, [
        ("--games", 300, None),
        ("--positions", 60, "about this many positions for the move rows"),
    ], {"games": 5, "positions": 3, "repeats": 2})
    run(args)

if __name__ == "__main__":
    main()
