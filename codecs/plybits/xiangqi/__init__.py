"""Xiangqi: rules (:mod:`.board`), ICCS/WXF/Chinese notation (:mod:`.notation`), PGN (:mod:`.pgn`)
and the ``xq10`` scheme (:mod:`.xq10`); importing this package registers the game and the scheme."""

from __future__ import annotations

from typing import Any

from plybits.game import Game, Record
from plybits.registry import register_game, register_scheme
from plybits.xiangqi import notation as _notation
from plybits.xiangqi import pgn
from plybits.xiangqi.board import STANDARD_FEN, Board, Move
from plybits.xiangqi.xq10 import XQ10


class Position(Board):
    """A :class:`~plybits.xiangqi.board.Board` that reads and writes moves in the game's notations."""

    __slots__ = ()

    def parse_move(self, text: str, notation: str | None = None) -> Move:
        """The legal move ``text`` in ``notation`` (any of iccs, wxf, chinese when ``None``)."""
        return _notation.parse_move(self, text, notation)

    def move_text(self, move: Any, notation: str | None = None) -> str:
        """``move`` written in ``notation`` (ICCS when ``None``)."""
        return _notation.move_text(self, move, notation)


class Xiangqi(Game):
    """Chinese chess on a 9x10 board."""

    name = "xiangqi"
    notations = _notation.NOTATIONS
    starts = ("standard",)
    description = "Xiangqi (Chinese chess): standard start or any xiangqi FEN; ICCS, WXF and Chinese notation"
    splits_records = True

    def position(self, start: str | None = None) -> Position:
        """The standard start, or the position of a xiangqi FEN.

        :raises InvalidPositionError: if ``start`` is not a readable, possible position.
        """
        return Position(STANDARD_FEN if start is None or start == "standard" else start)

    def parse_record(self, text: str) -> Record:
        return pgn.parse_record(text)

    def write_record(self, record: Record, notation: str | None = None) -> str:
        return pgn.write_record(record, notation)


GAME = Xiangqi()
XQ10_SCHEME = XQ10()
register_game(GAME)
register_scheme(XQ10_SCHEME)

__all__ = ["GAME", "XQ10_SCHEME", "Board", "Move", "Position", "Xiangqi"]
