"""chess/rank model 2 (plybits.chess.rankmodel2): what encode writes; its features, its released frequencies and a
whole shared file's round trip. Its golden vector sits with every released model's in tests/test_rank_games.py
(``GOLDEN``, where models 0 and 1 keep theirs untouched), as does the refusal of corrupt data by every learned
model."""

from __future__ import annotations

import random

import pytest

from plybits.chess.rank import N_FEATURES
from plybits.chess.rankmodel2 import MODEL_2, N_FEATURES_2, LinearChessModel2
from plybits.chess.squares import BLACK, FILE_OF, NULL_MOVE, RANK_OF, SQUARES
from plybits.openingbook import BOOK_DEPTH, ZOBRIST
from plybits.registry import get_game, get_scheme
from tests.conftest import QUICK
from tests.test_rank_games import records, replay
from tests.test_rank_scorers import digest, playouts

PINNED_FREQUENCIES_2 = "2e71c8ee96f678e6"
"""The digest of model 2's frequencies on the seeded random playouts, taken from the build that released it."""


def fresh(weights: list[int] | None = None) -> LinearChessModel2:
    """A model 2 scorer of its own (caches apart from the shipped one's), with ``weights`` if given."""
    model = LinearChessModel2(MODEL_2.filename, MODEL_2.version)
    if weights is not None:
        model._weights = weights
    return model


def test_model_2_is_what_encode_writes_and_every_model_stays_readable():
    rank = get_scheme("chess", "rank")
    assert rank.readable_versions == (0, 1, 2)
    assert rank.version == 2 and rank.model(2) is MODEL_2
    assert len(MODEL_2.weights) == MODEL_2.n_features == N_FEATURES_2 > N_FEATURES


def test_model_2_gives_its_released_frequencies():
    assert digest(MODEL_2.ranked(p, h)[1] for p, c, h in playouts("chess")) == PINNED_FREQUENCIES_2


def test_model_2_scores_are_the_sums_of_the_weights_of_its_features():
    """Random weights (every feature counts): the scorer equals the sum of the weights of the features training
    reads back, on every ply of the seeded playouts."""
    rng = random.Random(11)
    model = fresh([rng.randrange(-300, 300) for _ in range(N_FEATURES_2)])
    checked = 0
    for position, candidates, history in playouts("chess"):
        fast = model.scores(position, candidates, history)
        reference = [sum(model._weights[i] for i in feats) for feats in model.features(position, candidates, history)]
        assert fast[:-1] == reference[:-1]  # the null move: its frequency is pinned to 1 by the coder
        checked += 1
    assert checked > 500


def test_model_2_has_model_1s_features_and_more():
    """Model 2's features below model 1's count are model 1's, id for id; its own features fire on real positions,
    each block of them somewhere in the playouts."""
    model_1 = get_scheme("chess", "rank").model(1)
    own: set[int] = set()
    for position, candidates, history in playouts("chess"):
        ones = model_1.features(position, candidates, history)
        twos = MODEL_2.features(position, candidates, history)
        assert [[i for i in f if i < N_FEATURES] for f in twos] == ones
        own.update(i for f in twos for i in f if i >= N_FEATURES)
    from plybits.chess import rankmodel2 as m

    blocks = [m.G_FROM_SAFETY, m.G_LAST_ATTACKS, m.G_NEAR_LAST, m.G_CAPTURE_GUARDED, m.G_PHASE_RANK, m.G_BOOK,
              N_FEATURES_2]
    for first, end in zip(blocks, blocks[1:]):
        assert own & set(range(first, end)), f"no feature of the block at {first} fired"


OPENING = ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6", "Be3", "e5", "Nb3", "Be6"]
"""A Najdorf line, every position of it in the shipped book (master and online games reach it)."""


def opening_plies() -> list[tuple[object, list, list]]:
    """(position, canonical candidates, history) of each ply of :data:`OPENING`."""
    from plybits.chess.notation import parse_san

    g = get_game("chess")
    position = g.position(None)
    history: list = []
    out = []
    for san in OPENING:
        out.append((position.copy(), get_scheme("chess", "rank").model(2).scored(position, history)[0], list(history)))
        move = parse_san(position, san)
        position.push(move)
        history.append(move)
    return out


