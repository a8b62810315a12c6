"""What every game and every scheme provides: the interfaces the facade and the service rely on."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, cast

from bitarray import bitarray

from plybits.annotations import Notes
from plybits.bitio import BitReader, BitWriter
from plybits.deadline import EVERY
from plybits.deadline import active as deadline_active
from plybits.deadline import check as check_deadline
from plybits.errors import InvalidDataError, InvalidRecordError, UnsupportedError
from plybits.mailbox import Geometry
from plybits.pgntext import split_records

MoveT = TypeVar("MoveT", bound=Hashable)
"""A game's own move object (each game defines its class); only the game interprets it."""
BoardT = TypeVar("BoardT", bound="Board[Any]")
"""The board class a scheme plays on (a game's position class, or the rules class it extends)."""
PositionT = TypeVar("PositionT", bound="Position[Any]")
"""A game's position class."""
PositionT_contra = TypeVar("PositionT_contra", bound="Position[Any]", contravariant=True)
BoardT_contra = TypeVar("BoardT_contra", contravariant=True)
"""What a notation module reads moves against (a game's board class, or a position class joined from it)."""


class Board(Protocol[MoveT]):
    """What a scheme needs of a position: the rules. A game's board module provides it."""

    def copy(self) -> Self:
        """An independent copy."""
        ...

    def push(self, move: MoveT) -> None:
        """Play a move already known to be legal."""
        ...

    def legal_moves(self) -> list[MoveT]:
        """Every legal move of the side to move (order unspecified unless a scheme documents one)."""
        ...


class Position(Board[MoveT], Protocol[MoveT]):
    """A game position that can be copied, queried, played forward and read and written in the game's
    notations: a game's :class:`Board` joined with its notation module (its package's ``Position``)."""

    def parse_move(self, text: str, notation: str | None = None) -> MoveT:
        """The legal move written as ``text``; ``notation=None`` accepts any of the game's notations.

        :raises InvalidMoveError: on bad syntax.
        :raises IllegalMoveError: if the move is well formed but not legal here.
        :raises AmbiguousMoveError: if it matches several legal moves.
        """
        ...

    def move_text(self, move: MoveT, notation: str | None = None) -> str:
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


class Notation(Protocol[BoardT_contra, MoveT]):
    """What reads and writes a game's move texts against its board (each game's ``notation`` module)."""

    def parse_move(self, board: BoardT_contra, text: str, notation: str | None = None) -> MoveT:
        """The legal move written as ``text`` on ``board`` (see :meth:`Position.parse_move`)."""
        ...

    def move_text(self, board: BoardT_contra, move: MoveT, notation: str | None = None) -> str:
        """``move`` (legal on ``board``) written in ``notation`` (see :meth:`Position.move_text`)."""
        ...


class Speaks(Generic[MoveT]):
    """What makes a game's rules a :class:`Position`: mixed into ``Position(Board, Speaks[Move])``, it reads
    and writes moves through the class's declared :attr:`notation_module`."""

    __slots__ = ()

    notation_module: Notation[Self, MoveT]
    """The game's notation module (set on the class)."""

    def parse_move(self: Self, text: str, notation: str | None = None) -> MoveT:
        """:meth:`Position.parse_move`, by the notation module."""
        return self.notation_module.parse_move(self, text, notation)

    def move_text(self: Self, move: MoveT, notation: str | None = None) -> str:
        """:meth:`Position.move_text`, by the notation module."""
        return self.notation_module.move_text(self, move, notation)


class _Forwarding(Generic[MoveT]):
    """The notation of a position that is no :class:`Speaks` position: its own methods, called as a module's."""

    def parse_move(self, board: Position[MoveT], text: str, notation: str | None = None) -> MoveT:
        return board.parse_move(text, notation)

    def move_text(self, board: Position[MoveT], move: MoveT, notation: str | None = None) -> str:
        return board.move_text(move, notation)


def notation_of(position: Position[MoveT]) -> Notation[Position[MoveT], MoveT]:
    """What reads and writes ``position``'s moves as ``parse_move(position, text, notation)`` and
    ``move_text(position, move, notation)``: its class's :attr:`Speaks.notation_module` (a loop over plies calls
    the module's functions, not the position's forwarding methods, a Python call less a ply), else the
    position's own methods."""
    module = getattr(type(position), "notation_module", None)
    if module is None:
        return _Forwarding()
    return cast("Notation[Position[MoveT], MoveT]", module)


