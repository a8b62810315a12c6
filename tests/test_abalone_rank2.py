"""abalone/rank model 2: its scorer is the sum of the weights of its feature definition, it was what ``encode``
wrote (until model 3), every older model still reads, and the real games round-trip through it."""

from __future__ import annotations

import random
import re

import pytest

import plybits
from plybits.abalone import rankmodel2
from plybits.abalone.board import ALL_MOVES, move_code
from plybits.abalone.notation import parse_move
from plybits.abalone.rank import MODEL, RANK, canonical_moves
from plybits.abalone.rankmodel2 import (
    F_ATTACK, F_MODEL_1, F_MOVE, F_OPP_TURN, F_OWN_TURN, F_REPEAT, F_TO_KIND, MODEL_2, N_FEATURES, LinearAbaloneModel2,
    attack_state, move_features,
)
from plybits.registry import get_game
from tests.conftest import shared_data


def playout(start: str, plies: int, seed: int):
    """Each ply of a seeded random game: (position, canonical moves, history)."""
    rng = random.Random(seed)
    position = get_game("abalone").position(start)
    history: list = []
    for _ in range(plies):
        moves = canonical_moves(position)
        if not moves:
            break
        yield position, moves, history
        move = rng.choice(moves)
        position.push(move)
        history = history + [move]


def test_model_2_stays_readable():
    """Model 2 was what ``encode`` wrote until model 3 (``tests/test_abalone_rank3.py``); it and model 1 stay readable."""
    assert RANK.models[2] is MODEL_2 and RANK.models[1] is MODEL
    assert RANK.readable_versions[:3] == (0, 1, 2)


def test_the_weights_file_fits_the_features():
    assert len(MODEL_2.weights) == N_FEATURES
    assert any(MODEL_2.weights[F_MOVE:])  # the new features were learned, not left at zero


def test_scores_are_the_sums_of_the_weights_of_the_features():
    """With random weights (every feature counts), the scorer the coder uses gives, for every move of random games
    from three layouts, the sum of the weights of :func:`move_features`, the definition training reads."""
    model = LinearAbaloneModel2(MODEL_2.filename, MODEL_2.version)
    rng = random.Random(11)
    model._weights = [rng.randrange(-300, 300) for _ in range(N_FEATURES)]
    checked = 0
    for seed, start in enumerate(("standard", "belgian-daisy", "german-daisy")):
        for position, moves, history in playout(start, 90, seed):
            expected = [sum(model._weights[i] for i in feats) for feats in move_features(position, moves, history)]
            assert model.scores(position, moves, history) == expected
            assert model.scored(position, history) == (moves, expected)
            checked += 1
    assert checked > 250
    attacks = {f - F_ATTACK for position, moves, history in playout("belgian-daisy", 120, 7)
               for feats in move_features(position, moves, history) for f in feats if f >= F_ATTACK}
    assert {a % 5 for a in attacks} == {0, 1, 2, 3, 4}  # every state of what a move leaves in front of it was scored
    # random games seldom repeat a move: a game that does, both repeats (the last move and the one before) on
    position = get_game("abalone").position("belgian-daisy")
    history: list = []
    for text in ("i9h8", "a5b5", "h8i9", "b5a5", "i9h8", "a5b5"):
        moves = canonical_moves(position)
        expected = [sum(model._weights[i] for i in feats) for feats in move_features(position, moves, history)]
        assert model.scores(position, moves, history) == expected
        move = parse_move(position, text)
        position.push(move)
        history = history + [move]
    assert move_code(history[-2]) == move_code(history[-6])


def test_the_scorer_lists_the_codes_ascending():
    """Model 2 finds a repeated move's slot by bisection: the scorer's codes (canonical order) must ascend."""
    checked = 0
    for seed, start in enumerate(("standard", "belgian-daisy")):
        for position, moves, history in playout(start, 80, seed + 20):
            codes, n, _ = MODEL.coded(position, history)
            assert [codes[i] for i in range(n)] == sorted({move_code(m) for m in moves})
            checked += 1
    assert checked > 100


def test_the_features_of_known_moves():
    """Worked out by hand on the standard start (black's a1..c7 below): a5b5 pushes the line a5 b5 c5 (kind 2,
    three marbles inline) one row up, its front marble onto d5 (cell 22); nothing was played before it."""
    position = get_game("abalone").position("standard")
    move = parse_move(position, "a5b5")
    feats = move_features(position, [move], [])[0]
    assert feats[:-4] == [F_MODEL_1 + f for f in MODEL.features(position, [move], [])[0]]
    assert feats[-4:] == [
        F_MOVE + ALL_MOVES.index(move), F_TO_KIND + 2 * 61 + 22, F_OWN_TURN + 6 * 3, F_OPP_TURN + 6 * 3,
    ]
    # two plies on, black's own last move (a5b5) went in direction 2 and white's i5h5 in direction 5: the broadside
    # c3c4d3 moves two marbles (class 1) in direction 2, a turn of 0 from black's last move and of 3 from white's
    position.push(move)
    reply = parse_move(position, "i5h5")
    position.push(reply)
    broadside = parse_move(position, "c3c4d3")
    assert (broadside.line, broadside.marbles, broadside.direction, reply.direction) == (0, 2, 2, 5)
    feats = move_features(position, [broadside], [move, reply])[0]
    assert F_OWN_TURN + 0 * 3 + 1 in feats and F_OPP_TURN + 3 * 3 + 1 in feats
    assert F_MOVE + len(ALL_MOVES) * 0 + ALL_MOVES.index(broadside) in feats


