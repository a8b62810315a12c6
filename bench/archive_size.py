"""Bytes a game of ``plybits dataset encode`` (its defaults: ``rank``, full fidelity) on the shared lichess clock
files, beside ``zstd -19`` of the same PGN, and where the bytes go (moves, clocks, evaluations, tags, ...); clocks and
evaluations also measured as Parquet list columns (Aix's form) against the record section's coding.

    .venv/bin/python -m bench.archive_size [--write]
"""

from __future__ import annotations

import argparse
import collections
import io
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

from bench.dataset import ROOT, publish, whole_run
from plybits.compiled import compiled_modules

SHARED = ROOT.parent / "shared" / "data" / "chess" / "clocks"
FILES = ("lichess_db_standard_rated_2021-10_first999.pgn", "lichess_pnmadelaine_2024-03-30.pgn")
AIX_BYTES_A_GAME = 11.27e9 / 95e6
"""The Aix lichess database: one month (2024-xx) as Parquet with zstd -19, 11.27 GB for about 95 million games."""
_CLOCK = re.compile(r"\[%clk ([0-9]+):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?\]")
_EVAL = re.compile(r"\[%eval ([^\]]+)\]")
BOOKKEEPING = ("source", "number", "offset", "error")


def encode(out: Path, workers: int) -> dict[str, Any]:
    """``plybits dataset encode`` of the two files with its defaults; the dataset's info."""
    from app import dataset

    opts = dataset.Options([str(SHARED / name) for name in FILES], str(out), "chess", dataset.default_scheme("chess"),
                           workers=workers)
    dataset.encode_dataset(opts)
    return dataset.info(str(out))


def column_bytes(out: Path) -> tuple[collections.Counter[str], int, int]:
    """Compressed bytes of each column over the dataset's files, all files' bytes, and the rows."""
    sizes: collections.Counter[str] = collections.Counter()
    total = rows = 0
    for path in sorted(out.glob("*.parquet")):
        meta = pq.ParquetFile(path).metadata
        total += path.stat().st_size
        rows += meta.num_rows
        for group in range(meta.num_row_groups):
            for index in range(meta.row_group(group).num_columns):
                chunk = meta.row_group(group).column(index)
                sizes[chunk.path_in_schema] += chunk.total_compressed_size
    return sizes, total, rows


def body_split(out: Path) -> tuple[dict[str, float], list[list[int | None]], list[list[str | None]]]:
    """Bytes of the bodies by what they code (payload = moves; the record section by topic; heads and lengths),
    and every game's clocks (centiseconds) and evaluations, for the list-column comparison."""
    from plybits import archive
    from plybits.recordsection import section_costs

    split: collections.Counter[str] = collections.Counter()
    clocks: list[list[int | None]] = []
    evals: list[list[str | None]] = []
    for path in sorted(out.glob("*.parquet")):
        table = archive.read_file(str(path))
        meta = archive.Meta.from_schema(table.schema)
        for row in table.to_pylist():
            game = archive.game_of(row, meta)
            body = game.body
            split["moves"] += len(body.payload)
            held = archive.column_tags(row, meta)
            section_tags = {k: v for k, v in game.tags.items() if k not in held}
            section, costs = section_costs(meta.coder(), game.start, game.moves, game.notes, section_tags,
                                        version=meta.section_version, context=held)
            assert section == body.section, "the section is not what the coder writes"
            coded = len(section) - 1
            bits = sum(costs.values()) or 1.0
            for topic, spent in costs.items():
                split["clock" if topic == "clock" else "eval" if topic == "eval" else
                      "tags (in the section)" if topic == "tags" else "other notes"] += coded * spent / bits
            split["head and lengths"] += len(row["body"]) - len(body.payload) - coded
            texts = [" ".join(c.text for c in step.comments) for step in game.notes.steps]
            clocks.append([_centiseconds(t) for t in texts])
            evals.append([m[1] if (m := _EVAL.search(t)) else None for t in texts])
    return dict(split), clocks, evals


def _centiseconds(text: str) -> int | None:
    match = _CLOCK.search(text)
    if match is None:
        return None
    h, m, s, f = match.groups()
    return ((int(h) * 60 + int(m)) * 60 + int(s)) * 100 + (int((f or "0").ljust(2, "0")[:2]))


