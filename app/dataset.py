"""Whole archives to a Parquet dataset and back, on Dask distributed.

    plybits dataset encode games.pgn.zst more.pgn -o out/ [--game chess --scheme rank] [--fidelity moves]
        [--workers N | --scheduler ADDR]
    plybits dataset decode out/ -o games.pgn [--notation san]
    plybits dataset info out/

A source (a multi-game file, or NDJSON encode requests) is cut into partitions of whole games: an uncompressed
file into byte ranges that each start at a game boundary (read by the workers in parallel), a compressed stream
(``.gz``, ``.bz2``, ``.xz``, ``.zst``) decompressed once by the client and handed out in bounded chunks. Each
partition is one call of :func:`games_table` (text of whole games in, an Arrow table of :mod:`plybits.archive` rows
out: one row per game read, a failed game a row with its error) and one Parquet file, written under a temporary name
then renamed in the staging directory, so a file that exists is complete; the files are moved into the dataset
directory when every one is written. A re-run skips the partitions whose file exists; the plan depends only on the
input and ``partition_bytes``, so the same input gives the same partitions and byte-identical rows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import uuid
from contextlib import nullcontext
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import IO, Any

import fsspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from app import query
from app.cluster import cluster
from app.batchcore import Refused, line_request
from app.errors import problem_of
from app.models import EncodeRequest
from app.partitions import (BACK_BYTES, MAX_GAME_BYTES, Partition, Piece, byte_ranges, line_pieces, lines_of, merge,
                            partition_lines, piece_records, pieces, plan, seam_ok)
from plybits import archive, registry
from plybits import records as verbs
from plybits.errors import InvalidRecordError, LimitExceededError, PlybitsError
from plybits.pgntext import RecordCuts

_lines = lines_of
"""The lines of a partition's text (kept by this name for the tests and benchmarks that read a text with it)."""

MANIFEST = "_manifest.json"
MANIFEST_VERSION = 3
"""Version 3: the rows of :mod:`plybits.archive`, parts staged until the job is complete."""
PARTITION_BYTES = 32 << 20
"""Default size of a partition, in bytes of uncompressed text (whole games, so a little more)."""

STAGING = "_staging"
"""Where a job writes its part files until every one is there (a reader of ``DIR/*.parquet``, or of the directory:
pyarrow and Spark skip ``_`` names, sees none of them); moved into the dataset directory at completion."""


# --- one partition: whole games in, an Arrow table out -------------------------------------------------------


def _row(source: str, number: int, offset: int, meta: archive.Meta, record: str | PlybitsError, max_plies: int,
         request: Any = None) -> dict[str, Any]:
    """One game's row (:mod:`plybits.archive`): from ``record`` (a record text, or the error reading it), or from
    ``request`` (an NDJSON line's request object, or its :class:`app.batchcore.Refused` problem) when given; a line
    of moves without a fidelity gets the API's default, one with a record the job's."""
    row: dict[str, Any] = {"source": source, "number": number, "offset": offset}
    try:
        if request is not None:
            if isinstance(request, Refused):
                row["error"] = json.dumps(request.problem, sort_keys=True)
                return row
            body = EncodeRequest.model_validate(request)
            if (body.game, registry.get_scheme(body.game, body.scheme or meta.scheme).name) != (meta.game, meta.scheme):
                raise InvalidRecordError(f"this dataset holds {meta.game}/{meta.scheme} games; a line asking for "
                                         f"{body.game}/{body.scheme or meta.scheme} belongs in a dataset of its own "
                                         "(--game, --scheme)")
            row.update(archive.row_of(meta, moves=body.moves, record=body.record, notation=body.notation,
                                      start=body.start, tags=body.tags, max_plies=max_plies,
                                      fidelity=body.fidelity or (meta.fidelity if body.record is not None else None)))
        elif isinstance(record, PlybitsError):
            raise record
        else:
            row.update(archive.row_of(meta, record=record, max_plies=max_plies))
    except Exception as err:  # a bug in a codec costs its game, never the partition
        row["error"] = json.dumps(problem_of(err), sort_keys=True)
    if row.get("error") is not None and request is None and isinstance(record, str):
        try:  # a failed game keeps the typed tags it has, when its record reads at all
            row.update(archive.tag_columns(meta.game, registry.get_game(meta.game).parse_record(record).tags)[0])
        except Exception:
            pass
    return row


