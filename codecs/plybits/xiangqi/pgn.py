"""The xqbase-style PGN for xiangqi: tags, ``[Format "ICCS"|"WXF"|"Chinese"]``, ``[FEN]``, numbered movetext, result.

Reading is lenient: the files in the wild may have only ``Event``/``Red``/``Black``
tags (values with unescaped quotes kept as they are), ICCS without the dash, move
numbers and no result. Comments (``{...}``, ``;`` to end of line), variations
(``(...)``) and NAGs (``$n``) are read into :attr:`Record.notes` (:func:`plybits.pgntext.read`). Writing gives the tags, ``Format``, ``FEN`` when the start is not the
standard one, numbered moves (ICCS as xqbase writes it, ``H2-E2``) and the result.
"""

from __future__ import annotations

import re
from typing import Final

from plybits import pgntext
from plybits.errors import InvalidRecordError, PlybitsError
from plybits.game import Record
from plybits.pgntext import closing, movetext, split_records, tag_line
from plybits.xiangqi.board import BLACK, Board

__all__ = ["parse_record", "split_records", "write_record"]

FORMATS: Final = {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese"}
MAX_RECORD: Final = 1 << 20
"""Longest record text read, in characters."""
_ICCS_LOOSE: Final = re.compile(r"^[a-i][0-9][a-i][0-9]$")


def parse_record(text: str) -> Record:
    """A xiangqi PGN record (or a bare move list): tags, start (``[FEN]``), moves as written.

    :raises InvalidRecordError: on a malformed tag, comment or variation.
    """
    if len(text) > MAX_RECORD:
        raise InvalidRecordError(f"record of {len(text)} characters is longer than {MAX_RECORD}")
    read = pgntext.read(text, kind="xiangqi PGN")
    tags = read.tags
    if read.result is not None and read.result != "*" and "Result" not in tags:
        tags["Result"] = read.result
    start = tags.pop("FEN", None)
    tags.pop("Format", None)
    return Record(moves=read.moves, start=start, tags=tags, dropped=read.dropped, notes=read.notes, faults=read.faults)


def write_record(record: Record, notation: str | None = None) -> str:
    """The record as xqbase-style PGN, moves already written in ``notation`` (ICCS when ``None``).

    Bare moves (``record.notes`` is ``None``) get ``[Game "Chinese Chess"]`` and ``[Result "*"]`` where missing;
    an annotated record keeps its tags as they are, and its comments, NAGs, variations and result token as read.
    ``FEN`` (for a start other than the standard one) and ``Format`` follow the tags.

    :raises InvalidRecordError: on an unknown notation or an unreadable start.
    """
    name = notation or "iccs"
    if name not in FORMATS:
        raise InvalidRecordError(f"unknown xiangqi notation {notation!r}; known: {', '.join(FORMATS)}")
    bare = record.notes is None
    lines = ['[Game "Chinese Chess"]'] if "Game" not in record.tags and bare else []
    for key, value in record.tags.items():
        if key not in ("FEN", "Format"):
            lines.append(tag_line(key, value))
    if "Result" not in record.tags and bare:
        lines.append('[Result "*"]')
    black_first = False
    number = 1
    if record.start is not None:
        try:
            board = Board(record.start)
        except PlybitsError as err:
            raise InvalidRecordError(f"start position: {err.reason}") from None
        black_first = board.turn == BLACK
        number = board.fullmove_number
        lines.append(tag_line("FEN", record.start))
    lines.append(f'[Format "{FORMATS[name]}"]')
    body = movetext(record.moves, closing(record.notes, record.tags.get("Result")), width=80, number=number,
                    second_first=black_first, notes=record.notes, spell=_iccs_dashed if name == "iccs" else None)
    return "\n".join(lines) + "\n\n" + body + "\n"


def _iccs_dashed(move: str) -> str:
    """An ICCS move as xqbase writes it (``H2-E2``)."""
    return f"{move[:2].upper()}-{move[2:].upper()}" if _ICCS_LOOSE.match(move) else move
