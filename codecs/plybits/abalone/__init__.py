"""Abalone: the hex board, its rules, Aba-Pro notation, APGN records and the ``abapro`` scheme."""

from __future__ import annotations

from typing import ClassVar

from plybits.abalone import apgn
from plybits.abalone.abapro import ABAPRO, AbaProScheme
from plybits.abalone.board import LAYOUTS, Board, Move
from plybits.errors import InvalidPositionError
from plybits.game import Game, Record
from plybits.registry import register_game, register_scheme

__all__ = ["ABALONE", "AbaProScheme", "Abalone", "Board", "Move"]


class Abalone(Game):
    """Abalone on the 61-cell board; black moves first; six marbles pushed off win."""

    name: ClassVar[str] = "abalone"
    notations: ClassVar[tuple[str, ...]] = ("abapro",)
    starts: ClassVar[tuple[str, ...]] = ("standard", "belgian-daisy", "german-daisy")
    description: ClassVar[str] = "Abalone: 61 hexagonal cells, sumito pushes, Aba-Pro notation, APGN records"
    splits_records: ClassVar[bool] = True

    def position(self, start: str | None = None) -> Board:
        if start is None:
            return Board("standard")
        if not isinstance(start, str):
            raise InvalidPositionError(f"not an Abalone start: {start!r}")
        if start in LAYOUTS:
            return Board(start)
        if "/" not in start:
            raise InvalidPositionError(
                f"unknown Abalone start {start!r}; known: {', '.join(self.starts)} or a position string"
            )
        return Board.from_fen(start)

    def parse_record(self, text: str) -> Record:
        return apgn.parse_record(text)

    def write_record(self, record: Record, notation: str | None = None) -> str:
        return apgn.write_record(record)


ABALONE = Abalone()
register_game(ABALONE)
register_scheme(ABAPRO)
