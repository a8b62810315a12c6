"""Abalone's move codes and the ``rank`` model's code path: the same moves, order and frequencies as the
definitions they speed up (legal moves sorted by :func:`move_key`, the base model's ranking)."""

from __future__ import annotations

import random
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from plybits.abalone import Position
from plybits.abalone.board import (
    ALL_MOVES, BROADSIDE, CELL_NAMES, EMPTY, INLINE, MOVE_OF, N_CODES, SQUARES, STEPS, legal_moves_into, move_code,
)
from plybits.abalone.rank import MODEL, _Scratch, _neighbourhood, canonical_moves, move_key, scored_codes
from plybits.packed import PACKED
from plybits.rank import LinearModel


def playouts(start: str, plies: int, seed: int) -> list[tuple[Position, list]]:
    """Positions (with the moves before them) of a seeded random game from ``start``."""
    rng = random.Random(seed)
    board = Position(start)
    history: list = []
    out = []
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        out.append((board.copy(), list(history)))
        move = rng.choice(moves)
        board.push(move)
        history.append(move)
    return out


CELLS = {name: cell for cell, name in CELL_NAMES.items()}
POSITIONS = [p for seed, start in enumerate(("standard", "belgian-daisy", "german-daisy")) for p in playouts(start, 120, seed)]


def test_every_move_has_its_own_code() -> None:
    moves = [m for row in INLINE.values() for m in row] + list(BROADSIDE.values())
    codes = [move_code(m) for m in moves]
    assert len(set(codes)) == len(moves) and all(0 <= c < N_CODES for c in codes)
    assert all(MOVE_OF[move_code(m)] is m for m in moves)
    assert set(ALL_MOVES) <= set(moves)


def test_codes_give_the_legal_moves_and_the_canonical_order() -> None:
    assert len(POSITIONS) > 300
    for board, _ in POSITIONS:
        legal = board.legal_moves()
        inline: list = []
        broadside: list = []
        legal_moves_into(board, inline, broadside)
        assert sorted(move_code(m) for m in inline + broadside) == sorted(move_code(m) for m in legal)
        expected = sorted(legal, key=move_key)
        assert canonical_moves(board) == expected
        assert inline + broadside == expected


@pytest.mark.parametrize("index", range(0, 360, 7))
def test_scored_is_the_base_models_scoring(index: int) -> None:
    """The model's own scored (the moves scored as generated) gives what LinearModel.scored makes of
    canonical_moves and scores."""
    board, history = POSITIONS[index]
    assert MODEL.scored(board, history) == LinearModel.scored(MODEL, board, history)


def test_scores_of_moves_in_any_order_are_the_scored_ones() -> None:
    """``scores`` of the legal moves in another order gives their scores from ``scored`` in that order."""
    for board, history in POSITIONS[::40]:
        moves, scores = MODEL.scored(board, history)
        assert scores is not None and len(moves) > 1
        assert MODEL.scores(board, moves[::-1], history) == scores[::-1]


def test_scores_of_an_illegal_move_is_an_error_naming_it() -> None:
    board = Position("standard")
    illegal = INLINE[board.cells.index(3 - board.turn)][0]  # an opponent's marble
    with pytest.raises(ValueError, match=repr(illegal).replace("(", r"\(").replace(")", r"\)")):
        MODEL.scores(board, [illegal], [])


def test_a_board_with_more_marbles_than_a_side_has_gets_room_for_all_its_moves():
    """The scorer writes codes and scores into arrays with room for 30 moves a marble, taken from a template sized for
    14 marbles: a board set up by hand with more (here 33 black marbles on every other row, which have hundreds of
    moves) gets larger arrays, and every move scored."""
    board = Position("5/6/7/8/9/8/7/6/5 b")  # empty
    for name, cell in CELLS.items():
        board.cells[cell] = 1 if name[0] in "acegi" else 0
    board.cells[CELLS["h5"]] = 2
    board.sync_grid()
    moves, scores = MODEL.scored(board, [])
    assert scores is not None and len(moves) > 200
    assert (moves, scores) == LinearModel.scored(MODEL, board, [])
    assert moves == sorted(board.legal_moves(), key=move_key)


