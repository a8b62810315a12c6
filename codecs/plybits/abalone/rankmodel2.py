"""``abalone/rank`` model 2: model 1's features under new weights, plus a prior on each move by side, the
destination cell by kind, the direction relative to each side's last move, repeated moves, and what an inline move
leaves in front of it (a push threat made, a pushed line left open to the next push).

Model 2 scores a position with model 1's scorer (:func:`plybits.abalone.rank.scored_codes`) under tables built from
model 2's weights: the features of the move and side alone (:data:`F_MOVE`, :data:`F_TO_KIND`) are added to its
tables by move once, and the turn features (:data:`F_OWN_TURN`, :data:`F_OPP_TURN`) to copies of those by the last
two moves' directions (made when a ply first needs them, a pass over the two tables), so none costs anything a
move; :data:`F_ATTACK` is read by the scorer as it finds an inline move, and :data:`F_REPEAT` added to the at most
two moves it concerns. :func:`move_features` is their plain definition, which training reads and a test holds the
scorer to.

Feature ids are part of model 2's format: never change them; a new feature set is a new model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.abalone.board import (
    ALL_MOVES, BLACK, CELL_NUMBER, EMPTY, INLINE_CODES, MOVE_OF, N_CODES, STEPS, Board, Move, move_code,
)
from plybits.abalone.rank import (
    ATTACK_STATES, MODEL as MODEL_1, LinearAbaloneModel, _ScorerTables, _destination, code_slot, scored_codes_after,
    scorer_tables,
)
from plybits.mailbox import OFF
from plybits.packed import PACKED, int_array
from plybits.rank import FeatureIds, LinearModel

N_MODEL_1_FEATURES: Final = 499
"""Model 1's feature count (:data:`plybits.abalone.rank.N_FEATURES`, frozen with its format; a test holds them equal)."""

_ids = FeatureIds()
F_MODEL_1: Final = _ids.block(N_MODEL_1_FEATURES)
"""Model 1's features (:mod:`plybits.abalone.rank`), the same ids."""
F_MOVE: Final = _ids.block(2 * len(ALL_MOVES))
"""Side x the move (its index in :data:`~plybits.abalone.board.ALL_MOVES`)."""
F_TO_KIND: Final = _ids.block(2 * 5 * 61)
"""Side x kind (inline 1/2/3, broadside 2/3) x the front (inline) or first end's (broadside) destination cell."""
F_OWN_TURN: Final = _ids.block(7 * 3)
"""The direction's turn from one's own last move's (0..5, 6 no such move) x class (inline, broadside 2/3)."""
F_OPP_TURN: Final = _ids.block(7 * 3)
"""The direction's turn from the opponent's last move's (0..5, 6 no such move) x class."""
F_REPEAT: Final = _ids.block(2)
"""The move is one's own last move again (0), or the one before it (1)."""
F_ATTACK: Final = _ids.block(3 * ATTACK_STATES)
"""Inline kind (1/2/3 marbles) x what the move leaves in front of it (:data:`plybits.abalone.rank.ATTACK_STATES`)."""
N_FEATURES: Final = _ids.count

_MOVE_INDEX = [-1] * N_CODES
for _i, _m in enumerate(ALL_MOVES):
    _MOVE_INDEX[move_code(_m)] = _i
MOVE_INDEX: Final = int_array(_MOVE_INDEX)
"""By move code: the move's index in :data:`~plybits.abalone.board.ALL_MOVES` (-1: no move of the board)."""


def _turn(history: Sequence[Move], back: int) -> int:
    """The direction of the move ``back`` plies ago (1: the opponent's last, 2: one's own), 6 if none."""
    return history[len(history) - back].direction if len(history) >= back else 6


def _code_back(history: Sequence[Move], back: int) -> int:
    """The code of the move ``back`` plies ago, -1 if none."""
    return move_code(history[len(history) - back]) if len(history) >= back else -1


def _turn_of(direction: int, last: int) -> int:
    """``direction``'s turn from ``last`` (0..5), 6 if ``last`` is 6 (no such move)."""
    return 6 if last == 6 else (direction - last) % 6


_DIGIT: Final = 16
_COUNTS: Final = _DIGIT * 12
"""The bit where the counts of :func:`_reader_weights` start: past 16 bits for each of model 1's 11 blocks (and one)."""
_READERS: list[LinearModel] = []
"""Model 1's scorer under :func:`_reader_weights`, made on first use (pure build only)."""


