"""SAN reading keeps each token's syntax (issue 17): the kept syntax reads the same move as a fresh read, in
every position, and the store stays bounded however many distinct tokens come."""

from __future__ import annotations

import chess
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


# san_index: the rank encoder's read of a SAN token among the codes it ranks (no move checked a second time) must
# take exactly the move parse_move reads, and give way (-1) wherever parse_move answers an error


def _tokens(board: Board, peer: chess.Board) -> list[str]:
    """python-chess's SAN of every legal move, each also without its check mark, over-specified and with a stray
    ``x``, and tokens that parse_move refuses or reads otherwise: wrong pawn file, king takes own rook, no
    promotion piece, promotion of a piece, a piece not there."""
    out: list[str] = []
    for move in peer.legal_moves:
        text = peer.san(move)
        out += [text, text.rstrip("+#"), f"{text}!", chess.square_name(move.from_square) + chess.square_name(move.to_square),
                move.uci(), move.uci() + "q"]
        piece = peer.piece_at(move.from_square)
        if piece is not None and piece.piece_type != chess.PAWN and not peer.is_castling(move):
            letter = piece.symbol().upper()
            out += [letter + chess.square_name(move.from_square) + chess.square_name(move.to_square),
                    letter + chess.square_name(move.to_square), letter + "x" + chess.square_name(move.to_square),
                    letter + chess.square_name(move.to_square) + "=Q"]
        if piece is not None and piece.piece_type == chess.PAWN:
            out += [chess.square_name(move.to_square), text.split("=")[0]]
    king = peer.king(peer.turn)
    for rook in peer.pieces(chess.ROOK, peer.turn):
        out += [f"Kx{chess.square_name(rook)}", f"K{chess.square_name(rook)}",
                chess.square_name(king) + chess.square_name(rook)]  # king takes rook: castling in UCI
    out += [f"K{chess.square_name(king)}", "O-O", "O-O-O", "--", "Qz9", "e9", "Nf3"]
    return out


