"""``entropy/e13``: the SPEC vector, golden containers, and every malformed field named by its ply."""

from __future__ import annotations

import random

import pytest

import plybits
from plybits import container
from plybits.entropy import Position
from plybits.errors import InvalidDataError
from tests.roundtrip import assert_encode_of_plain_tag_vector, assert_roundtrip
from tests.test_entropy_rules import LETTERS, model_board_fen, model_score, pack13, random_game


def word(colour: str, cell: str, option: int = 0) -> int:
    """An e13 word packed by hand: colour (3), cell number (6), option (4)."""
    number = (int(cell[1]) - 1) * 7 + "abcdefg".index(cell[0])
    return LETTERS.index(colour) << 10 | number << 4 | option


def blob(words: list[int], plies: int | None = None, payload: bytes | None = None, start: str | None = None) -> bytes:
    if payload is None:
        payload = bytes.fromhex(pack13(words))
    return container.pack(container.Container(
        codec_id=0x31, scheme_version=0, plies=len(words) if plies is None else plies, payload=payload, start=start))


def model_replay(tokens: list[str]) -> tuple[list[int], str]:
    """Scores and final board string by the test's own model (a 2-D list, no library code)."""
    board: list[list[str | None]] = [[None] * 7 for _ in range(7)]
    scores = []
    for ply, token in enumerate(tokens):
        target = token[-2:]
        board[int(target[1]) - 1]["abcdefg".index(target[0])] = token[0]
        if ply % 49 == 48:
            scores.append(model_score(board))
            if ply < 97:
                board = [[None] * 7 for _ in range(7)]
    return scores, model_board_fen(board)


def test_spec_vector():
    """Rd4: R=0, d4=24, option 0; Ga1a7: G=1, a1=0, a7 is the 12th reachable cell (b1..g1, a2..a7): option 12."""
    assert word("R", "d4") == 0b000_011000_0000 and word("G", "a1", 12) == 0b001_000000_1100
    assert_roundtrip("entropy", "e13", ["Rd4", "Ga1a7"], notation="tokens", payload_hex="0c010300", payload_bits=26)


def test_every_option_of_a_corner_and_a_centre_cell_round_trips():
    for cell in ("a1", "d4", "g7"):
        board = Position()
        moves = [m for m in board.legal_moves("Y") if board.move_text(m)[1:3] == cell]
        assert len(moves) == 13
        for option, move in enumerate(moves):
            token = board.move_text(move)
            assert_roundtrip("entropy", "e13", [token], notation="tokens",
                             payload_hex=pack13([word("Y", cell, option)]))


def test_an_empty_game_and_a_mid_round_start():
    assert_roundtrip("entropy", "e13", [], payload_hex="", payload_bits=0)
    start = "G6/7/7/3R3/7/7/7 1 3 -"
    # from g7 the chip reaches f7 e7 d7 c7 b7 (a7 holds G): b7 is option 5
    encoded = assert_roundtrip("entropy", "e13", ["Bg7b7", "Wc7"], start=start, notation="tokens",
                               payload_hex=pack13([word("B", "g7", 5), word("W", "c7")]))
    assert encoded.final_position == "GBW4/7/7/3R3/7/7/7 1 5 -"


# --- golden containers: produced once, must decode to the same game forever ---------------

