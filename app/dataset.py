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
import bz2
import gzip
import io
import json
import lzma
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import IO, Any, Protocol

import fsspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pydantic import ValidationError

from app import query
from app.batchcore import Refused, line_request
from app.cli import ByteSource, Decompressed, ZstdReader
from app.errors import internal_problem, problem_body, validation_problem
from app.models import EncodeRequest
from plybits import archive, registry
from plybits import records as verbs
from plybits.errors import InvalidDataError, InvalidRecordError, LimitExceededError, PlybitsError
from plybits.pgntext import RecordCuts
from plybits.streams import line_text, split_stream

COMPRESSED = (".gz", ".bz2", ".xz", ".zst")
"""Suffixes of the compressed streams read once (not seekable)."""
MANIFEST = "_manifest.json"
MANIFEST_VERSION = 3
"""Version 3: the rows of :mod:`plybits.archive`, parts staged until the job is complete."""
PARTITION_BYTES = 32 << 20
"""Default size of a partition, in bytes of uncompressed text (whole games, so a little more)."""
MAX_GAME_BYTES = 16 << 20
"""Longest game read; a longer one is an error row."""

STAGING = "_staging"
"""Where a job writes its part files until every one is there (a reader of ``DIR/*.parquet``, or of the directory:
pyarrow and Spark skip ``_`` names, sees none of them); moved into the dataset directory at completion."""


# --- games in a byte stream --------------------------------------------------------------------------------


class LineReader(Protocol):
    """A binary file read by lines (a plain file, or a decompressing one)."""

    def readline(self, size: int = -1, /) -> bytes: ...


