"""A chess rank model made for speed, measured offline: staged coding, where only a few moves a ply get model 2's
full score (docs/rank.md, "A chess model made for speed: staged coding, measured").

Every legal move gets a CHEAP score, from features that need no attack map (:data:`CHEAP`: piece-square tables by
kind, target rank by phase, capture victim x mover, promotion, castling, pawn double step, en passant, slide length,
phase; :data:`CHEAP_PLUS` adds the other groups that need no map: the last move's groups, check and the king's zone
(the king's lines only), the evasion, the opening book). The moves are ranked by it (ties in canonical order) and the
played move is coded in stages that score only some moves in full (model 2's 1,692 features):

- ``hybrid`` K: one softmax over every move, the cheap top K scored in full, the rest by their cheap features under
  weights of their own (fitted together);
- ``flag`` K: "is the move among the cheap top K?" with the probability of a small logistic on cheap quantities
  (the cheap model's mass of the top K, bucketed), then the move among the top K under the full model, or among the
  rest under the full model (every rest move scored in full: an escape);
- ``staged`` K: the hybrid's mass of the top K as that probability, then as ``flag`` (an escape scores the rest in
  full);
- ``mass`` q: ``staged`` with K per position, the fewest cheap-best moves whose cheap mass is at least q;
- ``sequential``: "is it this move?" for each move in cheap order, a logistic on the move's full features, its cheap
  rank, the cheap mass left and the move's cheap share of it, stopping at the played move (full scores: its rank + 1).

Every model is fitted (``rank_fit.fit``) on the training plies and scored on the validation plies of
``tools.train_chess``'s cache (``--game-share 9``: games 0-8 mod 90 fitted, 9 mod 90 scored; the held-out files are
never read). Needs numpy (dev-only).

    PLYBITS_PURE=1 .venv/bin/python -m tools.train_chess --game-share 9 --cache FILE --staged 100
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from plybits.chess import rank, rankmodel2
from plybits.chess.rankmodel2 import N_FEATURES_2
from tools.rank_fit import PlySet, fit

Ranges = tuple[tuple[int, int], ...]

CHEAP: Ranges = (
    (rank.F_TO, 7 * 64), (rank.F_FROM, 7 * 64), (rank.F_CAPTURE, 7 * 7), (rank.F_PROMOTION, 7), (rank.F_CASTLE, 2),
    (rank.F_PHASE, 4 * 7), (rank.F_SLIDE, 7 * 8), (rank.F_PAWN_DOUBLE, 1), (rank.F_EN_PASSANT, 1),
    (rankmodel2.G_PHASE_RANK, 4 * 8 * 7),
)
"""Model 2's feature groups that need no attack map nor the last moves: what the move is, where from and to."""
CHEAP_PLUS: Ranges = CHEAP + (
    (rank.F_RECAPTURE, 7), (rank.F_TAKES_LAST, 7), (rank.F_SAME_PIECE, 7), (rank.F_LOSES_CASTLING, 1),
    (rankmodel2.G_NEAR_LAST, 8 * 7), (rank.F_CHECK, 7), (rank.F_KING_ZONE, 7), (rank.F_EVASION, 7),
    (rankmodel2.G_BOOK, 6 * 8),
)
""":data:`CHEAP` and the other groups that need no attack map: the last moves', the check marks' (the enemy king's
lines, two slides a ply), whether we are in check (generation knows), and the opening book."""
CHEAP_SETS: dict[str, Ranges] = {"cheap": CHEAP, "cheap+": CHEAP_PLUS}

N_EXTRA = 64
"""Ids past the full and the offset cheap ones (``2 * N_FEATURES_2 + k``): the logistic stages' bucket features."""


def _np() -> Any:
    import numpy as np

    return np


