"""ICCS, WXF and Chinese notation: written forms checked against Fairy-Stockfish (WXF) and hand-worked
Chinese, every reading variant, and bad input."""

from __future__ import annotations

import re

import pytest

import plybits
from plybits.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, UnknownCodecError
from plybits.xiangqi import GAME
from plybits.xiangqi.board import Board, Move
from plybits.xiangqi.notation import parse_move, write_chinese, write_wxf

pyffish = pytest.importorskip("pyffish")

TANDEM_CHARIOTS = "3k5/9/9/9/9/9/9/R8/9/R3K4 w - - 0 1"  # red chariots a0 and a2
THREE_SOLDIERS = "3k5/9/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1"  # red soldiers c7 c6 c5
TWO_FILES_OF_SOLDIERS = "3k5/9/2P1P4/2P1P4/9/9/9/9/9/5K3 w - - 0 1"  # c7 c6 e7 e6
TANDEM_ADVISORS = "3k5/9/9/9/9/9/9/3A5/9/3AK4 w - - 0 1"  # d2 and d0
BLACK_TANDEM = "2bakab2/9/4c4/9/4c4/9/9/9/9/3K5 b - - 0 1"  # black cannons e7 and e5 (e5 is black's front)
POSITIONS = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2",
    TANDEM_CHARIOTS, THREE_SOLDIERS, TWO_FILES_OF_SOLDIERS, TANDEM_ADVISORS, BLACK_TANDEM,
]


def ffish(iccs: str) -> str:
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


@pytest.mark.parametrize("fen", POSITIONS)
def test_wxf_of_every_legal_move_equals_pyffish_and_all_notations_read_back(fen):
    board = Board(fen)
    for move in board.legal_moves():
        wxf = write_wxf(board, move)
        assert wxf == pyffish.get_san("xiangqi", fen, ffish(move.iccs()), False, pyffish.NOTATION_XIANGQI_WXF)
        assert parse_move(board, wxf, "wxf") == move
        assert parse_move(board, write_chinese(board, move), "chinese") == move
        assert parse_move(board, move.iccs()) == move


