"""xiangqi/rank model 2 (plybits.xiangqi.rankmodel2): what encode writes, a golden vector of a whole game, the
scorer linear in its weights with the features training reads, the opening book's hash, every game of both
collections round-tripped, and a held-out set free of training games."""

from __future__ import annotations

import base64
import hashlib
import itertools
import random

import pytest

import plybits
from plybits.packed import PACKED
from plybits.registry import get_game, get_scheme
from plybits.xiangqi.rank import MODEL2, RANK, canonical_moves
from plybits.openingbook import ZOBRIST
from plybits.xiangqi.board import Board, square_name
from plybits.xiangqi.rankmodel2 import N_FEATURES, LinearXiangqiModel2, capture_map, position_key, sides
from tests.conftest import shared_data
from tests.test_rank_scorers import playouts

# A whole master game (Liu Dahua's, from the held-out file), coded once by the build that released model 2: it runs
# through the book's plies, captures, checks and the endgame.
GAME = ("h2e2 h9g7 h0g2 i9h9 c3c4 g6g5 b0c2 b9c7 b2b4 c9e7 g3g4 g5g4 b4g4 g7h5 a0b0 a9b9 b0b6 h9h8 e3e4 h8f8 e4e5 "
        "e6e5 b6b5 c6c5 b5c5 h5f4 c5e5 d9e8 g2f4 f8f4 g4g2 h7f7 c4c5 f4c4 i0i1 b7b2 c2e3 c4c0 g2b2 b9b2 e3g4 b2b6 "
        "g4h6 f7f8").split()
GOLDEN_GAME = "UEIBEgIALM22BmuOV817EpXV8E9HFLi_0mq7TyU"


def test_encode_writes_model_2_and_every_model_stays_readable():
    assert RANK.version == 2 and RANK.readable_versions == (0, 1, 2)
    assert RANK.model(2) is MODEL2
    encoded = plybits.encode("xiangqi", "rank", moves=GAME)
    assert encoded.data[4] == 2
    assert plybits.decode(encoded.data, notation=None).moves == GAME


def test_golden_game_decodes_forever():
    data = base64.urlsafe_b64decode(GOLDEN_GAME + "=" * (-len(GOLDEN_GAME) % 4))
    assert data[4] == 2
    assert plybits.decode(data, notation=None).moves == GAME
    assert plybits.encode("xiangqi", "rank", moves=GAME).data == data


def test_model_2_codes_the_game_in_fewer_bits_than_model_1():
    rank = get_scheme("xiangqi", "rank")
    game = get_game("xiangqi")
    replay = plybits.read_record("xiangqi", record=" ".join(GAME))
    sizes = {v: len(rank.encode_version(game.position(None), replay.moves, v).tobytes()) for v in (0, 1, 2)}
    assert sizes[2] < sizes[1] < sizes[0]


def test_the_book_key_is_pinned():
    """The opening book is keyed by this hash: a change would silently miss the shipped book, so it is pinned."""
    position = get_game("xiangqi").position(None)
    cells = position.cells
    scan = [sq for sq in range(len(cells)) if 0 < cells[sq] < 16]
    assert position_key(cells, position.turn, scan) == START_KEY
    assert hashlib.sha256(repr(ZOBRIST).encode()).hexdigest()[:16] == ZOBRIST_DIGEST
    assert all(0 <= z < 1 << 60 for z in ZOBRIST)


START_KEY = 906462722318350674
ZOBRIST_DIGEST = "b84a2ccd40686581"


def test_shipped_frequencies_on_random_playouts_are_pinned():
    sha = hashlib.sha256()
    for position, _, history in playouts("xiangqi"):
        sha.update(repr(MODEL2.ranked(position, history)[1]).encode())
    assert sha.hexdigest()[:16] == PINNED_FREQUENCIES


PINNED_FREQUENCIES = "daf4a66b8eb1d722"


@pytest.mark.skipif(PACKED, reason="compiled, the scores are 64-bit: features are read back by the pure build")
def test_scores_are_the_sums_of_the_weights_of_the_features():
    """Under random weights the scorer's scores are the sums of the weights of the features it reads back (what
    training fits), on random playouts and on the book's plies of a real opening."""
    model = LinearXiangqiModel2(MODEL2.filename, 2)
    rng = random.Random(5)
    model._weights = [rng.randrange(-300, 300) for _ in range(N_FEATURES)]
    model.book = MODEL2.opening_book()
    replay = plybits.read_record("xiangqi", record=" ".join(GAME))

    def real_plies():
        position = get_game("xiangqi").position(None)
        history: list = []
        for move in replay.moves:
            yield position, canonical_moves(position), history
            position.push(move)
            history.append(move)

    checked = 0
    for position, candidates, history in itertools.chain(itertools.islice(playouts("xiangqi"), 200), real_plies()):
        fast = model.scores(position, candidates, history)
        reference = [sum(model._weights[i] for i in feats) for feats in model.features(position, candidates, history)]
        assert fast == reference
        checked += 1
    assert checked > 200


