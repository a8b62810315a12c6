"""The Abalone board and its rules: 61 hexagonal cells on the shared mailbox, six directions, sumito.

Cells are named like Aba-Pro: a row letter ``a``..``i`` (``a`` is black's side in the
``standard`` layout, ``i`` white's) and a diagonal ``1``..``9``; row ``a`` holds
``a1``..``a5``, row ``e`` ``e1``..``e9``, row ``i`` ``i5``..``i9``. On the
:class:`~plybits.mailbox.Geometry` a cell is ``(file, rank) = (diagonal - 1, row)``
of a 9 x 9 axial grid inside a one-cell border; the grid cells with
``|file - rank| > 4`` and the border hold :data:`~plybits.mailbox.OFF`, so every
step off the board lands on ``OFF``.

Directions, in (row, diagonal) steps (SPEC §4)::

    0 (0, +1)   1 (+1, +1)   2 (+1, 0)   3 (0, -1)   4 (-1, -1)   5 (-1, 0)

``d`` and ``(d + 3) % 6`` are opposite.

The position string (:meth:`Board.fen`) is the rows from ``i`` (top) down to ``a``,
``/``-separated, each row left to right (increasing diagonal) with ``b`` a black
marble, ``w`` a white one and a digit a run of empty cells (the row strings of the
APGN ``Position`` tag), then the side to move ``b`` or ``w``, the number of black
and of white marbles ejected so far, and the move number (1 at the start, +1 after
each white move)::

    wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1

:meth:`Board.from_fen` also reads the APGN form, ejections as a ``-<n>b<n>w``
suffix of the last row and no move number: ``.../bbbbb-1b0w w``.
"""

from __future__ import annotations

import re
from itertools import groupby
from typing import Any, Final, NamedTuple, Self

from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr

from plybits.errors import IllegalMoveError, InvalidPositionError
from plybits.mailbox import OFF, Geometry, Square
from plybits.packed import PACKED, int_array
from plybits.text import ascii_text, decimal

EMPTY: Final = 0
BLACK: Final = 1
WHITE: Final = 2
COLOR_NAMES: Final = {BLACK: "black", WHITE: "white"}
SYMBOLS: Final = {BLACK: "b", WHITE: "w"}
WIN_EJECTED: Final = 6
"""Marbles a side must push off to win."""
MARBLES_PER_SIDE: Final = 14

ROWS: Final = "abcdefghi"
DIRECTIONS: Final = ((0, 1), (1, 1), (1, 0), (0, -1), (-1, -1), (-1, 0))
"""The six directions as (row, diagonal) steps, numbered as in SPEC §4."""


def _exists(file: int, rank: int) -> bool:
    return abs(file - rank) <= 4


def _name(file: int, rank: int) -> str:
    return f"{ROWS[rank]}{file + 1}"


GEOMETRY: Final = Geometry(width=9, height=9, border=1, name=_name, exists=_exists)
"""The 61 cells in a 9 x 9 axial grid (file = diagonal - 1, rank = row) with a one-cell border."""

SQUARES: Final[tuple[int, ...]] = GEOMETRY.squares
"""Mailbox indices of the 61 cells in Aba-Pro order a1..a5, b1..b6, ..., i5..i9 (SPEC §4 numbers 0..60)."""
CELL_NUMBER: Final[dict[int, int]] = {index: n for n, index in enumerate(SQUARES)}
"""SPEC §4 cell number (0..60) of a mailbox index."""
CELL_NAMES: Final[dict[int, str]] = {index: GEOMETRY.name(index) for index in SQUARES}
STEPS: Final[tuple[int, ...]] = tuple(GEOMETRY.offset(ddiag, drow) for drow, ddiag in DIRECTIONS)
"""Mailbox offset of one step in each direction."""
SIDEWAYS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(d for d in range(6) if d % 3 != line % 3) for line in range(6)
)
"""For a line of marbles along a direction, the four directions it can move broadside."""


