"""chess/0x88 vectors and golden containers, PGN reading edge cases, and bad input through the library and the API."""

from __future__ import annotations

import base64

import pytest

import plybits
from plybits import container
from plybits.chess import GAME, X88, pgn
from plybits.errors import InvalidDataError, InvalidRecordError
from tests.roundtrip import CHESS960_TAGS, assert_encode_of_plain_tag_vector, assert_roundtrip

# ---------------------------------------------------------------- the vectors


def test_vector_italian_opening():
    assert_roundtrip("chess", "0x88", ["e4", "e5", "Nf3"], notation="san", payload_hex="143464440625", payload_bits=48)


def test_vector_underpromotion_to_knight():
    assert_roundtrip("chess", "0x88", ["a8=N"], notation="san", start="8/P7/8/8/8/8/8/k6K w - - 0 1",
                     payload_hex="60f8", payload_bits=16)


@pytest.mark.parametrize("piece,to_byte", [("q", "70"), ("r", "78"), ("b", "f0"), ("n", "f8")])
def test_promotion_piece_in_the_spare_bits(piece, to_byte):
    # p = 0 queen, 1 rook, 2 bishop, 3 knight; bit 0x08 = p & 1, bit 0x80 = p >> 1
    assert_roundtrip("chess", "0x88", [f"a7a8{piece}"], notation="uci", start="8/P7/8/8/8/8/8/k6K w - - 0 1",
                     payload_hex="60" + to_byte)


def test_castling_is_the_kings_two_step_in_standard_chess_and_takes_the_rook_in_chess960():
    assert_roundtrip("chess", "0x88", ["O-O"], notation="san", start="r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
                     payload_hex="0406")
    assert_roundtrip("chess", "0x88", ["O-O-O"], notation="san", start="r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
                     payload_hex="0402")
    assert_roundtrip("chess", "0x88", ["O-O"], notation="san", start="r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
                     payload_hex="0407")
    assert_roundtrip("chess", "0x88", ["O-O-O"], notation="san", start="r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1",
                     payload_hex="0400")


def test_null_move_is_two_zero_bytes():
    assert_roundtrip("chess", "0x88", ["e4", "--", "d4"], notation="san", payload_hex="143400001333")


def test_en_passant_and_all_scheme_fields_round_trip_in_chess960():
    moves = ["d2d4", "d7d5", "a1b3", "a8b6", "f1e3", "f8e6", "e1g1", "e8g8", "c2c4", "d5c4", "d4d5", "c7c5",
             "d5c6", "0000", "c6b7", "e6d4", "b7c8n"]
    encoded = assert_roundtrip("chess", "0x88", moves, notation="uci",
                               start="nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w GDgd - 0 1")
    assert encoded.final_position == "1bNr1rkq/p3pppp/1n6/8/2pn4/1N2N3/PP2PPPP/1BBR1RKQ b - - 0 9"


# ---------------------------------------------------------------- golden containers (written once, decoded forever)

GOLDEN = [
    # 1. e4 e5 2. Nf3, standard start, no tags
    ("50420101000003143464440625d76d9ebd", None, ["e2e4", "e7e5", "g1f3"], {}),
    # a7-a8=N from a FEN start
    ("504201010001011c382f50372f382f382f382f382f382f6b364b2077202d202d2030203160f8439be409",
     "8/P7/8/8/8/8/8/k6K w - - 0 1", ["a7a8n"], {}),
    # a Chess960 PGN (X-FEN tag, stored as Shredder-FEN): castling both sides, en passant, a null move, =N
    ("50420101000311386e6262726b6e72712f70707070707070702f382f382f382f382f50505050505050502f4e4242524b4e5251"
     "20772047446764202d2030203107054576656e740a476f6c64656e20393630055768697465014105426c61636b014206526573"
     "756c74012a0756617269616e7408436865737339363005536574557001310346454e386e6262726b6e72712f70707070707070"
     "702f382f382f382f382f50505050505050502f4e4242524b4e52512077204b516b71202d20302031133363430021705105247554"
     "040674761232433233436242435200005261543361fa39da942c",
     "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w GDgd - 0 1",
     ["d2d4", "d7d5", "a1b3", "a8b6", "f1e3", "f8e6", "e1g1", "e8g8", "c2c4", "d5c4", "d4d5", "c7c5",
      "d5c6", "0000", "c6b7", "e6d4", "b7c8n"],
     {"Event": "Golden 960", "White": "A", "Black": "B", "Result": "*", "Variant": "Chess960", "SetUp": "1",
      "FEN": "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1"}),
]


