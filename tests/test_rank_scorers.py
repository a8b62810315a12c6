"""The chess and Abalone rank models score moves with one definition (issue 12 point 6): these tests run
always, on seeded random playouts of the project's own boards (no ../shared needed).

The pinned digests were computed before the scorers were folded into one definition, from the then
reference ``move_features`` and the then fast scorer (which agreed): a changed frequency changes the
released ``rank`` format, so any change here is a new model version, never an edit of these numbers."""

from __future__ import annotations

import hashlib
import importlib
import itertools
import random
from collections.abc import Iterator

import pytest

from plybits.registry import get_game

GAMES = ("chess", "abalone")
PLAYOUTS = {"chess": (range(8), 160), "abalone": (range(6), 160), "xiangqi": (range(4), 120)}
"""Seeds and plies of each game's random playouts."""


def playouts(game: str) -> Iterator[tuple[object, list, list]]:
    """Every ply of the game's seeded random playouts: (position, canonical candidates, history)."""
    module = importlib.import_module(f"plybits.{game}.rank")
    seeds, plies = PLAYOUTS[game]
    for seed in seeds:
        rng = random.Random(seed)
        position = get_game(game).position(None)
        history: list = []
        for _ in range(plies):
            candidates = module.canonical_moves(position)
            moves = [m for m in candidates if m in position.legal_moves()] if game == "chess" else candidates
            if not moves:
                break
            yield position, candidates, history
            move = rng.choice(moves)
            position.push(move)
            history.append(move)


def digest(rows: Iterator[object]) -> str:
    sha = hashlib.sha256()
    for row in rows:
        sha.update(repr(row).encode())
    return sha.hexdigest()[:16]


def shipped(game: str):
    return importlib.import_module(f"plybits.{game}.rank").RANK.models[1]


PINNED_FREQUENCIES = {"chess": "e860d7503ab43adf", "abalone": "5c1c53435bb82ec5"}
PINNED_FEATURES = {"chess": "802c3a41a9b15bc0", "abalone": "dcfcf551c946f16a"}


@pytest.mark.parametrize("game", GAMES)
def test_the_shipped_model_gives_the_released_frequencies(game):
    model = shipped(game)
    assert digest(model.ranked(p, h)[1] for p, c, h in playouts(game)) == PINNED_FREQUENCIES[game]


@pytest.mark.parametrize("game", GAMES)
def test_the_training_features_are_as_released(game):
    model = shipped(game)
    rows = ([sorted(f) for f in model.features(p, c, h)] for p, c, h in playouts(game))
    assert digest(rows) == PINNED_FEATURES[game]


@pytest.mark.parametrize("game", GAMES)
def test_scores_are_the_sums_of_the_weights_of_the_features(game):
    """With random weights (so every feature counts), the model's scores equal the sums of the weights of the
    features that training reads, for every move of every ply of the playouts (the scorer is linear in the
    weights, whatever it caches)."""
    original = shipped(game)
    model = type(original)(original.filename, original.version)
    rng = random.Random(7)
    model._weights = [rng.randrange(-300, 300) for _ in range(original.n_features)]
    checked = 0
    for position, candidates, history in playouts(game):
        fast = model.scores(position, candidates, history)
        reference = [sum(model._weights[i] for i in feats) for feats in model.features(position, candidates, history)]
        assert fast == reference
        checked += 1
    assert checked > 500


@pytest.mark.parametrize("game", GAMES)
def test_features_read_back_in_passes_are_those_read_at_once(game):
    """A scorer of ``packed_weights`` (compiled chess: weights in 64-bit integers) is read back by features() in
    passes of FEATURES_PER_PASS features: the same ids, repeats and order as one pass under every indicator
    weight at once reads, where the scorer holds integers of any size."""
    from plybits.packed import PACKED
    from plybits.rank import FEATURES_PER_PASS

    original = shipped(game)
    if original.packed_weights and PACKED:
        pytest.skip("compiled chess cannot score under 2^(8i) weights past 64 bits: the pinned digest checks it")
    at_once = type(original)(original.filename, original.version)
    in_passes = type(original)(original.filename, original.version)
    in_passes.packed_weights = True
    checked = 0
    for position, candidates, history in itertools.islice(playouts(game), 40):
        passed = in_passes.features(position, candidates, history)
        assert passed == at_once.features(position, candidates, history)
        checked += sum(map(len, passed))
    assert checked > 200
    assert len(in_passes._indicators) == -(-original.n_features // FEATURES_PER_PASS)


def test_the_features_read_back_are_the_ids_of_the_indicator_weights():
    from plybits.rank import indicated_features, indicator_weights

    w = indicator_weights(20)
    assert indicated_features(w[0] + w[7] + w[7] + w[19], 20) == [0, 7, 7, 19]
    assert indicated_features(0, 20) == []
    with pytest.raises(ValueError):
        indicated_features(-1, 20)
    with pytest.raises(ValueError):
        indicated_features(1 << (8 * 20), 20)


def test_the_chess_null_move_keeps_frequency_one():
    model = shipped("chess")
    position = get_game("chess").position(None)
    moves, freqs = model.ranked(position, [])
    assert moves[-1][0] == 0 and freqs[-1] == 1
    assert min(freqs[:-1]) > 1


def test_the_compiled_modules_sources_compile_with_warnings_as_errors():
    """An invalid escape sequence is a SyntaxWarning today and a SyntaxError under ``-W error`` (and in a later
    Python): every compiled module's source compiles with warnings turned into errors."""
    import warnings
    from pathlib import Path

    from plybits.compiled import MODULES, source_paths

    root = Path(__file__).resolve().parent.parent
    for path in source_paths():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            compile((root / path).read_text(encoding="utf-8"), path, "exec")
    assert len(source_paths()) == len(MODULES)