def test_the_book_key_is_the_pieces_and_the_side_to_move():
    """Transposed move orders reach one key; the side to move and a moved piece change it; the start position's key
    is pinned (the book's keys are part of the format)."""
    from plybits.chess.rankmodel2 import position_key

    g = get_game("chess")
    assert position_key(g.position(None)) == 0x7723EC7820A684F
    one = g.position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    other = g.position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w - - 2 3")
    assert position_key(one) == position_key(other)  # castling rights are not in the key
    black = g.position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3")
    assert position_key(black) != position_key(one)
    moved = g.position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N1P/PPPP1PP1/RNBQKB1R w KQkq - 2 3")
    assert position_key(moved) != position_key(one)


def scanned_key(position) -> int:
    """The book key by its definition, every cell read: the XOR of ZOBRIST[piece * 64 + square] of the pieces, and of
    ZOBRIST's last number with black to move."""
    key = ZOBRIST[-1] if position.turn == BLACK else 0
    for s in SQUARES:
        piece = position.cells[s]
        if piece:
            key ^= ZOBRIST[piece * 64 + RANK_OF[s] * 8 + FILE_OF[s]]
    return key


KEY_STARTS = (
    None,
    "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1",  # Chess960: castling onto the rook both ways
    "r3k2r/P1P3p1/8/3pP3/8/8/1p4Kp/R6R w kq d6 0 1",  # promotions, under-promotions, en passant, castling
)


def test_the_key_push_keeps_is_the_pieces_read_anew():
    """:attr:`Board.pieces_key`, kept by push (castling, en passant, promotions, captures, null moves), copies, FEN
    set-up and the repetition replay, gives :func:`position_key` the key read from every cell: random playouts from
    standard, Chess960 and promotion-rich starts, and real games."""
    from plybits.chess.rankmodel2 import position_key

    g = get_game("chess")
    rng = random.Random(14)
    for start in KEY_STARTS:
        for _ in range(12):
            position = g.position(start)
            assert position_key(position) == scanned_key(position)
            for _ in range(120):
                moves = position.legal_moves()
                if not moves:
                    break
                position.push(NULL_MOVE if rng.random() < 0.05 and not position.is_check() else rng.choice(moves))
                assert position_key(position) == scanned_key(position)
                copy = position.copy(history=rng.random() < 0.5)
                assert position_key(copy) == scanned_key(position)
            position.repetitions()  # replays the trail on a board set up from the anchor's cells
    for record in records("chess", "chess", "twic0920.pgn")[:40:2]:
        start, moves = replay("chess", record)
        position = g.position(start)
        for move in moves:
            position.push(move)
            assert position_key(position) == scanned_key(position)
        assert position_key(g.position(position.fen())) == scanned_key(position)


def test_the_book_scores_an_opening_line_and_stays_linear():
    """In a common opening every position is in the shipped book and the played move gets a ``G_BOOK`` feature of a
    played share (a bucket above 0); under random weights the scorer equals the sum of the read-back features; past
    :data:`~plybits.openingbook.BOOK_DEPTH` no book feature fires."""
    from plybits.chess import rankmodel2 as m
    from plybits.chess.notation import parse_san

    rng = random.Random(5)
    model = fresh([rng.randrange(-300, 300) for _ in range(N_FEATURES_2)])
    for (position, candidates, history), san in zip(opening_plies(), OPENING):
        feats = MODEL_2.features(position, candidates, history)
        played = candidates.index(parse_san(position, san))
        book = [i - m.G_BOOK for i in feats[played] if i >= m.G_BOOK]
        assert len(book) == 1 and book[0] % 8 > 0, (san, feats[played])
        assert all(sum(i >= m.G_BOOK for i in f) == 1 for f in feats[:-1])  # every move: one G_BOOK feature
        fast = model.scores(position, candidates, history)
        assert fast[:-1] == [sum(model._weights[i] for i in f) for f in model.features(position, candidates, history)][:-1]
    position = get_game("chess").position(None)
    history: list = []
    for san in ["Nf3", "Nf6", "Ng1", "Ng8"] * 8:  # back to the start position, 32 plies into the game
        move = parse_san(position, san)
        position.push(move)
        history.append(move)
    candidates = MODEL_2.scored(position, history)[0]
    assert len(history) >= BOOK_DEPTH
    assert not any(i >= m.G_BOOK for f in MODEL_2.features(position, candidates, history)[:-1] for i in f)


