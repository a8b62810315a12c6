"""Bytes a game of an archive's opening column (``first_moves``) in each form measured: plies kept, SAN or UCI,
Parquet dictionary / plain / delta-prefix encoding and zstd level, on the shared lichess clock files (one Parquet
file a source file, the column alone, the archive's order; the column chunk's compressed bytes).

    .venv/bin/python -m bench.opening_column
"""

from __future__ import annotations

import collections
import io
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from bench.archive_size import FILES, SHARED
from plybits import records
from plybits.game import notation_of
from plybits.registry import get_game

PLIES = (4, 6, 8, 10)
ENCODINGS: dict[str, dict[str, Any]] = {
    "dictionary": {"use_dictionary": True},
    "plain": {"use_dictionary": False},
    "delta-prefix": {"use_dictionary": False, "column_encoding": {"first_moves": "DELTA_BYTE_ARRAY"}},
}
LEVELS = (3, 9, 19, 22)


def openings(path: Path, plies: int, named: dict[str, list[list[str]]]) -> dict[str, list[str]]:
    """The first ``plies`` of every game of ``path`` in SAN and in UCI, space-separated; each game's SAN moves added
    to ``named`` under its ``Opening`` tag."""
    out: dict[str, list[str]] = {"san": [], "uci": []}
    for text in get_game("chess").split_records(path.read_text(encoding="utf-8")):
        replay = records.read_record("chess", record=text)
        named.setdefault(replay.tags.get("Opening", "?"), []).append(
            records.decode(records.encode("chess", "0x88", record=text, fidelity="moves").data).moves)
        position = replay.start_position.copy()
        write = notation_of(position).move_text
        san, uci = [], []
        for move in replay.moves[:plies]:
            san.append(write(position, move, None))
            uci.append(write(position, move, "uci"))
            position.push(move)
        out["san"].append(" ".join(san))
        out["uci"].append(" ".join(uci))
    return out


def column_bytes(values: list[str], encoding: dict[str, Any], level: int) -> int:
    """The compressed bytes of a Parquet column chunk of ``values`` (one row group, page CRCs as the archive)."""
    sink = io.BytesIO()
    pq.write_table(pa.table({"first_moves": pa.array(values, pa.string())}), sink, compression="zstd",
                   compression_level=level, write_page_checksum=True, write_statistics=False, store_schema=False,
                   **encoding)
    meta = pq.ParquetFile(io.BytesIO(sink.getvalue())).metadata
    return sum(meta.row_group(g).column(0).total_compressed_size for g in range(meta.num_row_groups))


def opening_depths(named: dict[str, list[list[str]]]) -> list[int]:
    """For each game whose ``Opening`` tag (lichess's: the deepest named line its moves reach) another game shares,
    the length of the longest move prefix that most (over half) of that opening's games begin with: how many plies
    a question "games of this opening by its moves" asks, transpositions aside."""
    depths = []
    for games in named.values():
        if len(games) < 2:
            continue
        depth = 0
        while (common := collections.Counter(tuple(g[:depth + 1]) for g in games if len(g) > depth).most_common(1)) \
                and common[0][1] * 2 > len(games):
            depth += 1
        depths += [depth] * len(games)
    return sorted(depths)


def main() -> None:
    paths = [SHARED / name for name in FILES]
    named: dict[str, list[list[str]]] = {}
    longest = {path: openings(path, max(PLIES), named) for path in paths}
    depths = opening_depths(named)
    games = sum(len(forms["san"]) for forms in longest.values())
    share = {n: sum(d <= n for d in depths) / len(depths) for n in PLIES}
    quantiles = ", ".join(f"p{q} {depths[len(depths) * q // 100]}" for q in (50, 75, 90, 95, 99))
    within = ", ".join(f"{n}: {v:.1%}" for n, v in share.items())
    print(f"plies of the line most games of a lichess Opening tag share ({len(depths)} games in openings of 2 or "
          f"more): {quantiles}; the share of games within {within}")
    print(f"{games} games of {', '.join(FILES)}; bytes a game of the opening column")
    print(f"| plies | notation | {' | '.join(f'{e} zstd-{lv}' for e in ENCODINGS for lv in LEVELS)} |")
    print("|---|---|" + "---|" * len(ENCODINGS) * len(LEVELS))
    for plies in PLIES:
        for notation in ("san", "uci"):
            cells = []
            for encoding in ENCODINGS.values():
                for level in LEVELS:
                    size = sum(column_bytes([" ".join(v.split(" ")[:plies]) for v in forms[notation]], encoding, level)
                               for forms in longest.values())
                    cells.append(f"{size / games:.2f}")
            print(f"| {plies} | {notation} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
