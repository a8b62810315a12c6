"""``abalone/abapro``: hand-computed bits, golden containers, random-game round trips, bad data located by ply, the API."""

from __future__ import annotations

import random

import pytest

import plybits
from plybits import container
from plybits.abalone import GAME
from plybits.abalone.abapro import ABAPRO
from plybits.bitio import BitWriter
from plybits.errors import InvalidDataError
from tests.roundtrip import assert_encode_of_plain_tag_vector, assert_roundtrip


def test_registered() -> None:
    from plybits.registry import get_game, get_scheme, scheme_by_id

    assert get_game("abalone").notations == ("abapro",)
    assert get_game("abalone").starts == ("standard", "belgian-daisy", "german-daisy")
    assert get_scheme("abalone", "abapro") is scheme_by_id(0x21)


def test_hand_computed_bits() -> None:
    # c3c5d3: 1 | c3 = 13 = 001101 | line (0,+1) = 000 | three = 1 | move (+1,0) = 010   -> 14 bits
    # i5h5:   0 | i5 = 56 = 111000 | (-1,0) = 101                                         -> 10 bits
    # a1b2:   0 | a1 = 0 = 000000  | (+1,+1) = 001                                        -> 10 bits
    # 10011010001010 0111000101 0000000001 + 6 zero bits = 9a 29 c5 00 40
    assert_roundtrip("abalone", "abapro", ["c3c5d3", "i5h5", "a1b2"], payload_hex="9a29c50040", payload_bits=34)


def test_two_marble_broadside_and_either_end_first() -> None:
    # after c3d4 i5h5, d4c4d3 = the pair c4 d4 (line (+1,0) from c4) moving (0,-1): canonical c4d4c3,
    # i.e. 1 | c4 = 14 | line 2 | two = 0 | move 3
    encoded = plybits.encode("abalone", "abapro", moves=["c3d4", "i5h5", "d4c4d3"], notation="abapro")
    assert encoded.payload_bits == 10 + 10 + 14
    bits = plybits.bitio.BitReader(encoded.payload)
    assert [bits.read(1), bits.read(6), bits.read(3)] == [0, 13, 1]
    assert [bits.read(1), bits.read(6), bits.read(3)] == [0, 56, 5]
    assert [bits.read(1), bits.read(6), bits.read(3), bits.read(1), bits.read(3)] == [1, 14, 2, 0, 3]
    assert plybits.decode(encoded.data).moves == ["c3d4", "i5h5", "c4d4c3"]


def test_pushes_and_ejection_round_trip() -> None:
    start = "5/6/7/8/4bb3/8/w6/w5/b4 w 5 3 30"
    # white c1 b1 push black a1 off: the sixth black marble, white wins; c1 = 11, (-1,0) = 5 -> 0 001011 101
    encoded = assert_roundtrip("abalone", "abapro", ["c1b1"], start=start, payload_hex="1740", payload_bits=10)
    assert encoded.final_position == "5/6/7/8/4bb3/8/7/w5/w4 b 6 3 31"


GOLDEN = [
    # (moves, start, tags, container hex) -- produced once, must decode to the same game forever
    (
        ["c3c5d3", "i5h5", "a1b2"], None, {},
        "504201210000039a29c5004092627903",
    ),
    (
        "i9h8 i6h6 i8h7 a5b5 h8g7 h6g5 h9g8 a4b4 a1b1 b4c4 h7g6 g5f4 g8g7 e3e4 g6f5 f4h4e3".split(),
        "belgian-daisy",
        {"Event": "MIGS 29813", "Black": "abbelgriebsch", "White": "budgie"},
        "504201210003100d62656c6769616e2d646169737903054576656e740a4d49475320323938313305426c61636b0d616262656c67"
        "7269656273636805576869746506627564676965791cd770226d1a46f01a008426b16c60ce05d32ac0074d112f",
    ),
    (
        ["c1b1"], "5/6/7/8/4bb3/8/w6/w5/b4 w 5 3 30", {"Result": "0-1"},
        "5042012100030120352f362f372f382f346262332f382f77362f77352f62342077203520332033300106526573756c7403302d311740"
        "491f74a0",
    ),
]


