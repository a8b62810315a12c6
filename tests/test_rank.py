"""The rank scheme's shared machinery: integer softmax, quantisation, the model-data loader."""

from __future__ import annotations

import math

import pytest

from plybits.rangecoder import MAX_TOTAL
from plybits.rangecoder import RangeDecoder, RangeEncoder
from plybits.rank import (
    EXP2,
    SCORE_SCALE,
    MoveModel,
    RankScheme,
    UniformModel,
    decode_index,
    decode_scored,
    encode_index,
    encode_scored,
    load_model_data,
    quantise,
    softmax_frequencies,
)


def test_exp2_table_is_two_to_the_minus_d_over_32():
    assert EXP2[0] == 1 << 40
    assert EXP2[SCORE_SCALE] == 1 << 39
    for d in range(0, len(EXP2), 7):
        assert abs(EXP2[d] - 2 ** (40 - d / SCORE_SCALE)) <= 8


def test_exp2_table_is_pinned():
    # a changed table is a changed model for every game: these values are released
    assert EXP2[1] == 1075951360881  # 2^(40 - 1/32) = 1075951360882.2 (floats); the integer roots round down
    assert EXP2[17] == 760812503504  # 2^(40 - 17/32) = 760812503506.7 (floats)
    assert sum(EXP2) == 51312059623219  # pinned when model 1 was released


def test_softmax_frequencies_follow_the_scores():
    freqs = softmax_frequencies([0, 32, 64, -10_000])
    assert freqs[3] == 1
    assert sum(freqs) <= MAX_TOTAL
    # 1 : 2 : 4, each off by at most the floor of 1 and the integer division
    assert abs(freqs[1] / freqs[0] - 2) < 1e-3 and abs(freqs[2] / freqs[1] - 2) < 1e-3


@pytest.mark.parametrize("n", [1, 2, 218, 5000])
def test_softmax_frequencies_floor_and_budget(n):
    scores = [(i * 7919) % 2000 - 1000 for i in range(n)]
    freqs = softmax_frequencies(scores)
    assert len(freqs) == n and min(freqs) >= 1 and sum(freqs) <= MAX_TOTAL
    best = max(range(n), key=lambda i: scores[i])
    assert freqs[best] == max(freqs)


def test_softmax_probabilities_match_the_real_softmax():
    scores = [5, -40, 100, 64, 64, 0, -300]
    freqs = softmax_frequencies(scores)
    z = sum(2 ** (s / SCORE_SCALE) for s in scores)
    for s, f in zip(scores, freqs):
        assert abs(f / sum(freqs) - 2 ** (s / SCORE_SCALE) / z) < 2e-4


def test_softmax_frequencies_of_no_scores_is_an_error():
    with pytest.raises(ValueError):
        softmax_frequencies([])


def test_encode_index_and_decode_index_code_the_symbol_at_its_cumulative_frequency():
    """The shared index coders write what the range coder writes for ``(sum of the frequencies before the
    symbol, its frequency, their total)`` and read the same indices back."""
    import random

    rng = random.Random(5)
    rows = [[rng.randrange(1, 900) for _ in range(rng.randrange(1, 60))] for _ in range(300)]
    indices = [rng.randrange(len(freqs)) for freqs in rows]
    indices[:3] = [0, len(rows[1]) - 1, 0]  # the first and last symbols
    _assert_codes_as_reference(
        rows, indices, lambda encoder, freqs, index: encoder.encode(sum(freqs[:index]), freqs[index], sum(freqs)),
        encode_index, decode_index)


def _assert_codes_as_reference(rows, indices, reference_encode, encode, decode):
    """``encode`` of each row's index writes the bytes ``reference_encode`` writes, and ``decode`` reads the indices
    back from them, leaving nothing over."""
    reference, tested = RangeEncoder(), RangeEncoder()
    for row, index in zip(rows, indices):
        reference_encode(reference, row, index)
        encode(tested, row, index)
    data = tested.finish()
    assert data == reference.finish()
    decoder = RangeDecoder(data)
    assert [decode(decoder, row) for row in rows] == indices
    decoder.finish()


