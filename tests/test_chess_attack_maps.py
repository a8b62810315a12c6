"""The chess ``rank`` model's attack map (:func:`plybits.chess.rank._attack_maps`) walked by the board's bitboards of
its men, against python-chess's attackers on positions of random games (kept by push, with captures, castling, en
passant and promotions): each square's cheapest enemy attacker and our count (up to 3), and the material."""

from __future__ import annotations

import random
from collections.abc import Iterator

import chess
import pytest

from plybits.chess import GAME
from plybits.chess.board import Board as Position, map_buffer
from plybits.chess.movegen import slide_bits
from plybits.chess.rank import (
    _COUNT_UNIT, _DIAGONAL_MARK, _ORTHOGONAL_MARK, _RANK_UNIT, _THREAT_LEVELS, ATTACK_VALUE, VALUE,
    _attack_maps, _last_attacks, _mark_checks, _position_terms, _walked_attack_maps,
)
from plybits.chess.squares import FILE_OF, NULL_MOVE, RANK_OF, SIZE, SQUARES, Move

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


def _random_game(seed: int, plies: int) -> Iterator[tuple[int, chess.Board, Position, Move | None]]:
    """The positions of a random game (captures, promotions and castling favoured), each as (its ply, python-chess's
    board, ours, the move of ours that led to it (``None`` first)): both boards are pushed on after each."""
    rng = random.Random(seed)
    board = chess.Board()
    position = GAME.position(board.fen())
    played = None
    for ply in range(plies):
        yield ply, board, position, played
        moves = list(board.legal_moves)
        if not moves:
            return
        special = [m for m in moves if board.is_capture(m) or m.promotion or board.is_castling(m)]
        move = rng.choice(special if special and rng.random() < 0.4 else moves)
        played = position.parse_move(board.uci(move), "uci")
        position.push(played)
        board.push(move)


@pytest.mark.parametrize("seed", range(6))
def test_the_bitboard_walk_gives_python_chess_attackers(seed: int) -> None:
    for ply, board, position, _ in _random_game(seed, 160):
        men = position.men
        attacks, material = _attack_maps(position.cells, position.turn, men[0] | men[1])
        at = f"seed {seed} ply {ply} {board.fen()}"
        for sq in SQUARES:
            square = chess.square(FILE_OF[sq], RANK_OF[sq])
            assert attacks[sq] == expected_entry(board, square), f"{at} {chess.square_name(square)}"
        assert material == expected_material(board), at
        full_scan = _attack_maps(position.cells, position.turn)  # every cell read: the same map
        assert [full_scan[0][sq] for sq in SQUARES] == [attacks[sq] for sq in SQUARES] and full_scan[1] == material, at
        walked = _walked_attack_maps(position.cells, position.turn, men[0] | men[1])  # pure Python's way: the same
        assert [walked[sq] for sq in SQUARES] == [attacks[sq] for sq in SQUARES], at
        assert position.material == material, at  # the board's kept material: what the walk sums
        kept = _attack_maps(position.cells, position.turn, men[0] | men[1], material=position.material)
        assert [kept[0][sq] for sq in SQUARES] == [attacks[sq] for sq in SQUARES] and kept[1] == material, at
        pawns = position.pawns  # the board's kept pawns: python-chess's; the map from them by shifts: the same
        assert [pawns[0], pawns[1]] == [int(board.pieces(chess.PAWN, side)) for side in (chess.WHITE, chess.BLACK)], at
        shifted = _attack_maps(position.cells, position.turn, men[0] | men[1], pawns=pawns)
        assert [shifted[0][sq] for sq in SQUARES] == [attacks[sq] for sq in SQUARES] and shifted[1] == material, at


def _square_set(bits: int) -> set[int]:
    """The python-chess squares of a bitboard (:data:`~plybits.chess.squares.BIT_OF`; pure Python may hold one with
    h8 as its 64 bits unsigned)."""
    return {square for square in range(64) if bits >> square & 1}


@pytest.mark.parametrize("seed", range(4))
def test_slide_bits_are_python_chess_slider_attacks(seed: int) -> None:
    """Every slider's bitboard of attacks, rays to higher and to lower bits, against python-chess's attacks, on
    positions of random games and on sliders in the corners with men on the last squares of their rays (h8 is the
    sign bit of a bitboard)."""
    rng = random.Random(seed)
    boards = []
    board = chess.Board()
    for _ in range(120):
        boards.append(board.copy())
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    boards += [chess.Board(fen) for fen in (
        "Q6n/8/8/8/8/8/8/K1k4q w - - 0 1", "7r/8/8/8/8/8/8/B3K1kb w - - 0 1", "q6B/8/8/8/8/8/8/k1K4R b - - 0 1",
        "7Q/5k2/8/8/3K4/8/8/b7 w - - 0 1",
    )]
    for board in boards:
        position = GAME.position(board.fen())
        men = position.men[0] | position.men[1]
        for square, piece in board.piece_map().items():
            if piece.piece_type in (chess.BISHOP, chess.ROOK, chess.QUEEN):
                sq = SQUARES[square]
                got = _square_set(slide_bits(sq, men, _KIND[piece.piece_type]))
                assert got == set(board.attacks(square)), f"{board.fen()} {chess.square_name(square)}"


