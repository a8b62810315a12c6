"""Xiangqi: rules (:mod:`.board`), ICCS/WXF/Chinese notation (:mod:`.notation`), PGN (:mod:`.pgn`)
and the ``xiangqi/xq10`` and ``xiangqi/rank`` schemes.

Importing this package registers the game and its schemes (see docs/architecture.md)."""

from __future__ import annotations

import re
from typing import ClassVar, Final

from plybits.game import Game, Record, RecordHead, Speaks
from plybits.registry import register
from plybits.xiangqi import notation as _notation
from plybits.xiangqi import pgn, svg
from plybits.xiangqi.board import STANDARD_FEN, Board, Move
from plybits.xiangqi.rank import RANK
from plybits.xiangqi.xq10 import XQ10, XQ10Scheme


_ICCS = re.compile(r"[a-i][0-9]-?[a-i][0-9]")
_CJK = re.compile(r"[\u4e00-\u9fff\uff10-\uff19]")


class Position(Board, Speaks[Move]):
    """A xiangqi position speaking the :class:`plybits.game.Position` protocol: ICCS, WXF and Chinese notation
    by :mod:`.notation`."""

    __slots__ = ()
    notation_module = _notation


_START: Final = Position(STANDARD_FEN)
"""The standard start, which :meth:`Xiangqi.position` copies."""


class Xiangqi(Game[Position]):
    """Chinese chess on a 9x10 board."""

    name: ClassVar[str] = "xiangqi"
    notations: ClassVar[tuple[str, ...]] = _notation.NOTATIONS
    starts: ClassVar[tuple[str, ...]] = ("standard",)
    seed_scheme: ClassVar[str] = XQ10.name
    description: ClassVar[str] = "Xiangqi (Chinese chess): standard start or any xiangqi FEN; ICCS, WXF and Chinese notation"
    splits_records: ClassVar[bool] = True
    renderer = svg
    game_tags: ClassVar[tuple[str, ...]] = ("chinese chess", "xiangqi")

    def sniff_text(self, head: RecordHead) -> str | None:
        """A ``[Format "ICCS|WXF|Chinese"]`` tag, Chinese movetext, or ICCS moves (some on rank 0)."""
        if head.tags.get("format", "").lower() in ("iccs", "wxf", "chinese"):
            return f'its [Format "{head.tags["format"]}"] tag'
        if _CJK.search(head.movetext):
            return "its Chinese movetext"
        moves = head.moves
        if moves and all(_ICCS.fullmatch(m) for m in moves) and any("0" in m for m in moves):
            return "its ICCS movetext"
        return None

    def position(self, start: str | None = None) -> Position:
        """The standard start, or the position of a xiangqi FEN.

        :raises InvalidPositionError: if ``start`` is not a readable, possible position.
        """
        if start is None or start == "standard" or start == STANDARD_FEN:
            return _START.copy()  # the FEN read once: every game of a file starts here
        return Position(start)

    def parse_record(self, text: str) -> Record:
        return pgn.parse_record(text)

    def write_record(self, record: Record, notation: str | None = None) -> str:
        """An xqbase-style PGN of the record (moves already in ``notation``)."""
        return pgn.write_record(record, notation)


GAME = Xiangqi()
register(GAME, XQ10, RANK)

__all__ = ["GAME", "RANK", "XQ10", "Board", "Move", "Position", "Xiangqi", "XQ10Scheme"]
