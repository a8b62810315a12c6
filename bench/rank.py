"""The ``rank`` scheme on HELD-OUT real games: bits/ply of every released model of each game side by side (its
``readable_versions``, the newest in bold: what ``encode`` writes), next to the seed scheme, uniform log2(legal
moves) and (chess) a re-implementation of lichess's ordering + fixed Huffman table; chess decode speed.

Run: ``.venv/bin/python -m bench.rank [--share K] [--speed-games N] [--repeats R] [--quick] [--label pure|compiled]
[--write]``; prints a markdown section (``--write`` also stores the run in bench/results/rank.json and puts it into
BENCHMARKS.md between the rank markers). ``--share K`` measures the size on every K-th held-out game (default 2
to stay within a few minutes on this machine; ``--share 1`` is the whole split). Speed: the public verbs
``plybits.encode(game, "rank", ...)`` and ``plybits.decode`` on the first ``--speed-games`` held-out games of
each game, and (chess, labelled scheme-internal) the schemes' own decode, 0x88 next to every rank model; the
timing loop is bench.timing's.

Held-out splits (never trained on; docs/rank.md): chess ``carlsen_otb.pgn`` (Carlsen over the board) and the
pnmadelaine files (one online player's chess.com and lichess games), where model 1 trained on twic0920.pgn and
model 2 on twic0920.pgn plus other players' online games; Abalone the latest 20 % of the MiGs games by date;
xiangqi the Liu Dahua file minus the games also in the Hu Ronghua training file. Entropy has no real games:
random two-round games (draws from the bag, uniform choices), against their information content.
"""

from __future__ import annotations

import math
import os
import platform
import random
import sys
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any

import plybits
from plybits.registry import get_game, get_scheme

from bench.report import ROOT, load_average
from bench.timing import POLICY, Row, alternate, arguments, command, each, rates_row, report

DATA = Path(os.environ.get("PLYBITS_SHARED_DATA", ROOT.parent / "shared" / "data"))

# ---------------------------------------------------------------- lichess's scheme, re-implemented
# Ordering as described by lichess-org/compression (Move.java): promotion piece, capture, not landing
# on a square an enemy pawn attacks, piece-square-table gain, then to/from squares; the played move's
# rank written with their fixed Huffman code (Huffman.java, built from 16M lichess games). Only the code
# LENGTHS matter for size; they are listed here as runs (length, how many ranks), ranks 0..255.
LICHESS_CODE_LENGTHS = [
    (2, 1), (3, 1), (4, 3), (5, 5), (6, 12), (7, 9), (8, 3), (9, 4), (10, 2), (11, 2), (12, 2), (13, 2),
    (14, 2), (15, 2), (16, 2), (17, 1), (18, 3), (19, 2), (20, 3), (21, 5), (22, 4), (23, 5), (24, 7),
    (25, 6), (26, 5), (27, 6), (28, 5), (29, 5), (30, 49), (31, 98),
]
HUFFMAN_BITS = [length for length, count in LICHESS_CODE_LENGTHS for _ in range(count)]
# Piece-square values the ordering uses (lichess's table, itself from flok99/feeks psq.py with manual
# tweaks), rows from the 8th rank down as seen by white; roles pawn, knight, bishop, rook, queen, king.
LICHESS_PSQT = [
    [0, 0, 0, 0, 0, 0, 0, 0, 50, 50, 50, 50, 50, 50, 50, 50, 10, 10, 20, 30, 30, 20, 10, 10,
     5, 5, 10, 25, 25, 10, 5, 5, 0, 0, 0, 20, 21, 0, 0, 0, 5, -5, -10, 0, 0, -10, -5, 5,
     5, 10, 10, -31, -31, 10, 10, 5, 0, 0, 0, 0, 0, 0, 0, 0],
    [-50, -40, -30, -30, -30, -30, -40, -50, -40, -20, 0, 0, 0, 0, -20, -40, -30, 0, 10, 15, 15, 10, 0, -30,
     -30, 5, 15, 20, 20, 15, 5, -30, -30, 0, 15, 20, 20, 15, 0, -30, -30, 5, 10, 15, 15, 11, 5, -30,
     -40, -20, 0, 5, 5, 0, -20, -40, -50, -40, -30, -30, -30, -30, -40, -50],
    [-20, -10, -10, -10, -10, -10, -10, -20, -10, 0, 0, 0, 0, 0, 0, -10, -10, 0, 5, 10, 10, 5, 0, -10,
     -10, 5, 5, 10, 10, 5, 5, -10, -10, 0, 10, 10, 10, 10, 0, -10, -10, 10, 10, 10, 10, 10, 10, -10,
     -10, 5, 0, 0, 0, 0, 5, -10, -20, -10, -10, -10, -10, -10, -10, -20],
    [0, 0, 0, 0, 0, 0, 0, 0, 5, 10, 10, 10, 10, 10, 10, 5, -5, 0, 0, 0, 0, 0, 0, -5,
     -5, 0, 0, 0, 0, 0, 0, -5, -5, 0, 0, 0, 0, 0, 0, -5, -5, 0, 0, 0, 0, 0, 0, -5,
     -5, 0, 0, 0, 0, 0, 0, -5, 0, 0, 0, 5, 5, 0, 0, 0],
    [-20, -10, -10, -5, -5, -10, -10, -20, -10, 0, 0, 0, 0, 0, 0, -10, -10, 0, 5, 5, 5, 5, 0, -10,
     -5, 0, 5, 5, 5, 5, 0, -5, 0, 0, 5, 5, 5, 5, 0, -5, -10, 5, 5, 5, 5, 5, 0, -10,
     -10, 0, 5, 0, 0, 0, 0, -10, -20, -10, -10, -5, -5, -10, -10, -20],
    [-30, -40, -40, -50, -50, -40, -40, -30, -30, -40, -40, -50, -50, -40, -40, -30,
     -30, -40, -40, -50, -50, -40, -40, -30, -30, -40, -40, -50, -50, -40, -40, -30,
     -20, -30, -30, -40, -40, -30, -30, -20, -10, -20, -20, -20, -20, -20, -20, -10,
     20, 20, 0, 0, 0, 0, 20, 20, 0, 30, 10, 0, 0, 10, 30, 0],
]


