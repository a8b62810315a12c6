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
from typing import ClassVar, Final, cast, final

from plybits.rank import LinearModel, RankScheme, UniformModel
from plybits.xiangqi.board import (
    BLACK,
    CANNON,
    CHARIOT,
    FILE_OF,
    GEOMETRY,
    RANK_OF,
    SQUARES,
    Board,
    Move,
    reached_by,
    targets,
)

_SIZE: Final = GEOMETRY.size
POINT: Final = [-1] * _SIZE
"""r * 9 + f of each cell."""
RELATIVE: Final = ([-1] * _SIZE, [-1] * _SIZE)
"""The point as seen by each side (black's board turned rank-wise), 0..89."""
for _sq in SQUARES:
    POINT[_sq] = RANK_OF[_sq] * 9 + FILE_OF[_sq]
    RELATIVE[0][_sq] = RANK_OF[_sq] * 9 + FILE_OF[_sq]
    RELATIVE[1][_sq] = (9 - RANK_OF[_sq]) * 9 + FILE_OF[_sq]


def move_key(move: Move) -> int:
    """The canonical sort key of a move: (from point, to point) as one integer."""
    return POINT[move.from_square] * 90 + POINT[move.to_square]


def canonical_moves(board: Board) -> list[Move]:
    """The legal moves of a position in canonical order (:func:`move_key`): :meth:`Board.legal_moves` lists
    them so (cells number in point order)."""
    return board.legal_moves()


# ---------------------------------------------------------------- model 1 features (frozen)

VALUE: Final = [0, 0, 2, 2, 4, 9, 4, 1, 0]
"""Rough piece values by kind (general 0: never traded)."""

_next = 0


def _block(size: int) -> int:
    global _next
    start = _next
    _next += size
    return start