class Flat:
    """A :class:`PlySet` as numpy arrays with each move's ply, each ply's first move and each id's move."""

    def __init__(self, data: PlySet) -> None:
        np = _np()
        self.ids = np.frombuffer(data.ids, dtype=np.int32).astype(np.int64)
        self.per_move = np.frombuffer(data.per_move, dtype=np.int32).astype(np.int64)
        self.per_ply = np.frombuffer(data.per_ply, dtype=np.int32).astype(np.int64)
        self.played = np.frombuffer(data.played, dtype=np.int32).astype(np.int64)
        self.n_moves = len(self.per_move)
        self.n_plies = len(self.per_ply)
        self.move_of_id = np.repeat(np.arange(self.n_moves), self.per_move)
        self.ply_of_move = np.repeat(np.arange(self.n_plies), self.per_ply)
        self.first_move = np.concatenate([[0], np.cumsum(self.per_ply)[:-1]]).astype(np.int64)
        self.target = self.first_move + self.played
        self.index = np.arange(self.n_moves) - self.first_move[self.ply_of_move]

    def scores(self, weights: Any) -> Any:
        """Each move's score in bits under ``weights`` (indexed by feature id, units of 1/32 bit)."""
        np = _np()
        w = np.asarray(weights, dtype=float)[: N_FEATURES_2] / 32.0
        return np.bincount(self.move_of_id, weights=w[self.ids], minlength=self.n_moves)

    def softmax(self, scores: Any) -> Any:
        """Each move's probability within its ply (base 2: ``scores`` in bits)."""
        np = _np()
        top = np.maximum.reduceat(scores, self.first_move)
        e = np.exp2(scores - top[self.ply_of_move])
        return e / np.add.reduceat(e, self.first_move)[self.ply_of_move]

    def ranks(self, scores: Any) -> Any:
        """Each move's rank in its ply by ``scores``, best first (0), ties in canonical order."""
        np = _np()
        order = np.lexsort((self.index, -scores, self.ply_of_move))
        out = np.empty(self.n_moves, dtype=np.int64)
        out[order] = np.arange(self.n_moves) - self.first_move[self.ply_of_move[order]]
        return out


def id_mask(ranges: Ranges) -> Any:
    """A boolean per feature id of model 2: in ``ranges``."""
    np = _np()
    mask = np.zeros(N_FEATURES_2, dtype=bool)
    for first, count in ranges:
        mask[first:first + count] = True
    return mask


def _plyset(ids: Any, per_move: Any, per_ply: Any, played: Any) -> PlySet:
    np = _np()
    out = PlySet()
    out.ids.frombytes(np.asarray(ids, dtype=np.int32).tobytes())
    out.per_move.frombytes(np.asarray(per_move, dtype=np.int32).tobytes())
    out.per_ply.frombytes(np.asarray(per_ply, dtype=np.int32).tobytes())
    out.played.frombytes(np.asarray(played, dtype=np.int32).tobytes())
    return out


def stage_plies(flat: Flat, keep: Any, full: Any, cheap: Any) -> tuple[PlySet, Any]:
    """(the plies whose played move is among the ``keep`` moves, restricted to them: a ``full`` move has all its
    feature ids, another only those of the ``cheap`` id mask, offset by :data:`N_FEATURES_2`; which plies those are).

    A ply left with one kept move is left out (its move costs nothing)."""
    np = _np()
    per_ply_kept = np.bincount(flat.ply_of_move[keep], minlength=flat.n_plies)
    ply_ok = keep[flat.target] & (per_ply_kept >= 2)
    keep = keep & ply_ok[flat.ply_of_move]
    move_full = full[flat.move_of_id]
    take = keep[flat.move_of_id] & (move_full | cheap[flat.ids])
    ids = flat.ids[take] + np.where(move_full[take], 0, N_FEATURES_2)
    per_move = np.bincount(flat.move_of_id[take], minlength=flat.n_moves)[keep]
    cs = np.cumsum(keep)
    before = cs[flat.first_move] - keep[flat.first_move]
    played = (cs[flat.target] - 1 - before)[ply_ok]
    return _plyset(ids, per_move, per_ply_kept[ply_ok], played), ply_ok