def test_scored_coders_code_what_the_index_coders_code_under_the_softmax():
    """encode_scored / decode_scored (the frequencies never listed) write and read exactly what encode_index /
    decode_index do with softmax_frequencies of the same scores: among them scores far apart (frequency 1),
    ties, one score alone, the null move's -2^20 and 218 moves."""
    import random

    rng = random.Random(17)
    rows = [[rng.randrange(-3000, 3000) for _ in range(rng.randrange(1, 219))] for _ in range(400)]
    rows[:4] = [[0], [5, 5, 5], [0, -(1 << 20), 900], [64 * k for k in range(218)]]
    indices = [rng.randrange(len(scores)) for scores in rows]
    indices[3] = 217
    _assert_codes_as_reference(
        rows, indices, lambda encoder, scores, index: encode_index(encoder, softmax_frequencies(scores), index),
        encode_scored, decode_scored)


def test_packed_coders_given_the_top_code_what_the_scored_coders_code_and_the_decoder_leaves_the_frequencies():
    """encode_packed / decode_packed, given the top as a scorer keeps it, write and read exactly what encode_scored /
    decode_scored do (the same rows as above); decode_packed given the scores as its ``freqs`` leaves the row's
    softmax_frequencies in them."""
    import random

    from plybits.packed import int_array, int_list
    from plybits.rank import decode_packed, encode_packed

    rng = random.Random(17)
    rows = [[rng.randrange(-3000, 3000) for _ in range(rng.randrange(1, 219))] for _ in range(400)]
    rows[:4] = [[0], [5, 5, 5], [0, -(1 << 20), 900], [64 * k for k in range(218)]]
    indices = [rng.randrange(len(scores)) for scores in rows]
    _assert_codes_as_reference(
        rows, indices, encode_scored,
        lambda encoder, scores, index: encode_packed(encoder, int_array(scores[:]), index, top=max(scores)),
        decode_scored)
    encoder = RangeEncoder()
    for scores, index in zip(rows, indices):
        encode_scored(encoder, scores, index)
    decoder = RangeDecoder(encoder.finish())
    for scores, index in zip(rows, indices):
        packed = int_array(scores[:])
        assert decode_packed(decoder, packed, top=max(scores), freqs=packed) == index
        assert int_list(packed) == softmax_frequencies(scores)
    decoder.finish()


def test_scored_coders_code_the_softmax_by_the_reciprocal_exactly(monkeypatch):
    """The compiled softmax finds each ``weight * spare // total`` as a reciprocal estimate (``weight * ((spare << 46)
    // total) >> 46``) corrected by one where it falls short; forced here in whichever build runs (pure Python
    divides otherwise), the coders still write and read exactly what the index coders do under softmax_frequencies
    (which always divides), on rows that include estimates one short."""
    import random

    import plybits.rank
    from plybits.packed import int_array
    from plybits.rank import _RECIPROCAL_SHIFT, _softmax_terms

    monkeypatch.setattr(plybits.rank, "PACKED", True)  # no effect compiled, where it is already so
    rng = random.Random(17)
    rows = [[rng.randrange(-3000, 3000) for _ in range(rng.randrange(1, 219))] for _ in range(400)]
    short = 0
    for scores in rows:
        top, spare, total = _softmax_terms(int_array(scores), MAX_TOTAL)
        reciprocal = (spare << _RECIPROCAL_SHIFT) // total
        for score in scores:
            if top - score < len(EXP2):
                weight = EXP2[top - score]
                short += weight * reciprocal >> _RECIPROCAL_SHIFT != weight * spare // total
    assert short > 0  # the correction is exercised
    indices = [rng.randrange(len(scores)) for scores in rows]
    _assert_codes_as_reference(
        rows, indices, lambda encoder, scores, index: encode_index(encoder, softmax_frequencies(scores), index),
        encode_scored, decode_scored)


def test_quantise():
    assert quantise([0, 0, 0]) == [1, 1, 1]
    freqs = quantise([1, 0, 3])
    assert freqs[1] == 1 and sum(freqs) <= MAX_TOTAL and abs(freqs[2] / freqs[0] - 3) < 1e-3