def list_column_bytes(clocks: list[list[int | None]], evals: list[list[str | None]]) -> tuple[int, int]:
    """Bytes of the clocks and evaluations as Aix stores them: list columns, Parquet zstd -19."""
    out = []
    for name, values, kind in (("clocks", clocks, pa.list_(pa.int32())), ("evals", evals, pa.list_(pa.string()))):
        buffer = io.BytesIO()
        pq.write_table(pa.table({name: pa.array(values, kind)}), buffer, compression="zstd", compression_level=19)
        out.append(buffer.tell())
    return out[0], out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--write", action="store_true", help="put the results in BENCHMARKS.md")
    args = parser.parse_args()
    began, load_before = time.monotonic(), os.getloadavg()
    pgn = b"".join((SHARED / name).read_bytes() for name in FILES)
    zstd = sum(len(zstandard.ZstdCompressor(level=19).compress((SHARED / name).read_bytes())) for name in FILES)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        summary = encode(out, args.workers)
        columns, total, rows = column_bytes(out)
        split, clocks, evals = body_split(out)
    games = summary["games"]
    clock_list, eval_list = list_column_bytes(clocks, evals)
    tag_columns = sum(v for k, v in columns.items() if k not in ("body", *BOOKKEEPING))
    body = columns["body"]
    raw_body = sum(split.values())
    per = {k: body * v / raw_body / games for k, v in split.items()}  # the body's compressed bytes, shared out
    lines = [
        "## The archive's size (`plybits dataset encode`, its defaults)",
        "",
        f"Command: `.venv/bin/python -m bench.archive_size` — the shared lichess clock files "
        f"({', '.join(FILES)}: {games:,} games, {len(pgn):,} bytes of PGN), `plybits dataset encode` with its "
        f"defaults (`{summary['scheme']}`, fidelity `{summary['fidelity']}`), {args.workers} workers, "
        f"{'compiled' if compiled_modules() else 'pure-Python'} build (the bytes do not depend on it).",
        "",
        "| form | bytes | bytes a game |",
        "|---|---:|---:|",
        f"| PGN | {len(pgn):,} | {len(pgn) / games:.1f} |",
        f"| `zstd -19` of each file | {zstd:,} | {zstd / games:.1f} |",
        f"| **plybits dataset** (every Parquet file, footers included) | {total:,} | **{total / games:.1f}** |",
        f"| Aix (lichess's month as Parquet, zstd -19; 11.27 GB for ~95 M games, a different month) | | "
        f"~{AIX_BYTES_A_GAME:.0f} |",
        "",
        "Where a game's bytes go (the `body` column's compressed bytes shared out by what its raw bytes code):",
        "",
        "| part | bytes a game |",
        "|---|---:|",
        f"| moves (the `rank` payload) | {per.get('moves', 0):.1f} |",
        f"| clocks (`[%clk]`, in the record section) | {per.get('clock', 0):.1f} |",
        f"| evaluations (`[%eval]`, in the record section) | {per.get('eval', 0):.1f} |",
        f"| other notes (NAGs, comment structure, result token) | {per.get('other notes', 0):.1f} |",
        f"| tags: typed columns and `tag_order` | {tag_columns / games:.1f} |",
        f"| tags left in the record section | {per.get('tags (in the section)', 0):.1f} |",
        f"| body heads and lengths | {per.get('head and lengths', 0):.1f} |",
        f"| source, number, offset, error | {sum(columns[k] for k in BOOKKEEPING) / games:.1f} |",
        f"| Parquet footers and page headers | {(total - sum(columns.values())) / games:.1f} |",
        "",
        "Typed columns: " + ", ".join(f"`{k}` {v / games:.2f}" for k, v in columns.most_common()
                                     if k not in ("body", *BOOKKEEPING)) + ".",
        "",
        f"Clocks and evaluations as list columns instead (Aix's form: `list<int32>` centiseconds and `list<string>`, "
        f"Parquet zstd -19, measured on the same games): clocks {clock_list / games:.1f} B a game against "
        f"{per.get('clock', 0):.1f} in the record section, evaluations {eval_list / games:.1f} against "
        f"{per.get('eval', 0):.1f}: the record section keeps them.",
        "",
        whole_run(began, load_before, os.getloadavg()),
    ]
    publish("archive-size", lines, args.write)


if __name__ == "__main__":
    main()