def flag_plies(inside: Any, buckets: Sequence[Any]) -> PlySet:
    """One two-way decision a ply: candidate 0 ("inside") has the ids ``2 * N_FEATURES_2 + b`` of each bucket array's
    entry for the ply, candidate 1 none; played 0 where ``inside``."""
    np = _np()
    n = len(inside)
    ids = np.stack([2 * N_FEATURES_2 + np.asarray(b) for b in buckets], axis=1).reshape(-1)
    per_move = np.zeros(2 * n, dtype=np.int64)
    per_move[0::2] = len(buckets)
    return _plyset(ids, per_move, np.full(n, 2), np.where(inside, 0, 1))


def ply_bits(data: PlySet, weights: Sequence[int]) -> Any:
    """Each ply's cost of its played move in bits (float softmax of the integer weights, units of 1/32 bit)."""
    np = _np()
    flat = Flat(data)
    if flat.n_plies == 0:
        return np.zeros(0)
    w = np.asarray(weights, dtype=float) / 32.0
    scores = np.bincount(flat.move_of_id, weights=w[flat.ids], minlength=flat.n_moves)
    top = np.maximum.reduceat(scores, flat.first_move)
    z = np.add.reduceat(np.exp2(scores - top[flat.ply_of_move]), flat.first_move)
    return np.log2(z) - (scores[flat.target] - top)


def _bucket(values: Any, scale: float, count: int) -> Any:
    """``floor(values * scale)`` clipped to ``0 .. count - 1``."""
    np = _np()
    return np.clip(np.floor(values * scale), 0, count - 1).astype(np.int64)


@dataclass
class Row:
    """One design's figures on the validation plies."""

    design: str
    bits: float
    full_scores: float
    escape: float
    moves: float

    def line(self) -> str:
        return (f"{self.design:<26} {self.bits:7.4f} bits a ply  {self.full_scores:6.2f} full scores a ply "
                f"(of {self.moves:5.2f} moves)  escape {100 * self.escape:5.1f} %")


