"""Chess rules, FEN, SAN/UCI and status on hand-worked positions and published perft counts."""

from __future__ import annotations

import random
from collections.abc import Iterator

import chess
import pytest

import plybits
from plybits.chess import GAME
from plybits.chess.board import REANCHOR, Board, has_legal_move, legal_moves
from plybits.chess.squares import parse_square
from plybits.chess.rank import _RANK_UNIT, _attack_maps
from plybits.chess.notation import parse_san, parse_uci, san, uci
from plybits.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from plybits.packed import PACKED

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def perft(board: Board, depth: int, mapped: bool = False) -> int:
    """The leaf count ``depth`` plies down; ``mapped``: each node's moves made as the rank model makes them, the
    king's steps read from its attack map (a fresh board or a child just pushed has no moves cached)."""
    moves = legal_moves(board, _attack_maps(board.cells, board.turn)[0], _RANK_UNIT) if mapped else board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = board.copy()
        child.push(move)
        total += perft(child, depth - 1, mapped)
    return total


# Published counts: chessprogramming.org "Perft Results" (positions 1-5) and the Chess960 perft list.
@pytest.mark.parametrize(
    "fen,depth,count",
    [
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 1, 20),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 2, 400),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 3, 8902),
        (KIWIPETE, 1, 48),
        (KIWIPETE, 2, 2039),
        (KIWIPETE, 3, 97862),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43238),
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9467),
        ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62379),
        ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 3, 12189),
        # Chess960 with castling both ways still open; count as python-chess 1.11.2 gives it
        ("2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9", 3, 18002),
    ],
)
def test_perft(fen, depth, count):
    assert perft(Board(fen), depth) == count


# The same published counts with the king's steps read from the rank model's map of the opponent's attacks (the
# map shows no square behind the king from a sliding checker: the generator adds those).
@pytest.mark.parametrize("fen,depth,count", [case for case in test_perft.pytestmark[0].args[1] if case[2] < 20_000])
def test_perft_with_the_rank_models_attack_map(fen, depth, count):
    assert perft(Board(fen), depth, mapped=True) == count


def test_move_codes_overflowing_their_array_leave_the_cells_as_they_were():
    """The generator writes move codes into an array it does not grow: one too short for a position's moves (a
    FEN of 24 queens has 238) raises IndexError with the cells restored, the king put back from where its steps
    were being listed, and legal_codes lists every move, in legal_moves' order, with room for one more."""
    from plybits.chess.board import _NO_MAP, _generate, legal_codes
    from plybits.chess.squares import MOVE_TABLE, move_code
    from plybits.packed import int_array

    board = GAME.position("2QQ2nk/Q4Qpp/3Q3Q/1Q4Q1/4Q3/2Q4Q/Q4Q2/2QQ3K w - - 0 1")
    moves = board.legal_moves()
    assert len(moves) == chess.Board(board.fen()).legal_moves.count() == 238
    king = parse_square("h1")
    before = list(board.cells)
    below_king = sum(m.from_square < king for m in moves)  # the king's steps come next, and there are 3
    with pytest.raises(IndexError):
        _generate(board, int_array([0] * (below_king + 1)), _NO_MAP, 0)
    assert list(board.cells) == before
    codes, n = legal_codes(board)
    assert n == len(moves) < len(codes)
    assert [MOVE_TABLE[codes[i]] for i in range(n)] == moves
    assert [move_code(m) for m in moves] == [codes[i] for i in range(n)]


def random_game(seed: int, plies: int, special: float) -> Iterator[tuple[chess.Board, Board]]:
    """python-chess's board and ours, ply after ply of a random game up to ``plies`` (or mate, or stalemate), a check,
    capture or promotion picked first with chance ``special`` when there is one."""
    rng = random.Random(seed)
    board = chess.Board()
    position = GAME.position(board.fen())
    for _ in range(plies):
        yield board, position
        legal = list(board.legal_moves)
        sharp = [m for m in legal if board.gives_check(m) or board.is_capture(m) or m.promotion]
        pool = sharp if sharp and rng.random() < special else legal
        if not pool:
            return
        chosen = rng.choice(pool)
        position.push(position.parse_move(board.uci(chosen), "uci"))
        board.push(chosen)


