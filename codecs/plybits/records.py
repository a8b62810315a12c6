"""The library's verbs: encode, decode, validate, convert, list legal moves and walk a replay, for any registered
game.

The service and the command-line tool call these and nothing below them.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from plybits import container
from plybits.annotations import Line, Notes, Step
from plybits.deadline import active as deadline_active
from plybits.deadline import check as check_deadline
from plybits.errors import (
    InvalidDataError,
    InvalidRecordError,
    LimitExceededError,
    PlybitsError,
    UnknownCodecError,
)
from plybits.game import Observer, Position, Record, notation_of
from plybits.recordsection import read_section, write_section
from plybits.registry import AnyGame, AnyScheme, get_game, get_scheme, scheme_by_id
from plybits.replay import read_moves

DEFAULT_MAX_PLIES = 20_000
FIDELITIES = ("full", "moves")
"""What :func:`encode` keeps: the whole record (tags, comments, NAGs, variations, result) or its moves and tags."""
FORMATS = ("moves", "record")
"""What :func:`decode` answers besides the moves: nothing more, or the record's text."""


@dataclass
class Replay:
    """A record read and checked: its start, moves and final position."""

    game: AnyGame
    start: str | None
    start_position: Position[Any]
    moves: list[Any]
    final: Position[Any]
    tags: dict[str, str] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    notes: Notes[Any] | None = None
    """The record's annotations with its variations read into moves (a full-fidelity encode or decode), else ``None``."""


