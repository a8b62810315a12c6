"""xiangqi/xq10: SPEC §4 vectors, the delta mapping checked against an independent candidate-list mapping,
golden containers, and bad data located by ply."""

from __future__ import annotations

import pytest

import plybits
from plybits import container
from plybits.bitio import BitWriter
from plybits.errors import IllegalMoveError, InvalidDataError
from plybits.xiangqi import GAME, XQ10
from plybits.xiangqi.board import (
    ADVISOR, BLACK, CANNON, CHARIOT, ELEPHANT, HORSE, KING, RED, SOLDIER, Board, Move,
)
from plybits.xiangqi.xq10 import DELTA_RANGE, delta, target
from tests.roundtrip import assert_encode_of_plain_tag_vector, assert_roundtrip

# ---- the delta mapping --------------------------------------------------------------------------------------


def candidates(kind: int, color: int, f: int, r: int) -> list[tuple[int, int] | None]:
    """The seed's "candidate list" mapping, written independently of the codec: a piece's possible
    destinations in a fixed order; a destination's index in the list is its delta (None = off the board)."""
    if kind in (CHARIOT, CANNON):
        # walking from the piece: the rank towards lower files (wrapping round), then the file towards lower ranks
        return [((f - k) % 9, r) for k in range(1, 9)] + [(f, (r - k) % 10) for k in range(1, 10)]
    steps = {
        HORSE: [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)],
        ELEPHANT: [(2, 2), (2, -2), (-2, -2), (-2, 2)],
        ADVISOR: [(1, 1), (1, -1), (-1, -1), (-1, 1)],
        KING: [(0, 1), (1, 0), (0, -1), (-1, 0)],
        SOLDIER: [(0, 1 if color == RED else -1), (1, 0), (-1, 0)],
    }[kind]
    return [(f + df, r + dr) if 0 <= f + df <= 8 and 0 <= r + dr <= 9 else None for df, dr in steps]


@pytest.mark.parametrize("kind", [CHARIOT, CANNON, HORSE, ELEPHANT, ADVISOR, KING, SOLDIER])
@pytest.mark.parametrize("color", [RED, BLACK])
def test_arithmetic_delta_equals_candidate_index_everywhere(kind, color):
    for f in range(9):
        for r in range(10):
            listed = candidates(kind, color, f, r)
            assert len(listed) == DELTA_RANGE[kind]
            for index, to in enumerate(listed):
                assert target(kind, color, (f, r), index) == to
                if to is not None:
                    assert delta(kind, color, (f, r), to) == index
            if kind in (CHARIOT, CANNON):  # a bijection onto the 17 other points of its rank and file
                others = {(ff, r) for ff in range(9) if ff != f} | {(f, rr) for rr in range(10) if rr != r}
                assert set(listed) == others and len(set(listed)) == 17


def test_delta_out_of_range_and_impossible_steps():
    with pytest.raises(ValueError):
        target(HORSE, RED, (4, 4), 8)
    with pytest.raises(ValueError):
        target(CHARIOT, RED, (4, 4), 17)
    with pytest.raises(ValueError):
        delta(CHARIOT, RED, (0, 0), (1, 1))
    with pytest.raises(ValueError):
        delta(SOLDIER, RED, (0, 5), (0, 4))  # soldiers never step back


# ---- vectors ------------------------------------------------------------------------------------------------


def test_issue_vector_cannon_and_horse():
    # h2e2: slot 10 (the cannon on h2; slots run a0..i0, b2, h2, ...), along the rank d = (7-4-1) mod 9 = 2
    # h9g7: slot 30 (black horse on h9), (df, dr) = (-1, -2) is index 4 -> 01010 00010 11110 00100 -> 50 bc 40
    assert_roundtrip("xiangqi", "xq10", ["h2e2", "h9g7"], payload_hex="50bc40", payload_bits=20)
    assert_roundtrip("xiangqi", "xq10", ["炮二平五", "马8进7"], payload_hex="50bc40")
    assert_roundtrip("xiangqi", "xq10", ["炮二平五", "马８进７"], notation="chinese", payload_hex="50bc40")
    assert_roundtrip("xiangqi", "xq10", ["C2=5", "H8+7"], notation="wxf", payload_hex="50bc40")


def test_issue_vector_illegal_chariot_through_own_soldier():
    with pytest.raises(IllegalMoveError) as info:
        plybits.encode("xiangqi", "xq10", moves=["h2e2", "h9g7", "a0a5"])
    assert info.value.ply == 2 and info.value.move == "a0a5"
    # the same move as data: slot 0 (chariot a0), along the file d = 8 + (0-5-1) mod 10 = 12
    writer = BitWriter()
    for slot, d in ((10, 2), (30, 4), (0, 12)):
        writer.write(slot, 5)
        writer.write(d, 5)
    with pytest.raises(InvalidDataError) as info:
        XQ10.decode(GAME.position(), writer.to_bytes(), 3, 0)
    assert info.value.ply == 2 and "a0a5" in str(info.value)