def expected_marks(board: chess.Board, square: int) -> int:
    """The check marks of a square by python-chess: a bishop's or a rook's attacks from the enemy king's square (its
    lines up to and with their first man) hold it."""
    king = board.king(not board.turn)
    assert king is not None
    occupied = board.occupied
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied]
    orthogonal = (chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
                  | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied])
    return (_DIAGONAL_MARK if diagonal >> square & 1 else 0) | (_ORTHOGONAL_MARK if orthogonal >> square & 1 else 0)


@pytest.mark.parametrize("seed", range(3))
def test_the_map_in_the_board_buffer_holds_python_chess_attackers_and_the_check_marks(seed: int) -> None:
    """Compiled, :func:`_attack_maps` into the board's buffer (:func:`map_buffer`) adds the enemy king's check marks to
    each square's entry (python-chess's lines from that king), which :func:`_mark_checks` adds to a new map: the
    scorer reads the same entries either way (:func:`_position_terms` marks only a new map). Pure Python's map (a new
    one, the buffer ignored) is marked by :func:`_position_terms`: the same entries again."""
    for ply, board, position, _ in _random_game(100 + seed, 120):
        men = position.men
        mapped, material = _attack_maps(position.cells, position.turn, men[0] | men[1], map_buffer(position),
                                        position.material, position.pawns)  # as the model's coded() makes it
        if len(mapped) != 2 * SIZE:  # pure Python: a new map, marked as the scorer marks it
            _position_terms(position, mapped, material)
        at = f"seed {seed} ply {ply} {board.fen()}"
        for sq in SQUARES:
            square = chess.square(FILE_OF[sq], RANK_OF[sq])
            want = expected_entry(board, square) + expected_marks(board, square)
            assert mapped[sq] == want, f"{at} {chess.square_name(square)}"
        fresh, _ = _attack_maps(position.cells, position.turn, men[0] | men[1])
        _mark_checks(fresh, position.cells, position.kings[(position.turn >> 3) ^ 1])
        assert [fresh[sq] for sq in SQUARES] == [mapped[sq] for sq in SQUARES], at


def test_a_map_written_into_a_used_buffer_is_the_new_map() -> None:
    """:func:`_attack_maps` into the board's buffer (:func:`map_buffer`, every cell first set to garbage) writes every
    square: the same map as a new one with the check marks (:func:`_mark_checks`), ply after ply of a game."""
    rng = random.Random(7)
    board = chess.Board()
    position = GAME.position(board.fen())
    buffer = map_buffer(position)
    assert len(buffer) == 2 * SIZE  # the map's cells, then the bitboards compiled code keeps beside them
    for ply in range(80):
        for cell in range(SIZE):
            buffer[cell] = 127
        men = position.men
        fresh, material = _attack_maps(position.cells, position.turn, men[0] | men[1])
        written, written_material = _attack_maps(position.cells, position.turn, men[0] | men[1], buffer)
        assert written_material == material
        if len(written) == 2 * SIZE:  # compiled: the buffer, which holds the check marks (pure: a new map)
            _mark_checks(fresh, position.cells, position.kings[(position.turn >> 3) ^ 1])
        assert [written[sq] for sq in SQUARES] == [fresh[sq] for sq in SQUARES], f"ply {ply} {board.fen()}"
        lent = map_buffer(position)  # the same cells, lent again
        assert [lent[cell] for cell in range(SIZE)] == [buffer[cell] for cell in range(SIZE)]
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        position.push(position.parse_move(board.uci(move), "uci"))
        board.push(move)
    other = map_buffer(position.copy())  # a copy lends cells of its own
    other[SQUARES[0]] = 99
    assert map_buffer(position)[SQUARES[0]] != 99


def _buffer_map(position: Position) -> tuple[list[int], list[int]]:
    """The map :meth:`~plybits.chess.rank.LinearChessModel.coded` makes into the board's buffer (its squares' entries)
    and what the move generator reads beside it (the squares the enemy attacks, then each slider's attacks)."""
    men = position.men
    mapped = _attack_maps(position.cells, position.turn, men[0] | men[1], map_buffer(position), position.material,
                          position.pawns)[0]
    if len(mapped) != 2 * SIZE:  # pure Python: a new map, nothing beside it
        return [mapped[sq] for sq in SQUARES], []
    sliders = [s for s in SQUARES if 3 <= position.cells[s] & 7 <= 5]
    return [mapped[sq] for sq in SQUARES], [mapped[SIZE]] + [mapped[SIZE + s] for s in sliders]


