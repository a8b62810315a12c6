"""Xiangqi: legal-move generation and xq10 decode-with-validation, side by side with pyffish and cchess.

Run: ``.venv/bin/python -m bench.xiangqi [--games N] [--peer-positions N] [--cchess-games N] [--write]``;
prints a markdown section (``--write`` also puts it into BENCHMARKS.md between the xiangqi markers).

Games: the distinct games (by move sequence) of ``../shared/data/xiangqi/``, the first N of them. All
three libraries work on the same positions and the same moves:

- move generation: ours is ``Board.legal_moves()`` on every position of the games; pyffish's is
  ``pyffish.legal_moves("xiangqi", fen, [])`` and cchess's is ``ChessBoard.create_moves()`` filtered by
  ``is_valid_move_t`` and ``not is_checked_move`` (its own legality test), both on every k-th of the same
  positions (a pyffish call costs milliseconds here, so all of them would take too long); the move
  counts are compared on those positions.
- decode with validation: ours is ``xq10`` decoding each game's payload, every ply checked legal and
  played; pyffish validates a whole game in one call (``get_fen`` over the move list: each move is
  matched against its legal moves); cchess replays the moves with a legality check every ply
  (``is_valid_iccs_move`` + ``is_checked_move``, then the move), on the first ``--cchess-games`` games.
"""

from __future__ import annotations

import argparse
import platform
import time

import cchess
import pyffish

from plybits.xiangqi import GAME, XQ10
from plybits.xiangqi.board import Board, Move

from bench.report import ROOT, add_write_option, load_average, publish

DATA = ROOT.parent / "shared" / "data" / "xiangqi"
VARIANT = "xiangqi"


def to_ffish(iccs: str) -> str:
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


def load_games(limit: int) -> list[list[str]]:
    seen: set[tuple[str, ...]] = set()
    games = []
    for path in sorted(DATA.glob("*.pgn")):
        for text in GAME.split_records(path.read_text(encoding="utf-8")):
            moves = GAME.parse_record(text).moves
            if tuple(moves) not in seen:
                seen.add(tuple(moves))
                games.append(moves)
    return games[:limit]


def cchess_legal(board: cchess.ChessBoard) -> int:
    return sum(
        1 for m in board.create_moves() if board.is_valid_move_t(m) and not board.is_checked_move(m[0], m[1])
    )


def cchess_replay(moves: list[str]) -> None:
    board = cchess.ChessBoard(cchess.FULL_INIT_FEN)
    for text in moves:
        frm, to = cchess.iccs2pos(text)
        if not board.is_valid_move(frm, to) or board.is_checked_move(frm, to):
            raise ValueError(f"cchess: illegal {text}")
        board._move_piece(frm, to)
        board.next_turn()


