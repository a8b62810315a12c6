"""``abalone/rank`` (codec 0x22): each ply's index among the legal moves, range-coded under a learned model.

Canonical order: the legal moves sorted by their abapro word (SPEC §4): inline moves
``(0, cell number, direction)`` before broadsides ``(1, first end's cell number, line
direction, marbles, move direction)``, cells numbered a1 = 0 ... i9 = 60.

- Model 0: uniform over the legal moves.
- Model 1: log-linear over the features of :meth:`LinearAbaloneModel.scores` (kind of move and what
  it pushes or ejects, centre gain, cohesion, edge exposure, direction seen from the mover, distance
  to the opponent's last move and to one's own, the destination cells), integer weights learned by
  ``tools/train_abalone.py`` and shipped in ``rank_model_v1.json``.
- Model 2 (:mod:`plybits.abalone.rankmodel2`): more features, scored by this module's scorer under tables of its
  weights.
- Model 3 (:mod:`plybits.abalone.rankmodel3`): model 2 and an opening book.
- Model 4 (:mod:`plybits.abalone.rankmodel4`): model 3's features and book, every weight refitted.
- Model 5 (:mod:`plybits.abalone.rankmodel5`, what ``encode`` writes): model 3's features and book, and model 1's
  evaluation features by the marbles each side has lost.

Feature ids are part of model 1's format: never change them; a new feature set is a new model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, cast, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.abalone.board import (
    ALL_MOVES, BLACK, BROADSIDE_TABLE, CELL_NUMBER, EMPTY, GEOMETRY, INLINE_CODES, MARBLES_PER_SIDE, MOVE_OF, N_CODES,
    NEAR_COUNT_SHIFT, NEAR_OFF_SHIFT, SQUARES, STEPS, WHITE, WIN_EJECTED, Board, Move, legal_moves_into, move_code,
)
from plybits.errors import InvalidDataError
from plybits.mailbox import OFF
from plybits.packed import PACKED, int_array, int_list
from plybits.rangecoder import RangeDecoder, RangeEncoder
from plybits.rank import FeatureIds, LinearModel, RankScheme, decode_packed, encode_packed


def move_key(move: Move) -> tuple[int, ...]:
    """The canonical sort key of a move: its abapro fields."""
    if move.line < 0:
        return (0, CELL_NUMBER[move.cell], move.direction)
    return (1, CELL_NUMBER[move.cell], move.line, move.marbles, move.direction)


def canonical_moves(board: Board) -> list[Move]:
    """The legal moves of a position in canonical order (:func:`move_key`): generation order is cell, then
    direction or line, marbles and direction, so the inline moves in it followed by the broadsides are sorted."""
    moves: list[Move] = []
    broadside: list[Move] = []
    legal_moves_into(board, moves, broadside)
    moves.extend(broadside)
    return moves


# ---------------------------------------------------------------- model 1 features (frozen)

_SIZE: Final = GEOMETRY.size
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


_DISTANCE_LISTS = [[9] * _SIZE for _ in range(_SIZE)]
for _a in SQUARES:
    for _b in SQUARES:
        _DISTANCE_LISTS[_a][_b] = hex_distance(_a, _b)
DISTANCE: Final[list[vec[i64]]] = [int_array(row) for row in _DISTANCE_LISTS]
"""DISTANCE[a][b]: :func:`hex_distance` of two cells (9 off the board)."""
_ADJACENT = [False] * (2 * _SIZE)
for _s in STEPS:
    _ADJACENT[_SIZE + _s] = True
_STEP: Final = int_array(list(STEPS))
_ZEROS: Final = int_array([0] * _SIZE)
"""A zero for each cell. A copy (``_ZEROS[:]``, one memory copy compiled) starts a per-ply array by cell."""
_EMPTY_BITS: Final = 63
"""The bits of :func:`_neighbourhood`'s ``around`` for the empty neighbours of a marble, bit ``d`` in direction ``d``."""
_OWN_SHIFT: Final = 6
"""Where the bits of ``around`` for a marble's own neighbours start (bit ``6 + d``: one in direction ``d``)."""
_EXPOSURE_SHIFT: Final = 12
"""Where an own marble's exposure (0..2) starts in :func:`_neighbourhood`'s ``around``, above its neighbours' bits."""
_NEXT_BITS: Final = (1 << _EXPOSURE_SHIFT) - 1
"""The bits of ``around`` below :data:`_EXPOSURE_SHIFT`: the empty and own neighbours."""
_LOWEST_DIRECTION: Final = int_array([(bits & -bits).bit_length() - 1 for bits in range(64)])
"""By a set of directions (bit ``d``: direction ``d``), the lowest in it (-1: none)."""
_NO_PHASE_INLINE: Final = int_array([0] * (2 * INLINE_CODES * 3))
_NO_PHASE_BROADSIDE: Final = int_array([0] * N_CODES)
"""The phase weights of a model without phases (:attr:`_ScorerTables.phase_inline`, ``phase_broadside``)."""
_BROADSIDE_CODES: Final = int_array([-1] * (3 * _SIZE))
"""By ``cell * 3 + line``: the code of the two-marble broadside from first end ``cell`` along ``line`` in direction
0 (``+ 6``: three marbles; ``+ d``: direction d), or -1 where two marbles do not fit."""
for _sq in SQUARES:
    for _, _code, _line in BROADSIDE_TABLE[_sq]:
        _BROADSIDE_CODES[_sq * 3 + _line] = _code


