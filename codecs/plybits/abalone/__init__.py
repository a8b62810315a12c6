"""Abalone: the hex board, its rules, Aba-Pro notation, APGN records and the ``abalone/abapro`` and
``abalone/rank`` schemes.

Importing this package registers the game and its schemes (see docs/architecture.md)."""

from __future__ import annotations

import re
from typing import ClassVar

from plybits.abalone import apgn, svg
from plybits.abalone import notation as _notation
from plybits.abalone.abapro import ABAPRO, AbaProScheme
from plybits.abalone.board import LAYOUTS, Board, Move
from plybits.abalone.rank import RANK
from plybits.errors import InvalidPositionError
from plybits.game import Game, Record, RecordHead, Speaks
from plybits.registry import register

__all__ = ["ABAPRO", "GAME", "RANK", "AbaProScheme", "Abalone", "Board", "Move", "Position"]


_ABAPRO = re.compile(r"([a-i][1-9]){2,3}")


class Position(Board, Speaks[Move]):
    """An Abalone position speaking the :class:`plybits.game.Position` protocol: the rules of
    :class:`~plybits.abalone.board.Board`, the notation of :mod:`plybits.abalone.notation`."""

    __slots__ = ()
    notation_module = _notation


class Abalone(Game[Position]):
    """Abalone on the 61-cell board; black moves first; six marbles pushed off win."""

    name: ClassVar[str] = "abalone"
    notations: ClassVar[tuple[str, ...]] = (_notation.NAME,)
    starts: ClassVar[tuple[str, ...]] = ("standard", "belgian-daisy", "german-daisy")
    seed_scheme: ClassVar[str] = ABAPRO.name
    description: ClassVar[str] = "Abalone: 61 hexagonal cells, sumito pushes, Aba-Pro notation, APGN records"
    splits_records: ClassVar[bool] = True
    renderer = svg
    game_tags: ClassVar[tuple[str, ...]] = ("abalone",)

    def sniff_text(self, head: RecordHead) -> str | None:
        """An APGN header (``[Notation "Aba-Pro"]``), an ``.apgn`` name, or Aba-Pro moves (some on file i or
        row 9)."""
        if head.tags.get("notation", "").lower() == "aba-pro":
            return "its APGN header"
        if head.name.endswith(".apgn"):
            return "its .apgn extension"
        moves = head.moves
        if moves and all(_ABAPRO.fullmatch(m) for m in moves) and any(c in "i9" for m in moves for c in m):
            return "its Aba-Pro movetext"
        return None

    def position(self, start: str | None = None) -> Position:
        """A named layout (the standard one when ``None``) or the position a position string writes.

        :raises InvalidPositionError: if ``start`` cannot be read.
        """
        if start is None:
            return Position("standard")
        if not isinstance(start, str):
            raise InvalidPositionError(f"not an Abalone start: {start!r}")
        if start in LAYOUTS:
            return Position(start)
        if "/" not in start:
            raise InvalidPositionError(
                f"unknown Abalone start {start!r}; known: {', '.join(self.starts)} or a position string"
            )
        return Position.from_fen(start)

    def parse_record(self, text: str) -> Record:
        return apgn.parse_record(text)

    def write_record(self, record: Record, notation: str | None = None) -> str:
        """An APGN of the record."""
        return apgn.write_record(record)


GAME = Abalone()
register(GAME, ABAPRO, RANK)
