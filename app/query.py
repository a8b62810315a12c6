"""SQL over an archive from the shell, here or on a Dask cluster (:mod:`plybits.sql` does the work).

    plybits dataset query out/ "select game_id from games where reaches(body, '...')" [--format csv|json|parquet]
        [-o FILE] [--workers N | --scheduler ADDR] [--combine SQL]

Without ``--workers`` or ``--scheduler`` the query runs in this process, over every part file at once (what a
question answered from columns wants: DuckDB reads only the columns it names). With either, each part file is one
task on the cluster (the same options as ``dataset encode``): the query runs on a worker over that part alone, and
the parts' rows come back in game order; a query whose rows are not per game (a count, a group) is then finished by
``--combine``, run here over the concatenated rows as the table ``rows``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Iterator
from typing import IO, Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from app.cluster import cluster
from plybits import archive
from plybits import sql as plysql
from plybits.errors import PlybitsError
from plybits.records import check_notation
from plybits.registry import get_game

FORMATS = ("csv", "json", "parquet")
"""Output formats: CSV with a header, JSON one object a line, Parquet."""
IN_FLIGHT = 2
"""Part files queued a worker (bounded memory on the client: results arrive in order)."""


_CONNECTIONS: dict[tuple[archive.Meta, int], duckdb.DuckDBPyConnection] = {}
"""A worker's connections, by archive and thread: setting one up (its functions) costs tens of milliseconds a task."""


def query_part(path: str, sql: str) -> pa.Table:
    """``sql`` over one part file (a task on a worker)."""
    files = [path]
    slot = (plysql.dataset_meta(files), threading.get_ident())
    con = _CONNECTIONS.get(slot)
    if con is None:
        con = _CONNECTIONS[slot] = plysql.connect(files)
    else:
        plysql.view(con, files)
    result: pa.Table = con.sql(sql).to_arrow_table()
    return result


def records_part(path: str, where: str, notation: str | None) -> tuple[list[str], int]:
    """The record texts of one part file's games that ``where`` selects, in game order (the file read with every
    page's CRC checked), and the number of error rows it holds."""
    table = archive.read_file(path)
    meta = plysql.dataset_meta([path])
    with plysql.connect_table(table, meta) as con:
        rows = con.sql(f"select * from games where error is null and ({where})").to_arrow_table().to_pylist()
    errors = table.num_rows - pc.count(table.column("error"), mode="only_null").as_py()
    return [archive.record_of(row, meta, notation=notation) for row in rows], errors


def _in_order(client: Any, task: Any, files: list[str], *args: Any) -> Iterator[Any]:
    """``task(file, *args)`` of every file on the cluster, results in the files' order, a bounded number queued."""
    width = IN_FLIGHT * max(1, len(client.scheduler_info()["workers"]))
    futures: deque[Any] = deque()
    for path in files:
        futures.append(client.submit(task, path, *args, pure=False))
        if len(futures) >= width:
            yield futures.popleft().result()
    while futures:
        yield futures.popleft().result()


def scan(out: str, sql: str, client: Any) -> Iterator[pa.Table]:
    """``sql`` over each part file of the archive ``out`` on ``client``'s cluster, one table a part, in game order.

    :raises InvalidDataError: if ``out`` holds no archive (checked before any task is sent).
    """
    files = [os.path.abspath(f) for f in plysql.part_files(out)]
    plysql.dataset_meta(files)
    yield from _in_order(client, query_part, files, sql)


def records(out: str, where: str, client: Any, notation: str | None = None) -> Iterator[tuple[list[str], int]]:
    """The record texts of the games of ``out`` that the SQL condition ``where`` selects (over the view ``games``;
    ``true`` for all), and the error rows, a part file at a time in game order, each part decoded on ``client``'s
    cluster (``dataset decode --where``)."""
    files = [os.path.abspath(f) for f in plysql.part_files(out)]
    plysql.dataset_meta(files)
    yield from _in_order(client, records_part, files, where, notation)


