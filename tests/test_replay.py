"""The replay that checks a move list (plybits.replay, compiled; read_record's loop): every token read and played,
each move shown to the observer before it is played, and the first bad token's error located by ply and token."""

from __future__ import annotations

from typing import Any

import chess
import pytest

import plybits
from plybits import deadline
from plybits.errors import DeadlineExceededError, IllegalMoveError
from plybits.registry import get_game
from plybits.replay import read_moves

OPENING = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O"]


def test_every_token_is_played_and_shown_before_it_is() -> None:
    position = get_game("chess").position()
    played: list[Any] = []
    seen: list[tuple[str, Any]] = []
    error = read_moves(position, OPENING, "san", lambda at, move: seen.append((at.fen(), move)), played, False)
    assert error is None
    peer = chess.Board()  # python-chess: the positions before each move, and after the last
    before = []
    for san in OPENING:
        before.append(peer.fen())
        peer.push_san(san)
    assert position.fen() == peer.fen()
    assert [fen for fen, _ in seen] == before
    assert [move for _, move in seen] == played and len(played) == len(OPENING)


def test_the_first_bad_token_stops_it_located() -> None:
    position = get_game("chess").position()
    played: list[Any] = []
    error = read_moves(position, [*OPENING, "Nf3", "d3"], "san", None, played, False)
    assert isinstance(error, IllegalMoveError)
    assert (error.ply, error.move) == (9, "Nf3") and len(played) == 9
    with pytest.raises(IllegalMoveError) as raised:  # as the verbs report it
        plybits.convert("chess", moves=[*OPENING, "Nf3", "d3"])
    assert (raised.value.ply, raised.value.move) == (9, "Nf3")


def test_other_games_replay_through_it() -> None:
    moves = plybits.legal_moves("xiangqi")[1][:1]
    assert plybits.convert("xiangqi", moves=moves) == moves


def test_a_timed_replay_checks_the_deadline() -> None:
    position = get_game("chess").position()
    with deadline.deadline(0.0, 1e-9):
        with pytest.raises(DeadlineExceededError):
            read_moves(position, OPENING, "san", None, [], True)