@pytest.mark.parametrize("moves, start, tags, data", GOLDEN)
def test_golden_vectors(moves: list[str], start: str | None, tags: dict[str, str], data: str) -> None:
    decoded = plybits.decode(bytes.fromhex(data))
    assert (decoded.game, decoded.scheme) == ("abalone", "abapro")
    assert decoded.moves == moves
    assert decoded.start == start
    assert decoded.tags == tags
    again = plybits.encode("abalone", "abapro", moves=moves, start=start, tags=tags).data
    if tags:  # a plain-tag vector: encode now codes the tags (docs/format.md, flags 0c)
        assert_encode_of_plain_tag_vector(again, bytes.fromhex(data))
    else:
        assert again.hex() == data


def random_game(start: str, rng: random.Random, plies: int) -> list[str]:
    board = GAME.position(start)
    out = []
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        pushes = [m for m in moves if board.pushed(m)]
        move = rng.choice(pushes) if pushes and rng.random() < 0.4 else rng.choice(moves)
        out.append(board.move_text(move))
        board.push(move)
    return out


@pytest.mark.parametrize("start", ["standard", "belgian-daisy", "german-daisy"])
def test_random_games_round_trip(start: str) -> None:
    rng = random.Random(start)
    broadside = inline = 0
    for _ in range(40):
        moves = random_game(start, rng, rng.randrange(1, 250))
        encoded = assert_roundtrip("abalone", "abapro", moves, start=start, notation="abapro")
        wide = sum(len(m) == 6 for m in moves)
        broadside += wide
        inline += len(moves) - wide
        assert encoded.payload_bits == 10 * (len(moves) - wide) + 14 * wide
    assert broadside > 100 and inline > 100


def test_nonstandard_start_in_the_container() -> None:
    board = GAME.position("german-daisy")
    board.push(board.parse_move("c3d4"))
    start = board.fen()
    encoded = assert_roundtrip("abalone", "abapro", ["h4h5"], start=start)
    assert container.unpack(encoded.data, max_plies=10).start == start


# --- bad data ------------------------------------------------------------------------------------

def payload(*fields: tuple[int, int]) -> bytes:
    writer = BitWriter()
    for value, width in fields:
        writer.write(value, width)
    return writer.to_bytes()


A1B2 = ((0, 1), (0, 6), (1, 3))
I5H5 = ((0, 1), (56, 6), (5, 3))


@pytest.mark.parametrize(
    "fields, plies, ply, reason",
    [
        ((*A1B2, (0, 1), (61, 6), (0, 3)), 2, 1, "cell number 61 is out of range"),
        (((0, 1), (63, 6), (0, 3)), 1, 0, "cell number 63"),
        (((0, 1), (0, 6), (6, 3)), 1, 0, "direction 6 is out of range"),
        ((*A1B2, *I5H5, (0, 1), (0, 6), (7, 3)), 3, 2, "direction 7"),
        (((1, 1), (13, 6), (3, 3), (1, 1), (2, 3)), 1, 0, "line direction 3 is not 0..2"),
        (((1, 1), (13, 6), (0, 3), (1, 1), (6, 3)), 1, 0, "move direction 6"),
        (((1, 1), (13, 6), (0, 3), (1, 1), (3, 3)), 1, 0, "runs along its line"),
        (((1, 1), (4, 6), (0, 3), (0, 1), (2, 3)), 1, 0, "leaves the board"),  # a5 + a6
        (((0, 1), (0, 6), (3, 3)), 1, 0, "leaves the board"),  # a1 towards (0,-1)
        ((*A1B2, *A1B2), 2, 1, "a1 holds no white marble"),  # black's cell at white's turn
        ((*A1B2, (0, 1), (56, 6), (0, 3)), 2, 1, "5 white marbles in a row"),  # i5 towards i6 .. i9
        (((0, 1), (0, 6), (0, 3)), 1, 0, "illegal move 'a1a2'"),  # a1 .. a5: five in a row
        (A1B2, 2, 1, "truncated"),
    ],
)
def test_bad_data_is_located_by_ply(fields: tuple[tuple[int, int], ...], plies: int, ply: int, reason: str) -> None:
    with pytest.raises(InvalidDataError, match=reason) as caught:
        ABAPRO.decode(GAME.position("standard"), payload(*fields), plies, 0)
    assert caught.value.ply == ply