class _PositionText:
    """A result's ``final_position`` field: set to a position string, or to the final position itself, whose string
    (:meth:`~plybits.game.Position.fen`) is then written when first read. A verb's caller that never reads it does
    not pay for it (a chess FEN costs about a sixth of a short game's moves-only decode, compiled). The position is
    the verb's own, changed by nothing after; a result pickles or copies its string."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = "_" + name

    def __get__(self, result: object, owner: type | None = None) -> str:
        if result is None:
            raise AttributeError(self.key[1:])  # a dataclass asks the class: no default
        kept: str | Position[Any] = result.__dict__[self.key]
        if isinstance(kept, str):
            return kept
        text: str = kept.fen()
        result.__dict__[self.key] = text
        return text

    def __set__(self, result: object, value: str | Position[Any]) -> None:
        result.__dict__[self.key] = value


class _Result:
    """What :class:`Encoded` and :class:`Decoded` share: a ``final_position`` written when first read."""

    final_position: _PositionText

    def __getstate__(self) -> dict[str, Any]:
        """The fields, ``final_position`` as its string (a position need not pickle)."""
        self.final_position  # noqa: B018 -- written now, before the fields leave
        return self.__dict__


@dataclass
class Encoded(_Result):
    """The result of :func:`encode`."""

    game: str
    scheme: str
    data: bytes
    payload: bytes
    plies: int
    payload_bits: int
    final_position: _PositionText = _PositionText()
    """The position string after the moves."""
    dropped: dict[str, int] = field(default_factory=dict)  # a default: type checkers take the descriptor for one
    """What the container does not keep, counted (empty for a full-fidelity container)."""
    fidelity: str = "moves"
    start: str | None = None
    """The start the container stores (``None`` for the game's default start)."""
    tags: dict[str, str] = field(default_factory=dict)
    """The tags the container stores."""

    @property
    def bits_per_ply(self) -> float:
        return self.payload_bits / self.plies if self.plies else 0.0


@dataclass
class Decoded(_Result):
    """The result of :func:`decode`."""

    game: str
    scheme: str
    start: str | None
    moves: list[str]
    tags: dict[str, str]
    plies: int
    final_position: _PositionText = _PositionText()
    """The position string after the moves."""
    record: str | None = None
    """The record's text in the game's record format (``format="record"``), else ``None``."""


@dataclass
class Validation:
    """The result of :func:`validate`: a game read up to its first bad move (to its end when ``valid``)."""

    valid: bool
    plies: int
    """Plies read and legal (those before the bad one)."""
    final_position: str
    """The position string after them."""
    status: dict[str, Any]
    """The state of the game there (:meth:`~plybits.game.Position.status`)."""
    error: PlybitsError | None
    """The first bad move's error, with its 0-based ``ply``, ``move`` and ``reason``; ``None`` when valid."""
    replay: Replay
    """The moves read (see :func:`walk`)."""


@dataclass
class Walk:
    """A replay move by move (:func:`walk`)."""

    start: str
    """The start position string."""
    moves: list[tuple[str, ...]]
    """Each move written in each of the notations asked, in their order."""
    positions: list[str]
    """The position string after each move."""


def read_record(
    game_name: str,
    *,
    moves: Sequence[str] | None = None,
    record: str | None = None,
    notation: str | None = None,
    start: str | None = None,
    max_plies: int = DEFAULT_MAX_PLIES,
    observe: Observer[Position[Any], Any] | None = None,
    variations: bool = False,
) -> Replay:
    """Parse and replay a move list or a record, checking every move.

    ``observe(position, move)``, when given, sees each checked move with the position before it is played.
    With ``variations``, the record's annotations are kept in :attr:`Replay.notes`, each variation's moves
    read and checked from the position where it branches (during the same replay).

    :raises PlybitsError: the first problem, located by ply and move where it has one (a variation's bad move
        by the mainline ply it branches at, the variation and its move in the reason).
    """
    replay, error = _read(game_name, moves, record, notation, start, max_plies, observe, variations)
    if error is not None:
        raise error
    return replay


def _read(
    game_name: str,
    moves: Sequence[str] | None,
    record: str | None,
    notation: str | None,
    start: str | None,
    max_plies: int,
    observe: Observer[Position[Any], Any] | None = None,
    variations: bool = False,
) -> tuple[Replay, PlybitsError | None]:
    """:func:`read_record` that stops at the first bad move: the moves before it, and the error located at it.

    :raises PlybitsError: a problem that is not a move's (no game, no record, over the limit, ...).
    """
    game = get_game(game_name)
    if (moves is None) == (record is None):
        raise InvalidRecordError("give exactly one of 'moves' and 'record'")
    check_notation(game, notation)
    tags: dict[str, str] = {}
    dropped: dict[str, int] = {}
    notes: Notes[str] | None = None
    if record is not None:
        parsed: Record = game.parse_record(record)
        tokens = parsed.moves
        tags, dropped, notes = parsed.tags, parsed.dropped, parsed.notes
        if variations and parsed.faults:
            fault = parsed.faults[0]
            raise InvalidRecordError(f"the record cannot be kept as written: {fault.reason}", ply=fault.ply)
        if start is None:
            start = parsed.start
    else:
        assert moves is not None
        tokens = list(moves)
    if len(tokens) > max_plies:
        raise LimitExceededError(f"{len(tokens)} plies, more than the limit of {max_plies}")
    start_position = game.position(start)
    position = start_position.copy()
    played: list[Any] = []
    kept: Notes[Any] | None = None
    reader: _VariationReader | None = None
    if variations:
        kept = Notes(comments=list(notes.comments), result=notes.result) if notes is not None else Notes()
        reader = _VariationReader(notes.steps if notes is not None else [], kept, notation, max_plies, observe)
        if reader.branches:
            observe = reader
    timed = deadline_active()  # set around the whole call or not at all
    error = read_moves(position, tokens, notation, observe, played, timed)
    if reader is not None:
        reader.finish(len(played))
    replay = Replay(game, game.canonical_start(start, start_position), start_position, played, position, tags,
                    dropped, kept)
    return replay, error


def _kept_step(given: Step[str], variations: list[Line[Any]] | None = None) -> Step[Any]:
    """A copy of a step read from text (its NAGs and comments), with ``variations`` read into moves."""
    return Step(list(given.nags), list(given.comments), [] if variations is None else variations)


class _VariationReader:
    """Copies each mainline step of ``steps`` into ``kept``, its variations read into moves from the position
    before the step's move: an observer of the mainline replay when a step has variations (:attr:`branches`),
    else a copy made by :meth:`finish` (no step then needs a position, and the replay calls nothing more)."""

    def __init__(self, steps: list[Step[str]], kept: Notes[Any], notation: str | None, max_plies: int,
                 then: Observer[Position[Any], Any] | None) -> None:
        self.steps = steps
        self.branches = any(step.variations for step in steps)
        """Whether a step has variations: then the reader must observe the replay."""
        self.kept = kept
        self.notation = notation
        self.plies_left = max_plies
        """Variation plies still allowed."""
        self.then = then

    def __call__(self, position: Position[Any], move: Any) -> None:
        ply = len(self.kept.steps)
        step: Step[Any] = Step()
        if ply < len(self.steps):
            given = self.steps[ply]
            step = _kept_step(given, [self.line(position, line, ply, f"variation {n}")
                                      for n, line in enumerate(given.variations, 1)])
        self.kept.steps.append(step)
        if self.then is not None:
            self.then(position, move)

    def finish(self, plies: int) -> None:
        """End the copy after the replay's ``plies`` plies (the steps copied here when no step branches); ``kept``
        holds no step when every one is empty."""
        kept, steps = self.kept, self.steps
        if not self.branches and steps:
            kept.steps = [_kept_step(steps[ply]) if ply < len(steps) else Step() for ply in range(plies)]
        if all(step.is_empty() for step in kept.steps):
            kept.steps = []

    def line(self, branch: Position[Any], line: Line[str], ply: int, where: str) -> Line[Any]:
        """``line``'s moves read from ``branch`` (not changed), with its nested variations."""
        self.plies_left -= len(line.moves)
        if self.plies_left < 0:
            raise LimitExceededError(f"ply {ply}: the variations hold more plies than the limit allows")
        position = branch.copy()
        moves: list[Any] = []
        steps: list[Step[Any]] = []
        for index, token in enumerate(line.moves):
            check_deadline(index)
            try:
                move = position.parse_move(token, self.notation)
            except PlybitsError as err:
                raise type(err)(f"{where}, move {index + 1} {token!r}: {err.reason}", ply=ply) from None
            if index < len(line.steps):
                given = line.steps[index]
                steps.append(_kept_step(given, [
                    self.line(position, nested, ply, f"{where}, move {index + 1}, variation {n}")
                    for n, nested in enumerate(given.variations, 1)]))
            position.push(move)
            moves.append(move)
        if all(step.is_empty() for step in steps):
            steps = []
        return Line(moves, steps, list(line.comments))


def check_notation(game: AnyGame, notation: str | None) -> None:
    """Accept ``None`` or one of ``game``'s notations: the one check of a notation name (the games trust it).

    :raises UnknownCodecError: for any other name.
    """
    if notation is not None and notation not in game.notations:
        raise UnknownCodecError(f"unknown notation {notation!r} for {game.name}; known: {', '.join(game.notations)}")


def validate(
    game_name: str, *, moves: Sequence[str] | None = None, record: str | None = None, notation: str | None = None,
    start: str | None = None, max_plies: int = DEFAULT_MAX_PLIES,
) -> Validation:
    """Check every move of a game: a bad move is an answer (``valid`` false, its error located), not a raise.

    :raises PlybitsError: a problem that is not a move's: unknown game or notation, unreadable record or
        start, over ``max_plies``.
    """
    replay, error = _read(game_name, moves, record, notation, start, max_plies)
    final = replay.final
    return Validation(error is None, len(replay.moves), final.fen(), final.status(), error, replay)


def walk(replay: Replay, notations: Sequence[str | None] = (None,)) -> Walk:
    """``replay`` move by move: each move written in every one of ``notations`` and the position after it.

    :raises UnknownCodecError: if a notation is not the game's.
    """
    for notation in notations:
        check_notation(replay.game, notation)
    position = replay.start_position.copy()
    start = position.fen()
    moves: list[tuple[str, ...]] = []
    positions: list[str] = []
    for move in replay.moves:
        moves.append(tuple(position.move_text(move, notation) for notation in notations))
        position.push(move)
        positions.append(position.fen())
    return Walk(start, moves, positions)


def write_moves(start: Position[Any], moves: Sequence[Any], notation: str | None = None) -> list[str]:
    """``moves`` played from ``start`` written in ``notation``."""
    position = start.copy()
    write = notation_of(position).move_text
    out = []
    for ply, move in enumerate(moves):
        check_deadline(ply)
        out.append(write(position, move, notation))
        position.push(move)
    return out


def encode(
    game_name: str,
    scheme_name: str,
    *,
    moves: Sequence[str] | None = None,
    record: str | None = None,
    notation: str | None = None,
    start: str | None = None,
    tags: dict[str, str] | None = None,
    max_plies: int = DEFAULT_MAX_PLIES,
    fidelity: str | None = None,
) -> Encoded:
    """Encode a game into a container with the given scheme.

    Tags from the record come first; ``tags`` given here override them. The scheme's
    :meth:`~plybits.game.Scheme.step_encoder` sees each move during the replay that checks the record.

    ``fidelity`` ``"full"`` (the default for a ``record``) keeps the whole record: its tags, comments, NAGs,
    variations (each read from the position it branches at) and result token go to the container's record
    section (:mod:`plybits.recordsection`). ``"moves"`` (the default for ``moves``) keeps the moves and tags (the
    tags coded the same way, in a record section that holds nothing else: :func:`tags_section`), and counts what it
    drops in :attr:`Encoded.dropped`.

    :raises PlybitsError: on any bad input, located by ply where it has one.
    """
    if fidelity is None:
        fidelity = "moves" if record is None else "full"
    if fidelity not in FIDELITIES:
        raise UnknownCodecError(f"unknown fidelity {fidelity!r}; known: {', '.join(FIDELITIES)}")
    full = fidelity == "full"
    scheme = get_scheme(game_name, scheme_name)
    stepper = scheme.step_encoder()
    replay = read_record(game_name, moves=moves, record=record, notation=notation, start=start, max_plies=max_plies,
                         observe=stepper.add, variations=full)
    bits = stepper.finish(replay.start_position)
    payload = bits.tobytes()
    all_tags = {**replay.tags, **(tags or {})}
    if full:
        assert replay.notes is not None
        section: bytes | None = write_section(scheme, replay.start_position, replay.moves, replay.notes, all_tags,
                                              final=replay.final)
    else:
        section = tags_section(scheme, replay.start_position, replay.moves, all_tags, replay.final)
    # its fields by position: a compiled class called with keywords from here parses them from a dictionary
    blob = container.pack(container.Container(scheme.codec_id, scheme.version, len(replay.moves), payload, replay.start,
                                              None, section, not full and section is not None))
    # by position, in field order: called with keywords, the dataclass's __init__ cost 11.2k instructions, not 6.4k
    return Encoded(game_name, scheme.name, blob, payload, len(replay.moves), len(bits), replay.final,
                   {} if full else replay.dropped, fidelity, replay.start, all_tags)


def tags_section(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], tags: dict[str, str], final: Position[Any],
) -> bytes | None:
    """The record section of a moves-fidelity container: its ``tags`` coded as a full-fidelity container codes them,
    with no annotations and the ``Result`` tag as the result token (so it costs no more than a full one's); ``None``
    when there are no tags. ``final`` is the position after ``moves``."""
    if not tags:
        return None
    return write_section(scheme, start, moves, Notes(result=tags.get("Result")), tags, final=final, tags_only=True)


