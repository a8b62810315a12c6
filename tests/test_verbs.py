"""The verbs validate and walk: a game checked move by move, and replayed position by position."""

from __future__ import annotations

import pytest

import plybits
from plybits import records, registry
from plybits.errors import IllegalMoveError, InvalidRecordError, LimitExceededError, UnknownCodecError
from tests.test_service import GAMES, random_game, seed_scheme


def test_validate_answers_the_first_bad_move_with_the_moves_before_it() -> None:
    chess = pytest.importorskip("chess")
    result = records.validate("chess", moves=["e4", "e5", "Ke3", "Nf3"])
    assert not result.valid and result.plies == 2
    assert isinstance(result.error, IllegalMoveError) and (result.error.ply, result.error.move) == (2, "Ke3")
    board = chess.Board()
    for san in ("e4", "e5"):
        board.push_san(san)
    assert result.final_position == board.fen()


def test_validate_a_whole_game() -> None:
    chess = pytest.importorskip("chess")
    record = '[Event "fool"]\n\n1. f3 e5 2. g4 Qh4# 0-1'
    result = records.validate("chess", record=record)
    assert result.valid and result.error is None and result.plies == 4
    board = chess.Board()
    for san in ("f3", "e5", "g4", "Qh4#"):
        board.push_san(san)
    assert result.final_position == board.fen()
    assert result.status["status"] == "checkmate" and result.status["result"] == "0-1"


@pytest.mark.parametrize(("call", "error"), [
    (lambda: records.validate("go", moves=[]), UnknownCodecError),
    (lambda: records.validate("chess", moves=["e4"], notation="klingon"), UnknownCodecError),
    (lambda: records.validate("chess", moves=["e4", "e5", "Nf3"], max_plies=2), LimitExceededError),
    (lambda: records.validate("chess", moves=["e4"], record="1. e4"), InvalidRecordError),
])
def test_validate_raises_what_is_not_a_move(call, error) -> None:
    with pytest.raises(error):
        call()


def test_walk_writes_every_move_and_position() -> None:
    chess = pytest.importorskip("chess")
    texts, _ = random_game(registry.get_game("chess"), 40, seed=21, notation="uci")
    steps = records.walk(records.validate("chess", moves=texts).replay, ("san", None, "uci"))
    board = chess.Board()
    assert steps.start == board.fen()
    for text, (san, default, uci), position in zip(texts, steps.moves, steps.positions, strict=True):
        move = chess.Move.from_uci(text)
        assert (san, default, uci) == (board.san(move), board.san(move), text)
        board.push(move)
        assert position == board.fen()


@pytest.mark.parametrize("game", GAMES)
def test_every_verb_refuses_an_unknown_notation_by_one_class(game: str) -> None:
    moves, _ = random_game(registry.get_game(game), 4, seed=2)
    data = plybits.encode(game, seed_scheme(game), moves=moves).data
    replay = plybits.read_record(game, moves=moves)
    calls = [
        lambda: plybits.read_record(game, moves=moves, notation="klingon"),
        lambda: records.validate(game, moves=moves, notation="klingon"),
        lambda: plybits.encode(game, seed_scheme(game), moves=moves, notation="klingon"),
        lambda: plybits.decode(data, notation="klingon"),
        lambda: plybits.convert(game, moves=moves, from_notation="klingon"),
        lambda: plybits.convert(game, moves=moves, to_notation="klingon"),
        lambda: plybits.legal_moves(game, moves=moves, notation="klingon"),
        lambda: records.walk(replay, (None, "klingon")),
    ]
    for call in calls:
        with pytest.raises(UnknownCodecError, match=f"^unknown notation 'klingon' for {game}; known: "):
            call()


def test_encode_and_decode_write_the_final_position_string_when_it_is_first_read() -> None:
    import copy
    import pickle

    chess = pytest.importorskip("chess")
    board = chess.Board()
    for san in ("e4", "c5", "Nf3", "d6", "Bb5+"):
        board.push_san(san)
    encoded = plybits.encode("chess", "rank", moves=["e4", "c5", "Nf3", "d6", "Bb5+"])
    decoded = plybits.decode(encoded.data, notation="uci")
    for result in (encoded, decoded):
        assert not isinstance(vars(result)["_final_position"], str)  # kept as the position: no string written yet
    assert pickle.loads(pickle.dumps(decoded)) == decoded  # pickled as its string (a compiled board does not pickle)
    assert decoded.final_position == encoded.final_position == board.fen()
    assert isinstance(vars(decoded)["_final_position"], str)  # written once, then kept
    assert copy.deepcopy(encoded) == encoded and f"final_position={board.fen()!r}" in repr(encoded)
    given = records.Decoded("chess", "rank", None, [], {}, 0, "8/8/8/8/8/8/8/K6k w - - 0 1")
    assert given.final_position == "8/8/8/8/8/8/8/K6k w - - 0 1"
