"""Turn tokens (``Rd4``, ``Rd4d7``) and the plain-text record of a New Entropy game.

A token is a colour letter (``R G O B Y W K``), the cell where the chip is placed (``a1``..``g7``)
and, if the chip was slid, the cell it was slid to. Case: letters are read in either case
(``rd4``, ``RD4D7``), since each position of a token has only one meaning; tokens are always
written with an upper-case colour and lower-case files (``Rd4d7``). Nothing else is accepted inside
a token: no spaces, dashes or ``x``. A slide to the cell it starts from is refused (write ``Rd4``).

A record is the tokens separated by white space, optionally preceded by PGN-style tag lines
``[Name "value"]``; a ``Start`` (or ``FEN``) tag gives the start position string. Move numbers
(``12.``) are skipped; comments, NAGs and variations are read into :attr:`Record.notes` (:func:`plybits.pgntext.read`). In a file of several records, a
record ends at a blank line or where the next one's tag lines begin (:func:`split_records`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from plybits import pgntext
from plybits.entropy.board import Board, Turn
from plybits.entropy.board import parse_colour as parse_colour
from plybits.entropy.board import parse_square as parse_square
from plybits.entropy.board import parse_token as parse_token
from plybits.errors import InvalidMoveError, InvalidRecordError
from plybits.game import Record
from plybits.pgntext import tag_line

NOTATIONS: Final = ("tokens",)
START_TAGS: Final = ("Start", "FEN")
UNWRAPPED: Final = 1 << 62
"""A movetext width no record reaches: tokens are written on one line (a ``;`` comment ends it)."""


def parse_move(board: Board, text: str, notation: str | None = None) -> Turn:
    """The legal turn written as the token ``text`` on ``board`` (tokens are the only notation, as the verbs
    checked).

    :raises InvalidMoveError: on a malformed token or an unknown colour or cell.
    :raises IllegalMoveError: if the turn is not possible here (the reason names the cell or chip).
    """
    assert notation is None or notation in NOTATIONS, notation
    turn = parse_token(text)
    board.check(turn)
    return turn


def move_text(board: Board, move: Turn, notation: str | None = None) -> str:
    """``move`` written as a turn token (the only notation, as the verbs checked)."""
    assert notation is None or notation in NOTATIONS, notation
    return move.token()


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
    return Record(moves=read.moves, start=start, tags=tags, dropped=read.dropped, notes=read.notes, faults=read.faults)


def write_record(record: Record) -> str:
    """Tags (the start as a ``Start`` tag), a blank line, then the tokens separated by spaces; an annotated record
    (``record.notes`` not ``None``) with its comments, NAGs, variations and result token as read."""
    tags = dict(record.tags)
    if record.start is not None:
        tags = {"Start": record.start, **tags}
    head = "".join(tag_line(name, value) + "\n" for name, value in tags.items())
    if record.notes is None:
        body = " ".join(record.moves)
    else:
        body = pgntext.movetext(record.moves, record.notes.result, width=UNWRAPPED, notes=record.notes, numbers=False)
    return f"{head}\n{body}\n" if head else f"{body}\n"


def split_records(text: str) -> Iterator[str]:
    """The records of a multi-record text, lazily, without the blank lines around them: a record ends at a
    blank line after its tokens or where tag lines follow its tokens (:func:`plybits.pgntext.split_records`)."""
    return (record.strip() for record in pgntext.split_records(text))
