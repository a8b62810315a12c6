"""Lazy splitting of big inputs: byte streams into lines, multi-record files into records.

Used by the batch endpoints and the command-line tool, so that only one line or one record is held at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final, Literal, overload

from plybits.errors import LimitExceededError, PlybitsError
from plybits.pgntext import LongLine, cut_records
from plybits.registry import get_game

__all__ = ["TOO_LONG", "LongLine", "line_text", "record_lines", "split_lines", "split_stream"]

TOO_LONG = None
"""What :func:`split_lines` yields in place of a line longer than its limit (unless asked for its head)."""
HEAD_BYTES: Final = 64
"""How much of an over-long line of a record file is kept (:class:`~plybits.pgntext.LongLine`)."""


@overload
def split_lines(chunks: Iterable[bytes], max_bytes: int, *, head: int) -> Iterator[bytes | LongLine]: ...
@overload
def split_lines(chunks: Iterable[bytes], max_bytes: int, *, head: Literal[0] = 0) -> Iterator[bytes | None]: ...
def split_lines(chunks: Iterable[bytes], max_bytes: int, *, head: int = 0) -> Iterator[bytes | LongLine | None]:
    """The lines of a byte stream read chunk by chunk, without their ``\\n``, lazily.

    A line longer than ``max_bytes`` is never held whole: :data:`TOO_LONG` (``None``) stands in its place,
    or with ``head`` a :class:`~plybits.pgntext.LongLine` holding its first ``head`` bytes.
    A final line without ``\\n`` counts; an empty stream has no lines.
    """
    buf = bytearray()
    skipping: bytes | None = None  # the head of the over-long line being skipped
    for chunk in chunks:
        parts = chunk.split(b"\n")  # the chunk's whole lines at once: a chunk is held anyway
        last = len(parts) - 1
        if last:
            if skipping is None:
                buf += parts[0]
                if len(buf) > max_bytes:
                    skipping = bytes(buf[:head])
            if skipping is not None:
                yield LongLine(skipping) if head else TOO_LONG
            else:
                yield bytes(buf)
            buf.clear()
            skipping = None
            for at in range(1, last):
                line = parts[at]
                if len(line) > max_bytes:
                    yield LongLine(line[:head]) if head else TOO_LONG
                else:
                    yield line
        if skipping is None:
            buf += parts[last]
            if len(buf) > max_bytes:
                skipping = bytes(buf[:head])
                buf.clear()
    if skipping is not None:
        yield LongLine(skipping) if head else TOO_LONG
    elif buf:
        yield bytes(buf)


def record_lines(chunks: Iterable[bytes], max_bytes: int) -> Iterator[str | LongLine]:
    """The lines of a record file read chunk by chunk, as text with their ``\\n``, for :func:`split_stream`.

    UTF-8 (a leading BOM dropped), a line that is not UTF-8 read as Latin-1; no ``\\r`` before the ``\\n``.
    A line longer than ``max_bytes`` comes as a :class:`~plybits.pgntext.LongLine`.
    """
    lines = split_lines(chunks, max_bytes, head=HEAD_BYTES)
    for raw in lines:  # the first line (its BOM), then the others
        yield raw if isinstance(raw, LongLine) else line_text(raw, True) + "\n"
        break
    for raw in lines:
        yield raw if isinstance(raw, LongLine) else line_text(raw) + "\n"


def line_text(raw: bytes, first: bool = False) -> str:
    """A line of a record file as text: UTF-8 (a BOM dropped from the ``first`` line), else Latin-1; no ``\\r``."""
    if first and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return text.rstrip("\r") if text.endswith("\r") else text


def split_stream(
    game_name: str, lines: Iterable[str | LongLine | None], *, max_chars: int = 1 << 20, ended: bool = False
) -> Iterator[str | PlybitsError]:
    """The records of a multi-record file read line by line (a multi-game PGN, say), lazily.

    The lines come as :func:`record_lines` gives them (a line without its ``\\n`` is read as if it had one).
    A game whose :attr:`~plybits.game.Game.splits_records` is set gets the text cut as
    :func:`plybits.pgntext.split_records` cuts it, so only one record is ever held; any other game reads
    the whole text as one record. A record over ``max_chars``, or holding a line over the line limit (a
    :class:`~plybits.pgntext.LongLine`, or ``None``), is not held: a :class:`LimitExceededError` is
    yielded in its place, and its neighbours are read as usual. ``ended``: every text line already ends with its
    ``\n`` (as :func:`record_lines` gives them), so none is looked at for it.
    """
    if not ended:
        lines = _ended(lines)
    if get_game(game_name).splits_records:
        yield from cut_records(lines, max_chars=max_chars)
        return
    piece: list[str] = []
    size = 0
    problem: str | None = None
    for line in lines:
        if not isinstance(line, str):
            problem = "a line of this record is longer than the line limit"
        elif problem is None:
            size += len(line)
            if size > max_chars:
                problem = f"record of more than {max_chars} characters is over the limit"
            piece.append(line)
    if problem is not None:
        yield LimitExceededError(problem)
    elif piece and not "".join(piece).isspace():
        yield "".join(piece)


def _ended(lines: Iterable[str | LongLine | None]) -> Iterator[str | LongLine | None]:
    """``lines`` lazily, each text line ending with its ``\\n`` (a generator function: compiled, a generator
    expression would be read whole into a list)."""
    for line in lines:
        yield line if line is None or isinstance(line, LongLine) or line.endswith("\n") else line + "\n"
