"""A game's first plies as one comparable string: an archive's ``first_moves`` column.

``"e4 c5 Nf3 d6 d4 cxd4"``: the first :data:`FIRST_PLIES` moves of the mainline in the game's default notation
(SAN for chess), separated by single spaces. "Games starting 1.e4 c5 2.Nf3" is then a filter on a string column,
with no decoding: ``starts_with(first_moves || ' ', 'e4 c5 Nf3 ')`` (:func:`starts_with_moves` spells it; the
trailing spaces keep ``e7e8`` from matching ``e7e8q``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plybits.game import Position, notation_of

FIRST_PLIES = 6
"""Plies kept (``python -m bench.opening_column``, shared lichess clock files, zstd 19, no dictionary): 3.5 bytes a
game in an archive file (8 plies 5.2, 10 plies 7.1; UCI within 4 % of SAN); the line most games of a lichess
``Opening`` share is 6 plies or fewer for 97 % of the games (8 for 99 %). A longer prefix is asked of the moves
(``san(body)[1:10] = [...]``, after a ``first_moves`` filter), an opening by name of the ``eco`` / ``opening``
columns. Archives written before it was 6 kept 8 (:attr:`plybits.archive.Meta.opening_plies`)."""


def first_moves(start: Position[Any], moves: Sequence[Any], plies: int = FIRST_PLIES) -> str:
    """The first ``plies`` of ``moves`` (legal, played from ``start``, which is not changed) in the game's
    default notation, space-separated (``""`` for a game without moves)."""
    position = start.copy()
    write = notation_of(position).move_text
    texts = []
    for move in moves[:plies]:
        texts.append(write(position, move, None))
        position.push(move)
    return " ".join(texts)


def starts_with_moves(line: str, prefix: str) -> bool:
    """Whether the moves ``line`` begin with the moves ``prefix`` (whole moves; both separated by single spaces):
    what the SQL macro ``starts_with_moves`` of :mod:`plybits.sql` asks."""
    return (line + " ").startswith(prefix.strip() + " ")


__all__ = ["FIRST_PLIES", "first_moves", "starts_with_moves"]