def test_model_2_scores_moves_given_in_any_order_as_in_canonical_order():
    """The scorer reads the book's entry along with the moves in canonical order; a caller's list in another order
    (reversed, shuffled) gets each move the same score, book feature included."""
    rng = random.Random(7)
    for position, candidates, history in opening_plies():
        moves = candidates[:-1]
        canonical = dict(zip(moves, MODEL_2.scores(position, moves, history)))
        for order in (moves[::-1], rng.sample(moves, len(moves))):
            assert MODEL_2.scores(position, order, history) == [canonical[move] for move in order]


def test_the_coders_scores_and_top_in_the_book_are_the_sums_of_the_features_under_any_weights():
    """The coders' scores (:meth:`~plybits.chess.rank.LinearChessModel.coded`: the scorer adds a move never played's
    book weight to every move, :func:`~plybits.chess.rankmodel2._add_book` the played ones' over it, looked for along
    the generator's ascending codes) equal the sums of the read-back features, and the top the highest of them, under
    random weights (a played share's weight below a never played one's: the top read again) and the shipped ones."""
    from plybits.chess.rank import NULL_SCORE
    from plybits.packed import int_list

    rng = random.Random(23)
    for model in (fresh([rng.randrange(-300, 300) for _ in range(N_FEATURES_2)]), MODEL_2):
        for position, candidates, history in opening_plies():
            codes, n, scores, top = model.coded(position, history)
            reference = [sum(model._weights[i] for i in f) for f in model.features(position, candidates, history)]
            assert int_list(scores)[:n - 1] == reference[:-1]
            assert scores[n - 1] == NULL_SCORE and top == max(reference[:-1])


def test_model_2_with_model_1s_weights_and_no_own_weight_scores_as_model_1():
    """Model 2 adds to model 1's scorer: with model 1's weights and its own at 0 it gives model 1's scores."""
    model_1 = get_scheme("chess", "rank").model(1)
    model = fresh(list(model_1.weights) + [0] * (N_FEATURES_2 - N_FEATURES))
    for position, candidates, history in playouts("chess"):
        assert model.scored(position, history) == model_1.scored(position, history)


@pytest.mark.data
@pytest.mark.slow
def test_every_game_of_a_shared_file_round_trips_through_model_2():
    """Every game of the lichess sample (999 games of many players; every 4th with PLYBITS_QUICK=1) encoded with
    model 2 and decoded back, each decoded move checked legal by the decoder."""
    g = get_game("chess")
    rank = get_scheme("chess", "rank")
    recs = records("chess", "chess", "clocks", "lichess_db_standard_rated_2021-10_first999.pgn")
    assert len(recs) == 999
    plies = 0
    for record in recs[:: 4 if QUICK else 1]:
        start, moves = replay("chess", record)
        payload = rank.encode_version(g.position(start), moves, 2).tobytes()
        assert rank.decode(g.position(start), payload, len(moves), 2) == moves
        plies += len(moves)
    assert plies > (60_000 // 4 if QUICK else 60_000)


def test_the_moves_scored_as_they_are_generated_are_the_two_passes_codes_and_scores():
    """Model 2's coders score each move as it is generated (compiled: :func:`~plybits.chess.rankmodel2.
    _generated_scores`), where model 1's generate the codes, then score them (:func:`~plybits.chess.rank._scores`):
    the same codes, scores and top on random playouts (with their histories), on random games preferring checks,
    captures and promotions (castling, en passant and evasions among them), in the book, and where the moves do not
    fit half the board's buffer (218 moves: the two passes)."""
    from plybits.chess.rank import LinearChessModel
    from plybits.packed import int_list
    from tests.test_chess_rules import random_game

    def both(position, history) -> None:
        codes, n, scores, top = MODEL_2.coded(position, history)
        fused = (int_list(codes)[:n], int_list(scores), top)
        codes, n, scores, top = LinearChessModel.coded(MODEL_2, position, history)
        assert fused == (int_list(codes)[:n], int_list(scores), top), position.fen()

    for position, _, history in playouts("chess"):
        both(position, history)
    for seed in range(3):
        for _, position in random_game(seed, 150, 0.5):
            both(position, [])
    for position, _, history in opening_plies():
        both(position, history)
    both(get_game("chess").position("R6R/3Q4/1Q4Q1/4Q3/2Q4Q/Q4Q2/pp1Q4/kBNN1KB1 w - - 0 1"), [])
