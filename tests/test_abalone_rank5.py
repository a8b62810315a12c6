"""abalone/rank model 5: its scorer is the sum of the weights of its feature definition (model 3's, and model 1's
evaluation features by the marbles each side has lost), it is what ``encode`` writes, and every older model still
reads."""

from __future__ import annotations

import random
from itertools import chain

import plybits
from plybits.abalone import rank as model_1
from plybits.abalone.board import BLACK, WHITE
from plybits.abalone.rank import MODEL, RANK, canonical_moves
from plybits.abalone.rankmodel2 import MODEL_2
from plybits.abalone import rankmodel3
from plybits.abalone.rankmodel3 import MODEL_3
from plybits.abalone.rankmodel3 import move_features as model_3_features
from plybits.abalone.rankmodel4 import MODEL_4
from plybits.abalone.rankmodel5 import (
    F_PHASE, MODEL_5, N_FEATURES, N_MODEL_1_FEATURES, N_MODEL_3_FEATURES, PHASED, PHASED_BLOCKS, PHASES, LinearAbaloneModel5, move_features, phase,
)
from plybits.registry import get_game
from tests.conftest import shared_data
from tests.test_abalone_rank2 import playout


def real_games(every: int) -> list[tuple[str | None, list]]:
    """(start, moves) of every ``every``-th MiGs game, whole: marbles fall in them, so their plies meet many phases."""
    game = get_game("abalone")
    text = shared_data("abalone", "migs-2016-2017.train.apgn").read_text(encoding="utf-8")
    out = []
    for chunk in list(game.split_records(text))[::every]:
        record = plybits.read_record("abalone", record=chunk)
        out.append((record.start, list(record.moves)))
    return out


def plies_of_real_games(every: int):
    """Each ply of :func:`real_games`: (position, canonical moves, history)."""
    for start, moves in real_games(every):
        board = get_game("abalone").position(start)
        history: list = []
        for move in moves:
            legal = canonical_moves(board)
            if not legal:
                break
            yield board, legal, history
            board.push(move)
            history = history + [move]


def test_model_5_is_what_encode_writes_and_every_model_stays_readable():
    assert RANK.version == 5 and RANK.models[5] is MODEL_5
    assert RANK.readable_versions == (0, 1, 2, 3, 4, 5)
    assert (RANK.models[1], RANK.models[2], RANK.models[3], RANK.models[4]) == (MODEL, MODEL_2, MODEL_3, MODEL_4)
    encoded = plybits.encode("abalone", "rank", moves=["i9h8", "i6h6", "i8h7"], start="belgian-daisy")
    assert encoded.data[4] == 5


def test_the_data_file_fits_the_features_and_learned_the_phases():
    assert len(PHASED) == 30 + 45 + 65 + 20 + 20 + 3 == 183
    assert PHASED_BLOCKS == ((model_1.F_KIND, 30), (model_1.F_CENTRE, 45), (model_1.F_COHESION, 65),
                             (model_1.F_EDGE, 20), (model_1.F_LEAVE_EDGE, 20), (model_1.F_THREAT, 3))
    assert (model_1.F_CENTRE - model_1.F_KIND, model_1.F_DIRECTION - model_1.F_CENTRE) == (30, 45)
    assert (model_1.F_EDGE - model_1.F_COHESION, model_1.F_LEAVE_EDGE - model_1.F_EDGE) == (65, 20)
    assert model_1.F_TO_CELL - model_1.F_LEAVE_EDGE == 20 and model_1.N_FEATURES - model_1.F_THREAT == 3
    assert N_MODEL_1_FEATURES == model_1.N_FEATURES
    assert N_MODEL_3_FEATURES == rankmodel3.N_FEATURES and rankmodel3.F_BOOK == rankmodel3.N_MODEL_2_FEATURES
    assert N_FEATURES == N_MODEL_3_FEATURES + PHASES * 183 == len(MODEL_5.weights)
    assert sum(1 for w in MODEL_5.weights[F_PHASE:] if w) > 500  # the phase weights were learned, not left at zero


def test_phase_is_the_marbles_each_side_has_lost():
    board = get_game("abalone").position("standard")
    assert board.turn == BLACK and phase(board) == 0
    board.ejected = {BLACK: 1, WHITE: 2}
    assert phase(board) == 4 * 1 + 2
    board.ejected = {BLACK: 5, WHITE: 0}
    assert phase(board) == 4 * 3
    board.turn = WHITE
    assert phase(board) == 3  # the mover is white: its lost marbles 0, the opponent's 3+


def test_move_features_are_model_3s_and_the_phased_model_1_ones():
    """A move's features are model 3's, then ``F_PHASE + phase * 183 + i`` for each of them that is model 1's
    ``PHASED[i]``: the definition written out on the plies of real games, whose phases vary."""
    phases = set()
    for board, legal, history in plies_of_real_games(150):
        at = phase(board)
        phases.add(at)
        for feats, old in zip(move_features(board, legal, history), model_3_features(board, legal, history)):
            extra = [F_PHASE + at * 183 + PHASED.index(f) for f in old if f in PHASED]
            assert feats == old + extra
            assert len(extra) >= 5  # kind, centre, cohesion, edge, leaving the edge: one of each, and a threat or not
    assert len(phases) >= 8


def test_scores_are_the_sums_of_the_weights_of_the_features():
    """With random weights, the coder's scorer gives for every move the sum of the weights of :func:`move_features`:
    on random games of three layouts and on whole real games (many phases, the book in their openings)."""
    model = LinearAbaloneModel5(MODEL_5.filename, MODEL_5.version)
    rng = random.Random(15)
    weights = model._weights = [rng.randrange(-300, 300) for _ in range(N_FEATURES)]
    phases = set()
    checked = 0
    plies = chain(*(playout(start, 40, seed) for seed, start in enumerate(("standard", "belgian-daisy", "german-daisy"))),
                  plies_of_real_games(200))  # each yielded before its board moves on
    for position, moves, history in plies:
        expected = [sum(weights[i] for i in feats) for feats in move_features(position, moves, history)]
        assert model.scored(position, history) == (moves, expected)
        phases.add(phase(position))
        checked += 1
    assert checked > 500 and len(phases) >= 8


def test_the_model_module_is_compiled_with_the_rest():
    from plybits.compiled import MODULES

    assert LinearAbaloneModel5.__module__ in MODULES


def test_real_games_round_trip_through_model_5_and_its_bytes_are_its_own():
    """Every 40th MiGs game round-trips with model 5 (and with model 4, whose bytes it does not write)."""
    game = get_game("abalone")
    differ = 0
    for start, moves in real_games(40):
        payload = RANK.encode_version(game.position(start), moves, 5).tobytes()
        assert RANK.decode(game.position(start), payload, len(moves), 5) == moves
        old = RANK.encode_version(game.position(start), moves, 4).tobytes()
        assert RANK.decode(game.position(start), old, len(moves), 4) == moves
        differ += payload != old
    assert differ > 40
