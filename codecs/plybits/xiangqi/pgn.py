"""The xqbase-style PGN for xiangqi: tags, ``[Format "ICCS"|"WXF"|"Chinese"]``, ``[FEN]``, numbered movetext, result.

Reading is lenient: the files in the wild may have only ``Event``/``Red``/``Black``
tags, ICCS without the dash, move numbers and no result. Comments (``{...}``,
``;`` to end of line), variations (``(...)``) and NAGs (``$n``) are dropped and
counted. Writing gives the tags, ``Format``, ``FEN`` when the start is not the
standard one, numbered moves (ICCS as xqbase writes it, ``H2-E2``) and the result.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from plybits.errors import InvalidRecordError, PlybitsError
from plybits.game import Record
from plybits.pgntext import RESULTS, TAG, movetext, result_token, tag_line, unescape
from plybits.xiangqi.board import BLACK, Board

FORMATS: Final = {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese"}
MAX_RECORD: Final = 1 << 20
"""Longest record text read, in characters."""

_TAG_LOOSE = re.compile(r'^\[\s*([A-Za-z0-9_]+)\s+"(.*)"\s*\]$')
"""Files in the wild leave quotes inside values unescaped (``[Event ""Huangshan Cup" ..."]``): kept as they are."""
_NUMBER = re.compile(r"^[0-9]+\s*\.+")
_MOVE_NUMBER_ONLY = re.compile(r"^[0-9]+\.+$")
_ICCS_LOOSE = re.compile(r"^[a-i][0-9][a-i][0-9]$")


def _tokens(movetext: str, dropped: dict[str, int]) -> list[str]:
    """Move tokens of a movetext, comments, variations, NAGs and move numbers removed (and counted)."""
    out: list[str] = []
    depth = 0
    i, n = 0, len(movetext)
    word: list[str] = []

    def flush() -> None:
        if word:
            token = "".join(word)
            word.clear()
            if depth == 0:
                out.append(token)

    while i < n:
        ch = movetext[i]
        if ch == "{":
            flush()
            end = movetext.find("}", i + 1)
            if end < 0:
                raise InvalidRecordError(f"unterminated comment at character {i}")
            if depth == 0:
                dropped["comments"] = dropped.get("comments", 0) + 1
            i = end + 1
            continue
        if ch == ";":
            flush()
            end = movetext.find("\n", i)
            if depth == 0:
                dropped["comments"] = dropped.get("comments", 0) + 1
            i = n if end < 0 else end + 1
            continue
        if ch == "(":
            flush()
            if depth == 0:
                dropped["variations"] = dropped.get("variations", 0) + 1
            depth += 1
        elif ch == ")":
            flush()
            if depth == 0:
                raise InvalidRecordError(f"unbalanced ')' at character {i}")
            depth -= 1
        elif ch.isspace():
            flush()
        else:
            word.append(ch)
        i += 1
    flush()
    if depth:
        raise InvalidRecordError("unterminated variation '('")
    moves = []
    for token in out:
        if token.startswith("$"):
            dropped["nags"] = dropped.get("nags", 0) + 1
            continue
        if _MOVE_NUMBER_ONLY.match(token):
            continue
        token = _NUMBER.sub("", token)
        if token:
            moves.append(token)
    return moves


def parse_record(text: str) -> Record:
    """A xiangqi PGN record (or a bare move list): tags, start (``[FEN]``), moves as written.

    :raises InvalidRecordError: on a malformed tag, comment or variation.
    """
    if len(text) > MAX_RECORD:
        raise InvalidRecordError(f"record of {len(text)} characters is longer than {MAX_RECORD}")
    tags: dict[str, str] = {}
    body: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("\ufeff")
        if not body and line.startswith("["):
            m = TAG.fullmatch(line) or _TAG_LOOSE.match(line)
            if not m:
                raise InvalidRecordError(f"malformed tag on line {number}: {line[:80]!r}")
            tags[m[1]] = unescape(m[2])
        elif line or body:
            body.append(raw)
    dropped: dict[str, int] = {}
    moves = _tokens("\n".join(body), dropped)
    result = None
    if moves and moves[-1] in RESULTS:
        result = moves.pop()
    if result is not None and result != "*" and "Result" not in tags:
        tags["Result"] = result
    start = tags.pop("FEN", None)
    tags.pop("Format", None)
    return Record(moves=moves, start=start, tags=tags, dropped=dropped)


def split_records(text: str) -> Iterator[str]:
    """The records of a multi-game file, one text each, lazily: a tag line after movetext starts a new one."""
    lines: list[str] = []
    seen_moves = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and seen_moves:
            yield "\n".join(lines)
            lines, seen_moves = [], False
        if stripped and not stripped.startswith("["):
            seen_moves = True
        lines.append(line)
    if any(line.strip() for line in lines):
        yield "\n".join(lines)


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