@pytest.mark.parametrize("seed", range(4))
def test_the_sliders_attacks_kept_in_the_buffer_are_a_new_buffers(seed: int) -> None:
    """Compiled, the board's buffer keeps its sliders' attacks from map to map (:data:`_KEPT_MEN`): a map made after a
    move or several (men gone and come, captures, castling, promotions) is the map, and the attacks beside it, of a
    copy's new buffer, on positions of random games mapped at random plies."""
    rng = random.Random(400 + seed)
    for ply, board, position, _ in _random_game(300 + seed, 200):
        if rng.random() < 0.5:
            assert _buffer_map(position) == _buffer_map(position.copy()), f"seed {seed} ply {ply} {board.fen()}"


def test_a_slider_of_another_kind_on_a_kept_sliders_square_is_mapped_anew() -> None:
    """A bishop's attacks kept in the buffer are not a queen's that stands on its square a map later, though none of
    those squares' men came or went (the bishop took on e3, the queen came from c5 to c1)."""
    position = GAME.position("7k/8/8/2Q5/8/4n3/1P6/2B4K w - - 0 1")
    first = _buffer_map(position)
    for uci in ("c1e3", "h8g8", "c5c1", "g8h8"):
        position.push(position.parse_move(uci, "uci"))
    assert _buffer_map(position) == _buffer_map(position.copy()) != first


@pytest.mark.parametrize("seed", range(2))
def test_the_last_moved_pieces_attacks_are_python_chess_attacks(seed: int) -> None:
    """:func:`_last_attacks` (the squares the piece the opponent just moved attacks, which model 2's scorer tests each
    origin against) is exactly the squares python-chess says that piece attacks, as a bitboard (bit ``rank * 8 +
    file``, python-chess's square)."""
    for ply, board, position, played in _random_game(200 + seed, 120):
        if played is None or position.cells[played[1]] == 0:  # castling: the king lands elsewhere than the rook square
            continue
        last_to = played[1]
        square = chess.square(FILE_OF[last_to], RANK_OF[last_to])
        bits = _last_attacks(position, last_to)
        attacked = {i for i in range(64) if bits >> i & 1}
        assert attacked == set(board.attacks(square)), f"seed {seed} ply {ply} {board.fen()}"


_MATERIAL_STARTS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "k7/2PPPPPP/8/8/8/8/2pppppp/K7 w - - 0 1",  # promotions on both sides at once
    "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",  # promotions by capture, castling, en passant
)


def test_the_material_push_keeps_is_python_chess_material() -> None:
    """:attr:`Board.material <plybits.chess.board.Board.material>`, kept by push (captures, promotions, en passant,
    castling, null moves), copies, FEN set-up and the repetition replay, is python-chess's material of the same
    position at every ply of random playouts (standard, Chess960, promotion-rich starts) and of real games; the map given
    it (the rank coders' way) is the map that sums the men itself."""
    from tests.test_rank_games import records, replay

    rng = random.Random(16)
    starts = [(fen, False) for fen in _MATERIAL_STARTS] + [(chess.Board.from_chess960_pos(n).fen(), True)
                                                         for n in (0, 518, 959)]
    for fen, chess960 in starts:
        for _ in range(8):
            board = chess.Board(fen, chess960=chess960)
            position = GAME.position(fen, chess960=chess960) if chess960 else GAME.position(fen)
            assert position.material == expected_material(board), fen
            for ply in range(150):
                moves = list(board.legal_moves)
                if not moves:
                    break
                if rng.random() < 0.05 and not board.is_check():
                    board.push(chess.Move.null())
                    position.push(NULL_MOVE)
                else:
                    special = [m for m in moves if board.is_capture(m) or m.promotion]
                    move = rng.choice(special if special and rng.random() < 0.5 else moves)
                    position.push(position.parse_move(board.uci(move), "uci"))
                    board.push(move)
                at = f"{fen} ply {ply} {board.fen()}"
                assert position.material == expected_material(board), at
                assert position.copy(history=rng.random() < 0.5).material == expected_material(board), at
            position.repetitions()  # replays the trail on a board set up from the anchor's cells
            assert GAME.position(position.fen(), chess960=chess960).material == position.material
    for record in records("chess", "chess", "twic0920.pgn")[:20]:
        start, moves = replay("chess", record)
        position, board = GAME.position(start), chess.Board(start) if start else chess.Board()
        for move in moves:
            board.push_san(position.move_text(move, "san"))
            position.push(move)
            assert position.material == expected_material(board), board.fen()
            men = position.men
            summed = _attack_maps(position.cells, position.turn, men[0] | men[1])
            kept = _attack_maps(position.cells, position.turn, men[0] | men[1], material=position.material)
            assert [kept[0][sq] for sq in SQUARES] == [summed[0][sq] for sq in SQUARES] and kept[1] == summed[1]
