"""tools.chess_staged (docs/rank.md, "A chess model made for speed: staged coding, measured"): each staged design's
probabilities of a ply's moves sum to 1, and the bits the study's vectorised code charges a ply are -log2 of the played
move's probability, worked out plainly move by move (``reference_probabilities``)."""

from __future__ import annotations

import math
import random

import pytest

np = pytest.importorskip("numpy")

from plybits.chess.rankmodel2 import N_FEATURES_2  # noqa: E402
from tools import chess_staged  # noqa: E402
from tools.chess_staged import CHEAP, Flat, id_mask, ply_bits, reference_probabilities, stage_plies  # noqa: E402
from tools.rank_fit import PlySet  # noqa: E402

CHEAP_IDS = [i for i in range(N_FEATURES_2) if id_mask(CHEAP)[i]]
OTHER_IDS = [i for i in range(N_FEATURES_2) if not id_mask(CHEAP)[i]]


def random_plies(seed: int, plies: int = 40) -> PlySet:
    """Plies of 1-12 moves, each move a few cheap and a few other feature ids of model 2 (ties made likely: a few
    moves share their cheap ids)."""
    rng = random.Random(seed)
    data = PlySet()
    for _ in range(plies):
        n = rng.randint(2, 12)
        moves = []
        for _ in range(n):
            cheap = rng.sample(CHEAP_IDS[:6], rng.randint(0, 2))
            moves.append(cheap + rng.sample(OTHER_IDS[:40], rng.randint(0, 3)))
        data.add(moves, rng.randrange(n))
    return data


def random_weights(seed: int, count: int) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(-96, 96) for _ in range(count)]


def per_ply_scores(flat: Flat, weights: list[int]) -> list[list[float]]:
    scores = flat.scores(weights)
    return [list(scores[start:start + n]) for start, n in zip(flat.first_move, flat.per_ply)]


@pytest.mark.parametrize("k", [1, 3, 5, 20])
def test_the_staged_probabilities_of_a_ply_sum_to_one(k):
    rng = random.Random(k)
    for _ in range(50):
        n = rng.randint(1, 15)
        full = [rng.uniform(-5, 5) for _ in range(n)]
        cheap = [float(rng.randint(-2, 2)) for _ in range(n)]  # ties
        for flag in (None, rng.uniform(0.01, 0.99)):
            p = reference_probabilities(full, cheap, k, flag)
            assert len(p) == n and min(p) > 0
            assert math.isclose(sum(p), 1.0, rel_tol=1e-12), (k, flag)