class Study:
    """The staged designs fitted on ``data`` and scored on ``validation`` (full model: ``full`` weights, cheap model
    fitted here on the ``cheap`` groups)."""

    def __init__(self, data: PlySet, validation: PlySet, full: list[int], cheap: Ranges, iterations: int) -> None:
        np = _np()
        self.iterations = iterations
        self.full = full
        self.cheap_ids = id_mask(cheap)
        self.sets = {"fit": Flat(data), "val": Flat(validation)}
        cheap_only = stage_plies(self.sets["fit"], np.ones(self.sets["fit"].n_moves, bool),
                                 np.zeros(self.sets["fit"].n_moves, bool), self.cheap_ids)[0]
        init = [0] * (2 * N_FEATURES_2)
        init[N_FEATURES_2:] = [w if self.cheap_ids[i] else 0 for i, w in enumerate(full)]
        fitted = fit(cheap_only, 2 * N_FEATURES_2, iterations=iterations, init=init, log=False)
        self.cheap_weights = fitted[N_FEATURES_2:]
        self.cheap_scores = {k: f.scores(self.cheap_weights) for k, f in self.sets.items()}
        self.cheap_p = {k: f.softmax(self.cheap_scores[k]) for k, f in self.sets.items()}
        self.rank = {k: f.ranks(self.cheap_scores[k]) for k, f in self.sets.items()}
        self._within_cache: dict[tuple[int | None, float | None], dict[str, tuple[Any, Any]]] = {}

    def _stage(self, key: str, keep: Any, full: Any) -> tuple[PlySet, Any]:
        return stage_plies(self.sets[key], keep, full, self.cheap_ids)

    def reference(self) -> list[Row]:
        """Model 2 (every move in full) and the cheap model alone, on the validation plies."""
        np = _np()
        flat = self.sets["val"]
        every = np.ones(flat.n_moves, bool)
        full = ply_bits(self._stage("val", every, every)[0], self.full)
        cheap = ply_bits(self._stage("val", every, ~every)[0], [0] * N_FEATURES_2 + self.cheap_weights)
        moves = float(flat.per_ply.mean())
        return [Row("model 2 (every move)", float(full.mean()), moves, 0.0, moves),
                Row("cheap model alone", float(cheap.mean()), 0.0, 0.0, moves)]

    def _set_k(self, key: str, k: int | None, q: float | None) -> Any:
        """Each ply's set size: ``k``, or the fewest cheap-best moves of cheap mass >= ``q``."""
        np = _np()
        flat = self.sets[key]
        if k is not None:
            return np.full(flat.n_plies, k)
        order = np.lexsort((self.rank[key], flat.ply_of_move))
        mass = self.cheap_p[key][order]
        cum = np.cumsum(mass)
        cum_in_ply = cum - (cum[flat.first_move] - mass[flat.first_move])[flat.ply_of_move[order]]
        short = cum_in_ply < q - 1e-12  # moves still needed before the mass reaches q
        return np.bincount(flat.ply_of_move[order], weights=short, minlength=flat.n_plies).astype(np.int64) + 1

    def _within(self, k: int | None, q: float | None) -> dict[str, tuple[Any, Any]]:
        """Each split's (bits a ply of the move within its set, escaped?), the full model refitted on the played move
        within its set (the top K of :meth:`_set_k` or the rest), both sets' plies together."""
        if (k, q) not in self._within_cache:
            self._within_cache[k, q] = self._fit_within(k, q)
        return self._within_cache[k, q]

    def _fit_within(self, k_: int | None, q: float | None) -> dict[str, tuple[Any, Any]]:
        np = _np()
        parts = {}
        for key, flat in self.sets.items():
            inside = self.rank[key] < self._set_k(key, k_, q)[flat.ply_of_move]
            every = np.ones(flat.n_moves, bool)
            a, ok_a = self._stage(key, inside, every)
            b, ok_b = self._stage(key, ~inside, every)
            parts[key] = (a, ok_a, b, ok_b, inside[flat.target])
        fit_set = PlySet()
        for part in (parts["fit"][0], parts["fit"][2]):
            fit_set.ids.extend(part.ids)
            fit_set.per_move.extend(part.per_move)
            fit_set.per_ply.extend(part.per_ply)
            fit_set.played.extend(part.played)
        weights = fit(fit_set, N_FEATURES_2, iterations=self.iterations, init=self.full, log=False)
        out = {}
        for key, (a, ok_a, b, ok_b, hit) in parts.items():
            bits = np.zeros(self.sets[key].n_plies)
            bits[ok_a] += ply_bits(a, weights)
            bits[ok_b] += ply_bits(b, weights)
            out[key] = (bits, ~hit)
        return out

    def _rows(self, name: str, k: Any, flag_bits: Any, within: Any, escaped: Any) -> Row:
        np = _np()
        flat = self.sets["val"]
        n = flat.per_ply
        k_eff = np.minimum(k, n)
        full_scores = k_eff + np.where(escaped, n - k_eff, 0)
        return Row(name, float((flag_bits + within).mean()), float(full_scores.mean()), float(escaped.mean()),
                   float(n.mean()))

    def hybrid(self, k: int) -> tuple[Row, list[int]]:
        """One softmax: the cheap top ``k`` in full, the rest by cheap features (own weights), fitted together."""
        np = _np()
        sets = {}
        for key, flat in self.sets.items():
            sets[key] = self._stage(key, np.ones(flat.n_moves, bool), self.rank[key] < k)[0]
        init = list(self.full) + list(self.cheap_weights)
        weights = fit(sets["fit"], 2 * N_FEATURES_2, iterations=self.iterations, init=init, log=False)
        flat = self.sets["val"]
        bits = ply_bits(sets["val"], weights)
        kk = np.full(flat.n_plies, k)
        return self._rows(f"hybrid K={k}", kk, bits, 0.0, np.zeros(flat.n_plies, bool)), weights

    def _hybrid_mass(self, key: str, weights: list[int], k: Any) -> Any:
        """Each ply's probability of the top ``k`` under the hybrid ``weights``."""
        np = _np()
        flat = self.sets[key]
        full = flat.scores(weights[:N_FEATURES_2])
        cheap = flat.scores([w if self.cheap_ids[i] else 0 for i, w in enumerate(weights[N_FEATURES_2:])])
        inside = self.rank[key] < k[flat.ply_of_move]
        p = flat.softmax(np.where(inside, full, cheap))
        return np.bincount(flat.ply_of_move, weights=np.where(inside, p, 0.0), minlength=flat.n_plies)

    def staged(self, k: int | None, q: float | None, hybrid: list[int]) -> Row:
        """The hybrid's mass of the set as the flag, then the move within the set (or the rest) in full."""
        np = _np()
        flat = self.sets["val"]
        kk = self._set_k("val", k, q)
        bits, escaped = self._within(k, q)["val"]
        mass = np.clip(self._hybrid_mass("val", hybrid, kk), 1e-9, 1 - 1e-9)
        flag = np.where(kk >= flat.per_ply, 0.0, -np.log2(np.where(escaped, 1 - mass, mass)))  # no rest: no flag
        name = f"staged K={k}" if k is not None else f"mass q={q} (hybrid K=8 flag)"
        row = self._rows(name, kk, flag, bits, escaped)
        if q is not None:
            row.design += f", mean K {np.minimum(kk, flat.per_ply).mean():.2f}"
        return row

    def flag(self, k: int | None, q: float | None) -> Row:
        """A logistic on the cheap top-``k`` mass (bucketed) as the flag, then the move within its set in full."""
        np = _np()
        sets = {}
        escaped = {}
        kks = {}
        for key, flat in self.sets.items():
            kk = self._set_k(key, k, q)
            inside = self.rank[key] < kk[flat.ply_of_move]
            mass = np.bincount(flat.ply_of_move, weights=np.where(inside, self.cheap_p[key], 0.0),
                               minlength=flat.n_plies)
            logit = np.log2(np.clip(mass, 1e-9, 1 - 1e-9)) - np.log2(np.clip(1 - mass, 1e-9, 1))
            buckets = [_bucket(logit + 6, 2, 32), 32 + np.minimum(np.minimum(kk, flat.per_ply), 31)]
            sets[key] = flag_plies(inside[flat.target], buckets)
            escaped[key] = ~inside[flat.target]
            kks[key] = kk
        weights = fit(sets["fit"], 2 * N_FEATURES_2 + N_EXTRA, iterations=4 * self.iterations, lr=0.1, log=False)
        flag = np.where(kks["val"] >= self.sets["val"].per_ply, 0.0, ply_bits(sets["val"], weights))  # no rest: no flag
        bits, _ = self._within(k, q)["val"]
        name = f"flag K={k}" if k is not None else f"flag mass q={q}"
        row = self._rows(name, kks["val"], flag, bits, escaped["val"])
        if q is not None:
            row.design += f", mean K {np.minimum(kks['val'], self.sets['val'].per_ply).mean():.2f}"
        return row

    def _sequential_plies(self, key: str) -> tuple[PlySet, Any, Any]:
        """The two-way decisions of ``sequential`` (a move's full ids and its rank, mass-left and share buckets
        against none), the ply of each, and each ply's count of decisions."""
        np = _np()
        flat = self.sets[key]
        rank_ = self.rank[key]
        limit = np.minimum(rank_[flat.target], flat.per_ply - 2)  # the last move left is forced
        asked = rank_ <= limit[flat.ply_of_move]
        order = np.lexsort((-rank_, flat.ply_of_move))  # each ply's moves worst first: the mass left by a cumsum
        p = self.cheap_p[key][order]
        cum = np.cumsum(p)
        left = np.empty(flat.n_moves)
        start = cum[flat.first_move] - p[flat.first_move]
        left[order] = cum - start[flat.ply_of_move[order]]
        share = self.cheap_p[key] / np.maximum(left, 1e-12)
        extra = np.stack([
            2 * N_FEATURES_2 + np.minimum(rank_, 15),
            2 * N_FEATURES_2 + 16 + _bucket(-np.log2(np.maximum(left, 1e-12)), 2, 16),
            2 * N_FEATURES_2 + 32 + _bucket(-np.log2(np.maximum(share, 1e-12)), 2, 24),
        ], axis=1)
        moves = np.flatnonzero(asked)
        take = asked[flat.move_of_id]
        hit_ex = np.cumsum(asked)[flat.move_of_id[take]] - 1  # the decision each of its ids belongs to
        ex_of = np.concatenate([hit_ex, np.repeat(np.arange(len(moves)), 3)])
        ids = np.concatenate([flat.ids[take], extra[moves].reshape(-1)])
        ids = ids[np.argsort(ex_of, kind="stable")]
        per_move = np.zeros(2 * len(moves), dtype=np.int64)
        per_move[0::2] = flat.per_move[moves] + 3
        played = np.where(moves == flat.target[flat.ply_of_move[moves]], 0, 1)
        data = _plyset(ids, per_move, np.full(len(moves), 2), played)
        return data, flat.ply_of_move[moves], np.bincount(flat.ply_of_move[moves], minlength=flat.n_plies)

    def sequential(self) -> Row:
        """"Is it this move?" in cheap order, stopping at the played move."""
        np = _np()
        data, _, _ = self._sequential_plies("fit")
        init = list(self.full) + [0] * (N_FEATURES_2 + N_EXTRA)
        weights = fit(data, 2 * N_FEATURES_2 + N_EXTRA, iterations=2 * self.iterations, init=init, log=False)
        val, ply_of, asked = self._sequential_plies("val")
        flat = self.sets["val"]
        bits = np.bincount(ply_of, weights=ply_bits(val, weights), minlength=flat.n_plies)
        return Row("sequential", float(bits.mean()), float(asked.mean()), 0.0, float(flat.per_ply.mean()))