def unpack(data: bytes, *, max_plies: int = DEFAULT_MAX_PLIES) -> container.Container:
    """The container ``data`` holds, its header and CRC checked once: hand it to :func:`decode`
    rather than the bytes, which it would unpack again.

    :raises InvalidDataError: on any corruption; :raises LimitExceededError: on too many plies.
    """
    return container.unpack(data, max_plies)  # by position: compiled, a keyword call parses a dictionary


def peek(data: bytes | container.Container, *, max_plies: int = DEFAULT_MAX_PLIES) -> tuple[str, str, int]:
    """The game, scheme and ply count a container holds, read from its checked header without decoding a move.

    :raises InvalidDataError: on any corruption; :raises UnknownCodecError: on an unknown codec id;
    :raises LimitExceededError: on too many plies.
    """
    box = data if isinstance(data, container.Container) else unpack(data, max_plies=max_plies)
    scheme = scheme_by_id(box.codec_id)
    return scheme.game, scheme.name, box.plies


def _open(data: bytes | container.Container, max_plies: int) -> tuple[container.Container, AnyScheme, AnyGame]:
    """The container, its scheme (checked able to read its version) and its game."""
    box = data if isinstance(data, container.Container) else unpack(data, max_plies=max_plies)
    scheme = scheme_by_id(box.codec_id)
    if box.scheme_version not in scheme.readable_versions:
        raise InvalidDataError(
            f"{scheme.game}/{scheme.name} version {box.scheme_version} is not readable by this build "
            f"(reads {', '.join(map(str, scheme.readable_versions))})"
        )
    return box, scheme, get_game(scheme.game)


