"""Abalone rules on hand-worked positions: layouts, first-move counts, every push and every refusal, the position string."""

from __future__ import annotations

import random

import pytest

import plybits
from plybits.abalone import GAME, Position, notation
from plybits.abalone.board import (
    ALL_MOVES, BLACK, GEOMETRY, NEAR_COUNT_SHIFT, NEAR_OFF_SHIFT, SQUARES, STEPS, WHITE,
)
from plybits.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError, UnknownCodecError
from plybits.mailbox import OFF


def setup(black: str, white: str = "", side: str = "b", ejected: tuple[int, int] = (0, 0)) -> Position:
    """A position with marbles on the named cells (space-separated)."""
    board = Position(None)
    for names, color in ((black, BLACK), (white, WHITE)):
        for name in names.split():
            board.cells[GEOMETRY.parse(name)] = color
    board.turn = BLACK if side == "b" else WHITE
    board.ejected = {BLACK: ejected[0], WHITE: ejected[1]}
    board.sync_grid()
    return board


def marbles(board: Position) -> tuple[set[str], set[str]]:
    """The black and the white cells by name."""
    black = {GEOMETRY.name(sq) for sq in SQUARES if board.cells[sq] == BLACK}
    white = {GEOMETRY.name(sq) for sq in SQUARES if board.cells[sq] == WHITE}
    return black, white


def play(board: Position, text: str) -> Position:
    board.push(board.parse_move(text))
    return board


# --- the board ---------------------------------------------------------------------------------

def test_sixty_one_cells_in_abapro_order() -> None:
    names = [GEOMETRY.name(sq) for sq in SQUARES]
    assert len(names) == 61
    assert names[:6] == ["a1", "a2", "a3", "a4", "a5", "b1"]
    assert names[26] == "e1" and names[31] == "e6" and names[-1] == "i9"
    assert {n for n in names if n[0] == "i"} == {"i5", "i6", "i7", "i8", "i9"}
    assert {n for n in names if n[0] == "f"} == {f"f{k}" for k in range(2, 10)}


def test_every_step_off_the_board_hits_off() -> None:
    cells = GEOMETRY.empty_cells(0)
    edge = 0
    for sq in SQUARES:
        for step in STEPS:
            if cells[sq + step] == OFF:
                edge += 1
            else:
                assert sq + step in SQUARES
    # 6 corners with 3 missing neighbours, 6 x 3 other edge cells with 2: 18 + 36
    assert edge == 54


@pytest.mark.parametrize("start, count", [("standard", 44), ("belgian-daisy", 52), ("german-daisy", 80)])
def test_black_first_moves(start: str, count: int) -> None:
    board = GAME.position(start)
    assert board.turn == BLACK
    moves = board.legal_moves()
    assert len(moves) == count
    assert len(set(moves)) == count


def test_layouts_hold_fourteen_marbles_each() -> None:
    for start in GAME.starts:
        black, white = marbles(GAME.position(start))
        assert len(black) == len(white) == 14


def test_a_layout_read_again_is_the_layout_not_a_game_played_from_it() -> None:
    """set_fen copies a named layout's position, read once: playing on one board from it, ejecting and moving on,
    leaves the next board from that layout (by name or by string) as the layout is written."""
    from plybits.abalone.board import LAYOUTS

    for start, text in LAYOUTS.items():
        board = GAME.position(start)
        board.push(board.legal_moves()[0])
        board.ejected[WHITE] = 3
        board.cells[SQUARES[30]] = BLACK
        assert GAME.position(start).fen() == text
        assert Position.from_fen(text).fen() == text
        assert Position.from_fen(text.replace(" b 0 0 1", " w 0 0 7")).fen() == text.replace(" b 0 0 1", " w 0 0 7")


def test_standard_layout_cells() -> None:
    black, white = marbles(GAME.position("standard"))
    assert black == {f"a{k}" for k in range(1, 6)} | {f"b{k}" for k in range(1, 7)} | {"c3", "c4", "c5"}
    assert white == {f"i{k}" for k in range(5, 10)} | {f"h{k}" for k in range(4, 10)} | {"g5", "g6", "g7"}


def test_belgian_daisy_matches_the_migs_records() -> None:
    # the MiGs games open with black a1/i9 daisies and white a5/i5 (e.g. "1. a1b2 a5b5", "1. i9h8 i6h6")
    black, white = marbles(GAME.position("belgian-daisy"))
    assert black == {"a1", "a2", "b1", "b2", "b3", "c2", "c3", "i8", "i9", "h7", "h8", "h9", "g7", "g8"}
    assert white == {"a4", "a5", "b4", "b5", "b6", "c5", "c6", "i5", "i6", "h4", "h5", "h6", "g4", "g5"}


