"""Aba-Pro move notation: ``e5e6`` inline, ``e6e8f6`` broadside.

Inline: the rear (pushing) marble's cell, then the next cell in the direction of
travel; a single marble is always written inline. Broadside: the two end marbles,
then the cell the first-written end moves to. Either end may come first on input;
:func:`write` puts the alphanumerically smaller end first. Parsing is
case-insensitive and purely syntactic (it needs no position); legality is the
board's business.
"""

from __future__ import annotations

from typing import Final

from plybits.abalone.board import (
    ALL_MOVES, BROADSIDE, DIRECTIONS, GEOMETRY, INLINE, STEPS, Board, Move, check_move,
)
from plybits.errors import InvalidMoveError

NAME: Final = "abapro"

_STEP_DIRECTION: Final[dict[int, int]] = {step: d for d, step in enumerate(STEPS)}
_DIRECTION_OF: Final[dict[tuple[int, int], int]] = {unit: d for d, unit in enumerate(DIRECTIONS)}


def _cell(text: str, name: str) -> int:
    try:
        return GEOMETRY.parse(name)
    except InvalidMoveError:
        raise InvalidMoveError(f"unknown cell {name!r} in Aba-Pro move {text!r}") from None


def _line(a: int, b: int) -> tuple[int, int] | None:
    """``(direction, distance)`` from cell ``a`` to cell ``b`` if they are on one line, else ``None``."""
    (fa, ra), (fb, rb) = GEOMETRY.coords(a), GEOMETRY.coords(b)
    drow, ddiag = rb - ra, fb - fa
    if drow == 0 and ddiag == 0:
        return None
    if drow == 0 or ddiag == 0 or drow == ddiag:
        distance = max(abs(drow), abs(ddiag))
        unit = (drow // distance, ddiag // distance)
        return _DIRECTION_OF[unit], distance
    return None




def parse(text: object) -> Move:
    """The move written as ``text`` in Aba-Pro (not checked against any position). Typed ``object``: compiled, a
    parameter typed ``str`` would refuse anything else with a ``TypeError`` before the reason could be given.

    :raises InvalidMoveError: on anything that is not one move, with the reason: unknown
        cell, not a line, line longer than 3, not adjacent, destination that does not fit.
    """
    move = _WORDS.get(text) if isinstance(text, str) else None
    return move if move is not None else _parse_word(text)


def _parse_word(text: object) -> Move:
    """:func:`parse`, reading ``text`` cell by cell."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"Aba-Pro move must be text, not {text!r}")
    raw = text
    text = text.strip().lower()
    if len(text) not in (4, 6):
        raise InvalidMoveError(
            f"Aba-Pro move {raw!r} is not two cells (inline, e.g. 'e5e6') or three cells (broadside, e.g. 'e6e8f6')"
        )
    names = [text[k:k + 2] for k in range(0, len(text), 2)]
    for name in names:
        if not (len(name) == 2 and "a" <= name[0] <= "i" and "1" <= name[1] <= "9"):
            raise InvalidMoveError(f"unknown cell {name!r} in Aba-Pro move {raw!r}")
    cells = [_cell(raw, name) for name in names]
    if len(cells) == 2:
        rear, to = cells
        step = to - rear
        direction = _STEP_DIRECTION.get(step)
        if direction is None:
            raise InvalidMoveError(
                f"Aba-Pro inline move {raw!r}: {names[1]} is not adjacent to {names[0]} (inline is rear cell, next cell)"
            )
        return INLINE[rear][direction]
    first, other, dest = cells
    found = _line(first, other)
    if found is None:
        if first == other:
            raise InvalidMoveError(f"Aba-Pro broadside {raw!r} names {names[0]} as both ends: not a line")
        raise InvalidMoveError(f"Aba-Pro broadside {raw!r}: {names[0]} and {names[1]} are not on a line")
    line, distance = found
    if distance > 2:
        raise InvalidMoveError(
            f"Aba-Pro broadside {raw!r}: {names[0]}-{names[1]} spans {distance + 1} marbles; at most 3 move"
        )
    direction = _STEP_DIRECTION.get(dest - first)
    if direction is None:
        raise InvalidMoveError(
            f"Aba-Pro broadside {raw!r}: destination {names[2]} is not adjacent to the first end {names[0]}"
        )
    if direction % 3 == line % 3:
        raise InvalidMoveError(
            f"Aba-Pro broadside {raw!r}: destination {names[2]} is along the line {names[0]}-{names[1]}; "
            f"that is an inline move, written with the rear marble and its next cell"
        )
    if line > 2:  # the other end is the smaller one: start from it
        first, line = other, line - 3
    move = BROADSIDE.get((first, line, distance + 1, direction))
    if move is None:  # cannot happen on a hexagon: the middle of two cells is a cell
        raise InvalidMoveError(f"Aba-Pro broadside {raw!r} does not fit the board")
    return move


_WORDS: Final[dict[str, Move]] = {str(move): move for move in ALL_MOVES}
"""Every move Aba-Pro can write, by the word :func:`write` gives it: what :func:`parse` reads that word as, looked
up rather than read cell by cell (records are mostly written this way)."""


_TEXTS: Final[dict[Move, str]] = {move: word for word, move in _WORDS.items()}
"""The word of every move of :data:`_WORDS`: what :func:`write` gives it, looked up rather than built."""


def write(move: Move) -> str:
    """``move`` in canonical Aba-Pro: inline rear cell and next cell; broadside with the smaller end first."""
    text = _TEXTS.get(move)
    return text if text is not None else str(move)


def parse_move(board: Board, text: object, notation: str | None = None) -> Move:
    """The legal move written as ``text`` in Aba-Pro on ``board`` (the only notation, as the verbs checked;
    ``None`` means it too).

    :raises InvalidMoveError: if ``text`` is not one Aba-Pro move.
    :raises IllegalMoveError: if it is not legal here, with the rule it breaks.
    """
    assert notation in (None, NAME), notation
    move = parse(text)
    check_move(board, move)  # not board.check: compiled, a module function is called directly (no method lookup)
    return move


def move_text(board: Board, move: Move, notation: str | None = None) -> str:
    """``move`` in canonical Aba-Pro (the only notation, as the verbs checked)."""
    assert notation in (None, NAME), notation
    return write(move)
