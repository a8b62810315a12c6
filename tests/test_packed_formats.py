"""The packed formats of the compiled core that no other test pins bit by bit (docs/packed.md lists every format and
the test that pins it): the cells' piece ints, the move-code arithmetic and its unpacking, the chess attack map
entry, the shared score objects and the indicator weights' fit in 64 bits. Expected values are worked out here from
the documented layout, on positions whose attacks are known."""

from __future__ import annotations

import pytest

from plybits.abalone import board as abalone
from plybits.chess import board as chess
from plybits.chess import squares
from plybits.chess.rank import _attack_maps, _mark_checks
from plybits.mailbox import OFF
from plybits.rank import FEATURES_PER_PASS, SCORE_INTS, SCORE_LOW, indicator_weights
from plybits.xiangqi import board as xiangqi


def test_chess_cells_are_colour_bit_or_kind_in_a_border_of_off() -> None:
    assert (squares.EMPTY, squares.WHITE, squares.BLACK) == (0, 0, 8)
    assert [squares.PAWN, squares.KNIGHT, squares.BISHOP, squares.ROOK, squares.QUEEN, squares.KING] == [1, 2, 3, 4, 5, 6]
    assert OFF == 0x40 and OFF & 0x0F == 0  # no colour, no kind
    cells = chess.Board().cells
    square = squares.parse_square
    assert (cells[square("e1")], cells[square("e8")], cells[square("d7")], cells[square("e4")]) == (6, 14, 9, 0)
    assert len(cells) == 144 and cells[square("a1") - 1] == OFF and cells[square("h8") + 12 * 2] == OFF


def test_xiangqi_and_abalone_cells() -> None:
    assert (xiangqi.RED, xiangqi.BLACK, xiangqi.KING, xiangqi.SOLDIER) == (0, 8, 1, 7)
    assert (abalone.EMPTY, abalone.BLACK, abalone.WHITE) == (0, 1, 2)


def test_a_chess_move_code_is_from_256_plus_to_times_8_plus_promotion() -> None:
    e7, e8 = squares.parse_square("e7"), squares.parse_square("e8")
    promotion = squares.move(e7, e8, squares.QUEEN)
    code = squares.move_code(promotion)
    assert code == (e7 * 256 + e8) * 8 + 5
    assert (code >> 11, code >> 3 & 255, code & 7) == (e7, e8, 5)  # how the scorer unpacks it
    assert squares.MOVE_TABLE[code] is promotion and squares.MOVE_TABLE[0] == squares.NULL_MOVE


def test_an_abalone_move_code_is_its_cell_and_direction_then_its_broadside_fields() -> None:
    inline = next(m for m in abalone.ALL_MOVES if m.line < 0)
    broadside = next(m for m in abalone.ALL_MOVES if m.line >= 0)
    assert abalone.move_code(inline) == inline.cell * 6 + inline.direction
    assert abalone.move_code(broadside) == abalone.INLINE_CODES + (
        (broadside.cell * 3 + broadside.line) * 2 + broadside.marbles - 2) * 6 + broadside.direction
    assert abalone.move_code(broadside) < abalone.N_CODES


def test_a_chess_attack_map_entry_is_enemy_rank_then_our_count_then_check_marks() -> None:
    """Bits 4-6: the rank of the enemy's cheapest attacker (pawn 5, knight or bishop 4, rook 3, queen 2, king 1;
    0: none); bits 2-3: our attacks, counted up to 3; bits 0-1: the diagonal and orthogonal check marks."""
    board = chess.Board()
    attacks, material = _attack_maps(board.cells, board.turn)  # white to move: "our" is white
    at = {name: attacks[squares.parse_square(name)] for name in ("e3", "f3", "e6", "e7", "e5")}
    assert at == {
        "e3": 2 * 4,  # d2, f2 pawns
        "f3": 3 * 4,  # e2, g2 pawns, g1 knight
        "e6": 5 * 16,  # d7, f7 pawns
        "e7": 4 * 16,  # cheapest: g8 knight or f8 bishop (the king and queen attack it too)
        "e5": 0,
    }
    assert material == 2 * (2 * 3 + 2 * 3 + 2 * 5 + 9)
    _mark_checks(attacks, board.cells, squares.parse_square("e8"))  # the black king's lines, up to their first piece
    # diagonal from e8, ended by black's own pawn, which b8's knight and c8's bishop defend (rank 4):
    assert attacks[squares.parse_square("d7")] == 4 * 16 + 1
    assert attacks[squares.parse_square("f8")] == 1 * 16 + 2  # orthogonal: the king attacks its bishop's square
    assert max(attacks[s] for s in squares.SQUARES) < 128  # an int object of CPython's cache


@pytest.mark.parametrize("score", [SCORE_LOW, -1, 0, 300, -SCORE_LOW - 1])
def test_a_listed_score_is_a_shared_int_object(score: int) -> None:
    assert SCORE_INTS[score - SCORE_LOW] == score
    assert SCORE_INTS[score - SCORE_LOW] is SCORE_INTS[score - SCORE_LOW]
    assert len(SCORE_INTS) == 2 * -SCORE_LOW


def test_a_pass_of_indicator_weights_fits_a_signed_64_bit_score() -> None:
    weights = indicator_weights(FEATURES_PER_PASS)
    assert weights == [1 << (8 * i) for i in range(FEATURES_PER_PASS)]
    assert 255 * sum(weights) < 1 << 63  # every feature counted up to 255 times
    assert 255 * sum(indicator_weights(FEATURES_PER_PASS + 1)) >= 1 << 63