@pytest.mark.parametrize("seed", range(4))
def test_the_bitboard_and_the_walked_generators_list_python_chess_moves_in_one_order(seed):
    """Compiled code makes a knight's or slider's moves from bitboards (pins and checks as masks), pure Python walks
    the cells (each build runs its own in the other tests): here both run in either build, with and without the rank
    model's map, on positions of random games (checks, captures and promotions preferred half the time), and list
    the same codes, python-chess's legal moves in canonical order."""
    from plybits.chess.board import _NO_MAP, _generate, map_buffer
    from plybits.chess.squares import MOVE_TABLE
    from plybits.packed import zeros

    checks = 0
    for board, position in random_game(seed, 200, 0.5):
        expected = sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square, m.promotion or 0))
        checks += board.is_check()
        for mapped in (False, True):
            # the rank model's map, in the board's buffer: compiled, our sliders' attacks kept beside it
            attacks, attacked = (_attack_maps(position.cells, position.turn, -1, map_buffer(position))[0], _RANK_UNIT) \
                if mapped else (_NO_MAP, 0)
            listed = []
            for bits in (True, False):
                codes = zeros(256)
                n = _generate(position, codes, attacks, attacked, bits)
                listed.append([uci(position, MOVE_TABLE[codes[i]]) for i in range(n)])
            assert listed[0] == listed[1] == [board.uci(m) for m in expected], f"seed {seed} {board.fen()}"
    assert checks > 5  # the evasions were exercised


@pytest.mark.skipif(not PACKED, reason="pure Python's map (a walked one, a new array) keeps no bitboards beside it")
def test_the_map_buffer_holds_our_sliders_attacks_and_the_squares_the_opponent_attacks_beside_the_map():
    """Compiled, the rank model's map written into the board's buffer keeps, beside its cells, the bitboards the move
    generator reads: at SIZE + square each slider of the side to move's attacks, at SIZE every square the opponent
    attacks, python-chess's attack masks."""
    from plybits.chess.board import map_buffer
    from plybits.chess.squares import SIZE, SQUARE_OF_NAME

    low64 = (1 << 64) - 1
    for board, position in random_game(11, 150, 0.2):
        men = position.men
        buffer = _attack_maps(position.cells, position.turn, men[0] | men[1], map_buffer(position))[0]
        theirs = 0
        for square, piece in board.piece_map().items():
            if piece.color != board.turn:
                theirs |= int(board.attacks_mask(square))
            elif piece.piece_type in (chess.BISHOP, chess.ROOK, chess.QUEEN):
                at = SQUARE_OF_NAME[chess.square_name(square)]
                assert buffer[SIZE + at] & low64 == int(board.attacks_mask(square)), board.fen()
        assert buffer[SIZE] & low64 == theirs, board.fen()


def ucis(fen: str) -> set[str]:
    board = GAME.position(fen)
    return {uci(board, m) for m in board.legal_moves()}


def test_en_passant_only_right_after_the_double_step():
    board = GAME.position("4k3/8/8/8/1p6/8/P7/4K3 w - - 0 1")
    board.push(board.parse_move("a4"))
    assert board.fen() == "4k3/8/8/8/Pp6/8/8/4K3 b - a3 0 1"
    assert "b4a3" in {uci(board, m) for m in board.legal_moves()}
    board.push(board.parse_move("Kd7"))
    board.push(board.parse_move("Kd1"))
    assert "b4a3" not in {uci(board, m) for m in board.legal_moves()}


def test_en_passant_that_exposes_the_king_on_the_rank_is_illegal():
    # White Ka5, pawn b5; black pawn c5 just moved c7-c5; black rook h5 would see the king.
    fen = "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2"
    assert "b5c6" not in ucis(fen)
    assert GAME.position(fen).fen() == "8/8/8/KPp4r/8/8/8/4k3 w - - 0 2"  # no legal ep: no ep square written


def test_pinned_piece_moves_only_along_the_pin():
    # e2 is pinned by the rook e8 against Ke1: a bishop cannot move at all, a rook only along the file
    moves = ucis("4r2k/8/8/8/8/8/4B3/4K3 w - - 0 1")
    assert not any(m.startswith("e2") for m in moves)
    moves = ucis("4r2k/8/8/8/8/8/4R3/4K3 w - - 0 1")
    assert {m for m in moves if m.startswith("e2")} == {"e2e3", "e2e4", "e2e5", "e2e6", "e2e7", "e2e8"}


