"""Aba-Pro: parsing either end first and in any case, canonical writing, every syntactic refusal, hostile text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plybits.abalone import GAME, notation
from plybits.abalone.board import ALL_MOVES, GEOMETRY, INLINE
from plybits.errors import InvalidMoveError, PlybitsError


def test_inline_fields() -> None:
    move = notation.parse("e5e6")
    assert move.is_inline and GEOMETRY.name(move.cell) == "e5" and move.direction == 0
    assert notation.parse("e5d4").direction == 4
    assert notation.parse("E5F5") == notation.parse("e5f5") == notation.parse(" e5f5 ")
    assert notation.parse("e5f5").direction == 2


def test_broadside_either_end_first_writes_smaller_end_first() -> None:
    canonical = notation.parse("e6e8f6")
    assert not canonical.is_inline and canonical.marbles == 3 and canonical.line == 0 and canonical.direction == 2
    assert notation.parse("e8e6f8") == canonical
    assert notation.write(notation.parse("E8E6F8")) == "e6e8f6"
    # two marbles along (+1,+1), d5 moving to d4: direction (0,-1), so c4 goes to c3
    two = notation.parse("d5c4d4")
    assert two.marbles == 2 and GEOMETRY.name(two.cell) == "c4" and two.line == 1 and two.direction == 3
    assert notation.write(two) == "c4d5c3"
    # the MiGs records' broadside forms
    assert notation.write(notation.parse("f4h4e3")) == "f4h4e3"
    assert notation.write(notation.parse("c6e8d6")) == "c6e8d6"


def test_every_move_writes_and_reads_back() -> None:
    assert len(ALL_MOVES) == len(set(ALL_MOVES))
    for move in ALL_MOVES:
        text = notation.write(move)
        assert notation.parse(text) == move
        if not move.is_inline:  # the other end first reads as the same move
            a, b, c = text[:2], text[2:4], text[4:]
            far = move.cells()[-1] + (GEOMETRY.parse(c) - move.cell)
            if GEOMETRY.on_board[far]:  # the other end's destination is a cell
                assert notation.parse(b + a + GEOMETRY.name(far)) == move


def test_words_parse_looks_up_are_what_reading_them_cell_by_cell_gives() -> None:
    """parse's table of canonical words agrees with the cell-by-cell reader on every word (and the shared move)."""
    assert len(notation._WORDS) == len(ALL_MOVES)
    for text, move in notation._WORDS.items():
        assert notation._parse_word(text) is move
        assert notation.parse(text.upper()) is move  # not a word of the table: read cell by cell


def test_write_looks_up_the_word_str_builds_and_builds_the_rest() -> None:
    """write's table of words gives every move the word ``str`` builds; a move outside it (an inline step off the
    board, never legal) is still written, by ``str``."""
    for move in ALL_MOVES:
        assert notation.write(move) == str(move)
    off = INLINE[GEOMETRY.parse("a1")][3]
    assert notation.write(off) == "a1--"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("j1e5", "unknown cell 'j1'"),
        ("a6a5", "unknown cell 'a6'"),
        ("e0e1", "unknown cell 'e0'"),
        ("i4i5", "unknown cell 'i4'"),
        ("e5e7", "not adjacent"),
        ("e5e5", "not adjacent"),
        ("e5f4", "not adjacent"),  # (+1,-1) is no direction on this board
        ("e5f7e6", "not on a line"),
        ("e5e5f5", "both ends"),
        ("e1e4d1", "spans 4 marbles"),
        ("a1e5b2", "spans 5 marbles"),
        ("e5e6d6", "not adjacent"),
        ("e5e7f7", "not adjacent to the first end"),
        ("e5e7e4", "along the line"),
        ("e5e7e6", "along the line"),
        ("e5", "not two cells"),
        ("e5e6f6e7", "not two cells"),
        ("e5-e6", "not two cells"),
        ("e5 e6", "not two cells"),
        ("", "not two cells"),
        ("1. e5e6", "not two cells"),
    ],
)
def test_refusals(text: str, reason: str) -> None:
    with pytest.raises(InvalidMoveError, match=reason):
        notation.parse(text)


def test_not_text() -> None:
    with pytest.raises(InvalidMoveError):
        notation.parse(None)  # type: ignore[arg-type]


# --- hostile text: a move, a refusal, never another exception ---------------------------------

CELLISH = st.text(alphabet="abcdefghijABI0123456789 -/wWbB", max_size=12)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.one_of(CELLISH, st.text(max_size=12)))
def test_any_text_is_a_move_or_a_refusal(text: str) -> None:
    try:
        move = notation.parse(text)
    except InvalidMoveError:
        return
    assert notation.parse(notation.write(move)) == move


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.one_of(CELLISH, st.text(max_size=60), st.lists(CELLISH, max_size=9).map("/".join)))
def test_any_text_is_a_position_or_a_refusal(text: str) -> None:
    for candidate in (text, text + " b", text + " w 0 0 1"):
        try:
            board = GAME.position(candidate)
        except PlybitsError:
            continue
        assert GAME.position(board.fen()).fen() == board.fen()


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet='[]"{}1.- abcdefghi123456789*\nEventVariantPosition/bw', max_size=120))
def test_any_text_is_a_record_or_a_refusal(text: str) -> None:
    try:
        GAME.parse_record(text)
    except PlybitsError:
        pass
