"""Chess: standard and Chess960, SAN and UCI, PGN, and the ``chess/0x88`` and ``chess/rank`` schemes.

Importing this package registers the game and its schemes (see docs/architecture.md)."""

from __future__ import annotations

from typing import ClassVar

from plybits.chess import notation as _notation
from plybits.chess import pgn, svg
from plybits.chess.board import STANDARD_FEN, Board
from plybits.chess.squares import NULL_MOVE, Move
from plybits.chess.rank import RANK
from plybits.chess.x88 import X88, X88Scheme
from plybits.errors import InvalidPositionError, InvalidRecordError, PlybitsError
from plybits.game import Game, Record, RecordHead, Speaks
from plybits.registry import register


class Position(Board, Speaks[Move]):
    """A chess position speaking the :class:`plybits.game.Position` protocol: SAN and UCI by :mod:`.notation`."""

    __slots__ = ()
    notation_module = _notation


class Chess(Game[Position]):
    """Chess: standard and Chess960 (X-FEN or Shredder-FEN castling)."""

    name: ClassVar[str] = "chess"
    notations: ClassVar[tuple[str, ...]] = ("san", "uci")
    starts: ClassVar[tuple[str, ...]] = ("standard",)
    seed_scheme: ClassVar[str] = X88.name
    description: ClassVar[str] = "Chess and Chess960: SAN and UCI moves, PGN records, FEN positions"
    splits_records: ClassVar[bool] = True
    renderer = svg
    game_tags: ClassVar[tuple[str, ...]] = ("chess",)
    SNIFF_PLIES: ClassVar[int] = 4
    """Plies of a file's first game that :meth:`sniff_text` plays."""

    def sniff_text(self, head: RecordHead) -> str | None:
        """A file whose first game's first moves are legal chess moves (SAN or UCI) from its start (its ``FEN``
        tag's)."""
        if not head.first:
            return None
        try:
            position = self.position(head.tags.get("fen"))
            for text in head.first[:self.SNIFF_PLIES]:
                position.push(position.parse_move(text.rstrip("!?")))
        except PlybitsError:
            return None
        return "its SAN or UCI movetext"

    def position(self, start: str | None = None, *, chess960: bool = False) -> Position:
        """The standard start, or the position a FEN writes (Chess960 when its castling uses file letters
        or non-standard rook or king squares, or when ``chess960`` is set).

        :raises InvalidPositionError: if ``start`` is not a valid FEN.
        """
        if start is None or start == "standard":
            start = STANDARD_FEN
        elif start.lower() in ("chess960", "960"):
            start, chess960 = STANDARD_FEN, True
        if len(start) > 200:
            raise InvalidPositionError(f"FEN of {len(start)} characters is too long")
        # a keyword call of a compiled class from here parses a dictionary (about 1.5k instructions): none unless needed
        return Position(start, chess960=True) if chess960 else Position(start)

    def parse_record(self, text: str) -> Record:
        """A PGN (tags and mainline) or a bare SAN/UCI move list.

        A Chess960 record (``[Variant "Chess960"]``) gets a Chess960 start (Shredder-FEN), even from the standard array.

        :raises InvalidRecordError: on malformed PGN or a variant other than standard chess and Chess960.
        """
        record, chess960 = pgn.read_pgn(text)
        if chess960 or record.start is not None:
            try:
                record.start = self.position(record.start, chess960=chess960).fen()
            except PlybitsError as err:
                raise InvalidRecordError(f"bad FEN tag: {err.reason}") from None
        return record

    def write_record(self, record: Record, notation: str | None = None) -> str:
        """A PGN of the record (moves already in ``notation``), numbered from its start position."""
        if record.start is None:
            return pgn.write_pgn(record)
        position = self.position(record.start)
        return pgn.write_pgn(record, chess960=position.chess960, first_turn_black=position.turn != 0,
                             first_number=position.fullmove_number)


GAME = Chess()
register(GAME, X88, RANK)

__all__ = ["GAME", "RANK", "X88", "Board", "Chess", "Move", "NULL_MOVE", "Position", "X88Scheme"]