def test_hand_worked_fen_start():
    # pieces by r*9+f: a0 R (0), e0 K (1), e1 C (2), e8 a (3), d9 k (4)
    # a0a9: slot 0, d = 8 + (0-9-1) mod 10 = 8; d9d8: slot 4, general (0,-1) = 2
    # 00000 01000 00100 00010 -> 02 08 20
    fen = "3k5/4a4/9/9/9/9/9/9/4C4/R3K4 w - - 0 1"
    encoded = assert_roundtrip("xiangqi", "xq10", ["a0a9", "d9d8"], start=fen, payload_hex="020820")
    assert encoded.final_position == "R8/3ka4/9/9/9/9/9/9/4C4/4K4 w - - 2 2"


def test_soldier_deltas_are_relative_to_its_side():
    # red soldier forward = +rank, black soldier forward = -rank; sideways after the river: 1 = f+1, 2 = f-1
    fen = "3k5/9/9/9/4P4/4p4/9/9/9/4K4 w - - 0 1"  # red soldier e5 (crossed), black soldier e4 (crossed)
    # slots: e0 K 0, e4 p 1, e5 P 2, d9 k 3. e5e6: slot 2 d 0; e4e3: slot 1 d 0; e6f6: slot 2 d 1 (f+1);
    # e3d3: slot 1 d 2 (f-1)
    encoded = assert_roundtrip("xiangqi", "xq10", ["e5e6", "e4e3", "e6f6", "e3d3"], start=fen)
    fields = [int(encoded.payload.hex(), 16) >> (len(encoded.payload) * 8 - 10 * (i + 1)) & 0x3FF for i in range(4)]
    assert [(v >> 5, v & 31) for v in fields] == [(2, 0), (1, 0), (2, 1), (1, 2)]


# ---- golden containers (produced once; must decode to the same game forever) ---------------------------------

GOLDEN = [
    (
        "5042011100000250bc405fe01444",
        None, ["h2e2", "h9g7"], {},
        "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2",
    ),
    (
        "5042011100020c03054576656e7408676f6c64656e20310352656402487505426c61636b034c697550bc439fe04030342ec740"
        "2d04b6a096807d16",
        None, "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 h0h6 h7i7 h6g6 i7i8 b2b6 b7a7".split(),
        {"Event": "golden 1", "Red": "Hu", "Black": "Liu"},
        "r1bakabr1/8c/c1n3n2/pCp1p1R1p/9/9/P1P1P1P1P/4C1N2/9/RNBAKAB2 w - - 3 7",
    ),
    (
        "5042011100010226336b352f3461342f392f392f392f392f392f392f3443342f52334b342077202d202d2030203102082044a3f44f",
        "3k5/4a4/9/9/9/9/9/9/4C4/R3K4 w - - 0 1", ["a0a9", "d9d8"], {},
        "R8/3ka4/9/9/9/9/9/9/4C4/4K4 w - - 2 2",
    ),
]


@pytest.mark.parametrize(("hex_data", "start", "moves", "tags", "final"), GOLDEN)
def test_golden_containers(hex_data, start, moves, tags, final):
    decoded = plybits.decode(bytes.fromhex(hex_data))
    assert (decoded.game, decoded.scheme, decoded.start) == ("xiangqi", "xq10", start)
    assert decoded.moves == moves and decoded.tags == tags and decoded.final_position == final
    again = plybits.encode("xiangqi", "xq10", moves=moves, start=start, tags=tags)
    if tags:  # a plain-tag vector: encode now codes the tags (docs/format.md, flags 0c)
        assert_encode_of_plain_tag_vector(again.data, bytes.fromhex(hex_data))
    else:
        assert again.data.hex() == hex_data


# ---- bad data ----------------------------------------------------------------------------------------------


def _payload(*fields: tuple[int, int], pad: int = 0) -> bytes:
    writer = BitWriter()
    for slot, d in fields:
        writer.write(slot, 5)
        writer.write(d, 5)
    return writer.to_bytes()


def _decode(payload: bytes, plies: int, start: str | None = None):
    return XQ10.decode(GAME.position(start), payload, plies, 0)