def test_sides_lists_each_sides_pieces_and_their_material():
    """:func:`sides` gives the cells of each side's pieces in point order and their material, as the board holds
    them."""
    from plybits.xiangqi.board import POINT_CELLS
    from plybits.xiangqi.rankmodel2 import _MATERIAL

    checked = 0
    for position, _, _ in itertools.islice(playouts("xiangqi"), 0, None, 3):
        cells = position.cells
        red = [sq for sq in POINT_CELLS if 0 < cells[sq] < 8]
        black = [sq for sq in POINT_CELLS if cells[sq] > 8]
        material = sum(_MATERIAL[cells[sq] & 7] for sq in red + black)
        got_red, got_black, got_material = sides(cells)
        assert (list(got_red), list(got_black), got_material) == (red, black, material)
        checked += 1
    assert checked > 50

def test_capture_map_counts_attackers_and_the_cheapest():
    board = get_game("xiangqi").position("4k4/9/9/9/4p4/9/4R4/9/9/3K5 w - - 0 1")  # a chariot on e3 faces a soldier e5
    from plybits.xiangqi.board import parse_square

    red = capture_map(board.cells, 0, [sq for sq in range(len(board.cells)) if 0 < board.cells[sq] < 16])
    e5 = parse_square("e5")
    assert red[e5] == 5 * 16 + 1  # the chariot (rank 5), one attacker
    assert red[parse_square("e6")] == 0  # past the soldier


def test_model_2_marks_are_the_opponents_count_and_ranks_then_our_count_shifted_19():
    """The layout docs/packed.md gives: the opponent's count in bits 0-4 and a bit 5 + rank per exchange rank, the
    side to move's count from bit 19."""
    from plybits.xiangqi.board import occupied_points, parse_square
    from plybits.xiangqi.rankmodel2 import _capture_maps

    board = get_game("xiangqi").position("4k4/9/9/9/4p4/9/4R4/9/9/3K5 w - - 0 1")  # red chariot e3, black soldier e5
    marks = _capture_maps(board.cells, 0, occupied_points(board.cells))
    chariot = 1 << 19  # one of ours
    soldier = 1 << (5 + 1) | 1  # one of theirs, rank 1
    assert marks[parse_square("e5")] == chariot  # the chariot hits the soldier; no black piece guards it
    assert marks[parse_square("e4")] == chariot | soldier  # the black soldier steps forward (down) onto e4
    black = _capture_maps(board.cells, 8, occupied_points(board.cells))  # black to move: the chariot is theirs
    assert black[parse_square("e5")] == 1 << (5 + 5) | 1
    assert marks[parse_square("e6")] == 0  # past the soldier


def test_capture_map_matches_the_movement_rules_on_playouts():
    """Per point, the count and the cheapest rank of the pieces of a colour that could capture there, checked
    against the rules: an enemy piece put on the point (on one's own piece too: it is defended), is the move
    there pseudo-legal for that piece (Board.is_pseudo_legal, not the capture marks' walkers)."""
    from plybits.xiangqi.board import BLACK, SQUARES
    from plybits.xiangqi.rankmodel2 import RANK_OF_KIND

    checked = 0
    for position, _candidates, _history in itertools.islice(playouts("xiangqi"), 60):
        board = position.copy()
        cells = board.cells
        occupied = [sq for sq in SQUARES if cells[sq]]
        for color in (0, BLACK):
            got = capture_map(cells, color, occupied)
            board.turn = color
            for point in SQUARES:
                kept = cells[point]
                cells[point] = 7 | (color ^ BLACK)  # an enemy soldier stands there
                ranks = [RANK_OF_KIND[cells[sq] & 7] for sq in occupied if sq != point and cells[sq] & BLACK == color
                         and board.is_pseudo_legal(sq, point)]
                cells[point] = kept
                assert got[point] == (min(ranks) * 16 + min(len(ranks), 15) if ranks else 0), (board.fen(), point)
                checked += 1
    assert checked > 10_000