class Move(NamedTuple):
    """An Abalone move, written in Aba-Pro by ``str()``.

    Inline (``line == -1``): the rear (pushing) marble's cell and the direction; how
    many marbles move, and what they push, follows from the position. Broadside:
    the first end (the alphanumerically smaller end cell), the direction ``line``
    (0, 1 or 2) towards the other end, ``marbles`` (2 or 3) and the direction the
    line moves. Cells are mailbox indices. Build them with :meth:`inline` and
    :meth:`broadside`, which return shared instances.
    """

    cell: Square
    direction: int
    line: int = -1
    marbles: int = 0

    @property
    def is_inline(self) -> bool:
        return self.line < 0

    @staticmethod
    def inline(cell: int, direction: int) -> Move:
        """The inline move of the line whose rear marble is on ``cell``, towards ``direction``."""
        return INLINE[cell][direction]

    @staticmethod
    def broadside(cell: int, line: int, marbles: int, direction: int) -> Move:
        """The broadside move of ``marbles`` marbles from first end ``cell`` along ``line``, towards ``direction``.

        :raises KeyError: if that line does not fit on the board or the direction is not sideways.
        """
        return BROADSIDE[cell, line, marbles, direction]

    def cells(self) -> tuple[int, ...]:
        """Broadside: the marbles' cells from the first end; inline: the rear cell only."""
        if self.line < 0:
            return (self.cell,)
        step = STEPS[self.line]
        return tuple(self.cell + k * step for k in range(self.marbles))

    def __str__(self) -> str:
        names = CELL_NAMES
        if self.line < 0:  # an inline step off the board (never legal) shows its target as "--"
            return names[self.cell] + names.get(self.cell + STEPS[self.direction], "--")
        other = self.cell + (self.marbles - 1) * STEPS[self.line]
        return names[self.cell] + names[other] + names.get(self.cell + STEPS[self.direction], "--")

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"


def _build_moves() -> tuple[dict[int, tuple[Move, ...]], dict[tuple[int, int, int, int], Move]]:
    on = GEOMETRY.on_board
    inline: dict[int, tuple[Move, ...]] = {}
    broadside: dict[tuple[int, int, int, int], Move] = {}
    for sq in SQUARES:
        inline[sq] = tuple(Move(sq, d) for d in range(6))
        for line in (0, 1, 2):
            step = STEPS[line]
            for marbles in (2, 3):
                cells = [sq + k * step for k in range(marbles)]
                if not all(on[c] for c in cells):
                    continue
                for d in SIDEWAYS[line]:
                    broadside[sq, line, marbles, d] = Move(sq, d, line, marbles)
    return inline, broadside


INLINE, BROADSIDE = _build_moves()
"""Every move object there is, built once: ``INLINE[cell][direction]``, ``BROADSIDE[cell, line, marbles, direction]``."""
ALL_MOVES: Final[tuple[Move, ...]] = tuple(
    m for sq in SQUARES for m in INLINE[sq] if GEOMETRY.on_board[sq + STEPS[m.direction]]
) + tuple(m for m in BROADSIDE.values() if GEOMETRY.on_board[m.cell + STEPS[m.direction]])
"""Every move Aba-Pro can write (legal in some position or none): inline steps onto the board, broadside lines on it."""

_STEP: Final[list[int]] = list(STEPS)
_SQUARE_LIST: Final[list[int]] = list(SQUARES)

INLINE_CODES: Final = GEOMETRY.size * 6
"""Move codes below this are inline moves, ``cell * 6 + direction``; broadsides follow (:func:`move_code`)."""
N_CODES: Final = INLINE_CODES + GEOMETRY.size * 36
"""One more than the largest move code."""


def move_code(move: Move) -> int:
    """A move as an int below :data:`N_CODES` (for tables indexed by move): inline ``cell * 6 +
    direction``, broadside ``INLINE_CODES + ((cell * 3 + line) * 2 + marbles - 2) * 6 + direction``."""
    line: i64 = move.line  # compiled, machine ints: a tagged int is checked at every operation
    cell: i64 = move.cell
    direction: i64 = move.direction
    if line < 0:
        return cell * 6 + direction
    marbles: i64 = move.marbles
    first: i64 = INLINE_CODES
    return first + ((cell * 3 + line) * 2 + marbles - 2) * 6 + direction


def _moves_by_code() -> list[Move]:
    table = [INLINE[SQUARES[0]][0]] * N_CODES  # codes of no move hold a placeholder, never read
    for moves in INLINE.values():
        for m in moves:
            table[move_code(m)] = m
    for m in BROADSIDE.values():
        table[move_code(m)] = m
    return table


MOVE_OF: Final[list[Move]] = _moves_by_code()
"""The move of each code (:func:`move_code`)."""