def lichess_rank(board: Any, played: Any) -> int:
    """The played move's index in lichess's order of the legal moves."""
    from plybits.chess.squares import BLACK, FILE_OF, PAWN, RANK_OF, ROOK, KING, WHITE

    b = board.cells
    us = board.turn
    them = us ^ BLACK
    white = us == WHITE

    def sq64(s: int) -> int:
        return FILE_OF[s] + 8 * RANK_OF[s]

    def psqt(role: int, s: int) -> int:
        i = sq64(s)
        return LICHESS_PSQT[role][i ^ 56 if white else i]

    enemy_pawn_from = (11, 13) if white else (-11, -13)  # an enemy pawn there attacks the square
    best: list[tuple[int, Any]] = []
    for m in board.legal_moves():
        f, t, promotion = m
        p = b[f]
        role = (p & 7) - 1
        q = b[t]
        castle = role == KING - 1 and q == us | ROOK
        capture = bool(q) and not castle or (role == PAWN - 1 and t == board.ep and board.ep != 0)
        defended = any(b[t + d] == them | PAWN for d in enemy_pawn_from)
        score = ((promotion - 1) << 26 if promotion else 0) + (1 << 25 if capture else 0)
        score += (6 if not defended else 5 - role) << 22
        score += (512 + psqt(role, t) - psqt(role, f)) << 12
        score += (sq64(t) << 6) + sq64(f)
        best.append((score, m))
    best.sort(key=lambda x: -x[0])
    return [m for _, m in best].index(played)


# ---------------------------------------------------------------- the held-out games

CHESS_HELD_OUT: dict[str, tuple[str, ...]] = {
    "Carlsen OTB": ("carlsen_otb.pgn",),
    "pnmadelaine online": ("chesscom/chesscom_pnmadelaine_2021-11_to_2024-03.pgn",
                           "clocks/lichess_pnmadelaine_2024-03-30.pgn"),
}
"""Chess's held-out splits (tools/train_chess.py never reads them; model 1 trained on twic0920.pgn only, model 2
also on other players' online games)."""


def held_out_splits(game: str) -> list[tuple[str, list[tuple[str | None, list[Any]]]]]:
    """Each held-out split of ``game`` as (name, every game of it as (start, moves))."""
    from tools.rank_fit import read_games

    if game == "chess":
        return [(name, [(start, moves) for _, start, moves in read_games("chess", [DATA / "chess" / f for f in files])])
                for name, files in CHESS_HELD_OUT.items()]
    if game == "abalone":
        from tools.train_abalone import split

        records, name = split(DATA / "abalone")[1], "latest 20 % of MiGs"
    else:
        from tools.train_xiangqi import split

        records, name = split(DATA / "xiangqi")[1], "Liu Dahua"
    return [(name, [(start, moves) for _, start, moves in records])]


