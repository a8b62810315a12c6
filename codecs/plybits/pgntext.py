"""PGN-like record text shared by the games: the one reader, the one multi-record splitter, and the writer's parts.

Chess PGN, xiangqi PGN, APGN and the Entropy record are one grammar: ``[Name "value"]`` tag lines,
then movetext of move tokens, move numbers (``1.``, ``1...``), comments (``{...}`` and ``;`` to the end
of the line), NAGs (``$n``, ``!``/``?`` marks), variations (``( ... )``) and a result. :func:`read`
reads it (a game then reads the tags it knows and the move tokens in its own notations);
:func:`split_records` and :func:`cut_records` cut a multi-record file into records, as python-chess's
``read_game`` does. Writing numbers the moves of the first mover as ``1.``, a game started by the second
mover as ``1...``, and wraps the movetext at a fixed width.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Final

from plybits.errors import InvalidRecordError, LimitExceededError

RESULTS: Final = ("1-0", "0-1", "1/2-1/2", "*")
"""The result tokens of movetext."""
TAG: Final = re.compile(r'\[\s*([A-Za-z0-9_][A-Za-z0-9_+#=:-]*)\s+"((?:[^"\\]|\\.)*)"\s*\]')
"""A ``[Name "value"]`` tag pair: group 1 the name, group 2 the value still escaped."""
LOOSE_TAG: Final = re.compile(r'\[\s*([A-Za-z0-9_][A-Za-z0-9_+#=:-]*)\s+"(.*)"\s*\]')
"""A tag pair whose value holds unescaped quotes, as files in the wild write them (``[Event ""Cup" 2002"]``)."""
TOKEN: Final = re.compile(
    r"""
    (\{[^}]*\}?)                # 1 comment (to the end of the text when unclosed)
    |(;[^\n]*)                  # 2 rest-of-line comment
    |(\$[0-9]+)                 # 3 NAG
    |(\()                       # 4 variation start
    |(\))                       # 5 variation end
    |(1-0|0-1|1/2-1/2|\*)(?=[\s(){};]|$)    # 6 result
    |([0-9]+\.+|(?!0000(?:\s|$))[0-9]+(?=\s|$))    # 7 move number
    |(\.+)                      # 8 stray dots ("1. ... e5")
    |([!?]+)(?=[\s(){};$]|$)    # 9 stand-alone annotation
    |([^\s(){};$]+)             # 10 move
    |(\})                       # 11 stray closing brace
    """,
    re.VERBOSE,
)
"""One token of movetext; the group that matched says its kind."""
_SUFFIX: Final = re.compile(r"[!?]+$")


def escape(value: str) -> str:
    """A tag value with backslashes and double quotes escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def unescape(value: str) -> str:
    """A tag value with ``\\"`` and ``\\\\`` unescaped (any other backslash kept as it is)."""
    if "\\" not in value:
        return value
    return re.sub(r'\\([\\"])', r"\1", value)


def tag_line(name: str, value: str) -> str:
    """The tag pair ``[name "value"]``, the value escaped (no newline)."""
    return f'[{name} "{escape(value)}"]'


def result_token(value: str | None) -> str:
    """``value`` when it is a result token, else ``*``."""
    return value if value in RESULTS else "*"


def numbered(moves: Iterable[str], number: int = 1, second_first: bool = False) -> list[str]:
    """The moves with move numbers: ``N.`` before each first-mover move, ``N...`` when the second mover starts."""
    words: list[str] = []
    second = second_first
    for index, move in enumerate(moves):
        if not second:
            words.append(f"{number}.")
        elif index == 0:
            words.append(f"{number}...")
        words.append(move)
        if second:
            number += 1
        second = not second
    return words


def wrap(words: Iterable[str], width: int) -> list[str]:
    """The words joined by spaces into lines of at most ``width`` characters (a longer word stands alone)."""
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return lines


def movetext(moves: Iterable[str], result: str, *, width: int, number: int = 1, second_first: bool = False) -> str:
    """Numbered moves and the result, wrapped at ``width`` columns, lines joined by newlines (none at the end)."""
    return "\n".join(wrap([*numbered(moves, number, second_first), result], width))


