"""The replay that checks a move list (:func:`plybits.records.read_record`'s loop), compiled: each token read in the
game's notation and played, for any game; and the compiled hooks a replay calls natively (:class:`StepTaker`,
:class:`MovePlayer`), where a bound method would be a call through the interpreter each ply."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from plybits.deadline import check as check_deadline
from plybits.errors import PlybitsError
from plybits.game import Observer, Position, StepEncoder, notation_of


# Compiled with mypyc; an interpreted subclass works too (its calls are then Python calls again).
@mypyc_attr(allow_interpreted_subclasses=True)
class MovePlayer:
    """A game's mover, its notation module's ``PLAYER``: plays a move, or writes it and plays it, for the compiled
    replays (:func:`read_moves`, :meth:`plybits.rank.RankScheme.decode_texts`), which call a subclass compiled with the
    game's board natively. These defaults call the position's own methods."""

    def push(self, position: Any, move: Any) -> None:
        """Play ``move`` (legal) on ``position``."""
        position.push(move)

    def play_text(self, position: Any, move: Any, notation: str | None) -> str:
        """``move`` (legal) written in ``notation`` from ``position``, then played there."""
        text: str = notation_of(position).move_text(position, move, notation)
        self.push(position, move)
        return text


def player_of(position: Position[Any]) -> MovePlayer | None:
    """The :class:`MovePlayer` of ``position``'s notation module (its ``PLAYER``), or ``None`` where it has none."""
    # the module read as notation_of reads it, not through it: compiled, a call to game.py is one through the interpreter
    player = getattr(getattr(type(position), "notation_module", None), "PLAYER", None)
    return player if isinstance(player, MovePlayer) else None


@mypyc_attr(allow_interpreted_subclasses=True)
class StepTaker:
    """A step encoder's :meth:`~plybits.game.StepEncoder.add_text` and :meth:`~plybits.game.StepEncoder.add`, compiled
    so that :func:`read_moves` calls them natively: a compiled step encoder's own (its ``step_taker``), or one calling
    an encoder's methods."""

    def add_text(self, position: Any, text: str, notation: str | None) -> Any:
        """:meth:`~plybits.game.StepEncoder.add_text`: the move taken, or ``None``, nothing taken."""
        return None

    def add(self, position: Any, move: Any) -> None:
        """:meth:`~plybits.game.StepEncoder.add`."""


class _BoundTaker(StepTaker):
    """A :class:`StepTaker` calling a step encoder's ``add_text`` and ``add``."""

    def __init__(
        self, add_text: Callable[[Position[Any], str, str | None], Any], add: Observer[Position[Any], Any],
    ) -> None:
        self.take = add_text
        self.observe = add

    def add_text(self, position: Any, text: str, notation: str | None) -> Any:
        return self.take(position, text, notation)

    def add(self, position: Any, move: Any) -> None:
        self.observe(position, move)


def read_moves(
    position: Position[Any], tokens: Sequence[str], notation: str | None,
    observe: Observer[Position[Any], Any] | None, played: list[Any], timed: bool,
) -> PlybitsError | None:
    """Read each of ``tokens`` in ``notation`` and play it on ``position``, appending it to ``played`` and showing it
    first to ``observe(position, move)``; with ``timed``, the deadline is checked before each ply. The first bad token
    stops it: its error, located by ply and token, is returned (``None``: every token was played).

    When ``observe`` is a step encoder's :meth:`~plybits.game.StepEncoder.add` (the replay of an encode), each token
    goes to its :meth:`~plybits.game.StepEncoder.add_text` first: a move it reads among the moves it ranks anyway is
    taken so, not read a second time here. A move is played by the notation module's :class:`MovePlayer` where it has
    one (:func:`player_of`), else by the position's ``push``."""
    parse: Callable[[Position[Any], str, str | None], Any] | None = None  # looked up when a token first needs it
    push = position.push
    player = player_of(position)
    taker = _step_taker(observe)
    words: list[str] = tokens if isinstance(tokens, list) else list(tokens)  # compiled, a list's item is read in C
    for ply in range(len(words)):
        token = words[ply]
        if timed:
            check_deadline(ply)
        move = taker.add_text(position, token, notation) if taker is not None else None
        if move is None:
            if parse is None:  # not before: a step encoder's add_text reads every token of most move lists
                parse = notation_of(position).parse_move
            try:
                move = parse(position, token, notation)
            except PlybitsError as err:
                return err.at(ply, token)
            if taker is not None:  # the step encoder's add, which observe is (_step_taker)
                taker.add(position, move)
            elif observe is not None:
                observe(position, move)
        if player is not None:
            player.push(position, move)
        else:
            push(move)
        played.append(move)
    return None


def _step_taker(observe: Observer[Position[Any], Any] | None) -> StepTaker | None:
    """What takes the texts and moves for the step encoder whose ``add`` is ``observe``, where its class reads texts
    (overrides :meth:`~plybits.game.StepEncoder.add_text`): its own ``step_taker`` where that is a :class:`StepTaker`,
    else one calling its ``add_text`` and ``add``; ``None`` otherwise."""
    encoder: Any = getattr(observe, "__self__", None)
    if not isinstance(encoder, StepEncoder) or type(encoder).add_text is StepEncoder.add_text or observe != encoder.add:
        return None
    own = getattr(encoder, "step_taker", None)
    return own if isinstance(own, StepTaker) else _BoundTaker(encoder.add_text, encoder.add)