def _start(box: container.Container, game: AnyGame) -> Position[Any]:
    """``box``'s start position, checked stored in the one form encode stores."""
    try:
        start_position: Position[Any] = game.position(box.start)
    except PlybitsError as err:
        raise InvalidDataError(f"stored start position is invalid: {err.reason}") from None
    if box.start is not None:
        canonical = game.canonical_start(box.start, start_position)
        if canonical != box.start:
            raise InvalidDataError(f"stored start {box.start!r} is not in the one form encode stores ({canonical!r})")
    return start_position


def _replay(
    box: container.Container, scheme: AnyScheme, game: AnyGame, start_position: Position[Any], moves: list[Any],
    final: Position[Any], max_plies: int,
) -> Replay:
    """The replay of ``moves``, which the scheme's one replay decoded from ``box`` (each checked legal) and played
    from ``start_position`` to ``final``; a full-fidelity container's tags and notes come from its record section
    (at most ``max_plies`` variation plies)."""
    if box.record is None:  # then decode played the moves on the start itself: ``start_position`` is ``final``
        return Replay(game, box.start, final, moves, final, box.tags)
    notes, tags = read_section(scheme, start_position, moves, box.record, max_plies=max_plies,
                               version=box.scheme_version, final=final, tags_only=box.tags_only)
    if not box.tags_only:
        return Replay(game, box.start, start_position, moves, final, tags, notes=notes)
    if not tags or notes.steps or notes.comments or notes.result != tags.get("Result"):
        raise InvalidDataError("a moves-fidelity record section holds something besides tags: not one encode writes")
    return Replay(game, box.start, start_position, moves, final, tags)