Observer = Callable[[BoardT, MoveT], None]
"""``observe(position, move)``: sees each move with the position before it is played (not to be changed)."""


class Renderer(Protocol[PositionT_contra]):
    """What draws a game's positions (each game's ``svg`` module; see :mod:`plybits.svg`)."""

    @property
    def LAST_NOTATION(self) -> str:
        """The game's notation whose move text names the move's cells (what ``last`` takes): a module constant."""
        ...

    def geometry(self, position: PositionT_contra) -> Geometry:
        """The board geometry of ``position`` (for naming cells)."""
        ...

    def board(
        self, position: PositionT_contra, *, last: Sequence[tuple[int, int]] = (), flip: bool = False,
        size: int | None = None,
    ) -> str:
        """``position`` drawn, the ``last`` (file, rank) cells highlighted."""
        ...


@dataclass
class Record:
    """A parsed game record: its start, its mainline as written, its tags."""

    moves: list[str]
    start: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    """What the record held that a move list cannot carry (comments, NAGs, variations), counted."""
    notes: Notes[str] | None = None
    """Its comments, NAGs, variations (move tokens as written) and result token, when known: a record read
    from text or decoded from a full-fidelity container; ``None`` for bare moves (writers then close the
    movetext with the ``Result`` tag)."""
    faults: list[InvalidRecordError] = field(default_factory=list)
    """What :attr:`notes` could not keep as written (:attr:`plybits.pgntext.RecordText.faults`)."""


_TAG = re.compile(r'^\s*\[(\w+)\s+"([^"]*)"\]', re.M)
_MOVE_NUMBER = re.compile(r"\d+\.(\.\.)?")
_NOT_MOVES = re.compile(r"\{[^}]*\}?|;[^\n]*|\$\d+|[()]")
SNIFF_MOVES = 200
"""Most move tokens of a file's start that :meth:`Game.sniff` is shown."""


@dataclass(frozen=True)
class RecordHead:
    """The start of a record file, read once for every game to sniff (:meth:`Game.sniff`)."""

    name: str
    """The file's name in lower case, without a compression suffix (``""``: none)."""
    tags: dict[str, str]
    """The tags of its tag lines, their names in lower case."""
    movetext: str
    """The text without its tag lines, comments and NAGs."""
    moves: list[str]
    """The first :data:`SNIFF_MOVES` tokens of the movetext that start with a letter (move numbers, results,
    variation brackets dropped)."""
    first: list[str]
    """Those of the first record: the tokens before the first result (``1-0``, ``0-1``, ``1/2-1/2``, ``*``)."""

    @classmethod
    def read(cls, name: str, text: str) -> RecordHead:
        """The head of the file ``name`` that starts with ``text``."""
        tags = {key.lower(): value for key, value in _TAG.findall(text)}
        movetext = _NOT_MOVES.sub(" ", _TAG.sub(" ", text))
        tokens = _MOVE_NUMBER.sub(" ", movetext).split()
        ends = [i for i, t in enumerate(tokens) if t in ("1-0", "0-1", "1/2-1/2", "*")]
        moves = [t for t in tokens if t[:1].isalpha()][:SNIFF_MOVES]
        first = [t for t in tokens[:ends[0] if ends else len(tokens)] if t[:1].isalpha()][:SNIFF_MOVES]
        return cls(name, tags, movetext, moves, first)


