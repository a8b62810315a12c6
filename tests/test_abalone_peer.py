"""Our move generator and move execution against an independent peer, the ``abalone-boai`` package.

The peer stores a board as nine lists (row ``I`` first, each row by increasing diagonal:
the row order of our position string), names cells ``Space.E5``, and gives a move as
``(caboose Space, Direction)`` for inline moves (the caboose is the rear marble: our
inline cell) or ``((Space, Space), Direction)`` for broadsides (the two ends in any order).
Its directions map to ours as E 0, NE 1, NW 2, W 3, SW 4, SE 5.

Where the peer and the rules part ways: ``abalone.game.Game.generate_legal_moves`` never
ends the game (it ignores the score and keeps listing moves after a side has pushed off its
sixth marble; ending the game is left to its ``run_game`` loop). The rules end the game at
the sixth ejection, so we compare only positions still in play, and the end of the game is
tested on hand-worked positions in ``test_abalone_board.py`` (``test_sixth_ejection_wins_and_ends_the_game``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from abalone.enums import Direction, InitialPosition, Player, Space
from abalone.game import Game as PeerGame
from abalone.utils import neighbor
from plybits.abalone import GAME, Position
from plybits.abalone.board import BLACK, WHITE
from bench.abalone import peer_board, peer_legal_moves
from tests.conftest import shared_data

OUR_DIRECTION = {
    Direction.EAST: 0, Direction.NORTH_EAST: 1, Direction.NORTH_WEST: 2,
    Direction.WEST: 3, Direction.SOUTH_WEST: 4, Direction.SOUTH_EAST: 5,
}
PEER_DIRECTION = {d: peer for peer, d in OUR_DIRECTION.items()}
PEER_LAYOUT = {
    "standard": InitialPosition.DEFAULT,
    "belgian-daisy": InitialPosition.BELGIAN_DAISY,
    "german-daisy": InitialPosition.GERMAN_DAISY,
}


def name(space: Space) -> str:
    return (space.value[0] + space.value[1]).lower()


def peer_legal(game: PeerGame) -> list[str]:
    """The peer's legal moves (:func:`bench.abalone.peer_legal_moves`) in Aba-Pro."""
    out = []
    for marbles, direction in peer_legal_moves(game):
        if isinstance(marbles, Space):
            out.append(name(marbles) + name(neighbor(marbles, direction)))
        else:
            first, other = sorted(marbles, key=name)
            out.append(name(first) + name(other) + name(neighbor(first, direction)))
    return out


def peer_move(text: str, direction: int) -> tuple[Space | tuple[Space, Space], Direction]:
    """Our move (canonical Aba-Pro text and direction) as the peer's ``move`` arguments."""
    cells = [Space[text[k:k + 2].upper()] for k in range(0, len(text), 2)]
    marbles = cells[0] if len(cells) == 2 else (cells[0], cells[1])
    return marbles, PEER_DIRECTION[direction]


def random_positions(start: str, seed: int, count: int) -> Iterator[Position]:
    """``count`` positions of random games from ``start``, biased towards pushes and ejections."""
    rng = random.Random(seed)
    board = GAME.position(start)
    ply = 0
    for _ in range(count):
        moves = board.legal_moves()
        if not moves or ply > 300:
            board, ply = GAME.position(start), 0
            moves = board.legal_moves()
        yield board
        pushes = [m for m in moves if board.pushed(m)]
        ejections = [m for m in pushes if board.ejects(m)]
        if ejections and rng.random() < 0.7:
            move = rng.choice(ejections)
        elif pushes and rng.random() < 0.5:
            move = rng.choice(pushes)
        else:
            move = rng.choice(moves)
        board.push(move)
        ply += 1


def test_layouts_equal_the_peers() -> None:
    for start, layout in PEER_LAYOUT.items():
        assert peer_board(GAME.position(start)).board == PeerGame(layout).board
        assert PeerGame(layout).turn is Player.BLACK


@pytest.mark.parametrize("start, count", [("standard", 44), ("belgian-daisy", 52), ("german-daisy", 80)])
def test_peer_first_move_counts(start: str, count: int) -> None:
    assert len(peer_legal(PeerGame(PEER_LAYOUT[start]))) == count


@pytest.mark.parametrize("start, seed", [("standard", 11), ("belgian-daisy", 12), ("german-daisy", 13)])
def test_random_play_against_peer(start: str, seed: int) -> None:
    """1,100 positions per layout: same legal moves, same board after every move played on both."""
    positions = pushes = ejections = wins = 0
    for board in random_positions(start, seed, 1100):
        ours = [str(m) for m in board.legal_moves()]
        game = peer_board(board)
        theirs = peer_legal(game)
        assert len(set(ours)) == len(ours)
        assert sorted(ours) == sorted(theirs), board.fen()
        positions += 1
        # play one move of each kind present on both boards and compare the results
        moves = board.legal_moves()
        for move in {board.pushed(m) + 3 * board.ejects(m): m for m in moves}.values():
            after = board.copy()
            pushes += bool(after.pushed(move))
            ejections += after.ejects(move)
            after.push(move)
            wins += after.status()["status"] == "won"
            game2 = peer_board(board)
            game2.move(*peer_move(str(move), move.direction))
            assert game2.board == peer_board(after).board, (board.fen(), str(move))
            # the peer counts marbles left on the board: what left it is our ejected count
            before_black, before_white = peer_board(board).get_score()
            black, white = game2.get_score()
            assert (before_black - black, before_white - white) == (
                after.ejected[BLACK] - board.ejected[BLACK], after.ejected[WHITE] - board.ejected[WHITE]
            )
    assert positions == 1100
    # the positions really exercise sumito and ejection
    assert pushes > 300 and ejections > 50 and wins >= 1


@pytest.mark.data
def test_real_game_positions_against_peer() -> None:
    """Every 10th position of the first 80 MiGs games (Belgian daisy), ours against the peer's."""
    from plybits.abalone import apgn

    text = shared_data("abalone", "migs-2016-2017.train.apgn").read_text(encoding="utf-8")
    compared = 0
    for number, game_text in enumerate(apgn.split_records(text)):
        if number == 80:
            break
        record = apgn.parse_record(game_text)
        board = GAME.position(record.start)
        for ply, token in enumerate(record.moves):
            if ply % 10 == 0:
                assert sorted(map(str, board.legal_moves())) == sorted(peer_legal(peer_board(board))), board.fen()
                compared += 1
            board.push(board.parse_move(token))
    assert compared > 500


def test_white_to_move_positions_agree() -> None:
    board = GAME.position("belgian-daisy")
    board.push(board.parse_move("a1b2"))
    assert board.turn == WHITE
    assert sorted(map(str, board.legal_moves())) == sorted(peer_legal(peer_board(board)))


def test_the_peer_plays_on_after_the_sixth_ejection() -> None:
    """The one place the peer breaks the rules: the game ends at the sixth ejected marble.

    Hand-worked: white has lost six marbles (2 against 1 pushed e9 off), so black has won and
    nothing more may be played. The peer still lists white's moves (i5 i6 ...) here.
    """
    won = GAME.position("5/6/7/8/6bbw/8/7/6/ww3 b 0 5 40")
    won.push(won.parse_move("e7e8"))  # 2 against 1 at the edge: the sixth white marble leaves
    assert won.status() == {"status": "won", "ejected": {"black": 0, "white": 6}, "winner": "black", "result": "1-0"}
    assert won.legal_moves() == []
    assert len(peer_legal(peer_board(won))) > 0  # the peer does not know the game is over