_INLINE_TABLE: Final[list[list[tuple[int, Move]]]] = [
    [(STEPS[d], INLINE[sq][d]) for d in range(6)] if sq in INLINE else [] for sq in range(GEOMETRY.size)
]
"""Per mailbox index: (step, move) of its inline moves in the six directions."""
BROADSIDE_TABLE: Final[list[list[tuple[int, int, int]]]] = [
    [
        (STEPS[line], INLINE_CODES + (sq * 3 + line) * 12, line)
        for line in (0, 1, 2)
        if (sq, line, 2, SIDEWAYS[line][0]) in BROADSIDE
    ]
    for sq in range(GEOMETRY.size)
]
"""Per mailbox index, for each line direction 0..2 along which two marbles fit: (line step, the code
of its two-marble broadside in direction 0 (``+ 6``: three marbles; ``+ d``: direction d), line)."""
SIDEWAYS_TABLE: Final[list[list[tuple[int, int]]]] = [[(STEPS[d], d) for d in SIDEWAYS[line]] for line in range(3)]
"""Per line direction 0..2: (step, direction) of the four directions it moves broadside in."""

LAYOUTS: Final[dict[str, str]] = {
    "standard": "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1",
    "belgian-daisy": "ww1bb/wwwbbb/1ww1bb1/8/9/8/1bb1ww1/bbbwww/bb1ww b 0 0 1",
    "german-daisy": "5/ww2bb/www1bbb/1ww2bb1/9/1bb2ww1/bbb1www/bb2ww/5 b 0 0 1",
}
"""The named start layouts as position strings; black moves first."""

_ROW_LENGTHS: Final = (5, 6, 7, 8, 9, 8, 7, 6, 5)
_FEN_ROWS: Final[list[list[int]]] = [
    [GEOMETRY.index(file, rank) for file in range(9) if _exists(file, rank)] for rank in range(8, -1, -1)
]
"""The mailbox indices of each row as the position string writes them: rows ``i`` down to ``a``, by diagonal."""
_ROW_TEXTS: Final[dict[int, str]] = {}
"""A row's text in the position string by :meth:`Board.fen`'s key of it, made on first use (at most 3 ** 9 + ... +
3 ** 5 rows, ~30,000 short strings; a collection meets a few hundred)."""


def _row_text(values: list[int]) -> str:
    """One row of the position string: ``b``, ``w`` and runs of empty cells as digits."""
    out = ""
    for value, same in groupby(values):
        count = len(list(same))
        out += str(count) if value == EMPTY else SYMBOLS[value] * count
    return out


_EMPTY_GRID: Final = int_array(GEOMETRY.empty_cells(EMPTY))
"""The :attr:`Board.grid` of an empty board, which a compiled board starts as a copy of (no array built from a list)."""
NEAR_OFF_SHIFT: Final = 6
"""Where the bits of :attr:`Board.near` for the directions off the board start: bit ``6 + d``."""
NEAR_COUNT_SHIFT: Final = 12
"""Where :attr:`Board.near`'s count of a colour's neighbours starts (0..6, the highest bits)."""
_SEEN: Final = [(1 << (d + 3) % 6) + (1 << NEAR_COUNT_SHIFT) for d in range(6)]
"""By direction ``d``: what a marble adds to :attr:`Board.near` of its neighbour in direction ``d`` (that sees it in
direction ``d + 3``)."""
if STEPS != (1, 12, 11, -1, -12, -11) or _SEEN != [4104, 4112, 4128, 4097, 4098, 4100]:  # _enter and _leave's
    raise AssertionError(f"the mailbox steps {STEPS} are not those _enter and _leave are written for")


def _empty_near() -> list[int]:
    """An array of :attr:`Board.near` of an empty board: each cell on the board its directions off it."""
    on = GEOMETRY.on_board
    near = [0] * GEOMETRY.size
    for sq in SQUARES:
        for d in range(6):
            if not on[sq + STEPS[d]]:
                near[sq] |= 1 << (NEAR_OFF_SHIFT + d)
    return near


_EMPTY_NEAR: Final = int_array(_empty_near())


def _enter(near: vec[i64], sq: i64) -> None:
    """A marble entered ``sq``: count it in ``near`` (its colour's array of :attr:`Board.near`) of its six neighbours
    (the steps of :data:`STEPS` and the bits of :data:`_SEEN`, written out: compiled, no table read)."""
    near[sq + 1] += 4104
    near[sq + 12] += 4112
    near[sq + 11] += 4128
    near[sq - 1] += 4097
    near[sq - 12] += 4098
    near[sq - 11] += 4100


def _leave(near: vec[i64], sq: i64) -> None:
    """A marble left ``sq``: take it out of ``near`` of its six neighbours (:func:`_enter` undone)."""
    near[sq + 1] -= 4104
    near[sq + 12] -= 4112
    near[sq + 11] -= 4128
    near[sq - 1] -= 4097
    near[sq - 12] -= 4098
    near[sq - 11] -= 4100