GOLDEN_SHORT = "504201310000020c010300cd9329d9"
GOLDEN_ROUND_2_START = "5042013100010214372f372f372f372f372f372f3720322031203331c265c000a8d546d0"
GOLDEN_FULL_TOKENS = (
    "Gc4e4 Of4 Yc6e6 Kb5b3 Wg5g4 Rd3 Oa7 Wa6b6 Wc7f7 Wd1 Bg6 Wa2 Wg5c5 Ye3 Yc2 Ob7 Rb4a4 Re7 Rc3c4 Gf6f5 Kf1 Ye5 "
    "Kd7d4 Kc3 Bd2f2 Yb5b4 Bb5a5 Ga3 Kg3f3 Gc6 Gc7d7 Ga6 Oc7 Oc1 Og7 Og2g3 Bd6 Re1e2 Wb1a1 Yf6 Gb2b1 Rg2 Rd5 Bb2 "
    "Yg1 Ke1 Bb5 Kg5 Bd2 Yb5b2 Oe7e6 Yc1f1 Wc1 Ge1e2 Wg5 Yb1a1 Of6 Rg2g3 Bc5c3 Gf5 Kd5d7 Od3d5 Kb6d6 Wg4c4 Bf2f4 "
    "Ge4 Gf3e3 Ye7g7 Ra4a2 Rd2 Ka4 Rb4b6 Rg1 Gd3d4 Og6 Yf3f2 Yc2 Bb4b3 Od3 Og2 Kd1 Wg4 Kf3 Wa6a7 Ba5 Ga3 Bc5b5 "
    "Wc6 Oe5 Kc7 Kb1 Re1 Rc5 Gb4 Ye7f7 Bb7 We7 Ba6"
).split()
GOLDEN_FULL = (
    "504201310002620205466972737403416e6e065365636f6e6403426f622b926824a59dab148441541631b61d0c1d21470b12448212"
    "0ab00b18b80202681c2848035a99006514749ba24e0ca09940d8263056020816008d1730010682328024083403e0c808306101ba1a20"
    "650476d5cf023a10110ac410115400349bd2610cfb24534855b46619640a632e20ab02832a0162030144552113184835892208d0c185"
    "6c32616316e01381bc36505006b030200400f015825c2eb0b7038c0089f280b6"
)


def test_golden_short():
    decoded = plybits.decode(bytes.fromhex(GOLDEN_SHORT))
    assert (decoded.game, decoded.scheme, decoded.start, decoded.moves) == ("entropy", "e13", None, ["Rd4", "Ga1a7"])
    assert plybits.encode("entropy", "e13", moves=["Rd4", "Ga1a7"]).data.hex() == GOLDEN_SHORT


def test_golden_round_2_start():
    decoded = plybits.decode(bytes.fromhex(GOLDEN_ROUND_2_START))
    assert decoded.start == "7/7/7/7/7/7/7 2 1 31"
    assert decoded.moves == ["Ke1e7", "Wg7"]
    assert decoded.final_position == "4K1W/7/7/7/7/7/7 2 3 31"


def test_golden_full_game_with_tags():
    decoded = plybits.decode(bytes.fromhex(GOLDEN_FULL))
    assert decoded.moves == GOLDEN_FULL_TOKENS and decoded.plies == 98
    assert decoded.tags == {"First": "Ann", "Second": "Bob"}
    scores, board = model_replay(GOLDEN_FULL_TOKENS)
    assert decoded.final_position == f"{board} 2 - {scores[0]},{scores[1]}"
    again = plybits.encode("entropy", "e13", moves=GOLDEN_FULL_TOKENS, tags={"First": "Ann", "Second": "Bob"})
    assert_encode_of_plain_tag_vector(again.data, bytes.fromhex(GOLDEN_FULL))  # its tags now coded (flags 0c)


# --- malformed payloads ------------------------------------------------------------------


@pytest.mark.parametrize(
    "words,ply,reason",
    [
        ([7 << 10], 0, "colour 7 out of range"),
        ([word("R", "d4"), 1 << 10 | 49 << 4], 1, "cell 49 out of range"),
        ([word("R", "d4"), 63 << 4], 1, "cell 63 out of range"),
        ([word("R", "a1", 13)], 0, "option 13 out of range"),
        ([word("R", "a1", 15)], 0, "option 15 out of range"),
        ([word("R", "b1"), word("G", "a1", 7)], 1, r"option 7 out of range: a chip on a1 can stay \(0\) or slide to 6"),
        ([word("R", "a2"), word("G", "b1"), word("B", "a1", 1)], 2,
         r"option 1 out of range: a chip on a1 cannot slide \(no empty cell beside it\)"),
        ([word("R", "d4"), word("G", "d4")], 1, "cell d4 is occupied by R"),
        ([word("R", c + "1") for c in "abcdefg"] + [word("R", "a2")], 7, r"no red \(R\) chip left"),
    ],
)
def test_bad_fields_are_invalid_data_at_their_ply(words, ply, reason):
    with pytest.raises(InvalidDataError, match=reason) as caught:
        plybits.decode(blob(words))
    assert caught.value.ply == ply


