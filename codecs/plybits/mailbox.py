"""The shared board model: a one-dimensional cell array inside a sentinel border.

Every game declares a :class:`Geometry` (width, height, border width, which
cells exist, how cells are named) and keeps its pieces in a flat list of
``geometry.size`` entries. Border cells (and, for non-rectangular boards,
cells that do not exist) hold :data:`OFF`, so stepping off the board is a
list look-up, never a coordinate test::

    >>> g = Geometry(width=3, height=3, border=1, name=lambda f, r: "abc"[f] + str(r + 1))
    >>> cells = g.empty_cells()
    >>> g.parse("a1"), g.name(g.index(2, 2)), cells[g.index(0, 0) + g.offset(-1, 0)] == OFF
    (6, 'c3', True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final, TypeAlias

from plybits.errors import InvalidMoveError


OFF: Final = 0x40
"""Marks a cell outside the board: an ``int`` no game uses for a piece (its low bits are clear, so it is of no
colour and no kind), so that a game's cells are a ``list[int]`` (compiled code indexes them natively). Truthy,
so ``if cells[i]`` means "occupied or off"; compare it with ``==``."""

Square: TypeAlias = int
"""A cell's index in a game's cell array (``board.cells[square]``)."""


class Geometry:
    """A width x height grid inside a border of ``border`` cells on every side.

    Cells are addressed by ``(file, rank)`` with ``0 <= file < width`` and
    ``0 <= rank < height``; the array index is ``(rank + border) * stride + file + border``.
    ``exists(file, rank)`` selects the playable cells of a non-rectangular board.
    ``name(file, rank)`` gives a cell's name in the game's notation.
    """

    def __init__(
        self,
        width: int,
        height: int,
        border: int,
        name: Callable[[int, int], str],
        exists: Callable[[int, int], bool] | None = None,
    ) -> None:
        self.width = width
        self.height = height
        self.border = border
        self.stride = width + 2 * border
        self.size = self.stride * (height + 2 * border)
        self.squares: tuple[Square, ...] = tuple(
            self.index(f, r)
            for r in range(height)
            for f in range(width)
            if exists is None or exists(f, r)
        )
        """Indices of the playable cells, rank by rank, each rank by increasing file."""
        self.on_board: tuple[bool, ...] = tuple(i in set(self.squares) for i in range(self.size))
        self._names: dict[int, str] = {i: name(*self.coords(i)) for i in self.squares}
        self._by_name: dict[str, int] = {n: i for i, n in self._names.items()}

    def index(self, file: int, rank: int) -> Square:
        """Array index of the cell at ``(file, rank)`` (which may be off the board)."""
        return (rank + self.border) * self.stride + file + self.border

    def coords(self, index: Square) -> tuple[int, int]:
        """``(file, rank)`` of an array index."""
        rank, file = divmod(index, self.stride)
        return file - self.border, rank - self.border

    def offset(self, dfile: int, drank: int) -> int:
        """Index difference of a step of ``dfile`` files and ``drank`` ranks."""
        return drank * self.stride + dfile

    def name(self, index: Square) -> str:
        """Name of a playable cell, e.g. ``"e4"``."""
        return self._names[index]

    def parse(self, name: str) -> Square:
        """Index of a named cell.

        :raises InvalidMoveError: if no playable cell has that name.
        """
        try:
            return self._by_name[name]
        except KeyError:
            raise InvalidMoveError(f"unknown square {name!r}") from None

    def empty_cells(self, empty: Any = None) -> list[Any]:
        """A fresh cell array: ``empty`` on every playable cell, :data:`OFF` elsewhere."""
        return [empty if on else OFF for on in self.on_board]

    def rays(self, index: Square, step: int) -> Iterator[Square]:
        """Indices from ``index`` (exclusive) in steps of ``step`` while on the board."""
        index += step
        while self.on_board[index]:
            yield index
            index += step

    def __repr__(self) -> str:
        return f"Geometry(width={self.width}, height={self.height}, border={self.border})"