def decode(
    data: bytes | container.Container, *, notation: str | None = None, max_plies: int = DEFAULT_MAX_PLIES,
    format: str = "moves",
) -> Decoded:
    """Decode a container (bytes, or one :func:`unpack` returned) into moves written in ``notation``.

    The game is replayed once: the scheme's decode writes each move as it plays it
    (:meth:`~plybits.game.Scheme.decode_texts`). ``format="record"`` also writes the record's text
    (:attr:`Decoded.record`) by the game's record writer, moves in ``notation``: a full-fidelity container's
    comments, NAGs, variations and result token included (its variations written from the positions where they
    branch, reached by playing the mainline's moves again).

    :raises PlybitsError: on corrupted data or an unknown notation or format.
    """
    if format not in FORMATS:
        raise UnknownCodecError(f"unknown decode format {format!r}; known: {', '.join(FORMATS)}")
    box, scheme, game = _open(data, max_plies)
    check_notation(game, notation)
    start_position = _start(box, game)
    # only a record section reads the start again: without one the moves are played on it, not on a copy
    final = start_position.copy() if box.record is not None else start_position
    moves, texts = scheme.decode_texts(final, box.payload, box.plies, box.scheme_version, notation)
    replay = _replay(box, scheme, game, start_position, moves, final, max_plies)
    text = None
    if format == "record":
        notes = None if replay.notes is None else _notes_text(replay, notation)
        text = game.write_record(Record(moves=texts, start=replay.start, tags=replay.tags, notes=notes), notation)
    # by position, in field order (as encode's result): with keywords 8.9k instructions, not 5.4k
    return Decoded(game.name, scheme.name, replay.start, texts, replay.tags, len(replay.moves), replay.final, text)


def _notes_text(replay: Replay, notation: str | None) -> Notes[str]:
    """``replay.notes`` with every variation's moves written in ``notation``; the mainline is played again only
    up to its last step with variations (none when it has none)."""
    assert replay.notes is not None
    notes = replay.notes
    steps = notes.steps
    branching = [ply for ply, step in enumerate(steps) if step.variations]
    written: list[Step[str]] = [Step(step.nags, step.comments) for step in steps]
    if branching:
        position = replay.start_position.copy()
        for ply, move in enumerate(replay.moves[: branching[-1] + 1]):
            check_deadline(ply)
            written[ply].variations = [_line_text(position, line, notation) for line in steps[ply].variations]
            position.push(move)
    return Notes(written, notes.comments, notes.result)


