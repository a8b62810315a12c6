"""abalone/rank model 6: its scorer is the sum of the weights of its feature definition (model 5's, and the reply book's
feature of the opponent's last move), it is what ``encode`` writes, and every older model still reads."""

from __future__ import annotations

import random
from itertools import chain

import plybits
from plybits.abalone import rankmodel5
from plybits.abalone.board import ALL_MOVES, MOVE_OF, move_code
from plybits.abalone.rank import MODEL, RANK, canonical_moves
from plybits.abalone.rankmodel2 import MODEL_2
from plybits.abalone.rankmodel3 import MODEL_3
from plybits.abalone.rankmodel4 import MODEL_4
from plybits.abalone.rankmodel5 import MODEL_5
from plybits.abalone.rankmodel5 import move_features as model_5_features
from plybits.abalone.rankmodel6 import (
    F_REPLY, MODEL_6, N_FEATURES, N_MODEL_5_FEATURES, LinearAbaloneModel6, move_features, reply_entry, reply_feature,
    REPLY_SHARES, REPLY_TIMES,
)
from plybits.openingbook import BOOK_MIN
from plybits.registry import get_game
from tests.test_abalone_rank2 import playout
from tests.test_abalone_rank5 import plies_of_real_games


def test_model_6_is_what_encode_writes_and_every_model_stays_readable():
    assert RANK.version == 6 and RANK.models[6] is MODEL_6
    assert RANK.readable_versions == (0, 1, 2, 3, 4, 5, 6)
    assert (RANK.models[1], RANK.models[2], RANK.models[3], RANK.models[4], RANK.models[5]) == (
        MODEL, MODEL_2, MODEL_3, MODEL_4, MODEL_5)
    encoded = plybits.encode("abalone", "rank", moves=["i9h8", "i6h6", "i8h7"], start="belgian-daisy")
    assert encoded.data[4] == 6


def test_the_data_file_fits_the_features_and_holds_a_reply_book():
    assert N_MODEL_5_FEATURES == rankmodel5.N_FEATURES and F_REPLY == N_MODEL_5_FEATURES
    assert N_FEATURES == N_MODEL_5_FEATURES + 11 * 16 == len(MODEL_6.weights) and (REPLY_TIMES, REPLY_SHARES) == (11, 16)
    assert any(MODEL_6.weights[F_REPLY:])  # the reply weights were learned, not left at zero
    replies = MODEL_6.reply_book()
    assert len(replies) > 1000
    codes = {move_code(move) for move in ALL_MOVES}
    for last, entry in replies.items():
        assert last in codes and set(entry) <= codes
        assert sum(entry.values()) >= BOOK_MIN and min(entry.values()) >= 1


def test_reply_entry_is_the_answers_to_the_last_move_answered_often_enough():
    a, b, c = (move_code(move) for move in ALL_MOVES[:3])
    book = {a: {b: 3, c: 1}, b: {a: 1}}
    history = [MOVE_OF[c], MOVE_OF[a]]
    assert reply_entry(book, history) == ({b: 3, c: 1}, 4)
    assert reply_entry(book, [MOVE_OF[b]]) == (None, 0)  # answered once: fewer than BOOK_MIN times
    assert reply_entry(book, [MOVE_OF[c]]) == (None, 0)  # never answered
    assert reply_entry(book, []) == (None, 0)  # the first ply has no last move
    assert reply_feature(3, 4) == F_REPLY + 1 * 16 + 12  # 2 <= 3 < 4 times; 3/4 of 16
    assert reply_feature(1, 300) == F_REPLY + 0 * 16 + 0
    assert reply_feature(40, 40) == F_REPLY + 5 * 16 + 15  # 32 <= 40 < 64; all of them (16/16 counts as 15)
    assert reply_feature(5000, 6000) == F_REPLY + 10 * 16 + 13  # 1,024 or more; 13.3/16


def test_move_features_are_model_5s_and_the_reply_books():
    """A move's features are model 5's, then ``F_REPLY`` by the times it answered the last move and its share of the
    times that move was answered, in the shipped reply book: the definition written out on the plies of real games."""
    replies = MODEL_6.reply_book()
    found = 0
    for board, legal, history in plies_of_real_games(150):
        entry = replies.get(move_code(history[-1])) if history else None
        total = sum(entry.values()) if entry else 0
        for move, feats, old in zip(legal, move_features(board, legal, history), model_5_features(board, legal, history)):
            times = entry.get(move_code(move), 0) if entry and total >= BOOK_MIN else 0
            if times:
                often = next(k for k in range(11) if times < 2 ** (k + 1) or k == 10)  # floor(log2(times)), at most 10
                share = min(int(16 * times / total), 15)
            assert feats == old + ([F_REPLY + 16 * often + share] if times else [])
            found += times > 0
    assert found > 500


def test_scores_are_the_sums_of_the_weights_of_the_features():
    """With random weights, the coder's scorer gives for every move the sum of the weights of :func:`move_features`:
    on random games of three layouts and on whole real games (many phases and replies, the book in their openings)."""
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
    assert checked > 500 and replied > 200


def test_a_reply_book_set_by_training_is_what_the_scorer_reads():
    """Training gives the model its own reply book (each game counted out of it): the scorer reads that one."""
    model = LinearAbaloneModel6(MODEL_6.filename, MODEL_6.version)
    board = get_game("abalone").position("belgian-daisy")
    history = [canonical_moves(board)[0]]
    board.push(history[0])
    legal = canonical_moves(board)
    last = move_code(history[0])
    model.replies = {last: {move_code(legal[3]): 2}}
    weights = model._weights = [0] * N_FEATURES
    weights[reply_feature(2, 2)] = 7
    _, scores = model.scored(board, history)
    assert scores is not None and [i for i, s in enumerate(scores) if s] == [3] and scores[3] == 7
    model.replies = {last: {move_code(legal[5]): 2}}
    _, scores = model.scored(board, history)
    assert scores is not None and [i for i, s in enumerate(scores) if s] == [5]


def test_the_model_module_is_compiled_with_the_rest():
    from plybits.compiled import MODULES

    assert LinearAbaloneModel6.__module__ in MODULES
