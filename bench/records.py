"""Lossless records: the size of full-fidelity containers (tags, clocks, evals, NAGs, comments, variations)
against the record file compressed with ``zstd -19`` and ``xz -9e``, per shared file, in one run.

Run: ``.venv/bin/python -m bench.records [--games N] [--write]``; prints a markdown section (``--write`` also
puts it into BENCHMARKS.md between the records markers).

Each game of each file becomes its own container, as ``plybits.encode`` makes it with the game's ``rank``
scheme: at fidelity ``full`` (the mainline payload plus the record section, ``plybits.recordsection``, holding
the tags and notes) and at fidelity ``moves`` (the payload and the tags). Every full container is decoded to
its record and encoded again: the same bytes, or the run stops (the round trip is part of the run). Where the
section's bits go comes from ``plybits.recordsection.section_costs`` on the game the project's reader read.
The compressors get the whole file at once (a far easier task than one game at a time).
"""

from __future__ import annotations

import argparse
import lzma
import platform
import sys
import time
from collections import Counter
from dataclasses import dataclass

import zstandard

import plybits
from plybits import records
from plybits.recordsection import SECTION_VERSION, TOPICS, section_costs
from plybits.registry import get_game, get_scheme

from bench.report import ROOT, add_write_option, publish

DATA = ROOT.parent / "shared" / "data"
FILES = (
    ("chess", "chess/chesscom/chesscom_pnmadelaine_2021-11_to_2024-03.pgn"),
    ("chess", "chess/chesscom/chesscom_kyle_b81_2021.pgn"),
    ("chess", "chess/clocks/lichess_db_standard_rated_2021-10_first999.pgn"),
    ("chess", "chess/clocks/lichess_pnmadelaine_2024-03-30.pgn"),
    ("chess", "chess/twic0920.pgn"),
    ("chess", "chess/carlsen_otb.pgn"),
    ("xiangqi", "xiangqi/Hu_Ronghua_1391_UCI_games.pgn"),
    ("abalone", "abalone/migs-2016-2017.train.apgn"),
)
"""(game, file under ../shared/data) of every shared file of records."""
SPLIT = (("moves", ()), ("clocks", ("clock",)), ("tags", ("tags",)),
         ("comments", ("comment", "eval", "nag", "variation", "structure")))
"""The split of a full container's bits: its payload, then the section's topics grouped."""


@dataclass
class Sizes:
    """One file's sizes in bytes, and the full containers' bits by :data:`SPLIT`."""

    games: int
    raw: int
    zstd: int
    xz: int
    full: int
    moves: int
    larger: int
    """Games whose moves-only container is larger than their full one."""
    bits: Counter[str]


def measure(game_name: str, path: str, limit: int | None) -> Sizes:
    """One file's sizes: PGN, zstd, xz, the full and moves containers, the bits by :data:`SPLIT`."""
    raw = (DATA / path).read_bytes()
    texts = list(get_game(game_name).split_records(raw.decode("utf-8-sig")))[:limit]
    if limit:
        raw = "".join(texts).encode()
    scheme = get_scheme(game_name, "rank")
    full = moves = larger = 0
    bits: Counter[str] = Counter()
    for text in texts:
        encoded = plybits.encode(game_name, "rank", record=text)
        decoded = plybits.decode(encoded.data, format="record")
        assert decoded.record is not None
        if plybits.encode(game_name, "rank", record=decoded.record).data != encoded.data:
            raise AssertionError(f"{path}: a record does not come back the same: {text[:200]!r}")
        moves_only = len(plybits.encode(game_name, "rank", record=text, fidelity="moves").data)
        full += len(encoded.data)
        moves += moves_only
        larger += moves_only > len(encoded.data)
        replay = records.read_record(game_name, record=text, variations=True)
        assert replay.notes is not None
        _, costs = section_costs(scheme, replay.start_position, replay.moves, replay.notes, replay.tags)
        bits.update(costs)
        bits["moves"] += encoded.payload_bits
    return Sizes(len(texts), len(raw), len(zstandard.ZstdCompressor(level=19).compress(raw)),
                 len(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME)), full, moves, larger, bits)


def run(limit: int | None) -> str:
    rows = []
    t0 = time.perf_counter()
    for game_name, path in FILES:
        rows.append((path, measure(game_name, path, limit)))
        print(f"{path}: {rows[-1][1].full:,} bytes ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    elapsed = time.perf_counter() - t0
    out = [
        "## Lossless records: full-fidelity containers vs zstd and xz",
        "",
        f"`python -m bench.records{' --games ' + str(limit) if limit else ''}` (Python {platform.python_version()},"
        f" {elapsed:.0f} s for the whole run, round trips included). One `rank` container per game (record section"
        f" version {SECTION_VERSION}), at fidelity `full` and `moves`; the compressors get each whole file.",
        "",
        "| file | games | bytes | zstd -19 | xz -9e | full | full vs zstd | full B/game | moves | moves > full |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for path, r in rows:
        out.append(f"| {path} | {r.games:,} | {r.raw:,} | {r.zstd:,} | {r.xz:,} | {r.full:,} | {r.full / r.zstd:.1%} |"
                   f" {r.full / max(r.games, 1):.1f} | {r.moves:,} | {r.larger:,} |")
    out += ["", "*full*: every record exactly (tags, comments, clocks, NAGs, variations, result token); *moves*: the"
            " moves and the tags; *moves > full*: games whose moves-only container is the larger.", "",
            "Where a full container's bits go (bits per game):", "",
            "| file | " + " | ".join(name for name, _ in SPLIT) + " |", "|---|" + "---:|" * len(SPLIT)]
    for path, r in rows:
        out.append(f"| {path} | " + " | ".join(
            f"{(r.bits['moves'] if not topics else sum(r.bits[t] for t in topics)) / max(r.games, 1):.0f}"
            for _, topics in SPLIT) + " |")
    assert set(TOPICS) == {t for _, topics in SPLIT for t in topics}
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None, help="only the first N games of each file")
    add_write_option(parser, "records")
    args = parser.parse_args(argv)
    publish("records", run(args.games), args.write)


if __name__ == "__main__":
    sys.exit(main())