def _model_1_blocks() -> list[int]:
    """The first id of each of model 1's feature blocks, then its feature count: a move has at most one feature
    a block."""
    from plybits.abalone import rank as r1

    return [r1.F_KIND, r1.F_CENTRE, r1.F_DIRECTION, r1.F_NEAR_LAST, r1.F_NEAR_MINE, r1.F_COHESION, r1.F_EDGE,
            r1.F_LEAVE_EDGE, r1.F_TO_CELL, r1.F_FROM_CELL, r1.F_THREAT, r1.N_FEATURES]


def _reader_weights() -> list[int]:
    """Weights under which model 1's score spells out its features by block: feature ``first + j`` of block ``b``
    weighs ``(j + 1) << 16b`` (the feature) plus ``1 << (16 * 12 + 8b)`` (a count, which must stay 0 or 1)."""
    blocks = _model_1_blocks()
    weights = [0] * N_MODEL_1_FEATURES
    for b in range(len(blocks) - 1):
        for j in range(blocks[b + 1] - blocks[b]):
            weights[blocks[b] + j] = ((j + 1) << (_DIGIT * b)) + (1 << (_COUNTS + 8 * b))
    return weights


def _model_1_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """:meth:`~plybits.rank.LinearModel.features` of model 1 (ascending ids), read back from its scorer. The pure
    build (what training runs) scores once under :func:`_reader_weights`, integers of a few hundred bits; the
    compiled build, whose scorer holds 64-bit integers, reads them back in model 1's passes.

    :raises ValueError: if a move has two features of one block (the blocks are one-hot: never so).
    """
    if PACKED:
        return MODEL_1.features(board, moves, history)
    if not _READERS:
        reader = LinearAbaloneModel(MODEL_1.filename, MODEL_1.version, MODEL_1.description)
        reader._weights = _reader_weights()
        _READERS.append(reader)
    blocks = _model_1_blocks()
    out: list[list[int]] = []
    for score in _READERS[0].scores(board, moves, history):
        feats: list[int] = []
        for b in range(len(blocks) - 1):
            count = (score >> (_COUNTS + 8 * b)) & 255
            if count > 1:
                raise ValueError(f"a move of {board!r} has {count} features of model 1's block {b}")
            if count:
                feats.append(blocks[b] + ((score >> (_DIGIT * b)) & 0xFFFF) - 1)
        out.append(feats)
    return out


