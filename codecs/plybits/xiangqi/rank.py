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
from typing import Final, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.mailbox import OFF
from plybits.packed import PACKED, int_array, int_list, zeros
from plybits.rank import FeatureIds, RankScheme
from plybits.xiangqi.board import (
    _ADVISOR_ROWS,
    _ELEPHANT_ROWS,
    _HORSE_ROWS,
    _KING_ROWS,
    _NO_MARKS,
    _SOLDIER_ROWS,
    _STEPS,
    ADVISOR,
    BLACK,
    CANNON,
    CHARIOT,
    ELEPHANT,
    FILE_OF,
    GEOMETRY,
    HORSE,
    KING,
    POINT_CELLS,
    POINTS,
    RANK_OF,
    SQUARES,
    Board,
    Move,
    _scan_array,
    generals_face,
    legal,
    legal_codes,
    reached_by,
)
from plybits.xiangqi.rankmodel2 import CodedXiangqiModel, LinearXiangqiModel2, sides

_SIZE: Final = GEOMETRY.size
POINT: Final = [-1] * _SIZE
"""r * 9 + f of each cell."""
RELATIVE: Final = ([-1] * _SIZE, [-1] * _SIZE)
"""The point as seen by each side (black's board turned rank-wise), 0..89."""
for _sq in SQUARES:
    POINT[_sq] = RANK_OF[_sq] * 9 + FILE_OF[_sq]
    RELATIVE[0][_sq] = RANK_OF[_sq] * 9 + FILE_OF[_sq]
    RELATIVE[1][_sq] = (9 - RANK_OF[_sq]) * 9 + FILE_OF[_sq]


def piece_points() -> list[tuple[int, int, int]]:
    """``(piece code * SIZE + cell, kind, the cell's point relative to the piece's side)`` for every piece code and
    point: where both models' piece-square tables put a weight read by kind and relative point."""
    out = []
    for piece in range(16):
        kind = piece & 7
        if kind:
            rel = RELATIVE[piece >> 3]
            out += [(piece * _SIZE + sq, kind, rel[sq]) for sq in SQUARES]
    return out


def move_key(move: Move) -> int:
    """The canonical sort key of a move: (from point, to point) as one integer."""
    return POINT[move.from_square] * 90 + POINT[move.to_square]


def canonical_moves(board: Board) -> list[Move]:
    """The legal moves of a position in canonical order (:func:`move_key`): the board module's :func:`legal`
    lists them so (cells number in point order). Called as a module function, not :meth:`Board.legal_moves`: on
    a :class:`~plybits.xiangqi.Position`, compiled code would call the method through Python's lookup."""
    return legal(board.cells, board.kings[board.turn >> 3], board.turn)


def attack_map(cells: vec[i64], color: i64, scan: vec[i64] = POINTS) -> vec[i64]:
    """Per cell, 1 where a piece of ``color`` has a move to by its movement rules alone, else 0: the to-cells of
    :func:`~plybits.xiangqi.board.pseudo_codes` for ``color`` (model 1's attack map), marked as the pieces are walked,
    with no move listed (pure Python, listing the codes and reading their targets back cost as much again). ``scan``
    as it takes it."""
    marks = _NO_MARKS[:]
    side = (color >> 3) * _SIZE
    lo = color + 1  # the codes of the pieces of ``color`` are lo .. hi (the colour plus the kind): tested by comparisons
    hi = color + 7  # (pure Python specializes them, not ``&``)
    for i in scan:
        kind = cells[i] - color
        if kind <= 0 or kind > 7:  # empty, or the other colour's
            continue
        if kind == CHARIOT or kind == CANNON:
            for step in _STEPS:  # any order: a mark, unlike a code, has no place to keep
                t = i + step
                q = cells[t]
                while q == 0:
                    marks[t] = 1
                    t += step
                    q = cells[t]
                if q != OFF and kind == CANNON:  # past the screen, to the piece it may take
                    t += step
                    q = cells[t]
                    while q == 0:
                        t += step
                        q = cells[t]
                if q != OFF and (q < lo or q > hi):
                    marks[t] = 1
        elif kind == HORSE or kind == ELEPHANT:
            for e in _HORSE_ROWS[i] if kind == HORSE else _ELEPHANT_ROWS[side + i]:
                t = e >> 8
                q = cells[t]  # these steps land on the board: never OFF
                if cells[e & 255] == 0 and (q < lo or q > hi):
                    marks[t] = 1
        else:
            for t in (_KING_ROWS if kind == KING else _ADVISOR_ROWS if kind == ADVISOR else _SOLDIER_ROWS)[side + i]:
                q = cells[t]
                if q < lo or q > hi:
                    marks[t] = 1
    return marks


def targets(cells: vec[i64], color: int, scan: list[int] = POINT_CELLS) -> list[int]:
    """Per cell, 1 where a piece of ``color`` has a move to by its movement rules alone, else 0: the to-cells of
    :func:`pseudo_legal` for ``color``, without building the moves (:func:`attack_map` as a list). ``scan`` as
    :func:`pseudo_legal` takes it."""
    return int_list(attack_map(cells, color, _scan_array(scan)))


