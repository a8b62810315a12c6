"""New Entropy (SPEC §3): a 7x7 board, seven colours of seven chips, two rounds of 49 turns.

Registers the game ``entropy`` (notation ``tokens``, start ``empty`` or a position string) and its
schemes ``entropy/e13`` and ``entropy/rank`` (see docs/architecture.md). Rules, position string and
token case rules: ``docs/entropy.md``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import ClassVar

from plybits.entropy import notation as _notation
from plybits.entropy import svg
from plybits.entropy.board import COLOURS, EMPTY_START, GEOMETRY, Board, Turn, line_score, parse_token
from plybits.entropy.e13 import E13, E13Scheme
from plybits.entropy.rank import RANK
from plybits.errors import InvalidPositionError
from plybits.game import Game, Record, RecordHead, Speaks
from plybits.registry import register


_TOKEN = re.compile(r"[RGOBYWK][a-g][1-7]([a-g][1-7])?", re.I)


class Position(Board, Speaks[Turn]):
    """A New Entropy position speaking the :class:`plybits.game.Position` protocol: the rules of
    :class:`~plybits.entropy.board.Board`, the turn tokens of :mod:`plybits.entropy.notation`."""

    __slots__ = ()
    notation_module = _notation


class Entropy(Game[Position]):
    """New Entropy: Chaos places a drawn chip, Order leaves or slides it; palindromes score."""

    name: ClassVar[str] = "entropy"
    notations: ClassVar[tuple[str, ...]] = _notation.NOTATIONS
    starts: ClassVar[tuple[str, ...]] = ("empty",)
    seed_scheme: ClassVar[str] = E13.name
    description: ClassVar[str] = (
        "New Entropy: 7x7 board, 7 colours x 7 chips, two rounds of 49 turns with roles swapped; "
        "palindromes of length 2-7 in rows and columns score their length"
    )
    splits_records: ClassVar[bool] = True
    renderer = svg
    game_tags: ClassVar[tuple[str, ...]] = ("entropy", "new entropy")

    def sniff_text(self, head: RecordHead) -> str | None:
        """Moves that are all Entropy tokens (a colour letter and one or two cells)."""
        if head.moves and all(_TOKEN.fullmatch(m) for m in head.moves):
            return "its Entropy tokens"
        return None

    def position(self, start: str | None = None) -> Position:
        """The empty start (``None`` or ``"empty"``) or a position string.

        :raises InvalidPositionError: if ``start`` cannot be read.
        """
        if start is not None and not isinstance(start, str):
            raise InvalidPositionError(f"bad entropy position {start!r}: not a string")
        return Position(start)

    def parse_record(self, text: str) -> Record:
        """Tags, ``Start`` and tokens of a record (see :mod:`plybits.entropy.notation`)."""
        return _notation.parse_record(text)

    def split_records(self, text: str) -> Iterator[str]:
        """Records separated by blank lines or by the next record's tag lines."""
        return _notation.split_records(text)

    def write_record(self, record: Record, notation: str | None = None) -> str:
        """Tags, a blank line and the turn tokens."""
        return _notation.write_record(record)


GAME = Entropy()
register(GAME, E13, RANK)

__all__ = [
    "COLOURS", "E13", "EMPTY_START", "GAME", "GEOMETRY", "RANK", "Board", "E13Scheme", "Entropy",
    "Position", "Turn", "line_score", "parse_token",
]
