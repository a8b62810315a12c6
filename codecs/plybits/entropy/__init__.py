"""New Entropy (SPEC §3): a 7x7 board, seven colours of seven chips, two rounds of 49 turns.

Registers the game ``entropy`` (notation ``tokens``, start ``empty`` or a position string) and
its seed scheme ``entropy/e13``. Rules, position string and token case rules: ``docs/entropy.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from plybits.entropy.board import COLOURS, EMPTY_START, GEOMETRY, Board, Turn, line_score, play
from plybits.entropy.e13 import E13
from plybits.entropy.notation import parse_record, parse_token, split_records, write_record
from plybits.errors import InvalidPositionError
from plybits.game import Game, Record
from plybits.registry import register_game, register_scheme


class Entropy(Game):
    """New Entropy: Chaos places a drawn chip, Order leaves or slides it; palindromes score."""

    name: ClassVar[str] = "entropy"
    notations: ClassVar[tuple[str, ...]] = ("tokens",)
    starts: ClassVar[tuple[str, ...]] = ("empty",)
    description: ClassVar[str] = (
        "New Entropy: 7x7 board, 7 colours x 7 chips, two rounds of 49 turns with roles swapped; "
        "palindromes of length 2-7 in rows and columns score their length"
    )
    splits_records: ClassVar[bool] = True

    def position(self, start: str | None = None) -> Board:
        """The empty start (``None`` or ``"empty"``) or a position string.

        :raises InvalidPositionError: if ``start`` cannot be read.
        """
        if start is not None and not isinstance(start, str):
            raise InvalidPositionError(f"bad entropy position {start!r}: not a string")
        return Board(start)

    def parse_record(self, text: str) -> Record:
        """Tags, ``Start`` and tokens of a record (see :mod:`plybits.entropy.notation`)."""
        return parse_record(text)

    def split_records(self, text: str) -> Iterator[str]:
        """Records separated by blank lines or by the next record's tag lines."""
        return split_records(text)

    def write_record(self, record: Record, notation: str | None = None) -> str:
        """Tags, a blank line and the tokens."""
        return write_record(record)


GAME = Entropy()
E13_SCHEME = E13()
register_game(GAME)
register_scheme(E13_SCHEME)

__all__ = ["COLOURS", "E13", "EMPTY_START", "GEOMETRY", "Board", "Entropy", "Turn", "line_score", "parse_token", "play"]