def study(data: PlySet, validation: PlySet, iterations: int, cheap_sets: Sequence[str], ks: Sequence[int],
          qs: Sequence[float]) -> list[Row]:
    """Every design's row, printed as it is measured (the full model: model 2 refitted ``iterations`` steps from its
    shipped weights on ``data``)."""
    from tools.train_chess import OUT

    shipped = json.loads(OUT.read_text(encoding="utf-8"))["weights"]
    full = fit(data, N_FEATURES_2, iterations=iterations, init=shipped, log=False)
    rows: list[Row] = []

    def show(row: Row) -> None:
        rows.append(row)
        print("  " + row.line(), flush=True)

    for name in cheap_sets:
        print(f"cheap set {name!r}:", flush=True)
        s = Study(data, validation, full, CHEAP_SETS[name], iterations)
        for row in s.reference():
            show(row)
        hybrids = {}
        for k in ks:
            row, hybrids[k] = s.hybrid(k)
            show(row)
        for k in ks:
            show(s.staged(k, None, hybrids[k]))
            show(s.flag(k, None))
        for q in qs:
            show(s.flag(None, q))
            if 8 in hybrids:
                show(s.staged(None, q, hybrids[8]))
        show(s.sequential())
    print("origin first:", flush=True)
    for any_set in ORIGIN_SETS:
        show(origin_first(data, validation, full, iterations, any_set))
    return rows