def _lines(source: LineReader, start: int, end: int | None) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` of every line beginning in ``[start, end)`` of ``source`` (positioned at ``start``).

    A line longer than :data:`MAX_GAME_BYTES` is cut short (its game then fails as over the limit).
    """
    offset = start
    while end is None or offset < end:
        line = source.readline(MAX_GAME_BYTES + 1)
        if not line:
            return
        size = len(line)
        if not line.endswith(b"\n") and size > MAX_GAME_BYTES:
            while True:  # skip the rest of the long line without holding it
                more = source.readline(1 << 20)
                size += len(more)
                if not more or more.endswith(b"\n"):
                    break
        yield offset, line
        offset += size


@dataclass
class Piece:
    """The lines of one game (or, for a game whose files are not cut at tag sections, of the whole text)."""

    offset: int
    lines: list[bytes]
    size: int = 0


def pieces(lines: Iterable[tuple[int, bytes]], cuts: bool, records: RecordCuts | None = None) -> Iterator[Piece]:
    """The games of a stream of ``(offset, line)``: cut where :func:`plybits.streams.split_stream` cuts records
    (:class:`plybits.pgntext.RecordCuts`, ``records`` if given, so its state can be read after) when ``cuts``;
    blank pieces dropped."""
    piece: Piece | None = None
    records = RecordCuts() if records is None else records
    for offset, raw in lines:
        text = line_text(raw, offset == 0)
        if cuts and records.starts_record(text) and piece is not None:
            yield piece
            piece = None
        if piece is None:
            if not text.strip():
                continue
            piece = Piece(offset, [])
        piece.size += len(raw)
        if piece.size <= MAX_GAME_BYTES + 1:
            piece.lines.append(raw)
    if piece is not None:
        yield piece


def line_pieces(lines: Iterable[tuple[int, bytes]]) -> Iterator[Piece]:
    """The games of an NDJSON stream: one per non-blank line."""
    for offset, raw in lines:
        if raw.strip():
            yield Piece(offset, [raw], len(raw))


def piece_records(game_name: str, piece: Piece) -> list[str | PlybitsError]:
    """The records of one piece (one, normally), each a text or the error that stood in its way."""
    if piece.size > MAX_GAME_BYTES:
        return [InvalidRecordError(f"game of more than {MAX_GAME_BYTES} bytes is over the limit")]
    texts = (line_text(raw, piece.offset == 0 and i == 0) for i, raw in enumerate(piece.lines))
    return list(split_stream(game_name, texts, max_chars=MAX_GAME_BYTES))


BACK_BYTES = 1 << 16
"""Text read before a cut point by :func:`boundary`, so that the rule sees where the game there stands."""


def boundary(source: IO[bytes], at: int, cuts: bool, ndjson: bool = False) -> int | None:
    """The offset of the first game that starts at or after byte ``at`` (``None``: none does).

    NDJSON: the first line that starts there. Records: the first line where :class:`plybits.pgntext.RecordCuts`
    (the record splitter's own rule) starts a record, the rule reading from up to :data:`BACK_BYTES` before
    ``at``. That state is a guess (a ``{...}`` comment may have opened further back): the partition before the
    cut checks it (:attr:`Built.seam_ok`), from its own start.
    """
    if at == 0:
        return 0
    if ndjson:
        source.seek(at - 1)
        first = source.readline(MAX_GAME_BYTES + 1)  # the rest of the line holding byte at-1
        for offset, _ in _lines(source, at - 1 + len(first), None):
            return offset
        return None
    if not cuts:
        return None
    begin = max(at - BACK_BYTES, 0)
    source.seek(begin)
    if begin:
        begin += len(source.readline(MAX_GAME_BYTES + 1))  # from the first whole line
    records = RecordCuts()
    for offset, raw in _lines(source, begin, None):
        if records.starts_record(line_text(raw, offset == 0)) and offset >= at:
            return offset
    return None


def seam_ok(records: RecordCuts, cuts: bool, lookahead: bytes | None) -> bool:
    """Whether the line ``lookahead`` (``None``: the end of the source) begins a game, to ``records`` having read
    everything before it."""
    return lookahead is None or not cuts or records.starts_record(line_text(lookahead))


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
    except PlybitsError as err:
        row["error"] = json.dumps(problem_body(err), sort_keys=True)
    except ValidationError as err:
        row["error"] = json.dumps(validation_problem(err.errors()), sort_keys=True)
    except Exception as err:  # a bug in a codec costs its game, never the partition
        row["error"] = json.dumps(internal_problem(err), sort_keys=True)
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
class Partition:
    """One unit of work: a byte range ``[start, end)`` of a file (``data`` None), or whole games of a stream handed
    over (``data``, the text from ``start``). ``lookahead``: the line after the range (``None``: the source ends
    there), for the seam check; ``cut``: the stream ends inside the last game."""

    name: str
    source: str
    game: str
    scheme: str
    start: int
    end: int
    data: bytes | None = None
    cut: str | None = None
    max_plies: int = verbs.DEFAULT_MAX_PLIES
    ndjson: bool = False
    lookahead: bytes | None = None
    fidelity: str = "full"


@dataclass
class Built:
    """A partition's table, numbered from 0, and whether the next partition begins at a game (:func:`boundary`
    guessed its start; this partition read everything before it). Kept on the worker until written."""

    part: Partition
    table: pa.Table
    seam_ok: bool


def build_partition(part: Partition) -> Built:
    """The rows of one partition (the heavy task), and its seam check."""
    cuts = part.ndjson or registry.get_game(part.game).splits_records
    records = RecordCuts()
    lookahead = part.lookahead
    if part.data is not None:
        found = _partition_pieces(part, _lines(io.BytesIO(part.data), part.start, None), cuts, records)
        table = games_table(part.game, part.scheme, part.source, found, 0, cut=part.cut, max_plies=part.max_plies,
                            fidelity=part.fidelity, ndjson=part.ndjson)
    else:
        with fsspec.open(part.source, "rb") as source:
            source.seek(part.start)
            found = _partition_pieces(part, _lines(source, part.start, part.end), cuts, records)
            table = games_table(part.game, part.scheme, part.source, found, 0, max_plies=part.max_plies,
                                fidelity=part.fidelity, ndjson=part.ndjson)
            lookahead = source.readline(BACK_BYTES) or None  # the reader stopped at the line beginning at end
    return Built(part, table, part.ndjson or seam_ok(records, cuts, lookahead))


def _partition_pieces(part: Partition, lines: Iterator[tuple[int, bytes]], cuts: bool, records: RecordCuts
                      ) -> Iterator[Piece]:
    return line_pieces(lines) if part.ndjson else pieces(lines, cuts, records)


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


def file_summary(path: str) -> dict[str, Any]:
    """The summary :func:`write_partition` returned, read back from the partition's file."""
    meta = pq.read_schema(path).metadata or {}
    summary: dict[str, Any] = json.loads(meta[b"plybits"])
    return {**summary, "bytes": os.path.getsize(path), "seconds": 0.0}


def merge(first: Partition, second: Partition) -> Partition:
    """One partition of two neighbours whose seam is not at a game (the first's name)."""
    data = None if first.data is None or second.data is None else first.data + second.data
    return replace(first, end=second.end, data=data, cut=second.cut, lookahead=second.lookahead)


@contextmanager
def open_stream(url: str) -> Iterator[Decompressed]:
    """A compressed source (by suffix) opened for reading its uncompressed bytes, with the readers of
    ``plybits encode`` (:class:`app.cli.ZstdReader` across frames; a cut or corrupt stream raises
    :class:`InvalidDataError`)."""
    with fsspec.open(url, "rb") as raw:
        lower = url.lower()
        stream: ByteSource
        if lower.endswith(".zst"):
            stream = ZstdReader(raw, url)
        elif lower.endswith(".gz"):
            stream = gzip.GzipFile(fileobj=raw, mode="rb")
        elif lower.endswith(".bz2"):
            stream = bz2.BZ2File(raw)
        else:
            stream = lzma.LZMAFile(raw)
        reader = Decompressed(stream, raw)
        try:
            yield reader
        finally:
            reader.close()


def is_compressed(url: str) -> bool:
    return url.lower().endswith(COMPRESSED)


def is_ndjson(url: str) -> bool:
    """Whether ``url`` names NDJSON (``.ndjson``, ``.jsonl``, compressed or not): one encode request a line."""
    lower = url.lower()
    for suffix in COMPRESSED:
        lower = lower.removesuffix(suffix)
    return lower.endswith((".ndjson", ".jsonl"))


def byte_ranges(url: str, game: str, partition_bytes: int, ndjson: bool = False) -> list[tuple[int, int]]:
    """Byte ranges ``[start, end)`` of an uncompressed file, none empty: they start at the first game boundary at
    or after each multiple of ``partition_bytes`` (so a plan depends on the file and that size only)."""
    cuts = registry.get_game(game).splits_records
    fs, path = fsspec.core.url_to_fs(url)
    size = int(fs.size(path))
    with fs.open(path, "rb") as source:
        starts: list[int] = []
        at = 0
        while at < size:
            found = boundary(source, at, cuts, ndjson)
            if found is None or found >= size:
                break
            if not starts or found > starts[-1]:
                starts.append(found)
            at = (found // partition_bytes + 1) * partition_bytes  # the multiples up to found give found again
    ends = starts[1:] + [size]
    return list(zip(starts, ends, strict=True))


READ_BYTES = 1 << 16
"""Decompressed bytes read from a stream at a time (of a truncated gzip, bz2 or xz stream, the last such read is
lost with the error)."""


def stream_chunks(url: str, game: str, partition_bytes: int, ndjson: bool = False
                  ) -> Iterator[tuple[int, bytes, bytes | None, str | None]]:
    """``(offset, text, lookahead, cut)`` chunks of a compressed stream, read once, each about ``partition_bytes``
    and cut where :func:`boundary` finds a game; ``lookahead`` is the first line of the next chunk (``None`` for
    the last), ``cut`` names the decompression error of a truncated stream (last chunk only). The client only
    decompresses and looks for a cut near each chunk's end: the games are read by the workers.

    :raises InvalidRecordError: if no game begins in :data:`MAX_GAME_BYTES` twice over after a cut point.
    """
    cuts = registry.get_game(game).splits_records
    buf = bytearray()
    offset = 0
    cut: str | None = None
    ended = False
    with open_stream(url) as source:
        while True:
            want = partition_bytes + READ_BYTES
            found: int | None = None
            while True:
                while not ended and len(buf) < want:
                    try:
                        block = source.read(READ_BYTES)
                    except InvalidDataError as err:
                        cut, ended = str(err), True
                        break
                    if not block:
                        ended = True
                    buf += block
                if len(buf) > partition_bytes:
                    low = max(partition_bytes - BACK_BYTES, 0)
                    window = bytes(buf[low:])
                    at = boundary(io.BytesIO(window), partition_bytes - low, cuts, ndjson)
                    found = None if at is None or at >= len(window) else at + low
                if found is not None or ended:
                    break
                if len(buf) > partition_bytes + 2 * MAX_GAME_BYTES:
                    raise InvalidRecordError(f"{url}: no game begins in the {len(buf) - partition_bytes} bytes "
                                             f"after byte {offset + partition_bytes}")
                want = len(buf) + READ_BYTES
            if found is None:
                if buf or cut is not None:
                    yield offset, bytes(buf), None, cut
                return
            end = buf.find(b"\n", found)
            lookahead = bytes(buf[found:end + 1 if end >= 0 else len(buf)])
            yield offset, bytes(buf[:found]), lookahead, None
            del buf[:found]
            offset += found


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


def _client(opts: Options) -> tuple[Any, Any]:
    """``(client, cluster)``: a client of ``opts.scheduler`` (cluster ``None``), else of a new local cluster of
    ``opts.workers`` processes (default one a core), one thread each."""
    from dask.distributed import Client, LocalCluster

    if opts.scheduler:
        return Client(opts.scheduler), None
    cluster = LocalCluster(n_workers=opts.workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                           dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"})
    # no dashboard; the scheduler's HTTP endpoints on a free port (its default, 8787, warns when another has it)
    return Client(cluster), cluster


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
    for stale in os.listdir(staging):  # temporary files of partitions cut short by a killed run
        if stale.startswith(".part-") and stale.endswith(".tmp"):
            os.remove(os.path.join(staging, stale))
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
    own = client is None
    cluster = None
    if own:
        client, cluster = _client(opts)
    last = [0.0]

    every = float(os.environ.get("PLYBITS_PROGRESS_SECONDS", "2"))

    def games_read(event: tuple[float, dict[str, int]]) -> None:  # workers' progress, as games are read
        tally["read"] += event[1]["games"]
        if time.monotonic() - last[0] >= every:
            last[0] = time.monotonic()
            report(tally)

    client.subscribe_topic(PROGRESS_TOPIC, games_read)
    try:
        run = _Run(client, opts, manifest, tally, report)
        for source_index, url in enumerate(opts.inputs):
            run.source(url, plan(url, source_index, opts))
        run.drain(0)
    finally:
        client.unsubscribe_topic(PROGRESS_TOPIC)
        if own:
            client.close()
            if cluster is not None:
                cluster.close()
    for name in sorted(manifest["partitions"]):  # the whole set appears at once (a run of renames)
        path = os.path.join(staging, name + ".parquet")
        if os.path.exists(path):
            os.replace(path, os.path.join(opts.out, name + ".parquet"))
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
    """A partition in flight: its build and count tasks, or ``done`` (its file exists: its summary)."""

    part: Partition
    built: Any = None
    count: Any = None
    done: dict[str, Any] | None = None


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

    def _result(self, future: Any) -> Any:
        try:
            return future.result()
        except Exception as err:  # e.g. every worker that tried it died (KilledWorker)
            raise PartitionFailed(f"partition {future.key} failed: {type(err).__name__}: {err}; the partitions "
                                  "written are kept, run the command again to resume") from err

    def _finish(self, future: Any) -> None:
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
        name = f"plybits-{self.key}-{part.name}-{part.end}"
        built = self.client.submit(build_partition, part, key=name + "-build", pure=False, retries=2)
        count = self.client.submit(built_count, built, key=name + "-count", pure=False, retries=2)
        self.tally["submitted"] += 1
        return _Slot(part, built, count)

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
            self.drain(-1, also=slot.count)
            rows, seam = self._result(slot.count)
            if not seam:
                if len(queue) < 2:
                    queue.append(self._slot(next(parts)))  # a seam that is not at the end has a partition after it
                merged = merge(slot.part, queue[1].part)
                queue[:2] = [self._slot(merged)]
                continue
            self.drain(self.window - 1)
            self.writes.append(self.client.submit(write_partition, slot.built, number, os.path.abspath(self.opts.out),
                                                  key=f"plybits-{self.key}-{slot.part.name}-write", pure=False,
                                                  retries=2))
            number += rows
            covered = slot.part.end
            queue.pop(0)
            fill()


def plan(url: str, source_index: int, opts: Options) -> Iterator[Partition]:
    """The partitions of one source, in order (a function of the input and ``opts.partition_bytes`` only)."""
    def name(i: int) -> str:
        return f"part-{source_index:04d}-{i:06d}"

    ndjson = is_ndjson(url)
    if is_compressed(url):
        chunks = stream_chunks(url, opts.game, opts.partition_bytes, ndjson)
        for i, (offset, data, lookahead, cut) in enumerate(chunks):
            yield Partition(name(i), url, opts.game, opts.scheme, offset, offset + len(data), data, cut,
                            opts.max_plies, ndjson, lookahead, opts.fidelity)
        return
    for i, (start, end) in enumerate(byte_ranges(url, opts.game, opts.partition_bytes, ndjson)):
        yield Partition(name(i), url, opts.game, opts.scheme, start, end, max_plies=opts.max_plies, ndjson=ndjson,
                        fidelity=opts.fidelity)


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


__all__ = ["Options", "Partition", "decode_dataset", "encode_dataset", "games_table", "info", "pieces"]
