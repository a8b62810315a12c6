"""The xqbase-style PGN for xiangqi: tags, ``[Format "ICCS"|"WXF"|"Chinese"]``, ``[FEN]``, numbered movetext, result.

Reading is lenient: the files in the wild may have only ``Event``/``Red``/``Black``
tags (values with unescaped quotes kept as they are), ICCS without the dash, move
numbers and no result. Comments (``{...}``, ``;`` to end of line), variations
(``(...)``) and NAGs (``$n``) are dropped and counted (:func:`plybits.pgntext.read`). Writing gives the tags, ``Format``, ``FEN`` when the start is not the
standard one, numbered moves (ICCS as xqbase writes it, ``H2-E2``) and the result.
"""

from __future__ import annotations

import re
from typing import Final

from plybits import pgntext
from plybits.errors import InvalidRecordError, PlybitsError
from plybits.game import Record
from plybits.pgntext import movetext, result_token, split_records, tag_line
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
    return Record(moves=read.moves, start=start, tags=tags, dropped=read.dropped)


def write_record(record: Record, notation: str | None = None) -> str:
    """The record as xqbase-style PGN, moves already written in ``notation`` (ICCS when ``None``).

    :raises InvalidRecordError: on an unknown notation or an unreadable start.
    """
    name = notation or "iccs"
    if name not in FORMATS:
        raise InvalidRecordError(f"unknown xiangqi notation {notation!r}; known: {', '.join(FORMATS)}")
    result = record.tags.get("Result", "*")
    lines = ['[Game "Chinese Chess"]'] if "Game" not in record.tags else []
    for key, value in record.tags.items():
        if key not in ("FEN", "Format"):
            lines.append(tag_line(key, value))
    if "Result" not in record.tags:
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
    moves = [
        f"{move[:2].upper()}-{move[2:].upper()}" if name == "iccs" and _ICCS_LOOSE.match(move) else move
        for move in record.moves
    ]
    body = movetext(moves, result_token(result), width=80, number=number, second_first=black_first)
    return "\n".join(lines) + "\n\n" + body + "\n"