def reference_probabilities(full: Sequence[float], cheap: Sequence[float], k: int, flag: float | None) -> list[float]:
    """One ply's probability of each move under a staged design, plainly (the test's reference): ``full`` and
    ``cheap`` are the moves' scores in bits, the top ``k`` by ``cheap`` (ties in order) form the set; ``flag`` the
    probability of the set (no flag when every move is in it), or None for the hybrid (one softmax, the set's moves
    by ``full``, the rest by ``cheap``)."""
    n = len(full)
    order = sorted(range(n), key=lambda i: (-cheap[i], i))
    inside = set(order[:k])
    mixed = [2.0 ** (full[i] if i in inside else cheap[i]) for i in range(n)]
    if flag is None:
        return [m / sum(mixed) for m in mixed]
    if len(inside) == n:  # no move left outside: no flag is coded
        flag = 1.0
    out = []
    for i in range(n):
        group = [j for j in range(n) if (j in inside) == (i in inside)]
        share = 2.0 ** full[i] / sum(2.0 ** full[j] for j in group)
        out.append((flag if i in inside else 1 - flag) * share if len(group) > 1 else
                   (flag if i in inside else 1 - flag))
    return out


def bits_of(probabilities: Sequence[float], played: int) -> float:
    """The cost of the played move in bits."""
    return -math.log2(probabilities[played])