@pytest.mark.parametrize("k", [2, 4, 8])
def test_hybrid_bits_are_minus_log2_of_the_played_moves_probability(k):
    data = random_plies(k)
    flat = Flat(data)
    weights = random_weights(k, 2 * N_FEATURES_2)
    cheap_ids = id_mask(CHEAP)
    cheap_weights = [w if cheap_ids[i] else 0 for i, w in enumerate(weights[N_FEATURES_2:])]
    rank = flat.ranks(flat.scores(cheap_weights))
    every = np.ones(flat.n_moves, bool)
    hybrid, ok = stage_plies(flat, every, rank < k, cheap_ids)
    assert ok.all()
    bits = ply_bits(hybrid, weights)
    full = per_ply_scores(flat, weights[:N_FEATURES_2])
    cheap = per_ply_scores(flat, cheap_weights)
    for ply in range(len(data)):
        p = reference_probabilities(full[ply], cheap[ply], k, None)
        assert math.isclose(bits[ply], chess_staged.bits_of(p, data.played[ply]), rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("k", [1, 3, 6])
def test_staged_bits_are_the_flag_and_the_move_within_its_set(k):
    data = random_plies(100 + k)
    flat = Flat(data)
    full_weights = random_weights(k, N_FEATURES_2)
    cheap_ids = id_mask(CHEAP)
    cheap_weights = [w if cheap_ids[i] else 0 for i, w in enumerate(random_weights(k + 1, N_FEATURES_2))]
    rank = flat.ranks(flat.scores(cheap_weights))
    inside = rank < k
    every = np.ones(flat.n_moves, bool)
    bits = np.zeros(len(data))
    for keep in (inside, ~inside):
        part, ok = stage_plies(flat, keep, every, cheap_ids)
        bits[ok] += ply_bits(part, full_weights)
    flag = [random.Random(ply).uniform(0.05, 0.95) for ply in range(len(data))]
    hit = inside[flat.target]
    no_rest = flat.per_ply <= k  # every move in the set: no flag coded
    total = bits - np.where(no_rest, 0.0, np.log2(np.where(hit, flag, 1 - np.asarray(flag))))
    full = per_ply_scores(flat, full_weights)
    cheap = per_ply_scores(flat, cheap_weights)
    for ply in range(len(data)):
        p = reference_probabilities(full[ply], cheap[ply], k, flag[ply])
        assert math.isclose(total[ply], chess_staged.bits_of(p, data.played[ply]), rel_tol=1e-9, abs_tol=1e-12)


def test_sequential_asks_each_move_in_cheap_order_up_to_the_played_one():
    data = random_plies(7, plies=30)
    study = chess_staged.Study(data, data, random_weights(7, N_FEATURES_2), CHEAP, iterations=2)
    decisions, ply_of, asked = study._sequential_plies("val")
    flat = study.sets["val"]
    rank = study.rank["val"][flat.target]
    assert list(asked) == [min(r + 1, n - 1) for r, n in zip(rank, flat.per_ply)]
    stops = np.bincount(ply_of, weights=1 - np.frombuffer(decisions.played, dtype=np.int32), minlength=len(data))
    assert list(stops) == [1 if r < n - 1 else 0 for r, n in zip(rank, flat.per_ply)]  # the last move left: forced
    assert list(decisions.per_ply) == [2] * len(ply_of)
    assert sum(decisions.per_move) == len(decisions.ids)


def test_the_cheap_pass_prototypes_pick_the_top_k_by_score_then_index():
    from tools.chess_cheap_pass import top_slots, top_sorted

    rng = random.Random(3)
    for _ in range(500):
        n, k = rng.randint(1, 40), rng.randint(1, 12)
        scores = [rng.randint(-4, 4) for _ in range(n)]  # many ties
        want = sorted(range(n), key=lambda i: (-scores[i], i))[:k]
        for pick, ordered in ((top_sorted, True), (top_slots, False)):
            best, at = [0] * 64, [0] * 64
            got = at[:pick(scores, n, k, best, at)]  # type: ignore[arg-type]
            assert (got if ordered else sorted(got, key=lambda i: (-scores[i], i))) == want, (pick.__name__, scores, k)


def test_origin_first_bits_are_the_origin_and_the_move_among_its_moves():
    from plybits.chess import rank

    from tools.chess_staged import ORIGIN_CONSTANT, ORIGIN_SETS, origin_stages

    rng = random.Random(11)
    data = PlySet()
    # each move one origin (an F_FROM id: kind x square) or castling (none), two captures of a few kinds (so that an
    # origin's moves often share one) and one id of any other group
    for _ in range(40):
        origins = rng.sample(range(7 * 64), rng.randint(1, 5))
        n = rng.randint(2, 12)
        moves = []
        for _ in range(n):
            origin = rng.choice(origins + [-1])
            ids = [] if origin < 0 else [rank.F_FROM + origin]
            ids += rng.sample(range(rank.F_CAPTURE, rank.F_CAPTURE + 6), 2)
            ids.append(rng.randrange(rank.F_CAPTURE + 6, N_FEATURES_2))
            moves.append(ids)
        data.add(moves, rng.randrange(n))
    for any_set in ORIGIN_SETS:
        stage_ids = id_mask(ORIGIN_CONSTANT) | id_mask(ORIGIN_SETS[any_set])
        origin_w = random_weights(1, 2 * N_FEATURES_2 + chess_staged.N_EXTRA)
        full_w = random_weights(2, N_FEATURES_2)
        origins, ok, moves, ok_moves, _ = origin_stages(data, any_set)
        bits = np.zeros(len(data))
        bits[ok] += ply_bits(origins, origin_w)
        bits[ok_moves] += ply_bits(moves, full_w)
        flat = Flat(data)
        for ply in range(len(data)):
            start = flat.first_move[ply]
            feats = [list(flat.ids[flat.move_of_id == m]) for m in range(start, start + flat.per_ply[ply])]
            key = [next((i - rank.F_FROM for i in f if rank.F_FROM <= i < rank.F_FROM + 7 * 64), -1) for f in feats]
            groups = sorted(set(key), key=lambda g: g if g >= 0 else 7 * 64)
            score = {}
            for g in groups:
                members = [f for f, k in zip(feats, key) if k == g]
                own = {i for f in members for i in f if stage_ids[i]}
                kind = g // 64 if g >= 0 else 0
                own.add(N_FEATURES_2 + kind * 9 + min(len(members), 8))
                if any_set.startswith("counted"):  # an id two or more of its moves have (not constant) counts again
                    constant = id_mask(ORIGIN_CONSTANT)
                    own |= {i + N_FEATURES_2 + chess_staged.N_EXTRA for i in own if i < N_FEATURES_2
                            and not constant[i] and sum(i in f for f in members) >= 2}
                score[g] = sum(origin_w[i] for i in own) / 32
            played = data.played[ply]
            g = key[played]
            p_origin = 2.0 ** score[g] / sum(2.0 ** v for v in score.values())
            mine = [m for m in range(len(feats)) if key[m] == g]
            full = {m: sum(full_w[i] for i in feats[m]) / 32 for m in mine}
            p_move = 2.0 ** full[played] / sum(2.0 ** v for v in full.values())
            assert math.isclose(bits[ply], -math.log2(p_origin * p_move), rel_tol=1e-9, abs_tol=1e-9), (any_set, ply)
