"""Offline fitting of a rank model's weights (dev-only: needs numpy, which the shipped models never do).

Only :func:`fit` needs numpy; :func:`read_games` and :func:`collect` are plain Python.
A ply is the feature-id lists of its candidate moves and the index of the move played. The model is
``P(move) = 2^(score/32) / sum``, ``score = sum of the integer weights of its features``; this fits
the weights by full-batch Adam on the log-loss with a little L2, then rounds them to integers.
"""

from __future__ import annotations

import json
import math
import time
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path

SCORE_SCALE = 32


class PlySet:
    """Plies packed flat: feature ids, per-move feature counts, per-ply move counts, played indices."""

    def __init__(self) -> None:
        self.ids = array("i")
        self.per_move = array("i")
        self.per_ply = array("i")
        self.played = array("i")

    def add(self, features: Sequence[Sequence[int]], played: int) -> None:
        """One ply: the feature ids of each candidate, and which one was played."""
        if len(features) < 2:
            return  # a forced move teaches nothing
        for feats in features:
            self.ids.extend(feats)
            self.per_move.append(len(feats))
        self.per_ply.append(len(features))
        self.played.append(played)

    def __len__(self) -> int:
        return len(self.played)


def fit(data: PlySet, n_features: int, *, iterations: int = 300, l2: float = 1e-4, lr: float = 0.05,
        log: bool = True, checkpoint=None, init: list[int] | None = None) -> list[int]:
    """Integer weights (units of 1/32 bit) minimising the log-loss of ``data``, from ``init`` (1/32 bit) or 0."""
    import numpy as np

    ids = np.frombuffer(data.ids, dtype=np.int32).astype(np.int64)
    per_move = np.frombuffer(data.per_move, dtype=np.int32)
    per_ply = np.frombuffer(data.per_ply, dtype=np.int32)
    n_moves, n_plies = len(per_move), len(per_ply)
    move_of_id = np.repeat(np.arange(n_moves), per_move)
    ply_of_move = np.repeat(np.arange(n_plies), per_ply)
    first_move = np.concatenate([[0], np.cumsum(per_ply)[:-1]])
    target = first_move + np.frombuffer(data.played, dtype=np.int32)
    y = np.zeros(n_moves)
    y[target] = 1.0
    w = np.zeros(n_features) if init is None else np.array(init, dtype=float) * math.log(2) / SCORE_SCALE
    m = np.zeros(n_features)
    v = np.zeros(n_features)
    b1, b2, eps = 0.9, 0.999, 1e-8
    start = time.time()
    for it in range(1, iterations + 1):
        scores = np.bincount(move_of_id, weights=w[ids], minlength=n_moves)
        top = np.maximum.reduceat(scores, first_move)
        e = np.exp(scores - top[ply_of_move])
        z = np.add.reduceat(e, first_move)
        p = e / z[ply_of_move]
        loss = -np.log(np.maximum(p[target], 1e-300)).sum() / n_plies
        grad = np.bincount(ids, weights=(p - y)[move_of_id], minlength=n_features) / n_plies + l2 * w
        m = b1 * m + (1 - b1) * grad
        v = b2 * v + (1 - b2) * grad * grad
        w -= lr * (m / (1 - b1**it)) / (np.sqrt(v / (1 - b2**it)) + eps)
        if log and (it % 25 == 0 or it == 1):
            print(f"  iter {it:4d}  {loss / math.log(2):.4f} bits/ply  ({time.time() - start:.0f}s)", flush=True)
            if checkpoint is not None:
                checkpoint(_integer(w))
    return _integer(w)


def _integer(w) -> list[int]:
    """Natural-log weights to integer units of 1/32 bit."""
    return [int(round(float(x) / math.log(2) * SCORE_SCALE)) for x in w]


def write_model(path: Path, *, game: str, version: int, weights: list[int], n_features: int,
                trained_on: Iterable[str], plies: int, notes: str) -> None:
    """The shipped data file: the integer weights and where they came from."""
    body = {
        "game": game,
        "version": version,
        "score_scale": SCORE_SCALE,
        "features": n_features,
        "trained_on": list(trained_on),
        "training_plies": plies,
        "notes": notes,
        "weights": weights,
    }
    path.write_text(json.dumps(body, separators=(",", ":")) + "\n", encoding="utf-8")


def collect(games: Iterable[tuple[object, list[object]]], canonical, features, *, skip_last: bool = False) -> PlySet:
    """The plies of ``games`` ((start position, moves) pairs) as training data.

    ``canonical(position)`` lists the candidates, ``features(position, candidates, history)`` gives their
    feature ids; ``skip_last`` drops a final candidate that is never learned (chess's null move).
    """
    data = PlySet()
    for position, moves in games:
        history: list[object] = []
        for move in moves:
            candidates = canonical(position)
            if skip_last:
                candidates = candidates[:-1]
            if move in candidates:
                data.add(features(position, candidates, history), candidates.index(move))
            position.push(move)  # type: ignore[attr-defined]
            history.append(move)
    return data


def read_games(game_name: str, paths: Iterable[Path]) -> list[tuple[dict[str, str], str | None, list[object]]]:
    """Every record of the files as (tags, start, moves) with moves replayed and checked by plybits."""
    from plybits.records import read_record
    from plybits.registry import get_game

    game = get_game(game_name)
    out = []
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        for chunk in game.split_records(text):
            replayed = read_record(game_name, record=chunk)
            out.append((replayed.tags, replayed.start, replayed.moves))
    return out
