"""``xiangqi/rank`` (codec 0x12): each ply's index among the legal moves, range-coded under a learned model.

Canonical order: the legal moves sorted by ``(from, to)`` with points numbered ``r * 9 + f``
(a0 = 0, i0 = 8, a1 = 9, ..., i9 = 89: the xq10 slot order).

- Model 0: uniform over the legal moves.
- Model 1: log-linear over :func:`move_features` (piece-square tables for the piece moved, captures
  by victim and mover, whether the target or the origin is attacked by the opponent, the
  opponent's last move and one's own, slide length, material phase), integer weights learned
  by ``tools/train_xiangqi.py`` and shipped in ``rank_model_v1.json``.

Feature ids are part of model 1's format: never change them; a new feature set is a new model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from plybits.rank import LinearModel, RankScheme, UniformModel, sorted_by
from plybits.xiangqi.board import BLACK, CANNON, CHARIOT, FILE_OF, GEOMETRY, RANK_OF, SQUARES, Board, Move

_SIZE = GEOMETRY.size
POINT = [-1] * _SIZE
"""r * 9 + f of each cell."""
RELATIVE = ([-1] * _SIZE, [-1] * _SIZE)
"""The point as seen by each side (black's board turned rank-wise), 0..89."""
for _sq in SQUARES:
    POINT[_sq] = RANK_OF[_sq] * 9 + FILE_OF[_sq]
    RELATIVE[0][_sq] = RANK_OF[_sq] * 9 + FILE_OF[_sq]
    RELATIVE[1][_sq] = (9 - RANK_OF[_sq]) * 9 + FILE_OF[_sq]


def move_key(move: Move) -> int:
    """The canonical sort key of a move: (from point, to point) as one integer."""
    return POINT[move.from_square] * 90 + POINT[move.to_square]


canonical_moves = sorted_by(move_key)
"""The legal moves of a position in canonical order (:func:`move_key`)."""


# ---------------------------------------------------------------- model 1 features (frozen)

VALUE = (0, 0, 2, 2, 4, 9, 4, 1, 0)
"""Rough piece values by kind (general 0: never traded)."""

_next = 0


def _block(size: int) -> int:
    global _next
    start = _next
    _next += size
    return start


F_TO = _block(8 * 90)  # kind x relative to-point
F_FROM = _block(8 * 90)  # kind x relative from-point
F_CAPTURE = _block(8 * 8)  # victim kind x mover kind
F_TO_ATTACKED = _block(2 * 8)  # capture? x mover kind, when the opponent attacks the target
F_FROM_ATTACKED = _block(8)  # the mover stands attacked, by kind
F_RECAPTURE = _block(8)  # captures on the square the opponent just captured on
F_TAKES_LAST = _block(8)  # captures the piece that just moved
F_SAME_PIECE = _block(8)  # moves again the piece this side moved last
F_PHASE = _block(4 * 8)  # material phase x kind
F_EVASION = _block(8)  # side to move is in check, by kind
F_SLIDE = _block(2 * 2 * 10)  # chariot/cannon x along a file/rank x distance
F_DEFENDED_VICTIM = _block(8)  # captures a piece the opponent can take back, by mover kind
F_NEAR_LAST = _block(6)  # king-step distance of the target from the opponent's last target (0..4, 5+)
N_FEATURES = _next


def _enemy_targets(board: Board) -> bytearray:
    """Cells the opponent could move to (or capture on) if it were their turn."""
    attacked = bytearray(_SIZE)
    board.turn ^= BLACK
    try:
        for m in board.pseudo_legal_moves():
            attacked[m.to_square] = 1
    finally:
        board.turn ^= BLACK
    return attacked


def _recapturable(board: Board, f: int, t: int) -> bool:
    """Whether, after our ``f`` -> ``t`` capture, the opponent has a pseudo-legal capture back on ``t``."""
    cells = board.cells
    piece, victim = cells[f], cells[t]
    cells[t], cells[f] = piece, 0
    board.turn ^= BLACK
    try:
        return any(m.to_square == t for m in board.pseudo_legal_moves())
    finally:
        board.turn ^= BLACK
        cells[f], cells[t] = piece, victim


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 1's active feature ids of each move in ``moves`` (legal here)."""
    cells = board.cells
    us = board.turn
    side = us >> 3
    rel = RELATIVE[side]
    attacked = _enemy_targets(board)
    last = history[-1] if history else None
    mine = history[-2] if len(history) >= 2 else None
    last_to = last.to_square if last is not None else -1
    my_last_to = mine.to_square if mine is not None else -1
    last_capture = last is not None and board.halfmove_clock == 0
    material = 0
    for sq in SQUARES:
        p = cells[sq]
        if p:
            material += VALUE[p & 7]
    phase = 0 if material >= 60 else 1 if material >= 44 else 2 if material >= 28 else 3
    in_check = attacked[board.kings[side]]
    out: list[list[int]] = []
    for m in moves:
        f, t = m.from_square, m.to_square
        kind = cells[f] & 7
        q = cells[t]
        feats = [F_TO + kind * 90 + rel[t], F_FROM + kind * 90 + rel[f], F_PHASE + phase * 8 + kind]
        capture = 0
        if q:
            capture = 1
            feats.append(F_CAPTURE + (q & 7) * 8 + kind)
            if t == last_to:
                feats.append(F_RECAPTURE + kind if last_capture else F_TAKES_LAST + kind)
            if _recapturable(board, f, t):
                feats.append(F_DEFENDED_VICTIM + kind)
        if last_to >= 0:
            feats.append(F_NEAR_LAST + min(5, max(abs(FILE_OF[t] - FILE_OF[last_to]), abs(RANK_OF[t] - RANK_OF[last_to]))))
        if attacked[t]:
            feats.append(F_TO_ATTACKED + capture * 8 + kind)
        if attacked[f]:
            feats.append(F_FROM_ATTACKED + kind)
        if f == my_last_to:
            feats.append(F_SAME_PIECE + kind)
        if in_check:
            feats.append(F_EVASION + kind)
        if kind == CHARIOT or kind == CANNON:
            d_file = FILE_OF[t] - FILE_OF[f]
            d_rank = RANK_OF[t] - RANK_OF[f]
            along_file = 1 if d_file == 0 else 0
            feats.append(F_SLIDE + ((0 if kind == CHARIOT else 1) * 2 + along_file) * 10 + abs(d_rank or d_file))
        out.append(feats)
    return out


class XiangqiRankScheme(RankScheme[Board, Move]):
    """Xiangqi moves range-coded by rank under a learned move model."""

    game: ClassVar[str] = "xiangqi"
    codec_id: ClassVar[int] = 0x12
    version: ClassVar[int] = 1
    readable_versions: ClassVar[tuple[int, ...]] = (0, 1)
    description: ClassVar[str] = (
        "each move's index among the legal moves (sorted by from, to point), "
        "range-coded under a learned log-linear move model"
    )
    models = {
        0: UniformModel(canonical_moves),
        1: LinearModel(
            "rank_model_v1.json", 1, "log-linear move model learned from master games (tools/train_xiangqi.py)",
            package="plybits.xiangqi", n_features=N_FEATURES, canonical=canonical_moves, features=move_features,
        ),
    }


RANK = XiangqiRankScheme()
