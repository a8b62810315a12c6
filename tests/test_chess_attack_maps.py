"""The chess ``rank`` model's attack map (:func:`plybits.chess.rank._attack_maps`) walked by the board's bitboards of
its men, against python-chess's attackers on positions of random games (kept by push, with captures, castling, en
passant and promotions): each square's cheapest enemy attacker and our count (up to 3), and the material."""

from __future__ import annotations

import random

import chess
import pytest

from plybits.chess import GAME
from plybits.chess.rank import _COUNT_UNIT, _RANK_UNIT, _THREAT_LEVELS, ATTACK_VALUE, VALUE, _attack_maps
from plybits.chess.squares import FILE_OF, RANK_OF, SQUARES

_KIND = {chess.PAWN: 1, chess.KNIGHT: 2, chess.BISHOP: 3, chess.ROOK: 4, chess.QUEEN: 5, chess.KING: 6}


def expected_entry(board: chess.Board, square: int) -> int:
    """The map entry python-chess's attackers give: the enemy's cheapest attacker's rank, our count up to 3."""
    us = board.turn
    ours = len(board.attackers(us, square))
    theirs = [ATTACK_VALUE[_KIND[board.piece_type_at(s)]] for s in board.attackers(not us, square)]
    rank = len(_THREAT_LEVELS) - _THREAT_LEVELS.index(min(theirs)) if theirs else 0
    return rank * _RANK_UNIT + min(ours, 3) * _COUNT_UNIT


def expected_material(board: chess.Board) -> int:
    """Both sides' pieces other than pawns and kings, by value."""
    return sum(VALUE[_KIND[p.piece_type]] for p in board.piece_map().values() if p.piece_type != chess.PAWN)


@pytest.mark.parametrize("seed", range(6))
def test_the_bitboard_walk_gives_python_chess_attackers(seed: int) -> None:
    rng = random.Random(seed)
    board = chess.Board()
    position = GAME.position(board.fen())
    for ply in range(160):
        men = position.men
        attacks, material = _attack_maps(position.cells, position.turn, men[0] | men[1])
        at = f"seed {seed} ply {ply} {board.fen()}"
        for sq in SQUARES:
            square = chess.square(FILE_OF[sq], RANK_OF[sq])
            assert attacks[sq] == expected_entry(board, square), f"{at} {chess.square_name(square)}"
        assert material == expected_material(board), at
        full_scan = _attack_maps(position.cells, position.turn)  # every cell read: the same map
        assert [full_scan[0][sq] for sq in SQUARES] == [attacks[sq] for sq in SQUARES] and full_scan[1] == material, at
        moves = list(board.legal_moves)
        if not moves:
            break
        special = [m for m in moves if board.is_capture(m) or m.promotion or board.is_castling(m)]
        move = rng.choice(special if special and rng.random() < 0.4 else moves)
        position.push(position.parse_move(board.uci(move), "uci"))
        board.push(move)