@dataclass
class RecordText:
    """A record as the grammar reads it: tags, mainline move tokens as written, result, what was dropped."""

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str | None = None
    """The result token of the movetext, if it has one."""
    dropped: dict[str, int] = field(default_factory=dict)
    """``comments``, ``nags`` and ``variations`` counted (a key only when there was one)."""


def read(text: str, *, kind: str, lenient: bool = False) -> RecordText:
    """A PGN-like record (or a bare move list): its tag section, then its movetext.

    The tag section is the ``[Name "value"]`` lines at the head (blank lines and ``%`` escape lines
    between them skipped; a leading BOM dropped); values are unescaped (``\\"``, ``\\\\``). In the
    movetext, move numbers are skipped; comments, NAGs (glued ``!``/``?`` marks included) and each
    top-level variation (counted once with everything nested in it) are dropped and counted.
    ``lenient`` reads as python-chess does: an unclosed comment runs to the end, a stray ``}`` is skipped.

    :raises InvalidRecordError: on a malformed tag line (``kind`` names the format in the message),
        unbalanced parentheses or braces, or a move after the result.
    """
    tags, start = _tags(text, kind)
    movetext = text[start:]
    if "%" in movetext:  # "%" escape lines are not movetext
        movetext = "\n".join(line for line in movetext.split("\n") if not line.startswith("%"))
    record = RecordText(tags=tags)
    _movetext(movetext, record, lenient)
    return record


def _tags(text: str, kind: str) -> tuple[dict[str, str], int]:
    """The tags at the head of ``text`` and where its movetext starts."""
    tags: dict[str, str] = {}
    pos = 1 if text.startswith("\ufeff") else 0
    length = len(text)
    number = 0
    while pos < length:
        end = text.find("\n", pos)
        end = length if end < 0 else end + 1
        line = text[pos:end].strip()
        number += 1
        if line and not line.startswith("%"):
            if not line.startswith("["):
                break
            match = TAG.fullmatch(line) or LOOSE_TAG.fullmatch(line)
            if match is None:
                raise InvalidRecordError(
                    f"malformed tag line {number}: unreadable {kind} tag {line[:80]!r}, expected [Name \"value\"]")
            tags[match.group(1)] = unescape(match.group(2))
        pos = end
    return tags, pos


def _movetext(movetext: str, record: RecordText, lenient: bool) -> None:
    moves = record.moves
    comments = nags = variations = 0
    depth = 0
    result = None
    for match in TOKEN.finditer(movetext):
        kind = match.lastindex
        if kind == 10:
            if depth:
                continue
            token = match.group(10)
            if result is not None:
                raise InvalidRecordError(f"move {token!r} after the result {result!r}: one game per record")
            suffix = _SUFFIX.search(token) if token[-1] in "!?" else None
            if suffix:
                nags += 1
                token = token[: suffix.start()]
                if not token:
                    continue
            moves.append(token)
        elif kind == 4:
            if depth == 0:
                variations += 1
            depth += 1
        elif kind == 5:
            if depth == 0:
                raise InvalidRecordError(f"unbalanced ')' at character {match.start()}")
            depth -= 1
        elif kind == 1 and not lenient and not match.group(1).endswith("}"):
            raise InvalidRecordError(
                f"unterminated comment at character {match.start()}: unclosed comment {match.group(1)[:40]!r}"
                " (unbalanced brace)")
        elif kind == 11 and not lenient:
            raise InvalidRecordError(f"unbalanced brace: '}}' at character {match.start()} closes no comment")
        elif depth:
            continue
        elif kind == 1 or kind == 2:
            comments += 1
        elif kind == 3 or kind == 9:
            nags += 1
        elif kind == 6:
            result = match.group(6)
    if depth:
        raise InvalidRecordError("unterminated variation '(': a '(' is never closed")
    record.result = result
    for name, count in (("comments", comments), ("nags", nags), ("variations", variations)):
        if count:
            record.dropped[name] = count