def test_a_99th_turn_in_the_data_is_refused():
    tokens, words, _, _ = random_game(random.Random(11))
    assert plybits.decode(blob(words)).moves == tokens
    with pytest.raises(InvalidDataError, match="game is over") as caught:
        plybits.decode(blob(words + [word("R", "d4")]))
    assert caught.value.ply == 98


def test_a_turn_after_a_finished_start_is_refused():
    tokens, words, _, _ = random_game(random.Random(12))
    finished = plybits.read_record("entropy", moves=tokens).final.fen()
    with pytest.raises(InvalidDataError, match="game is over") as caught:
        plybits.decode(blob([word("R", "d4")], start=finished))
    assert caught.value.ply == 0


@pytest.mark.parametrize(
    "plies,payload,reason",
    [
        (2, bytes.fromhex("0c0103"), "truncated"),  # 24 bits for 26
        (1, bytes.fromhex("0c0000"), "trailing"),
        (1, bytes.fromhex("0c01"), "non-zero padding"),  # Rd4 then a stray 1 in the padding
        (1, b"", "truncated"),
    ],
)
def test_truncation_trailing_bytes_and_padding(plies, payload, reason):
    with pytest.raises(InvalidDataError, match=reason):
        plybits.decode(blob([], plies=plies, payload=payload))


def test_truncation_names_the_ply_it_cuts():
    """The second turn's 13 bits are cut short: ply 1 (the first turn, Rd4, reads whole)."""
    with pytest.raises(InvalidDataError, match="truncated") as caught:
        plybits.decode(blob([], plies=2, payload=bytes.fromhex("0c0103")))
    assert caught.value.ply == 1


def test_random_bytes_never_escape_as_anything_but_invalid_data():
    rng = random.Random(5)
    for _ in range(300):
        plies = rng.randrange(1, 12)
        payload = bytes(rng.randrange(256) for _ in range((13 * plies + 7) // 8))
        try:
            decoded = plybits.decode(blob([], plies=plies, payload=payload))
        except InvalidDataError as err:
            assert err.ply is None or 0 <= err.ply < plies
        else:  # whatever decodes is a legal game that encodes back to the same bits
            assert plybits.encode("entropy", "e13", moves=decoded.moves).payload == payload


@pytest.mark.parametrize("seed,cut", [(41, 5), (42, 30), (43, 47), (44, 60)])
def test_every_legal_turn_of_a_position_round_trips_to_the_model_word(seed, cut):
    """All turns of all colours left, from positions part-way through random games: the word is the model's."""
    from plybits.entropy.e13 import E13
    from tests.test_entropy_rules import reachable

    tokens, _, _, _ = random_game(random.Random(seed))
    board = plybits.read_record("entropy", moves=tokens[:cut]).final
    model = [[None] * 7 for _ in range(7)]
    for f, r, letter in board.occupied():
        model[r][f] = letter
    scheme = E13
    moves = board.legal_moves()
    assert moves
    for move in moves:
        token = board.move_text(move)
        cell, to = token[1:3], token[3:5] or token[1:3]
        f, r = "abcdefg".index(cell[0]), int(cell[1]) - 1
        targets = ["abcdefg"[x] + str(y + 1) for x, y in reachable(model, f, r)]
        option = 0 if to == cell else 1 + targets.index(to)
        bits = scheme.encode(board.copy(), [move])
        assert bits.to01() == format(word(token[0], cell, option), "013b")
        assert scheme.decode(board.copy(), bits.tobytes(), 1, 0) == [move]
