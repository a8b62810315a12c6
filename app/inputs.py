"""The pipeline's inputs: a file (or standard input, or an fsspec URL), compressed or not, opened as its
uncompressed bytes and sniffed once for its kind and game.

Decompression is told by the first bytes (:data:`COMPRESSED`), whatever the file is called; what a game's file
looks like is asked of each game (:meth:`plybits.game.Game.sniff`). The ``plybits`` verbs and the dataset job
both read their inputs through here.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Protocol, cast

from plybits import registry
from plybits.errors import InvalidDataError
from plybits.game import RecordHead

COMPRESSED: dict[bytes, str] = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd"}
"""Magic bytes of the compressed inputs read as they are (whatever the file is called)."""
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")
"""Suffixes of compressed files, dropped from a name before its own extension is read."""
MAGIC_BYTES = 6
"""Bytes read to tell a compressed input."""
ZSTD_FEED = 256
"""Compressed bytes given to the zstd decompressor at a time."""
SNIFF_BYTES = 1 << 16
"""How much of the input is read to tell its kind and game."""


class ByteSource(Protocol):
    """A readable byte stream: a file, standard input, or a decompressing reader."""

    def read(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


def compression(head: bytes) -> str | None:
    """The compression (``gzip``, ``bz2``, ``xz``, ``zstd``) whose magic ``head`` starts with, or ``None``."""
    return next((kind for magic, kind in COMPRESSED.items() if head.startswith(magic)), None)


def decompressing(raw: ByteSource, kind: str, name: str) -> Decompressed:
    """``raw`` (positioned at its start) read through the decompressor of ``kind``; closing it closes ``raw``.

    :raises OSError: a zstd input and no zstandard package.
    """
    stream: ByteSource
    file = cast("IO[bytes]", raw)  # the readers read and close it only
    if kind == "gzip":
        stream = gzip.GzipFile(fileobj=file, mode="rb")
    elif kind == "bz2":
        stream = bz2.BZ2File(file, mode="rb")
    elif kind == "xz":
        stream = lzma.LZMAFile(file, mode="rb")
    else:
        stream = ZstdReader(raw, name)
    return Decompressed(stream, raw)


def open_input(path: str) -> tuple[ByteSource, int | None]:
    """The decompressed byte stream of ``path`` (``-``: standard input) and its size when known and not
    compressed (for the progress bar).

    :raises OSError: the file cannot be read, or is compressed in a way this Python cannot read.
    """
    reader: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    if not isinstance(reader, io.BufferedReader):  # no peeking: read as it is
        return reader, None
    kind = compression(reader.peek(MAGIC_BYTES)[:MAGIC_BYTES])
    if kind is None:
        return reader, None if path == "-" else os.path.getsize(path)
    return decompressing(reader, kind, path), None


@contextmanager
def open_url(url: str) -> Iterator[ByteSource]:
    """The uncompressed bytes of the file or fsspec URL ``url``, compressed or not (told by its magic), read from
    its start; a cut or corrupt compressed stream raises :class:`InvalidDataError` when read."""
    import fsspec

    with fsspec.open(url, "rb") as raw:
        kind = compression(raw.read(MAGIC_BYTES))
        raw.seek(0)
        reader: ByteSource = raw if kind is None else decompressing(raw, kind, url)
        try:
            yield reader
        finally:
            if kind is not None:
                reader.close()


def is_compressed(url: str) -> bool:
    """Whether the file or fsspec URL ``url`` is compressed (by its magic bytes): read once, not seekable."""
    import fsspec

    with fsspec.open(url, "rb") as raw:
        return compression(raw.read(MAGIC_BYTES)) is not None


class ZstdReader:
    """Zstandard frames, one after another, decompressed; a stream cut inside a frame is an error (the
    zstandard package's own stream reader ends quietly there). Compressed bytes go in :data:`ZSTD_FEED` at a
    time, so one step never holds more than that much input can expand to (a few MB at zstd's largest ratio).

    :raises OSError: the zstandard package is not installed.
    """

    def __init__(self, raw: ByteSource, path: str) -> None:
        try:
            import zstandard
        except ImportError as err:
            raise OSError(f"{path}: a zstd file, and the zstandard package is not installed") from err
        self.new = zstandard.ZstdDecompressor().decompressobj
        self.raw, self.frame, self.started, self.pending, self.at = raw, self.new(), False, b"", 0

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` decompressed bytes (``b""`` at the end); what one feed gave is read from, never copied
        again (a feed of a highly compressed stream may give megabytes)."""
        if self.at >= len(self.pending):
            self.pending, self.at = b"", 0
            while not self.pending:
                chunk = self.raw.read(ZSTD_FEED)
                if not chunk:
                    if self.started and not self.frame.eof:
                        raise InvalidDataError("zstd input ends inside a frame")
                    return b""
                while chunk:
                    if self.frame.eof:
                        self.frame = self.new()
                    self.started = True
                    self.pending += self.frame.decompress(chunk)
                    chunk = self.frame.unused_data if self.frame.eof else b""
        end = len(self.pending) if size < 0 else min(len(self.pending), self.at + size)
        out = self.pending[self.at:end]
        self.at = end
        return out

    def close(self) -> None:
        self.raw.close()


class Decompressed:
    """A decompressing reader that also closes the file under it (the readers given a file object do not)."""

    def __init__(self, stream: ByteSource, raw: ByteSource) -> None:
        self.stream, self.raw = stream, raw

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` decompressed bytes.

        :raises InvalidDataError: the compressed data is cut or corrupt (whichever format's error it is).
        """
        try:
            return self.stream.read(size)
        except Exception as err:  # gzip, bz2, lzma and zstandard each raise their own
            raise InvalidDataError(f"compressed input is cut or corrupt: {err}") from err

    def close(self) -> None:
        self.stream.close()
        if self.raw is not sys.stdin.buffer:
            self.raw.close()


# --- what an input holds ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sniffed:
    """What the start of an input looks like: its format, and its game with the reason, when it shows."""

    format: str
    game: str | None = None
    because: str = ""


def plain_name(name: str) -> str:
    """``name`` in lower case without a compression suffix (``games.pgn.zst``: ``games.pgn``)."""
    lower = name.lower()
    for suffix in COMPRESSED_SUFFIXES:
        lower = lower.removesuffix(suffix)
    return lower


def looks_ndjson(name: str, head: bytes) -> bool:
    """Whether an input called ``name`` that starts with ``head`` is NDJSON: its extension (``.ndjson``,
    ``.jsonl``), else a first non-blank byte ``{``."""
    return plain_name(name).endswith((".ndjson", ".jsonl")) or head.lstrip()[:1] == b"{"


def sniff(name: str, head: bytes) -> Sniffed:
    """The format (``ndjson``, ``records`` or ``auto`` when unsure) and game the file called ``name`` that
    starts with ``head`` (uncompressed) looks like: NDJSON by :func:`looks_ndjson`, else the first game whose
    :meth:`~plybits.game.Game.sniff` claims it."""
    if looks_ndjson(name, head):
        return Sniffed("ndjson")
    record = RecordHead.read(plain_name(name), head.decode("utf-8", "replace"))
    for game in registry.games():
        because = game.sniff(record)
        if because is not None:
            return Sniffed("records", game.name, because)
    if record.name.endswith(".pgn") or record.tags:
        return Sniffed("records")
    return Sniffed("auto")


__all__ = ["ByteSource", "Decompressed", "Sniffed", "ZstdReader", "compression", "is_compressed", "open_input",
           "open_url", "sniff"]
