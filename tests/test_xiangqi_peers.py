"""Rules and notation against two independent peers on the real games in ../shared/data/xiangqi.

Fairy-Stockfish (``pyffish``, variant ``xiangqi``): the final FEN of every game and the WXF of every move;
the legal-move list at one ply in :data:`PLY_STRIDE` of every game, from a seeded offset per game (a fixed sample
that reaches every game and every stage of one). pyffish costs a few milliseconds a call here: all ~200k
positions take about ten minutes, which ``PLYBITS_FULL=1`` runs; ``PLYBITS_QUICK=1`` checks one ply in
:data:`QUICK_PLY_STRIDE`.
``cchess``: the Chinese notation of every move of every game, and reading it back (the first
:data:`CCHESS_GAMES` games with ``PLYBITS_QUICK=1``).

The two files overlap (games between Hu Ronghua and Liu Dahua are in both): games are deduplicated by their
move sequence, and both counts are printed.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from plybits.xiangqi import GAME
from plybits.xiangqi.board import Board, Move
from plybits.xiangqi.notation import parse_chinese, write_chinese, write_wxf
from tests.conftest import FULL, QUICK, shared_data

pyffish = pytest.importorskip("pyffish")

PLY_STRIDE = 8
QUICK_PLY_STRIDE = 64
CCHESS_GAMES = 150
VARIANT = "xiangqi"
FIXTURES = Path(__file__).parent / "fixtures" / "xiangqi"


def to_ffish(iccs: str) -> str:
    """ICCS ranks 0-9 -> Fairy-Stockfish ranks 1-10."""
    return f"{iccs[0]}{int(iccs[1]) + 1}{iccs[2]}{int(iccs[3]) + 1}"


def from_ffish(move: str) -> str:
    """Fairy-Stockfish ``h3e3`` / ``a1a10`` -> ICCS ``h2e2`` / ``a0a9``."""
    m = re.fullmatch(r"([a-i])(\d+)([a-i])(\d+)", move)
    assert m, move
    return f"{m[1]}{int(m[2]) - 1}{m[3]}{int(m[4]) - 1}"


def load_games(paths: list[Path]) -> tuple[list[tuple[str, list[str], str | None]], int, int]:
    """``(label, the moves up to the first illegal one, that illegal move or None)`` of every distinct game,
    the number of records read and of games cut; each cut is printed."""
    seen: set[tuple[str, ...]] = set()
    out = []
    total = cut = 0
    for path in paths:
        for n, text in enumerate(GAME.split_records(path.read_text(encoding="utf-8"))):
            total += 1
            record = GAME.parse_record(text)
            key = tuple(record.moves)
            if key in seen:
                continue
            seen.add(key)
            board = Board()
            moves: list[str] = []
            bad = None
            for ply, token in enumerate(record.moves):
                move = Move.from_iccs(token)
                if not board.is_legal(move):
                    bad = token
                    cut += 1
                    print(f"{path.name} game {n + 1}: illegal move {token!r} at ply {ply}, game cut there")
                    break
                board.push(move)
                moves.append(token)
            out.append((f"{path.name}#{n + 1}", moves, bad))
    plies = sum(len(m) for _, m, _ in out)
    print(f"\nxiangqi games: {total} records, {len(out)} distinct by move sequence, {plies} plies, "
          f"{cut} cut at an illegal move")
    return out, total, cut


@pytest.fixture(scope="module")
def games() -> list[tuple[str, list[str], str | None]]:
    out, total, _ = load_games(sorted(shared_data("xiangqi").glob("*.pgn")))
    assert total == 1391 + 1125
    return out


def test_cutting_on_a_small_file_with_an_illegal_move():
    out, total, cut = load_games([FIXTURES / "with_illegal.pgn"])
    assert (total, len(out), cut) == (3, 2, 1)  # the third record repeats the first
    assert out[1][1] == ["h2e2", "h9g7"] and out[1][2] == "a0a5"
    legal = pyffish.legal_moves(VARIANT, pyffish.start_fen(VARIANT), [to_ffish(m) for m in out[1][1]])
    assert to_ffish("a0a5") not in legal


@pytest.mark.data
def test_illegal_cuts_are_illegal_for_pyffish_too(games):
    start = pyffish.start_fen(VARIANT)
    cut = [(label, moves, bad) for label, moves, bad in games if bad is not None]
    for label, moves, bad in cut:  # the fixture printed each; Fairy-Stockfish must reject the same move
        legal = pyffish.legal_moves(VARIANT, start, [to_ffish(m) for m in moves])
        assert to_ffish(bad) not in legal, label
    print(f"\n{len(cut)} games cut at an illegal move, each rejected by Fairy-Stockfish too")


@pytest.mark.data
def test_final_fen_and_wxf_equal_pyffish(games):
    start = pyffish.start_fen(VARIANT)
    wxf_moves = 0
    for label, moves, _ in games:
        board = Board()
        mine_wxf = []
        for token in moves:
            move = Move.from_iccs(token)
            mine_wxf.append(write_wxf(board, move))
            board.push(move)
        ff_moves = [to_ffish(m) for m in moves]
        assert board.fen() == pyffish.get_fen(VARIANT, start, ff_moves), label
        theirs = pyffish.get_san_moves(VARIANT, start, ff_moves, False, pyffish.NOTATION_XIANGQI_WXF)
        assert mine_wxf == theirs, label
        wxf_moves += len(moves)
    print(f"\nfinal FEN of {len(games)} games and WXF of {wxf_moves} moves equal Fairy-Stockfish's")


@pytest.mark.data
def test_legal_moves_equal_pyffish(games):
    stride = 1 if FULL else QUICK_PLY_STRIDE if QUICK else PLY_STRIDE
    offsets = random.Random("xiangqi legal moves")
    checked = 0
    for label, moves, _ in games:
        board = Board()
        offset = offsets.randrange(stride)
        for ply, token in enumerate(moves + [None]):
            if ply % stride == offset:
                mine = sorted(m.iccs() for m in board.legal_moves())
                theirs = sorted(from_ffish(m) for m in pyffish.legal_moves(VARIANT, board.fen(), []))
                assert mine == theirs, (label, ply, board.fen())
                checked += 1
            if token is None:
                break
            board.push(Move.from_iccs(token))
    plies = sum(len(moves) + 1 for _, moves, _ in games)
    print(f"\nlegal-move lists equal Fairy-Stockfish's at {checked} of the {plies} positions of {len(games)} games "
          f"(one ply in {stride})")
    assert checked >= plies // stride - len(games)


@pytest.mark.data
def test_chinese_equals_cchess(games):
    cchess = pytest.importorskip("cchess")
    chosen = games[:CCHESS_GAMES] if QUICK else games
    checked = 0
    for label, moves, _ in chosen:
        ours = Board()
        theirs = cchess.ChessBoard(cchess.FULL_INIT_FEN)
        for ply, token in enumerate(moves):
            move = Move.from_iccs(token)
            peer = theirs.move_iccs(token)
            assert peer is not None, (label, ply, token)
            text = peer.to_text()
            assert write_chinese(ours, move) == text, (label, ply, token)
            assert parse_chinese(ours, text) == move
            ours.push(move)
            theirs.next_turn()
            checked += 1
    print(f"\nChinese notation of {checked} moves ({len(chosen)} games) equals cchess's and reads back")