def test_the_scorer_reads_the_grid_the_board_keeps_equal_to_its_cells() -> None:
    """The scorer reads a board's :attr:`grid`, which push, copy and the position string keep equal to its cells along
    real games; cells written by hand score as their position once :meth:`sync_grid` is called (bools, equal to the
    ints, too), and :meth:`scores` refuses a board whose grid is out of step rather than score another position."""
    for board, history in POSITIONS[::7]:
        assert list(board.grid) == board.cells
        assert list(board.copy().grid) == board.cells
        assert list(Position.from_fen(board.fen()).grid) == board.cells
    for board, history in POSITIONS[::40]:
        hand = Position(None)
        hand.turn, hand.ejected = board.turn, dict(board.ejected)
        hand.cells = [bool(c) if c in (0, 1) else c for c in board.cells]
        hand.sync_grid()
        assert MODEL.scored(hand, history) == MODEL.scored(board, history)
    board, history = POSITIONS[30]
    stale = board.copy()
    stale.cells[stale.cells.index(board.turn)] = EMPTY
    if PACKED:  # in pure Python the grid is the cells list itself: a cell written by hand is in step
        with pytest.raises(ValueError, match="sync_grid"):
            MODEL.scores(stale, stale.legal_moves(), history)
    stale = board.copy()
    stale.cells = board.cells.copy()  # a new list without sync_grid: out of step in both builds
    stale.cells[stale.cells.index(board.turn)] = EMPTY
    with pytest.raises(ValueError, match="sync_grid"):
        MODEL.scores(stale, stale.legal_moves(), history)


def test_scored_codes_gives_new_arrays_of_the_legal_moves_only() -> None:
    """The scorer works in a room it takes from spares and gives back: the codes and scores it returns are copies,
    one of each legal move, which later plies' scoring leaves alone."""
    tables = MODEL.tables()
    board, history = POSITIONS[10]
    codes, n, scores = scored_codes(tables, board, history)
    kept = (list(codes), list(scores))
    assert len(codes) == n == len(scores) == len(board.legal_moves())
    for other, other_history in POSITIONS[11:60]:
        scored_codes(tables, other, other_history)
    assert (list(codes), list(scores)) == kept


def test_scoring_in_threads_gives_what_one_thread_gives() -> None:
    """Threads scoring at once, switching as often as the interpreter lets them, each get their own room: the
    scores of every position are those of scoring them one by one."""
    tables = MODEL.tables()

    def score(item: tuple[Position, list]) -> tuple[list[int], list[int]]:
        codes, _, scores = scored_codes(tables, item[0], item[1])
        return list(codes), list(scores)

    expected = [score(item) for item in POSITIONS]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(4) as pool:
            for _ in range(3):
                assert list(pool.map(score, POSITIONS)) == expected
    finally:
        sys.setswitchinterval(interval)


def test_the_neighbourhood_sets_what_is_next_to_each_own_marble() -> None:
    """:func:`_neighbourhood` counts the side to move's marbles and sets, for each, bit ``d`` where the cell in direction
    ``d`` is empty and bit ``6 + d`` where it holds an own marble (what the scorer's passes read instead of the cells),
    and its exposure above them, in a scratch another position used before."""
    scratch = _Scratch()
    for board, _ in POSITIONS[::9] + POSITIONS[5::9]:
        me = board.turn
        count = _neighbourhood(board.grid, board.near[me], board.near[3 - me], me, board.marbles[me], scratch.around)
        mine = [sq for sq in SQUARES if board.cells[sq] == me]
        assert count == len(mine)
        for sq in mine:
            expected = sum(1 << d for d in range(6) if board.cells[sq + STEPS[d]] == EMPTY)
            expected += sum(64 << d for d in range(6) if board.cells[sq + STEPS[d]] == me)
            assert scratch.around[sq] & 4095 == expected, (board, sq)
            assert scratch.around[sq] >> 12 in (0, 1, 2)  # its exposure to a push