@pytest.mark.parametrize("blob,start,moves,tags", GOLDEN)
def test_golden_containers_keep_decoding(blob, start, moves, tags):
    decoded = plybits.decode(bytes.fromhex(blob), notation="uci")
    assert (decoded.game, decoded.scheme, decoded.start, decoded.moves, decoded.tags) == ("chess", "0x88", start, moves, tags)


def test_golden_960_record_is_what_encode_writes():
    record = CHESS960_TAGS + "1. d4 d5 2. Nb3 Nb6 3. Ne3 Ne6 4. O-O O-O 5. c4 dxc4 6. d5 c5 7. dxc6 -- 8. cxb7 Nd4 9. bxc8=N *"
    again = plybits.encode("chess", "0x88", record=record, fidelity="moves").data
    assert_encode_of_plain_tag_vector(again, bytes.fromhex(GOLDEN[2][0]))  # its tags now coded (flags 0c)


# ---------------------------------------------------------------- PGN reading

def test_pgn_drops_comments_nags_and_variations_and_counts_them():
    text = """[Event "x"]
[Result "1-0"]

1. e4 {best by test} e5 $1 2. Nf3!? (2. f4 exf4 (2... d5) 3. Nf3) Nc6 ; a rest-of-line comment
2... a6? {oops} 3. Bb5 $2 $14 1-0"""
    record = GAME.parse_record(text)
    assert record.moves == ["e4", "e5", "Nf3", "Nc6", "a6", "Bb5"]
    assert record.dropped == {"comments": 3, "nags": 5, "variations": 1}  # $1 !? ? $2 $14


def test_pgn_counts():
    text = '[Event "x"]\n\n1. e4 {a} {b} e5 $1 $2 2. Nf3!? (2. f4 {c} exf4 (2... d5) 3. Nf3) Nc6 ; d\n3. Bb5 ?! 1-0\n'
    record = GAME.parse_record(text)
    assert record.moves == ["e4", "e5", "Nf3", "Nc6", "Bb5"]
    assert record.dropped == {"comments": 3, "nags": 4, "variations": 1}
    assert record.tags == {"Event": "x"}


def test_pgn_move_numbers_results_bom_crlf_and_a_blank_line_in_the_headers():
    text = '\ufeff[Event "x"]\r\n\r\n[White "A \\"the\\" player"]\r\n\r\n1.e4 e5 2.Nf3 2...Nc6 3. Bb5 a6 1/2-1/2\r\n'
    record = GAME.parse_record(text)
    assert record.tags == {"Event": "x", "White": 'A "the" player'}
    assert record.moves == ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
    assert GAME.parse_record("1. e4 *").moves == ["e4"]
    assert GAME.parse_record("e2e4 e7e5 g1f3").moves == ["e2e4", "e7e5", "g1f3"]
    assert GAME.parse_record(" *").moves == []


@pytest.mark.parametrize("variant", ["Antichess", "Crazyhouse", "Atomic", "Three-check"])
def test_pgn_variants_other_than_chess960_are_refused_by_name(variant):
    with pytest.raises(InvalidRecordError, match=variant):
        GAME.parse_record(f'[Variant "{variant}"]\n\n1. e4 *')


def test_chess960_tag_makes_a_chess960_start_even_from_the_standard_array():
    record = GAME.parse_record('[Variant "Chess960"]\n\n1. e4 e5 2. Nf3 Nf6 3. Bc4 Bc5 4. O-O *')
    assert record.start == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"
    decoded = plybits.decode(plybits.encode("chess", "0x88", record=record_text(record)).data, notation="uci")
    assert decoded.moves[-1] == "e1h1" and decoded.start == record.start


