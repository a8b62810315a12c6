"""Turn tokens (``Rd4``, ``Rd4d7``) and the plain-text record of a New Entropy game.

A token is a colour letter (``R G O B Y W K``), the cell where the chip is placed (``a1``..``g7``)
and, if the chip was slid, the cell it was slid to. Case: letters are read in either case
(``rd4``, ``RD4D7``), since each position of a token has only one meaning; tokens are always
written with an upper-case colour and lower-case files (``Rd4d7``). Nothing else is accepted inside
a token: no spaces, dashes or ``x``. A slide to the cell it starts from is refused (write ``Rd4``).

A record is the tokens separated by white space, optionally preceded by PGN-style tag lines
``[Name "value"]``; a ``Start`` (or ``FEN``) tag gives the start position string. Move numbers
(``12.``) are skipped; comments, NAGs and variations are dropped and counted (:func:`plybits.pgntext.read`). In a file of several records, a
record ends at a blank line or where the next one's tag lines begin (:func:`split_records`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from plybits import pgntext
from plybits.entropy.board import COLOURS, GEOMETRY, Turn
from plybits.errors import InvalidMoveError, InvalidRecordError, UnknownCodecError
from plybits.game import Record
from plybits.pgntext import tag_line

NOTATIONS: Final = ("tokens",)
START_TAGS: Final = ("Start", "FEN")


def check_notation(notation: str | None) -> None:
    """Accept ``None`` or ``"tokens"``.

    :raises UnknownCodecError: for any other notation name.
    """
    if notation is not None and notation not in NOTATIONS:
        raise UnknownCodecError(f"unknown notation {notation!r} for entropy; known: {', '.join(NOTATIONS)}")


def parse_colour(letter: str) -> int:
    """Colour index (``R G O B Y W K`` = 0..6) of a colour letter in either case.

    :raises InvalidMoveError: if it is not one of the seven letters.
    """
    index = COLOURS.find(letter.upper()) if isinstance(letter, str) and len(letter) == 1 else -1
    if index < 0:
        raise InvalidMoveError(f"unknown colour {letter!r} (one of {' '.join(COLOURS)})")
    return index


def parse_square(name: str) -> int:
    """Mailbox index of a cell name ``a1``..``g7`` (file letter in either case).

    :raises InvalidMoveError: if there is no such cell.
    """
    try:
        return GEOMETRY.parse(name.lower())
    except InvalidMoveError:
        raise InvalidMoveError(f"unknown cell {name!r} (files a-g, rows 1-7)") from None


def parse_token(token: str) -> Turn:
    """The turn written as ``token`` (syntax only; whether it is legal is the board's business).

    >>> parse_token("Rd4d7")
    Turn.from_token('Rd4d7')

    :raises InvalidMoveError: on a malformed token, an unknown colour or cell, or a slide that does not move.
    """
    if not isinstance(token, str) or len(token) not in (3, 5):
        raise InvalidMoveError(
            f"bad turn token {token!r}: expected a colour letter and a cell (Rd4), "
            "optionally followed by the cell the chip slides to (Rd4d7)"
        )
    colour = parse_colour(token[0])
    cell = parse_square(token[1:3])
    if len(token) == 3:
        return Turn(colour, cell, cell)
    to = parse_square(token[3:5])
    if to == cell:
        raise InvalidMoveError(
            f"bad turn token {token!r}: a slide must move; write {token[:3]!r} to leave the chip in place"
        )
    return Turn(colour, cell, to)


def write_token(turn: Turn) -> str:
    """``turn`` as its canonical token: upper-case colour, lower-case cells."""
    return turn.token()


def parse_record(text: str) -> Record:
    """Tags, start and tokens of a record (tokens unchecked: the replay checks them).

    :raises InvalidRecordError: on a malformed tag or an unclosed comment.
    """
    read = pgntext.read(text, kind="Entropy record")
    tags = read.tags
    starts = {tags.pop(name) for name in START_TAGS if name in tags}
    if len(starts) > 1:
        raise InvalidRecordError(f"the Start and FEN tags disagree: {sorted(starts)!r}")
    start = starts.pop() if starts else None
    return Record(moves=read.moves, start=start, tags=tags, dropped=read.dropped)


def write_record(record: Record) -> str:
    """Tags (the start as a ``Start`` tag), a blank line, then the tokens separated by spaces."""
    tags = dict(record.tags)
    if record.start is not None:
        tags = {"Start": record.start, **tags}
    head = "".join(tag_line(name, value) + "\n" for name, value in tags.items())
    body = " ".join(record.moves)
    return f"{head}\n{body}\n" if head else f"{body}\n"


def split_records(text: str) -> Iterator[str]:
    """The records of a multi-record text, lazily, without the blank lines around them: a record ends at a
    blank line after its tokens or where tag lines follow its tokens (:func:`plybits.pgntext.split_records`)."""
    return (record.strip() for record in pgntext.split_records(text))