# --- moves without pushes ----------------------------------------------------------------------

def test_inline_three_marbles() -> None:
    # standard: a1 b2 c3 in line towards (+1,+1); d4 empty -> the three move one cell on
    board = play(GAME.position("standard"), "a1b2")
    black, _ = marbles(board)
    assert "a1" not in black and {"b2", "c3", "d4"} <= black
    assert board.fen() == "wwwww/wwwwww/2www2/8/9/3b4/2bbb2/bbbbbb/1bbbb w 0 0 1"


def test_inline_moves_a_sub_line() -> None:
    # e3 e4 e5: writing the middle marble moves only e4 and e5 (e3 stays)
    board = play(setup("e3 e4 e5"), "e4e5")
    assert marbles(board)[0] == {"e3", "e5", "e6"}


def test_broadside_two_and_three() -> None:
    board = play(setup("e4 e5 e6", "a5"), "e4e6f4")
    assert marbles(board)[0] == {"f4", "f5", "f6"}
    board = play(setup("c3 d3", "a5"), "d3c3d4")  # either end first on input
    assert marbles(board)[0] == {"c4", "d4"}


# --- sumito -------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "black, white, move, after_black, after_white",
    [
        ("e4 e5", "e6", "e4e5", {"e5", "e6"}, {"e7"}),  # 2 against 1
        ("e3 e4 e5", "e6", "e3e4", {"e4", "e5", "e6"}, {"e7"}),  # 3 against 1
        ("e2 e3 e4", "e5 e6", "e2e3", {"e3", "e4", "e5"}, {"e6", "e7"}),  # 3 against 2
    ],
)
def test_sumito_pushes(black: str, white: str, move: str, after_black: set[str], after_white: set[str]) -> None:
    board = play(setup(black, white), move)
    assert marbles(board) == (after_black, after_white)
    assert board.ejected == {BLACK: 0, WHITE: 0}


def test_diagonal_push_and_white_pushing() -> None:
    # white g7 f6 pushes black e5 towards (-1,-1): black lands on d4
    board = play(setup("e5 a1", "g7 f6", side="w"), "g7f6")
    assert marbles(board) == ({"d4", "a1"}, {"f6", "e5"})
    assert board.fen().split()[1:] == ["b", "0", "0", "2"]


@pytest.mark.parametrize(
    "black, white, move, after_black, after_white",
    [
        ("e7 e8", "e9", "e7e8", {"e8", "e9"}, set()),  # 2 against 1 off the edge
        ("e5 e6 e7", "e8 e9", "e5e6", {"e6", "e7", "e8"}, {"e9"}),  # 3 against 2 off the edge
        ("e6 e7 e8", "e9", "e6e7", {"e7", "e8", "e9"}, set()),  # 3 against 1 off the edge
    ],
)
def test_ejection(black: str, white: str, move: str, after_black: set[str], after_white: set[str]) -> None:
    board = play(setup(black, white), move)
    assert marbles(board) == (after_black, after_white)
    assert board.ejected == {BLACK: 0, WHITE: 1}
    assert board.status() == {"status": "ongoing", "ejected": {"black": 0, "white": 1}}


def test_ejection_over_a_corner_diagonal() -> None:
    # white at a1 pushed by black c3 b2 in direction (-1,-1): off the board
    board = play(setup("c3 b2", "a1"), "c3b2")
    assert marbles(board) == ({"b2", "a1"}, set())
    assert board.ejected[WHITE] == 1


def test_sixth_ejection_wins_and_ends_the_game() -> None:
    board = setup("e7 e8", "e9 a5", ejected=(2, 5))
    play(board, "e7e8")
    assert board.status() == {
        "status": "won", "ejected": {"black": 2, "white": 6}, "winner": "black", "result": "1-0",
    }
    assert board.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.parse_move("a5a4")


def test_white_wins_too() -> None:
    board = setup("a1 i9", "b1 c1", side="w", ejected=(5, 0))
    play(board, "c1b1")
    assert board.status()["winner"] == "white" and board.status()["result"] == "0-1"


