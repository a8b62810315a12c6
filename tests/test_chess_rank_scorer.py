"""chess/rank's one-pass scorer (``plybits.chess.rank._scores``) on the coders' path: it reads the board's reused
buffer of codes up to :data:`~plybits.chess.rank.END_CODE`, which holds an earlier ply's codes past this ply's, and
scores exactly what the public scorer (an array of the moves alone) scores, under both released learned models."""

from __future__ import annotations

import chess
import pytest

from plybits.chess.board import Board
from plybits.chess.rank import (
    END_CODE, F_LOSES_CASTLING, MODEL, NULL_SCORE, _attack_maps, _scores, canonical_moves, move_features,
)
from plybits.chess.rankmodel2 import MODEL_2
from plybits.chess.squares import KING, ROOK, move_code, square_name
from plybits.packed import int_array, int_list
from tests.test_rank_scorers import playouts


@pytest.mark.parametrize("model", [MODEL, MODEL_2], ids=["model 1", "model 2"])
def test_the_coders_scores_are_the_public_scorers(model):
    """Each ply of the seeded playouts: the scores :meth:`coded` codes with (read from the board's buffer, whose
    codes past the null move are an earlier ply's, cut off by END_CODE) are those of :meth:`scores` (an array of
    the canonical moves alone), and the top it keeps is their highest; some plies have fewer moves than the buffer held
    before."""
    shorter = 0
    longest = 0
    for position, candidates, history in playouts("chess"):
        codes, n, scores, top = model.coded(position, history)
        assert [move_code(m) for m in candidates] == int_list(codes)[:n]
        if n < len(codes):
            assert codes[n] == END_CODE
        assert int_list(scores)[:-1] == model.scores(position, candidates, history)[:-1]
        assert top == max(int_list(scores))  # kept as the scores were written (the book's added): the softmax's top
        shorter += n < longest
        longest = max(longest, n)
    assert shorter > 100


def test_the_scorer_stops_at_the_end_code_and_never_scores_past_n():
    """Stale codes past END_CODE are not read; stale codes past ``n`` with no END_CODE fail loudly (the scores array
    holds ``n``), never scored as moves."""
    tables = MODEL_2.tables()
    checked = 0
    for position, candidates, history in playouts("chess"):
        n = len(candidates)
        codes = [move_code(m) for m in candidates]
        stale = [move_code(m) for m in canonical_moves(position)[:3]] or [1 << 11]

        def scored(array: list[int]) -> list[int]:
            attacks, material = _attack_maps(position.cells, position.turn)
            scores, top = _scores(tables, position, int_array(array), n, history, attacks, material)
            assert top == max(int_list(scores)[:n - 1], default=NULL_SCORE)  # the null move's aside
            return int_list(scores)

        exact = scored(codes)
        assert scored(codes + [END_CODE] + stale) == exact
        if stale and checked % 25 == 0:
            with pytest.raises(IndexError):
                scored(codes + stale)
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("fen, chess960", [
    ("r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 8", False),
    ("r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R b Kq - 0 8", False),
    ("r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w k - 0 8", False),
    ("1rk3r1/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/1RK3R1 w GBgb - 0 8", True),
    ("1rk3r1/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/1RK3R1 b Bg - 0 8", True),
])
def test_giving_up_castling_is_what_python_chess_says_the_move_loses(fen, chess960):
    """``F_LOSES_CASTLING`` marks exactly the king moves of a side with a castling right left and the moves of a rook
    that may still castle (castling itself aside), python-chess's castling rights the oracle: read from the board's
    rights bitboard, one rank's and one square's bits, standard and Chess960."""
    position = Board(fen, chess960=chess960)
    peer = chess.Board(fen, chess960=chess960)
    moves = canonical_moves(position)[:-1]
    flagged = [F_LOSES_CASTLING in ids for ids in move_features(position, moves, [])]
    side_rights = peer.castling_rights & (chess.BB_RANK_1 if peer.turn == chess.WHITE else chess.BB_RANK_8)
    expected = []
    for f, t, _ in moves:
        kind = position.cells[f] & 7
        castles = position.cells[t] != 0 and position.cells[t] & 8 == position.turn
        origin = chess.parse_square(square_name(f))
        expected.append(not castles and (kind == KING and side_rights != 0
                                         or kind == ROOK and bool(side_rights & chess.BB_SQUARES[origin])))
    assert flagged == expected
    assert not all(expected) and (any(expected) or side_rights == 0)