class Game(ABC, Generic[PositionT]):
    """A game: its start positions, notations, record format, seed scheme and drawing."""

    name: ClassVar[str]
    notations: ClassVar[tuple[str, ...]]
    """Move notations accepted and written; the first is the default."""
    starts: ClassVar[tuple[str, ...]]
    """Named start positions; the first is the default."""
    seed_scheme: ClassVar[str]
    """The name of the game's seed scheme: the default where a caller names none."""
    description: ClassVar[str] = ""
    splits_records: ClassVar[bool] = False
    """Whether a text may hold several records, cut by :func:`plybits.pgntext.split_records`."""
    renderer: Renderer[PositionT] | None = None
    """What draws the game's positions (its ``svg`` module, for :func:`plybits.svg.render`); ``None``: not drawn."""
    game_tags: ClassVar[tuple[str, ...]] = ()
    """The values (lower case) of a ``[Game "..."]`` tag that name this game."""

    def sniff(self, head: RecordHead) -> str | None:
        """Why a file that starts with ``head`` looks like a record file of this game (``"its ... tag"``), or
        ``None``: a ``[Game "..."]`` tag decides (:attr:`game_tags`), else :meth:`sniff_text`."""
        named = head.tags.get("game")
        if named is not None:
            return f'its [Game "{named}"] tag' if named.lower() in self.game_tags else None
        return self.sniff_text(head)

    def sniff_text(self, head: RecordHead) -> str | None:
        """Why ``head`` (no ``[Game]`` tag) looks like this game's records, by its other tags, name or movetext;
        ``None`` (this default): it does not show."""
        return None

    @abstractmethod
    def position(self, start: str | None = None) -> PositionT:
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
        """``record`` in the game's record format, its moves already written in ``notation`` (the game's default
        when ``None``); :meth:`parse_record` reads it back."""
        return " ".join(record.moves)

    def canonical_start(self, start: str | None, position: PositionT | None = None) -> str | None:
        """What a container stores for ``start``: ``None`` for the default start, else a name or position string.

        ``position``, when given, is ``self.position(start)`` already built (not changed), which is then not
        built again.
        """
        if start is None or start == self.starts[0]:
            return None
        if start in self.starts:
            return start
        text = (self.position(start) if position is None else position).fen()
        return None if text == self.position(None).fen() else text


class StepEncoder(Generic[BoardT, MoveT]):
    """Encodes a game move by move, during the replay that checks its record (see :func:`plybits.records.encode`).

    This default keeps the moves and hands them to :meth:`Scheme.encode` at the end; a scheme that can write
    a move from the position before it alone returns its own, and so spares that second replay.
    """

    def __init__(self, scheme: Scheme[BoardT, MoveT]) -> None:
        self.scheme = scheme
        self.moves: list[MoveT] = []

    def add(self, position: BoardT, move: MoveT) -> None:
        """Take ``move`` (legal), played from ``position`` (before the move; not to be changed)."""
        self.moves.append(move)

    def add_text(self, position: BoardT, text: str, notation: str | None) -> MoveT | None:
        """The legal move ``text`` writes in ``notation`` in ``position``, taken as :meth:`add` takes it, where this
        encoder reads it itself among the moves it looks at anyway (a ``rank`` model's); ``None`` (this default),
        nothing taken: the replay reads the move and calls :meth:`add` (and tells a bad token's error)."""
        return None

    def finish(self, start: BoardT) -> bitarray:
        """The payload bits of every move added, played from ``start``: the same as :meth:`Scheme.encode`'s."""
        return self.scheme.encode(start.copy(), self.moves)