_ids = FeatureIds()


F_KIND = _ids.block(5 * 3 * 2)  # kind (inline 1/2/3, broadside 2/3) x opponents pushed (0/1/2) x ejects
F_CENTRE = _ids.block(5 * 9)  # kind x centre gain of the moved marbles (-4..4)
F_DIRECTION = _ids.block(2 * 6 * 5)  # side x direction x kind
F_NEAR_LAST = _ids.block(6)  # distance from the opponent's last move's destination (0..4, 5+)
F_NEAR_MINE = _ids.block(6)  # distance from one's own last move's destination (0..4, 5+)
F_COHESION = _ids.block(5 * 13)  # kind x change in the number of adjacent own pairs (-6..6)
F_EDGE = _ids.block(5 * 4)  # kind x own marbles moved onto the edge ring (0..3)
F_LEAVE_EDGE = _ids.block(5 * 4)  # kind x own marbles moved off the edge ring (0..3)
F_TO_CELL = _ids.block(2 * 61)  # side x the front (inline) or first end's (broadside) destination cell
F_FROM_CELL = _ids.block(2 * 61)  # side x the rear (inline) or first end's (broadside) cell
F_THREAT = _ids.block(3)  # the moved group was exposed to a push (0 no, 1 pushable, 2 could be ejected)
N_FEATURES = _ids.count


ATTACK_STATES: Final = 5
"""What an inline move leaves in front of it, the states a model may weigh by kind (model 2's ``F_ATTACK``): 0 it
lands against an opposing line it cannot push (as long or longer, or backed by one's own marble), 1 one it could push
next, 2 one it could push off the board next; it pushed a line that 3 could be pushed on next, 4 off the board next.
A move that pushes a marble off, or lands against no opposing marble, has none."""