def games_table(game_name: str, scheme: str, source: str, pieces_: Iterable[Piece], first_number: int = 1, *,
                cut: str | None = None, max_plies: int = verbs.DEFAULT_MAX_PLIES, fidelity: str = "full",
                ndjson: bool = False) -> pa.Table:
    """One Arrow table (:func:`plybits.archive.schema`, its :class:`~plybits.archive.Meta` in the schema) of the
    games of ``pieces_``: one row per game read, numbered from ``first_number``; a game that fails is a row with
    its ``error``. ``cut``: the input ended inside the last piece (a truncated stream), which becomes an error row
    with that detail. ``ndjson``: each piece is a line holding an encode request, read as the batch endpoints read
    it (``game_name`` and ``scheme`` are its defaults; a line asking for another is an error row). Progress (games
    read) is reported to the Dask client every few seconds when run on a worker.
    """
    meta = archive.Meta.of(game_name, scheme, fidelity)
    rows: list[dict[str, Any]] = []
    listed = list(pieces_)
    number = first_number
    defaults = {"game": game_name, "scheme": scheme}
    progress = _Progress()
    for index, piece in enumerate(listed):
        progress.tick(len(rows))
        if cut is not None and index == len(listed) - 1:
            problem: PlybitsError = InvalidRecordError(f"input ends inside this game (a truncated or corrupt stream): {cut}")
            rows.append(_row(source, number, piece.offset, meta, problem, max_plies))
        elif ndjson and piece.size <= MAX_GAME_BYTES:
            request = line_request("encode", piece.lines[0], defaults)
            rows.append(_row(source, number, piece.offset, meta, "", max_plies, request))
        elif ndjson:
            problem = LimitExceededError(f"line of more than {MAX_GAME_BYTES} bytes is over the limit")
            rows.append(_row(source, number, piece.offset, meta, problem, max_plies))
        else:
            for record in piece_records(game_name, piece):
                rows.append(_row(source, number, piece.offset, meta, record, max_plies))
                number += 1
            continue
        number += 1
    if cut is not None and not listed:
        rows.append(_row(source, number, 0, meta, InvalidRecordError(f"input is cut (a truncated or corrupt stream): {cut}"), max_plies))
    progress.tick(len(rows), final=True)
    return archive.table(rows, meta)


PROGRESS_TOPIC = "plybits-dataset-games"
"""The Dask event topic workers report games read on (``{"games": n}``, n since the last report)."""


class _Progress:
    """Games read on a Dask worker, reported to the client (:data:`PROGRESS_TOPIC`) at most every
    ``PLYBITS_PROGRESS_SECONDS`` (default 2)."""

    def __init__(self) -> None:
        self.every = float(os.environ.get("PLYBITS_PROGRESS_SECONDS", "2"))
        try:
            from distributed import get_worker

            self.worker: Any = get_worker()
        except (ImportError, ValueError):
            self.worker = None
        self.sent = 0
        self.at = time.monotonic()

    def tick(self, games: int, final: bool = False) -> None:
        if self.worker is None or games == self.sent or not (final or time.monotonic() - self.at >= self.every):
            return
        self.worker.log_event(PROGRESS_TOPIC, {"games": games - self.sent})
        self.sent, self.at = games, time.monotonic()


# --- partitions ------------------------------------------------------------------------------------------


@dataclass
class Built:
    """A partition's table, numbered from 0, and whether the next partition begins at a game (:func:`boundary`
    guessed its start; this partition read everything before it). Kept on the worker until written."""

    part: Partition
    table: pa.Table
    seam_ok: bool


def build_partition(part: Partition, data: bytes | None = None) -> Built:
    """The rows of one partition (the heavy task), and its seam check. A stream chunk's bytes come as ``data`` (a
    future of the bytes scattered to the workers, resolved by Dask) or in ``part.data``; its seam is exact (the
    client cut it having read the whole stream before), a byte range's is checked here."""
    cuts = part.ndjson or registry.get_game(part.game).splits_records
    if part.stream:
        lines = partition_lines(part, data)
        found = line_pieces(lines) if part.ndjson else pieces(lines, cuts)
        table = games_table(part.game, part.scheme, part.source, found, 0, cut=part.cut, max_plies=part.max_plies,
                            fidelity=part.fidelity, ndjson=part.ndjson)
        return Built(part, table, True)
    records = RecordCuts()
    with fsspec.open(part.source, "rb") as source:
        source.seek(part.start)
        lines = lines_of(source, part.start, part.end)
        found = line_pieces(lines) if part.ndjson else pieces(lines, cuts, records)
        table = games_table(part.game, part.scheme, part.source, found, 0, max_plies=part.max_plies,
                            fidelity=part.fidelity, ndjson=part.ndjson)
        lookahead = source.readline(BACK_BYTES) or None  # the reader stopped at the line beginning at end
    return Built(part, table, part.ndjson or seam_ok(records, cuts, lookahead))


