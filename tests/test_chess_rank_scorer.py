"""chess/rank's one-pass scorer (``plybits.chess.rank._scores``) on the coders' path: it reads the board's reused
buffer of codes up to :data:`~plybits.chess.rank.END_CODE`, which holds an earlier ply's codes past this ply's, and
scores exactly what the public scorer (an array of the moves alone) scores, under both released learned models."""

from __future__ import annotations

import pytest

from plybits.chess.rank import END_CODE, MODEL, NULL_SCORE, _attack_maps, _scores, canonical_moves
from plybits.chess.rankmodel2 import MODEL_2
from plybits.chess.squares import move_code
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