def _destination(move: Move) -> int:
    """A move's representative destination cell for locality features (board-independent)."""
    return move.cell + STEPS[move.direction]


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 1's active feature ids of each move in ``moves`` (legal here), as training fits them: read
    back from :meth:`LinearAbaloneModel.scores`, their one definition."""
    return MODEL.features(board, moves, history)


def _neighbourhood(cells: vec[i64], mine: vec[i64], theirs: vec[i64], me: i64, marbles: vec[i64],
                   around: vec[i64]) -> i64:
    """Of the board whose :attr:`~plybits.abalone.board.Board.grid` is ``cells``, whose
    :attr:`~plybits.abalone.board.Board.near` of ``me`` and of the opponent are ``mine`` and ``theirs`` and whose
    :attr:`~plybits.abalone.board.Board.marbles` of ``me`` is ``marbles``: set ``around`` of each of ``me``'s marbles
    to what is next to it, bit ``d`` an empty cell in direction ``d`` and bit ``6 + d`` an own marble
    (:data:`_EMPTY_BITS`, :data:`_OWN_SHIFT`), and from bit :data:`_EXPOSURE_SHIFT` how exposed it is to an opposing
    line that could push it now: 1 pushable, 2 pushable off the board (0: neither); return how many marbles ``me``
    has. ``around`` is a :class:`_Scratch`'s, kept from an earlier ply: the cells of ``me``'s marbles (all the scorer
    reads of it) are written here, which costs less than copying a zeroed template.

    The bits come from the board's ``near`` (kept by its push), which also counts each cell's own neighbours for the
    scorer. A push is found from the own marble it meets: where an own marble has an opposing one next to it, that one
    is the front of the opposing line that would push along the step back, so one pass over the own marbles' opposing
    neighbours finds each pushing line once, where a pass over the opposing marbles would walk each line from its
    rear. The locals are ``i64``, which compiled code adds and compares as plain machine ints (a plain ``int`` is
    tagged, checked at every operation)."""
    count: i64 = 0
    for sq in marbles:
        if sq < 0:
            break
        around[sq] = 0
        count += 1
    steps = _STEP
    lowest = _LOWEST_DIRECTION
    off: i64 = OFF
    opp: i64 = 3 - me
    for i in range(count):
        sq = marbles[i]
        own = mine[sq]
        facing = theirs[sq] & _EMPTY_BITS
        taken = (own | facing | own >> NEAR_OFF_SHIFT) & _EMPTY_BITS
        around[sq] |= (_EMPTY_BITS - taken) | (own & _EMPTY_BITS) << _OWN_SHIFT
        while facing != 0:  # each opposing neighbour: the front of an opposing line that would push back along -step
            d = lowest[facing]
            facing &= facing - 1
            step = steps[d]
            n: i64 = 1
            t = sq + step + step
            while cells[t] == opp and n < 4:
                n += 1
                t += step
            if n < 4:  # and the k own marbles from sq it would push, if fewer, not backed by an opposing one
                k: i64 = 0
                u = sq
                while cells[u] == me:
                    k += 1
                    u -= step
                if k < n and cells[u] != opp:
                    level: i64 = 2 if cells[u] == off else 1
                    for j in range(k):
                        c = sq - j * step
                        held = around[c]
                        if held >> _EXPOSURE_SHIFT < level:
                            around[c] = (held & _NEXT_BITS) + (level << _EXPOSURE_SHIFT)
    return count


def _cohesion_base() -> list[int]:
    """By move code, a broadside's fixed part of the cohesion index: 30 + 2 pairs a line of 2 keeps, 4 of 3, less
    its (cell, destination) pairs that are adjacent (0 for the inline moves)."""
    from plybits.abalone.board import BROADSIDE

    cohesion = [0] * N_CODES
    for m in BROADSIDE.values():
        group = [m.cell + k * STEPS[m.line] for k in range(m.marbles)]
        dest = [c + STEPS[m.direction] for c in group]
        cross = sum(1 for c in group for d in dest if _ADJACENT[_SIZE + d - c])
        cohesion[move_code(m)] = 30 - cross + 2 * (m.marbles - 1)
    return cohesion


_COHESION_BASE: Final = int_array(_cohesion_base())


def _static_score(w: list[int], direction: int, cell: int, side: int, kind: int, vacated: list[int],
                  filled: list[int], front: int) -> int:
    """The weights of the features that depend on the move, the side and the inline line's length only
    (all but ``F_KIND``, which also depends on what an inline move pushes)."""
    gain = sum(RING[c] for c in vacated) - sum(RING[c] for c in filled)
    score = w[F_CENTRE + kind * 9 + max(-4, min(4, gain)) + 4]
    score += w[F_DIRECTION + (side * 6 + direction) * 5 + kind]
    score += w[F_EDGE + kind * 4 + sum(1 for c in filled if RING[c] == 4)]
    score += w[F_LEAVE_EDGE + kind * 4 + sum(1 for c in vacated if RING[c] == 4)]
    score += w[F_TO_CELL + side * 61 + CELL_NUMBER[front]]
    score += w[F_FROM_CELL + side * 61 + CELL_NUMBER[cell]]
    return score


@final
class _ScorerTables:
    """What :meth:`LinearAbaloneModel.scores` derives from a weight vector (:func:`scorer_tables`), built once per
    model: the weights laid out by what the scorer indexes them with, as :func:`~plybits.packed.int_array`\\ s
    (compiled, a read is one load, where a list's item is an object to unbox)."""

    def __init__(self, push: vec[i64], inline: vec[i64], broadside: vec[i64], cohesion: vec[i64], threat: vec[i64],
                 near_last: vec[i64], near_mine: vec[i64], near_last_rows: list[vec[i64]],
                 near_mine_rows: list[vec[i64]]) -> None:
        self.push = push
        """By ``(kind * 3 + pushed) * 2 + ejects``: ``F_KIND`` less that of the kind's move that pushes nothing (which
        the inline weights hold)."""
        self.inline = inline
        """:func:`_static_score` plus ``F_KIND`` pushing nothing of the inline moves by ``(side * INLINE_CODES + code)
        * 3 + marbles - 1``."""
        self.broadside = broadside
        """:func:`_static_score` plus ``F_KIND`` of the broadsides by ``side * N_CODES + code``."""
        self.cohesion = cohesion
        """``F_COHESION`` by ``kind * 61 + change in adjacent own pairs + 30``."""
        self.threat = threat
        """``F_THREAT`` by threat level (0, the weight of no feature, 1, 2)."""
        self.near_last = near_last
        """``F_NEAR_LAST`` by distance (0..9)."""
        self.near_mine = near_mine
        """``F_NEAR_MINE`` by distance (0..9)."""
        self.near_last_rows = near_last_rows
        """``F_NEAR_LAST`` by the opponent's last destination and a cell (``near_last[DISTANCE[a][b]]``)."""
        self.near_mine_rows = near_mine_rows
        """``F_NEAR_MINE`` by one's own last destination and a cell."""
        self.nothing: vec[i64] = _ZEROS
        """The weights of no feature, by cell: the nearness row before there is a last move."""
        self.attack: vec[i64] = _ZEROS
        """By ``kind * 5 + state``, the weights of what an inline move (kind 0..2) leaves in front of it
        (:data:`ATTACK_STATES`); model 1 has none (:attr:`attacks` false)."""
        self.attacks = False
        """Whether the scorer adds :attr:`attack` (model 1 has no such feature: it reads nothing for it)."""
        self.phase_inline: vec[i64] = _NO_PHASE_INLINE
        """Weights added to the inline moves, laid out as :attr:`inline` (a model whose weights change with the phase of
        the game puts its phase's share of :attr:`inline` here, the same for both sides; zeros for the others)."""
        self.phase_broadside: vec[i64] = _NO_PHASE_BROADSIDE
        """Weights added to the broadsides whatever the side, by code (zeros but for a model with phases)."""

    def with_moves(self, inline: vec[i64], broadside: vec[i64]) -> _ScorerTables:
        """These tables with other :attr:`inline` and :attr:`broadside` weights (a model that adds weights by move
        and side shares the rest)."""
        return self._with(self.push, inline, broadside, self.cohesion, self.threat, self.phase_inline,
                          self.phase_broadside)

    def with_phase(self, phase: _ScorerTables) -> _ScorerTables:
        """These tables (their :attr:`inline`, :attr:`broadside`, nearness and attack weights) with ``phase``'s
        :attr:`push`, :attr:`cohesion`, :attr:`threat`, :attr:`phase_inline` and :attr:`phase_broadside`."""
        return self._with(phase.push, self.inline, self.broadside, phase.cohesion, phase.threat, phase.phase_inline,
                          phase.phase_broadside)

    def _with(
        self, push: vec[i64], inline: vec[i64], broadside: vec[i64], cohesion: vec[i64], threat: vec[i64],
        phase_inline: vec[i64], phase_broadside: vec[i64],
    ) -> _ScorerTables:
        """These tables' nearness and attack weights with the others given."""
        tables = _ScorerTables(push, inline, broadside, cohesion, threat, self.near_last, self.near_mine,
                               self.near_last_rows, self.near_mine_rows)
        tables.attack = self.attack
        tables.attacks = self.attacks
        tables.phase_inline = phase_inline
        tables.phase_broadside = phase_broadside
        return tables


def scorer_tables(w: list[int]) -> _ScorerTables:
    """The :class:`_ScorerTables` of model 1's weights ``w``."""
    on = GEOMETRY.on_board
    kinds = w[F_KIND : F_KIND + 30]
    inline = [0] * (2 * INLINE_CODES * 3)
    for side in (0, 1):
        for sq in SQUARES:
            for d in range(6):
                step = STEPS[d]
                for n in (1, 2, 3):
                    if not all(on[sq + k * step] for k in range(1, n + 1)):
                        break
                    front = sq + n * step
                    inline[(side * INLINE_CODES + sq * 6 + d) * 3 + n - 1] = kinds[(n - 1) * 6] + _static_score(
                        w, d, sq, side, n - 1, [sq], [front], front
                    )
    broadside = [0] * (2 * N_CODES)
    for side in (0, 1):
        for m in ALL_MOVES:
            if m.line >= 0:
                group = [m.cell + k * STEPS[m.line] for k in range(m.marbles)]
                dest = [c + STEPS[m.direction] for c in group]
                kind = m.marbles + 1
                broadside[side * N_CODES + move_code(m)] = w[F_KIND + kind * 3 * 2] + _static_score(
                    w, m.direction, m.cell, side, kind, group, dest, dest[0]
                )
    near_last = [w[F_NEAR_LAST + min(5, d)] for d in range(10)]
    near_mine = [w[F_NEAR_MINE + min(5, d)] for d in range(10)]
    return _ScorerTables(
        int_array([kinds[i] - kinds[i // 6 * 6] for i in range(30)]),
        int_array(inline),
        int_array(broadside),
        int_array([w[F_COHESION + kind * 13 + max(-6, min(6, c)) + 6] for kind in range(5) for c in range(-30, 31)]),
        int_array([0, w[F_THREAT + 1], w[F_THREAT + 2]]),
        int_array(near_last),
        int_array(near_mine),
        [int_array([near_last[d] for d in row]) for row in DISTANCE],
        [int_array([near_mine[d] for d in row]) for row in DISTANCE],
    )


class LinearAbaloneModel(LinearModel):
    """Model 1: log-linear with the shipped integer weights; :meth:`scores` defines the features. A later model
    subclasses it with its feature count and definition and overrides :meth:`coded`."""

    def __init__(self, filename: str, version: int, description: str = "", n_features: int = N_FEATURES,
                 features: Callable[[Board, Sequence[Move], Sequence[Move]], list[list[int]]] | None = None) -> None:
        super().__init__(filename, version, description, package="plybits.abalone", n_features=n_features,
                         canonical=canonical_moves, features=features, packed_weights=PACKED)
        self._tables: _ScorerTables | None = None

    def tables(self) -> _ScorerTables:
        """The weights laid out for :func:`scored_codes`, made on first use."""
        tables = self._tables
        if tables is None:
            tables = self._tables = self.derived("tables", scorer_tables)
        return tables

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], int, vec[i64]]:
        """:func:`scored_codes` under this model: what :meth:`encode_ply` and :meth:`decode_ply` code with, no move
        listed."""
        return scored_codes(self.tables(), position, history)

    def scored(self, position: Board, history: Sequence[Move]) -> tuple[list[Move], list[int] | None]:
        moves, scores = self.packed_scored(position, history)
        if not moves:
            return moves, None
        return moves, int_list(scores)

    def packed_scored(self, position: Board, history: Sequence[Move]) -> tuple[list[Move], vec[i64]]:
        """:meth:`scored`, the scores as the scorer writes them (an :func:`~plybits.packed.int_array`)."""
        codes, n, scores = self.coded(position, history)
        move_of = MOVE_OF
        moves: list[Move] = []
        for i in range(n):
            moves.append(move_of[codes[i]])
        return moves, scores

    def encode_ply(self, encoder: RangeEncoder, position: Board, move: Move, history: Sequence[Move]) -> None:
        codes, n, scores = self.coded(position, history)
        encode_packed(encoder, scores, _index_of_code(codes, n, move))

    def decode_ply(self, decoder: RangeDecoder, position: Board, history: Sequence[Move]) -> Move:
        codes, n, scores = self.coded(position, history)
        if n == 0:
            raise InvalidDataError("a move is coded but the position has no legal move")
        return MOVE_OF[codes[decode_packed(decoder, scores)]]

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

        :raises ValueError: if a move is not legal here, or the board's grid is out of step with its cells (written
            by hand without :meth:`~plybits.abalone.board.Board.sync_grid`), which the scorer reads.
        """
        grid = board.grid
        if cast(object, grid) is not board.cells and int_list(grid) != board.cells:  # pure Python: mostly the same list
            raise ValueError(f"the grid of {board!r} is out of step with its cells: call sync_grid() after writing them")
        codes, n, scores = self.coded(board, history)
        by_code = {codes[i]: scores[i] for i in range(n)}
        out: list[int] = []
        for move in moves:
            score = by_code.get(move_code(move))
            if score is None:
                raise ValueError(f"{move!r} is not a legal move of {board!r}")
            out.append(score)
        return out


def _index_of_code(codes: vec[i64], n: i64, move: Move) -> i64:
    """Where ``move``'s code is among the first ``n`` of ``codes``.

    :raises ValueError: if it is not there (not a legal move).
    """
    slot = code_slot(codes, n, move_code(move))
    if slot < 0:
        raise ValueError(f"{move!r} is not a legal move here")
    return slot


def code_slot(codes: vec[i64], n: i64, code: i64) -> i64:
    """Where ``code`` is among the first ``n`` of ``codes`` (ascending: the scorer lists the moves in canonical
    order, which is their codes' order), -1 if not there: a bisection."""
    low: i64 = 0
    high: i64 = n
    while low < high:
        middle = (low + high) >> 1
        found = codes[middle]
        if found == code:
            return middle
        if found < code:
            low = middle + 1
        else:
            high = middle
    return -1


MOVES_PER_MARBLE: Final = 30
"""At most the legal moves a marble is the rear (inline: 6 directions) or first end (broadside: 3 lines of 2 and
of 3 marbles, 4 directions each) of: room enough for every move of a position is this many a marble."""
_ROOM: Final = int_array([0] * (2 * MOVES_PER_MARBLE * MARBLES_PER_SIDE))
"""Room for the codes and the scores of the moves of 14 marbles (a board set up by hand may hold more:
:func:`scored_codes` makes more room for it)."""
_NO_MOVES: Final = int_array([])


@final
class _Scratch:
    """The arrays :func:`scored_codes` works in, kept between plies (:data:`_SPARES`) rather than copied from templates
    each ply: what is next to each own marble (:func:`_neighbourhood`), and room for the codes (first half) and scores
    (second) of the moves of 14 marbles. What a ply reads of them it wrote."""

    def __init__(self) -> None:
        self.around: vec[i64] = _ZEROS[:]
        self.room: vec[i64] = _ROOM[:]


_SPARES: Final[list[_Scratch]] = [_Scratch() for _ in range(4)]
"""The :class:`_Scratch` arrays no ply is using: a ply takes one (pops it) and gives it back once its codes and
scores are copied out, so no two plies write into one (a thread that finds none makes its own). It starts with four,
so that a ply's pop and append leave it between three and four long: CPython frees a list's item array when it is
emptied and reallocates it when one is appended again, which cost each ply about as much as its two slices."""


def scored_codes(tables: _ScorerTables, board: Board, history: Sequence[Move]) -> tuple[vec[i64], int, vec[i64]]:
    """The codes (:func:`~plybits.abalone.board.move_code`) of the legal moves of ``board`` in canonical order
    (:func:`canonical_moves`), how many, and their :meth:`LinearAbaloneModel.scores` under the model whose
    ``tables`` these are (``n`` of them): :func:`scored_codes_after` of the last two moves of ``history``."""
    played = len(history)
    last = _destination(history[played - 1]) if played >= 1 else -1
    mine = _destination(history[played - 2]) if played >= 2 else -1
    return scored_codes_after(tables, board, last, mine)


def scored_codes_after(tables: _ScorerTables, board: Board, last: i64, mine: i64) -> tuple[vec[i64], int, vec[i64]]:
    """:func:`scored_codes` of a position whose opponent's last move and one's own before it went to ``last`` and
    ``mine`` (:func:`_destination`; -1: no such move), in one pass over the marbles for the inline moves and one for
    the broadsides: each move is scored where it is found legal, from what finding it read (its line's length, what
    it pushes); what a group's moves share is read once for the group, into a :class:`_Scratch` taken from
    :data:`_SPARES`; both arrays returned are new (copied out of its room).

    The parts that depend only on the move and side (and, inline, on the line's length) come from the tables. A
    module function, so that compiled callers call it directly. The cells, the per-ply arrays and the tables are
    :func:`int_array` arrays and the locals ``i64`` (see :func:`_neighbourhood`): compiled, the model's
    ``packed_weights`` has :meth:`~plybits.rank.LinearModel.features` read the features back in passes whose
    weights fit in them."""
    ejected = board.ejected
    if ejected[BLACK] >= WIN_EJECTED or ejected[WHITE] >= WIN_EJECTED:  # compiled, two look-ups cost less than a walk
        return _NO_MOVES, 0, _NO_MOVES
    me: i64 = board.turn
    side: i64 = 0 if me == BLACK else 1
    # the distances from the opponent's and one's own last destinations, and their weights, by cell (a broadside
    # weighs its least distance; the rows are read only when there is such a move)
    has_last = last >= 0
    has_mine = mine >= 0
    if not has_last:
        last = 0
    if not has_mine:
        mine = 0
    last_weight = tables.near_last_rows[last] if has_last else tables.nothing
    mine_weight = tables.near_mine_rows[mine] if has_mine else tables.nothing
    try:
        scratch = _SPARES.pop()
    except IndexError:  # the first ply, or other threads hold the spares
        scratch = _Scratch()
    cells = board.grid
    near = board.near[me]
    marbles = board.marbles[me]
    around = scratch.around
    count = _neighbourhood(cells, near, board.near[3 - me], me, marbles, around)
    codes = scratch.room if count <= MARBLES_PER_SIDE else int_array([0] * (2 * MOVES_PER_MARBLE * count))
    room: i64 = len(codes) // 2
    n = _add_inline_moves(codes, room, tables, marbles, cells, near, around, me, side * INLINE_CODES * 3, last_weight,
                          mine_weight)
    n = _add_broadsides(codes, room, n, tables, marbles, near, around, side * N_CODES, DISTANCE[last],
                        DISTANCE[mine], has_last, tables.near_mine if has_mine else tables.nothing)
    scores = codes[room:room + n]
    listed = codes[:n]
    _SPARES.append(scratch)
    return listed, n, scores


def _add_inline_moves(
    codes: vec[i64], room: i64, tables: _ScorerTables, marbles: vec[i64], cells: vec[i64], mine: vec[i64],
    around: vec[i64], me: i64, inline_base: i64, last_weight: vec[i64], mine_weight: vec[i64],
) -> i64:
    """Write into ``codes`` from 0 (their scores from ``room``) the inline moves of :func:`scored_codes` (of ``me``: its
    marbles, their neighbours' bits and exposure from :func:`_neighbourhood`; ``mine``: the board's ``near`` of ``me``)
    by rear marble and direction, and return how many; ``inline_base``: the side's row of the inline weights;
    ``last_weight``, ``mine_weight``: the nearness weights by cell. A direction whose neighbour's bits say neither empty
    nor own (an opposing marble, or off the board) is passed over, and one that says empty is a lone marble's step."""
    w_push = tables.push
    w_inline = tables.inline
    w_cohesion = tables.cohesion
    w_threat = tables.threat
    w_attack = tables.attack
    attacks = tables.attacks
    w_phase = tables.phase_inline
    opp: i64 = 3 - me
    off: i64 = OFF
    empty: i64 = EMPTY
    steps = _STEP
    lowest = _LOWEST_DIRECTION
    count: i64 = 0
    for sq in marbles:
        if sq < 0:
            break
        next_to = around[sq]
        rear_own = mine[sq] >> NEAR_COUNT_SHIFT
        # the cohesion index less the own neighbours of the front's cell: 30 - the rear's, and - 1 for a lone marble
        # (its front cell counts it, which leaves); a line's from its kind's row
        lone_row = 29 - rear_own
        line_row = 30 - rear_own
        rear_threat = next_to >> _EXPOSURE_SHIFT
        rear_weight = mine_weight[sq]
        row = inline_base + sq * 18
        # the directions to an empty cell or an own marble (a lone marble pushes nothing; off the board is suicide)
        directions = (next_to | next_to >> _OWN_SHIFT) & _EMPTY_BITS
        while directions != 0:
            direction = lowest[directions]
            directions &= directions - 1
            step = steps[direction]
            t = sq + step
            if (next_to >> direction) & 1:  # a lone marble's step into an empty cell: kind 0, pushes nothing
                at = row + direction * 3
                score = w_inline[at] + w_phase[at] + w_cohesion[lone_row + (mine[t] >> NEAR_COUNT_SHIFT)] + \
                    last_weight[t] + rear_weight
                if rear_threat:
                    score += w_threat[rear_threat]
                if attacks and cells[t + step] == opp:  # against an opposing line, which one marble never pushes
                    score += w_attack[0]
                codes[count] = sq * 6 + direction
                codes[room + count] = score
                count += 1
                continue
            c = me
            n: i64 = 1
            threat = rear_threat
            while c == me:
                level = around[t] >> _EXPOSURE_SHIFT
                if level > threat:
                    threat = level
                n += 1
                t += step
                c = cells[t]
            if n > 3 or c == off:
                continue  # four in a row cannot move; nor a line onto the edge
            kind = n - 1
            at = row + direction * 3 + kind
            score = w_inline[at] + w_phase[at]
            if c == opp:
                pushed: i64 = 0
                u = t
                while c == opp:
                    pushed += 1
                    u += step
                    c = cells[u]
                if pushed >= n or c == me:
                    continue  # sumito needs more; a push blocked by one's own marble
                score += w_push[(kind * 3 + pushed) * 2 + (1 if c == off else 0)]
                if attacks and c != off:  # the pushed line, one cell on: pushable on next, or off the board
                    beyond = cells[u + step]
                    if beyond == empty:
                        score += w_attack[kind * 5 + 3]
                    elif beyond == off:
                        score += w_attack[kind * 5 + 4]
            elif attacks and cells[t + step] == opp:  # lands against an opposing line: a push threat or not
                u = t + step
                facing: i64 = 0
                while cells[u] == opp:
                    facing += 1
                    u += step
                beyond = cells[u]
                score += w_attack[kind * 5 + (0 if facing >= n or beyond == me else (2 if beyond == off else 1))]
            score += w_cohesion[kind * 61 + line_row + (mine[t] >> NEAR_COUNT_SHIFT)]  # a line: n >= 2
            score += last_weight[t] + rear_weight
            if threat:  # no weight read for the common no threat (w_threat[0] is 0)
                score += w_threat[threat]
            codes[count] = sq * 6 + direction
            codes[room + count] = score
            count += 1
    return count


def _add_broadsides(
    codes: vec[i64], room: i64, count: i64, tables: _ScorerTables, marbles: vec[i64], mine: vec[i64],
    around: vec[i64], broadside_base: i64, last_dist: vec[i64], mine_dist: vec[i64],
    has_last: bool, w_near_mine: vec[i64],
) -> i64:
    """Write into ``codes`` from ``count`` (their scores from ``room + count``) the broadsides of :func:`scored_codes`,
    after every inline move, and return how many moves there are then: 2 or 3 marbles from first end ``sq`` in a line
    along ``lstep``, each moving by ``s``; by first end, line, marbles and direction. ``last_dist``, ``mine_dist``: the
    distances from the opponent's and this side's last destinations by cell (``has_last``, ``has_mine``: whether
    there are such moves); ``w_near_mine``: the weights of the nearness to one's own (zeros if none). A group moves
    where its marbles' ``around`` bits share an empty neighbour, lowest first."""
    w_broadside = tables.broadside
    w_phase = tables.phase_broadside
    w_cohesion = tables.cohesion
    w_threat = tables.threat
    w_near_last = tables.near_last
    steps = _STEP
    lowest = _LOWEST_DIRECTION
    broadside_codes = _BROADSIDE_CODES
    cohesion_base = _COHESION_BASE
    for sq in marbles:
        if sq < 0:
            break
        next_to = around[sq]
        if next_to & _EMPTY_BITS == 0:
            continue  # a first end moves into an empty cell
        lines = (next_to >> _OWN_SHIFT) & 7  # the line directions (0..2) with an own marble next along them
        while lines != 0:
            line = lowest[lines]
            lines &= lines - 1
            lstep = steps[line]
            a = sq + lstep
            along = around[a]
            free = next_to & along & _EMPTY_BITS
            if free == 0:
                continue
            code = broadside_codes[sq * 3 + line]
            threat = next_to >> _EXPOSURE_SHIFT
            group_change = -(mine[sq] >> NEAR_COUNT_SHIFT) - (mine[a] >> NEAR_COUNT_SHIFT)
            level = along >> _EXPOSURE_SHIFT
            if level > threat:
                threat = level
            near_mine = mine_dist[sq]
            closer = mine_dist[a]
            if closer < near_mine:
                near_mine = closer
            group_weight = w_threat[threat] + w_near_mine[near_mine]
            directions = free
            while directions != 0:
                d = lowest[directions]
                directions &= directions - 1
                s = steps[d]
                e = sq + s
                f = a + s
                dest_near = last_dist[e]
                closer = last_dist[f]
                if closer < dest_near:
                    dest_near = closer
                wide = code + d
                score = w_broadside[broadside_base + wide] + w_phase[wide] + group_weight + w_cohesion[
                    3 * 61 + group_change + (mine[e] >> NEAR_COUNT_SHIFT)
                    + (mine[f] >> NEAR_COUNT_SHIFT) + cohesion_base[wide]]
                if has_last:
                    score += w_near_last[dest_near]
                codes[count] = wide
                codes[room + count] = score
                count += 1
            if (along >> (_OWN_SHIFT + line)) & 1 == 0:
                continue  # a line of three moves sideways only where its first two marbles can
            b = a + lstep
            third = around[b]
            free &= third
            if free == 0:
                continue
            group_change -= mine[b] >> NEAR_COUNT_SHIFT  # the line of three: the line of two's, and its third's
            level = third >> _EXPOSURE_SHIFT
            closer = mine_dist[b]
            group_weight = w_threat[level if level > threat else threat] + w_near_mine[
                closer if closer < near_mine else near_mine]
            while free != 0:
                d = lowest[free]
                free &= free - 1
                s = steps[d]
                e = sq + s
                f = a + s
                g = b + s
                wide = code + 6 + d
                score = w_broadside[broadside_base + wide] + w_phase[wide] + group_weight + w_cohesion[
                    4 * 61 + group_change + (mine[e] >> NEAR_COUNT_SHIFT)
                    + (mine[f] >> NEAR_COUNT_SHIFT) + (mine[g] >> NEAR_COUNT_SHIFT)
                    + cohesion_base[wide]]
                if has_last:
                    score += w_near_last[_least(last_dist, e, f, g)]
                codes[count] = wide
                codes[room + count] = score
                count += 1
    return count


def _least(values: vec[i64], a: i64, b: i64, c: i64) -> i64:
    """The least of ``values`` at ``a``, ``b`` and ``c``."""
    least = values[a]
    other = values[b]
    if other < least:
        least = other
    other = values[c]
    if other < least:
        least = other
    return least


MODEL: Final = LinearAbaloneModel(
    "rank_model_v1.json", 1, "log-linear move model learned from MiGs games (tools/train_abalone.py)"
)
"""Model 1, whose scorer defines :func:`move_features`."""

from plybits.abalone.rankmodel2 import MODEL_2  # noqa: E402  (model 2 subclasses model 1 above)
from plybits.abalone.rankmodel3 import MODEL_3  # noqa: E402  (model 3 too)
from plybits.abalone.rankmodel4 import MODEL_4  # noqa: E402  (model 3's scorer, refitted weights)
from plybits.abalone.rankmodel5 import MODEL_5  # noqa: E402  (model 3's features by phase)

RANK: Final = RankScheme(
    "abalone", 0x22, "each move's index among the legal moves (in abapro order), range-coded under a learned move model",
    canonical_moves, MODEL, MODEL_2, MODEL_3, MODEL_4, MODEL_5,
)
"""Abalone moves range-coded by rank under a learned move model."""
