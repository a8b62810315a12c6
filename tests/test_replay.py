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


GAME = ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 "
        "11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 "
        "19. exd6 Qf6 20. Nbd2 Nxd6 21. Nc4 Nxc4 22. Bxc4 Nb6 23. Ne5 Rae8 24. Bxf7+ Rxf7 25. Nxf7 Rxe1+ 26. Qxe1 Kxf7 "
        "27. Qe3 Qg5 28. Qxg5 hxg5 29. b3 Ke6 30. a3 Kd6 31. axb4 cxb4 32. Ra5 Nd5 33. f3 Bc8 34. Kf2 Bf5 35. Ra7 g6 "
        "36. Ra6+ Kc5 37. Ke1 Nf4 38. g3 Nxh3 39. Kd2 Kb5 40. Rd6 Kc5 41. Ra6 Nf2 42. g4 Bd3 43. Re6 1/2-1/2")


def test_the_rank_encoder_reads_san_among_the_moves_it_ranks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Encoding SAN under ``rank``, the step encoder reads each token among the legal moves its model ranks: the
    notation module parses none of them (castling included), and the bytes are those of the same
    game given in UCI (every token parsed, then ranked)."""
    from plybits.chess import notation

    uci = plybits.convert("chess", record=GAME, to_notation="uci")
    parsed: list[str] = []
    parse = notation.parse_move

    def counted(board: Any, text: str, given: str | None = None) -> Any:
        parsed.append(text)
        return parse(board, text, given)

    monkeypatch.setattr(notation, "parse_move", counted)
    for fidelity in ("moves", "full"):
        parsed.clear()
        by_san = plybits.encode("chess", "rank", record=GAME, fidelity=fidelity)
        assert parsed == []
        assert by_san.payload == plybits.encode("chess", "rank", moves=uci, notation="uci").payload
        assert plybits.decode(by_san.data, notation="uci").moves == uci
    parsed.clear()
    plybits.encode("chess", "0x88", record=GAME)  # a scheme that ranks nothing: every token parsed
    assert len(parsed) == len(uci)


@pytest.mark.parametrize(("moves", "error", "ply"), [
    ([*OPENING, "Nf3"], "IllegalMoveError", 9),
    (["e4", "d5", "d5"], "IllegalMoveError", 2),
    (["e4", "d5", "exd5", "c6", "dxc6", "Nf6", "cxb7", "Nbd7", "b8"], "IllegalMoveError", 8),
    (["a4", "a5", "h4", "h5", "Ra3", "Ra6", "Rh3"], "AmbiguousMoveError", 6),
    ([*OPENING[:4], "Nz9"], "InvalidMoveError", 4),
    ([*OPENING[:4], "Kxh1"], "IllegalMoveError", 4),
])
def test_a_bad_san_token_fails_encode_as_the_replay_reports_it(moves: list[str], error: str, ply: int) -> None:
    """The tokens the rank encoder does not read are parsed as always: each error, its ply and its token, as
    validate (which ranks nothing) reports them."""
    found = plybits.records.validate("chess", moves=moves, notation="san").error
    assert found is not None and (type(found).__name__, found.ply, found.move) == (error, ply, moves[ply])
    with pytest.raises(type(found)) as raised:
        plybits.encode("chess", "rank", moves=moves, notation="san")
    assert (raised.value.ply, raised.value.move, str(raised.value)) == (ply, moves[ply], str(found))


def test_the_replay_hands_texts_and_moves_to_a_step_encoders_taker() -> None:
    """read_moves hands each token to the rank step encoder's own compiled taker (its steps), and to an interpreted
    step encoder's add_text through a taker calling it; a step encoder that reads no texts gets none."""
    from plybits.game import StepEncoder
    from plybits.registry import get_scheme
    from plybits.replay import StepTaker, _step_taker

    rank = get_scheme("chess", "rank").step_encoder()
    assert _step_taker(rank.add) is rank.steps and isinstance(rank.steps, StepTaker)
    assert _step_taker(None) is None and _step_taker(print) is None
    plain = get_scheme("chess", "0x88").step_encoder()
    assert type(plain).add_text is StepEncoder.add_text and _step_taker(plain.add) is None
    texts: list[str] = []

    class Reading(StepEncoder[Any, Any]):
        def add_text(self, position: Any, text: str, notation: str | None) -> Any:
            texts.append(text)
            return None

    reading = Reading(get_scheme("chess", "0x88"))
    taker = _step_taker(reading.add)
    assert isinstance(taker, StepTaker)
    played: list[Any] = []
    assert read_moves(get_game("chess").position(), OPENING, "san", reading.add, played, False) is None
    assert texts == OPENING and reading.moves == played and len(played) == len(OPENING)
    # a move the model does not read from its text (xiangqi's) reaches the rank encoder's add through the taker
    xiangqi = get_scheme("xiangqi", "rank").step_encoder()
    played = []
    moves = ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert read_moves(get_game("xiangqi").position(), moves, None, xiangqi.add, played, False) is None
    assert xiangqi.moves == played and len(played) == len(moves)
    start = get_game("xiangqi").position()
    assert xiangqi.finish(start) == get_scheme("xiangqi", "rank").encode(start.copy(), played)