def attack_state(cells: list[int], move: Move, me: int) -> int:
    """What the inline ``move`` of ``me`` (legal on ``cells``) leaves in front of it, the state of
    :data:`~plybits.abalone.rank.ATTACK_STATES`, or -1 for none: the plain definition of ``F_ATTACK``."""
    opp = 3 - me
    step = STEPS[move.direction]
    n = 1
    front = move.cell + step
    while cells[front] == me:
        n += 1
        front += step
    if cells[front] == opp:  # a push: where its pushed line ends up, and what is past that
        end = front
        while cells[end] == opp:
            end += step
        if cells[end] == OFF:
            return -1  # a marble pushed off
        past = cells[end + step]
        return 3 if past == EMPTY else 4 if past == OFF else -1
    ahead = front + step
    facing = 0
    while cells[ahead] == opp:
        facing += 1
        ahead += step
    if facing == 0:
        return -1
    if facing >= n or cells[ahead] == me:
        return 0
    return 2 if cells[ahead] == OFF else 1


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 2's active feature ids of each move in ``moves`` (legal here): model 1's (read back from its scorer)
    and, with ``side`` the mover's (0 black), ``kind`` 0-2 inline of 1-3 marbles, 3-4 broadside of 2-3:

    - ``F_MOVE`` by side and move; ``F_TO_KIND`` by side, kind and the front marble's (inline) or first end's
      (broadside) destination cell;
    - ``F_OWN_TURN``/``F_OPP_TURN``: the move's direction minus that of one's own / the opponent's last move
      (mod 6; 6 if there is none) by class (inline, broadside of 2, of 3);
    - ``F_REPEAT``: the move is the mover's last move again, or the one before it;
    - ``F_ATTACK`` (inline moves): by kind, :func:`attack_state`.
    """
    cells = board.cells
    me = board.turn
    side = 0 if me == BLACK else 1
    own_turn = _turn(history, 2)
    opp_turn = _turn(history, 1)
    again = _code_back(history, 2)
    again_before = _code_back(history, 4)
    out: list[list[int]] = []
    for feats, move in zip(_model_1_features(board, moves, history), moves):
        code = move_code(move)
        step = STEPS[move.direction]
        attack = -1
        if move.line < 0:
            front = move.cell + step
            kind = 0
            while cells[front] == me:
                kind += 1
                front += step
            klass = 0
            attack = attack_state(cells, move, me)
        else:
            front = move.cell + step
            kind = move.marbles + 1
            klass = move.marbles - 1
        feats = [F_MODEL_1 + f for f in feats]
        feats.append(F_MOVE + side * len(ALL_MOVES) + MOVE_INDEX[code])
        feats.append(F_TO_KIND + (side * 5 + kind) * 61 + CELL_NUMBER[front])
        feats.append(F_OWN_TURN + _turn_of(move.direction, own_turn) * 3 + klass)
        feats.append(F_OPP_TURN + _turn_of(move.direction, opp_turn) * 3 + klass)
        if code == again:
            feats.append(F_REPEAT)
        if code == again_before:
            feats.append(F_REPEAT + 1)
        if attack >= 0:
            feats.append(F_ATTACK + kind * ATTACK_STATES + attack)
        out.append(feats)
    return out


_INLINE_DIRECTION: Final = int_array([(i // 3) % 6 * 3 for i in range(2 * INLINE_CODES * 3)])
"""By index of :attr:`_ScorerTables.inline`: the move's ``direction * 3`` (its turn weights' row, class 0)."""
_BROADSIDE_TURN: Final = int_array([
    -1 if code < INLINE_CODES else (code - INLINE_CODES) % 6 * 3 + 1 + (code - INLINE_CODES) // 6 % 2
    for _ in (0, 1) for code in range(N_CODES)
])
"""By index of :attr:`_ScorerTables.broadside`: the move's ``direction * 3 + class`` (broadside of 2: 1, of 3: 2),
-1 for an inline code (no entry)."""


def _base_tables(w: list[int]) -> _ScorerTables:
    """Model 1's scorer tables of model 2's model 1 weights, ``F_MOVE`` and ``F_TO_KIND`` added to the tables by move
    and ``F_ATTACK`` in :attr:`~_ScorerTables.attack`; no turn weight yet."""
    base = scorer_tables(w[F_MODEL_1 : F_MODEL_1 + N_MODEL_1_FEATURES])
    inline = list(base.inline)
    broadside = list(base.broadside)
    n_moves = len(ALL_MOVES)
    for side in (0, 1):
        for m in ALL_MOVES:
            code = move_code(m)
            prior = w[F_MOVE + side * n_moves + MOVE_INDEX[code]]
            step = STEPS[m.direction]
            if m.line < 0:  # by the line's length n: its front marble lands n steps on
                for n in (1, 2, 3):
                    front = m.cell + n * step
                    if front not in CELL_NUMBER:
                        break
                    inline[(side * INLINE_CODES + code) * 3 + n - 1] += prior + w[
                        F_TO_KIND + (side * 5 + n - 1) * 61 + CELL_NUMBER[front]]
            else:
                kind = m.marbles + 1
                broadside[side * N_CODES + code] += prior + w[
                    F_TO_KIND + (side * 5 + kind) * 61 + CELL_NUMBER[m.cell + step]]
    tables = base.with_moves(int_array(inline), int_array(broadside))
    tables.attack = int_array(w[F_ATTACK : F_ATTACK + 3 * ATTACK_STATES])
    tables.attacks = True
    return tables


@final
class _Model2Tables:
    """What :meth:`LinearAbaloneModel2.coded` derives from model 2's weights: the scorer tables without the turn
    weights (:func:`_base_tables`), those with them by the last two moves' directions (made when a ply first needs
    them), and the repeat weights."""

    def __init__(self, w: list[int]) -> None:
        self.base = _base_tables(w)
        self.own_turn = w[F_OWN_TURN : F_OWN_TURN + 21]
        """``F_OWN_TURN`` by ``turn * 3 + class``."""
        self.opp_turn = w[F_OPP_TURN : F_OPP_TURN + 21]
        """``F_OPP_TURN`` by ``turn * 3 + class``."""
        self.by_turns: list[_ScorerTables | None] = [None] * 49
        """The tables with the turn weights by ``own * 7 + opp`` (last directions, 6: no such move)."""
        self.repeat: i64 = w[F_REPEAT]
        self.repeat_before: i64 = w[F_REPEAT + 1]
        self.by_phase: list[_ScorerTables | None] = []
        """The tables of :meth:`phased` by ``phase * 49 + own * 7 + opp`` (a list of 49 a phase once one is asked for:
        an index costs less than a dict's look-up of a boxed key)."""

    def tables(self, own: i64, opp: i64) -> _ScorerTables:
        """The scorer tables of the plies whose own and opponent's last moves went in directions ``own`` and
        ``opp`` (6: none): the base tables with each move's turn weights added, made once (copies of the base
        tables, one pass over each)."""
        key = own * 7 + opp
        tables = self.by_turns[key]
        if tables is None:
            turn = int_array([self.own_turn[_turn_of(d, own) * 3 + k] + self.opp_turn[_turn_of(d, opp) * 3 + k]
                              for d in range(6) for k in range(3)])
            base = self.base
            inline = base.inline[:]
            rows = _INLINE_DIRECTION
            i: i64
            for i in range(len(inline)):
                inline[i] += turn[rows[i]]
            broadside = base.broadside[:]
            slots = _BROADSIDE_TURN
            for i in range(len(broadside)):
                slot = slots[i]
                if slot >= 0:
                    broadside[i] += turn[slot]
            tables = self.by_turns[key] = base.with_moves(inline, broadside)
        return tables

    def phased(self, own: i64, opp: i64, at: i64, phase: _ScorerTables) -> _ScorerTables:
        """:meth:`tables` with the phase weights of ``phase`` (:meth:`~plybits.abalone.rank._ScorerTables.with_phase`),
        whose phase number is ``at``: made once (no copy of an array)."""
        key = at * 49 + own * 7 + opp
        made = self.by_phase
        if key >= len(made):
            made.extend([None] * (key + 49 - key % 49 - len(made)))
        tables = made[key]
        if tables is None:
            tables = made[key] = self.tables(own, opp).with_phase(phase)
        return tables


def scored_codes_2(tables: _Model2Tables, board: Board, history: Sequence[Move], phase: _ScorerTables | None = None,
                   at: i64 = 0) -> tuple[vec[i64], int, vec[i64]]:
    """:func:`~plybits.abalone.rank.scored_codes` under model 2: model 1's scorer under the tables of the last two
    moves' directions (with ``phase``'s weights, phase number ``at``, if given: :meth:`_Model2Tables.phased`), then ``F_REPEAT`` added to the (at most two) moves that repeat one's own last two. The moves
    are read from the last four of ``history`` as a list (compiled, a ``Sequence``'s item is a generic lookup), each
    once, and a move's direction and destination from its code (:data:`_DESTINATION`); a repeat is looked for among
    the codes only where its rear marble or first end (:data:`_CELL_OF`) holds one of the mover's marbles (the cell
    the move left, which is mostly empty again)."""
    recent: list[Move] = history if isinstance(history, list) else list(history[-4:])
    played = len(recent)
    own: i64 = 6
    opp: i64 = 6
    last: i64 = -1
    mine: i64 = -1
    again: i64 = -1
    if played >= 1:
        code = move_code(recent[played - 1])
        opp = code % 6
        last = _DESTINATION[code]
        if played >= 2:
            again = move_code(recent[played - 2])
            own = again % 6
            mine = _DESTINATION[again]
    chosen = tables.tables(own, opp) if phase is None else tables.phased(own, opp, at, phase)
    codes, n, scores = scored_codes_after(chosen, board, last, mine)
    if again >= 0:
        grid = board.grid
        me: i64 = board.turn
        if grid[_CELL_OF[again]] == me:
            slot = code_slot(codes, n, again)
            if slot >= 0:
                scores[slot] += tables.repeat
        if played >= 4:
            before = move_code(recent[played - 4])
            if grid[_CELL_OF[before]] == me:
                slot = code_slot(codes, n, before)
                if slot >= 0:
                    scores[slot] += tables.repeat_before
    return codes, n, scores


_DESTINATION: Final = int_array([_destination(MOVE_OF[code]) for code in range(N_CODES)])
"""By move code: the move's destination cell (:func:`~plybits.abalone.rank._destination`; codes of no move: that of
the placeholder move, never read). A code's direction is ``code % 6``."""
_CELL_OF: Final = int_array([MOVE_OF[code].cell for code in range(N_CODES)])
"""By move code: the move's rear marble's (inline) or first end's (broadside) cell, which must hold one of the
mover's marbles for the move to be legal."""




@final
class LinearAbaloneModel2(LinearAbaloneModel):
    """Model 2: log-linear over :func:`move_features` with the shipped integer weights, scored by
    :func:`scored_codes_2`."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, N_FEATURES, move_features)
        self._tables_2: _Model2Tables | None = None

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], int, vec[i64]]:
        tables = self._tables_2
        if tables is None:
            tables = self._tables_2 = self.derived("tables 2", _Model2Tables)
        return scored_codes_2(tables, position, history)


MODEL_2: Final[LinearAbaloneModel2] = LinearAbaloneModel2(
    "rank_model_v2.json", 2, "log-linear move model 2 learned from MiGs games (tools/train_abalone.py)"
)
"""Model 2, what ``encode`` writes."""