@pytest.mark.parametrize(
    ("fen", "iccs", "wxf", "chinese"),
    [
        (POSITIONS[0], "h2e2", "C2=5", "炮二平五"),
        (POSITIONS[0], "b0c2", "H8+7", "马八进七"),
        (POSITIONS[0], "c0e2", "E7+5", "相七进五"),
        (POSITIONS[0], "f0e1", "A4+5", "仕四进五"),
        (POSITIONS[0], "e0e1", "K5+1", "帅五进一"),
        (POSITIONS[0], "i0i2", "R1+2", "车一进二"),
        (POSITIONS[0], "g3g4", "P3+1", "兵三进一"),
        (POSITIONS[1], "b2b9", "C8+7", "炮八进七"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1", "h9g7", "H8+7", "马８进７"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1", "b7e7", "C2=5", "炮２平５"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1", "c9e7", "E3+5", "象３进５"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1", "e9e8", "K5+1", "将５进１"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1", "c6c5", "P3+1", "卒３进１"),
        (TANDEM_CHARIOTS, "a2b2", "R+=8", "前车平八"),
        (TANDEM_CHARIOTS, "a0b0", "R-=8", "后车平八"),
        (TANDEM_CHARIOTS, "a0a1", "R-+1", "后车进一"),
        (TANDEM_CHARIOTS, "a2a1", "R9-1", "前车退一"),  # WXF: the rear chariot cannot retreat, so no +/-
        (THREE_SOLDIERS, "c7c8", "17+1", "前兵进一"),
        (THREE_SOLDIERS, "c6b6", "27=8", "中兵平八"),
        (THREE_SOLDIERS, "c5d5", "37=6", "后兵平六"),
        (TWO_FILES_OF_SOLDIERS, "c6b6", "27=8", "后七平八"),
        (TWO_FILES_OF_SOLDIERS, "e7d7", "15=6", "前五平六"),
        (TANDEM_ADVISORS, "d0e1", "A6+5", "仕六进五"),
        (TANDEM_ADVISORS, "d2e1", "A6-5", "仕六退五"),
        (BLACK_TANDEM, "e5d5", "C+=4", "前炮平４"),
        (BLACK_TANDEM, "e7e6", "C-+1", "后炮进１"),
    ],
)
def test_written_forms(fen, iccs, wxf, chinese):
    board = Board(fen)
    move = Move.from_iccs(iccs)
    assert write_wxf(board, move) == wxf
    assert write_chinese(board, move) == chinese
    assert parse_move(board, wxf) == move and parse_move(board, chinese) == move


@pytest.mark.parametrize(
    ("fen", "text", "iccs"),
    [
        (POSITIONS[0], "H2-E2", "h2e2"),
        (POSITIONS[0], "h2-e2", "h2e2"),
        (POSITIONS[0], "C2.5", "h2e2"),
        (POSITIONS[0], "c2=5", "h2e2"),
        (POSITIONS[0], "N8+7", "b0c2"),
        (POSITIONS[0], "B7+5", "c0e2"),
        (POSITIONS[0], "砲二平五", "h2e2"),
        (POSITIONS[0], "炮2平5", "h2e2"),
        (POSITIONS[0], "炮２平５", "h2e2"),
        (POSITIONS[0], "包二平五", "h2e2"),
        (POSITIONS[0], "傌八進七", "b0c2"),
        (POSITIONS[0], "馬8进7", "b0c2"),
        (POSITIONS[0], "俥一進二", "i0i2"),
        (POSITIONS[0], "帥五進一", "e0e1"),
        (POSITIONS[0], "相七進五", "c0e2"),
        (POSITIONS[0], "象七进五", "c0e2"),  # the other side's name for the piece: read by the side to move
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1", "马8进7", "h9g7"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1", "馬八進七", "h9g7"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1", "將5進1", "e9e8"),
        (TANDEM_CHARIOTS, "+R=8", "a2b2"),
        (TANDEM_CHARIOTS, "+R.8", "a2b2"),
        (TANDEM_CHARIOTS, "-R=8", "a0b0"),
        (TANDEM_CHARIOTS, "R-.8", "a0b0"),
        (TANDEM_CHARIOTS, "後俥平八", "a0b0"),
        (TANDEM_CHARIOTS, "前車退1", "a2a1"),
        (TANDEM_CHARIOTS, "车九退一", "a2a1"),  # only the front chariot can retreat: unambiguous
        (THREE_SOLDIERS, "中兵平八", "c6b6"),
        (THREE_SOLDIERS, "二兵平八", "c6b6"),
        (THREE_SOLDIERS, "後兵平6", "c5d5"),
        (TWO_FILES_OF_SOLDIERS, "後七平八", "c6b6"),
        (BLACK_TANDEM, "前炮平4", "e5d5"),
        (BLACK_TANDEM, "前砲平四", "e5d5"),
        (BLACK_TANDEM, "後包進1", "e7e6"),
    ],
)
def test_reading_variants(fen, text, iccs):
    assert parse_move(Board(fen), text) == Move.from_iccs(iccs)


@pytest.mark.parametrize(
    ("fen", "text", "error", "words"),
    [
        (POSITIONS[0], "", InvalidMoveError, "not"),
        (POSITIONS[0], "h2e", InvalidMoveError, "not a WXF move"),
        (POSITIONS[0], "z2e2", InvalidMoveError, "not a WXF move"),
        (POSITIONS[0], "h2e2e2", InvalidMoveError, "not a WXF move"),
        (POSITIONS[0], "C2*5", InvalidMoveError, "not a WXF move"),
        (POSITIONS[0], "X2=5", InvalidMoveError, "not a WXF move"),
        (POSITIONS[0], "炮二平", InvalidMoveError, "not a Chinese-notation move"),
        (POSITIONS[0], "炮二走五", InvalidMoveError, "not a Chinese-notation move"),
        (POSITIONS[0], "龙二平五", InvalidMoveError, "not a Chinese-notation move"),
        (POSITIONS[0], "x" * 100, InvalidMoveError, "not a xiangqi move"),
        (POSITIONS[0], "a0a5", IllegalMoveError, "illegal move 'a0a5'"),
        (POSITIONS[0], "e0e2", IllegalMoveError, "illegal move"),
        (POSITIONS[0], "e5e6", IllegalMoveError, "illegal move"),
        (POSITIONS[0], "C2+9", IllegalMoveError, "no legal move matches 'C2+9'"),
        (POSITIONS[0], "炮二进五", IllegalMoveError, "no legal move matches"),
        (POSITIONS[0], "马二平三", IllegalMoveError, "no legal move matches"),
        (TANDEM_CHARIOTS, "R9=8", AmbiguousMoveError, "matches 2 legal moves"),
        (TANDEM_CHARIOTS, "车九平八", AmbiguousMoveError, "matches 2 legal moves"),
        (TANDEM_CHARIOTS, "中车平八", IllegalMoveError, "no legal move matches"),
    ],
)
def test_bad_moves(fen, text, error, words):
    with pytest.raises(error, match=re.escape(words)):
        parse_move(Board(fen), text)


def test_explicit_notation_rejects_the_others():
    board = Board()
    with pytest.raises(InvalidMoveError):
        parse_move(board, "C2=5", "iccs")
    with pytest.raises(InvalidMoveError):
        parse_move(board, "h2e2", "chinese")
    # An unknown notation's name is checked by the verbs, as for every game (it was InvalidMoveError here).
    with pytest.raises(UnknownCodecError, match="unknown notation 'san' for xiangqi"):
        plybits.read_record("xiangqi", moves=["h2e2"], notation="san")


def test_convert_through_the_library_verbs():
    iccs = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]
    wxf = plybits.convert("xiangqi", moves=iccs, from_notation="iccs", to_notation="wxf")
    assert wxf == ["C2=5", "H8+7", "H2+3", "R9=8", "R1=2", "H2+3"]
    chinese = plybits.convert("xiangqi", moves=wxf, from_notation="wxf", to_notation="chinese")
    assert chinese == ["炮二平五", "马８进７", "马二进三", "车９平８", "车一平二", "马２进３"]
    assert plybits.convert("xiangqi", moves=chinese, to_notation="iccs") == iccs
    fen, legal = plybits.legal_moves("xiangqi", moves=["炮二平五"], notation="chinese")
    assert fen == "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    assert "马８进７" in legal and len(legal) == 45  # as Fairy-Stockfish counts
    assert GAME.position().move_text(Move.from_iccs("h2e2"), "wxf") == "C2=5"


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from plybits.errors import PlybitsError  # noqa: E402

_ALPHABET = "abcdefghiABCDEFGHIKRNCPHE0123456789+-=.前后中进退平车马炮兵卒帅将仕士相象一二三四五六七八九１２３４５ "


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=_ALPHABET, max_size=8))
def test_random_move_text_is_a_move_or_a_plybits_error(text):
    board = Board()
    try:
        move = parse_move(board, text)
    except PlybitsError:
        return
    assert board.is_legal(move)