ORIGIN_CONSTANT: Ranges = (
    (rank.F_FROM, 7 * 64), (rank.F_FROM_THREAT, 3 * 7), (rankmodel2.G_FROM_SAFETY, 3 * 3 * 7),
    (rankmodel2.G_LAST_ATTACKS, 2 * 7), (rank.F_SAME_PIECE, 7), (rank.F_EVASION, 7), (rank.F_LOSES_CASTLING, 1),
    (rank.F_PHASE, 4 * 7),
)
"""The groups of model 2 that are the same for every move of one origin (what the piece is, where, how safe)."""
ORIGIN_ANY: Ranges = (
    (rank.F_CAPTURE, 7 * 7), (rank.F_CHECK, 7), (rank.F_PROMOTION, 7), (rank.F_RECAPTURE, 7), (rank.F_TAKES_LAST, 7),
    (rank.F_CASTLE, 2), (rankmodel2.G_BOOK, 6 * 8),
)
"""The groups whose ids an origin gets if any of its moves has them (read from bitboards, a piece's attacks against
the enemy's men by kind, the check squares, the last target; the book's moves): what the piece can do."""
ORIGIN_ANY_SAFETY: Ranges = ORIGIN_ANY + (
    (rank.F_SAFETY, 2 * 3 * 3 * 7), (rank.F_HANGING_VICTIM, 7), (rankmodel2.G_CAPTURE_GUARDED, 7 * 7),
    (rank.F_KING_ZONE, 7), (rankmodel2.G_NEAR_LAST, 8 * 7),
)
""":data:`ORIGIN_ANY` and where the piece can go as the attack map sees it (the target's safety, a hanging or guarded
victim), next to the enemy king or the last target: the piece's targets and'ed with the map's bit planes."""
ORIGIN_ANY_REACH: Ranges = ORIGIN_ANY_SAFETY + (
    (rank.F_SLIDE, 7 * 8), (rankmodel2.G_PHASE_RANK, 4 * 8 * 7), (rank.F_PAWN_DOUBLE, 1), (rank.F_EN_PASSANT, 1),
)
""":data:`ORIGIN_ANY_SAFETY` and how far the piece reaches: its slide lengths, its targets' ranks, a pawn's double step
or en passant."""
ORIGIN_SETS: dict[str, Ranges] = {"any": ORIGIN_ANY, "any+safety": ORIGIN_ANY_SAFETY, "counted": ORIGIN_ANY_SAFETY,
                                  "counted+reach": ORIGIN_ANY_REACH}
"""What an origin is told of its moves; ``counted``, ``counted+reach``: also a second id (``id + N_FEATURES_2 +
N_EXTRA``) where two or more of its moves have the id."""


def origin_groups(flat: Flat) -> tuple[Any, Any]:
    """(each move's origin group, numbered across plies in ply order: moves of one ply from one square (its
    ``F_FROM`` id: kind x square, one piece) or castling; each group's ply)."""
    np = _np()
    from_id = np.full(flat.n_moves, 7 * 64)  # castling (no F_FROM): a group of its own
    mask = (flat.ids >= rank.F_FROM) & (flat.ids < rank.F_FROM + 7 * 64)
    from_id[flat.move_of_id[mask]] = flat.ids[mask] - rank.F_FROM
    key = flat.ply_of_move * (7 * 64 + 1) + from_id
    unique, group = np.unique(key, return_inverse=True)
    return group, unique // (7 * 64 + 1)