# --- refusals -----------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "black, white, move, reason",
    [
        ("e5", "e6", "e5e6", "1 against 1"),
        ("e4 e5", "e6 e7", "e4e5", "2 against 2"),
        ("e2 e3 e4", "e5 e6 e7", "e2e3", "3 against 3"),
        ("e2 e3", "e4 e5 e6", "e2e3", "2 against 3"),
        ("e4 e5 e7", "e6", "e4e5", "blocked at e7"),  # push into one's own marble
        ("e1 e2 e3 e6", "e4 e5", "e1e2", "blocked at e6"),  # 3 against 2, own marble behind
        ("e2 e3 e4 e5", "", "e2e3", "4 black marbles in a row"),  # a fourth marble
        ("e2 e3 e4 e5", "e6", "e2e3", "4 black marbles in a row"),  # a fourth marble cannot help push
        ("e8 e9", "", "e8e9", "leave the board"),  # own marble off the edge
        ("e9", "", "e8e9", "e8 holds no black marble"),
        ("e5 e6", "f5", "e5e6f5", "occupied f5"),  # broadside into an opposing marble
        ("e5 e6 f6", "", "e5e6f5", "occupied f6"),  # broadside into an own marble
        ("e5 e6", "f6", "e5e6f5", "occupied f6"),  # broadside never pushes
        ("e8 f9", "", "e8f9e9", "f9 would leave the board"),
        ("e5 e7", "", "e5e7f5", "e6 holds no black marble"),  # broadside with a gap
        ("e5", "e6", "e6e7", "e6 holds no black marble"),  # the opponent's marble
    ],
)
def test_refusals(black: str, white: str, move: str, reason: str) -> None:
    board = setup(black, white)
    before = board.fen()
    with pytest.raises(IllegalMoveError, match=reason):
        board.parse_move(move)
    assert board.fen() == before
    assert board.illegal_reason(notation.parse(move)) is not None
    assert notation.parse(move) not in board.legal_moves()


def test_broadside_off_the_edge_is_not_generated() -> None:
    board = setup("a4 a5")
    texts = {str(m) for m in board.legal_moves()}
    # a4a5 (a5 would be pushed off) and every move towards rows below a are missing
    assert texts == {"a4b5", "a4b4", "a4a3", "a5b6", "a5b5", "a5a4", "a4a5b5", "a4a5b4"}


def test_legal_moves_agree_with_illegal_reason() -> None:
    board = GAME.position("german-daisy")
    for text in ["c3d4", "d6e6", "b2c3", "g3f3", "h8g7"]:
        board.push(board.parse_move(text))
    legal = set(board.legal_moves())
    assert legal == {m for m in ALL_MOVES if board.illegal_reason(m) is None}


# --- position string ----------------------------------------------------------------------------

def test_position_string_round_trip_and_apgn_form() -> None:
    for start in GAME.starts:
        board = GAME.position(start)
        assert GAME.position(board.fen()).fen() == board.fen()
    apgn = "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbb1-1b0w w"
    board = GAME.position(apgn)
    assert board.fen() == "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbb1 w 1 0 1"
    assert board.turn == WHITE and board.status()["ejected"] == {"black": 1, "white": 0}
    assert GAME.position("WWWWW/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb B 0 0 7").fen().endswith(" b 0 0 7")


def _rows_written(board: Position) -> str:
    """The rows of the position string as the module docstring defines them, written cell by cell here."""
    rows = []
    for rank in range(8, -1, -1):
        text, run = "", 0
        for file in range(9):
            if abs(file - rank) > 4:
                continue
            value = board.cells[GEOMETRY.index(file, rank)]
            if value == 0:
                run += 1
                continue
            text += (str(run) if run else "") + ("b" if value == BLACK else "w")
            run = 0
        rows.append(text + (str(run) if run else ""))
    return "/".join(rows)


def test_position_string_rows_of_random_positions() -> None:
    """Every row content (each seen many times: the row texts are remembered by content) is written as the docstring
    says, in random positions and along real games."""
    rng = random.Random(25)
    for _ in range(300):
        board = Position(None)
        cells = rng.sample(SQUARES, rng.randrange(29))
        for k, sq in enumerate(cells):
            board.cells[sq] = BLACK if k % 2 else WHITE
        assert board.fen().split()[0] == _rows_written(board)
        assert Position.from_fen(board.fen()).cells == board.cells
    board = GAME.position("belgian-daisy")
    for _ in range(60):
        moves = board.legal_moves()
        if not moves:
            break
        board.push(rng.choice(moves))
        assert board.fen().split()[0] == _rows_written(board)


def test_position_string_refuses_a_cell_that_holds_no_marble() -> None:
    board = GAME.position(None)
    board.cells[GEOMETRY.parse("e5")] = 7
    with pytest.raises(InvalidPositionError, match="e5 holds 7"):
        board.fen()