def measure(game: str, seed: str, games: list[tuple[str | None, list[Any]]]) -> dict[str, float]:
    """Total bits of each coding over ``games`` (``rank<v>`` for every readable model version ``v``) and the ply
    count."""
    g = get_game(game)
    rank = get_scheme(game, "rank")
    seed_scheme = get_scheme(game, seed)
    out: dict[str, float] = {"plies": 0, "seed": 0, "uniform": 0.0, "lichess": 0, "time": 0.0}
    for version in rank.readable_versions:
        out[f"rank{version}"] = 0
    t0 = time.perf_counter()
    for start, moves in games:
        out["plies"] += len(moves)
        out["seed"] += len(seed_scheme.encode(g.position(start), moves))
        for version in rank.readable_versions:
            out[f"rank{version}"] += len(rank.encode_version(g.position(start), moves, version))
        position = g.position(start)
        for m in moves:
            out["uniform"] += math.log2(len(position.legal_moves()))
            if game == "chess":
                out["lichess"] += HUFFMAN_BITS[lichess_rank(position, m)]
            position.push(m)
    out["time"] = time.perf_counter() - t0
    return out


def texts_of(game: str, games: list[tuple[str | None, list[Any]]]) -> list[tuple[str | None, list[str]]]:
    """Each game's moves written in its game's default notation (what the public verbs read)."""
    g = get_game(game)
    out = []
    for start, moves in games:
        position = g.position(start)
        texts = []
        for m in moves:
            texts.append(position.move_text(m))
            position.push(m)
        out.append((start, texts))
    return out


def speed(held: dict[str, list[tuple[str | None, list[Any]]]], repeats: int) -> list[Row]:
    """Plies/s of the public verbs on ``rank`` containers of each game, and (chess) of the schemes' own decode."""
    sides: dict[str, Callable[[], None]] = {}
    plies: dict[str, int] = {}
    for game, games in held.items():
        texts = texts_of(game, games)
        blobs = [plybits.encode(game, "rank", start=s, moves=m).data for s, m in texts]
        plies[game] = sum(len(m) for _, m in texts)
        sides[f"{game} encode"] = each(lambda c, game=game: plybits.encode(game, "rank", start=c[0], moves=c[1]), texts)
        sides[f"{game} decode"] = each(plybits.decode, blobs)
    g = get_game("chess")
    rank = get_scheme("chess", "rank")
    x88 = get_scheme("chess", "0x88")
    internal = {"0x88": (x88, 0), **{f"rank{v}": (rank, v) for v in rank.readable_versions}}
    for key, (scheme, version) in internal.items():
        if scheme is rank:
            cases = [(s, rank.encode_version(g.position(s), m, version).tobytes(), len(m)) for s, m in held["chess"]]
        else:
            cases = [(s, scheme.encode(g.position(s), m).tobytes(), len(m)) for s, m in held["chess"]]
        sides[f"chess {key}"] = each(lambda c, scheme=scheme, version=version: scheme.decode(g.position(c[0]), c[1], c[2], version), cases)
    t = alternate(sides, repeats)
    rows = []
    for game in held:
        rows.append(rates_row(f"{game}: `plybits.encode(\"{game}\", \"rank\", moves=…)`", "plies/s", plies[game], t[f"{game} encode"]))
        rows.append(rates_row(f"{game}: `plybits.decode(data)` of the rank container", "plies/s", plies[game], t[f"{game} decode"]))
    labels = {"0x88": "0x88", **{f"rank{v}": f"rank, model {v}" + (" (uniform)" if v == 0 else "") for v in rank.readable_versions}}
    for key, label in labels.items():
        rows.append(rates_row(f"scheme-internal, chess: {label} decode (`Scheme.decode`, every ply checked legal)",
                              "plies/s", plies["chess"], t[f"chess {key}"]))
    return rows