def _near_of(grid: vec[i64]) -> list[vec[i64]]:
    """:attr:`Board.near` of the cells ``grid``."""
    near = [_EMPTY_NEAR, _EMPTY_NEAR[:], _EMPTY_NEAR[:]]
    for sq in _SQUARE_LIST:
        colour: i64 = grid[sq]
        if colour == BLACK or colour == WHITE:
            _enter(near[colour], sq)
    return near


_NO_MARBLES: Final = int_array([-1])
"""The :attr:`Board.marbles` of a colour without marbles (and item 0)."""


def _marbles_of(grid: vec[i64]) -> tuple[list[vec[i64]], vec[i64]]:
    """:attr:`Board.marbles` and :attr:`Board.slots` of the cells ``grid``."""
    lists: list[list[int]] = [[], [], []]
    slots = [0] * GEOMETRY.size
    for sq in SQUARES:
        colour = grid[sq]
        if colour == BLACK or colour == WHITE:
            slots[sq] = len(lists[colour])
            lists[colour].append(sq)
    return [_NO_MARBLES, int_array(lists[BLACK] + [-1]), int_array(lists[WHITE] + [-1])], int_array(slots)


def _move(marbles: vec[i64], slots: vec[i64], sq: i64, to: i64) -> None:
    """The marble on ``sq`` moved to the empty ``to``: put it there in ``marbles`` (its colour's :attr:`Board.marbles`),
    which stays in cell order, and ``slots``."""
    i: i64 = slots[sq]
    if to > sq:
        after = marbles[i + 1]
        while 0 <= after < to:  # -1 ends the list
            marbles[i] = after
            slots[after] = i
            i += 1
            after = marbles[i + 1]
    else:
        while i > 0:
            before = marbles[i - 1]
            if before < to:
                break
            marbles[i] = before
            slots[before] = i
            i -= 1
    marbles[i] = to
    slots[to] = i


def _remove(marbles: vec[i64], slots: vec[i64], sq: i64) -> None:
    """The marble on ``sq`` was pushed off the board: take it out of ``marbles``, the ones after it moving down."""
    i: i64 = slots[sq]
    after = marbles[i + 1]
    while after >= 0:
        marbles[i] = after
        slots[after] = i
        i += 1
        after = marbles[i + 1]
    marbles[i] = -1


_EJECTED_SUFFIX: Final = re.compile(r"-([0-9]+)b([0-9]+)w$")