def built_count(built: Built) -> tuple[int, bool]:
    """``(rows, seam_ok)`` of a built partition (what the client needs to number the next one)."""
    return built.table.num_rows, built.seam_ok


def write_partition(built: Built, first_number: int, out: str) -> dict[str, Any]:
    """Number a built partition's rows from ``first_number`` and write its Parquet file
    ``out/_staging/NAME.parquet`` (moved into ``out`` when the whole job is done), atomically; its summary (also
    kept in the file's metadata)."""
    began = time.monotonic()
    part, table = built.part, built.table
    index = table.schema.get_field_index("number")
    table = table.set_column(index, table.schema.field("number"), pc.add(table.column(index), first_number))
    summary = {"name": part.name, "source": part.source, "rows": table.num_rows,
               "errors": table.num_rows - table.column("error").null_count, "first_number": first_number,
               "start": part.start, "end": part.end}
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           b"plybits": json.dumps(summary, sort_keys=True).encode()})
    staging = os.path.join(out, STAGING)
    os.makedirs(staging, exist_ok=True)
    final = os.path.join(staging, part.name + ".parquet")
    temp = os.path.join(staging, f".{part.name}.{uuid.uuid4().hex}.tmp")
    archive.write_file(table, temp)
    os.replace(temp, final)
    return {**summary, "bytes": os.path.getsize(final), "seconds": time.monotonic() - began}


def _remove_temporaries(staging: str) -> None:
    """Remove the temporary files of partitions whose writing was cut short (a killed worker or run)."""
    for stale in os.listdir(staging):
        if stale.startswith(".part-") and stale.endswith(".tmp"):
            os.remove(os.path.join(staging, stale))


def file_summary(path: str) -> dict[str, Any]:
    """The summary :func:`write_partition` returned, read back from the partition's file."""
    meta = pq.read_schema(path).metadata or {}
    summary: dict[str, Any] = json.loads(meta[b"plybits"])
    return {**summary, "bytes": os.path.getsize(path), "seconds": 0.0}


# --- running on Dask -------------------------------------------------------------------------------------


class PartitionFailed(RuntimeError):
    """A partition's task failed on the cluster (not a game's error: those are rows)."""


@dataclass
class Options:
    inputs: list[str]
    out: str
    game: str
    scheme: str
    partition_bytes: int = PARTITION_BYTES
    workers: int | None = None
    scheduler: str | None = None
    max_plies: int = verbs.DEFAULT_MAX_PLIES
    fidelity: str = "full"
    """What each container keeps (:func:`plybits.records.encode`): the whole record, or its moves and tags."""


def _manifest_path(out: str) -> str:
    return os.path.join(out, MANIFEST)


def read_manifest(out: str) -> dict[str, Any]:
    """The manifest of a dataset directory.

    :raises InvalidRecordError: if there is none or it is not readable.
    """
    try:
        with open(_manifest_path(out), encoding="utf-8") as f:
            manifest: dict[str, Any] = json.load(f)
    except (OSError, ValueError) as err:
        raise InvalidRecordError(f"{out!r} is not a plybits dataset: {err}") from None
    return manifest


