"""Turn tokens, records and position strings of New Entropy: case rules, refusals, multi-record files, fuzzing."""

from __future__ import annotations

import json
import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import plybits
from plybits.entropy import GAME, Position
from plybits.entropy.notation import parse_record, parse_token, split_records, write_record
from plybits.errors import InvalidMoveError, InvalidPositionError, InvalidRecordError, PlybitsError, UnknownCodecError
from plybits.game import Record
from tests.test_entropy_rules import random_game


@pytest.mark.parametrize("text,token", [("Rd4", "Rd4"), ("rd4", "Rd4"), ("RD4", "Rd4"), ("kG7g1", "Kg7g1"),
                                        ("bb2", "Bb2"), ("BB2B7", "Bb2b7")])
def test_tokens_are_read_in_either_case_and_written_canonically(text, token):
    assert parse_token(text).token() == token


@pytest.mark.parametrize(
    "text,reason",
    [
        ("", "bad turn token ''"),
        ("Rd", "bad turn token 'Rd'"),
        ("Rd4d", "bad turn token 'Rd4d'"),
        ("Rd4-d5", "bad turn token 'Rd4-d5'"),
        (" Rd4", "bad turn token ' Rd4'"),
        ("Rd4 ", "bad turn token 'Rd4 '"),
        ("Pd4", "unknown colour 'P'"),
        ("4d4", "unknown colour '4'"),
        ("R44", "unknown cell '44'"),
        ("Ra0", "unknown cell 'a0'"),
        ("Rd4h4", "unknown cell 'h4'"),
        ("Rd4D4", "a slide must move; write 'Rd4'"),
        ("Rｄ4", "unknown cell"),
    ],
)
def test_malformed_tokens_are_refused_by_name(text, reason):
    with pytest.raises(InvalidMoveError, match=reason):
        parse_token(text)


def test_an_unknown_notation_is_refused():
    # The verbs check a notation's name, once, for every game; the board trusts it.
    with pytest.raises(UnknownCodecError, match="unknown notation 'san' for entropy; known: tokens"):
        plybits.read_record("entropy", moves=["Rd4"], notation="san")
    with pytest.raises(UnknownCodecError, match="unknown notation"):
        plybits.legal_moves("entropy", moves=["Rd4"], notation="uci")


def test_the_api_refuses_an_unknown_notation(client):
    response = client.post("/v1/encode", json={"game": "entropy", "scheme": "e13", "moves": ["Rd4"], "notation": "san"})
    assert response.status_code == 422 and "unknown notation 'san'" in response.json()["detail"]


def test_position_strings_are_read_in_either_case_and_canonicalised():
    assert Position("g6/7/7/3r3/7/7/7 1 3 -").fen() == "G6/7/7/3R3/7/7/7 1 3 -"
    assert Position("  7/7/7/7/7/7/7\t1  1 - ").fen() == "7/7/7/7/7/7/7 1 1 -"


def test_the_empty_board_is_the_default_start_however_written():
    body = b"PB" + bytes([1, 0x31, 0, 0, 1]) + bytes.fromhex("0c00")  # no start stored: flags 0
    for start in (None, "empty", "7/7/7/7/7/7/7 1 1 -"):
        assert GAME.canonical_start(start) is None
        assert plybits.encode("entropy", "e13", moves=["Rd4"], start=start).data == body + zlib.crc32(body).to_bytes(4, "big")
    assert GAME.canonical_start("g6/7/7/7/7/7/7 1 2 -") == "G6/7/7/7/7/7/7 1 2 -"


def test_a_finished_game_has_no_legal_moves(client):
    tokens, _, _, _ = random_game(random.Random(31))
    body = client.post("/v1/moves", json={"game": "entropy", "moves": tokens}).json()
    assert body["legal"] == [] and body["position"].split()[1:3] == ["2", "-"]


def test_records_round_trip_through_write_and_parse():
    record = Record(moves=["Rd4", "Ga1a7"], start="7/7/7/7/7/7/7 2 1 31", tags={"First": 'Ann "A"', "Second": "Bob\\"})
    text = write_record(record)
    assert text == '[Start "7/7/7/7/7/7/7 2 1 31"]\n[First "Ann \\"A\\""]\n[Second "Bob\\\\"]\n\nRd4 Ga1a7\n'
    again = parse_record(text)
    assert (again.moves, again.start, again.tags) == (record.moves, record.start, record.tags)


@pytest.mark.parametrize("text,reason", [
    ('[Event "x]\nRd4', "malformed tag line"),
    ("Rd4 {open", "unclosed comment"),
    ('[Start "7/7/7/7/7/7/7 1 1 -"]\n[FEN "7/7/7/7/7/7/7 2 1 3"]\nRd4', "Start and FEN tags disagree"),
])
def test_malformed_records_are_refused(text, reason):
    with pytest.raises(InvalidRecordError, match=reason):
        parse_record(text)


def test_a_fen_tag_is_a_start_too():
    record = parse_record('[FEN "7/7/7/7/7/7/7 2 1 3"]\n[Start "7/7/7/7/7/7/7 2 1 3"]\nRd4')
    assert record.start == "7/7/7/7/7/7/7 2 1 3" and record.tags == {}


def test_multi_record_texts_split_at_blank_lines_and_tag_sections():
    text = '[Event "a"]\n\nRd4 Ga1a7\nBb2 {two\n\nlines} Kc3\n\nRd4\nWd5\n[Event "b"]\nRd4 Ge5\n\n\n'
    assert list(split_records(text)) == [
        '[Event "a"]\n\nRd4 Ga1a7\nBb2 {two\n\nlines} Kc3', "Rd4\nWd5", '[Event "b"]\nRd4 Ge5']


def test_a_plain_text_batch_encodes_each_record(client):
    body = '[Event "a"]\n\nRd4 Ga1a7\n\nRd4 Rd4\n\nKc3\nWb2\n'
    response = client.post("/v1/batch/validate?game=entropy", content=body, headers={"content-type": "text/plain"})
    lines = [json.loads(line) for line in response.text.splitlines()]
    assert [line["result"]["valid"] for line in lines] == [True, False, True]
    assert lines[1]["result"]["error"] == {"ply": 1, "move": "Rd4", "reason": "cell d4 is occupied by R"}


# --- fuzzing: nothing but a plybits error ever comes out --------------------------------------

TOKEN_CHARS = "RGOBYWKrgobywkabcdefgABCDEFGH0123456789 -x{}[]\"."


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=TOKEN_CHARS, max_size=7), max_size=6))
def test_any_token_list_is_played_or_refused_cleanly(tokens):
    try:
        replay = plybits.read_record("entropy", moves=tokens)
    except PlybitsError as err:
        assert err.ply is not None and 0 <= err.ply < len(tokens)
    else:
        assert len(replay.moves) == len(tokens)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="RGOBYWKrx01234567893/ -,\t", max_size=40))
def test_any_position_string_is_read_or_refused_cleanly(text):
    try:
        board = Position(text)
    except InvalidPositionError as err:
        assert "bad entropy position" in str(err)
    else:
        assert Position(board.fen()).fen() == board.fen()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_record_text_is_read_or_refused_cleanly(text):
    try:
        plybits.read_record("entropy", record=text)
    except PlybitsError:
        pass
