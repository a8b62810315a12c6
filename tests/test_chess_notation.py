"""SAN reading keeps each token's syntax (issue 17): the kept syntax reads the same move as a fresh read, in
every position, and the store stays bounded however many distinct tokens come."""

from __future__ import annotations

import pytest

from plybits.chess import notation
from plybits.chess.board import Board
from plybits.chess.squares import square
from plybits.chess.notation import SAN_CACHE_SIZE, parse_san, parse_uci
from plybits.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError


def test_a_kept_token_is_read_against_each_position() -> None:
    """'Nf3' read once is legal from the start, illegal where no knight reaches f3, ambiguous where two do."""
    start = Board()
    assert parse_san(start, "Nf3") == (square(6, 0), square(5, 2), 0)
    assert "Nf3" in notation._SAN_SYNTAX
    with pytest.raises(IllegalMoveError, match=r"illegal move 'Nf3' in .*: no legal move matches"):
        parse_san(Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), "Nf3")
    with pytest.raises(AmbiguousMoveError, match="ambiguous san: 'Nf3'"):
        parse_san(Board("4k3/8/8/8/8/8/3N4/4K1N1 w - - 0 1"), "Nf3")
    assert parse_san(Board("4k3/8/8/8/8/8/3N4/4K1N1 w - - 0 1"), "Ngf3") == (square(6, 0), square(5, 2), 0)


def test_bad_syntax_is_refused_every_time_and_never_kept() -> None:
    for _ in range(2):
        with pytest.raises(InvalidMoveError, match="invalid san: 'Nz9'"):
            parse_san(Board(), "Nz9")
    assert "Nz9" not in notation._SAN_SYNTAX


def test_the_kept_syntax_is_bounded() -> None:
    """More distinct tokens than SAN_CACHE_SIZE: the store stops growing, and tokens past it still read right."""
    notation._SAN_SYNTAX.clear()
    board = Board()
    tokens = [f"{move}{'!' * n}" for n in range(SAN_CACHE_SIZE // 4 + 10) for move in ("e4", "Nf3", "d2d4", "c2-c4")]
    assert len(set(tokens)) > SAN_CACHE_SIZE
    for token in tokens:
        assert parse_san(board, token) == parse_san(board, token.rstrip("+#!?"))
    assert len(notation._SAN_SYNTAX) == SAN_CACHE_SIZE


def test_a_kept_uci_token_is_read_against_each_position() -> None:
    assert parse_uci(Board(), "g1f3") == (square(6, 0), square(5, 2), 0)
    assert "g1f3" in notation._UCI_SYNTAX
    with pytest.raises(IllegalMoveError, match="illegal move 'g1f3' in 4k3/8/8/8/8/8/8/4K3 w - - 0 1: no white piece on"):
        parse_uci(Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1"), "g1f3")
    for _ in range(2):
        with pytest.raises(InvalidMoveError, match="invalid uci: 'g1f9'"):
            parse_uci(Board(), "g1f9")
    assert "g1f9" not in notation._UCI_SYNTAX