def _write_manifest(out: str, manifest: dict[str, Any]) -> None:
    temp = _manifest_path(out) + f".{uuid.uuid4().hex}.tmp"
    with open(temp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    os.replace(temp, _manifest_path(out))


def encode_dataset(opts: Options, report: Callable[[dict[str, Any]], None] = lambda _: None, *,
                   client: Any = None) -> dict[str, Any]:
    """Encode every game of ``opts.inputs`` into the dataset ``opts.out``; returns the manifest.

    Finished partitions (their file exists) are skipped; the others run as Dask tasks, at most a few per worker
    in flight (bounded memory): :func:`build_partition` reads and encodes, :func:`write_partition` numbers and
    writes once the partitions before have been counted. ``client``: a Dask client to use (left open), else one
    is made from ``opts`` (``scheduler``, else a local cluster of ``workers`` processes) and closed.

    :raises InvalidRecordError: if ``opts.out`` holds a dataset made with other inputs or settings.
    :raises PartitionFailed: if a partition's task failed on every worker that tried it.
    """
    registry.get_scheme(opts.game, opts.scheme)
    opts = replace(opts, inputs=[_absolute(url) for url in opts.inputs])  # one spelling of each input
    for url in opts.inputs:  # before any cluster starts
        fs, path = fsspec.core.url_to_fs(url)
        if not fs.isfile(path):
            raise FileNotFoundError(f"no such input file: {url}")
    os.makedirs(opts.out, exist_ok=True)
    params = {"inputs": opts.inputs, "game": opts.game, "scheme": opts.scheme,
              "partition_bytes": opts.partition_bytes, "max_plies": opts.max_plies, "fidelity": opts.fidelity}
    manifest: dict[str, Any] = {"version": MANIFEST_VERSION, **params, "partitions": {}, "sources": {}}
    if os.path.exists(_manifest_path(opts.out)):
        old = read_manifest(opts.out)
        if {k: old.get(k) for k in params} != params or old.get("version") != manifest["version"]:
            raise InvalidRecordError(f"{opts.out!r} holds a dataset of other inputs or settings; use a new directory")
        manifest = old
    staging = os.path.join(opts.out, STAGING)
    os.makedirs(staging, exist_ok=True)
    _remove_temporaries(staging)
    for name in list(manifest["partitions"]):
        if _part_file(opts.out, name) is None:
            del manifest["partitions"][name]
    for folder in (opts.out, staging):  # written before the client that asked for it was killed: kept as it is
        for file in os.listdir(folder):
            name = file.removesuffix(".parquet")
            if file.startswith("part-") and file.endswith(".parquet") and name not in manifest["partitions"]:
                manifest["partitions"][name] = file_summary(os.path.join(folder, file))
    manifest["complete"] = False
    _write_manifest(opts.out, manifest)
    tally = {"rows": 0, "errors": 0, "done": 0, "skipped": len(manifest["partitions"]), "submitted": 0,
             "read": 0, "started": time.monotonic()}
    last = [0.0]
    every = float(os.environ.get("PLYBITS_PROGRESS_SECONDS", "2"))

    def games_read(event: tuple[float, dict[str, int]]) -> None:  # workers' progress, as games are read
        tally["read"] += event[1]["games"]
        if time.monotonic() - last[0] >= every:
            last[0] = time.monotonic()
            report(tally)

    with nullcontext(client) if client is not None else cluster(opts.workers, opts.scheduler) as running:
        running.subscribe_topic(PROGRESS_TOPIC, games_read)
        try:
            run = _Run(running, opts, manifest, tally, report)
            for source_index, url in enumerate(opts.inputs):
                run.source(url, plan(url, source_index, opts.game, opts.scheme, opts.partition_bytes,
                                     max_plies=opts.max_plies, fidelity=opts.fidelity))
            run.drain(0)
        finally:
            running.unsubscribe_topic(PROGRESS_TOPIC)
    for name in sorted(manifest["partitions"]):  # the whole set appears at once (a run of renames)
        path = os.path.join(staging, name + ".parquet")
        if os.path.exists(path):
            os.replace(path, os.path.join(opts.out, name + ".parquet"))
    _remove_temporaries(staging)  # of a worker killed mid-write in this run (Dask wrote that partition again)
    os.rmdir(staging)
    manifest["complete"] = True
    _write_manifest(opts.out, manifest)
    return manifest


def _absolute(url: str) -> str:
    """A local input's absolute path (the same input however it was spelled); a URL as given."""
    return url if "://" in url else os.path.abspath(url)


def _part_file(out: str, name: str) -> str | None:
    """Where partition ``name``'s file is (the dataset directory, or its staging directory), if anywhere."""
    for path in (os.path.join(out, name + ".parquet"), os.path.join(out, STAGING, name + ".parquet")):
        if os.path.exists(path):
            return path
    return None


@dataclass
class _Slot:
    """A partition in flight: its build and count tasks, or ``done`` (its file exists: its summary). A stream
    chunk's bytes (``part.data``) stay here until its file is written, so that its tasks can run again (once) if
    the worker its bytes were scattered to dies."""

    part: Partition
    built: Any = None
    count: Any = None
    done: dict[str, Any] | None = None
    rerun: bool = False


class _Run:
    """The client's side of one job: partitions built in parallel, numbered in order, written as they are
    counted; at most a window of them held at a time."""

    def __init__(self, client: Any, opts: Options, manifest: dict[str, Any], tally: dict[str, Any],
                 report: Callable[[dict[str, Any]], None]) -> None:
        self.client, self.opts, self.manifest, self.tally, self.report = client, opts, manifest, tally, report
        self.key = uuid.uuid4().hex  # task keys of this run: two jobs on one scheduler never share a task
        workers = max(len(client.scheduler_info().get("workers", {})), 1)
        self.window = 2 * workers + 1
        self.writes: list[Any] = []
        self.pending: dict[str, tuple[_Slot, int]] = {}  # a stream chunk's write: its slot and first number

    def _result(self, future: Any) -> Any:
        try:
            return future.result()
        except Exception as err:  # e.g. every worker that tried it died (KilledWorker)
            raise PartitionFailed(f"partition {future.key} failed: {type(err).__name__}: {err}; the partitions "
                                  "written are kept, run the command again to resume") from err

    def _finish(self, future: Any) -> None:
        slot, number = self.pending.pop(future.key, (None, 0))
        if slot is not None and not slot.rerun and future.status == "error":  # e.g. its bytes' worker died
            self._submit(slot)
            self._write(slot, number)
            return
        result: dict[str, Any] = self._result(future)
        self.manifest["partitions"][result["name"]] = result
        self.tally["rows"] += result["rows"]
        self.tally["errors"] += result["errors"]
        self.tally["done"] += 1
        _write_manifest(self.opts.out, self.manifest)
        self.report(self.tally)

    def drain(self, most: int, also: Any = None) -> None:
        """Record the finished writes; wait until at most ``most`` are running (or ``also`` is done)."""
        from dask.distributed import wait

        while True:
            for future in [f for f in self.writes if f.done()]:
                self.writes.remove(future)
                self._finish(future)
            if len(self.writes) <= most or (also is not None and also.done()):
                return
            wait([*self.writes, *([also] if also is not None else [])], return_when="FIRST_COMPLETED")

    def _slot(self, part: Partition) -> _Slot:
        done = self.manifest["partitions"].get(part.name)
        if done is not None:
            return _Slot(part, done=done)
        slot = _Slot(part)
        self._submit(slot)
        self.tally["submitted"] += 1
        return slot

    def _submit(self, slot: _Slot) -> None:
        """Submit ``slot``'s build and count tasks (again, when it has them: its rerun). A stream chunk's bytes go
        straight to a worker (:meth:`Client.scatter`), never through the scheduler nor inside the task graph."""
        part, data = slot.part, None
        name = f"plybits-{self.key}-{part.name}-{part.end}" + ("-rerun" if slot.built is not None else "")
        if part.data is not None:
            data = self.client.scatter(part.data, direct=True, hash=False)
            part = replace(part, data=None)
        slot.rerun = slot.built is not None
        slot.built = self.client.submit(build_partition, part, data, key=name + "-build", pure=False, retries=2)
        slot.count = self.client.submit(built_count, slot.built, key=name + "-count", pure=False, retries=2)

    def _counted(self, slot: _Slot) -> tuple[int, bool]:
        """``(rows, seam_ok)`` of a slot's build (a stream chunk's run again once if it failed)."""
        self.drain(-1, also=slot.count)
        if slot.count.status == "error" and slot.part.data is not None and not slot.rerun:
            self._submit(slot)
            self.drain(-1, also=slot.count)
        rows, seam = self._result(slot.count)
        return int(rows), bool(seam)

    def _write(self, slot: _Slot, number: int) -> None:
        """Submit the write of ``slot``'s built partition, its rows numbered from ``number``."""
        suffix = "-rerun" if slot.rerun else ""
        future = self.client.submit(write_partition, slot.built, number, os.path.abspath(self.opts.out),
                                    key=f"plybits-{self.key}-{slot.part.name}-write{suffix}", pure=False, retries=2)
        self.writes.append(future)
        if slot.part.data is not None:
            self.pending[future.key] = (slot, number)

    def source(self, url: str, parts: Iterator[Partition]) -> None:
        """Run every partition of one source, numbering its games from 1."""
        queue: list[_Slot] = []
        number = 1
        covered = -1  # the end of the last partition done, in this source (a merged one covers its neighbours)

        def fill() -> None:
            while True:
                if len(queue) + len(self.writes) >= self.window:
                    if queue:
                        return
                    self.drain(self.window - 1)  # the queue is never left empty while partitions remain
                part = next(parts, None)
                if part is None:
                    return
                queue.append(self._slot(part))

        fill()
        while queue:
            slot = queue[0]
            if slot.done is not None:
                if slot.part.start >= covered:
                    number = slot.done["first_number"] + slot.done["rows"]
                    covered = slot.done["end"]
                queue.pop(0)
                fill()
                continue
            if slot.part.start < covered:  # inside a partition merged before this run
                queue.pop(0)
                fill()
                continue
            rows, seam = self._counted(slot)
            if not seam:
                if len(queue) < 2:
                    queue.append(self._slot(next(parts)))  # a seam that is not at the end has a partition after it
                merged = merge(slot.part, queue[1].part)
                queue[:2] = [self._slot(merged)]
                continue
            self.drain(self.window - 1)
            self._write(slot, number)
            number += rows
            covered = slot.part.end
            queue.pop(0)
            fill()


def dataset_files(out: str) -> list[str]:
    """The partition files of a finished dataset, in source order.

    :raises InvalidRecordError: if ``out`` is not a dataset, or not complete (a job not finished, a file missing).
    """
    manifest = read_manifest(out)
    names = sorted(manifest["partitions"])
    missing = [n for n in names if not os.path.exists(os.path.join(out, n + ".parquet"))]
    if missing or not manifest.get("complete"):
        raise InvalidRecordError(f"dataset {out!r} is not complete; run `plybits dataset encode` again")
    return [os.path.join(out, n + ".parquet") for n in names]


def decode_dataset(out: str, sink: IO[str], notation: str | None = None) -> tuple[int, int]:
    """Write every game of a dataset as a record of its game (PGN for chess), in source order, exactly as encoded
    (:func:`plybits.archive.record_of`); ``(games, errors)``: rows with an error are counted, not written."""
    games = errors = 0
    for path in dataset_files(out):
        table = archive.read_file(path)
        meta = archive.Meta.from_schema(table.schema)
        for row in table.to_pylist():
            if row["error"] is not None:
                errors += 1
                continue
            sink.write(archive.record_of(row, meta, notation=notation).rstrip("\n") + "\n\n")
            games += 1
    return games, errors


def info(out: str) -> dict[str, Any]:
    """Summary of a dataset: sources, game, scheme, fidelity, completeness, partitions, games, errors, bytes."""
    manifest = read_manifest(out)
    parts = manifest["partitions"].values()
    games = sum(p["rows"] for p in parts)
    size = sum(p["bytes"] for p in parts)
    return {"inputs": manifest["inputs"], "game": manifest["game"], "scheme": manifest["scheme"],
            "fidelity": manifest.get("fidelity", "full"), "complete": bool(manifest.get("complete")),
            "partitions": len(manifest["partitions"]), "games": games, "errors": sum(p["errors"] for p in parts),
            "bytes": size, "bytes_per_game": round(size / games, 1) if games else None}


# --- the command ---------------------------------------------------------------------------------------


def default_scheme(game: str) -> str:
    """The scheme a dataset of ``game`` gets by default: ``rank`` when the game has it, else its seed scheme."""
    try:
        return registry.get_scheme(game, "rank").name
    except PlybitsError:
        return verbs.seed_scheme(game)


def add_parser(commands: Any) -> None:
    """Add ``plybits dataset encode|decode|info`` to the command's subparsers."""
    top = commands.add_parser("dataset", help="whole archives to a Parquet dataset and back, on Dask",
                              description=__doc__.split("\n\n")[0])
    verbs_ = top.add_subparsers(dest="dataset_command", required=True)
    enc = verbs_.add_parser("encode", help="encode game files (plain or .gz/.bz2/.xz/.zst) into a Parquet dataset",
                            description="Encode game files into a Parquet dataset: one row a game (docs/dataset.md).")
    enc.add_argument("inputs", nargs="+", help="files or fsspec URLs of multi-game files (PGN, APGN, tokens) or of "
                     "NDJSON encode requests (.ndjson, .jsonl), one request a line")
    enc.add_argument("-o", "--output", required=True, help="the dataset directory")
    enc.add_argument("--game", default="chess", choices=[g.name for g in registry.games()], help="the game (default: chess)")
    enc.add_argument("--scheme", help="the move scheme (default: rank when the game has it, else its seed scheme)")
    where = enc.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="worker processes of the local cluster (default: one a core)")
    where.add_argument("--scheduler", help="address of a Dask scheduler (tcp://host:8786)")
    enc.add_argument("--partition-bytes", type=int, default=PARTITION_BYTES,
                     help=f"uncompressed text per partition, one Parquet file each (default: {PARTITION_BYTES:,})")
    enc.add_argument("--max-plies", type=int, default=verbs.DEFAULT_MAX_PLIES, help="longest game read, in plies; a longer one is an "
                     f"error row (default: {verbs.DEFAULT_MAX_PLIES:,})")
    enc.add_argument("--fidelity", choices=verbs.FIDELITIES, default="full",
                     help="full: each row keeps its record whole (comments, clocks, NAGs, variations); "
                          "moves: its moves and tags (default: full)")
    enc.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    enc.set_defaults(handler=_encode_command)
    dec = verbs_.add_parser("decode", help="write every game of a dataset as records (PGN for chess)",
                            description="Write every game of a finished dataset back as records, exactly as read.")
    dec.add_argument("dataset", help="the dataset directory")
    dec.add_argument("-o", "--output", default="-", help="the file to write (default: -, standard output); "
                     "left untouched when the dataset is missing or unfinished")
    dec.add_argument("--notation", help="the notation of the moves (default: the game's record notation, SAN for "
                     "chess)")
    dec.set_defaults(handler=_decode_command)
    query.extend_decode(dec)
    inf = verbs_.add_parser("info", help="summary of a dataset, as JSON")
    inf.add_argument("dataset", help="the dataset directory")
    inf.set_defaults(handler=lambda args: _print(info(args.dataset)))
    query.add_parser(verbs_)


