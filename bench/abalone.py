"""Abalone: legal-move generation and abapro decode-with-validation, side by side with abalone-boai, on real games.

Run: ``.venv/bin/python -m bench.abalone [--games N] [--peer-positions N] [--write]``; prints a markdown
section (``--write`` also puts it into BENCHMARKS.md between the abalone markers).

Games: the first N MiGs games of ``../shared/data/abalone/`` (Belgian daisy, Aba-Pro). Both libraries
work on the same positions and the same moves:

- move generation: ours is ``Board.legal_moves()``; the peer's is ``Game.generate_legal_moves()`` as
  shipped (it deep-copies the game for every candidate), timed on every k-th of the same positions, and
  also with a cheap list copy in place of its deepcopy (its own ``move`` rules, our copy), to separate its
  rule code from its copying.
- decode with validation: ours is ``abapro`` decoding each game's payload, every ply checked legal and
  played; the peer has no bit format, so its side is replaying the same moves, already in its
  ``(marbles, Direction)`` form, through ``Game.move`` (which checks each one) and ``switch_player``.
- size: abapro's bits/ply against log2(number of legal moves) averaged over the same plies, the cost of
  a uniform index (what ``rank`` spends under a uniform model).
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from abalone.enums import Direction, InitialPosition, Marble, Player, Space
from abalone.game import Game as PeerGame
from abalone.game import IllegalMoveException

import plybits
from plybits.abalone import GAME, Position, apgn
from plybits.abalone.abapro import ABAPRO

from bench.report import ROOT, add_write_option, load_average, publish

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


def peer_args(text: str, direction: int) -> tuple[object, Direction]:
    cells = [Space[text[k:k + 2].upper()] for k in range(0, len(text), 2)]
    return (cells[0] if len(cells) == 2 else (cells[0], cells[1])), PEER_DIRECTION[direction]


def peer_legal_cheap(game: PeerGame) -> int:
    count = 0
    for marbles in game.generate_own_marble_lines():
        for direction in Direction:
            trial = PeerGame.__new__(PeerGame)
            trial.board = [row[:] for row in game.board]
            trial.turn = game.turn
            try:
                trial.move(marbles, direction)
            except IllegalMoveException:
                continue
            count += 1
    return count


def run(games_wanted: int, peer_positions: int) -> str:
    text = DATA.read_text(encoding="utf-8")
    games = []
    for game_text in apgn.split_records(text):
        if len(games) == games_wanted:
            break
        record = apgn.parse_record(game_text)
        replay = plybits.read_record("abalone", record=game_text)
        games.append((record, replay))
    plies = sum(len(replay.moves) for _, replay in games)
    step = max(1, plies // peer_positions)

    # legal-move generation, timed call by call while replaying (no list of 240,000 boards in memory)
    sample: list[Position] = []
    elapsed = uniform = 0.0
    total_moves = index = 0
    clock = time.perf_counter
    for _, replay in games:
        board = replay.start_position.copy()
        for move in replay.moves:
            t = clock()
            moves = board.legal_moves()
            elapsed += clock() - t
            total_moves += len(moves)
            uniform += math.log2(len(moves))
            if index % step == 0:
                sample.append(board.copy())
            index += 1
            board.push(move)
    ours_gen = plies / elapsed
    peer_games = [peer_board(b) for b in sample]
    t = time.perf_counter()
    peer_counts = [sum(1 for _ in g.generate_legal_moves()) for g in peer_games]
    peer_gen = len(sample) / (time.perf_counter() - t)
    t = time.perf_counter()
    cheap_counts = [peer_legal_cheap(g) for g in peer_games]
    peer_cheap = len(sample) / (time.perf_counter() - t)
    ours_counts = [len(b.legal_moves()) for b in sample]
    assert peer_counts == ours_counts == cheap_counts, "move counts disagree"

    # decode with validation
    payloads = []
    for _, replay in games:
        bits = ABAPRO.encode(replay.start_position.copy(), replay.moves)
        payloads.append((replay.start_position, bits.tobytes(), len(replay.moves), len(bits)))
    t = time.perf_counter()
    for start, payload, n, _ in payloads:
        ABAPRO.decode(start.copy(), payload, n, 0)
    ours_dec = plies / (time.perf_counter() - t)
    peer_moves = []
    for _, replay in games:
        board = replay.start_position.copy()
        args = []
        for move in replay.moves:
            args.append(peer_args(board.move_text(move), move.direction))
            board.push(move)
        peer_moves.append((peer_board(replay.start_position), args))
    t = time.perf_counter()
    for start_game, args in peer_moves:
        game = PeerGame.__new__(PeerGame)
        game.board = [row[:] for row in start_game.board]
        game.turn = start_game.turn
        for marbles, direction in args:
            game.move(marbles, direction)
            game.switch_player()
    peer_dec = plies / (time.perf_counter() - t)

    # size
    payload_bits = sum(p[3] for p in payloads)
    broadside = sum(1 for _, r in games for m in r.moves if not m.is_inline)

    lines = [
        "## Abalone",
        "",
        f"Command: `.venv/bin/python -m bench.abalone --games {games_wanted} --peer-positions {peer_positions}` "
        f"(peer: abalone-boai 1.0.0; Python {sys.version.split()[0]}; 2-core machine shared with other jobs, "
        f"load average {load_average():.1f} at the end of the run: absolute rates vary with the load).",
        "",
        f"Data: {len(games):,} MiGs games (the first of the file; Belgian daisy), {plies:,} plies, "
        f"{broadside:,} of them broadside; {total_moves / plies:.1f} legal moves per position on average.",
        "",
        "| what | plybits | abalone-boai | ratio |",
        "|---|---:|---:|---:|",
        f"| legal-move generation, positions/s | {ours_gen:,.0f} | {peer_gen:,.1f} "
        f"(on {len(sample):,} of the positions) | {ours_gen / peer_gen:,.0f}x |",
        f"| the same, peer with a list copy instead of deepcopy | {ours_gen:,.0f} | {peer_cheap:,.1f} | "
        f"{ours_gen / peer_cheap:,.0f}x |",
        f"| decode with validation, plies/s (peer: replay through `Game.move`) | {ours_dec:,.0f} | "
        f"{peer_dec:,.0f} | {ours_dec / peer_dec:,.1f}x |",
        "",
        "Size on the same plies:",
        "",
        "| | bits/ply |",
        "|---|---:|",
        f"| abapro (10 inline, 14 broadside) | {payload_bits / plies:.3f} |",
        f"| log2(number of legal moves), the uniform-index bound | {uniform / plies:.3f} |",
        f"| abapro over the bound | {payload_bits / uniform:.2f}x |",
        "",
        "Move counts agree with the peer's on every sampled position (checked in the run).",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2330)
    parser.add_argument("--peer-positions", type=int, default=300)
    add_write_option(parser, "abalone")
    args = parser.parse_args()
    publish("abalone", run(args.games, args.peer_positions), args.write)


if __name__ == "__main__":
    main()