@pytest.mark.parametrize("row,text,state", [
    ("bb1w5", "e1e2", 1),  # two marbles land against one: a push threat
    ("bb1ww4", "e1e2", 0),  # against two: none
    ("bb1wb4", "e1e2", 0),  # against one backed by a black marble: none
    ("5bb1w", "e6e7", 2),  # against one on the edge: it could be pushed off next
    ("bbbw5", "e1e2", 3),  # three push one, which can be pushed on next
    ("4bbbw1", "e5e6", 4),  # three push one onto the edge, off next
    ("5bbbw", "e6e7", -1),  # three push one off the board: the ejection is model 1's feature
    ("bb7", "e1e2", -1),  # nothing ahead
    ("b1w6", "e1e2", 0),  # a lone marble lands against one: one never pushes one, no threat (the scorer's own path)
    ("b8", "e1e2", -1),  # a lone marble, nothing ahead
])
def test_what_an_inline_move_leaves_in_front_of_it(row, text, state):
    """Worked out by hand on row e (e1..e9 from the left, black to move, the other rows empty): the state of
    ``F_ATTACK`` and the feature the move has, by kind (the marbles in line less one)."""
    position = get_game("abalone").position(f"5/6/7/8/{row}/8/7/6/5 b")
    move = parse_move(position, text)
    assert attack_state(position.cells, move, position.turn) == state
    kind = len(re.match(r"\d*(b+)", row).group(1)) - 1  # the moving line: the first run of black marbles
    feats = move_features(position, [move], [])[0]
    expected = [F_ATTACK + kind * 5 + state] if state >= 0 else []
    assert [f for f in feats if f >= F_ATTACK] == expected
    model = LinearAbaloneModel2(MODEL_2.filename, MODEL_2.version)
    model._weights = [0] * N_FEATURES
    for i in range(15):
        model._weights[F_ATTACK + i] = 1 << i
    assert model.scores(position, [move], []) == [1 << (expected[0] - F_ATTACK) if expected else 0]


def test_a_repeated_move_has_the_repeat_feature():
    position = get_game("abalone").position("belgian-daisy")
    history = []
    for text in ("i9h8", "a5b5", "h8i9", "b5a5"):
        move = parse_move(position, text)
        position.push(move)
        history.append(move)
    again = parse_move(position, "i9h8")
    feats = move_features(position, [again], history)[0]
    assert move_code(again) == move_code(history[0])
    assert F_REPEAT + 1 in feats and F_REPEAT not in feats


@pytest.mark.data
@pytest.mark.slow
def test_every_8th_migs_game_round_trips_through_model_2():
    """Model 2 through the library on every 8th game of the MiGs file (the batch API test codes every game with
    ``rank``, which is model 2), and it costs less than model 1 on the latest 30 of them (held-out games)."""
    game = get_game("abalone")
    text = shared_data("abalone", "migs-2016-2017.train.apgn").read_text(encoding="utf-8")
    records = list(game.split_records(text))
    bits = {1: 0, 2: 0}
    for i, record in enumerate(records[::8]):
        replayed = plybits.read_record("abalone", record=record)
        payload = RANK.encode_version(game.position(replayed.start), replayed.moves, 2).tobytes()
        assert RANK.decode(game.position(replayed.start), payload, len(replayed.moves), 2) == replayed.moves
        if i >= len(records[::8]) - 30:
            bits[2] += len(payload)
            bits[1] += len(RANK.encode_version(game.position(replayed.start), replayed.moves, 1).tobytes())
    assert bits[2] < bits[1]


def test_the_model_module_is_compiled_with_the_rest():
    from plybits.compiled import MODULES

    assert rankmodel2.__name__ in MODULES


def test_model_1_features_read_by_block_are_those_read_back_byte_by_byte():
    """Training reads model 1's features off one score a move (:func:`rankmodel2._model_1_features`, pure build):
    the same ids as :meth:`~plybits.rank.LinearModel.features` reads back under the indicator weights."""
    checked = 0
    for position, moves, history in playout("belgian-daisy", 60, 4):
        fast = rankmodel2._model_1_features(position, moves, history)
        assert fast == [sorted(f) for f in MODEL.features(position, moves, history)]
        checked += sum(map(len, fast))
    assert checked > 2000


def test_model_2_counts_model_1s_features_as_model_1_does():
    from plybits.abalone import rank

    assert rankmodel2.N_MODEL_1_FEATURES == rank.N_FEATURES == len(MODEL.weights)


def test_scores_of_an_illegal_move_is_an_error_naming_it():
    position = get_game("abalone").position("standard")
    illegal = parse_move(position, "a5b5")
    position.push(illegal)  # now white's turn: black's a5b5 line is not white's to move
    with pytest.raises(ValueError, match="is not a legal move"):
        MODEL_2.scores(position, [MODEL_2.canonical(position)[0], illegal], [illegal])
