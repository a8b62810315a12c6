"""Benchmark of SQL over an archive (issue 26, ``plybits.sql``): a ``reaches`` scan in plies/s a worker core against
the ``rank`` decode verb on the same games, on 1 and 2 Dask workers; an opening-prefix query over a million rows
from the ``first_moves`` column alone.

    .venv/bin/python -m bench.sql [--copies 4] [--rounds 3] [--write]

The archive is the shared lichess clock files (3,109 games with clocks and evaluations) as ``plybits.archive`` rows
(``rank``, full fidelity), in part files of 800 games; the scans read ``--copies`` copies of those files
(the same bytes, listed again), so a scan lasts long enough to time; the opening-prefix query a file of the games
repeated, listed until it reaches ``--rows``. The ``reaches`` target is a position no game
reaches, so every ply of every game is replayed (the worst case: a scan stops at the first match).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.dataset import ROOT, publish, whole_run

SHARED = ROOT.parent / "shared" / "data" / "chess" / "clocks"
FILES = ("lichess_db_standard_rated_2021-10_first999.pgn", "lichess_pnmadelaine_2024-03-30.pgn")
NOWHERE = "8/8/8/8/8/8/8/k6K w - - 0 1"
"""A position no game of the files reaches: a ``reaches`` scan replays every ply."""
PART_ROWS = 800
QUESTIONS = {
    "san": "select count(*) from games where san(body)[1:3] = ['e4', 'c5', 'Nf3']",
    "fen_at": "select count(distinct fen_at(body, 20)) from games",
    "matches_subfen": "select count(*) from games where matches_subfen(body, '8/8/8/4p3/4P3/8/8/8')",
    "clocks": "select count(*) from games where list_min(clocks(games)) < 1000",
    "to_pgn": "select sum(length(to_pgn(games))) from games",
}
"""Questions that decode (the same one by the ``first_moves`` column is the opening-prefix query)."""
WIDE = 10
"""Copies of the games in the one file of the opening-prefix query (31,090 rows: a part file of a real archive,
32 MB of PGN, holds about 15,000 games)."""


def build(out: Path) -> tuple[list[bytes], int]:
    """The lichess files as an archive in ``out`` (part files of :data:`PART_ROWS` rows); the moves-only ``rank``
    containers of the same games (for the decode verb) and the number of plies."""
    from plybits import archive
    from plybits import records as verbs
    from plybits.registry import get_game

    meta = archive.Meta.of("chess", "rank")
    rows: list[dict[str, Any]] = []
    containers = []
    for name in FILES:
        for number, record in enumerate(get_game("chess").split_records((SHARED / name).read_text("utf-8")), 1):
            rows.append({"source": name, "number": number, "offset": 0, **archive.row_of(meta, record=record),
                         "error": None})
            containers.append(verbs.encode("chess", "rank", record=record, fidelity="moves").data)
    out.mkdir()
    for k in range(0, len(rows), PART_ROWS):
        name = f"part-0000-{k // PART_ROWS:06d}.parquet"
        archive.write_file(archive.table(rows[k:k + PART_ROWS], meta), str(out / name))
    archive.write_file(archive.table(rows * WIDE, meta), str(out.parent / "wide.parquet"))
    return containers, sum(archive.ply_count(r["body"]) for r in rows)


def timed(run: Callable[[], Any], rounds: int, clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Seconds of ``clock`` (wall by default) of each of ``rounds`` runs."""
    times = []
    for _ in range(rounds):
        began = clock()
        run()
        times.append(clock() - began)
    return times


def spread(values: list[float], scale: float = 1.0) -> str:
    """``median (min-max)`` of ``scale / value`` (a rate from seconds)."""
    rates = sorted(scale / v for v in values)
    return f"{statistics.median(rates):,.0f} ({rates[0]:,.0f}-{rates[-1]:,.0f})"


