"""The dataset job's input side: a source cut into partitions of whole games, and each partition read back into
the pieces of text of its games.

An uncompressed file is cut into byte ranges that each start at a game boundary (:func:`byte_ranges`, read by the
workers in parallel); a compressed stream is decompressed once, by the client, in one pass over its lines
(:func:`stream_chunks`), and handed out in chunks cut where the record splitter's own rule, having read the whole
stream so far, starts a game. A line or a game too long to be read is never held whole: a line is kept to its
first :data:`MAX_GAME_BYTES` + 1 bytes, the rest counted (:attr:`Partition.skips`), so that every line of the
input is a row (NDJSON) or part of one, and its row's offset is its own.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import IO, Protocol

import fsspec

from app.inputs import SNIFF_BYTES, ByteSource, is_compressed, looks_ndjson, open_url
from plybits import registry
from plybits.errors import InvalidDataError, InvalidRecordError, PlybitsError
from plybits.pgntext import RecordCuts
from plybits.records import DEFAULT_MAX_PLIES
from plybits.streams import line_text, split_stream

MAX_GAME_BYTES = 16 << 20
"""Longest game (or NDJSON line) read; a longer one is an error row."""
BACK_BYTES = 1 << 16
"""Text read before a cut point by :func:`boundary`, so that the rule sees where the game there stands."""
READ_BYTES = 1 << 16
"""Decompressed bytes read from a stream at a time (of a truncated gzip, bz2 or xz stream, the last such read is
lost with the error)."""

Skips = tuple[tuple[int, int], ...]
"""``(at, left)`` pairs of a chunk of a stream: ``left`` bytes of the stream were left out at ``data[at]``."""


class LineReader(Protocol):
    """A binary file read by lines (a plain file, or a decompressing one)."""

    def readline(self, size: int = -1, /) -> bytes: ...


def sized_lines(source: LineReader, start: int, end: int | None) -> Iterator[tuple[int, bytes, int]]:
    """``(offset, line, size)`` of every line beginning in ``[start, end)`` of ``source`` (positioned at ``start``):
    ``size`` is the line's own length, ``line`` its first :data:`MAX_GAME_BYTES` + 1 bytes at most (the rest is
    skipped without being held)."""
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
        yield offset, line, size
        offset += size


def lines_of(source: LineReader, start: int, end: int | None) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` of :func:`sized_lines` (a line longer than :data:`MAX_GAME_BYTES` is cut short: its game
    then fails as over the limit)."""
    for offset, line, _ in sized_lines(source, start, end):
        yield offset, line


