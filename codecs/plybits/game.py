"""What every game and every scheme provides: the interfaces the facade and the service rely on."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, Self

from bitarray import bitarray

from plybits.pgntext import split_records

Move = Hashable
"""A game's own move object (each game defines its class); only the game interprets it."""


class Position(Protocol):
    """A game position that can be copied, queried and played forward."""

    def copy(self) -> Self:
        """An independent copy."""
        ...

    def push(self, move: Any) -> None:
        """Play a move already known to be legal."""
        ...

    def legal_moves(self) -> list[Any]:
        """Every legal move of the side to move (order unspecified unless a scheme documents one)."""
        ...

    def parse_move(self, text: str, notation: str | None = None) -> Any:
        """The legal move written as ``text``; ``notation=None`` accepts any of the game's notations.

        :raises InvalidMoveError: on bad syntax.
        :raises IllegalMoveError: if the move is well formed but not legal here.
        :raises AmbiguousMoveError: if it matches several legal moves.
        """
        ...

    def move_text(self, move: Any, notation: str | None = None) -> str:
        """``move`` (legal here) written in ``notation`` (the game's default when ``None``)."""
        ...

    def fen(self) -> str:
        """The position string that :meth:`Game.position` accepts back."""
        ...

    def status(self) -> dict[str, Any]:
        """``{"status": ..., ...}``: the game state with its game-specific extras (SPEC §6)."""
        ...

    def occupied(self) -> list[tuple[int, int, str]]:
        """``(file, rank, symbol)`` of every occupied cell, in the game's :class:`~plybits.mailbox.Geometry`
        coordinates, with the piece symbol its position string uses (for drawing)."""
        ...


@dataclass
class Record:
    """A parsed game record: its start, its mainline as written, its tags."""

    moves: list[str]
    start: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    """What the record held that a move list cannot carry (comments, NAGs, variations), counted."""


class Game(ABC):
    """A game: its start positions, notations and record format."""

    name: ClassVar[str]
    notations: ClassVar[tuple[str, ...]]
    """Move notations accepted and written; the first is the default."""
    starts: ClassVar[tuple[str, ...]]
    """Named start positions; the first is the default."""
    description: ClassVar[str] = ""
    splits_records: ClassVar[bool] = False
    """Whether a text may hold several records, cut by :func:`plybits.pgntext.split_records`."""

    @abstractmethod
    def position(self, start: str | None = None) -> Position:
        """The position named or written as ``start`` (the default start when ``None``).

        :raises InvalidPositionError: if ``start`` cannot be read.
        """

    def parse_record(self, text: str) -> Record:
        """Read a record (the game's PGN-like format, or a plain whitespace-separated move list).

        :raises InvalidRecordError: if the text is not a readable record.
        """
        return Record(moves=text.split())

    def split_records(self, text: str) -> Iterator[str]:
        """The records of a multi-record file (a multi-game PGN, say), one text each, lazily."""
        if self.splits_records:
            yield from split_records(text)
        else:
            yield text

    def write_record(self, record: Record, notation: str | None = None) -> str:
        """Write a record in the game's record format with moves already in ``notation``."""
        return " ".join(record.moves)

    def canonical_start(self, start: str | None) -> str | None:
        """What a container stores for ``start``: ``None`` for the default start, else a name or position string."""
        if start is None or start == self.starts[0]:
            return None
        if start in self.starts:
            return start
        text = self.position(start).fen()
        return None if text == self.position(None).fen() else text


class StepEncoder:
    """Encodes a game move by move, during the replay that checks its record (see :func:`plybits.records.encode`).

    This default keeps the moves and hands them to :meth:`Scheme.encode` at the end; a scheme that can write
    a move from the position before it alone returns its own, and so spares that second replay.
    """

    def __init__(self, scheme: Scheme) -> None:
        self.scheme = scheme
        self.moves: list[Any] = []

    def add(self, position: Position, move: Any) -> None:
        """Take ``move`` (legal), played from ``position`` (before the move; not to be changed)."""
        self.moves.append(move)

    def finish(self, start: Position) -> bitarray:
        """The payload bits of every move added, played from ``start``: the same as :meth:`Scheme.encode`'s."""
        return self.scheme.encode(start.copy(), self.moves)


class Scheme(ABC):
    """A bit layout for a game's moves. Released layouts never change; a new layout is a new scheme or version."""

    game: ClassVar[str]
    name: ClassVar[str]
    codec_id: ClassVar[int]
    """The container's codec byte (table in docs/format.md)."""
    version: ClassVar[int] = 0
    """The version written by :meth:`encode`; a rank model's version for ``rank`` schemes."""
    readable_versions: ClassVar[tuple[int, ...]] = (0,)
    description: ClassVar[str] = ""
    bits_per_ply: ClassVar[float | None] = None
    """Fixed width, or ``None`` when it varies."""

    @abstractmethod
    def encode(self, start: Position, moves: Sequence[Any]) -> bitarray:
        """The payload bits of ``moves`` (legal, in order) played from ``start`` (a copy the scheme may change)."""

    def step_encoder(self) -> StepEncoder:
        """An encoder fed each move as the record is checked (the default replays the game in :meth:`encode`)."""
        return StepEncoder(self)

    @abstractmethod
    def decode(self, start: Position, payload: bytes, plies: int, version: int) -> list[Any]:
        """The ``plies`` moves stored in ``payload``, each checked legal, played from ``start``.

        :raises InvalidDataError: on out-of-range fields, illegal moves (with their ply), truncation or trailing data.
        """