def cluster_scans(files: list[str], plies: int, rounds: int) -> dict[int, tuple[list[float], list[float]]]:
    """For 1 and 2 local workers: the wall seconds of each ``reaches`` scan and the workers' CPU seconds in it."""
    from dask.distributed import Client, LocalCluster

    from app import query

    sql = f"select count(*) as n from games where reaches(body, '{NOWHERE}')"
    out: dict[int, tuple[list[float], list[float]]] = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                          scheduler_kwargs={"dashboard_address": ":0"}) as c, \
                Client(c) as client:
            client.wait_for_workers(workers)
            list(query._in_order(client, query.query_part, files[:workers], sql))  # warm: imports, first connect
            walls, cpus = [], []
            for _ in range(rounds):
                before = sum(client.run(time.process_time).values())
                began = time.perf_counter()
                counts = [t.column("n")[0].as_py() for t in query._in_order(client, query.query_part, files, sql)]
                walls.append(time.perf_counter() - began)
                cpus.append(sum(client.run(time.process_time).values()) - before)
                assert sum(counts) == 0
            out[workers] = walls, cpus
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=4, help="times the part files are listed in a scan")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the opening-prefix query (at least)")
    parser.add_argument("--write", action="store_true", help="put the results in BENCHMARKS.md")
    args = parser.parse_args()
    import plybits
    from plybits import sql

    began, load_before = time.monotonic(), os.getloadavg()
    folder = Path(tempfile.mkdtemp(prefix="bench-sql-"))
    try:
        containers, plies = build(folder / "archive")
        parts = sql.part_files(str(folder / "archive"))
        files = parts * args.copies
        verb: list[float] = []
        local: list[float] = []
        for _ in range(args.rounds):  # alternated: the decode verb, then the scan in this process
            verb += timed(lambda: [plybits.decode(c) for c in containers], 1, time.process_time)
            local += timed(lambda: sql.query(parts, f"select count(*) from games where reaches(body, '{NOWHERE}')"), 1,
                           time.process_time)
        scans = cluster_scans(files, plies, args.rounds)
        copies = -(-args.rows // (len(containers) * WIDE))
        wide = sql.connect([str(folder / "wide.parquet")] * copies)
        rows = wide.execute("select count(*) from games").fetchall()[0][0]
        prefix = "select count(*) from games where starts_with_moves(first_moves, 'e4 c5 Nf3')"
        found = wide.execute(prefix).fetchall()[0][0]
        opening = timed(lambda: wide.execute(prefix).fetchall(), args.rounds + 2)
        costs = {name: timed(lambda q=q: sql.query(parts, q), args.rounds, time.process_time)
                 for name, q in QUESTIONS.items()}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    scan_plies = plies * args.copies
    one_wall, one_cpu = scans[1]
    two_wall, two_cpu = scans[2]
    verb_rate = statistics.median(plies / v for v in verb)
    per_core = statistics.median(scan_plies / c for c in one_cpu)
    speedup = statistics.median(one_wall) / statistics.median(two_wall)
    cpu_speedup = 2 * statistics.median(scan_plies / c for c in two_cpu) / per_core
    lines = [
        "## SQL over an archive (`plybits.sql`, `plybits dataset query`)",
        "",
        f"Command: `.venv/bin/python -m bench.sql --copies {args.copies} --rounds {args.rounds} --write` (compiled "
        f"core: {len(plybits.compiled.compiled_modules())} modules). The archive: the shared lichess clock files, "
        f"{len(containers):,} games and {plies:,} plies, `rank`, full fidelity, {len(parts)} part files; scans over "
        f"{args.copies} copies of them ({scan_plies:,} plies). Rates are median (min-max) over {args.rounds} rounds.",
        "",
        "| what | plies/s |",
        "|---|---|",
        f"| `rank` decode verb: `plybits.decode` of the same games' moves-only containers, per CPU second | "
        f"{spread(verb, plies)} |",
        "| `reaches` scan (no game reaches it: every ply replayed), this process, DuckDB over the part files, "
        f"per CPU second | "
        f"{spread(local, plies)} |",
        f"| `reaches` scan on 1 Dask worker, wall | {spread(one_wall, scan_plies)} |",
        f"| `reaches` scan on 1 Dask worker, per worker CPU second | {spread(one_cpu, scan_plies)} |",
        f"| `reaches` scan on 2 Dask workers, wall | {spread(two_wall, scan_plies)} |",
        f"| `reaches` scan on 2 Dask workers, per worker CPU second | {spread(two_cpu, scan_plies)} |",
        "",
        f"A worker core scans at **{per_core / verb_rate:.2f}x** the decode verb's plies/s (target >= 0.8x); 2 workers "
        f"scan **{speedup:.2f}x** as fast as 1, wall clock (target >= 1.8x; the machine has {os.cpu_count()} cores, "
        "shared with the other work, which the load below shows); from the workers' CPU seconds (two workers each at "
        f"their per-CPU-second rate, against one), **{cpu_speedup:.2f}x**: the client only gathers the parts' rows.",
        "",
        f"Opening prefix from the `first_moves` column alone: `{prefix}` over {rows:,} rows (a file of the games "
        f"{WIDE} times, listed {copies} times; {found:,} match): {spread(opening, 1) } queries/s, median "
        f"{statistics.median(opening) * 1000:.0f} ms (target <= 1 s).",
        "",
        f"What a question that decodes costs, in this process over the {len(containers):,} games, per CPU second:",
        "",
        "| question | games/s |",
        "|---|---|",
        *[f"| `{QUESTIONS[name]}` | {spread(costs[name], len(containers))} |" for name in QUESTIONS],
        "",
        whole_run(began, load_before, os.getloadavg()),
    ]
    publish("sql", lines, args.write)


if __name__ == "__main__":
    main()
