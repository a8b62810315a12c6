"""Fit an abalone/rank model on the TRAIN split, and report models on the held-out split.

Split (docs/rank.md): the games of ../shared/data/abalone/migs-2016-2017.train.apgn ordered by
(Date, Event number); the earliest 80 % train, the latest 20 % are held out. Model 1 was fitted on every
2nd training game; model 2 on all of them. ``--tune`` fits on the earliest 7/8 of the training games and
reports the latest 1/8 (the tuning set: features and regularisation are chosen on it, never on the held-out
games); ``--evaluate`` codes every held-out game with each released model and reports payload bits a ply.

    .venv/bin/python -m tools.train_abalone --model 2 [--iterations 300] [--tune]
    .venv/bin/python -m tools.train_abalone --evaluate
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import time
from pathlib import Path

from plybits.abalone import rank, rankmodel2
from plybits.registry import get_game
from tools.rank_fit import PlySet, collect, fit, read_games, write_model

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "abalone"
FILE = "migs-2016-2017.train.apgn"
TRAIN_SHARE = 0.8
TUNE_SHARE = 1 / 8
"""The latest share of the training games a ``--tune`` run holds out for choosing features and settings."""
OUT = ROOT / "codecs" / "plybits" / "abalone"
MODELS = {
    1: (rank.N_FEATURES, rank.move_features, 2, "log-linear over plybits.abalone.rank.move_features"),
    2: (rankmodel2.N_FEATURES, rankmodel2.move_features, 1, "log-linear over plybits.abalone.rankmodel2.move_features"),
}
"""By version: feature count, feature function, which training games it fits (every K-th), notes."""


def split(data_dir: Path = DATA) -> tuple[list, list]:
    """(train, held out): the records of the MiGs file by (Date, Event number), earliest 80 % first."""
    records = read_games("abalone", [data_dir / FILE])

    def order(record):
        tags = record[0]
        event = tags.get("Event", "")
        number = int(event.split()[-1]) if event.split() and event.split()[-1].isdigit() else 0
        return (tags.get("Date", ""), number)

    records.sort(key=order)
    cut = int(len(records) * TRAIN_SHARE)
    return records[:cut], records[cut:]


def log_loss_bits(data: PlySet, weights: list[int]) -> float:
    """Bits a ply of ``data`` under integer ``weights`` (the softmax in floating point: no coder overhead)."""
    import numpy as np

    ids = np.frombuffer(data.ids, dtype=np.int32).astype(np.int64)
    per_move = np.frombuffer(data.per_move, dtype=np.int32)
    per_ply = np.frombuffer(data.per_ply, dtype=np.int32)
    move_of_id = np.repeat(np.arange(len(per_move)), per_move)
    first = np.concatenate([[0], np.cumsum(per_ply)[:-1]])
    ply_of_move = np.repeat(np.arange(len(per_ply)), per_ply)
    target = first + np.frombuffer(data.played, dtype=np.int32)
    scores = np.bincount(move_of_id, weights=np.asarray(weights, float)[ids], minlength=len(per_move)) / 32
    top = np.maximum.reduceat(scores, first)
    e = np.exp2(scores - top[ply_of_move])
    return float(-np.log2(e[target] / np.add.reduceat(e, first)).sum() / len(per_ply))


def evaluate() -> None:
    """Payload bits a ply of every released model on the held-out games (what a container stores)."""
    _, held = split()
    game = get_game("abalone")
    plies = sum(len(moves) for _, _, moves in held)
    for version in rank.RANK.readable_versions:
        start = time.time()
        bits = sum(len(rank.RANK.encode_version(game.position(s), moves, version)) for _, s, moves in held)
        print(f"model {version}: {bits / plies:.4f} bits a ply ({len(held)} held-out games, {plies} plies, "
              f"{time.time() - start:.0f}s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=int, choices=sorted(MODELS), default=2)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--tune", action="store_true", help="fit on 7/8 of the training games, report the rest")
    parser.add_argument("--evaluate", action="store_true", help="report every released model on the held-out games")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--init", type=Path, help="start from this weights file (its features first, new ones at 0)")
    parser.add_argument("--cache", type=Path, help="keep the collected plies in this pickle, read it when there")
    args = parser.parse_args()
    if args.evaluate:
        evaluate()
        return
    n_features, features, every, notes = MODELS[args.model]
    start = time.time()
    train, _ = split()
    train = train[::every]
    tune: list = []
    if args.tune:
        cut = len(train) - math.ceil(len(train) * TUNE_SHARE)
        train, tune = train[:cut], train[cut:]
    game = get_game("abalone")
    if args.cache is not None and args.cache.exists() and not args.tune:
        data = pickle.loads(args.cache.read_bytes())
    else:
        data = collect(((game.position(s), m) for _, s, m in train), rank.canonical_moves, features)
        if args.cache is not None and not args.tune:
            args.cache.write_bytes(pickle.dumps(data))
    print(f"{len(train)} games, {len(data)} plies, {n_features} features ({time.time() - start:.0f}s)", flush=True)
    if args.tune:
        held = collect(((game.position(s), m) for _, s, m in tune), rank.canonical_moves, features)
        weights = fit(data, n_features, iterations=args.iterations, l2=args.l2)
        print(f"tuning set ({len(tune)} games, {len(held)} unforced plies): {log_loss_bits(held, weights):.4f} "
              f"bits a ply; training {log_loss_bits(data, weights):.4f}")
        return
    out = OUT / f"rank_model_v{args.model}.json"
    share = "every game" if every == 1 else f"every {every}th game"

    def save(weights: list[int]) -> None:
        write_model(out, game="abalone", version=args.model, weights=weights, n_features=n_features,
                    trained_on=[f"{FILE} (earliest 80% by date, {share})"], plies=len(data),
                    notes=f"{notes}; held out: latest 20% by date; l2 {args.l2}, lr {args.lr}, {args.iterations} iterations"
                          + (f" from {args.init.name}" if args.init is not None else ""))

    init = None
    if args.init is not None:
        init = json.loads(args.init.read_text(encoding="utf-8"))["weights"]
        init = init + [0] * (n_features - len(init))
    save(fit(data, n_features, iterations=args.iterations, l2=args.l2, lr=args.lr, checkpoint=save, init=init))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