def held_lines(data: bytes, start: int, skips: Skips = ()) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` of every line of a chunk of a stream that begins at ``start``, the bytes left out at
    ``skips`` counted: a line cut short there ends there."""
    offset, pos, size = start, 0, len(data)
    pending = list(skips)
    pending.reverse()
    while pos < size or pending:
        while pending and pending[-1][0] == pos:  # whole lines left out here
            offset += pending.pop()[1]
        if pos >= size:
            return
        end = data.find(b"\n", pos)
        end = size if end < 0 else end + 1
        left = 0
        if pending and pending[-1][0] < end:  # a line cut short
            end, left = pending.pop()
        yield offset, data[pos:end]
        offset += end - pos + left
        pos = end


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
    """The games of an NDJSON stream: one per non-blank line, without its ``\n`` (the line the batch core reads:
    ``json.loads`` tells UTF-16 from the bytes, a newline among them)."""
    for offset, raw in lines:
        if raw.strip():
            yield Piece(offset, [raw.removesuffix(b"\n")], len(raw))


def piece_records(game_name: str, piece: Piece) -> list[str | PlybitsError]:
    """The records of one piece, each a text or the error that stood in its way: the piece itself for a game whose
    files :func:`pieces` cut (it cut them as :func:`plybits.streams.split_stream` does: not again), else the
    records :func:`~plybits.streams.split_stream` reads in it."""
    if piece.size > MAX_GAME_BYTES:
        return [InvalidRecordError(f"game of more than {MAX_GAME_BYTES} bytes is over the limit")]
    texts = [line_text(raw, piece.offset == 0 and i == 0) for i, raw in enumerate(piece.lines)]
    if registry.get_game(game_name).splits_records:
        return ["".join(text if text.endswith("\n") else text + "\n" for text in texts)]
    return list(split_stream(game_name, texts, max_chars=MAX_GAME_BYTES))


def boundary(source: IO[bytes], at: int, cuts: bool, ndjson: bool = False) -> int | None:
    """The offset of the first game that starts at or after byte ``at`` (``None``: none does).

    NDJSON: the first line that starts there (the line holding byte ``at - 1`` read to its end, however long).
    Records: the first line where :class:`plybits.pgntext.RecordCuts` (the record splitter's own rule) starts a
    record, the rule reading from up to :data:`BACK_BYTES` before ``at``. That state is a guess (a ``{...}``
    comment may have opened further back): the partition before the cut checks it (:func:`seam_ok`), from its
    own start.
    """
    if at == 0:
        return 0
    if ndjson:
        source.seek(at - 1)
        for offset, _, _ in sized_lines(source, at - 1, None):
            if offset >= at:
                return offset
        return None
    if not cuts:
        return None
    begin = max(at - BACK_BYTES, 0)
    source.seek(begin)
    if begin:
        begin += len(source.readline(MAX_GAME_BYTES + 1))  # from the first whole line
    records = RecordCuts()
    for offset, raw in lines_of(source, begin, None):
        if records.starts_record(line_text(raw, offset == 0)) and offset >= at:
            return offset
    return None


def seam_ok(records: RecordCuts, cuts: bool, lookahead: bytes | None) -> bool:
    """Whether the line ``lookahead`` (``None``: the end of the source) begins a game, to ``records`` having read
    everything before it."""
    return lookahead is None or not cuts or records.starts_record(line_text(lookahead))


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
    return list(zip(starts, starts[1:] + [size], strict=False))  # an empty file: none


class StreamLines:
    """A decompressing stream read by lines; a cut or corrupt stream ends it, its error kept in :attr:`cut`."""

    def __init__(self, source: ByteSource) -> None:
        self.source = source
        self.buf = bytearray()
        self.pos = 0
        self.scanned = 0  # no newline in buf[pos:scanned]
        self.cut: str | None = None

    def readline(self, size: int = -1, /) -> bytes:
        """The next line, or its first ``size`` bytes."""
        while True:
            end = self.buf.find(b"\n", self.scanned)
            held = len(self.buf) - self.pos
            if end >= 0 and (size < 0 or end - self.pos < size):
                return self._take(end + 1 - self.pos)
            if 0 <= size <= held:
                return self._take(size)
            self.scanned = len(self.buf)
            block = b""
            if self.cut is None:
                try:
                    block = self.source.read(READ_BYTES)
                except InvalidDataError as err:
                    self.cut = str(err)
            if not block:
                return self._take(held)
            if self.pos:
                del self.buf[:self.pos]
                self.scanned -= self.pos
                self.pos = 0
            self.buf += block

    def _take(self, n: int) -> bytes:
        out = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        self.scanned = max(self.scanned, self.pos)
        return out


@dataclass(frozen=True)
class Chunk:
    """A chunk of a stream: the text from ``offset`` (lines cut short or left out at ``skips``), and ``cut``: the
    stream ends inside its last game (a decompression error)."""

    offset: int
    data: bytes
    skips: Skips = ()
    cut: str | None = None


def stream_chunks(url: str, game: str, partition_bytes: int, ndjson: bool = False) -> Iterator[Chunk]:
    """The chunks of a compressed stream, read once, line by line: each about ``partition_bytes``, cut at the
    first line from there on that begins a game (NDJSON: any line; records: where
    :class:`plybits.pgntext.RecordCuts`, having read every line before, starts a record; a game whose files are
    not cut: never). The client only decompresses and cuts: the games are read by the workers.

    Nothing unbounded is held: a line is kept to its first :data:`MAX_GAME_BYTES` + 1 bytes, and the lines of a
    game once it runs :data:`MAX_GAME_BYTES` past the chunk's size (it is an error row then) are left out, both
    counted in :attr:`Chunk.skips`.
    """
    cuts = ndjson or registry.get_game(game).splits_records
    records = RecordCuts()
    with open_url(url) as source:
        reader = StreamLines(source)
        start, held, skips, size = 0, bytearray(), list[tuple[int, int]](), 0
        for offset, line, length in sized_lines(reader, 0, None):
            if size >= partition_bytes and cuts:
                begins = ndjson or records.starts_record(line_text(line, offset == 0))
                if begins:
                    yield Chunk(start, bytes(held), tuple(skips))
                    start, size = offset, 0
                    held.clear()
                    skips.clear()
            elif cuts and not ndjson:
                records.starts_record(line_text(line, offset == 0))
            if not ndjson and size > partition_bytes + MAX_GAME_BYTES + 1:  # inside a game over the limit
                line = b""
            held += line
            if length > len(line):
                if skips and skips[-1][0] == len(held):
                    skips[-1] = (len(held), skips[-1][1] + length - len(line))
                else:
                    skips.append((len(held), length - len(line)))
            size += length
        if held or skips or reader.cut is not None:
            yield Chunk(start, bytes(held), tuple(skips), reader.cut)


# --- partitions ------------------------------------------------------------------------------------------


@dataclass
class Partition:
    """One unit of work: a byte range ``[start, end)`` of a file (``data`` None), or whole games of a stream handed
    over (``data``, the text from ``start``, with its :data:`Skips`). ``lookahead``: the line after a byte range
    (``None``: the source ends there), for the seam check; ``cut``: the stream ends inside the last game."""

    name: str
    source: str
    game: str
    scheme: str
    start: int
    end: int
    """Byte offsets in the source's (uncompressed) text: ``end`` counts what a stream chunk's :attr:`skips` left
    out."""
    data: bytes | None = None
    cut: str | None = None
    max_plies: int = DEFAULT_MAX_PLIES
    ndjson: bool = False
    lookahead: bytes | None = None
    fidelity: str = "full"
    skips: Skips = ()
    stream: bool = False
    """A chunk of a stream (its bytes come with it, or beside it: :func:`app.dataset.build_partition`)."""


def partition_lines(part: Partition, data: bytes | None = None) -> Iterator[tuple[int, bytes]]:
    """``(offset, line)`` of every line of a stream chunk's partition (``data``: its bytes, else its own)."""
    held = part.data if data is None else data
    assert held is not None, "a stream chunk's partition needs its bytes"
    return held_lines(held, part.start, part.skips)


def merge(first: Partition, second: Partition) -> Partition:
    """One partition of two neighbours whose seam is not at a game (the first's name)."""
    data = skips = None
    if first.data is not None and second.data is not None:
        data = first.data + second.data
        skips = first.skips + tuple((at + len(first.data), left) for at, left in second.skips)
    return replace(first, end=second.end, data=data, cut=second.cut, lookahead=second.lookahead,
                   skips=skips or ())


def is_ndjson(url: str) -> bool:
    """Whether ``url`` holds NDJSON (``.ndjson``, ``.jsonl``, compressed or not, or a first byte ``{``; as
    :func:`app.inputs.sniff` tells): one encode request a line."""
    with open_url(url) as source:
        head = StreamLines(source).readline(SNIFF_BYTES)  # a cut stream's error is its last row's, not here
    return looks_ndjson(url, head)


def plan(url: str, source_index: int, game: str, scheme: str, partition_bytes: int, *,
         max_plies: int = DEFAULT_MAX_PLIES, fidelity: str = "full") -> Iterator[Partition]:
    """The partitions of one source, in order (a function of the input and ``partition_bytes`` only)."""
    def name(i: int) -> str:
        return f"part-{source_index:04d}-{i:06d}"

    ndjson = is_ndjson(url)
    if is_compressed(url):
        for i, chunk in enumerate(stream_chunks(url, game, partition_bytes, ndjson)):
            end = chunk.offset + len(chunk.data) + sum(left for _, left in chunk.skips)
            yield Partition(name(i), url, game, scheme, chunk.offset, end, chunk.data, chunk.cut, max_plies, ndjson,
                            None, fidelity, chunk.skips, stream=True)
        return
    for i, (start, end) in enumerate(byte_ranges(url, game, partition_bytes, ndjson)):
        yield Partition(name(i), url, game, scheme, start, end, max_plies=max_plies, ndjson=ndjson,
                        fidelity=fidelity)


__all__ = ["BACK_BYTES", "MAX_GAME_BYTES", "Chunk", "Partition", "Piece", "boundary", "byte_ranges", "held_lines",
           "line_pieces", "lines_of", "merge", "piece_records", "pieces", "plan", "seam_ok", "stream_chunks"]
