"""abalone/rank model 3: its scorer is the sum of the weights of its feature definition (model 2's and the opening
book), the book's key and buckets are what docs/rank.md says, and it and every older model still read."""

from __future__ import annotations

import random

import plybits
from plybits.abalone.board import BLACK, GEOMETRY, SQUARES, move_code
from plybits.abalone.rank import MODEL, RANK, canonical_moves
from plybits.abalone import rankmodel3
from plybits.abalone.rankmodel2 import MODEL_2
from plybits.abalone.rankmodel2 import N_FEATURES as N_MODEL_2_FEATURES
from plybits.abalone.rankmodel2 import move_features as model_2_features
from plybits.abalone.rankmodel3 import (
    F_BOOK, F_MODEL_2, MODEL_3, N_FEATURES, LinearAbaloneModel3, book_entry, book_feature, move_features, position_key,
)
from plybits.openingbook import BOOK_DEPTH, BOOK_MIN, ZOBRIST
from plybits.registry import get_game
from tests.conftest import shared_data
from tests.test_abalone_rank2 import playout


def real_openings(games: int) -> list[tuple[str | None, list]]:
    """(start, moves) of the first ``games`` MiGs games, their first BOOK_DEPTH plies: where the book is met."""
    game = get_game("abalone")
    text = shared_data("abalone", "migs-2016-2017.train.apgn").read_text(encoding="utf-8")
    out = []
    for chunk in list(game.split_records(text))[:games]:
        record = plybits.read_record("abalone", record=chunk)
        out.append((record.start, list(record.moves[:BOOK_DEPTH])))
    return out


def test_model_3_and_every_earlier_model_stay_readable():
    assert RANK.version >= 3 and RANK.models[3] is MODEL_3
    assert RANK.readable_versions[:4] == (0, 1, 2, 3) and RANK.models[1] is MODEL and RANK.models[2] is MODEL_2


def test_the_data_file_fits_the_features_and_holds_a_book():
    assert len(MODEL_3.weights) == N_FEATURES == N_MODEL_2_FEATURES + 42 == rankmodel3.N_MODEL_2_FEATURES + 42
    assert any(MODEL_3.weights[F_BOOK:])  # the book was learned, not left at zero
    book = MODEL_3.opening_book()
    assert len(book) > 1000
    assert all(sum(entry.values()) >= BOOK_MIN and min(entry.values()) >= 1 for entry in book.values())
    start = get_game("abalone").position("belgian-daisy")
    assert book_entry(book, start, 0)[0] is not None  # the layout the held-out games start from


def test_position_key_is_the_xor_of_the_marbles_and_the_side_to_move():
    """Each ply changes the key by the numbers of the cells whose marble changed and of black to move, the
    definition read off the cells (colour x 121 + cell), for random games of three layouts."""
    size = GEOMETRY.size
    for seed, start in enumerate(("standard", "belgian-daisy", "german-daisy")):
        board = get_game("abalone").position(start)
        expected = ZOBRIST[-1] if board.turn == BLACK else 0
        for sq in SQUARES:
            if board.cells[sq]:
                expected ^= ZOBRIST[board.cells[sq] * size + sq]
        assert position_key(board) == expected
        rng = random.Random(seed)
        for _ in range(60):
            before = board.cells[:]
            key = position_key(board)
            board.push(rng.choice(canonical_moves(board)))
            change = ZOBRIST[-1]
            for sq in SQUARES:
                if before[sq] != board.cells[sq]:
                    change ^= (ZOBRIST[before[sq] * size + sq] if before[sq] else 0) ^ (
                        ZOBRIST[board.cells[sq] * size + sq] if board.cells[sq] else 0)
            assert position_key(board) == key ^ change


def test_book_feature_buckets():
    """Times reached 2, 3, 4-5, 6-9, 10-19, 20+ (rows 0..5) x the move's share in 64ths <4, <8, <16, <32, <48, <56,
    the rest (1..7): worked out by hand."""
    assert book_feature(1, 2) == F_BOOK + 0 * 7 + 4  # share 32/64: bucket 5
    assert book_feature(2, 2) == F_BOOK + 6
    assert book_feature(1, 3) == F_BOOK + 7 + 3  # 21/64: bucket 4
    assert book_feature(1, 17) == F_BOOK + 4 * 7 + 0  # 3/64: bucket 1
    assert book_feature(20, 20) == F_BOOK + 41
    assert book_feature(19, 40) == F_BOOK + 5 * 7 + 3  # 30/64: bucket 4