def test_san_index_takes_what_parse_move_reads_or_gives_way() -> None:
    """In every position of real games and of edge positions (promotions, en passant, pins, Chess960 castling),
    for every token: san_index finds parse_move's move among the legal codes, or answers -1; it answers -1 for
    every token parse_move refuses, and finds every plain SAN move (not castling) python-chess writes and every
    UCI move parse_move reads (castling as a king's two-step or king-takes-rook)."""
    from plybits.chess.board import legal_codes
    from plybits.chess.squares import MOVE_TABLE
    from plybits.errors import PlybitsError
    from plybits.registry import get_game

    game = get_game("chess")
    fens = ["8/1P4k1/8/3pP3/8/8/6K1/8 w - d6 0 1", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1",
            "4k3/8/8/8/8/8/3N4/4K1N1 w - - 0 1", "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", "2k5/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "1nbrkbnr/8/8/8/8/8/8/1RBNK1R1 w GBd - 0 1", "4k3/8/8/2N1N3/8/2N1N3/8/4K3 w - - 0 1"]
    record = game.parse_record(
        "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 "
        "11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 Nxe4 18. Bxe7 Qxe7 "
        "19. exd6 Qf6 20. Nbd2 Nxd6 21. Nc4 Nxc4 22. Bxc4 Nb6 23. Ne5 Rae8 24. Bxf7+ Rxf7 25. Nxf7 Rxe1+")
    board = game.position()
    for token in record.moves:
        fens.append(board.fen())
        board.push(board.parse_move(token, "san"))
    found = 0
    for fen in fens:
        board = game.position(fen)
        peer = chess.Board(board.fen(), chess960=board.chess960)
        written = {peer.san(move) for move in peer.legal_moves if not peer.is_castling(move)}
        codes, n = legal_codes(board)
        for token in _tokens(board, peer):
            for given in (None, "san", "uci"):
                try:
                    want = notation.parse_move(board, token, given)
                except PlybitsError:
                    want = None
                index = notation.san_index(board, token, given, codes, n)
                if index >= 0:
                    assert MOVE_TABLE[codes[index]] == want, (fen, token, given)
                    found += 1
                else:
                    assert token not in written or given == "uci", (fen, token, given)
                    # a UCI token is found whenever parse_move reads it as UCI
                    assert want is None or given == "san" or not notation.UCI_REGEX.match(token), (fen, token, given)
    assert found > 1000


# the compiled build's search of a SAN move among the codes (_matching_index, one pass over them; pure Python reads
# parse_san's candidates there) against its plain definition: called here whichever build runs

_SEARCHED = ["8/1P4k1/8/3pP3/8/8/6K1/8 w - d6 0 1", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
             "r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1", "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1",
             "1nbrkbnr/8/8/8/8/8/8/1RBNK1R1 w GBd - 0 1", "4k3/8/8/2N1N3/8/2N1N3/8/4K3 w - - 0 1",
             "Q3Q3/8/8/Q7/8/8/8/2k1K3 w - - 0 1", "4k3/8/8/8/R6R/8/8/R3K3 w - - 0 1",
             "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 0 2", "4k3/8/8/2pPp3/8/8/8/4K3 w - e6 0 1"]


def test_the_compiled_search_finds_the_one_legal_move_asked() -> None:
    """For every kind, target (not one of the mover's own: san_index answers -1 before searching), promotion and
    origin file or rank asked (a pawn's file always: san_index takes the target's when the token names none), in
    positions with rivals, pins, promotions, en passant and Chess960 castling: the index of the one legal move of that
    kind, target, promotion and origin, or -1 for none or several."""
    from plybits.chess.board import legal_codes
    from plybits.chess.squares import BLACK, FILE_OF, KNIGHT, MOVE_TABLE, QUEEN, RANK_OF, SQUARES

    asked = [(-1, -1)] + [(f, -1) for f in range(8)] + [(-1, r) for r in range(8)]
    pawn_asked = [(f, -1) for f in range(8)] + [(f, r) for f in range(8) for r in range(8)]
    found = ambiguous = 0
    for fen in _SEARCHED:
        board = Board(fen, chess960="G" in fen)
        codes, n = legal_codes(board)
        moves = [MOVE_TABLE[codes[i]] for i in range(n)]
        for to_sq in SQUARES:
            piece = board.cells[to_sq]
            if piece and piece & BLACK == board.turn:
                continue
            for kind in range(1, 7):
                for promotion in (0, KNIGHT, QUEEN) if kind == 1 else (0,):
                    for from_file, from_rank in asked if kind != 1 else pawn_asked:
                        matching = [i for i, (f, t, p) in enumerate(moves) if f and t == to_sq and p == promotion
                                    and board.cells[f] & 7 == kind and from_file in (-1, FILE_OF[f])
                                    and from_rank in (-1, RANK_OF[f])]
                        want = matching[0] if len(matching) == 1 else -1
                        got = notation._matching_index(board, codes, n, kind, to_sq, promotion, from_file, from_rank)
                        assert got == want, (fen, kind, to_sq, promotion, from_file, from_rank)
                        found += want >= 0
                        ambiguous += len(matching) > 1
    assert found > 500 and ambiguous > 20


def test_san_tells_rivals_apart_as_python_chess_does() -> None:
    """Every legal move's SAN (file, rank or square of the origin where other pieces of its kind reach the target;
    a pinned rival is none) equals python-chess's, also as decode writes it (play_text)."""
    for fen in _SEARCHED + ["4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "3k4/8/8/8/1b6/8/3N1N2/4K3 w - - 0 1",
                            "3qk3/8/8/8/8/8/8/N1N1K1N1 w - - 0 1"]:
        peer = chess.Board(fen, chess960="G" in fen)
        board = Board(fen, chess960="G" in fen)
        for move in board.legal_moves():
            text = notation.san(board, move)
            after = board.copy()
            assert notation.play_text(after, move, "san") == text
            assert text == peer.san(peer.parse_uci(notation.uci(board, move))), (fen, move)


def test_the_plain_san_reader_reads_the_common_shapes_as_the_full_reader() -> None:
    """_plain_san (the compiled san_index's first look, by character codes) gives _read_san_syntax's code for every
    token it reads, and 0 for the rest: every token of up to five characters over letters, digits and marks that
    make and break SAN's shapes; it reads every plain move, capture and pawn capture, with or without + or #."""
    import itertools

    alphabet = "aehbx1458NKQB+#=O-"
    read = 0
    for size in range(6):
        for letters in itertools.product(alphabet, repeat=size):
            token = "".join(letters)
            code = notation._plain_san(token)
            if code:
                assert code == notation._read_san_syntax(token), token
                read += 1
    assert read > 500
    for token in ("e4", "h8", "Nf3", "Kxe1", "exd5", "hxg1", "Bxh7+", "Qh4#", "a1+", "bxa8#", "Bb5"):
        assert notation._plain_san(token) == notation._read_san_syntax(token), token
    for token in ("O-O", "e8=Q", "e8Q", "Nbd7", "e2e4", "ed5", "e4!", "e4++", "Nf3?", "--", "Z0", "", "e"):
        assert notation._plain_san(token) == 0, token


def test_the_player_plays_and_writes_as_the_board_and_notation_do() -> None:
    """chess's PLAYER (what the compiled replays call natively) pushes as Board.push and writes as play_text; the
    default MovePlayer calls a position's own push and its notation's move_text."""
    from plybits.registry import get_game
    from plybits.replay import MovePlayer, player_of

    game = get_game("chess")
    tokens = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6", "Bxf7+"]
    by_player, by_board, by_default = game.position(), game.position(), game.position()
    player = player_of(by_player)
    assert player is notation.PLAYER and isinstance(player, MovePlayer)
    for token in tokens:
        move = by_board.parse_move(token, "san")
        assert player.play_text(by_player, move, "san") == by_board.move_text(move, "san")
        assert MovePlayer().play_text(by_default, move, "uci") == by_board.move_text(move, "uci")
        by_board.push(move)
        assert by_player.fen() == by_board.fen() == by_default.fen()
    move = by_board.parse_move("Kxf7", "san")
    player.push(by_player, move)
    by_board.push(move)
    assert by_player.fen() == by_board.fen()
    assert player_of(get_game("xiangqi").position()) is None