def test_model_data_is_loaded_once():
    a = load_model_data("plybits.chess", "rank_model_v1.json") if _has_chess_model() else None
    if a is None:
        pytest.skip("no chess model data in this build")
    assert load_model_data("plybits.chess", "rank_model_v1.json") is a


def _has_chess_model() -> bool:
    from importlib import resources
    from importlib.util import find_spec

    return find_spec("plybits.chess") is not None and resources.files("plybits.chess").joinpath(
        "rank_model_v1.json"
    ).is_file()


@pytest.mark.parametrize("game,record", [
    ("chess", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 *"),
    ("xiangqi", "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7"),
])
def test_rank_encode_replays_the_game_once(monkeypatch, game, record):
    """encode with rank codes each move during the replay that checks the record (its step encoder): the
    board plays each ply once, and the container is the one the scheme's own encode writes."""
    import plybits
    from plybits.registry import get_game, get_scheme
    from plybits.replay import MovePlayer

    position_class = type(get_game(game).position(None))
    pushes = 0
    push = position_class.push

    def counting_push(self: object, move: object) -> None:
        nonlocal pushes
        pushes += 1
        push(self, move)

    monkeypatch.setattr(position_class, "push", counting_push)
    module = position_class.notation_module
    player = getattr(module, "PLAYER", None)
    if player is not None:  # the replay plays through the notation module's player (chess's), where it has one

        class CountingPlayer(MovePlayer):
            def push(self, position: object, move: object) -> None:
                nonlocal pushes
                pushes += 1
                player.push(position, move)

        monkeypatch.setattr(module, "PLAYER", CountingPlayer())
    encoded = plybits.encode(game, "rank", record=record)
    assert pushes == encoded.plies
    monkeypatch.setattr(position_class, "push", push)
    if player is not None:
        monkeypatch.setattr(module, "PLAYER", player)
    replay = plybits.read_record(game, record=record)
    scheme = get_scheme(game, "rank")
    assert encoded.payload == scheme.encode(replay.start_position.copy(), replay.moves).tobytes()
    assert plybits.decode(encoded.data).plies == len(replay.moves)


def test_a_rank_scheme_reads_every_model_it_is_given_and_writes_the_newest():
    def later() -> MoveModel:
        model = MoveModel()
        model.version = 2  # set on the instance: compiled, a class attribute of an interpreted subclass is not read
        return model

    scheme = RankScheme("tictactoe", 0x41, "test", lambda board: [], later())
    assert (scheme.game, scheme.name, scheme.codec_id) == ("tictactoe", "rank", 0x41)
    assert scheme.readable_versions == (0, 2) and scheme.version == 2
    assert isinstance(scheme.model(0), UniformModel)
    with pytest.raises(ValueError, match="tictactoe/rank: a second model of version 2"):
        RankScheme("tictactoe", 0x41, "test", lambda board: [], later(), later())


def test_a_rank_step_encoder_checks_a_deadline_set_when_it_was_made():
    """The step encoder checks the deadline every EVERY plies from ply 0 where one was set as it was made (a verb's
    deadline is set around the whole call): scheme.encode, which feeds it with no replay checking each ply, stops
    at ply 0 under a passed one; made with none set, it reads no clock."""
    import time

    from plybits.deadline import deadline
    from plybits.errors import DeadlineExceededError
    from plybits.registry import get_game, get_scheme

    game = get_game("chess")
    scheme = get_scheme("chess", "rank")
    start = game.position(None)
    moves = []
    position = start.copy()
    for text in ("e2e4", "e7e5", "g1f3"):
        moves.append(position.parse_move(text, "uci"))
        position.push(moves[-1])
    with deadline(time.monotonic() - 1, 0.5), pytest.raises(DeadlineExceededError, match="ply 0:"):
        scheme.encode(start.copy(), moves)
    stepper = scheme.step_encoder()
    with deadline(time.monotonic() - 1, 0.5):  # set after it was made: not its verb's
        played = start.copy()
        for move in moves:
            stepper.add(played, move)
            played.push(move)
    assert stepper.finish(start).tobytes() == scheme.encode(start.copy(), moves).tobytes()