def test_the_book_is_consulted_in_the_first_plies_only():
    book = {position_key(get_game("abalone").position("belgian-daisy")): {7: 3}}
    board = get_game("abalone").position("belgian-daisy")
    assert book_entry(book, board, 0) == ({7: 3}, 3)
    assert book_entry(book, board, BOOK_DEPTH - 1) == ({7: 3}, 3)
    assert book_entry(book, board, BOOK_DEPTH) == (None, 0)
    assert book_entry({position_key(board): {7: 1}}, board, 0) == (None, 0)  # reached once: not in a book


def test_move_features_are_model_2s_and_the_books():
    """A move's features are model 2's, and ``F_BOOK`` of the times the book played it, for a book move only."""
    seen = 0
    for start, moves in real_openings(6):
        board = get_game("abalone").position(start)
        history: list = []
        for move in moves:
            legal = canonical_moves(board)
            entry, total = book_entry(MODEL_3.opening_book(), board, len(history))
            for feats, old, candidate in zip(move_features(board, legal, history),
                                             model_2_features(board, legal, history), legal):
                times = entry.get(move_code(candidate), 0) if entry is not None else 0
                assert feats == [F_MODEL_2 + f for f in old] + ([book_feature(times, total)] if times else [])
                seen += times > 0
            board.push(move)
            history.append(move)
    assert seen > 20


def test_scores_are_the_sums_of_the_weights_of_the_features():
    """With random weights, the coder's scorer gives for every move the sum of the weights of :func:`move_features`:
    on random games of three layouts (few book positions) and on the openings of real games (many)."""
    model = LinearAbaloneModel3(MODEL_3.filename, MODEL_3.version)
    rng = random.Random(13)
    model._weights = [rng.randrange(-300, 300) for _ in range(N_FEATURES)]
    checked = booked = 0
    for seed, start in enumerate(("standard", "belgian-daisy", "german-daisy")):
        for position, moves, history in playout(start, 40, seed):
            expected = [sum(model._weights[i] for i in feats) for feats in move_features(position, moves, history)]
            assert model.scored(position, history) == (moves, expected)
            checked += 1
    for start, moves in real_openings(8):
        board = get_game("abalone").position(start)
        history = []
        for move in moves:
            legal = canonical_moves(board)
            features = move_features(board, legal, history)
            expected = [sum(model._weights[i] for i in feats) for feats in features]
            assert model.scored(board, history) == (legal, expected)
            booked += any(f >= F_BOOK for feats in features for f in feats)
            board.push(move)
            history.append(move)
    assert checked > 100 and booked > 20


def test_the_model_module_is_compiled_with_the_rest():
    from plybits.compiled import MODULES

    assert LinearAbaloneModel3.__module__ in MODULES


def test_real_games_round_trip_through_model_3_and_it_beats_model_2_on_their_openings():
    """Every 40th MiGs game round-trips with model 3; on the openings of the training games (in its book) it is
    smaller than model 2."""
    game = get_game("abalone")
    text = shared_data("abalone", "migs-2016-2017.train.apgn").read_text(encoding="utf-8")
    sizes = {2: 0, 3: 0}
    for chunk in list(game.split_records(text))[::40]:
        record = plybits.read_record("abalone", record=chunk)
        moves = list(record.moves)
        payload = RANK.encode_version(game.position(record.start), moves, 3).tobytes()
        assert RANK.decode(game.position(record.start), payload, len(moves), 3) == moves
        for version in sizes:
            sizes[version] += len(RANK.encode_version(game.position(record.start), moves[:BOOK_DEPTH], version))
    assert sizes[3] < sizes[2]


def test_the_scorer_reads_the_book_it_is_given():
    """The scorer looks a position up among its book's moves by key, made once per book: a model given another book
    (as training gives it its own) scores by that book at once, and with no book by model 2's features alone."""
    model = LinearAbaloneModel3(MODEL_3.filename, MODEL_3.version)
    w = model.weights
    board = get_game("abalone").position("belgian-daisy")
    legal = canonical_moves(board)
    plain = [sum(w[F_MODEL_2 + f] for f in feats) for feats in model_2_features(board, legal, [])]
    assert model.scored(board, []) != (legal, plain)  # the shipped book holds the layout
    model.book = {position_key(board): {move_code(legal[5]): 3, move_code(legal[9]): 1}}
    expected = plain[:]
    expected[5] += w[book_feature(3, 4)]
    expected[9] += w[book_feature(1, 4)]
    assert model.scored(board, []) == (legal, expected)
    model.book = {}
    assert model.scored(board, []) == (legal, plain)