@dataclass(frozen=True)
class LongLine:
    """In place of a line of a record file over the line limit: its first bytes (enough to tell a tag line)."""

    head: bytes

    def is_tag(self) -> bool:
        """Whether the line starts a tag pair (``[`` after any white space and BOM)."""
        return self.head.lstrip(b" \t\r").removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r").startswith(b"[")


def split_records(text: str) -> Iterator[str]:
    """The records of a multi-record text, lazily, each the exact slice of ``text`` it was read from.

    Where python-chess's ``read_game`` ends a game, a record ends: at a blank line after movetext, or at
    a tag line after movetext; never inside a ``{...}`` comment. Blank lines go with the record before them.
    """
    lines = io.StringIO(text[1:] if text.startswith("\ufeff") else text, newline="\n")  # lines end at "\n" only
    for record in cut_records(lines, max_chars=None):
        if isinstance(record, str):  # without a limit, nothing else comes
            yield record


class RecordCuts:
    """Where the records of a multi-record file begin, read line by line: after movetext, at a blank line's next
    non-blank line or at a tag line; never inside a ``{...}`` comment (where python-chess's ``read_game`` ends a
    game)."""

    __slots__ = ("ended", "in_comment", "in_moves")

    def __init__(self) -> None:
        self.in_moves = False  # movetext seen in this record
        self.ended = False  # a blank line after the movetext: the next non-blank line starts a new record
        self.in_comment = False

    def starts_record(self, line: str | LongLine | None) -> bool:
        """Whether ``line`` (with its ``\\n``; a :class:`LongLine` or ``None`` for one over the line limit, read
        as movetext when its head is unknown) begins a new record; ``line`` is then read into the new one."""
        if isinstance(line, str):
            stripped = line.strip()
            blank, tag = not stripped, stripped.startswith("[")
        else:
            stripped, blank, tag = "", False, line is not None and line.is_tag()
        new = not self.in_comment and ((self.ended and not blank) or (self.in_moves and tag))
        if new:
            self.in_moves = self.ended = False
        if not isinstance(line, str):
            if not tag and not self.in_comment:
                self.in_moves = True
        elif self.in_moves and not self.in_comment and blank:
            self.ended = True
        elif not blank and not tag and not stripped.startswith("%"):
            self.in_moves = True
        if isinstance(line, str) and self.in_moves and ("{" in line or "}" in line or self.in_comment):
            self.in_comment = comment_open_after(line, self.in_comment)
        return new


def cut_records(lines: Iterable[str | LongLine | None], *, max_chars: int | None) -> Iterator[str | LimitExceededError]:
    """The records of a multi-record file given line by line (each line with its ``\\n``), lazily.

    Cut as :func:`split_records` cuts. A line given as a :class:`LongLine` (or ``None``, a line over the
    limit whose head is unknown: read as movetext) is not held: its record is answered by a
    :class:`LimitExceededError`, as is a record of more than ``max_chars`` characters; its neighbours are
    read as usual. Braces inside an over-long line are not seen.
    """
    piece: list[str] = []
    size = 0
    problem: str | None = None
    cuts = RecordCuts()

    def record() -> Iterator[str | LimitExceededError]:
        if problem is not None:
            yield LimitExceededError(problem)
        elif piece:
            text = "".join(piece)
            if not text.isspace():
                yield text

    for line in lines:
        if cuts.starts_record(line):
            yield from record()
            piece, size, problem = [], 0, None
        if not isinstance(line, str):
            problem = "a line of this record is longer than the line limit"
            continue
        if problem is not None:
            continue
        size += len(line)
        if max_chars is not None and size > max_chars:
            problem = f"record of more than {max_chars} characters is over the limit"
            piece = []
            continue
        piece.append(line)
    yield from record()


def comment_open_after(line: str, in_comment: bool) -> bool:
    """Whether a ``{...}`` comment is still open at the end of ``line``, given whether one was open at its start.

    PGN comments do not nest, and a ``;`` outside one comments out the rest of the line.
    """
    pos = 0
    while True:
        if in_comment:
            end = line.find("}", pos)
            if end < 0:
                return True
            in_comment, pos = False, end + 1
        else:
            semi, brace = line.find(";", pos), line.find("{", pos)
            if brace < 0 or 0 <= semi < brace:
                return False
            in_comment, pos = True, brace + 1
