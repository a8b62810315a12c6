"""The replay that checks a move list (:func:`plybits.records.read_record`'s loop), compiled: each token read in the
game's notation and played, for any game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plybits.deadline import check as check_deadline
from plybits.errors import PlybitsError
from plybits.game import Observer, Position, notation_of


def read_moves(
    position: Position[Any], tokens: Sequence[str], notation: str | None,
    observe: Observer[Position[Any], Any] | None, played: list[Any], timed: bool,
) -> PlybitsError | None:
    """Read each of ``tokens`` in ``notation`` and play it on ``position``, appending it to ``played`` and showing it
    first to ``observe(position, move)``; with ``timed``, the deadline is checked before each ply. The first bad token
    stops it: its error, located by ply and token, is returned (``None``: every token was played)."""
    parse = notation_of(position).parse_move
    push = position.push
    for ply in range(len(tokens)):
        token = tokens[ply]
        if timed:
            check_deadline(ply)
        try:
            move = parse(position, token, notation)
        except PlybitsError as err:
            return err.at(ply, token)
        if observe is not None:
            observe(position, move)
        push(move)
        played.append(move)
    return None