class Scheme(ABC, Generic[BoardT, MoveT]):
    """A bit layout for a game's moves. Released layouts never change; a new layout is a new scheme or version."""

    # game, codec_id, version, readable_versions, description: set on a scheme's class, or per instance (a RankScheme
    # takes them as arguments)
    game: str
    name: ClassVar[str]
    codec_id: int
    """The container's codec byte (table in docs/format.md)."""
    version: int = 0
    """The version written by :meth:`encode`; a rank model's version for ``rank`` schemes."""
    readable_versions: tuple[int, ...] = (0,)
    description: str = ""
    bits_per_ply: ClassVar[float | None] = None
    """Fixed width, or ``None`` when it varies."""
    heavy: ClassVar[bool] = False
    """Whether coding a ply costs far more than replaying it (a model to evaluate): the service then never
    codes it on its event loop, however short the game."""

    @abstractmethod
    def encode(self, start: BoardT, moves: Sequence[MoveT]) -> bitarray:
        """The payload bits of ``moves`` (legal, in order) played from ``start`` (a copy the scheme may change)."""

    def encode_version(self, start: BoardT, moves: Sequence[MoveT], version: int) -> bitarray:
        """:meth:`encode` under ``version``, one of :attr:`readable_versions` (a scheme of one layout writes only
        :attr:`version`).

        :raises UnsupportedError: if this scheme cannot write ``version``.
        """
        if version != self.version:
            raise UnsupportedError(f"{self.game}/{self.name} writes version {self.version} only, not {version}")
        return self.encode(start, moves)

    def step_encoder(self) -> StepEncoder[BoardT, MoveT]:
        """An encoder fed each move as the record is checked (the default replays the game in :meth:`encode`)."""
        return StepEncoder(self)

    @abstractmethod
    def decode(
        self, start: BoardT, payload: bytes, plies: int, version: int,
        observe: Observer[BoardT, MoveT] | None = None,
    ) -> list[MoveT]:
        """The ``plies`` moves stored in ``payload``, each checked legal, played on ``start``: a copy the
        scheme plays forward, so that it is the position after the last move when this returns.

        ``observe(position, move)``, when given, sees each checked move with the position before it is played.

        :raises InvalidDataError: on out-of-range fields, illegal moves (with their ply), truncation or trailing data.
        """

    def decode_texts(
        self, start: BoardT, payload: bytes, plies: int, version: int, notation: str | None,
    ) -> tuple[list[MoveT], list[str]]:
        """:meth:`decode` (no observer), and each move written in ``notation`` as :meth:`Position.move_text` writes
        it from the position before the move: ``start`` is a position of the scheme's game, checked in ``notation``.

        The deadline (:mod:`plybits.deadline`) is checked every :data:`~plybits.deadline.EVERY` plies from ply 0.
        This default writes each move as the scheme's :meth:`decode` tells it; a scheme that can write its moves
        more cheaply overrides it (``chess/0x88``).
        """
        texts: list[str] = []
        keep = texts.append
        written = cast("Position[MoveT]", start)  # the observer sees ``start`` itself, as decode plays it
        write = notation_of(written).move_text
        timed = deadline_active()

        def observe(position: BoardT, move: MoveT) -> None:
            if timed and len(texts) % EVERY == 0:
                check_deadline(len(texts))
            keep(write(written, move, notation))

        return self.decode(start, payload, plies, version, observe), texts


class MoveScheme(Scheme[BoardT, MoveT]):
    """A scheme that writes each move from the position before it alone, and reads it back so: it gives
    :meth:`write_move` and :meth:`read_move`, and the core loops them (encode, a step encoder that needs no
    second replay, decode)."""

    @abstractmethod
    def write_move(self, writer: BitWriter, position: BoardT, move: MoveT) -> None:
        """Append the fields of ``move``, legal in ``position`` (not to be changed)."""

    @abstractmethod
    def read_move(self, reader: BitReader, position: BoardT) -> MoveT:
        """The move whose fields come next in ``reader``, checked legal in ``position`` (not to be changed).

        :raises InvalidDataError: on an out-of-range field, an illegal move or truncation (the ply is added).
        """

    def encode(self, start: BoardT, moves: Sequence[MoveT]) -> bitarray:
        encoder = self.step_encoder()
        for move in moves:
            encoder.add(start, move)
            start.push(move)
        return encoder.finish(start)

    def step_encoder(self) -> MoveStepEncoder[BoardT, MoveT]:
        """An encoder that writes each move as the checking replay reaches it."""
        return MoveStepEncoder(self)

    def decode(
        self, start: BoardT, payload: bytes, plies: int, version: int,
        observe: Observer[BoardT, MoveT] | None = None,
    ) -> list[MoveT]:
        reader = BitReader(payload)
        moves: list[MoveT] = []
        for ply in range(plies):
            try:
                move = self.read_move(reader, start)
            except InvalidDataError as err:
                raise err.at(ply) from None
            if observe is not None:
                observe(start, move)
            start.push(move)
            moves.append(move)
        reader.finish()
        return moves


class MoveStepEncoder(StepEncoder[BoardT, MoveT]):
    """A :class:`MoveScheme`'s step encoder: each move written as it comes, nothing replayed at the end."""

    def __init__(self, scheme: MoveScheme[BoardT, MoveT]) -> None:
        super().__init__(scheme)
        self.writer = BitWriter()
        self.write_move = scheme.write_move

    def add(self, position: BoardT, move: MoveT) -> None:
        self.write_move(self.writer, position, move)

    def finish(self, start: BoardT) -> bitarray:
        return self.writer.bits