# ---------------------------------------------------------------- model 1 features (frozen)

_ids = FeatureIds()


F_TO: Final = _ids.block(8 * 90)  # kind x relative to-point
F_FROM: Final = _ids.block(8 * 90)  # kind x relative from-point
F_CAPTURE: Final = _ids.block(8 * 8)  # victim kind x mover kind
F_TO_ATTACKED: Final = _ids.block(2 * 8)  # capture? x mover kind, when the opponent attacks the target
F_FROM_ATTACKED: Final = _ids.block(8)  # the mover stands attacked, by kind
F_RECAPTURE: Final = _ids.block(8)  # captures on the square the opponent just captured on
F_TAKES_LAST: Final = _ids.block(8)  # captures the piece that just moved
F_SAME_PIECE: Final = _ids.block(8)  # moves again the piece this side moved last
F_PHASE: Final = _ids.block(4 * 8)  # material phase x kind
F_EVASION: Final = _ids.block(8)  # side to move is in check, by kind
F_SLIDE: Final = _ids.block(2 * 2 * 10)  # chariot/cannon x along a file/rank x distance
F_DEFENDED_VICTIM: Final = _ids.block(8)  # captures a piece the opponent can take back, by mover kind
F_NEAR_LAST: Final = _ids.block(6)  # king-step distance of the target from the opponent's last target (0..4, 5+)
N_FEATURES: Final = _ids.count


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 1's active feature ids of each move in ``moves`` (legal here), as training fits them: read back
    from :meth:`LinearXiangqiModel.scores`, their one definition."""
    return MODEL.features(board, moves, history)


def _point_pairs() -> tuple[list[list[int]], list[list[int]]]:
    """(the king-step distance between two points, 5 and more alike; the ``F_SLIDE`` offset of a slide between
    them: 10 + ranks moved along a file, files moved along a rank, 0 off the lines), by cell and cell."""
    near = [[5] * _SIZE for _ in range(_SIZE)]
    slide = [[0] * _SIZE for _ in range(_SIZE)]
    for a in SQUARES:
        for b in SQUARES:
            d_file = abs(FILE_OF[a] - FILE_OF[b])
            d_rank = abs(RANK_OF[a] - RANK_OF[b])
            near[a][b] = min(5, max(d_file, d_rank))
            slide[a][b] = 10 + d_rank if d_file == 0 else d_file if d_rank == 0 else 0
    return near, slide


_NEAR_STEPS, _SLIDE_LISTS = _point_pairs()
_SLIDE_STEPS: Final = [int_array(row) for row in _SLIDE_LISTS]


@final
class _Tables:
    """What :meth:`LinearXiangqiModel.scores` derives from the weights, laid out by the indices it has at hand.

    Small on purpose: every entry is one of the weights (no table of sums per origin and target), so what a
    ply reads stays in the processor's cache; the sums are made per move. The tables are
    :func:`~plybits.packed.int_array` arrays: compiled, a read is one load.
    """

    __slots__ = ("w", "to", "origin", "near")

    def __init__(self, w: list[int]) -> None:
        self.w: vec[i64] = int_array(w)
        to = [0] * (16 * _SIZE)
        origin = [0] * (16 * _SIZE)
        for index, kind, point in piece_points():
            to[index] = w[F_TO + kind * 90 + point]
            origin[index] = w[F_FROM + kind * 90 + point]
        self.to: vec[i64] = int_array(to)
        """to[piece * SIZE + t]: the ``F_TO`` weight of that piece's move to ``t``."""
        self.origin: vec[i64] = int_array(origin)
        """origin[piece * SIZE + f]: the ``F_FROM`` weight of that piece's move from ``f``."""
        self.near: list[vec[i64] | None] = [None] * _SIZE
        """near[last_to][to]: the ``F_NEAR_LAST`` weight of a target ``to``."""

    def near_row(self, last_to: int) -> vec[i64]:
        """``near[last_to]``, made on first use."""
        row = self.near[last_to]
        if row is not None:
            return row
        steps = _NEAR_STEPS[last_to]
        made = int_array([self.w[F_NEAR_LAST + steps[t]] for t in range(_SIZE)])
        self.near[last_to] = made
        return made


_NO_NEAR: Final = zeros(_SIZE)
"""The ``F_NEAR_LAST`` row of the first ply (no last target): no weight anywhere."""