def origin_stages(plies: PlySet, any_set: str = "any") -> tuple[PlySet, Any, PlySet, Any, Any]:
    """(the origin stage: a ply's candidates its origins, each with its constant ids, the ids of :data:`ORIGIN_SETS`'
    ``any_set`` any of its moves has, and ``N_FEATURES_2 + kind * 9 + min(moves, 8)``; which plies have two origins or
    more; the move stage: the played origin's moves, all their ids; which plies have two such moves or more; the
    played origin's move count a ply)."""
    np = _np()
    constant = id_mask(ORIGIN_CONSTANT)
    anyof = id_mask(ORIGIN_SETS[any_set])
    flat = Flat(plies)
    group, ply_of_group = origin_groups(flat)
    n_groups = len(ply_of_group)
    take = constant[flat.ids] | anyof[flat.ids]
    pairs, times = np.unique(np.stack([group[flat.move_of_id[take]], flat.ids[take]], axis=1), axis=0,
                             return_counts=True)
    pairs = pairs.reshape(-1, 2)
    if any_set.startswith("counted"):
        again = pairs[(times >= 2) & ~constant[pairs[:, 1]]]
        pairs = np.concatenate([pairs, np.stack([again[:, 0], again[:, 1] + N_FEATURES_2 + N_EXTRA], axis=1)])
    moves_in = np.bincount(group, minlength=n_groups)
    kind = np.zeros(n_groups, dtype=np.int64)
    has_from = (flat.ids >= rank.F_FROM) & (flat.ids < rank.F_FROM + 7 * 64)
    kind[group[flat.move_of_id[has_from]]] = (flat.ids[has_from] - rank.F_FROM) // 64
    count_id = N_FEATURES_2 + kind * 9 + np.minimum(moves_in, 8)
    ex_of = np.concatenate([pairs[:, 0], np.arange(n_groups)])
    ids = np.concatenate([pairs[:, 1], count_id])[np.argsort(ex_of, kind="stable")]
    per_group = np.bincount(ex_of, minlength=n_groups)
    per_ply = np.bincount(ply_of_group, minlength=flat.n_plies)
    first_group = np.concatenate([[0], np.cumsum(per_ply)[:-1]])
    played = group[flat.target] - first_group
    ok = per_ply >= 2  # one origin: nothing coded at this stage
    keep_group = ok[ply_of_group]
    keep_hit = np.repeat(keep_group, per_group)
    origins = _plyset(ids[keep_hit], per_group[keep_group], per_ply[ok], played[ok])
    same = group == group[flat.target][flat.ply_of_move]
    moves, ok_moves = stage_plies(flat, same, np.ones(flat.n_moves, bool), id_mask(()))
    return origins, ok, moves, ok_moves, moves_in[group[flat.target]]


def origin_first(data: PlySet, validation: PlySet, full: list[int], iterations: int, any_set: str = "any") -> Row:
    """The origin first (a softmax over the ply's origins, :func:`origin_stages`), then the move among that origin's
    moves in full (model 2 refitted on those); full scores a ply: the played origin's moves."""
    np = _np()
    fit_origins, _, fit_moves, _, _ = origin_stages(data, any_set)
    keep = id_mask(ORIGIN_CONSTANT) | id_mask(ORIGIN_SETS[any_set])
    init = [w if keep[i] else 0 for i, w in enumerate(full)] + [0] * (N_EXTRA + N_FEATURES_2)
    origin_w = fit(fit_origins, 2 * N_FEATURES_2 + N_EXTRA, iterations=3 * iterations, init=init, log=False)
    within_w = fit(fit_moves, N_FEATURES_2, iterations=iterations, init=full, log=False)
    origins, ok, moves, ok_moves, size = origin_stages(validation, any_set)
    bits = np.zeros(len(ok))
    bits[ok] += ply_bits(origins, origin_w)
    bits[ok_moves] += ply_bits(moves, within_w)
    flat = Flat(validation)
    count = np.bincount(origin_groups(flat)[1], minlength=flat.n_plies)
    return Row(f"origin first, {any_set} ({count.mean():.1f} origins a ply)", float(bits.mean()), float(size.mean()),
               0.0, float(flat.per_ply.mean()))
