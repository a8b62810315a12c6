"""PGN-like record text shared by the games: tag pairs (with escaping) and numbered, wrapped movetext.

Chess PGN, xiangqi PGN, APGN and the Entropy record all write ``[Name "value"]`` tag lines
and (all but Entropy) number the moves of the first mover as ``1.``, a game started by the
second mover as ``1...``, and wrap the movetext at a fixed width.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

RESULTS: Final = ("1-0", "0-1", "1/2-1/2", "*")
"""The result tokens of movetext."""
TAG: Final = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
"""A ``[Name "value"]`` tag pair: group 1 the name, group 2 the value still escaped."""


def escape(value: str) -> str:
    """A tag value with backslashes and double quotes escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def unescape(value: str) -> str:
    """A tag value with ``\\"`` and ``\\\\`` unescaped (any other backslash kept as it is)."""
    return re.sub(r'\\([\\"])', r"\1", value)


def unescape_any(value: str) -> str:
    """A tag value with every backslash escape ``\\x`` read as ``x``."""
    return re.sub(r"\\(.)", r"\1", value)


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


def comment_open_after(line: str, in_comment: bool) -> bool:
    """Whether a ``{...}`` comment is still open at the end of ``line``, given whether one was open at its start.

    PGN comments do not nest, and a ``;`` outside one comments out the rest of the line.
    """
    if "{" not in line and "}" not in line:
        return in_comment
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
