"""Reading a xiangqi FEN: its syntax and the placement rules a position must satisfy (where each kind of piece can
stand, how many of it). Run once a game (:meth:`plybits.xiangqi.board.Board.set_fen`, which also checks that the side
not to move is not in check), so interpreted, out of the compiled rules.
"""

from __future__ import annotations

from plybits.errors import InvalidPositionError
from plybits.text import ascii_text, decimal
from plybits.xiangqi.board import (ADVISOR, BLACK, CANNON, CHARIOT, COLOR_NAMES, ELEPHANT, ELEPHANT_STEPS, FILE_OF,
                                   GEOMETRY, HORSE, KIND_NAMES, KING, RANK_OF, RED, SOLDIER, SQUARES, SYMBOL_ALIASES,
                                   SYMBOLS, in_palace, own_half, square, square_name)

# piece-placement rules a position must satisfy (pieces can never stand elsewhere)
_PALACE = {c: {square(f, r) for f in range(3, 6) for r in range(10) if in_palace(c, f, r)} for c in (RED, BLACK)}
_ADVISOR_POINTS = {
    c: {i for i in _PALACE[c] if (FILE_OF[i] + RANK_OF[i]) % 2 == (1 if c == RED else 0)} for c in (RED, BLACK)
}
_MAX_COUNT = {KING: 1, ADVISOR: 2, ELEPHANT: 2, HORSE: 2, CHARIOT: 2, CANNON: 2, SOLDIER: 5}


def _elephant_points(color: int) -> set[int]:
    """The seven points an elephant of ``color`` can reach from its start points."""
    starts = [square(2, 0), square(6, 0)] if color == RED else [square(2, 9), square(6, 9)]
    seen, todo = set(starts), list(starts)
    while todo:
        i = todo.pop()
        for t, _eye in ELEPHANT_STEPS[color][i]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


_ELEPHANT_POINTS = {c: _elephant_points(c) for c in (RED, BLACK)}


def read_fen(fen: str) -> tuple[list[int], int, list[int], int, int]:
    """The cells (:data:`~plybits.xiangqi.board.GEOMETRY`'s), side to move, generals' cells (red, black), halfmove
    clock and fullmove number of a xiangqi FEN (``w``, ``r`` or ``b`` to move; ``E``/``H`` accepted for ``B``/``N``).

    :raises InvalidPositionError: if it is malformed or places a piece where none can stand.
    """
    if not isinstance(fen, str) or len(fen) > 200:
        raise InvalidPositionError(f"not a xiangqi FEN: {fen!r}")
    parts = ascii_text(fen, "xiangqi FEN", InvalidPositionError).split()
    if not 1 <= len(parts) <= 6:
        raise InvalidPositionError(f"not a xiangqi FEN: {fen!r}")
    rows = parts[0].split("/")
    if len(rows) != 10:
        raise InvalidPositionError(f"xiangqi FEN needs 10 ranks, got {len(rows)}: {fen!r}")
    cells: list[int] = GEOMETRY.empty_cells(0)
    counts: dict[int, int] = {}
    for row_index, row in enumerate(rows):
        rank = 9 - row_index
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
                continue
            upper = ch.upper()
            kind = SYMBOLS.find(upper) if upper in SYMBOLS[1:] else SYMBOL_ALIASES.get(upper, 0)
            if not kind or not ch.isascii():
                raise InvalidPositionError(f"unknown piece {ch!r} in FEN {fen!r}")
            if f > 8:
                raise InvalidPositionError(f"rank {rank} of FEN {fen!r} has more than 9 files")
            piece = kind | (RED if ch.isupper() else BLACK)
            cells[square(f, rank)] = piece
            counts[piece] = counts.get(piece, 0) + 1
            f += 1
        if f != 9:
            raise InvalidPositionError(f"rank {rank} of FEN {fen!r} has {f} files, not 9")
    turn_text = parts[1].lower() if len(parts) > 1 else "w"
    if turn_text not in ("w", "r", "b"):
        raise InvalidPositionError(f"side to move {parts[1]!r} is not 'w', 'r' or 'b' in FEN {fen!r}")
    turn = BLACK if turn_text == "b" else RED
    for extra in parts[2:4]:
        if extra != "-":
            raise InvalidPositionError(f"xiangqi FEN field {extra!r} should be '-' in {fen!r}")
    half = decimal(parts[4]) if len(parts) > 4 else 0
    full = decimal(parts[5]) if len(parts) > 5 else 1
    if half is None or full is None:
        raise InvalidPositionError(f"move counters of FEN {fen!r} are not numbers")
    if not (0 <= half <= 100_000 and 1 <= full <= 100_000):
        raise InvalidPositionError(f"move counters of FEN {fen!r} out of range")
    kings = [0, 0]
    for color in (RED, BLACK):
        name = COLOR_NAMES[color]
        for kind, most in _MAX_COUNT.items():
            n = counts.get(kind | color, 0)
            if n > most:
                raise InvalidPositionError(f"{name} has {n} {KIND_NAMES[kind]}s (at most {most}) in FEN {fen!r}")
        if counts.get(KING | color, 0) != 1:
            raise InvalidPositionError(f"{name} needs exactly one general in FEN {fen!r}")
        for i in SQUARES:
            piece = cells[i]
            if piece != 0 and piece & BLACK == color:
                kind = piece & 7
                where = f"{name} {KIND_NAMES[kind]} on {square_name(i)}"
                if kind == KING:
                    kings[color >> 3] = i
                    if i not in _PALACE[color]:
                        raise InvalidPositionError(f"{where} is outside its palace in FEN {fen!r}")
                elif kind == ADVISOR and i not in _ADVISOR_POINTS[color]:
                    raise InvalidPositionError(f"{where} is not on an advisor point in FEN {fen!r}")
                elif kind == ELEPHANT and i not in _ELEPHANT_POINTS[color]:
                    raise InvalidPositionError(f"{where} is not on an elephant point in FEN {fen!r}")
                elif kind == SOLDIER:
                    r = RANK_OF[i]
                    behind = r < 3 if color == RED else r > 6
                    if behind or (own_half(color, r) and FILE_OF[i] % 2):
                        raise InvalidPositionError(f"{where} cannot be reached by a soldier in FEN {fen!r}")
    return cells, turn, kings, half, full