def entropy_rows(n_games: int) -> tuple[float, float, float, int]:
    """(rank bits, e13 bits, information content, plies) over random Entropy games."""
    from plybits.entropy import Position as Board
    from plybits.entropy import Turn

    rng = random.Random(2026)
    rank = get_scheme("entropy", "rank")
    e13 = get_scheme("entropy", "e13")
    bits = seed = info = 0.0
    plies = 0
    for _ in range(n_games):
        board = Board()
        turns = []
        while not board.finished:
            chips = [c for c, n in enumerate(board.bag) for _ in range(n)]
            colour = rng.choice(chips)
            empty = board.empty()
            cell = rng.choice(empty)
            options = [cell] + board.targets(cell)
            info += math.log2(len(chips) / board.bag[colour]) + math.log2(len(empty)) + math.log2(len(options))
            turn = Turn(colour, cell, rng.choice(options))
            turns.append(turn)
            board.push(turn)
        plies += len(turns)
        bits += len(rank.encode(Board(), turns))
        seed += len(e13.encode(Board(), turns))
    return bits, seed, info, plies


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv, __doc__, "rank", 5, [
        ("--share", 2, "measure the size on every K-th held-out game"),
        ("--speed-games", 100, "held-out games of each game for the speed rows"),
    ], {"share": 40, "speed_games": 3, "repeats": 2})
    started = time.perf_counter()
    lines = [
        "Bits per ply on HELD-OUT real games (never trained on; splits in docs/rank.md), "
        f"{'every game' if args.share == 1 else f'one game in {args.share}'} of the split. "
        "`rank` is the container's payload (range coder finish included); uniform is the exact "
        "sum of log2(legal moves); lichess-style is our re-implementation of lichess's move ordering with "
        "their fixed Huffman table.",
        "",
    ]
    games_measured = ("chess", "xiangqi", "abalone")
    versions = {game: get_scheme(game, "rank").readable_versions for game in games_measured}
    top = max(max(v) for v in versions.values())
    lines += [
        "| game | held-out split | games | plies | seed scheme | uniform log2(n) | lichess-style | "
        + " | ".join(f"rank model {v}" for v in range(top + 1)) + " | target |",
        "|---" * (9 + top) + "|",
    ]
    targets = {"chess": "<= 3.3", "xiangqi": "<= 3.7", "abalone": "<= 3.4"}
    seeds = {"chess": "0x88", "xiangqi": "xq10", "abalone": "abapro"}
    held: dict[str, list[Any]] = {}
    for game in games_measured:
        for split_name, every in held_out_splits(game):
            games = every[:: args.share]
            held.setdefault(game, every[: args.speed_games])
            r = measure(game, seeds[game], games)
            n = r["plies"]
            lichess = f"{r['lichess'] / n:.3f}" if game == "chess" else "-"
            newest = versions[game][-1]
            cells = [("**{:.3f}**" if v == newest else "{:.3f}").format(r[f"rank{v}"] / n) if v in versions[game] else "-"
                     for v in range(top + 1)]
            lines.append(
                f"| {game} | {split_name} | {len(games)} | {n} | {seeds[game]} {r['seed'] / n:.2f} | "
                f"{r['uniform'] / n:.3f} | {lichess} | " + " | ".join(cells) + f" | {targets[game]} |"
            )
            print(f"{game} {split_name}: {r['time']:.0f}s", file=sys.stderr)
    bits, seed, info, plies = entropy_rows(20 if args.quick else 200)
    lines += [
        "",
        f"Entropy (no real games exist: {20 if args.quick else 200} random two-round games, draws from the bag and "
        f"uniform choices): rank {bits / plies:.3f} bits/ply, e13 {seed / plies:.1f}, information content "
        f"{info / plies:.3f}; rank is {100 * (bits / info - 1):.2f} % above the information content (target: within 2 %).",
        "",
        "lichess-style: the issue quotes about 4.3 bits/ply for lichess's scheme on these collections; our "
        "re-implementation (bench/rank.py: their move ordering and PSQT, their Huffman code lengths) measures the "
        "figure above on the held-out file.",
        "",
        f"Speed on the first {args.speed_games} held-out games of each game (no peer: there is no other "
        f"implementation of this scheme; timing: {POLICY}; the load average of each run is given with its command):",
    ]
    rows = speed(held, args.repeats)
    context = (f"Python {platform.python_version()}; load average {load_average():.1f} at the end; whole run "
               f"{time.perf_counter() - started:.0f} s")
    report("rank", args, rows, heading="## The `rank` scheme", context=context, peer=None, before=lines,
           command_line=command("rank", args, f"--share {args.share} --speed-games {args.speed_games}"))


if __name__ == "__main__":
    main()
