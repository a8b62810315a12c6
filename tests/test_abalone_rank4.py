"""abalone/rank model 4: model 3's features and book under refitted weights; its scorer gives the sum of its weights
over model 3's feature definition, and it and every older model still read."""

from __future__ import annotations

import plybits
from plybits.abalone.rank import MODEL, RANK, canonical_moves
from plybits.abalone.rankmodel2 import MODEL_2
from plybits.abalone.rankmodel3 import F_BOOK, MODEL_3, N_FEATURES, LinearAbaloneModel3, move_features
from plybits.abalone.rankmodel4 import MODEL_4
from plybits.registry import get_game
from tests.conftest import shared_data
from tests.test_abalone_rank2 import playout
from tests.test_abalone_rank3 import real_openings


def test_model_4_and_every_earlier_model_stay_readable():
    """Model 4 was what ``encode`` wrote until model 5 (``tests/test_abalone_rank5.py``); it and every earlier one
    stay readable."""
    assert RANK.version >= 4 and RANK.models[4] is MODEL_4
    assert RANK.readable_versions[:5] == (0, 1, 2, 3, 4)
    assert (RANK.models[1], RANK.models[2], RANK.models[3]) == (MODEL, MODEL_2, MODEL_3)


def test_the_data_file_holds_model_3s_features_and_book_under_new_weights():
    assert isinstance(MODEL_4, LinearAbaloneModel3) and MODEL_4.n_features == N_FEATURES
    assert len(MODEL_4.weights) == N_FEATURES == len(MODEL_3.weights)
    changed = sum(a != b for a, b in zip(MODEL_4.weights, MODEL_3.weights))
    assert changed > 1000  # refitted, not copied
    assert any(MODEL_4.weights[F_BOOK:])
    assert MODEL_4.opening_book() == MODEL_3.opening_book()  # the book model 3's features read


def test_scores_are_the_sums_of_model_4s_weights_over_the_features():
    """Under its shipped weights the coder's scorer gives every move the sum of the weights of model 3's
    :func:`~plybits.abalone.rankmodel3.move_features`: random games of three layouts and real openings (the book's)."""
    weights = MODEL_4.weights
    checked = booked = 0
    for seed, start in enumerate(("standard", "belgian-daisy", "german-daisy")):
        for position, moves, history in playout(start, 30, seed + 40):
            expected = [sum(weights[i] for i in feats) for feats in move_features(position, moves, history)]
            assert MODEL_4.scored(position, history) == (moves, expected)
            checked += 1
    for start, moves in real_openings(6):
        board = get_game("abalone").position(start)
        history: list = []
        for move in moves:
            legal = canonical_moves(board)
            features = move_features(board, legal, history)
            assert MODEL_4.scored(board, history) == (legal, [sum(weights[i] for i in feats) for feats in features])
            booked += any(f >= F_BOOK for feats in features for f in feats)
            board.push(move)
            history.append(move)
    assert checked > 80 and booked > 20


def test_real_games_round_trip_through_model_4_and_its_bytes_are_its_own():
    """Every 40th MiGs game round-trips with model 4, and its payloads are not model 3's (a new version codes anew)."""
    game = get_game("abalone")
    text = shared_data("abalone", "migs-2016-2017.train.apgn").read_text(encoding="utf-8")
    differ = 0
    for chunk in list(game.split_records(text))[::40]:
        record = plybits.read_record("abalone", record=chunk)
        moves = list(record.moves)
        payload = RANK.encode_version(game.position(record.start), moves, 4).tobytes()
        assert RANK.decode(game.position(record.start), payload, len(moves), 4) == moves
        differ += payload != RANK.encode_version(game.position(record.start), moves, 3).tobytes()
    assert differ > 40