F_TO: Final = _block(8 * 90)  # kind x relative to-point
F_FROM: Final = _block(8 * 90)  # kind x relative from-point
F_CAPTURE: Final = _block(8 * 8)  # victim kind x mover kind
F_TO_ATTACKED: Final = _block(2 * 8)  # capture? x mover kind, when the opponent attacks the target
F_FROM_ATTACKED: Final = _block(8)  # the mover stands attacked, by kind
F_RECAPTURE: Final = _block(8)  # captures on the square the opponent just captured on
F_TAKES_LAST: Final = _block(8)  # captures the piece that just moved
F_SAME_PIECE: Final = _block(8)  # moves again the piece this side moved last
F_PHASE: Final = _block(4 * 8)  # material phase x kind
F_EVASION: Final = _block(8)  # side to move is in check, by kind
F_SLIDE: Final = _block(2 * 2 * 10)  # chariot/cannon x along a file/rank x distance
F_DEFENDED_VICTIM: Final = _block(8)  # captures a piece the opponent can take back, by mover kind
F_NEAR_LAST: Final = _block(6)  # king-step distance of the target from the opponent's last target (0..4, 5+)
N_FEATURES: Final = _next


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 1's active feature ids of each move in ``moves`` (legal here), as training fits them: read back
    from :meth:`LinearXiangqiModel.scores`, their one definition."""
    return MODEL.features(board, moves, history)


_KING_DISTANCE: Final = [0] * (_SIZE * _SIZE)
"""_KING_DISTANCE[a * SIZE + b]: the king-step (Chebyshev) distance between two points."""
for _a in SQUARES:
    for _b in SQUARES:
        _KING_DISTANCE[_a * _SIZE + _b] = max(abs(FILE_OF[_a] - FILE_OF[_b]), abs(RANK_OF[_a] - RANK_OF[_b]))


@final
class _Tables:
    """What :meth:`LinearXiangqiModel.scores` derives from the weights, laid out by the indices it has at hand."""

    __slots__ = ("w", "rows", "near")

    def __init__(self, w: list[int]) -> None:
        self.w: list[int] = w
        self.rows: list[list[int] | None] = [None] * (16 * _SIZE)
        """rows[piece * SIZE + from][to]: the weights of the to- and from-point and slide features."""
        self.near: list[list[int] | None] = [None] * _SIZE
        """near[last_to][to]: the ``F_NEAR_LAST`` weight of a target ``to``."""

    def row(self, piece: int, f: int) -> list[int]:
        """``rows[piece * SIZE + f]``, made on first use."""
        row = self.rows[piece * _SIZE + f]
        if row is not None:
            return row
        w = self.w
        kind = piece & 7
        rel = RELATIVE[piece >> 3]
        fixed = w[F_FROM + kind * 90 + rel[f]]
        row = [0] * _SIZE
        for t in SQUARES:
            score = fixed + w[F_TO + kind * 90 + rel[t]]
            if kind == CHARIOT or kind == CANNON:
                d_file = FILE_OF[t] - FILE_OF[f]
                d_rank = RANK_OF[t] - RANK_OF[f]
                along_file = 1 if d_file == 0 else 0
                score += w[F_SLIDE + ((0 if kind == CHARIOT else 1) * 2 + along_file) * 10 + abs(d_rank or d_file)]
            row[t] = score
        self.rows[piece * _SIZE + f] = row
        return row

    def near_row(self, last_to: int) -> list[int]:
        """``near[last_to]``, made on first use."""
        row = self.near[last_to]
        if row is not None:
            return row
        w = self.w
        row = [0] * _SIZE
        for t in range(_SIZE):
            row[t] = w[F_NEAR_LAST + min(5, _KING_DISTANCE[last_to * _SIZE + t])]
        self.near[last_to] = row
        return row


@final
class LinearXiangqiModel(LinearModel):
    """Model 1: log-linear with the shipped integer weights; :meth:`scores` defines the features."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, package="plybits.xiangqi", n_features=N_FEATURES,
                         canonical=canonical_moves, features=None)

    def scores(self, board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[int]:
        """Each move's score: the sum of the weights of its features, which are (``kind`` the mover's, points
        relative to the side to move):

        - ``F_TO``/``F_FROM`` by kind and point, ``F_PHASE`` by material phase and kind, ``F_SLIDE`` for a
          chariot or cannon by direction and distance;
        - a capture: ``F_CAPTURE`` by victim and mover, ``F_RECAPTURE``/``F_TAKES_LAST`` on the point the
          opponent just moved to, ``F_DEFENDED_VICTIM`` if the opponent can take back;
        - ``F_NEAR_LAST``: king-step distance (0..4, 5+) from the opponent's last target;
        - ``F_TO_ATTACKED`` (by capture? and kind) / ``F_FROM_ATTACKED`` where the opponent could move;
          ``F_SAME_PIECE``; ``F_EVASION`` in check.
        """
        tables = self.derived("tables", _Tables)
        w = tables.w
        rows = tables.rows
        cells = board.cells
        us = board.turn
        them = us ^ BLACK
        their_king = board.kings[them >> 3]
        attacked = targets(cells, them)
        played = len(history)
        last_to = history[played - 1].to_square if played >= 1 else -1
        my_last_to = history[played - 2].to_square if played >= 2 else -1
        last_capture = played >= 1 and board.halfmove_clock == 0
        material = 0
        for sq in SQUARES:
            material += VALUE[cells[sq] & 7]
        phase = 0 if material >= 60 else 1 if material >= 44 else 2 if material >= 28 else 3
        in_check = attacked[board.kings[us >> 3]] != 0
        near: list[int] | None = tables.near_row(last_to) if last_to >= 0 else None
        phase_base = F_PHASE + phase * 8
        out: list[int] = []
        listed: list[Move] = moves if isinstance(moves, list) else list(moves)
        for m in listed:
            f = m.from_square
            t = m.to_square
            p = cells[f]
            kind = p & 7
            q = cells[t]
            row = rows[p * _SIZE + f]
            if row is None:
                row = tables.row(p, f)
            score = row[t] + w[phase_base + kind]
            capture = 0
            if q:
                capture = 1
                score += w[F_CAPTURE + (q & 7) * 8 + kind]
                if t == last_to:
                    score += w[F_RECAPTURE + kind] if last_capture else w[F_TAKES_LAST + kind]
                # can the opponent take back on t after this capture?
                cells[t] = p
                cells[f] = 0
                back = reached_by(cells, their_king, t, them)
                cells[f] = p
                cells[t] = q
                if back:
                    score += w[F_DEFENDED_VICTIM + kind]
            if near is not None:
                score += near[t]
            if attacked[t]:
                score += w[F_TO_ATTACKED + capture * 8 + kind]
            if attacked[f]:
                score += w[F_FROM_ATTACKED + kind]
            if f == my_last_to:
                score += w[F_SAME_PIECE + kind]
            if in_check:
                score += w[F_EVASION + kind]
            out.append(score)
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
        1: LinearXiangqiModel(
            "rank_model_v1.json", 1, "log-linear move model learned from master games (tools/train_xiangqi.py)"
        ),
    }


MODEL = cast(LinearXiangqiModel, XiangqiRankScheme.models[1])
"""Model 1, whose scorer defines :func:`move_features`."""


RANK = XiangqiRankScheme()