def _line_text(branch: Position[Any], line: Line[Any], notation: str | None) -> Line[str]:
    """``line`` played from ``branch`` (not changed), its moves and its nested variations written in ``notation``."""
    position = branch.copy()
    write = notation_of(position).move_text
    moves: list[str] = []
    steps: list[Step[str]] = []
    for index, move in enumerate(line.moves):
        check_deadline(index)
        if index < len(line.steps):
            step = line.steps[index]
            steps.append(Step(step.nags, step.comments, [_line_text(position, nested, notation)
                                                        for nested in step.variations]))
        moves.append(write(position, move, notation))
        position.push(move)
    return Line(moves, steps, line.comments)


def convert(
    game_name: str,
    *,
    moves: Sequence[str] | None = None,
    record: str | None = None,
    from_notation: str | None = None,
    to_notation: str | None = None,
    start: str | None = None,
    max_plies: int = DEFAULT_MAX_PLIES,
) -> list[str]:
    """Rewrite a game's moves from one notation into another (each move checked legal)."""
    check_notation(get_game(game_name), to_notation)
    replay = read_record(game_name, moves=moves, record=record, notation=from_notation, start=start, max_plies=max_plies)
    return write_moves(replay.start_position, replay.moves, to_notation)


def legal_moves(
    game_name: str,
    *,
    moves: Sequence[str] | None = None,
    notation: str | None = None,
    start: str | None = None,
    max_plies: int = DEFAULT_MAX_PLIES,
) -> tuple[str, list[str]]:
    """The position after ``moves`` and its legal moves written in ``notation``, sorted."""
    replay = read_record(game_name, moves=list(moves or []), notation=notation, start=start, max_plies=max_plies)
    final = replay.final
    return final.fen(), sorted(final.move_text(m, notation) for m in final.legal_moves())


# --- helpers shared by the service and the command-line tool -------------------------------------


def seed_scheme(game_name: str) -> str:
    """The name of the seed scheme ``game_name`` declares (:attr:`plybits.game.Game.seed_scheme`: ``0x88`` for
    chess, ...), checked registered.

    :raises UnknownCodecError: if there is no such game or its seed scheme is not registered.
    """
    return get_scheme(game_name, get_game(game_name).seed_scheme).name


def b64url(data: bytes) -> str:
    """``data`` as base64url without padding (how containers travel in JSON)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def from_b64url(text: str) -> bytes:
    """Decode a container's text form: base64url, with or without its padding.

    A blob has one text form (:func:`b64url`; padding aside, which the API documents as optional):
    the standard alphabet's ``+`` and ``/``, wrong or misplaced padding, white space, a length of
    4n+1 and non-zero unused bits in the last character are refused.

    :raises InvalidDataError: if ``text`` is not the text form of any bytes.
    """
    if not isinstance(text, str) or not text.isascii():
        raise InvalidDataError(f"'data' is not base64url: {text!r} holds non-ASCII characters")
    unpadded = text.rstrip("=")
    padding = len(text) - len(unpadded)
    if "+" in unpadded or "/" in unpadded:
        raise InvalidDataError("'data' is in the standard alphabet ('+', '/'), not base64url ('-', '_')")
    if "=" in unpadded:
        raise InvalidDataError("'data' has '=' padding before its end")
    if len(unpadded) % 4 == 1:
        raise InvalidDataError(f"'data' has {len(unpadded)} base64url characters: no bytes have a text of that length")
    if padding and padding != -len(unpadded) % 4:
        raise InvalidDataError(f"'data' ends with {padding} '=' where its padding is {-len(unpadded) % 4}")
    try:
        data = base64.b64decode(unpadded + "=" * (-len(unpadded) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError) as err:
        raise InvalidDataError(f"'data' is not base64url: {err}") from None
    if b64url(data) != unpadded:
        raise InvalidDataError("'data' ends with non-zero unused bits: it is not the text form of any bytes")
    return data
