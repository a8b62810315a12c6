"""Lazy splitting of big inputs: byte streams into lines, multi-record files into records.

Used by the batch endpoints and the command-line tool, so that only one line or one record is held at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from plybits.errors import LimitExceededError, PlybitsError
from plybits.game import Game
from plybits.pgntext import comment_open_after
from plybits.registry import get_game

TOO_LONG = None
"""What :func:`split_lines` yields in place of a line longer than its limit."""


def split_lines(chunks: Iterable[bytes], max_bytes: int) -> Iterator[bytes | None]:
    """The lines of a byte stream read chunk by chunk, without their ``\\n``, lazily.

    A line longer than ``max_bytes`` is never held whole: :data:`TOO_LONG` (``None``) stands in its place.
    A final line without ``\\n`` counts; an empty stream has no lines.
    """
    buf = bytearray()
    skipping = False
    for chunk in chunks:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                if not skipping:
                    buf += chunk[start:]
                    if len(buf) > max_bytes:
                        skipping = True
                        buf.clear()
                break
            if not skipping:
                buf += chunk[start:end]
            if skipping or len(buf) > max_bytes:
                yield TOO_LONG
            else:
                yield bytes(buf)
            buf.clear()
            skipping = False
            start = end + 1
    if skipping:
        yield TOO_LONG
    elif buf:
        yield bytes(buf)


def _cuts_record(line: str, in_moves: bool) -> bool:
    """Whether ``line`` opens a new tag section after movetext (a record boundary in PGN-like files)."""
    return in_moves and line.lstrip().startswith("[")


def split_stream(
    game_name: str, lines: Iterable[str | None], *, max_chars: int = 1 << 20
) -> Iterator[str | PlybitsError]:
    """The records of a multi-record file read line by line (a multi-game PGN, say), lazily.

    Games whose :meth:`~plybits.game.Game.split_records` splits records get the text cut at each tag section
    that follows movetext (outside ``{...}`` comments), so only one record is ever held; each piece then goes
    through the game's own ``split_records``. Other games read the whole text as one record. A record over
    ``max_chars`` (or holding a ``None`` line, see :func:`split_lines`) is skipped and a
    :class:`LimitExceededError` yielded in its place; an error of ``split_records`` is yielded likewise.
    """
    game = get_game(game_name)
    splits = type(game).split_records is not Game.split_records
    piece: list[str] = []
    size = 0
    overflow = False
    in_moves = False
    in_comment = False

    def flush() -> Iterator[str | PlybitsError]:
        if overflow:
            yield LimitExceededError(f"record of more than {max_chars} characters is over the limit")
            return
        text = "\n".join(piece)
        if not text.strip():
            return
        try:
            yield from game.split_records(text)
        except PlybitsError as err:
            yield err

    for line in lines:
        if splits and line is not None and not in_comment and _cuts_record(line, in_moves):
            yield from flush()
            piece, size, overflow, in_moves = [], 0, False, False
        if line is None:
            overflow = True
            continue
        stripped = line.strip()
        if stripped and not stripped.startswith("[") and not in_comment:
            in_moves = True
        in_comment = comment_open_after(line, in_comment)
        if overflow:
            continue
        size += len(line) + 1
        if size > max_chars:
            overflow = True
            piece = []
            continue
        piece.append(line)
    yield from flush()