def _print(value: dict[str, Any]) -> int:
    print(json.dumps(value, indent=1))
    return 0


def _encode_command(args: argparse.Namespace) -> int:
    scheme = args.scheme or default_scheme(args.game)
    opts = Options(list(args.inputs), args.output, args.game, scheme, args.partition_bytes, args.workers,
                   args.scheduler, args.max_plies, args.fidelity)

    def report(t: dict[str, Any]) -> None:
        if not args.quiet:
            rate = t["read"] / max(time.monotonic() - t["started"], 1e-9)
            print(f"{t['read']:,} games read ({rate:,.0f} games/s); partitions {t['done']} written "
                  f"({t['skipped']} skipped), {t['rows']:,} games, {t['errors']} errors", file=sys.stderr)

    began = time.monotonic()
    try:
        encode_dataset(opts, report)
    except PartitionFailed as err:
        print(f"plybits dataset encode: {err}", file=sys.stderr)
        return 2
    summary = info(args.output)
    if not args.quiet:
        print(f"plybits dataset encode: {summary['games']} games, {summary['errors']} errors, "
              f"{summary['partitions']} partitions, {summary['bytes']:,} bytes; {time.monotonic() - began:.1f} s",
              file=sys.stderr)
    return 1 if summary["errors"] else 0


def _decode_command(args: argparse.Namespace) -> int:
    manifest = read_manifest(args.dataset)
    dataset_files(args.dataset)  # a missing or unfinished dataset is refused before -o is touched
    if args.notation is not None:
        verbs.check_notation(registry.get_game(manifest["game"]), args.notation)
    sink: IO[str] = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")  # noqa: SIM115
    try:
        games, errors = decode_dataset(args.dataset, sink, args.notation)
    finally:
        if sink is not sys.stdout:
            sink.close()
    print(f"plybits dataset decode: {games} games written, {errors} error rows skipped", file=sys.stderr)
    return 0


__all__ = ["Options", "Partition", "byte_ranges", "decode_dataset", "encode_dataset", "games_table", "info", "pieces"]
