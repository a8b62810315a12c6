"""Lossless records: the size of full-fidelity containers (tags, clocks, evals, NAGs, comments, variations)
against the PGN compressed with ``zstd -19`` and ``xz -9e``, per collection, in one run.

Run: ``.venv/bin/python -m bench.records [--games N] [--write]``; prints a markdown section (``--write`` also
puts it into BENCHMARKS.md between the records markers).

Each game of each collection becomes its own container, as ``plybits.encode`` makes it with ``chess/rank``:
the mainline payload plus the record section (``plybits.recordsection``) holding the game's tags and its
notes. The notes are read with python-chess (``node.comment``, ``node.nags``, ``node.variations``) and the
tags with ``plybits.pgntext.read`` (exactly as written); python-chess strips the white space around a
comment, which lichess writes as one space each side (``{ [%clk 0:01:00] }``), so the bench puts it back.
Every section is read back and compared with what was written (the round trip is part of the run).
The compressors get the whole file at once (a far easier task than one game at a time).
"""

from __future__ import annotations

import argparse
import io
import lzma
import platform
import sys
import time
from collections import Counter
from typing import Any

import chess
import chess.pgn
import zstandard

from plybits import container, pgntext
from plybits.annotations import Comment, Line, Notes, Step
from plybits.chess import GAME
from plybits.recordsection import read_section, section_costs
from plybits.registry import get_scheme

from bench.report import ROOT, add_write_option, publish

DATA = ROOT.parent / "shared" / "data" / "chess"
FILES = ("clocks/lichess_db_standard_rated_2021-10_first999.pgn", "clocks/lichess_pnmadelaine_2024-03-30.pgn",
         "twic0920.pgn", "carlsen_otb.pgn")


def _comment(text: str) -> list[Comment]:
    return [Comment(f" {text} ")] if text else []


def _line(position: Any, node: chess.pgn.ChildNode) -> tuple[list[Any], list[Step[Any]]]:
    """The moves and steps of the line starting at ``node`` (played from ``position``, a copy played forward)."""
    moves: list[Any] = []
    steps: list[Step[Any]] = []
    current: chess.pgn.ChildNode | None = node
    while current is not None:
        parent = current.parent
        step: Step[Any] = Step(nags=sorted(current.nags), comments=_comment(current.comment))
        for alternative in parent.variations[1:] if parent.variations[0] is current else []:
            branch = position.copy()
            line_moves, line_steps = _line(branch, alternative)
            step.variations.append(Line(moves=line_moves, steps=line_steps,
                                        comments=_comment(alternative.starting_comment)))
        move = position.parse_move(current.move.uci(), "uci")
        moves.append(move)
        steps.append(step)
        position.push(move)
        current = current.variations[0] if current.variations else None
    if all(step.is_empty() for step in steps):
        steps = []
    return moves, steps


def notes_of(text: str) -> tuple[Any, list[Any], Notes[Any], dict[str, str]]:
    """The start, mainline, notes and tags of one PGN game."""
    record = pgntext.read(text, kind="PGN")
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    start = GAME.position(record.tags.get("FEN"))
    notes: Notes[Any] = Notes(comments=_comment(game.comment), result=record.result)
    moves: list[Any] = []
    if game.variations:
        moves, notes.steps = _line(start.copy(), game.variations[0])
    return start, moves, notes, record.tags


def run(limit: int | None) -> str:
    scheme = get_scheme("chess", "rank")
    rows = []
    costs_all: dict[str, Counter[str]] = {}
    t0 = time.perf_counter()
    for name in FILES:
        raw = (DATA / name).read_bytes()
        texts = list(GAME.split_records(raw.decode("utf-8-sig")))[:limit]
        if limit:
            raw = "\n\n".join(texts).encode()
        total = plain = clocks = plies = 0
        costs: Counter[str] = Counter()
        for text in texts:
            start, moves, notes, tags = notes_of(text)
            section, section_bits = section_costs(scheme, start, moves, notes, tags)
            back = read_section(scheme, start, moves, section, max_plies=20_000)
            assert back == (notes, tags), f"round trip differs in {tags.get('Site')}"
            costs.update(section_bits)
            payload = scheme.encode(start.copy(), moves).tobytes()
            box = container.Container(scheme.codec_id, scheme.version, len(moves), payload,
                                      GAME.canonical_start(tags.get("FEN")), record=section)
            total += len(container.pack(box))
            box.record, box.tags = None, tags
            plain += len(container.pack(box))
            plies += len(moves)
            clocks += text.count("[%clk ")
        costs_all[name] = costs
        zstd = len(zstandard.ZstdCompressor(level=19).compress(raw))
        xz = len(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME))
        rows.append((name, len(texts), plies, clocks, len(raw), zstd, xz, plain, total))
        print(f"{name}: {len(texts)} games, {total:,} bytes ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    elapsed = time.perf_counter() - t0
    out = [
        "## Lossless records: full-fidelity containers vs zstd and xz",
        "",
        f"`python -m bench.records{' --games ' + str(limit) if limit else ''}` (Python {platform.python_version()},"
        f" {elapsed:.0f} s for the whole run, round trips included). One `chess/rank` container per game, tags and"
        " notes in its record section; the compressors get each whole file.",
        "",
        "| collection | games | plies | clocks | PGN bytes | zstd -19 | xz -9e | moves + plain tags | plybits full |"
        " full vs zstd | full B/game | bits/clock |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (name, games, plies, clocks, size, zstd, xz, plain, total) in rows:
        per_clock = f"{costs_all[name]['clock'] / clocks:.2f}" if clocks else "–"
        out.append(f"| {name} | {games:,} | {plies:,} | {clocks:,} | {size:,} | {zstd:,} | {xz:,} | {plain:,} |"
                   f" {total:,} | {total / zstd:.1%} | {total / max(games, 1):.1f} | {per_clock} |")
    out += ["", "*moves + plain tags*: the moves-only container with its tags as strings (no comments, clocks or NAGs);"
            " *plybits full*: the full-fidelity container (everything, exactly). *bits/clock*: what the record"
            " section spends on `[%clk]` values (prediction, precision and time spent).",
            "", "Where a section's bits go (bytes per game, by what they code):", "",
            "| collection | " + " | ".join(TOPICS) + " |", "|---|" + "---:|" * len(TOPICS)]
    for (name, games, *_rest) in rows:
        costs = costs_all[name]
        out.append(f"| {name} | " + " | ".join(f"{costs[t] / 8 / max(games, 1):.1f}" for t in TOPICS) + " |")
    return "\n".join(out)


TOPICS = ("tags", "clock", "eval", "comment", "nag", "variation", "structure")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None, help="only the first N games of each file")
    add_write_option(parser, "records")
    args = parser.parse_args(argv)
    publish("records", run(args.games), args.write)


if __name__ == "__main__":
    sys.exit(main())