def test_importing_the_training_tool_leaves_the_build_choice_alone():
    """Imported (as the held-out test below does), ``tools.train_xiangqi`` must not set ``PLYBITS_PURE``: the tests
    after it in the same process would read it and skip the compiled build's checks."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "PLYBITS_PURE"}
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(root / "codecs")])
    code = "import os, tools.train_xiangqi; print(os.environ.get('PLYBITS_PURE'))"
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "None"


@pytest.mark.data
def test_the_held_out_games_are_not_in_training():
    from tools.train_xiangqi import split

    train, held_out = split(shared_data("xiangqi"))
    seen = {tuple(m.iccs() for m in moves) for _, _, moves in train}
    assert len(held_out) == 1036 and not any(tuple(m.iccs() for m in moves) in seen for _, _, moves in held_out)


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("name", ["Hu_Ronghua_1391_UCI_games.pgn", "Liu_Dahua_1125_UCI_games.pgn"])
def test_every_game_round_trips_through_model_2(name):
    game = get_game("xiangqi")
    rank = get_scheme("xiangqi", "rank")
    text = shared_data("xiangqi", name).read_text(encoding="utf-8", errors="replace")
    count = 0
    for record in game.split_records(text):
        replay = plybits.read_record("xiangqi", record=record)
        payload = rank.encode_version(game.position(replay.start), replay.moves, 2).tobytes()
        assert rank.decode(game.position(replay.start), payload, len(replay.moves), 2) == replay.moves
        count += 1
    assert count > 1000


def _king_steps_tested_both_ways(board):
    """Each step of the side to move's general (not in check) as ``(target, by the marks, played)``."""
    from plybits.xiangqi.board import KING_STEPS, _king_safe, _safe
    from plybits.xiangqi.rankmodel2 import _COUNT_MASK, _NO_MARKS, _RANK_BITS, _mark_captures, sides

    cells, us = board.cells, board.turn
    k = board.kings[us >> 3]
    red, black, _ = sides(cells)
    marks = _NO_MARKS[:]
    _mark_captures(cells, red if us else black, marks, us, _RANK_BITS, 1, -1)
    for t in KING_STEPS[us][k]:
        if cells[t] == 0 or cells[t] & 8 != us:
            yield t, _king_safe(cells, k, us, t, marks[t] & _COUNT_MASK), _safe(cells, k, us, k, t)


@pytest.mark.parametrize("fen, safe", [
    # the cannon on e5 captures on e0 over the general: not once the general stands there; f1 faces the general f9
    ("5k3/9/9/9/4c4/9/9/9/4K4/9 w - - 0 1", {"e0": True, "e2": True, "d1": True, "f1": False}),
    # the horse on e2 blocks the file: taking it, the generals face (its jumps to d0 and f0 open but miss d1, f1, e0)
    ("4k4/9/9/9/9/9/9/4n4/4K4/9 w - - 0 1", {"e2": False, "d1": True, "f1": True, "e0": True}),
    # the chariot on d5 holds the d-file; f1 faces the general f9
    ("5k3/9/9/9/3r5/9/9/9/4K4/9 w - - 0 1", {"d1": False, "e0": True, "e2": True, "f1": False}),
])
def test_the_general_steps_by_the_marks_as_by_playing_them(fen, safe):
    """:func:`~plybits.xiangqi.board._king_safe` (the rank model's test of a general's step, from the opponent's
    marks, not played) and playing the step agree with the rules, on lines through the general and facing generals."""
    got = {square_name(t): (by_marks, played) for t, by_marks, played in _king_steps_tested_both_ways(Board(fen))}
    assert got == {name: (ok, ok) for name, ok in safe.items()}


def test_the_general_steps_by_the_marks_as_by_playing_them_in_random_games():
    """Every step of a general not in check, in long random games (the ends have open files and lone pieces), is
    judged alike by the marks and by playing it."""
    from plybits.xiangqi.board import Board as Rules

    rng = random.Random(25)
    steps = unsafe = 0
    for _ in range(60):
        board = Rules()
        for _ in range(300):
            moves = board.legal_moves()
            if not moves:
                break
            if not board.is_check():
                for _t, by_marks, played in _king_steps_tested_both_ways(board):
                    assert by_marks == played, board.fen()
                    steps += 1
                    unsafe += not played
            board.push(rng.choice(moves))
    assert steps > 3000 and unsafe > 300