# Compiled with mypyc (docs/architecture.md, "Compiled build"); plybits.abalone.Position subclasses it interpreted.
@mypyc_attr(allow_interpreted_subclasses=True)
class Board:
    """An Abalone position: the marbles, the side to move, the ejected counts and the move number."""

    __slots__ = ("cells", "grid", "near", "marbles", "slots", "turn", "ejected", "fullmove")

    def __init__(self, start: str | None = "standard") -> None:
        self.cells: list[int] = GEOMETRY.empty_cells(EMPTY)
        """Mailbox cells: ``EMPTY``, ``BLACK``, ``WHITE``, or ``OFF`` around and outside the hexagon. Who writes
        them directly (not by :meth:`push` or :meth:`set_fen`) calls :meth:`sync_grid` after."""
        self.grid: vec[i64] = _EMPTY_GRID[:] if PACKED else int_array(self.cells)  # compiled, one memory copy
        """The cells again as an :func:`~plybits.packed.int_array` (compiled, a ``vec[i64]`` whose items are read
        as machine ints; in pure Python the :attr:`cells` list itself), which the ``rank`` scorer reads: kept equal to
        :attr:`cells` by :meth:`push`, :meth:`set_fen`, :meth:`copy` and :meth:`sync_grid`."""
        self.near: list[vec[i64]] = [_EMPTY_NEAR, _EMPTY_NEAR[:], _EMPTY_NEAR[:]]
        """By colour (``BLACK``, ``WHITE``; item 0 unused), by cell what is next to it of that colour, kept with
        :attr:`grid`: bit ``d`` a marble in direction ``d``, bit :data:`NEAR_OFF_SHIFT` ``+ d`` the board's edge
        (cells on the board only), from bit :data:`NEAR_COUNT_SHIFT` how many marbles (0..6); the ``rank`` scorer reads
        them (:func:`~plybits.abalone.rank.scored_codes_after`)."""
        self.marbles: list[vec[i64]] = [_NO_MARBLES, _NO_MARBLES[:], _NO_MARBLES[:]]
        """By colour (item 0 unused), the cells of its marbles in cell order, then -1 (one for each marble pushed off
        since the position was set, and one), kept with :attr:`grid`; the ``rank`` scorer reads them."""
        self.slots: vec[i64] = _EMPTY_GRID[:] if PACKED else int_array(GEOMETRY.empty_cells(EMPTY))
        """By cell holding a marble, where it is in its colour's :attr:`marbles` (other cells: any number)."""
        self.turn: int = BLACK
        self.ejected: dict[int, int] = {BLACK: 0, WHITE: 0}
        """Marbles of each colour pushed off the board so far."""
        self.fullmove: int = 1
        if start is not None:
            self.set_fen(LAYOUTS.get(start, start))

    @classmethod
    def from_fen(cls, text: str) -> Self:
        """The position written as ``text`` (see the module docstring).

        :raises InvalidPositionError: if it cannot be read.
        """
        board = cls(None)
        board.set_fen(text)
        return board

    def set_fen(self, text: str) -> None:
        """Replace this position by the one written as ``text``.

        :raises InvalidPositionError: if it cannot be read.
        """
        if not isinstance(text, str) or len(text) > 200:
            raise InvalidPositionError(f"not an Abalone position string: {text!r}")
        layout = _LAYOUT_BOARDS.get(text)
        if layout is not None:  # a named layout's string (where every game of a collection starts), read once
            self.cells = layout.cells.copy()
            self.grid = layout.grid[:] if PACKED else int_array(self.cells)  # compiled, one memory copy
            self.near = [_EMPTY_NEAR, layout.near[BLACK][:], layout.near[WHITE][:]]
            self.marbles = [_NO_MARBLES, layout.marbles[BLACK][:], layout.marbles[WHITE][:]]
            self.slots = layout.slots[:]
            self.turn = layout.turn
            self.ejected = layout.ejected.copy()
            self.fullmove = layout.fullmove
            return
        fields = ascii_text(text, "Abalone position", InvalidPositionError).strip().split()
        if len(fields) < 2 or len(fields) > 5:
            raise InvalidPositionError(
                f"Abalone position {text!r} needs rows, side to move and optionally ejected counts and move number"
            )
        rows_text = fields[0].lower()
        ejected = [0, 0]
        suffix = _EJECTED_SUFFIX.search(rows_text)
        if suffix:
            ejected = [int(suffix.group(1)), int(suffix.group(2))]
            rows_text = rows_text[: suffix.start()]
        rows = rows_text.split("/")
        if len(rows) != 9:
            raise InvalidPositionError(f"Abalone position {text!r} has {len(rows)} rows, not 9")
        cells = GEOMETRY.empty_cells(EMPTY)
        for top, row_text in enumerate(rows):
            rank = 8 - top
            length = _ROW_LENGTHS[rank]
            first = max(0, rank - 4)
            filled: list[int] = []
            for ch in row_text:
                if ch == "b":
                    filled.append(BLACK)
                elif ch == "w":
                    filled.append(WHITE)
                elif ch in "123456789":
                    filled.extend([EMPTY] * int(ch))
                else:
                    raise InvalidPositionError(f"unexpected {ch!r} in row {ROWS[rank]} of Abalone position {text!r}")
                if len(filled) > length:
                    break
            if len(filled) != length:
                raise InvalidPositionError(
                    f"row {ROWS[rank]} of Abalone position {text!r} covers {len(filled)} cells, not {length}"
                )
            for k, value in enumerate(filled):
                cells[GEOMETRY.index(first + k, rank)] = value
        side = fields[1].lower()
        if side not in ("b", "w"):
            raise InvalidPositionError(f"side to move {fields[1]!r} of Abalone position {text!r} is not 'b' or 'w'")
        rest = fields[2:]
        if suffix and len(rest) > 1:
            raise InvalidPositionError(f"Abalone position {text!r} gives the ejected counts twice")
        if not suffix and len(rest) == 1:
            raise InvalidPositionError(f"Abalone position {text!r} gives one ejected count; give both or none")
        if not suffix and len(rest) >= 2:
            black, white = decimal(rest[0]), decimal(rest[1])
            if black is None or white is None:
                raise InvalidPositionError(f"ejected counts {rest[0]!r} {rest[1]!r} of {text!r} are not numbers")
            ejected = [black, white]
            rest = rest[2:]
        fullmove = 1
        if rest:
            number = decimal(rest[0])
            if number is None or not 1 <= number <= 100_000:
                raise InvalidPositionError(f"move number {rest[0]!r} of Abalone position {text!r} is not 1..100000")
            fullmove = number
        for color, count in zip((BLACK, WHITE), ejected):
            on_board = sum(1 for sq in SQUARES if cells[sq] == color)
            if count > WIN_EJECTED:
                raise InvalidPositionError(f"{count} {COLOR_NAMES[color]} marbles ejected in {text!r}: at most 6")
            if on_board + count > MARBLES_PER_SIDE:
                raise InvalidPositionError(
                    f"{on_board} {COLOR_NAMES[color]} marbles on the board and {count} ejected in {text!r}: "
                    f"more than {MARBLES_PER_SIDE}"
                )
        self.cells = cells
        self.grid = int_array(cells)
        self.near = _near_of(self.grid)
        self.marbles, self.slots = _marbles_of(self.grid)
        self.turn = BLACK if side == "b" else WHITE
        self.ejected = {BLACK: ejected[0], WHITE: ejected[1]}
        self.fullmove = fullmove

    def fen(self) -> str:
        """The position string (see the module docstring) that :meth:`from_fen` reads back."""
        cells = self.cells
        rows: list[str] = []
        for row in _FEN_ROWS:
            key = len(row)  # the row's length, then its cells as base-3 digits: a key no other row's text has
            for sq in row:
                value = cells[sq]
                if not EMPTY <= value <= WHITE:
                    raise InvalidPositionError(f"cell {CELL_NAMES[sq]} holds {value!r}, not a marble or empty")
                key = key * 3 + value
            text = _ROW_TEXTS.get(key)
            if text is None:
                text = _ROW_TEXTS[key] = _row_text([cells[sq] for sq in row])
            rows.append(text)
        side = SYMBOLS[self.turn]
        return f"{'/'.join(rows)} {side} {self.ejected[BLACK]} {self.ejected[WHITE]} {self.fullmove}"

    def copy(self) -> Self:
        """An independent copy."""
        board = self.__class__.__new__(self.__class__)
        board.cells = self.cells.copy()
        board.grid = self.grid[:] if PACKED else int_array(board.cells)
        board.near = [_EMPTY_NEAR, self.near[BLACK][:], self.near[WHITE][:]]
        board.marbles = [_NO_MARBLES, self.marbles[BLACK][:], self.marbles[WHITE][:]]
        board.slots = self.slots[:]
        board.turn = self.turn
        board.ejected = self.ejected.copy()
        board.fullmove = self.fullmove
        return board

    def sync_grid(self) -> None:
        """Make :attr:`grid` (and :attr:`near`, :attr:`marbles`, :attr:`slots`) equal to :attr:`cells` again, after
        :attr:`cells` was written directly (set up by hand)."""
        self.grid = int_array(self.cells)
        self.near = _near_of(self.grid)
        self.marbles, self.slots = _marbles_of(self.grid)

    def __eq__(self, other: object) -> bool:
        """Equal positions (by position string); defining this leaves boards unhashable, as they change."""
        return isinstance(other, Board) and self.fen() == other.fen()

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"

    def winner(self) -> int | None:
        """The colour that has pushed off six opposing marbles, if any."""
        if self.ejected[WHITE] >= WIN_EJECTED:
            return BLACK
        if self.ejected[BLACK] >= WIN_EJECTED:
            return WHITE
        return None

    def is_over(self) -> bool:
        """Whether a side has won (then there are no legal moves)."""
        return self.winner() is not None

    def status(self) -> dict[str, Any]:
        """``{"status": "ongoing"|"won", "ejected": {...}}`` plus ``winner`` and ``result`` (APGN token) when won."""
        out: dict[str, Any] = {
            "status": "ongoing",
            "ejected": {"black": self.ejected[BLACK], "white": self.ejected[WHITE]},
        }
        winner = self.winner()
        if winner is not None:
            out["status"] = "won"
            out["winner"] = COLOR_NAMES[winner]
            out["result"] = "1-0" if winner == BLACK else "0-1"
        return out

    def occupied(self) -> list[tuple[int, int, str]]:
        """``(file, rank, "b"|"w")`` of every marble, in :data:`GEOMETRY` coordinates."""
        cells = self.cells
        return [(*GEOMETRY.coords(sq), SYMBOLS[cells[sq]]) for sq in SQUARES if cells[sq] != EMPTY]

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move, in generation order (docs/abalone.md):
        cells a1..i9; for each cell its inline moves by direction 0..5, then the broadsides
        that have it as first end, by line direction 0..2, two before three marbles, move
        directions ascending. Empty once a side has won."""
        moves: list[Move] = []
        legal_moves_into(self, moves, moves)
        return moves

    def illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` is not legal here, or ``None`` if it is."""
        return why_illegal(self, move)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here."""
        return why_illegal(self, move) is None

    def check(self, move: Move) -> None:
        """Raise unless ``move`` is legal here.

        :raises IllegalMoveError: naming the move and the rule it breaks.
        """
        check_move(self, move)

    def pushed(self, move: Move) -> int:
        """How many opposing marbles the legal ``move`` pushes (0 unless it is a sumito)."""
        if move.line >= 0:
            return 0
        cells, me, step = self.cells, self.turn, STEPS[move.direction]
        t = move.cell + step
        while cells[t] == me:
            t += step
        k = 0
        while cells[t] == 3 - me:
            k += 1
            t += step
        return k

    def ejects(self, move: Move) -> bool:
        """Whether the legal ``move`` pushes an opposing marble off the board."""
        if move.line >= 0:
            return False
        cells, me, step = self.cells, self.turn, STEPS[move.direction]
        t = move.cell + step
        while cells[t] == me:
            t += step
        if cells[t] != 3 - me:
            return False
        while cells[t] == 3 - me:
            t += step
        return cells[t] == OFF

    def push(self, move: Move) -> None:
        """Play ``move`` (legal here); an opposing marble pushed off the edge counts as ejected. Each cell written to
        :attr:`cells` is written to :attr:`grid` too (in pure Python the same list, written twice) and its neighbours'
        :attr:`near` changed, and the moved marbles' :attr:`marbles` and :attr:`slots`; the cells are read
        from :attr:`grid` (compiled, a machine int a read, where an item of :attr:`cells` is an object)."""
        cells = self.cells
        grid = self.grid
        slots = self.slots
        me: i64 = self.turn
        mine = self.near[me]
        step: i64 = _STEP[move.direction]
        line: i64 = move.line
        sq: i64 = move.cell
        if line < 0:
            t = sq + step
            while grid[t] == me:
                t += step
            c = grid[t]
            if c != EMPTY:  # sumito: the opposing line moves one cell on (its front marble to past its end)
                theirs = self.near[c]
                _leave(theirs, t)
                end = t + step
                while grid[end] == c:
                    end += step
                if grid[end] == OFF:
                    self.ejected[c] += 1
                    _remove(self.marbles[c], slots, t)
                else:
                    cells[end] = c
                    grid[end] = c
                    _enter(theirs, end)
                    _move(self.marbles[c], slots, t, end)
            cells[sq] = EMPTY
            grid[sq] = EMPTY
            _leave(mine, sq)
            cells[t] = me
            grid[t] = me
            _enter(mine, t)
            _move(self.marbles[me], slots, sq, t)  # the rear marble to the front
        else:
            lstep: i64 = _STEP[line]
            marbles: i64 = move.marbles
            listed = self.marbles[me]
            for k in range(marbles):
                left = sq + k * lstep
                cells[left] = EMPTY
                grid[left] = EMPTY
                _leave(mine, left)
                _move(listed, slots, left, left + step)
            for k in range(marbles):
                entered = sq + k * lstep + step
                cells[entered] = me
                grid[entered] = me
                _enter(mine, entered)
        if me == WHITE:
            self.fullmove += 1
        self.turn = 3 - me


def why_illegal(board: Board, move: Move) -> str | None:
    """:meth:`Board.illegal_reason`: why ``move`` is not legal on ``board``, or ``None`` if it is. A module function,
    which :meth:`Board.check` calls directly (a method of the interpreted ``Position`` is a lookup); the colour's
    name is looked up for a message only; the cells are read from :attr:`Board.grid`."""
    ejected = board.ejected
    if ejected[BLACK] >= WIN_EJECTED or ejected[WHITE] >= WIN_EJECTED:
        winner = board.winner()
        assert winner is not None
        return f"the game is over: {COLOR_NAMES[winner]} has ejected six marbles"
    cells = board.grid  # compiled, machine ints (the cells list's items are objects)
    me: i64 = board.turn
    opp = 3 - me
    names = CELL_NAMES
    sq: i64
    step: i64
    if move.line < 0:
        sq, step = move.cell, _STEP[move.direction]
        if cells[sq] != me:
            return f"{names[sq]} holds no {COLOR_NAMES[me]} marble"
        n = 1
        t = sq + step
        while cells[t] == me:
            n += 1
            t += step
        if n > 3:
            return f"the line from {names[sq]} holds {n} {COLOR_NAMES[me]} marbles in a row; at most 3 move"
        c = cells[t]
        if c == OFF:
            return f"{names[t - step]} would leave the board: a player never pushes off his own marble"
        if c == EMPTY:
            return None
        front = t
        k = 0
        while cells[t] == opp:
            k += 1
            t += step
        if k >= n:
            return (
                f"{n} against {k}: {n} {COLOR_NAMES[me]} marble{'s' if n > 1 else ''} cannot push "
                f"{k} opposing marble{'s' if k > 1 else ''} from {names[front]} (sumito needs more)"
            )
        if cells[t] == me:
            return f"push blocked at {names[t]} by a {COLOR_NAMES[me]} marble behind the opposing ones"
        return None
    step = _STEP[move.line]
    first = move.cell
    count = move.marbles
    for k in range(count):
        sq = first + k * step
        if cells[sq] != me:
            return f"{names[sq]} holds no {COLOR_NAMES[me]} marble"
    dstep = _STEP[move.direction]
    for k in range(count):
        sq = first + k * step
        dest = sq + dstep
        if cells[dest] == OFF:
            return f"{names[sq]} would leave the board: a broadside moves into empty cells only"
        if cells[dest] != EMPTY:
            return f"broadside into occupied {names[dest]}: a broadside moves into empty cells only"
    return None


def check_move(board: Board, move: Move) -> None:
    """:meth:`Board.check`, a module function which compiled callers (the notation) call directly.

    :raises IllegalMoveError: naming the move and the rule it breaks.
    """
    reason = why_illegal(board, move)
    if reason is not None:
        raise IllegalMoveError(f"{str(move)!r} is illegal: {reason}")


_LAYOUT_BOARDS: Final[dict[str, Board]] = {}
"""The position of each of :data:`LAYOUTS`' strings, which :meth:`Board.set_fen` copies rather than reads again."""
for _text in LAYOUTS.values():
    _LAYOUT_BOARDS[_text] = Board.from_fen(_text)