@pytest.mark.parametrize(
    "text, reason",
    [
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb b", "8 rows"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbbb b", "6 cells, not 5"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbb b", "4 cells, not 5"),
        ("wwwww/wwwwww/2www2/8/9/8/2bxb2/bbbbbb/bbbbb b", "unexpected 'x'"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb x", "side to move"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb", "side to move"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 1 0", "more than 14"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 7", "at most 6"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0", "one ejected count"),
        ("wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 0", "move number"),
        ("dutch", "unknown Abalone start"),
    ],
)
def test_bad_position_strings(text: str, reason: str) -> None:
    with pytest.raises(InvalidPositionError, match=reason):
        GAME.position(text)


def test_occupied_and_status_fields() -> None:
    board = setup("a1", "i9")
    assert sorted(board.occupied()) == [(0, 0, "b"), (8, 8, "w")]
    assert board.status() == {"status": "ongoing", "ejected": {"black": 0, "white": 0}}


def test_move_objects() -> None:
    board = GAME.position("standard")
    move = board.parse_move("A1B2")
    assert repr(move) == "Move('a1b2')" and move.is_inline
    assert hash(move) == hash(board.parse_move("a1b2"))
    # An unknown notation's name is checked by the verbs, as for every game (it was InvalidMoveError here).
    with pytest.raises(UnknownCodecError):
        plybits.read_record("abalone", moves=["a1b2"], notation="nacre")


def test_the_grid_stays_equal_to_the_cells_through_pushes_ejections_copies_and_layouts() -> None:
    """:attr:`Board.grid` (the cells as the ``rank`` scorer reads them) is written with the cells by every push, inline,
    broadside, sumito and ejection alike, in seeded random games from each layout; a copy, a layout read again and a
    position string read back each start with their own grid, which the games played on the original leave alone."""
    rng = random.Random(13)
    ejections = 0
    for start in ("standard", "belgian-daisy", "german-daisy"):
        board = GAME.position(start)
        assert list(board.grid) == board.cells
        kept = board.copy()
        for _ in range(300):
            moves = board.legal_moves()
            if not moves:
                break
            pushes = [m for m in moves if board.pushed(m)]
            move = rng.choice(pushes if pushes and rng.random() < 0.5 else moves)
            ejections += board.ejects(move)
            board.push(move)
            assert list(board.grid) == board.cells, (start, str(move))
            assert near_lists(board) == near_of(board.cells), (start, str(move))
            assert_marbles_listed(board)
            assert list(Position.from_fen(board.fen()).grid) == board.cells
        assert list(kept.grid) == kept.cells == GAME.position(start).cells
        assert near_lists(kept) == near_of(kept.cells) == near_lists(GAME.position(start))
        assert near_lists(board.copy()) == near_lists(board) == near_lists(Position.from_fen(board.fen()))
        assert_marbles_listed(kept)
        assert_marbles_listed(board.copy())
        assert list(GAME.position(start).grid) == GAME.position(start).cells
    assert ejections > 0


def near_of(cells: list[int]) -> list[list[int]]:
    """:attr:`Board.near` by its definition, the black and the white arrays: for each cell, a bit for each neighbour of
    the colour and their count, and, for a cell on the board, a bit for each direction off the board."""
    near = []
    for colour in (BLACK, WHITE):
        array = [0] * len(cells)
        for sq in range(len(cells)):
            for d, step in enumerate(STEPS):
                other = sq + step
                if not 0 <= other < len(cells):
                    continue
                if cells[sq] != OFF and cells[other] == OFF:
                    array[sq] |= 1 << (NEAR_OFF_SHIFT + d)
                if cells[other] == colour:
                    array[sq] += (1 << d) + (1 << NEAR_COUNT_SHIFT)
        near.append(array)
    return near


def assert_marbles_listed(board: Position) -> None:
    """:attr:`Board.marbles` lists each colour's cells in order, then only -1s; :attr:`Board.slots` points into it."""
    for colour in (BLACK, WHITE):
        cells = [sq for sq in SQUARES if board.cells[sq] == colour]
        listed = list(board.marbles[colour])
        assert listed[:len(cells)] == cells and set(listed[len(cells):]) == {-1}, (colour, board.fen())
        assert [board.slots[sq] for sq in cells] == list(range(len(cells)))


def near_lists(board: Position) -> list[list[int]]:
    """The black and the white arrays of :attr:`Board.near` as lists."""
    return [list(board.near[BLACK]), list(board.near[WHITE])]


def test_sync_grid_takes_cells_written_by_hand() -> None:
    board = setup("e5 e6", "e7")
    board.sync_grid()
    assert list(board.grid) == board.cells
    assert near_lists(board) == near_of(board.cells)
    assert_marbles_listed(board)
    assert board.grid[GEOMETRY.parse("e7")] == WHITE
