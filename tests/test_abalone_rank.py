"""Abalone's move codes and the ``rank`` model's code path: the same moves, order and frequencies as the
definitions they speed up (legal moves sorted by :func:`move_key`, the base model's ranking)."""

from __future__ import annotations

import random

import pytest

from plybits.abalone import Position
from plybits.abalone.board import ALL_MOVES, BROADSIDE, INLINE, MOVE_OF, N_CODES, legal_moves_into, move_code
from plybits.abalone.rank import MODEL, canonical_moves, move_key
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


def test_the_scores_array_grows_when_a_position_fills_its_first_room():
    """The scorer writes scores into an array with room for 128 (real positions have about 50 to 80 moves) and
    doubles it when a position has more: the scores before stay, the new one lands after them."""
    from plybits.abalone.rank import _ROOM_MOVES, _put
    from plybits.packed import int_array, int_list

    full = int_array(list(range(-3, _ROOM_MOVES - 3)))
    grown = _put(full, _ROOM_MOVES, -1000)
    assert len(grown) == 2 * _ROOM_MOVES
    assert int_list(grown)[:_ROOM_MOVES + 1] == list(range(-3, _ROOM_MOVES - 3)) + [-1000]
    assert int_list(_put(grown, _ROOM_MOVES + 1, 7))[_ROOM_MOVES + 1] == 7