@final
class LinearXiangqiModel(CodedXiangqiModel):
    """Model 1: log-linear with the shipped integer weights; :meth:`scores` defines the features."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, package="plybits.xiangqi", n_features=N_FEATURES,
                         canonical=canonical_moves, features=None, packed_weights=PACKED)
        self._tables: _Tables | None = None

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], i64, vec[i64]]:
        """The legal moves' codes (:func:`~plybits.xiangqi.board.legal_codes`: the first ``n``), ``n`` and their
        :meth:`scores`; the board is scanned for its pieces once, by side (each generator walks its side's only),
        and their material."""
        cells = position.cells
        us = position.turn
        kings = position.kings
        k = kings[us >> 3]
        red, black, material = sides(cells)
        mine, theirs = (black, red) if us == BLACK else (red, black)
        # the opponent's attack map, the model's, marks the general iff it is in check, the flying general aside
        attacked = attack_map(cells, us ^ BLACK, theirs)
        codes, n = legal_codes(cells, k, us, mine, 1 if attacked[k] or generals_face(cells, kings[0], kings[1]) else 0)
        return codes, n, self._scores(position, codes, n, history, material, attacked)

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

        What depends on the origin point only is summed once for all the moves from it (they come grouped).
        """
        n = len(moves)
        codes = zeros(n)
        for i in range(n):
            codes[i] = moves[i].from_square << 8 | moves[i].to_square
        red, black, material = sides(board.cells)
        theirs = red if board.turn == BLACK else black
        return int_list(self._scores(board, codes, n, history, material, attack_map(board.cells, board.turn ^ BLACK,
                                                                                     theirs)))

    def _scores(
        self, board: Board, codes: vec[i64], n: i64, history: Sequence[Move], material: i64, attacked: vec[i64],
    ) -> vec[i64]:
        """:meth:`scores` of the first ``n`` move codes, given the pieces' summed rough values (the material phase's,
        by :func:`~plybits.xiangqi.rankmodel2.sides`) and the opponent's :func:`attack_map`."""
        tables = self._tables
        if tables is None:
            tables = self._tables = self.derived("tables", _Tables)
        w = tables.w
        to_w = tables.to
        origin_w = tables.origin
        cells = board.cells
        us = board.turn
        them = us ^ BLACK
        their_king = board.kings[them >> 3]
        played = len(history)
        last_to = history[played - 1].to_square if played >= 1 else -1
        my_last_to = history[played - 2].to_square if played >= 2 else -1
        last_capture = played >= 1 and board.halfmove_clock == 0
        near = tables.near_row(last_to) if last_to >= 0 else _NO_NEAR
        phase = 0 if material >= 60 else 1 if material >= 44 else 2 if material >= 28 else 3
        in_check = attacked[board.kings[us >> 3]] != 0
        phase_base = F_PHASE + phase * 8
        out = zeros(n)
        # what depends on the origin point only (set when it changes: the codes come grouped by origin)
        f: i64 = 0
        first: i64 = 0  # the origin's code f << 8: a target is ``c - first`` (pure Python: a specialized subtraction)
        after: i64 = 0  # the first code past the origin's
        fixed: i64 = 0
        kind: i64 = 0
        p: i64 = 0
        base: i64 = 0
        slide: i64 = -1  # the F_SLIDE block of a chariot or a cannon; -1 for the other kinds
        slide_steps = _NO_NEAR
        for i in range(n):
            c = codes[i]
            if c >= after or c < first:
                f = c >> 8
                first = f << 8
                after = first + 256
                p = cells[f]
                kind = p & 7
                base = p * _SIZE
                fixed = origin_w[base + f] + w[phase_base + kind]
                if attacked[f]:
                    fixed += w[F_FROM_ATTACKED + kind]
                if f == my_last_to:
                    fixed += w[F_SAME_PIECE + kind]
                if in_check:
                    fixed += w[F_EVASION + kind]
                slide = F_SLIDE if kind == CHARIOT else F_SLIDE + 20 if kind == CANNON else -1
                slide_steps = _SLIDE_STEPS[f]
            t = c - first
            score: i64 = to_w[base + t] + fixed + near[t]
            if slide >= 0:
                score += w[slide + slide_steps[t]]
            q = cells[t]
            if q:
                score += w[F_CAPTURE + (q & 7) * 8 + kind]
                if t == last_to:
                    score += w[F_RECAPTURE + kind] if last_capture else w[F_TAKES_LAST + kind]
                if attacked[t]:
                    score += w[F_TO_ATTACKED + 8 + kind]
                # can the opponent take back on t after this capture?
                cells[t] = p
                cells[f] = 0
                back = reached_by(cells, their_king, t, them)
                cells[f] = p
                cells[t] = q
                if back:
                    score += w[F_DEFENDED_VICTIM + kind]
            elif attacked[t]:
                score += w[F_TO_ATTACKED + kind]
            out[i] = score
        return out


MODEL: Final = LinearXiangqiModel(
    "rank_model_v1.json", 1, "log-linear move model learned from master games (tools/train_xiangqi.py)"
)
"""Model 1, whose scorer defines :func:`move_features`."""

MODEL2: Final = LinearXiangqiModel2(
    "rank_model_v2.json", 2, "log-linear move model with exchange safety, checks and an opening book, learned from "
    "master games (tools/train_xiangqi.py)", canonical_moves,
)
"""Model 2 (:mod:`plybits.xiangqi.rankmodel2`): what ``encode`` writes."""

RANK: Final = RankScheme(
    "xiangqi", 0x12, "each move's index among the legal moves (sorted by from, to point), range-coded under a "
    "learned log-linear move model", canonical_moves, MODEL, MODEL2,
)
"""Xiangqi moves range-coded by rank under a learned move model."""
