"""``abalone/rank`` (codec 0x22): each ply's index among the legal moves, range-coded under a learned model.

Canonical order: the legal moves sorted by their abapro word (SPEC §4): inline moves
``(0, cell number, direction)`` before broadsides ``(1, first end's cell number, line
direction, marbles, move direction)``, cells numbered a1 = 0 ... i9 = 60.

- Model 0: uniform over the legal moves.
- Model 1: log-linear over the features of :meth:`LinearAbaloneModel.scores` (kind of move and what
  it pushes or ejects, centre gain, cohesion, edge exposure, direction seen from the mover, distance
  to the opponent's last move and to one's own, the destination cells), integer weights learned by
  ``tools/train_abalone.py`` and shipped in ``rank_model_v1.json``.

Feature ids are part of model 1's format: never change them; a new feature set is a new model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

from plybits.abalone.board import BLACK, CELL_NUMBER, EMPTY, GEOMETRY, SQUARES, STEPS, Board, Move
from plybits.mailbox import OFF
from plybits.rank import LinearModel, RankScheme, UniformModel


def move_key(move: Move) -> tuple[int, ...]:
    """The canonical sort key of a move: its abapro fields."""
    if move.line < 0:
        return (0, CELL_NUMBER[move.cell], move.direction)
    return (1, CELL_NUMBER[move.cell], move.line, move.marbles, move.direction)


def _canonical_ranks() -> dict[Move, int]:
    """Every move's place in the canonical order (:func:`move_key` of all moves, sorted)."""
    from plybits.abalone.board import ALL_MOVES

    return {m: i for i, m in enumerate(sorted(ALL_MOVES, key=move_key))}


_RANK_OF = _canonical_ranks().__getitem__


def canonical_moves(board: Board) -> list[Move]:
    """The legal moves of a position in canonical order (:func:`move_key`)."""
    moves = board.legal_moves()
    moves.sort(key=_RANK_OF)
    return moves


# ---------------------------------------------------------------- model 1 features (frozen)

_SIZE = GEOMETRY.size
RING = [-1] * _SIZE
"""Hex distance of each cell from the centre e5 (0..4); -1 off the board."""
_COORDS = [(0, 0)] * _SIZE
for _sq in SQUARES:
    _f, _r = GEOMETRY.coords(_sq)
    _COORDS[_sq] = (_f, _r)
    RING[_sq] = max(abs(_f - 4), abs(_r - 4), abs((_f - 4) - (_r - 4)))


def hex_distance(a: int, b: int) -> int:
    """Steps between two cells."""
    (fa, ra), (fb, rb) = _COORDS[a], _COORDS[b]
    df, dr = fb - fa, rb - ra
    return max(abs(df), abs(dr), abs(df - dr))


DISTANCE: list[list[int]] = [[9] * _SIZE for _ in range(_SIZE)]
"""DISTANCE[a][b]: :func:`hex_distance` of two cells."""
for _a in SQUARES:
    for _b in SQUARES:
        DISTANCE[_a][_b] = hex_distance(_a, _b)
_ADJACENT = [False] * (2 * _SIZE)
for _s in STEPS:
    _ADJACENT[_SIZE + _s] = True


_next = 0


def _block(size: int) -> int:
    global _next
    start = _next
    _next += size
    return start


F_KIND = _block(5 * 3 * 2)  # kind (inline 1/2/3, broadside 2/3) x opponents pushed (0/1/2) x ejects
F_CENTRE = _block(5 * 9)  # kind x centre gain of the moved marbles (-4..4)
F_DIRECTION = _block(2 * 6 * 5)  # side x direction x kind
F_NEAR_LAST = _block(6)  # distance from the opponent's last move's destination (0..4, 5+)
F_NEAR_MINE = _block(6)  # distance from one's own last move's destination (0..4, 5+)
F_COHESION = _block(5 * 13)  # kind x change in the number of adjacent own pairs (-6..6)
F_EDGE = _block(5 * 4)  # kind x own marbles moved onto the edge ring (0..3)
F_LEAVE_EDGE = _block(5 * 4)  # kind x own marbles moved off the edge ring (0..3)
F_TO_CELL = _block(2 * 61)  # side x the front (inline) or first end's (broadside) destination cell
F_FROM_CELL = _block(2 * 61)  # side x the rear (inline) or first end's (broadside) cell
F_THREAT = _block(3)  # the moved group was exposed to a push (0 no, 1 pushable, 2 could be ejected)
N_FEATURES = _next

_KIND_NAMES = ("inline-1", "inline-2", "inline-3", "broadside-2", "broadside-3")


