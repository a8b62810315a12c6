"""entropy/rank: round trips, the cost against the information content of draws and choices,
golden vectors for every released model, and refusal of corrupted data."""

from __future__ import annotations

import base64
import math
import random

import pytest

import plybits
from plybits.entropy import Position
from plybits.entropy.rank import RANK, canonical_turns
from plybits.errors import InvalidDataError
from tests.roundtrip import assert_roundtrip


def random_game(seed: int, turns: int = 98) -> list[str]:
    """A game with real draws from the bag and random (legal) choices, as tokens."""
    rng = random.Random(seed)
    board = Position()
    tokens = []
    for _ in range(turns):
        colour = rng.choice([c for c, n in enumerate(board.bag) for _ in range(n)])
        turn = rng.choice(board.legal_moves(colour))
        tokens.append(turn.token())
        board.push(turn)
    return tokens


def information_content(tokens: list[str]) -> float:
    """-log2 of the draw's chance plus log2 of the placement and slide choices, turn by turn (worked out
    here from the rules, not from the coder)."""
    board = Position()
    bits = 0.0
    for token in tokens:
        turn = board.parse_move(token)
        bits -= math.log2(board.bag[turn.colour] / sum(board.bag))
        bits += math.log2(len(board.empty()))
        bits += math.log2(1 + len(board.targets(turn.cell)))
        board.push(turn)
    return bits


@pytest.mark.parametrize("seed", range(20))
def test_random_full_games_round_trip(seed):
    assert_roundtrip("entropy", "rank", random_game(seed))


def test_short_and_empty_games_round_trip():
    assert assert_roundtrip("entropy", "rank", [], payload_hex="").payload_bits == 0
    assert_roundtrip("entropy", "rank", ["Rd4"])
    assert_roundtrip("entropy", "rank", ["Rd4", "Ga1a7", "Kg7"])


def test_cost_is_within_two_percent_of_the_information_content():
    games = [random_game(100 + seed) for seed in range(60)]
    coded = sum(plybits.encode("entropy", "rank", moves=g).payload_bits for g in games)
    ideal = sum(information_content(g) for g in games)
    assert ideal <= coded <= 1.02 * ideal


def test_model_0_is_uniform_over_all_turns():
    """Model 0 costs log2(legal turns, all colours) a turn, plus at most the coder's finish."""
    tokens = random_game(3, 30)
    board, bits, moves = Position(), 0.0, []
    for token in tokens:
        bits += math.log2(len(canonical_turns(board)))
        moves.append(board.parse_move(token))
        board.push(moves[-1])
    payload = RANK.encode_version(Position(), moves, 0)
    assert bits <= len(payload) <= bits + 16
    assert RANK.decode(Position(), payload.tobytes(), len(moves), 0) == moves
    assert len(RANK.encode_version(Position(), [], 0)) == 0


def test_canonical_order_is_colour_cell_option():
    board = Position()
    board.push(board.parse_move("Rb1"))
    turns = canonical_turns(board)
    # a1: left, then slides file+1 (blocked by b1), file-1 (edge), row+1 nearest first; then c1
    assert [t.token() for t in turns[:10]] == [
        "Ra1", "Ra1a2", "Ra1a3", "Ra1a4", "Ra1a5", "Ra1a6", "Ra1a7", "Rc1", "Rc1d1", "Rc1e1",
    ]
    assert [t.token() for t in turns[-2:]] == ["Kg7g2", "Kg7g1"]  # last colour, last cell, row-1, farthest last
    assert len(turns) == len(set(turns)) and set(turns) == set(board.legal_moves())


# Containers produced once by this build; they must decode to the same game forever.
GOLDEN = {
    0: ("UEIBMgAABBHrwXngQkeS31Y", ["Rd4", "Ga1a7", "Kg7", "Yd5d6"]),
    1: ("UEIBMgEABBHrfa9ggbenePQ", ["Rd4", "Ga1a7", "Kg7", "Yd5d6"]),
}


def test_golden_vectors_of_every_released_model():
    assert set(GOLDEN) == set(RANK.readable_versions)
    for version, (blob, tokens) in GOLDEN.items():
        if not blob:
            pytest.fail(f"golden vector of model {version} not filled in")
        decoded = plybits.decode(base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4)))
        assert decoded.moves == tokens and decoded.scheme == "rank"


def test_corrupted_payloads_are_invalid_data():
    tokens = random_game(7)
    board = Position()
    moves = []
    for t in tokens:
        moves.append(board.parse_move(t))
        board.push(moves[-1])
    payload = RANK.encode(Position(), moves).tobytes()
    with pytest.raises(InvalidDataError, match="trailing"):
        RANK.decode(Position(), payload + b"\x00", len(moves), 1)
    with pytest.raises(InvalidDataError) as err:
        RANK.decode(Position(), payload[: len(payload) // 2], len(moves), 1)
    assert err.value.ply is not None
    with pytest.raises(InvalidDataError, match="after the game's last turn"):
        RANK.decode(Position(), payload, len(moves) + 1, 1)
    rng = random.Random(1)
    for _ in range(50):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(60)))
        try:
            RANK.decode(Position(), blob, 98, 1)
        except InvalidDataError:
            pass


def test_through_the_api(client):
    tokens = random_game(42)
    r = client.post("/v1/encode", json={"game": "entropy", "scheme": "rank", "moves": tokens})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["payload_bits"] < 13 * len(tokens)
    back = client.post("/v1/decode", json={"data": body["data"]})
    assert back.status_code == 200 and back.json()["moves"] == tokens
    codecs = client.get("/v1/codecs").json()
    assert any(c["game"] == "entropy" and c["scheme"] == "rank" for c in codecs)
