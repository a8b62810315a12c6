"""tools.train_chess's ``--ablate`` (docs/rank.md, "Chess model 2's feature groups: cost and worth") on a few real
games: a group left out of the plies is the model with that group's weights at zero, and the run writes nothing."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("numpy")

from plybits.chess.rank import canonical_moves  # noqa: E402
from plybits.chess.rankmodel2 import MODEL_2, N_FEATURES_2  # noqa: E402
from plybits.registry import get_game  # noqa: E402
from tests.conftest import shared_data  # noqa: E402
from tools import train_chess  # noqa: E402
from tools.rank_fit import PlySet, collect, read_games  # noqa: E402

GAMES = 3


def real_plies() -> PlySet:
    """Model 2's features of every ply of the first GAMES games of the TWIC file (a training file)."""
    game = get_game("chess")
    records = read_games("chess", [shared_data("chess", "twic0920.pgn")])[:GAMES]
    return collect([(game.position(start), moves) for _, start, moves in records], canonical_moves,
                   MODEL_2.features, skip_last=True)


def test_a_group_left_out_is_the_model_with_its_weights_at_zero():
    data = real_plies()
    weights = MODEL_2.weights
    assert len(weights) == N_FEATURES_2
    for name, ranges in train_chess.GROUPS.items():
        left = train_chess.without(data, ranges)
        assert not [i for i in left.ids if any(first <= i < first + count for first, count in ranges)], name
        assert sum(left.per_move) == len(left.ids)
        assert list(left.per_ply) == list(data.per_ply) and list(left.played) == list(data.played)
        zeroed = list(weights)
        for first, count in ranges:
            zeroed[first:first + count] = [0] * count
        hits = sum(1 for i in data.ids if any(first <= i < first + count for first, count in ranges))
        assert len(left.ids) == len(data.ids) - hits, name
        assert math.isclose(train_chess.bits_per_ply(left, weights), train_chess.bits_per_ply(data, zeroed),
                            rel_tol=1e-12), name


def test_ablate_prints_every_group_and_writes_nothing(capsys):
    data = real_plies()
    shipped = train_chess.OUT.read_bytes()
    train_chess.ablate(data, data, iterations=2)
    printed = capsys.readouterr().out
    for name in train_chess.GROUPS:
        assert f"  {name}\n" in printed
    assert train_chess.OUT.read_bytes() == shipped