def record_text(record) -> str:
    """The PGN of ``record``, numbered and flagged from its start position (chess/pgn.py's writer)."""
    if record.start is None:
        return pgn.write_pgn(record)
    start = GAME.position(record.start)
    return pgn.write_pgn(record, chess960=start.chess960, first_turn_black=start.turn != 0,
                         first_number=start.fullmove_number)


def test_split_records_is_lazy_and_respects_comments():
    text = '[Event "1"]\n\n1. e4 {\n[not a tag]\n} e5 *\n\n[Event "2"]\n\n1. d4 *\n'
    parts = GAME.split_records(text)
    first = next(parts)
    assert GAME.parse_record(first).moves == ["e4", "e5"]
    assert [GAME.parse_record(p).moves for p in parts] == [["d4"]]


@pytest.mark.parametrize("text", ["1. e4 (e5", "1. e4 ) e5", '[Event "x"\n\n1. e4', "1. e4 1-0 e5"])
def test_malformed_pgn(text):
    with pytest.raises(InvalidRecordError):
        GAME.parse_record(text)


def test_write_record_round_trips_through_the_reader():
    record = GAME.parse_record('[Event "E"]\n[White "W"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1')
    record.notes = None  # bare moves: the writer completes the tags (an annotated record keeps them as they are)
    text = record_text(record)
    assert text.startswith('[Event "E"]\n[Site "?"]\n[Date "?"]\n[Round "?"]\n[White "W"]\n[Black "?"]\n[Result "0-1"]\n')
    assert text.endswith("\n1. f3 e5 2. g4 Qh4# 0-1\n")
    again = GAME.parse_record(text)
    assert again.moves == record.moves
    black_first = GAME.parse_record('[FEN "4k3/8/8/8/8/8/8/R3K3 b Q - 0 30"]\n\n30... Kd7 31. O-O-O+ *')
    assert record_text(black_first).split("\n\n")[1].strip() == "30... Kd7 31. O-O-O+ *"


# ---------------------------------------------------------------- bad input: library

def _box(payload: bytes, plies: int, start: str | None = None) -> bytes:
    return container.pack(container.Container(codec_id=X88.codec_id, scheme_version=0, plies=plies,
                                              payload=payload, start=start))


@pytest.mark.parametrize(
    "payload,plies,ply,message",
    [
        ("1434", 2, None, "truncated"),
        ("143464", 1, None, "trailing"),
        ("1434644406", 3, None, "truncated"),
        ("1435", 1, 0, "illegal move e2f4"),
        ("14346434", 2, 1, "illegal move e7e4"),
        ("1c34", 1, 0, "from-byte 0x1c"),
        ("14b4", 1, 0, "spare bits"),
        ("143c", 1, 0, "spare bits"),
        ("0607", 1, 0, "illegal"),  # knight g1 takes its own rook
        ("1434643406", 3, None, "truncated"),
        ("143464440407", 3, 2, "two-step"),  # e1h1 in standard chess
        ("143400000534", 3, 2, "illegal move f1e4"),  # white again after the null move; f1-e4 is no bishop line
        ("143400006444", 3, 2, "no white piece on 'e7'"),  # after black's null move it is white's turn
    ],
)
def test_bad_payloads_are_invalid_data_at_their_ply(payload, plies, ply, message):
    with pytest.raises(InvalidDataError, match=message) as info:
        plybits.decode(_box(bytes.fromhex(payload), plies))
    assert info.value.ply == ply


def test_standard_castling_written_as_king_takes_rook_is_refused():
    start = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    with pytest.raises(InvalidDataError, match="two-step") as info:
        plybits.decode(_box(bytes.fromhex("0407"), 1, start))
    assert info.value.ply == 0


def test_promotion_needs_the_last_rank_and_a_pawn():
    with pytest.raises(InvalidDataError, match="spare bits"):
        plybits.decode(_box(bytes.fromhex("06a5"), 1))  # Ng1-f3 with a 0x80 spare bit