def test_check_must_be_answered_and_double_check_moves_the_king():
    near = ucis("4k3/8/8/8/8/8/3r4/R3K3 w - - 0 1")  # rook d2 guards d1 and e2 but may be taken
    assert {m for m in near if m.startswith("e1")} == {"e1d2", "e1f1"}
    check = ucis("4k3/8/8/8/8/4r3/8/R3K2R w KQ - 0 1")  # rook e3 checks along the e-file
    assert check == {"e1d1", "e1d2", "e1f1", "e1f2"}  # no castling out of check, no interposing piece
    double = ucis("4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1")  # knight f3 and rook a1 both check
    assert double == {"e1e2", "e1f2"}  # d1/f1 on the rook's rank, d2 under the knight; no castling, no rook move


def test_castling_through_check_and_through_pieces():
    assert {"e1g1", "e1c1"} <= ucis("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert "e1g1" not in ucis("r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1")  # the rook on f2 guards f1
    assert "e1c1" in ucis("r3k2r/8/8/8/8/8/1r6/R3K2R w KQkq - 0 1")  # b1 attacked is fine for O-O-O
    assert "e1c1" not in ucis("r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1")


@pytest.mark.parametrize("fen", [
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",  # f1 guarded
    "r3k2r/8/8/8/8/8/6r1/R3K2R w KQkq - 0 1",  # g1 guarded
    "r3k2r/8/8/8/8/8/3r4/R3K2R w KQkq - 0 1",  # d1 guarded
    "r3k2r/8/8/8/8/8/2r5/R3K2R w KQkq - 0 1",  # c1 guarded
    "r3k2r/8/8/8/8/8/1r6/R3K2R w KQkq - 0 1",  # b1 guarded: O-O-O stays legal
    "r3k2r/8/8/8/8/4n3/8/R3K2R w KQkq - 0 1",  # d1 and f1 guarded by a knight
    "r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1",  # b1 occupied
    "r3k2r/8/8/8/8/8/8/R3K1NR w KQkq - 0 1",  # g1 occupied
    "r3k2r/8/8/8/8/8/4p3/R3K2R b KQkq - 0 1",  # black to move, its rights open
    "r3k2r/4P3/8/8/8/8/8/R3K2R b KQkq - 0 1",  # a pawn guards d8 and f8
    "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1",
])
def test_castling_read_from_the_attack_map_agrees_with_python_chess(fen):
    """The generator reads castling's path from the rank model's attack map when it has one (king on the e-file,
    rook in a corner): the same moves as without the map and as python-chess."""
    board = GAME.position(fen)
    mapped = legal_moves(board.copy(), _attack_maps(board.cells, board.turn)[0], _RANK_UNIT)
    assert mapped == legal_moves(board.copy())
    assert {uci(board, m) for m in mapped} == {m.uci() for m in chess.Board(fen).legal_moves}


def test_castling_follows_the_rights_set_however_it_was_replaced():
    """The generator reads the castling rooks as a bitboard made from :attr:`Board.castling` and kept with the set it
    was made from: a set assigned afterwards (the attribute is public) is read afresh, in both generators."""
    from plybits.chess.board import _NO_MAP, _generate
    from plybits.chess.squares import MOVE_TABLE
    from plybits.packed import zeros

    board = GAME.position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    for rights, expected in ((frozenset(), set()), (frozenset({parse_square("h1")}), {"e1g1"}),
                             (board.castling, {"e1g1", "e1c1"})):
        board.castling = rights
        for bits in (True, False):
            codes = zeros(256)
            n = _generate(board, codes, _NO_MAP, 0, bits)
            listed = {uci(board, MOVE_TABLE[codes[i]]) for i in range(n)}
            assert listed & {"e1g1", "e1c1"} == expected, (rights, bits)


def test_chess960_castling_is_king_takes_rook_and_rook_may_stay():
    # King b1 with rooks a1 and g1: O-O-O puts the king on c1 and the rook on d1.
    board = GAME.position("r3k2r/8/8/8/8/8/8/RK4R1 w AGha - 0 1")
    assert board.chess960
    moves = {uci(board, m) for m in board.legal_moves()}
    assert {"b1a1", "b1g1"} <= moves
    assert san(board, parse_uci(board, "b1a1")) == "O-O-O" and san(board, parse_uci(board, "b1g1")) == "O-O"
    board.push(parse_uci(board, "b1a1"))
    assert board.fen() == "r3k2r/8/8/8/8/8/8/2KR2R1 b ha - 1 1"
    # O-O with the king already on g1: only the rook moves (king b... here king g1, rook h1)
    board = GAME.position("4k3/8/8/8/8/8/8/6KR w H - 0 1")
    board.push(board.parse_move("O-O"))
    assert board.fen() == "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"


def test_chess960_start_round_trips_as_shredder_fen():
    xfen = "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1"
    board = GAME.position(xfen)
    assert board.chess960
    assert board.fen() == "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w GDgd - 0 1"
    assert GAME.position(board.fen()).fen() == board.fen()
    standard_as_960 = GAME.position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1")
    assert standard_as_960.chess960 and standard_as_960.fen().split()[2] == "HAha"
    assert GAME.canonical_start(standard_as_960.fen()) == standard_as_960.fen()
    assert GAME.canonical_start(GAME.position().fen()) is None


def test_the_verbs_read_a_given_start_once(monkeypatch):
    fen = KIWIPETE
    built: list[str | None] = []
    position = GAME.position

    def counting(start=None, **options):
        built.append(start)
        return position(start, **options)

    monkeypatch.setattr(GAME, "position", counting)
    assert plybits.legal_moves("chess", start=fen)[0] == fen
    assert built.count(fen) == 1
    built.clear()
    data = plybits.encode("chess", "0x88", moves=["O-O"], start=fen).data
    assert built.count(fen) == 1
    built.clear()
    assert plybits.decode(data).moves == ["O-O"]
    assert built.count(fen) == 1


def test_uci_castling_differs_between_standard_and_chess960():
    standard = GAME.position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    move = parse_uci(standard, "e1g1")
    assert uci(standard, move) == "e1g1" and san(standard, move) == "O-O"
    assert parse_uci(standard, "e1h1") == move  # king-takes-rook is read too
    chess960 = GAME.position("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1")
    assert uci(chess960, parse_uci(chess960, "e1h1")) == "e1h1"
    with pytest.raises(IllegalMoveError):
        parse_uci(chess960, "e1g1")


def test_promotions_and_under_promotions():
    board = GAME.position("8/P7/8/8/8/8/8/k6K w - - 0 1")
    assert {uci(board, m) for m in board.legal_moves() if m.promotion} == {"a7a8q", "a7a8r", "a7a8b", "a7a8n"}
    for text, expected in [("a8=Q", "a7a8q"), ("a8Q", "a7a8q"), ("a8=n", "a7a8n"), ("a7a8r", "a7a8r"), ("a8=B+", "a7a8b")]:
        assert uci(board, board.parse_move(text)) == expected
    assert san(board, parse_uci(board, "a7a8q")) == "a8=Q+"
    with pytest.raises(IllegalMoveError):
        board.parse_move("a8")  # the piece is missing
    with pytest.raises(IllegalMoveError):
        board.parse_move("a7a8")  # in UCI too
    with pytest.raises(IllegalMoveError):
        board.parse_move("a8=K")


@pytest.mark.parametrize("text", ["O-O", "0-0", "O-O+", "O-O!?", "e1g1", "e1h1"])
def test_san_leniencies_for_castling(text):
    board = GAME.position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert uci(board, board.parse_move(text, "san" if not text.startswith("e1") else None)) == "e1g1"


@pytest.mark.parametrize("text", ["Nf3", "Ng1f3", "Ng1-f3", "Nxf3", "Nf3+", "Nf3!", "Nf3?!", "g1f3"])
def test_san_leniencies(text):
    board = GAME.position()
    assert uci(board, board.parse_move(text)) == "g1f3"


def test_san_disambiguation_written_and_read():
    # knights b1/f1 differ by file, rooks a4/a2 by rank, queens a4/c4/a2 need both
    board = GAME.position("k7/8/8/8/8/8/8/1N3N1K w - - 0 1")
    assert san(board, parse_uci(board, "b1d2")) == "Nbd2"
    with pytest.raises(AmbiguousMoveError):
        board.parse_move("Nd2")
    board = GAME.position("7k/8/8/8/R7/8/R7/4K3 w - - 0 1")
    assert san(board, parse_uci(board, "a4a3")) == "R4a3"
    board = GAME.position("7k/8/8/8/Q1Q5/8/Q7/4K3 w - - 0 1")
    assert san(board, parse_uci(board, "a4b3")) == "Qa4b3"
    assert uci(board, board.parse_move("Qa4b3")) == "a4b3"


def test_san_check_and_mate_marks():
    board = GAME.position()
    for text in ["f3", "e5", "g4"]:
        board.push(board.parse_move(text))
    mate = board.parse_move("Qh4")
    assert san(board, mate) == "Qh4#"
    board.push(mate)
    assert board.status() == {"status": "checkmate", "winner": "black", "result": "0-1"}


@pytest.mark.parametrize(
    "fen",
    [
        KIWIPETE,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "5k2/8/8/8/8/8/8/4K2R w K - 0 1",  # O-O gives check with the rook
        "8/8/8/R2pP2k/8/8/8/K7 w - d6 0 1",  # exd6 opens the rank: a discovered check through the taken pawn
        "3k4/1P6/8/8/8/8/8/4K3 w - - 0 1",  # b8=Q+ and b8=R+, not b8=N or b8=B
    ],
)
def test_gives_check_agrees_with_the_position_after_the_move(fen):
    # two plies deep, and after a null move, every legal move; the reference looks at the king after playing it
    def check_all(board):
        for m in board.legal_moves():
            after = board.copy()
            after.push(m)
            king = after.kings[after.turn >> 3]
            assert board.gives_check(m) == after.attacked(king, board.turn), (board.fen(), uci(board, m))

    board = GAME.position(fen)
    check_all(board)
    for m in board.legal_moves():
        child = board.copy()
        child.push(m)
        check_all(child)
    nulled = board.copy()
    nulled.push(parse_san(nulled, "--"))
    check_all(nulled)


@pytest.mark.parametrize(
    "fen",
    [
        KIWIPETE,
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
        "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",  # mate
        "6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1",  # smothered mate: no king step, no other move
        "4k3/4r3/8/8/8/8/3PPP2/3QKR2 w - - 0 1",  # checked, the king boxed in: only a block or capture answers
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "8/8/8/R2pP2k/8/8/8/K7 w - d6 0 1",
    ],
)
def test_has_legal_move_agrees_with_python_chess(fen):
    # every position two plies deep, the king's steps looked for first and the full generation after them
    def check(board):
        reference = chess.Board(board.fen())
        assert has_legal_move(board) == any(True for _ in reference.legal_moves), board.fen()
        assert has_legal_move(board) == (len(board.legal_moves()) > 0)  # cached moves answer the same

    board = GAME.position(fen)
    check(GAME.position(fen))
    for m in board.legal_moves():
        child = board.copy()
        child.push(m)
        check(child)
        for reply in child.legal_moves()[:8]:
            grandchild = child.copy()
            grandchild.push(reply)
            check(grandchild)


def test_pawn_captures_need_the_file():
    board = GAME.position("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1")
    assert uci(board, board.parse_move("exd5")) == "e4d5"
    assert uci(board, board.parse_move("ed5")) == "e4d5"
    with pytest.raises(IllegalMoveError):
        board.parse_move("d5")


@pytest.mark.parametrize("text", ["", "Nf9", "Xe4", "e4e5e6", "O-O-O-O", "Qa"])
def test_bad_san_syntax(text):
    with pytest.raises(InvalidMoveError):
        GAME.position().parse_move(text, "san")


def test_null_move():
    board = GAME.position()
    for text in ["--", "Z0", "0000"]:
        move = board.parse_move(text)
        assert not move and san(board, move) == "--" and uci(board, move) == "0000"
    board.push(board.parse_move("e4"))
    board.push(board.parse_move("--"))
    assert board.fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"


@pytest.mark.parametrize(
    "fen,status",
    [
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", {"status": "stalemate", "result": "1/2-1/2"}),
        ("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", {"status": "checkmate", "winner": "white", "result": "1-0"}),
        ("8/8/4k3/8/8/3NK3/8/8 w - - 0 1", {"status": "insufficient_material", "result": "1/2-1/2"}),
        ("8/8/4k3/8/2b5/3BK3/8/8 w - - 0 1", {"status": "insufficient_material", "result": "1/2-1/2"}),  # same-colour bishops
        ("8/8/4k3/4b3/8/3BK3/8/8 w - - 0 1", {"status": "ongoing"}),  # opposite colours: mate exists
        ("8/8/4k3/8/8/3NK3/8/7q w - - 0 1", {"status": "ongoing"}),
        ("8/8/4k3/8/8/4K3/8/R7 w - - 100 80", {"status": "fifty_moves", "result": "1/2-1/2"}),
        ("8/8/4k3/8/8/4K3/8/R7 w - - 99 80", {"status": "ongoing"}),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 100 80", {"status": "stalemate", "result": "1/2-1/2"}),  # stalemate first
    ],
)
def test_status(fen, status):
    assert GAME.position(fen).status() == status


def test_threefold_repetition():
    board = GAME.position()
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    for text in shuffle:
        board.push(board.parse_move(text))
    assert board.status() == {"status": "ongoing"}  # start position seen twice
    for text in shuffle:
        board.push(board.parse_move(text))
    assert board.repetitions() == 3
    assert board.status() == {"status": "threefold", "result": "1/2-1/2"}


@pytest.mark.parametrize(
    "fen",
    [
        "",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",  # 7 ranks
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1",  # no white king
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1",  # K right but no h-side rook
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",  # ep without a double step
        "4k3/8/8/8/8/8/8/4K2R w - - 0 1 extra",
        "4k3/8/8/8/8/8/8/R3K3 w - - x 1",
        "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",  # pawn on the last rank
    ],
)
def test_bad_fen(fen):
    with pytest.raises(InvalidPositionError):
        GAME.position(fen)


def test_side_not_to_move_in_check_is_refused():
    with pytest.raises(InvalidPositionError, match="not to move is in check"):
        GAME.position("4k3/8/8/8/8/8/8/4K2r b - - 0 1")


def test_fen_round_trip_and_defaults():
    assert GAME.position("8/8/8/8/8/8/8/k6K").fen() == "8/8/8/8/8/8/8/k6K w - - 0 1"
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    assert GAME.position(fen).fen() == fen


def test_occupied_uses_geometry_coordinates():
    cells = set(GAME.position("8/8/8/8/8/8/8/k6K w - - 0 1").occupied())
    assert cells == {(0, 0, "k"), (7, 0, "K")}


def test_illegal_moves_name_the_reason():
    board = GAME.position()
    with pytest.raises(IllegalMoveError, match="e2e5"):
        board.parse_move("e2e5")
    with pytest.raises(IllegalMoveError, match="Ke2"):
        board.parse_move("Ke2")
    with pytest.raises(IllegalMoveError):
        parse_san(board, "O-O")
    with pytest.raises(IllegalMoveError, match="no black piece|no white piece"):
        board.checked_move(parse_square("e7"), parse_square("e5"))


def test_lost_castling_rights_make_a_different_position_for_repetition():
    board = GAME.position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    cycle = ["Kf1", "Kf8", "Ke1", "Ke8"]
    for _ in range(2):
        for text in cycle:
            board.push(board.parse_move(text))
    # the start had castling rights: the same pieces without them have been seen only twice
    assert board.repetitions() == 2 and board.status() == {"status": "ongoing"}
    copy = board.copy()
    for text in cycle:
        copy.push(copy.parse_move(text))
    assert copy.repetitions() == 3 and copy.status()["status"] == "threefold"
    assert board.repetitions() == 2  # the copy's moves did not touch the original's history


def test_a_capture_starts_the_repetition_count_afresh():
    board = GAME.position("4k3/8/8/p7/8/8/8/R3K3 w - - 0 1")
    for text in ["Rb1", "Ke7", "Ra1", "Ke8", "Rb1", "Ke7", "Ra1", "Ke8"]:
        board.push(board.parse_move(text))
    assert board.repetitions() == 3
    board.push(board.parse_move("Rxa5"))
    assert board.repetitions() == 1 and board.halfmove_clock == 0


def test_a_pawn_move_on_one_board_leaves_the_repetition_history_of_others_alone():
    # a pawn move rewrites the board's record of its last irreversible position in place: no other board may see it
    shuffle = ["Nf3", "Nf6", "Ng1", "Ng8"]
    board = GAME.position()
    for text in shuffle:
        board.push(board.parse_move(text))
    copy = board.copy()
    other = GAME.position()  # another board from the same standard start
    for position in (copy, other):
        for text in ["Nf3", "e5"]:
            position.push(position.parse_move(text))
    for text in shuffle:
        board.push(board.parse_move(text))
    assert board.repetitions() == 3 and board.status()["status"] == "threefold"
    fresh = GAME.position()
    for text in shuffle:
        fresh.push(fresh.parse_move(text))
    assert fresh.repetitions() == 2


def test_repetitions_are_counted_from_the_last_pawn_move_or_capture_however_long_the_game():
    # a board copies its cells only once in REANCHOR moves and replays from that copy: at every ply of a long
    # game of knight shuffles between pawn moves (and the captures and promotions they bring), the count is
    # python-chess's
    rng = random.Random(17)
    ours, theirs = GAME.position(), chess.Board()
    shuffles = [["g1f3", "g8f6", "f3g1", "f6g8"], ["b1c3", "b8c6", "c3b1", "c6b8"]]
    plies = 0
    while plies < 12 * REANCHOR and not theirs.is_game_over():
        moves = list(theirs.legal_moves)
        pushes = [m for m in moves if theirs.piece_type_at(m.from_square) == chess.PAWN and not theirs.is_capture(m)]
        cycle = [rng.choice(pushes or moves).uci()] + rng.choice(shuffles) * rng.randrange(4)
        for text in cycle:
            move = chess.Move.from_uci(text)
            if not theirs.is_legal(move):
                break
            ours.push(ours.parse_move(text, "uci"))
            theirs.push(move)
            plies += 1
            expected = max(n for n in range(1, 10) if theirs.is_repetition(n))
            assert ours.repetitions() == expected, (plies, theirs.fen())
    assert plies >= 8 * REANCHOR


@pytest.mark.parametrize("fen", [
    "4k3/8/8/8/8/5n2/8/r3K2R w K - 0 1",  # knight f3 and rook a1
    "4k3/8/8/8/1b6/3n4/4PP2/4K2R w K - 0 1",  # knight d3 and bishop b4: a pawn could take the knight, not both
    "r3k3/8/8/8/8/8/5q2/R3K2R w KQ - 0 1",  # queen f2 alone: one check, the king may take it
    "4k3/8/8/1B6/8/8/8/3QK2R b K - 0 1",  # bishop b5 gives one check to the black king
    "8/8/8/2k5/3Pp3/8/8/4K2Q b - d3 0 1",  # pawn d4 checks, en passant takes it
    "4r1k1/8/8/8/8/8/3N4/R3K2r w Q - 0 1",  # rooks e8 and h1 give two checks on the king's own rank and file
])
def test_the_kings_moves_read_from_the_rank_maps_buffer_in_check_and_double_check(fen):
    """With the rank model's map in the board's buffer (compiled: the king's targets one mask of the squares the
    opponent attacks, beside the map), in one and in two checks, the legal moves are python-chess's in canonical
    order: in two checks only the king's, the men's masks leaving them no square."""
    from plybits.chess.board import _generate, map_buffer
    from plybits.chess.squares import MOVE_TABLE
    from plybits.packed import zeros

    board = chess.Board(fen)
    assert board.is_valid() and board.is_check()
    position = Board(fen)
    expected = sorted(board.legal_moves, key=lambda m: (m.from_square, m.to_square, m.promotion or 0))
    attacks = _attack_maps(position.cells, position.turn, -1, map_buffer(position))[0]
    for bits in (True, False):
        codes = zeros(256)
        n = _generate(position, codes, attacks, _RANK_UNIT, bits)
        assert [uci(position, MOVE_TABLE[codes[i]]) for i in range(n)] == [board.uci(m) for m in expected]
