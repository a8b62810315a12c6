"""The replay that checks a move list (:func:`plybits.records.read_record`'s loop), compiled: each token read in the
game's notation and played, for any game."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from plybits.deadline import check as check_deadline
from plybits.errors import PlybitsError
from plybits.game import Observer, Position, StepEncoder, notation_of


def read_moves(
    position: Position[Any], tokens: Sequence[str], notation: str | None,
    observe: Observer[Position[Any], Any] | None, played: list[Any], timed: bool,
) -> PlybitsError | None:
    """Read each of ``tokens`` in ``notation`` and play it on ``position``, appending it to ``played`` and showing it
    first to ``observe(position, move)``; with ``timed``, the deadline is checked before each ply. The first bad token
    stops it: its error, located by ply and token, is returned (``None``: every token was played).

    When ``observe`` is a step encoder's :meth:`~plybits.game.StepEncoder.add` (the replay of an encode), each token
    goes to its :meth:`~plybits.game.StepEncoder.add_text` first: a move it reads among the moves it ranks anyway is
    taken so, not read a second time here."""
    parse = notation_of(position).parse_move
    push = position.push
    take = _text_taker(observe)
    words: list[str] = tokens if isinstance(tokens, list) else list(tokens)  # compiled, a list's item is read in C
    for ply in range(len(words)):
        token = words[ply]
        if timed:
            check_deadline(ply)
        move = take(position, token, notation) if take is not None else None
        if move is None:
            try:
                move = parse(position, token, notation)
            except PlybitsError as err:
                return err.at(ply, token)
            if observe is not None:
                observe(position, move)
        push(move)
        played.append(move)
    return None


def _text_taker(observe: Observer[Position[Any], Any] | None) -> Callable[[Position[Any], str, str | None], Any] | None:
    """The :meth:`~plybits.game.StepEncoder.add_text` of the step encoder whose ``add`` is ``observe``, where its class
    reads texts (overrides the default); else ``None``."""
    encoder: Any = getattr(observe, "__self__", None)
    if not isinstance(encoder, StepEncoder) or type(encoder).add_text is StepEncoder.add_text or observe != encoder.add:
        return None
    taker: Callable[[Position[Any], str, str | None], Any] = encoder.add_text
    return taker