def legal_moves_into(board: Board, inline: list[Move], broadside: list[Move]) -> None:
    """Append every legal move of ``board``, the inline ones to ``inline`` and the broadsides to ``broadside``,
    each in generation order (:meth:`Board.legal_moves`' order when both are one list; the ``rank`` scheme's
    canonical order when ``broadside`` follows ``inline``); none once a side has won.

    Written for mypyc (docs/architecture.md): a module function, which compiled callers call directly (a method
    on the interpreted ``Position`` goes through Python's attribute lookup); ``i64`` locals, which compiled code
    adds and compares as plain machine ints (a plain ``int`` is tagged, checked at every operation); the moves
    appended are the shared instances of :data:`MOVE_OF`, so appending one allocates nothing (a move code above
    256 would be a new int).
    """
    ejected = board.ejected
    if ejected[BLACK] >= WIN_EJECTED or ejected[WHITE] >= WIN_EJECTED:
        return
    cells = board.cells
    me: i64 = board.turn
    opp: i64 = 3 - me
    off: i64 = OFF
    moves = MOVE_OF
    inline_table = _INLINE_TABLE
    broadside_table = BROADSIDE_TABLE
    sideways = SIDEWAYS_TABLE
    step: i64
    lstep: i64
    code: i64
    s: i64
    for square in _SQUARE_LIST:
        sq: i64 = square
        if cells[sq] != me:
            continue
        for step, move in inline_table[sq]:
            t: i64 = sq + step
            c: i64 = cells[t]
            if c == EMPTY:
                inline.append(move)
                continue
            if c != me:
                continue  # a lone marble pushes nothing; off the board is suicide
            t += step
            c = cells[t]
            if c == me:
                t += step
                c = cells[t]
                if c == me:
                    continue  # four in a row cannot move
                if c == EMPTY:
                    inline.append(move)
                elif c == opp:  # 3 against 1 or 2
                    t += step
                    c = cells[t]
                    if c == EMPTY or c == off:
                        inline.append(move)
                    elif c == opp:
                        c = cells[t + step]
                        if c == EMPTY or c == off:
                            inline.append(move)
            elif c == EMPTY:
                inline.append(move)
            elif c == opp:  # 2 against 1
                c = cells[t + step]
                if c == EMPTY or c == off:
                    inline.append(move)
        for lstep, code, line in broadside_table[sq]:
            a: i64 = sq + lstep
            if cells[a] != me:
                continue
            for s, d in sideways[line]:
                if cells[sq + s] == EMPTY and cells[a + s] == EMPTY:
                    broadside.append(moves[code + d])
            b: i64 = a + lstep
            if cells[b] == me:
                for s, d in sideways[line]:
                    if cells[sq + s] == EMPTY and cells[a + s] == EMPTY and cells[b + s] == EMPTY:
                        broadside.append(moves[code + 6 + d])
