"""A chess position's FEN, written from a store of rank fields and castling tables (the decode and encode verbs write
the final position's), is python-chess's, and the store stays bounded however many distinct ranks come."""

from __future__ import annotations

import random

import chess

from plybits.chess import board as board_module
from plybits.chess.board import FEN_ROW_CACHE, STANDARD_FEN, Board
from plybits.chess.notation import parse_uci

FENS = [
    STANDARD_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "4k3/8/8/8/8/8/8/4K3 b - - 99 100000",
    "1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9",  # Chess960: Shredder letters
    "rk2r3/8/8/8/8/8/8/RK2R3 b EAea - 3 20",
]


def expected(fen: str) -> str:
    """python-chess's FEN of ``fen``: Shredder-FEN for the Chess960 positions (castling by file letters)."""
    chess960 = any(letter in fen.split()[2] for letter in "ABCDEFGH")
    peer = chess.Board(fen, chess960=chess960)
    return peer.shredder_fen() if chess960 else peer.fen()


def test_fen_is_python_chess_fen() -> None:
    for fen in FENS:
        assert Board(fen).fen() == expected(fen), fen
        assert Board(fen).fen() == Board(fen).fen()  # the second time from the store


def test_en_passant_is_written_only_when_a_capture_is_legal() -> None:
    after_e4 = Board()
    after_e4.push(parse_uci(after_e4, "e2e4"))
    assert after_e4.fen() == chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").fen()
    capturable = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    assert Board(capturable).fen() == chess.Board(capturable).fen() == capturable


def test_the_kept_rank_fields_are_bounded() -> None:
    """With the store full, a rank not in it is still written right and is not kept."""
    kept = board_module._FEN_ROWS
    saved = dict(kept)
    try:
        kept.clear()
        kept.update({-1 - n: "?" for n in range(FEN_ROW_CACHE)})  # keys no rank has
        fen = "r1b1k2r/1pp2ppp/p1n5/4P3/1bB5/2N2N2/PP3PPP/R2QK2R w KQkq - 2 11"
        assert Board(fen).fen() == fen
        assert len(kept) == FEN_ROW_CACHE and "?" in kept.values() and set(kept) == {-1 - n for n in range(FEN_ROW_CACHE)}
    finally:
        kept.clear()
        kept.update(saved)


def test_random_positions_write_python_chess_fen() -> None:
    """Many distinct ranks (pieces dropped at random): each written as python-chess writes it."""
    rng = random.Random(25)
    symbols = "PNBRQpnbrq"
    checked = 0
    for _ in range(300):
        cells = [""] * 64
        for s in rng.sample(range(8, 56), rng.randint(0, 20)):  # pawns off the first and last ranks
            cells[s] = rng.choice(symbols)
        white_king, black_king = rng.sample([s for s in range(64) if not cells[s]], 2)
        cells[white_king], cells[black_king] = "K", "k"
        peer = chess.Board(None)
        for s, symbol in enumerate(cells):
            if symbol:
                peer.set_piece_at(s, chess.Piece.from_symbol(symbol))
        peer.turn = rng.random() < 0.5
        if peer.is_valid():
            assert Board(peer.fen()).fen() == peer.fen()
            checked += 1
    assert checked > 100
