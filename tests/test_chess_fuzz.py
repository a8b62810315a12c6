"""Fuzzing the chess parsers and the 0x88 decoder: any input gives a result or a plybits error, never anything else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from plybits.chess import GAME, X88
from plybits.errors import InvalidDataError, PlybitsError

PGN_ALPHABET = st.sampled_from(list("[]{}();$!?+#=-x.*/ \n\r\"\\%0123456789abcdefghKQRBNPOZkqrbnp@"))
SAN_ALPHABET = st.sampled_from(list("abcdefgh12345678KQRBNOox=+#-!?0Z@qrbn"))


@settings(max_examples=300, deadline=None)
@given(st.text(PGN_ALPHABET, max_size=200))
def test_pgn_reader_raises_only_plybits_errors(text):
    try:
        record = GAME.parse_record(text)
    except PlybitsError:
        return
    assert set(record.dropped) == {"comments", "nags", "variations"}
    parts = list(GAME.split_records(text))  # splitting never fails either, and loses no text
    assert "".join(parts).strip() == text.strip()


@settings(max_examples=400, deadline=None)
@given(st.text(SAN_ALPHABET, max_size=8), st.sampled_from([None, "san", "uci"]))
def test_move_parser_raises_only_plybits_errors(text, notation):
    position = GAME.position("r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1")
    try:
        move = position.parse_move(text, notation)
    except PlybitsError:
        return
    assert not move or move in position.legal_moves()


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=24), st.integers(min_value=0, max_value=14))
def test_x88_decoder_raises_only_invalid_data(payload, plies):
    try:
        moves = X88.decode(GAME.position(), payload, plies, 0)
    except InvalidDataError:
        return
    assert len(moves) == plies and len(payload) == 2 * plies