def test_a_bad_stored_start_is_invalid_data():
    with pytest.raises(InvalidDataError, match="start"):
        plybits.decode(_box(b"", 0, "not a fen"))


# ---------------------------------------------------------------- bad input: HTTP API


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_illegal_move_is_reported_with_its_ply_and_reason(client):
    response = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "moves": ["e4", "e5", "Ke3"]})
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["ply"] == 2 and problem["move"] == "Ke3" and "Ke3" in problem["detail"]
    response = client.post("/v1/validate", json={"game": "chess", "moves": ["e4", "e5", "Ke3"]})
    assert response.status_code == 200
    assert response.json()["valid"] is False
    assert response.json()["error"]["ply"] == 2 and "Ke3" in response.json()["error"]["reason"]
    response = client.post("/v1/validate", json={"game": "chess", "record": "1. e4 e5 2. Nf9 *"})
    assert response.json()["error"]["ply"] == 2 and "Nf9" in response.json()["error"]["reason"]


def test_validate_reports_status(client):
    response = client.post("/v1/validate", json={"game": "chess", "moves": ["f3", "e5", "g4", "Qh4#"]})
    assert response.json()["status"] == {"status": "checkmate", "winner": "black", "result": "0-1"}


def test_moves_endpoint_lists_castling_in_each_notation(client):
    start = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    san = client.post("/v1/moves", json={"game": "chess", "start": start}).json()["legal"]
    uci = client.post("/v1/moves", json={"game": "chess", "start": start, "notation": "uci"}).json()["legal"]
    assert "O-O" in san and "O-O-O" in san and "e1g1" in uci and "e1c1" in uci and len(san) == len(uci) == 26


def test_garbage_truncated_and_bit_flipped_data_are_4xx_problems(client):
    good = plybits.encode("chess", "0x88", moves=["e4", "e5", "Nf3", "Nc6", "Bb5"], tags={"White": "W"}).data
    bad = ["", "!!!!", "not base64 at all", b64(b"hello world"), b64(b"PB" + bytes(20))]
    bad += [b64(good[:n]) for n in range(len(good))]
    for bit in range(len(good) * 8):
        flipped = bytearray(good)
        flipped[bit // 8] ^= 0x80 >> (bit % 8)
        bad.append(b64(bytes(flipped)))
    for data in bad:
        response = client.post("/v1/decode", json={"data": data})
        assert 400 <= response.status_code < 500, (data, response.status_code, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        assert {"type", "title", "status", "detail"} <= set(response.json())


def test_valid_crc_but_illegal_move_is_a_4xx_with_the_ply(client):
    response = client.post("/v1/decode", json={"data": b64(_box(bytes.fromhex("14346434"), 2))})
    assert response.status_code == 422
    assert response.json()["ply"] == 1 and "e7e4" in response.json()["detail"]


def test_a_different_games_container_never_decodes_as_chess(client):
    # a chess payload relabelled with another codec id decodes as that game or fails, never as chess
    blob = container.pack(container.Container(codec_id=0x7F, scheme_version=0, plies=1, payload=b"\x14\x34"))
    response = client.post("/v1/decode", json={"data": b64(blob)})
    assert 400 <= response.status_code < 500


def test_api_encode_of_a_pgn_reports_what_was_dropped(client):
    record = '[White "W"]\n\n1. e4 {x} e5 $1 (1... c5) 2. Nf3 *'
    response = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "record": record,
                                               "fidelity": "moves"})
    assert response.status_code == 200
    body = response.json()
    assert body["payload"] == "143464440625" and body["plies"] == 3
    assert body["dropped"] == {"comments": 1, "nags": 1, "variations": 1}
    decoded = client.post("/v1/decode", json={"data": body["data"]}).json()
    assert decoded["moves"] == ["e4", "e5", "Nf3"] and decoded["tags"] == {"White": "W"}


def test_api_refuses_a_variant_record_by_name(client):
    response = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88",
                                               "record": '[Variant "Crazyhouse"]\n\n1. e4 e5 2. N@f3 *'})
    assert response.status_code == 422 and "Crazyhouse" in response.json()["detail"]
