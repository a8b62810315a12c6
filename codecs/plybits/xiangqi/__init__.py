"""Xiangqi: rules (:mod:`.board`), ICCS/WXF/Chinese notation (:mod:`.notation`), PGN (:mod:`.pgn`)
and the ``xiangqi/xq10`` and ``xiangqi/rank`` schemes.

Importing this package registers the game and its schemes (see docs/architecture.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from plybits.game import Game, Record, Renderer
from plybits.registry import register_game, register_scheme
from plybits.xiangqi import notation as _notation
from plybits.xiangqi import pgn, svg
from plybits.xiangqi.board import STANDARD_FEN, Board, Move
from plybits.xiangqi.rank import RANK, XiangqiRankScheme
from plybits.xiangqi.xq10 import XQ10, XQ10Scheme


class Position(Board):
    """A :class:`~plybits.xiangqi.board.Board` that reads and writes moves in the game's notations."""

    __slots__ = ()

    def parse_move(self, text: str, notation: str | None = None) -> Move:
        """The legal move ``text`` in ``notation`` (any of iccs, wxf, chinese when ``None``)."""
        return _notation.parse_move(self, text, notation)

    def move_text(self, move: Move, notation: str | None = None) -> str:
        """``move`` written in ``notation`` (ICCS when ``None``)."""
        return _notation.move_text(self, move, notation)


class Xiangqi(Game[Position]):
    """Chinese chess on a 9x10 board."""

    name: ClassVar[str] = "xiangqi"
    notations: ClassVar[tuple[str, ...]] = _notation.NOTATIONS
    starts: ClassVar[tuple[str, ...]] = ("standard",)
    seed_scheme: ClassVar[str] = XQ10.name
    description: ClassVar[str] = "Xiangqi (Chinese chess): standard start or any xiangqi FEN; ICCS, WXF and Chinese notation"
    splits_records: ClassVar[bool] = True

    def position(self, start: str | None = None) -> Position:
        """The standard start, or the position of a xiangqi FEN.

        :raises InvalidPositionError: if ``start`` is not a readable, possible position.
        """
        return Position(STANDARD_FEN if start is None or start == "standard" else start)

    def parse_record(self, text: str) -> Record:
        return pgn.parse_record(text)

    def write_record(self, record: Record, notation: str | None = None) -> str:
        """An xqbase-style PGN of the record (moves already in ``notation``)."""
        return pgn.write_record(record, notation)

    def renderer(self) -> Renderer[Position]:
        """:mod:`plybits.xiangqi.svg`."""
        return svg


GAME = Xiangqi()
register_game(GAME)
register_scheme(XQ10)
register_scheme(RANK)

__all__ = ["GAME", "RANK", "XQ10", "Board", "Move", "Position", "Xiangqi", "XiangqiRankScheme", "XQ10Scheme"]
