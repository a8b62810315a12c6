"""Random playouts against python-chess: rare rules (under-promotion captures, en passant pins, Chess960
castling, stalemate, insufficient material, repetitions) that real games seldom reach."""

from __future__ import annotations

import random

import chess
import pytest

from plybits.chess import GAME, X88
from plybits.chess.board import legal_moves
from plybits.chess.squares import FILE_OF, RANK_OF, SQUARES
from plybits.chess.notation import san as write_san
from plybits.chess.notation import uci as write_uci
from plybits.chess.rank import _RANK_UNIT, _attack_maps, move_key

SQUARE64 = {sq: RANK_OF[sq] * 8 + FILE_OF[sq] for sq in SQUARES}


def expected_status(board: chess.Board) -> str:
    """python-chess's facts, in our documented precedence."""
    if board.is_checkmate():
        return "checkmate"
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient_material"
    if board.halfmove_clock >= 100:
        return "fifty_moves"
    if board.is_repetition(3):
        return "threefold"
    return "ongoing"


def playout(seed: int, board: chess.Board, plies: int) -> None:
    rng = random.Random(seed)
    start_fen = board.shredder_fen() if board.chess960 else board.fen()
    position = GAME.position(start_fen)
    assert position.chess960 == board.chess960
    played = []
    for ply in range(plies):
        at = f"seed {seed} ply {ply} {board.fen()}"
        theirs = list(board.legal_moves)
        ours = position.legal_moves()
        assert sorted(write_uci(position, m) for m in ours) == sorted(board.uci(m) for m in theirs), at
        keys = [move_key(m) for m in ours]  # made in the rank scheme's canonical order, not sorted afterwards
        fresh = GAME.position(position.fen())  # no moves cached: made again, the king's steps read from the map
        assert legal_moves(fresh, _attack_maps(fresh.cells, fresh.turn)[0], _RANK_UNIT) == ours, at
        assert keys == sorted(keys) and len(set(keys)) == len(keys), at
        assert position.status()["status"] == expected_status(board), at
        if not theirs or expected_status(board) != "ongoing" and rng.random() < 0.5:
            break
        # prefer captures, promotions and castling now and then, to reach endgames and rare moves
        special = [m for m in theirs if board.is_capture(m) or m.promotion or board.is_castling(m)]
        move = rng.choice(special if special and rng.random() < 0.4 else theirs)
        text = board.san(move)
        ours_move = position.parse_move(text, "san")
        assert write_uci(position, ours_move) == board.uci(move), at
        assert write_san(position, ours_move) == text, at
        assert position.parse_move(board.uci(move), "uci") == ours_move, at
        position.push(ours_move)
        board.push(move)
        played.append(ours_move)
        men = [0, 0]  # the bitboards push keeps, as the cells give them
        for sq in SQUARES:
            if position.cells[sq]:
                men[position.cells[sq] >> 3] |= 1 << SQUARE64[sq]
        assert [m & (1 << 64) - 1 for m in position.men] == men, at
        assert position.fen() == (board.shredder_fen() if board.chess960 else board.fen()), at
    start = GAME.position(start_fen)
    bits = X88.encode(start.copy(), played)
    assert X88.decode(start.copy(), bits.tobytes(), len(played), 0) == played


@pytest.mark.parametrize("seed", range(60))
def test_random_standard_games(seed):
    playout(seed, chess.Board(), 300)


@pytest.mark.parametrize("seed", range(30))
def test_random_chess960_games(seed):
    playout(1000 + seed, chess.Board.from_chess960_pos(random.Random(seed).randrange(960)), 300)


@pytest.mark.parametrize(
    "fen",
    [
        "8/8/8/2k5/3Pp3/8/8/4K2Q b - d3 0 1",  # en passant pinned along a diagonal? the e4 pawn is free
        "8/8/8/8/k2Pp2Q/8/8/4K3 b - d3 0 1",  # en passant would expose the king on the rank
        "4k3/1P6/8/8/8/8/6p1/4K2R w K - 0 1",  # promotions both sides, castling
        "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1",  # promotions onto castling rooks
        "8/8/8/8/8/8/6k1/4K2R w K - 0 1",  # castling into/through attack
    ],
)
def test_random_games_from_tricky_positions(fen):
    for seed in range(8):
        playout(seed, chess.Board(fen), 120)