def run(games_wanted: int, peer_positions: int, cchess_games: int) -> str:
    games = load_games(games_wanted)
    plies = sum(len(g) for g in games)
    # positions: every position before each ply, plus each final one
    boards: list[Board] = []
    for moves in games:
        board = GAME.position()
        boards.append(board.copy())
        for text in moves:
            board.push(Move.from_iccs(text))
            boards.append(board.copy())
    step = max(1, len(boards) // peer_positions)
    sample = boards[::step]
    fens = [b.fen() for b in sample]
    peer_boards = [cchess.ChessBoard(f) for f in fens]

    t = time.perf_counter()
    counts = [len(b.legal_moves()) for b in boards]
    ours_gen = len(boards) / (time.perf_counter() - t)
    ours_sample_counts = counts[::step]

    t = time.perf_counter()
    ff_counts = [len(pyffish.legal_moves(VARIANT, f, [])) for f in fens]
    ff_gen = len(fens) / (time.perf_counter() - t)

    t = time.perf_counter()
    cc_counts = [cchess_legal(b) for b in peer_boards]
    cc_gen = len(fens) / (time.perf_counter() - t)
    agree_ff = sum(a == b for a, b in zip(ours_sample_counts, ff_counts))
    agree_cc = sum(a == b for a, b in zip(ours_sample_counts, cc_counts))

    payloads = []
    for moves in games:
        bits = XQ10.encode(GAME.position(), [Move.from_iccs(m) for m in moves])
        payloads.append((bits.tobytes(), len(moves)))
    t = time.perf_counter()
    for payload, n in payloads:
        XQ10.decode(GAME.position(), payload, n, 0)
    ours_dec = plies / (time.perf_counter() - t)

    start = pyffish.start_fen(VARIANT)
    ff_games = [[to_ffish(m) for m in g] for g in games]
    t = time.perf_counter()
    for moves in ff_games:
        pyffish.get_fen(VARIANT, start, moves)
    ff_dec = plies / (time.perf_counter() - t)

    cc_set = games[:cchess_games]
    cc_plies = sum(len(g) for g in cc_set)
    t = time.perf_counter()
    for moves in cc_set:
        cchess_replay(moves)
    cc_dec = cc_plies / (time.perf_counter() - t)

    load = load_average()
    args = f"--games {games_wanted} --peer-positions {peer_positions} --cchess-games {cchess_games}"
    lines = [
        "## Xiangqi",
        "",
        f"Command: `.venv/bin/python -m bench.xiangqi {args} --write` "
        f"(pyffish {'.'.join(map(str, pyffish.version()))}, cchess; Python {platform.python_version()}; "
        f"2-core machine shared with other jobs, load average {load:.1f} at the end of the run: "
        "absolute rates vary with the load, ratios less).",
        "",
        f"Data: {len(games)} distinct games of `../shared/data/xiangqi/` (deduplicated by move sequence), "
        f"{plies:,} plies, {len(boards):,} positions; the peers' move generation on every k-th of those "
        f"positions (k = {step}: {len(fens):,}); cchess replay on the first {len(cc_set)} games ({cc_plies:,} plies).",
        "",
        "| what | plybits | pyffish | cchess | vs pyffish | vs cchess |",
        "|---|---:|---:|---:|---:|---:|",
        f"| legal-move generation, positions/s | {ours_gen:,.0f} | {ff_gen:,.0f} | {cc_gen:,.0f} "
        f"| {ours_gen / ff_gen:.1f}x | {ours_gen / cc_gen:.0f}x |",
        f"| decode with validation, plies/s | {ours_dec:,.0f} | {ff_dec:,.0f} (whole game a call) "
        f"| {cc_dec:,.0f} (legality check a ply) | {ours_dec / ff_dec:.1f}x | {ours_dec / cc_dec:.0f}x |",
        "",
        f"Targets: >= 10x cchess's checked replay ({ours_dec / cc_dec:.0f}x: "
        f"{'met' if ours_dec >= 10 * cc_dec else 'NOT met'}), >= 0.5x pyffish validating a whole game in one "
        f"call ({ours_dec / ff_dec:.2f}x: {'met' if ours_dec >= 0.5 * ff_dec else 'NOT met'}).",
        "",
        f"Move counts agree with pyffish on {agree_ff}/{len(fens)} and with cchess on {agree_cc}/{len(fens)} "
        "sampled positions. A pyffish call costs a few milliseconds whatever its length (each call builds a "
        "fresh position from the FEN), so its per-position rate is call overhead; its "
        "whole-game rate is what its C++ core does per ply plus that overhead once a game. Ours is pure "
        "Python: precomputed step tables on the mailbox, shared Move objects, and the own-general check "
        "skipped for moves that touch none of the general's lines; the rest is interpreter time.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="distinct games to use (all: 2401)")
    parser.add_argument("--peer-positions", type=int, default=1500, help="positions for the peers' generation")
    parser.add_argument("--cchess-games", type=int, default=60, help="games for the cchess replay")
    add_write_option(parser, "xiangqi")
    args = parser.parse_args()
    publish("xiangqi", run(args.games, args.peer_positions, args.cchess_games), args.write)


if __name__ == "__main__":
    main()