def run(out: str, sql: str, workers: int | None = None, scheduler: str | None = None,
        combine: str | None = None) -> pa.Table:
    """The rows of ``sql`` over the archive ``out``: here, or part by part on a cluster (then ``combine``, if given,
    over them as ``rows``)."""
    if workers is None and scheduler is None:
        result = plysql.query(out, sql)
    else:
        with cluster(workers, scheduler) as client:
            parts = list(scan(out, sql, client))
        result = pa.concat_tables(parts) if parts else plysql.query(out, f"select * from ({sql}) limit 0")
    if combine is None:
        return result
    with duckdb.connect() as con:
        con.register("rows", result)
        combined: pa.Table = con.sql(combine).to_arrow_table()
        return combined


def write(table: pa.Table, form: str, output: str) -> None:
    """Write ``table`` as ``form`` to the file ``output`` (``-``: standard output, not for Parquet), as DuckDB's
    ``COPY`` writes it."""
    if form == "parquet" and output == "-":
        raise PlybitsError("Parquet output needs a file: give -o FILE")
    options = {"csv": "format csv, header true", "json": "format json", "parquet": "format parquet, compression zstd"}
    with tempfile.TemporaryDirectory() as folder:
        target = os.path.join(folder, "result") if output == "-" else output
        with duckdb.connect() as con:
            con.register("result", table)
            con.execute(f"copy result to '{target.replace(chr(39), chr(39) * 2)}' ({options[form]})")
        if output == "-":
            sys.stdout.flush()
            with open(target, "rb") as f:
                shutil.copyfileobj(f, sys.stdout.buffer)
            sys.stdout.buffer.flush()


def add_parser(commands: Any) -> None:
    """Add ``query`` to the ``plybits dataset`` subcommands."""
    q = commands.add_parser("query", help="SQL over a dataset (view 'games', functions over its moves)",
                            description=__doc__.split("\n\n")[0])
    q.add_argument("dataset")
    q.add_argument("sql", help="a query over the view 'games' (docs/sql.md lists its functions)")
    q.add_argument("--format", choices=FORMATS, default="csv")
    q.add_argument("-o", "--output", default="-")
    where = q.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="run on a local cluster of N worker processes, a part file a task")
    where.add_argument("--scheduler", help="run on the Dask scheduler at this address (tcp://host:8786)")
    q.add_argument("--combine", help="with a cluster: SQL over the parts' rows (the table 'rows'), e.g. a count")
    q.set_defaults(handler=_command)


def extend_decode(dec: Any) -> None:
    """Give ``plybits dataset decode`` ``--where`` and the cluster options: with any of them the games are decoded
    part by part on a cluster (:func:`records`); without, by the decode command given before."""
    dec.add_argument("--where", help="decode only the games this SQL condition over the view 'games' selects "
                     "(docs/sql.md), e.g. \"white_elo > 2500 and reaches(body, '...')\"")
    where = dec.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="decode on a local cluster of N worker processes")
    where.add_argument("--scheduler", help="decode on the Dask scheduler at this address (tcp://host:8786)")
    plain = dec.get_default("handler")

    def handler(args: argparse.Namespace) -> int:
        if args.where is None and args.workers is None and args.scheduler is None:
            return int(plain(args))
        return _decode_command(args)

    dec.set_defaults(handler=handler)


def _decode_command(args: argparse.Namespace) -> int:
    try:
        files = plysql.part_files(args.dataset)  # refused before -o is touched
        meta = plysql.dataset_meta(files)
        if args.notation is not None:
            check_notation(get_game(meta.game), args.notation)
    except PlybitsError as err:
        print(f"plybits dataset decode: {err}", file=sys.stderr)
        return 2
    games = errors = 0
    sink: IO[str] = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")  # noqa: SIM115
    try:
        with cluster(args.workers, args.scheduler) as client:
            for texts, bad in records(args.dataset, args.where or "true", client, args.notation):
                sink.writelines(text.rstrip("\n") + "\n\n" for text in texts)
                games, errors = games + len(texts), errors + bad
    finally:
        if sink is not sys.stdout:
            sink.close()
    print(f"plybits dataset decode: {games} games written, {errors} error rows skipped", file=sys.stderr)
    return 0


def _command(args: argparse.Namespace) -> int:
    try:
        table = run(args.dataset, args.sql, args.workers, args.scheduler, args.combine)
        write(table, args.format, args.output)
    except (PlybitsError, duckdb.Error) as err:
        print(f"plybits dataset query: {err}", file=sys.stderr)
        return 2
    return 0


__all__ = ["FORMATS", "add_parser", "cluster", "extend_decode", "query_part", "records", "records_part", "run", "scan", "write"]