def _destination(move: Move) -> int:
    """A move's representative destination cell for locality features (board-independent)."""
    return move.cell + STEPS[move.direction]


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 1's active feature ids of each move in ``moves`` (legal here), as training fits them: read
    back from :meth:`LinearAbaloneModel.scores`, their one definition."""
    return MODEL.features(board, moves, history)


def _exposure(cells: list[Any], me: int, opp: int) -> list[int]:
    """Own marbles an opposing line could push now, by cell: 1 pushable, 2 pushable off the board (0: neither)."""
    exposed = [0] * _SIZE
    for sq in SQUARES:
        if cells[sq] != opp:
            continue
        for step in STEPS:
            if cells[sq - step] == opp:
                continue  # sq is not the rear of its line along step
            # an opposing line of n starting at sq (its rear) heading along step
            n = 1
            t = sq + step
            while cells[t] == opp and n < 4:
                n += 1
                t += step
            if n > 3 or cells[t] != me:
                continue
            k = 0
            u = t
            while cells[u] == me:
                k += 1
                u += step
            if k >= n or cells[u] == opp:
                continue
            level = 2 if cells[u] == OFF else 1
            for j in range(k):
                c = t + j * step
                if exposed[c] < level:
                    exposed[c] = level
    return exposed



def _cohesion_table(w: list[int]) -> list[list[int]]:
    """The cohesion weight of each kind and change in adjacent pairs (-30..30), from the weights ``w``."""
    return [[w[F_COHESION + kind * 13 + max(-6, min(6, c)) + 6] for c in range(-30, 31)] for kind in range(5)]

class LinearAbaloneModel(LinearModel):
    """Model 1: log-linear with the shipped integer weights; :meth:`scores` defines the features."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, package="plybits.abalone", n_features=N_FEATURES,
                         canonical=canonical_moves, features=None)

    def scores(self, board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[int]:
        """Each move's score: the sum of the weights of its features, which are (``kind`` 0-2 inline of
        1-3 marbles, 3-4 broadside of 2-3; an inline move's cells are its rear and front marbles', a
        broadside's its first end's):

        - ``F_KIND`` by kind, opponents pushed and whether one is ejected; ``F_CENTRE`` by kind and the
          moved marbles' gain towards e5; ``F_DIRECTION`` by side, direction and kind;
        - ``F_COHESION`` by kind and the change in adjacent own pairs; ``F_EDGE``/``F_LEAVE_EDGE`` by
          kind and marbles moved onto/off the edge ring; ``F_TO_CELL``/``F_FROM_CELL`` by side and cell;
        - ``F_NEAR_LAST``/``F_NEAR_MINE``: distance (0-4, 5+) from the opponent's last destination to
          the nearest destination, and from one's own last destination to the nearest moved marble;
        - ``F_THREAT``: the moved marbles were exposed to a push (1) or an ejection (2).

        The parts that depend only on the move (and, inline, on the line's length and what it pushes)
        are cached.
        """
        w = self.weights
        cells = board.cells
        me = board.turn
        opp = 3 - me
        side = 0 if me == BLACK else 1
        # read only where the matching w_near_* below is set (so never while empty)
        near_last: list[int] = DISTANCE[_destination(history[-1])] if history else []
        near_mine: list[int] = DISTANCE[_destination(history[-2])] if len(history) >= 2 else []
        exposure = _exposure(cells, me, opp)
        own = [0] * _SIZE
        for sq in SQUARES:
            if cells[sq] == me:
                for st in STEPS:
                    own[sq + st] += 1
        cache = self._caches[0][side]
        inline = self._inline[side]
        w_near_last = self._near(F_NEAR_LAST, _destination(history[-1])) if history else None
        w_near_mine = self._near(F_NEAR_MINE, _destination(history[-2])) if len(history) >= 2 else None
        w_threat = (0, w[F_THREAT + 1], w[F_THREAT + 2])
        w_cohesion = self._cohesion
        steps = STEPS
        out: list[int] = []
        append = out.append
        for m in moves:
            step = steps[m.direction]
            if m.line < 0:
                rear = m.cell
                front = rear + step
                n = 1
                while cells[front] == me:
                    n += 1
                    front += step
                pushed = 0
                u = front
                while cells[u] == opp:
                    pushed += 1
                    u += step
                ejects = 1 if pushed and cells[u] == OFF else 0
                key = (rear * 6 + m.direction) * 18 + (n - 1) * 6 + pushed * 2 + ejects
                found = inline[key]
                if found is None:
                    found = self._static_score(m, side, n - 1, pushed, ejects, [rear], [front], front)
                    inline[key] = found
                score = found
                score += w_cohesion[n - 1][own[front] - (1 if n == 1 else 0) - own[rear] + 30]
                if w_near_last is not None:
                    score += w_near_last[front]
                if w_near_mine is not None:
                    score += w_near_mine[rear]
                threat = 0
                c = rear
                for _ in range(n):
                    level = exposure[c]
                    if level > threat:
                        threat = level
                    c += step
                append(score + w_threat[threat])
            else:
                group, dest, cross = _BROADSIDE_CELLS[m]
                kind = m.marbles + 1
                found = cache.get(m)
                if found is None:
                    found = self._static_score(m, side, kind, 0, 0, group, dest, dest[0])
                    cache[m] = found
                score = found
                cohesion = sum([own[d] for d in dest]) - sum([own[c] for c in group]) - cross + 2 * (m.marbles - 1)
                score += w_cohesion[kind][cohesion + 30]
                if w_near_last is not None:
                    score += w_near_last[min(dest, key=near_last.__getitem__)]
                if w_near_mine is not None:
                    score += w_near_mine[min(group, key=near_mine.__getitem__)]
                append(score + w_threat[max([exposure[c] for c in group])])
        return out

    def _static_score(self, m: Move, side: int, kind: int, pushed: int, ejects: int, vacated: list[int],
                      filled: list[int], front: int) -> int:
        """The weights of the features that depend on the move, the side, and the inline line only."""
        w = self.weights
        gain = sum(RING[c] for c in vacated) - sum(RING[c] for c in filled)
        score = w[F_KIND + (kind * 3 + pushed) * 2 + ejects]
        score += w[F_CENTRE + kind * 9 + max(-4, min(4, gain)) + 4]
        score += w[F_DIRECTION + (side * 6 + m.direction) * 5 + kind]
        score += w[F_EDGE + kind * 4 + sum(1 for c in filled if RING[c] == 4)]
        score += w[F_LEAVE_EDGE + kind * 4 + sum(1 for c in vacated if RING[c] == 4)]
        score += w[F_TO_CELL + side * 61 + CELL_NUMBER[front]]
        score += w[F_FROM_CELL + side * 61 + CELL_NUMBER[m.cell]]
        return score

    def _near(self, block: int, cell: int) -> list[int]:
        """The locality weight of every cell at its distance from ``cell``, built once per cell."""
        key = (block, cell)
        tables = self._caches[1]
        table = tables.get(key)
        if table is None:
            w = self.weights
            table = tables[key] = [w[block + min(5, d)] for d in DISTANCE[cell]]
        return table

    @property
    def _cohesion(self) -> list[list[int]]:
        """The cohesion weight of each kind and change in adjacent pairs (-30..30)."""
        return self.derived("cohesion", _cohesion_table)

    @property
    def _inline(self) -> tuple[list[int | None], list[int | None]]:
        """Each side's :meth:`_static_score` of each inline move, by ``(rear * 6 + direction) * 18 +
        (marbles - 1) * 6 + pushed * 2 + ejects``, filled as they are needed."""
        inline: tuple[list[int | None], list[int | None]] | None = self.cache.get("inline")
        if inline is None:
            empty: list[int | None] = [None] * (_SIZE * 6 * 18)
            inline = self.cache["inline"] = (empty, empty[:])
        return inline

    @property
    def _caches(self) -> tuple[tuple[dict[Any, int], dict[Any, int]], dict[Any, list[int]]]:
        """(each side's static move scores, the locality tables of :meth:`_near`), filled as they are needed."""
        caches: tuple[tuple[dict[Any, int], dict[Any, int]], dict[Any, list[int]]] | None = self.cache.get("scores")
        if caches is None:
            caches = self.cache["scores"] = (({}, {}), {})
        return caches


def _broadside_cells() -> dict[Move, tuple[list[int], list[int], int]]:
    """For every broadside move: its cells, their destinations, and the (cell, destination) pairs adjacent."""
    from plybits.abalone.board import ALL_MOVES

    table = {}
    for m in ALL_MOVES:
        if m.line < 0:
            continue
        group = [m.cell + k * STEPS[m.line] for k in range(m.marbles)]
        dest = [c + STEPS[m.direction] for c in group]
        cross = sum(1 for c in group for d in dest if _ADJACENT[_SIZE + d - c])
        table[m] = (group, dest, cross)
    return table


_BROADSIDE_CELLS = _broadside_cells()


class AbaloneRankScheme(RankScheme[Board, Move]):
    """Abalone moves range-coded by rank under a learned move model."""

    game: ClassVar[str] = "abalone"
    codec_id: ClassVar[int] = 0x22
    version: ClassVar[int] = 1
    readable_versions: ClassVar[tuple[int, ...]] = (0, 1)
    description: ClassVar[str] = (
        "each move's index among the legal moves (in abapro order), range-coded under a learned move model"
    )
    models = {
        0: UniformModel(canonical_moves),
        1: LinearAbaloneModel("rank_model_v1.json", 1, "log-linear move model learned from MiGs games (tools/train_abalone.py)"),
    }


MODEL = cast(LinearAbaloneModel, AbaloneRankScheme.models[1])
"""Model 1, whose scorer defines :func:`move_features`."""

RANK = AbaloneRankScheme()
