"""abalone/rank model 6: its scorer is the sum of the weights of its feature definition (model 5's, and the rows of
the reply books of the opponent's last move and one's own), it is what ``encode`` writes, and every older model still
reads."""

from __future__ import annotations

import json
import random
from itertools import chain

from plybits.abalone import rankmodel5
from plybits.abalone.board import move_code
from plybits.abalone.rank import RANK
from plybits.abalone.rankmodel5 import MODEL_5
from plybits.abalone.rankmodel5 import move_features as model_5_features
from plybits.abalone.rankmodel6 import (
    F_FOLLOW, F_REPLY, MODEL_6, N_FEATURES, N_MODEL_5_FEATURES, SHARES, TOP_REPLIES, TOTAL_CLASSES, LinearAbaloneModel6,
    move_features, reply_feature,
)
from plybits.registry import get_game
from plybits.rank import load_model_data
from tests.test_abalone_rank2 import playout
from tests.test_abalone_rank5 import plies_of_real_games, real_games


def test_model_6_is_what_encode_writes_and_every_model_stays_readable():
    import plybits

    assert RANK.version == 6 and RANK.models[6] is MODEL_6 and RANK.models[5] is MODEL_5
    assert RANK.readable_versions == (0, 1, 2, 3, 4, 5, 6)
    encoded = plybits.encode("abalone", "rank", moves=["i9h8", "i6h6", "i8h7"], start="belgian-daisy")
    assert encoded.data[4] == 6


def test_the_data_file_keeps_model_5s_weights_and_holds_the_books():
    assert N_MODEL_5_FEATURES == rankmodel5.N_FEATURES == F_REPLY
    assert N_FEATURES == F_FOLLOW + TOTAL_CLASSES * SHARES == len(MODEL_6.weights)
    assert MODEL_6.weights[:N_MODEL_5_FEATURES] == MODEL_5.weights
    assert sum(1 for w in MODEL_6.weights[F_REPLY:] if w) > 100  # the reply weights were learned
    data = load_model_data("plybits.abalone", "rank_model_v6.json")
    for name, book in (("replies", MODEL_6.reply_book()), ("follows", MODEL_6.follow_book())):
        assert len(book) > 1000 and len(data[name]) == len(book)
        for key, (total, row) in book.items():
            assert 1 <= len(row) <= TOP_REPLIES and sum(row.values()) <= total and min(row.values()) >= 1
    assert json.dumps(data["weights"][:N_MODEL_5_FEATURES]) == json.dumps(
        load_model_data("plybits.abalone", "rank_model_v5.json")["weights"])


def test_reply_feature_is_the_times_answered_class_by_the_share():
    assert reply_feature(1, 1) == SHARES * 0 + 15
    assert reply_feature(1, 2) == SHARES * 1 + 8
    assert reply_feature(3, 7) == SHARES * 2 + 6
    assert reply_feature(1, 5000) == SHARES * 10 + 0
    assert reply_feature(4999, 5000) == SHARES * 10 + 15


def test_move_features_are_model_5s_and_the_books_rows():
    """A move's features are model 5's, then ``F_REPLY`` of its times in the reply book's row of the opponent's last
    move and ``F_FOLLOW`` of its times in the follow-up book's row of one's own last move: written out on real games."""
    replies, follows = MODEL_6.reply_book(), MODEL_6.follow_book()
    found = 0
    for board, legal, history in plies_of_real_games(150):
        rows = [book.get(move_code(history[-back])) if len(history) >= back else None
                for book, back in ((replies, 1), (follows, 2))]
        for feats, old, move in zip(move_features(board, legal, history), model_5_features(board, legal, history), legal):
            extra = []
            for first, entry in zip((F_REPLY, F_FOLLOW), rows):
                if entry is not None and move_code(move) in entry[1]:
                    extra.append(first + reply_feature(entry[1][move_code(move)], entry[0]))
            assert feats == old + extra
            found += len(extra)
    assert found > 1000


def test_scores_are_the_sums_of_the_weights_of_the_features():
    """With random weights, the coder's scorer gives for every move the sum of the weights of :func:`move_features`:
    on random games of three layouts and on whole real games (the books' rows, many phases, the opening book)."""
    model = LinearAbaloneModel6(MODEL_6.filename, MODEL_6.version)
    rng = random.Random(16)
    weights = model._weights = [rng.randrange(-300, 300) for _ in range(N_FEATURES)]
    checked = replied = 0
    plies = chain(*(playout(start, 40, seed) for seed, start in enumerate(("standard", "belgian-daisy", "german-daisy"))),
                  plies_of_real_games(200))  # each yielded before its board moves on
    for position, moves, history in plies:
        features = move_features(position, moves, history)
        expected = [sum(weights[i] for i in feats) for feats in features]
        assert model.scored(position, history) == (moves, expected)
        checked += 1
        replied += any(f >= F_REPLY for feats in features for f in feats)
    assert checked > 500 and replied > 300


def test_the_model_module_is_compiled_with_the_rest():
    from plybits.compiled import MODULES

    assert LinearAbaloneModel6.__module__ in MODULES


def test_real_games_round_trip_through_model_6_and_its_bytes_are_its_own():
    """Every 40th MiGs game round-trips with model 6 (and with model 5, whose bytes it does not write)."""
    game = get_game("abalone")
    differ = 0
    for start, moves in real_games(40):
        payload = RANK.encode_version(game.position(start), moves, 6).tobytes()
        assert RANK.decode(game.position(start), payload, len(moves), 6) == moves
        old = RANK.encode_version(game.position(start), moves, 5).tobytes()
        assert RANK.decode(game.position(start), old, len(moves), 5) == moves
        differ += payload != old
    assert differ > 40
