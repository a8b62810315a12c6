"""What the rank models' opening books share: the position keys' random numbers, the book's buckets and rows.

A model 2 of xiangqi or chess consults, in a game's first :data:`BOOK_DEPTH` plies, how often the training games
played each move in the very position (``docs/rank.md``). Its book maps a position key (the XOR of
:data:`ZOBRIST` numbers of the pieces on their cells, and of black to move) to ``{move key: times played}``, and
a move's weight is read by :data:`TOTAL_BUCKET` of the times the position was reached and :data:`SHARE_BUCKET` of
the move's share of them. The numbers are frozen: released models' data files hold keys made from them.
"""

from __future__ import annotations

from typing import Any, Final

BOOK_DEPTH: Final = 30
"""The plies from the start in which an opening book is consulted."""
BOOK_MIN: Final = 2
"""A position is in a book when the training games reached it at least this often."""

Book = dict[int, dict[int, int]]
"""Position key -> {book move key: times played}."""

_HASH_BITS: Final = 60
ZOBRIST_COUNT: Final = 16 * 182 + 1
"""Xiangqi's piece codes x the 182 cells of its mailbox, then one for black to move (last); chess takes its keys
from the same numbers (``piece * 64 + square``, and the last)."""


def _zobrist() -> list[int]:
    """:data:`ZOBRIST_COUNT` 60-bit numbers: splitmix64 from seed 2."""
    state = 2
    mask = (1 << 64) - 1
    out = [0] * ZOBRIST_COUNT
    for i in range(len(out)):
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        out[i] = (z ^ (z >> 31)) >> (64 - _HASH_BITS)
    return out


ZOBRIST: Final = _zobrist()


def _buckets() -> tuple[list[int], list[int]]:
    """(the book bucket of a total 0..255: 2, 3, 4-5, 6-9, 10-19, 20+ -> 0..5), (the share bucket of a move played
    ``s``/64 of the times, 1..7; 0 is kept for a move never played there)."""
    total = [0] * 256
    for t in range(256):
        total[t] = 0 if t <= 2 else 1 if t == 3 else 2 if t <= 5 else 3 if t <= 9 else 4 if t <= 19 else 5
    share = [0] * 65
    for s in range(65):
        share[s] = 1 if s < 4 else 2 if s < 8 else 3 if s < 16 else 4 if s < 32 else 5 if s < 48 else 6 if s < 56 else 7
    return total, share


TOTAL_BUCKET, SHARE_BUCKET = _buckets()


def load_book(rows: list[Any]) -> Book:
    """The book from its data file's rows ``[key, [[move key, count], ...]]``."""
    book: Book = {}
    for row in rows:
        book[int(row[0])] = {int(m): int(c) for m, c in row[1]}
    return book


def add_to_book(book: Book, plies: list[tuple[int, int]], sign: int) -> None:
    """Count a game's plies, (position key, move key), into ``book`` (``sign`` 1) or take them out (-1, dropping
    what reaches 0)."""
    for key, move in plies:
        entry = book.setdefault(key, {})
        entry[move] = entry.get(move, 0) + sign
        if entry[move] == 0:
            del entry[move]
            if not entry:
                del book[key]


def book_rows(book: Book) -> list[Any]:
    """A data file's book: the positions reached at least :data:`BOOK_MIN` times, sorted."""
    return [[key, sorted(entry.items())] for key, entry in sorted(book.items()) if sum(entry.values()) >= BOOK_MIN]
