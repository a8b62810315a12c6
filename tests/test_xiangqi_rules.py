"""Xiangqi rules on hand-worked positions (each also confirmed by Fairy-Stockfish), status, and FEN in/out."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from plybits.errors import InvalidPositionError
from plybits.xiangqi import GAME
from plybits.xiangqi.board import STANDARD_FEN, Board, Move, parse_square

pyffish = pytest.importorskip("pyffish")


def moves_from(fen: str, square: str) -> set[str]:
    board = Board(fen)
    return {m.iccs() for m in board.legal_moves() if m.from_square == parse_square(square)}


def ffish_moves_from(fen: str, square: str) -> set[str]:
    out = set()
    for m in pyffish.legal_moves("xiangqi", fen, []):
        g = re.fullmatch(r"([a-i])(\d+)([a-i])(\d+)", m)
        assert g
        iccs = f"{g[1]}{int(g[2]) - 1}{g[3]}{int(g[4]) - 1}"
        if iccs[:2] == square:
            out.add(iccs)
    return out


CASES = [
    # general confined to the palace; d0 would face the black general on the open d-file
    ("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "e0", {"e0e1", "e0f0"}),
    # general in the palace corner: c2/d3 are outside, e2 faces the black general
    ("4k4/9/9/9/9/9/9/3K5/9/9 w - - 0 1", "d2", {"d2d1"}),
    # advisor on the palace diagonals only (d0 holds the general)
    ("4k4/9/9/9/9/9/9/9/4A4/3K5 w - - 0 1", "e1", {"e1f0", "e1d2", "e1f2"}),
    # elephant eye: d1 (a horse) blocks c0-e2
    ("3k5/9/9/9/9/9/9/9/3N5/2B1K4 w - - 0 1", "c0", {"c0a2"}),
    # elephant does not cross the river
    ("3k5/9/9/9/9/2B6/9/9/9/4K4 w - - 0 1", "c4", {"c4a2", "c4e2"}),
    # horse legs: e5 blocks the two jumps towards rank 6
    ("3k5/9/9/9/4p4/4N4/9/9/9/4K4 w - - 0 1", "e4", {"e4g5", "e4g3", "e4f2", "e4d2", "e4c3", "e4c5"}),
    # cannon: slides, captures over exactly one screen, never its own piece
    ("3k5/r8/9/n8/9/9/N8/9/9/C3K4 w - - 0 1", "a0", {"a0a1", "a0a2", "a0a6", "a0b0", "a0c0", "a0d0"}),
    # chariot: slides until a piece, takes an enemy one
    ("3k5/r8/9/n8/9/9/N8/9/9/C3K4 b - - 0 1", "a8",
     {"a8a9", "a8a7"} | {f"a8{f}8" for f in "bcdefghi"}),
    # soldier before the river: forward only
    ("3k5/9/9/9/9/9/2P6/9/9/4K4 w - - 0 1", "c3", {"c3c4"}),
    # soldier across the river: forward and sideways
    ("3k5/9/9/9/2P6/9/9/9/9/4K4 w - - 0 1", "c5", {"c5c6", "c5b5", "c5d5"}),
    # soldier on the last rank: sideways only
    ("3k1P3/9/9/9/9/9/9/9/9/4K4 w - - 0 1", "f9", {"f9g9", "f9e9"}),
    # black soldier across the river moves towards rank 0
    ("3k5/9/9/9/9/6p2/9/9/9/4K4 b - - 0 1", "g4", {"g4g3", "g4f4", "g4h4"}),
    # flying general: the horse between the generals may not leave the file
    ("4k4/9/9/9/9/4N4/9/9/9/4K4 w - - 0 1", "e4", set()),
    # e0 would stand on the cannon's file behind the advisor screen e1
    ("4k4/9/9/9/4c4/9/9/9/4A4/3K1A3 w - - 0 1", "d0", {"d0d1"}),
    # a chariot pinned on the general's file: along it (quiet, or taking the pinner) only, never off it
    ("4k4/9/9/9/4r4/9/9/4R4/9/4K4 w - - 0 1", "e2", {"e2e1", "e2e3", "e2e4", "e2e5"}),
    # the same with a soldier screening too: every move, off the file as well
    ("4k4/9/9/9/4r4/9/4P4/4R4/9/4K4 w - - 0 1", "e2", {f"e2{f}2" for f in "abcdfghi"} | {"e2e1"}),
    # a cannon past two pieces on the general's file: either one leaving it makes the other a screen
    ("4k4/9/9/4c4/9/9/4P4/4R4/9/4K4 w - - 0 1", "e2", {"e2e1"}),
    # in check along the file: a chariot far from it only blocks on the file
    ("4k4/9/9/9/4r4/9/9/9/R8/4K4 w - - 0 1", "a1", {"a1e1"}),
    # a chariot on the leg of a horse aimed at the general: only taking the horse
    ("3k5/9/9/9/9/9/9/3n5/3R5/4K4 w - - 0 1", "d1", {"d1d2"}),
]


@pytest.mark.parametrize(("fen", "square", "expected"), CASES)
def test_hand_worked_moves(fen, square, expected):
    assert moves_from(fen, square) == expected
    assert ffish_moves_from(fen, square) == expected


def test_start_position():
    board = Board()
    assert board.fen() == STANDARD_FEN == pyffish.start_fen("xiangqi")
    assert len(board.legal_moves()) == 44
    assert board.status() == {"status": "ongoing"}


def test_checkmate_and_stalemate_both_lose():
    mate = Board("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1")
    assert mate.is_check() and mate.legal_moves() == []
    assert mate.status() == {"status": "checkmate", "winner": "red", "result": "1-0"}
    stale = Board("3k5/8R/9/9/9/9/9/9/9/4K4 b - - 0 1")
    assert not stale.is_check() and stale.legal_moves() == []
    assert stale.status() == {"status": "stalemate", "winner": "red", "result": "1-0"}
    assert pyffish.legal_moves("xiangqi", stale.fen(), []) == []
    red_mated = Board("4k4/9/9/9/9/9/9/9/4r4/3K1r3 w - - 0 1")
    assert red_mated.status()["winner"] == "black" and red_mated.status()["result"] == "0-1"


def test_a_mating_game_through_the_service_verbs():
    import plybits

    fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"
    replay = plybits.read_record("xiangqi", moves=["a0d0"], start=fen)
    assert replay.final.status() == {"status": "checkmate", "winner": "red", "result": "1-0"}


def test_counters_follow_fairy_stockfish():
    board = Board()
    for text in ["h2e2", "h9g7", "e2e6"]:  # the third move is a capture
        board.push(Move.from_iccs(text))
    ff = pyffish.get_fen("xiangqi", pyffish.start_fen("xiangqi"), ["h3e3", "h10g8", "e3e7"])
    assert board.fen() == ff
    assert board.fen().endswith(" b - - 0 2")


@pytest.mark.parametrize(
    ("text", "fen"),
    [
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r - - 0 1", STANDARD_FEN),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", STANDARD_FEN),
        ("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1", STANDARD_FEN),
        ("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 5 9", "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 5 9"),
    ],
)
def test_fen_aliases_read_and_write_back(text, fen):
    assert Board(text).fen() == fen
    assert GAME.position(text).fen() == fen


@pytest.mark.parametrize(
    ("fen", "words"),
    [
        ("", "not a xiangqi FEN"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w", "needs 10 ranks"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w", "more than 9 files"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w", "has 8 files"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w", "unknown piece 'X'"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", "side to move 'x'"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w KQ - 0 1", "should be '-'"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1", "not numbers"),
        ("3k5/9/9/9/9/9/9/9/9/9 w", "red needs exactly one general"),
        ("3k5/9/9/9/9/9/9/9/9/3KK4 w", "red has 2 generals"),
        ("3k5/9/9/9/9/9/9/9/9/K8 w", "red general on a0 is outside its palace"),
        ("3k5/9/9/9/9/9/9/9/9/4KA3 w", ""),  # f0 is an advisor point: fine (control)
        ("3k5/9/9/9/9/9/9/9/4K4/3A5 w", ""),  # d0 too
        ("3k5/9/9/9/9/9/9/9/3AK4/9 w", "red advisor on d1 is not on an advisor point"),
        ("3k5/9/9/9/2B6/9/9/9/9/4K4 w", "red elephant on c5 is not on an elephant point"),
        ("3k5/9/9/9/9/9/9/9/2P6/4K4 w", "red soldier on c1 cannot be reached"),
        ("3k5/9/9/9/9/9/1P7/9/9/4K4 w", "red soldier on b3 cannot be reached"),
        ("3k5/9/9/PPPPPP3/9/9/9/9/9/4K4 w", "red has 6 soldiers"),
        ("4k4/9/9/9/9/9/9/9/9/4K4 w", "side not to move is in check"),  # generals face, red to move
        ("3k5/9/9/9/9/9/9/9/9/3RK4 w", "side not to move is in check"),
    ],
)
def test_bad_fens(fen, words):
    if not words:
        Board(fen)
        return
    with pytest.raises(InvalidPositionError, match=re.escape(words)):
        Board(fen)


def test_occupied_and_copy():
    board = Board()
    assert (4, 0, "K") in board.occupied() and (7, 7, "c") in board.occupied() and len(board.occupied()) == 32
    other = board.copy()
    other.push(Move.from_iccs("h2e2"))
    assert board.fen() == STANDARD_FEN and other.fen() != STANDARD_FEN


def test_the_game_copies_its_standard_start_read_once(monkeypatch):
    """Every game of a file starts from the standard position: the game reads its FEN once and hands out copies (a
    FEN read is ~0.1 ms in pure Python, a ply ~0.07 ms), each as a fresh read and independent of the others."""
    from plybits.xiangqi import Position

    def no_read(self, fen):
        raise AssertionError(f"the FEN {fen!r} was read again")

    monkeypatch.setattr(Position, "set_fen", no_read)
    first = GAME.position(None)
    first.push(Move.from_iccs("h2e2"))
    for start in (None, "standard", STANDARD_FEN):
        position = GAME.position(start)
        assert type(position) is Position and position.fen() == STANDARD_FEN
        assert position.legal_moves() == Board().legal_moves() and position.kings == Board().kings
    assert first.fen() != STANDARD_FEN


def test_move_objects():
    move = Move.from_iccs("H2-E2")
    assert move == Move.from_iccs("h2e2") and move is Move.from_iccs("h2e2")
    assert repr(move) == "Move.from_iccs('h2e2')" and hash(move) == hash(Move.from_iccs("h2e2"))
    assert {move: 1}[Move.of(move.from_square, move.to_square)] == 1


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="rnbakcpRNBAKCPEH0123456789/ wb-", max_size=90))
def test_random_fen_text_is_a_position_or_invalid(text):
    try:
        board = Board(text)
    except InvalidPositionError:
        return
    assert Board(board.fen()).fen() == board.fen()


@pytest.mark.data
def test_shortcut_check_test_equals_testing_every_move():
    """legal_moves() skips the own-general test for moves off the general's lines; on every position of
    150 real games it must give exactly the pseudo-legal moves that pass the full test."""
    from tests.conftest import shared_data

    text = shared_data("xiangqi", "Liu_Dahua_1125_UCI_games.pgn").read_text(encoding="utf-8")
    positions = 0
    for _, record in zip(range(150), GAME.split_records(text)):
        board = Board()
        for token in GAME.parse_record(record).moves + [None]:
            brute = [m for m in board.pseudo_legal_moves() if board._safe(m.from_square, m.to_square)]
            assert board.legal_moves() == brute, board.fen()
            positions += 1
            if token is None:
                break
            board.push(Move.from_iccs(token))
    assert positions > 10_000


def _random_playout(seed: int, plies: int) -> Iterator[Board]:
    """The board at each position of a seeded random game from the start, up to ``plies`` moves (or its end)."""
    rng = random.Random(seed)
    board = Board()
    for _ in range(plies):
        yield board
        moves = board.legal_moves()
        if not moves:
            return
        board.push(rng.choice(moves))


def _reached(board: Board, color: int) -> set[int]:
    """The cells the pseudo-legal moves of ``color`` move to, whoever is to move."""
    turn = board.turn
    board.turn = color
    reached = {m.to_square for m in board.pseudo_legal_moves()}
    board.turn = turn
    return reached


def test_reaches_is_what_the_pseudo_legal_moves_reach():
    """Board.reaches (the rank model's recapture test, read from the target back) names exactly the cells the
    pseudo-legal moves of that colour reach, for both colours on every position of seeded random playouts."""
    from plybits.xiangqi.board import BLACK, RED, SQUARES

    checked = 0
    for seed in range(6):
        for board in _random_playout(seed, 160):
            for color in (RED, BLACK):
                reached = _reached(board, color)
                for cell in SQUARES:
                    piece = board.cells[cell]
                    if piece and piece & BLACK == color:
                        continue  # a colour never moves onto its own piece
                    assert board.reaches(cell, color) == (cell in reached), (board.fen(), cell, color)
                    checked += 1
    assert checked > 50_000


def test_move_generation_lists_moves_in_canonical_order():
    """pseudo_legal_moves() (and so legal_moves(), the rank scheme's canonical order) lists exactly the moves
    is_pseudo_legal accepts, ordered by from-point then to-point, on every position of seeded random playouts."""
    from plybits.xiangqi.board import MOVES, SQUARES, square_name

    def point(cell: int) -> int:
        name = square_name(cell)
        return int(name[1]) * 9 + "abcdefghi".index(name[0])

    order = sorted(SQUARES, key=point)
    positions = 0
    for seed in range(3):
        for board in _random_playout(100 + seed, 60):
            expected = [MOVES[a][b] for a in order for b in order if a != b and board.is_pseudo_legal(a, b)]
            assert board.pseudo_legal_moves() == expected, board.fen()
            positions += 1
    assert positions > 100


def test_targets_are_the_pseudo_legal_moves_targets():
    """rank.targets (model 1's attack map) marks exactly the to-cells of the pseudo-legal moves of that
    colour, for both colours on every position of seeded random playouts."""
    from plybits.xiangqi.board import BLACK, RED
    from plybits.xiangqi.rank import targets

    positions = 0
    for seed in range(6):
        for board in _random_playout(200 + seed, 160):
            for color in (RED, BLACK):
                marks = targets(board.cells, color)
                assert {cell for cell, mark in enumerate(marks) if mark} == _reached(board, color), (board.fen(), color)
                assert set(marks) <= {0, 1}
            positions += 1
    assert positions > 500


def test_scanning_the_occupied_cells_gives_the_same_moves():
    """legal, pseudo_legal and targets told to scan only the occupied cells (as the rank model's scorer does) give
    what they give scanning every point, and legal gives the pseudo-legal moves that pass the full own-general
    test (its line shortcuts included), for both colours on every position of seeded random playouts."""
    from plybits.xiangqi.board import BLACK, RED, SQUARES, legal, occupied_cells, pseudo_legal
    from plybits.xiangqi.rank import targets

    positions = 0
    for seed in range(4):
        for board in _random_playout(300 + seed, 160):
            cells, us = board.cells, board.turn
            scan = occupied_cells(cells)
            assert scan == [cell for cell in SQUARES if cells[cell]]
            general = board.kings[us >> 3]
            brute = [m for m in board.pseudo_legal_moves() if board._safe(m.from_square, m.to_square)]
            assert legal(cells, general, us, scan) == legal(cells, general, us) == brute, board.fen()
            for color in (RED, BLACK):
                every: list[Move] = []
                occupied: list[Move] = []
                pseudo_legal(cells, color, every)
                pseudo_legal(cells, color, occupied, scan)
                assert occupied == every, (board.fen(), color)
                assert targets(cells, color, scan) == targets(cells, color), (board.fen(), color)
            positions += 1
    assert positions > 300


def test_the_attack_map_marks_the_general_exactly_when_it_is_in_check():
    """The rank model tells legal_codes whether the side to move is in check from the opponent's attack map (plus the
    flying general), not from a second attack test: on every position of seeded random playouts the two agree, and
    legal_codes told so lists the moves (as codes from << 8 | to) legal_moves lists."""
    from plybits.xiangqi.board import BLACK, generals_face, legal_codes, moves_of, occupied_points
    from plybits.xiangqi.rank import attack_map

    positions = checks = 0
    for seed in range(4):
        for board in _random_playout(400 + seed, 160):
            cells, us = board.cells, board.turn
            k = board.kings[us >> 3]
            scan = occupied_points(cells)
            marked = attack_map(cells, us ^ BLACK, scan)[k] != 0 or generals_face(cells, *board.kings)
            assert marked == board.is_check(), board.fen()
            assert not generals_face(cells, *board.kings), board.fen()  # never, in a legal position with a side to move
            codes, n = legal_codes(cells, k, us, scan, 1 if marked else 0)
            assert moves_of(codes, n) == board.legal_moves(), board.fen()
            assert list(codes[:n]) == [m.from_square << 8 | m.to_square for m in board.legal_moves()]
            positions += 1
            checks += marked
    assert positions > 500 and checks > 10


def test_model_1_scores_moves_in_any_order_as_in_the_canonical_one():
    """Model 1's scorer sums what depends on a move's origin once per run of moves from it (the legal moves come
    grouped by origin, ascending); moves given in another order (reversed, shuffled) get the same scores, each its own,
    on every position of seeded random playouts (with their histories)."""
    from plybits.xiangqi.rank import MODEL

    positions = 0
    for seed in range(3):
        rng = random.Random(500 + seed)
        board = Board()
        history: list[Move] = []
        for _ in range(120):
            moves = board.legal_moves()
            if not moves:
                break
            scores = dict(zip(moves, MODEL.scores(board, moves, history)))
            shuffled = moves[::-1] if positions % 2 else rng.sample(moves, len(moves))
            assert MODEL.scores(board, shuffled, history) == [scores[m] for m in shuffled], board.fen()
            positions += 1
            history.append(rng.choice(moves))
            board.push(history[-1])
    assert positions > 200


def test_legal_moves_equal_the_full_test_on_random_playouts():
    """legal_moves() tests only the moves of the general, of pieces on a line from it holding an attacker or on an
    attacking horse's leg, and moves onto an empty line to an enemy cannon (board._risks); on every position of
    seeded random playouts (odd lines, pins and facing cannons real games seldom hold) it must give exactly the
    pseudo-legal moves that pass the full test, and the playouts must hold such positions."""
    from plybits.xiangqi.board import _risks

    positions = hazards = pinned = 0
    for seed in range(12):
        for board in _random_playout(900 + seed, 200):
            brute = [m for m in board.pseudo_legal_moves() if board._safe(m.from_square, m.to_square)]
            assert board.legal_moves() == brute, board.fen()
            positions += 1
            k = board.kings[board.turn >> 3]
            if not board.is_check():
                hazards += _risks(board.cells, k, board.turn)[1] != 0
                pinned += any(m.from_square != k and not board._safe(m.from_square, m.to_square)
                              for m in board.pseudo_legal_moves())
    assert positions > 2000 and hazards > 100 and pinned > 200, (positions, hazards, pinned)


def test_generals_face_sees_the_other_general_along_the_file_only_with_nothing_between():
    from plybits.xiangqi.board import HORSE, Board, generals_face, parse_square

    board = Board("3k5/9/9/9/9/9/9/9/9/4K4 w")  # generals on different files
    e0, d9, e9 = parse_square("e0"), parse_square("d9"), parse_square("e9")
    assert not generals_face(board.cells, e0, d9)
    cells = board.cells
    cells[e9], cells[d9] = cells[d9], 0  # the black general onto e9: facing (not a legal position)
    assert generals_face(cells, e0, e9)
    cells[parse_square("e5")] = HORSE  # a red horse between
    assert not generals_face(cells, e0, e9)