@pytest.mark.parametrize(
    ("fields", "ply", "words"),
    [
        ([(16, 0)], 0, "black piece but red is to move"),  # slot 16 = black soldier a6
        ([(10, 2), (10, 2)], 1, "red piece but black is to move"),
        ([(1, 8)], 0, "delta 8 out of range 0..7 for a horse"),
        ([(12, 3)], 0, "delta 3 out of range 0..2 for a soldier"),
        ([(4, 17)], 0, "out of range 0..3 for a general"),
        ([(9, 17)], 0, "delta 17 out of range 0..16 for a cannon"),
        ([(1, 3)], 0, "off the board"),  # horse b0 by (1,-2)
        ([(4, 1)], 0, "illegal move 'e0f0'"),  # f0 holds the general's own advisor
        ([(1, 1)], 0, "illegal move 'b0d1'"),  # horse leg c0 blocked by the elephant
        ([(10, 2), (30, 4), (12, 1)], 2, "illegal move 'c3d3'"),  # soldier sideways before the river
        ([(10, 2), (21, 8 + (7 - 2 - 1) % 10)], 1, "illegal move 'b7b2'"),  # cannon capture with no screen
    ],
)
def test_bad_fields_are_invalid_data_at_their_ply(fields, ply, words):
    with pytest.raises(InvalidDataError) as info:
        _decode(_payload(*fields), len(fields))
    assert info.value.ply == ply and words in str(info.value)


def test_slot_past_the_start_pieces():
    fen = "3k5/4a4/9/9/9/9/9/9/4C4/R3K4 w - - 0 1"  # 5 pieces: slots 0..4
    with pytest.raises(InvalidDataError, match="slot 5 out of range: the start position has 5 pieces") as info:
        _decode(_payload((5, 0)), 1, fen)
    assert info.value.ply == 0


def test_dead_slot():
    # h2h9 takes the horse of slot 30; b9... black: i9h9 retakes with the chariot (slot 31);
    # then red asks slot 10 (the cannon, captured) to move
    payload = _payload((10, 8 + (2 - 9 - 1) % 10), (31, 0), (10, 0))
    with pytest.raises(InvalidDataError, match="slot 10 holds no piece") as info:
        _decode(payload, 3)
    assert info.value.ply == 2


def test_truncated_trailing_and_padding():
    good = _payload((10, 2), (30, 4))
    assert len(_decode(good, 2)) == 2
    with pytest.raises(InvalidDataError, match="truncated"):
        _decode(good[:2], 2)
    with pytest.raises(InvalidDataError, match="trailing"):
        _decode(good + b"\x00", 2)
    with pytest.raises(InvalidDataError, match="padding"):
        _decode(good[:-1] + bytes([good[-1] | 1]), 2)
    with pytest.raises(InvalidDataError, match="truncated"):
        _decode(good, 3)


def test_container_level_corruption_is_invalid_data():
    data = bytes.fromhex(GOLDEN[0][0])
    flipped = bytearray(data)
    flipped[9] ^= 0x10
    with pytest.raises(InvalidDataError):
        plybits.decode(bytes(flipped))
    # a valid CRC around an illegal payload is still caught, at its ply
    box = container.Container(codec_id=0x11, scheme_version=0, plies=3, payload=_payload((10, 2), (30, 4), (0, 12)))
    with pytest.raises(InvalidDataError) as info:
        plybits.decode(container.pack(box))
    assert info.value.ply == 2
    # an unreadable stored start
    box = container.Container(codec_id=0x11, scheme_version=0, plies=0, payload=b"", start="not a fen")
    with pytest.raises(InvalidDataError, match="stored start position"):
        plybits.decode(container.pack(box))


def test_every_real_game_roundtrips_exactly():
    """A few whole games from the data files (when present) through encode -> decode."""
    from tests.conftest import shared_data

    path = shared_data("xiangqi", "Hu_Ronghua_1391_UCI_games.pgn")
    records = GAME.split_records(path.read_text(encoding="utf-8"))
    for _, text in zip(range(200), records):
        record = GAME.parse_record(text)
        encoded = plybits.encode("xiangqi", "xq10", record=text)
        assert encoded.payload_bits == 10 * len(record.moves)
        decoded = plybits.decode(encoded.data)
        assert decoded.moves == record.moves and decoded.tags == record.tags


def test_board_state_is_not_shared_between_calls():
    board = Board()
    XQ10.encode(board.copy(), [Move.from_iccs("h2e2")])
    assert board.fen() == Board().fen()


# ---- fuzz: any bytes decode to a legal game or fail as InvalidDataError --------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40), st.integers(min_value=0, max_value=40))
def test_random_payloads(payload, plies):
    try:
        moves = _decode(payload, plies)
    except InvalidDataError as err:
        assert err.ply is None or 0 <= err.ply <= plies
        return
    assert len(moves) == plies
    assert XQ10.encode(GAME.position(), moves).tobytes() == payload


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 31), st.integers(0, 16)), max_size=12))
def test_random_fields_never_break_the_decoder(fields):
    payload = _payload(*fields)
    try:
        moves = _decode(payload, len(fields))
    except InvalidDataError as err:
        assert err.ply is not None and 0 <= err.ply < len(fields)
        return
    assert XQ10.encode(GAME.position(), moves).tobytes() == payload