def test_trailing_data_and_padding() -> None:
    good = payload(*A1B2)
    assert len(ABAPRO.decode(GAME.position("standard"), good, 1, 0)) == 1
    with pytest.raises(InvalidDataError, match="trailing"):
        ABAPRO.decode(GAME.position("standard"), good + b"\x00", 1, 0)
    with pytest.raises(InvalidDataError, match="padding"):
        ABAPRO.decode(GAME.position("standard"), bytes([good[0], good[1] | 1]), 1, 0)


def test_corrupt_container_is_a_4xx_error() -> None:
    data = bytearray(bytes.fromhex(GOLDEN[0][3]))
    data[-5] ^= 0x80
    with pytest.raises(plybits.errors.PlybitsError):
        plybits.decode(bytes(data))


# --- the API -------------------------------------------------------------------------------------

def test_api_codecs_and_moves(client) -> None:
    codecs = client.get("/v1/codecs").json()
    entry = next(c for c in codecs if c["game"] == "abalone" and c["scheme"] == "abapro")
    assert entry["notations"] == ["abapro"] and entry["starts"] == ["standard", "belgian-daisy", "german-daisy"]
    reply = client.post("/v1/moves", json={"game": "abalone", "start": "german-daisy"}).json()
    assert len(reply["legal"]) == 80 and reply["legal"] == sorted(reply["legal"])
    assert reply["position"] == "5/ww2bb/www1bbb/1ww2bb1/9/1bb2ww1/bbb1www/bb2ww/5 b 0 0 1"
    reply = client.post("/v1/moves", json={"game": "abalone", "moves": ["a1b2"]}).json()
    assert reply["position"].split()[1] == "w" and "i5h5" in reply["legal"]


def test_api_encode_decode_convert(client) -> None:
    reply = client.post("/v1/encode", json={"game": "abalone", "scheme": "abapro", "moves": ["C5C3D5", "i5h5", "a1b2"]})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["payload"] == "9a29c50040" and body["payload_bits"] == 34
    decoded = client.post("/v1/decode", json={"data": body["data"]}).json()
    assert decoded["moves"] == ["c3c5d3", "i5h5", "a1b2"]
    converted = client.post(
        "/v1/convert",
        json={"game": "abalone", "moves": ["c5c3d5", "i5h5"], "from_notation": "abapro", "to_notation": "abapro"},
    ).json()
    assert converted == {"moves": ["c3c5d3", "i5h5"]}


def test_api_validate_status_and_errors(client) -> None:
    start = "5/6/7/8/4bb3/8/w6/w5/b4 w 5 3 30"
    reply = client.post("/v1/validate", json={"game": "abalone", "moves": ["c1b1"], "start": start}).json()
    assert reply["valid"] is True
    assert reply["status"] == {"status": "won", "winner": "white", "result": "0-1", "ejected": {"black": 6, "white": 3}}
    reply = client.post("/v1/validate", json={"game": "abalone", "moves": ["a1b2", "a1b2"]}).json()
    assert reply["valid"] is False and reply["error"]["ply"] == 1 and "a1" in reply["error"]["reason"]
    reply = client.post("/v1/encode", json={"game": "abalone", "scheme": "abapro", "moves": ["e1e4d1"]})
    assert reply.status_code == 422 and reply.headers["content-type"].startswith("application/problem+json")
    assert reply.json()["ply"] == 0 and "4 marbles" in reply.json()["detail"]
    reply = client.post("/v1/encode", json={"game": "abalone", "scheme": "abapro", "moves": [], "start": "x/y b"})
    assert reply.status_code == 422
