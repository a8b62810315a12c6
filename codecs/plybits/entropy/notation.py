"""Turn tokens (``Rd4``, ``Rd4d7``) and the plain-text record of a New Entropy game.

A token is a colour letter (``R G O B Y W K``), the cell where the chip is placed (``a1``..``g7``)
and, if the chip was slid, the cell it was slid to. Case: letters are read in either case
(``rd4``, ``RD4D7``), since each position of a token has only one meaning; tokens are always
written with an upper-case colour and lower-case files (``Rd4d7``). Nothing else is accepted inside
a token: no spaces, dashes or ``x``. A slide to the cell it starts from is refused (write ``Rd4``).

A record is the tokens separated by white space, optionally preceded by PGN-style tag lines
``[Name "value"]``; a ``Start`` (or ``FEN``) tag gives the start position string. Move numbers
(``12.``) are skipped; ``{...}`` comments are dropped and counted. In a file of several records, a
record ends at a blank line or where the next one's tag lines begin (:func:`split_records`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from plybits.entropy.board import parse_colour as parse_colour
from plybits.entropy.board import parse_square as parse_square
from plybits.entropy.board import parse_token as parse_token
from plybits.errors import InvalidMoveError, InvalidRecordError
from plybits.game import Record
from plybits.pgntext import TAG, tag_line, unescape_any

NOTATIONS: Final = ("tokens",)
START_TAGS: Final = ("Start", "FEN")
_MOVE_NUMBER = re.compile(r"[0-9]+\.+")


def parse_record(text: str) -> Record:
    """Tags, start and tokens of a record (tokens unchecked: the replay checks them).

    :raises InvalidRecordError: on a malformed tag or an unclosed comment.
    """
    tags: dict[str, str] = {}
    comments = 0
    moves: list[str] = []
    rest = text
    while True:
        rest = rest.lstrip()
        if not rest.startswith("["):
            break
        match = TAG.match(rest)
        if match is None:
            line = rest.splitlines()[0]
            raise InvalidRecordError(f"malformed tag line {line[:80]!r}: expected [Name \"value\"]")
        tags[match.group(1)] = unescape_any(match.group(2))
        rest = rest[match.end():]
    pos = 0
    while pos < len(rest):
        brace = rest.find("{", pos)
        chunk = rest[pos:] if brace < 0 else rest[pos:brace]
        moves.extend(word for word in chunk.split() if not _MOVE_NUMBER.fullmatch(word))
        if brace < 0:
            break
        close = rest.find("}", brace)
        if close < 0:
            raise InvalidRecordError(f"unclosed comment starting {rest[brace:brace + 40]!r}")
        comments += 1
        pos = close + 1
    starts = {tags.pop(name) for name in START_TAGS if name in tags}
    if len(starts) > 1:
        raise InvalidRecordError(f"the Start and FEN tags disagree: {sorted(starts)!r}")
    start = starts.pop() if starts else None
    return Record(moves=moves, start=start, tags=tags, dropped={"comments": comments} if comments else {})


def write_record(record: Record) -> str:
    """Tags (the start as a ``Start`` tag), a blank line, then the tokens separated by spaces."""
    tags = dict(record.tags)
    if record.start is not None:
        tags = {"Start": record.start, **tags}
    head = "".join(tag_line(name, value) + "\n" for name, value in tags.items())
    body = " ".join(record.moves)
    return f"{head}\n{body}\n" if head else f"{body}\n"


def split_records(text: str) -> Iterator[str]:
    """The records of a multi-record text, lazily: a record ends at a blank line after its tokens or where
    tag lines follow its tokens; tag lines and the tokens after them (even past a blank line) stay together.
    Blank lines inside a ``{...}`` comment split nothing."""
    piece: list[str] = []
    has_moves = False
    in_comment = False
    for line in text.splitlines():
        stripped = line.strip()
        if not in_comment and has_moves and (not stripped or stripped.startswith("[")):
            yield "\n".join(piece)
            piece, has_moves = [], False
        if not stripped and not piece:
            continue
        piece.append(line)
        if in_comment:
            close = line.find("}")
            in_comment = close < 0
            line = "" if close < 0 else line[close + 1:]
        while not in_comment:
            open_ = line.find("{")
            head = line if open_ < 0 else line[:open_]
            if head.strip() and not (head.strip().startswith("[") and not has_moves):
                has_moves = True
            if open_ < 0:
                break
            close = line.find("}", open_)
            in_comment = close < 0
            line = "" if close < 0 else line[close + 1:]
    if any(line.strip() for line in piece):
        yield "\n".join(piece)
