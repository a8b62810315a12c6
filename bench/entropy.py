"""New Entropy: e13 speed and size on random two-round games, against their information content.

Run: ``.venv/bin/python -m bench.entropy [--games N] [--seed S] [--repeats R] [--quick] [--label pure|compiled]
[--write]``; prints a markdown section (``--write`` also stores the run in bench/results/entropy.json and puts
the section into BENCHMARKS.md between the entropy markers). Timing loop: bench.timing's.

There is no peer library for New Entropy (no Python package plays it), so the side-by-side columns are
the game's own text record (the turn tokens, plain and zlib/lzma-compressed) and the information content
of the games. Games are random: each turn's colour is drawn from the bag, the cell is chosen uniformly
among the empty cells, and the option uniformly among "left in place" and the reachable cells. The
information content of a turn is then exactly

    log2(N / n_c) + log2(E) + log2(1 + S)

with n_c the chips of the drawn colour left in the bag out of N, E the empty cells and S the cells the
placed chip can slide to: the code length of the turn under the model that generated it, i.e. the
fewest bits any code can spend on such games on average.
"""

from __future__ import annotations

import lzma
import math
import random
import sys
import zlib

import plybits
from plybits.entropy import E13, Position, Turn
from plybits.entropy.board import COLOURS

from bench.report import load_average
from bench.timing import POLICY, Row, alternate, arguments, command, each, rates_row, report



def random_game(rng: random.Random) -> tuple[list[Turn], float]:
    """A random two-round game and its information content in bits."""
    board = Position()
    turns: list[Turn] = []
    info = 0.0
    while not board.finished:
        bag = board.bag
        chips = [c for c, n in enumerate(bag) for _ in range(n)]
        colour = rng.choice(chips)
        empty = board.empty()
        cell = rng.choice(empty)
        options = [cell] + board.targets(cell)
        to = rng.choice(options)
        info += math.log2(len(chips) / bag[colour]) + math.log2(len(empty)) + math.log2(len(options))
        turn = Turn(colour, cell, to)
        turns.append(turn)
        board.push(turn)
    return turns, info


def measure(games: int, seed: int, repeats: int) -> tuple[list[str], list[Row], str]:
    rng = random.Random(seed)
    played = [random_game(rng) for _ in range(games)]
    turns = sum(len(t) for t, _ in played)
    scheme = E13
    payloads = [scheme.encode(Position(), t).tobytes() for t, _ in played]
    for (t, _), payload in zip(played, payloads):  # the benchmark is also a round trip
        assert scheme.decode(Position(), payload, len(t), 0) == t
    texts = [" ".join(turn.token() for turn in t) for t, _ in played]

    sub = played[: max(1, games // 4)]
    sub_turns = sum(len(t) for t, _ in sub)
    sub_texts = texts[: len(sub)]
    blobs = [plybits.encode("entropy", "e13", moves=text.split()).data for text in sub_texts]
    t = alternate({
        "encode verb": each(lambda x: plybits.encode("entropy", "e13", moves=x.split()), sub_texts),
        "decode verb": each(plybits.decode, blobs),
        "encode": each(lambda p: scheme.encode(Position(), p[0]), played),
        "decode": each(lambda c: scheme.decode(Position(), c[1], len(c[0][0]), 0), list(zip(played, payloads))),
        "legal": each(lambda _: Position().legal_moves(), range(200)),
    }, repeats)
    rows = [
        rates_row("`plybits.encode(\"entropy\", \"e13\", moves=…)` (parse tokens, check, e13, container)", "turns/s",
                  sub_turns, t["encode verb"]),
        rates_row("`plybits.decode(data)` (container, e13 with validation, tokens out)", "turns/s", sub_turns,
                  t["decode verb"]),
        rates_row("scheme-internal: e13 encode (payload bits only)", "turns/s", turns, t["encode"]),
        rates_row("scheme-internal: e13 decode with validation (every turn checked legal)", "turns/s", turns,
                  t["decode"]),
        rates_row("scheme-internal: `Board.legal_moves()` on the empty board (4,459 turns)", "turns/s", 200 * 4459,
                  t["legal"]),
    ]

    info_bits = sum(i for _, i in played)
    text_bytes = sum(len(x) + 1 for x in texts)  # a separator after every token
    joined = "\n".join(texts).encode()
    zlib_bytes = len(zlib.compress(joined, 9))
    lzma_bytes = len(lzma.compress(joined, preset=9 | lzma.PRESET_EXTREME))
    container_bytes = sum(len(b) for b in blobs) / len(blobs)
    info_per_turn = info_bits / turns

    def row(name: str, bits_per_turn: float, note: str) -> str:
        return f"| {name} | {bits_per_turn:.2f} | {bits_per_turn / info_per_turn:.2f}x | {note} |"

    size = [
        "There is **no peer library** for New Entropy (no Python package plays it), so there is no",
        "side-by-side timing against another implementation; size is compared with the",
        "game's own text record and with the information content of the very same games (the bound below which no",
        "code can go on average; definition in `bench/entropy.py` and `docs/entropy.md`).",
        "",
        "| size | bits/turn | vs. information | note |",
        "|---|---:|---:|---|",
        row("information content", info_per_turn, "log2(N/n_c) + log2(E) + log2(1+S), summed"),
        row("**e13**", 13.0, "fixed 13 bits; 98 turns = 160 bytes of payload"),
        row("tokens, plain text", 8 * text_bytes / turns, "`Rd4d7 ` etc., one byte a character"),
        row("tokens, zlib -9", 8 * zlib_bytes / turns, "all games in one stream (favours zlib)"),
        row("tokens, lzma -9e", 8 * lzma_bytes / turns, "all games in one stream (favours lzma)"),
        "",
        f"e13 spends {13.0 - info_per_turn:.2f} bits a turn above the information content "
        f"({13.0 / info_per_turn:.2f}x); a whole game's container is {container_bytes:.0f} bytes "
        "(header and CRC included).",
        "",
        f"Speed (timing: {POLICY}; the load average of each run is given with its command):",
    ]
    return size, rows, (f"{games} random two-round games, {turns} turns; Python {sys.version.split()[0]}; "
                        f"load average {load_average():.1f} at the end")


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv, __doc__, "entropy", 7, [
        ("--games", 400, None),
        ("--seed", 1, None),
    ], {"games": 8, "repeats": 2})
    size, rows, context = measure(args.games, args.seed, args.repeats)
    report("entropy", args, rows, heading="## Entropy", context=context, peer=None,
           command_line=command("entropy", args, f"--games {args.games} --seed {args.seed}"), before=size)


if __name__ == "__main__":
    main()
