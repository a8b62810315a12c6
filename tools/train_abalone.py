"""Fit an abalone/rank model on the TRAIN split, and report models on the held-out split.

Split (docs/rank.md): the games of ../shared/data/abalone/migs-2016-2017.train.apgn ordered by
(Date, Event number); the earliest 80 % train, the latest 20 % are held out. Model 1 was fitted on every
2nd training game; model 2 on all of them. ``--tune`` fits on the earliest 7/8 of the training games and
reports the latest 1/8 (the tuning set: features and regularisation are chosen on it, never on the held-out
games); ``--evaluate`` codes every held-out game with each released model and reports payload bits a ply.

Model 3 is model 2's features and an opening book (the fitted games' first BOOK_DEPTH plies); while a game's
features are read its own plies are taken out of the book (leave-one-out), so the book's weights are fitted on
counts that, like a new game's, never include it. Model 4 is model 3's features and book with every weight refitted
together from ``--init``'s (model 3's, whose model 2 part was fitted on every training game: a ``--tune`` run from them
starts from weights that saw the tuning games). Model 5 is model 3's features and book and model 1's by phase, its
phase weights fitted alone with ``--init``'s (model 4's) kept; ``--tune-book`` reads every training game's openings
with the book of ``--tune``'s earliest 7/8 (those games each counted out of it, the latest 1/8 read with it as new
games), as ``rank_model_v5.json`` was fitted: the command below writes that file byte for byte. Their ``--cache``
holds model 2's features of every training game (the slow part), which ``--tune`` and the fit share; the book's
features are added to them.

    .venv/bin/python -m tools.train_abalone --model 3 --init codecs/plybits/abalone/rank_model_v2.json [--tune]
    .venv/bin/python -m tools.train_abalone --model 4 --init codecs/plybits/abalone/rank_model_v3.json \
        --iterations 75 --lr 0.01 --cache PLIES.pkl
    PLYBITS_PURE=1 .venv/bin/python -m tools.train_abalone --model 5 --init codecs/plybits/abalone/rank_model_v4.json \
        --iterations 30 --tune-book --cache PLIES.pkl --out FILE
    .venv/bin/python -m tools.train_abalone --evaluate
"""

from __future__ import annotations

import argparse
import json
import math
import pickle
import time
from pathlib import Path

from plybits.abalone import rank, rankmodel2, rankmodel3, rankmodel5
from plybits.abalone.board import move_code
from plybits.openingbook import BOOK_DEPTH, Book, add_to_book, book_rows
from plybits.registry import get_game
from tools.rank_fit import SCORE_SCALE, PlySet, collect, fit, read_games, write_model

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
    3: (rankmodel3.N_FEATURES, rankmodel3.move_features, 1, "log-linear over plybits.abalone.rankmodel3.move_features "
        f"(model 2's and an opening book of the first {BOOK_DEPTH} plies)"),
    4: (rankmodel3.N_FEATURES, rankmodel3.move_features, 1, "log-linear over plybits.abalone.rankmodel3.move_features "
        "(model 3's features and book), every weight refitted jointly"),
    5: (rankmodel5.N_FEATURES, rankmodel5.move_features, 1, "log-linear over plybits.abalone.rankmodel5.move_features "
        "(model 3's features and book, and model 1's evaluation features by the marbles each side has lost)"),
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


def build_book(games: list) -> Book:
    """The opening book of ``games`` (every position of their first BOOK_DEPTH plies, however often reached)."""
    book: Book = {}
    for _, start, moves in games:
        add_to_book(book, book_plies(start, moves), 1)
    return book


def book_plies(start: str | None, moves: list) -> list[tuple[int, int]]:
    """(position key, move code) of a game's first BOOK_DEPTH plies."""
    position = get_game("abalone").position(start)
    keys = []
    for move in moves[:BOOK_DEPTH]:
        keys.append(rankmodel3.position_key(position))
        position.push(move)
    return [(key, move_code(move)) for key, move in zip(keys, moves)]


def plies_of(data: PlySet, first: int, end: int) -> PlySet:
    """Plies ``first`` .. ``end`` - 1 of ``data``."""
    move_at = [0]
    for n in data.per_ply:
        move_at.append(move_at[-1] + n)
    id_at = [0]
    for n in data.per_move[: move_at[end]]:
        id_at.append(id_at[-1] + n)
    out = PlySet()
    out.ids = data.ids[id_at[move_at[first]] : id_at[move_at[end]]]
    out.per_move = data.per_move[move_at[first] : move_at[end]]
    out.per_ply = data.per_ply[first:end]
    out.played = data.played[first:end]
    return out


def with_book(data: PlySet, games: list, book: Book, leave_one_out: bool) -> PlySet:
    """Model 3's plies of ``games`` from model 2's (``data``: exactly their plies, in order): ``F_BOOK`` added to
    each book move of their first BOOK_DEPTH plies, looked up in ``book`` (each game taken out of it while it is
    read if ``leave_one_out``).

    :raises ValueError: if ``data`` is not their plies (a forced ply, which ``data`` leaves out, or other games).
    """
    import numpy as np

    game = get_game("abalone")
    extra_moves: list[int] = []
    extra_ids: list[int] = []
    ply = move_base = 0
    for _, start, moves in games:
        own = book_plies(start, moves) if leave_one_out else []
        add_to_book(book, own, -1)
        position = game.position(start)
        for i, move in enumerate(moves):
            if i < BOOK_DEPTH:
                legal = rank.canonical_moves(position)
                if len(legal) != data.per_ply[ply] or legal[data.played[ply]] != move:
                    raise ValueError(f"ply {ply} of the model 2 plies is not ply {i} of its game")
                entry, total = rankmodel3.book_entry(book, position, i)
                for j, candidate in enumerate(legal if entry is not None else ()):
                    times = entry.get(move_code(candidate), 0)
                    if times:
                        extra_moves.append(move_base + j)
                        extra_ids.append(rankmodel3.book_feature(times, total))
            move_base += data.per_ply[ply]
            ply += 1
            position.push(move)
        add_to_book(book, own, 1)
    if ply != len(data):
        raise ValueError(f"{ply} plies in the games, {len(data)} in the model 2 plies")
    per_move = np.frombuffer(data.per_move, dtype=np.int32)
    ends = np.cumsum(per_move)[np.asarray(extra_moves, dtype=np.int64)]
    out = PlySet()
    out.ids.frombytes(np.insert(np.frombuffer(data.ids, dtype=np.int32), ends, extra_ids).astype(np.int32).tobytes())
    counts = per_move.copy()
    counts[extra_moves] += 1
    out.per_move.frombytes(counts.astype(np.int32).tobytes())
    out.per_ply = data.per_ply[:]
    out.played = data.played[:]
    return out


def joined(first: PlySet, second: PlySet) -> PlySet:
    """The plies of ``first``, then those of ``second``."""
    out = PlySet()
    for name in ("ids", "per_move", "per_ply", "played"):
        getattr(out, name).extend(getattr(first, name))
        getattr(out, name).extend(getattr(second, name))
    return out


def with_phase(data: PlySet, games: list) -> PlySet:
    """Model 5's plies of ``games`` from model 3's (``data``: exactly their unforced plies, in order): ``F_PHASE`` of
    the ply's phase added with each model 1 feature that :data:`~plybits.abalone.rankmodel5.PHASED` holds."""
    import numpy as np

    game = get_game("abalone")
    phases: list[int] = []
    for _, start, moves in games:
        position = game.position(start)
        for move in moves:
            if len(rank.canonical_moves(position)) >= 2:
                phases.append(rankmodel5.phase(position))
            position.push(move)
    per_move = np.frombuffer(data.per_move, dtype=np.int32)
    per_ply = np.frombuffer(data.per_ply, dtype=np.int32)
    if len(phases) != len(per_ply):
        raise ValueError(f"{len(phases)} unforced plies in the games, {len(per_ply)} in the data")
    ids = np.frombuffer(data.ids, dtype=np.int32).astype(np.int64)
    move_of_id = np.repeat(np.arange(len(per_move)), per_move)
    index = np.asarray(rankmodel5.PHASED_INDEX, dtype=np.int64)
    model_1 = ids < rank.N_FEATURES
    active = np.zeros(len(ids), bool)
    active[model_1] = index[ids[model_1]] >= 0
    move_phase = np.repeat(np.asarray(phases, dtype=np.int64), per_ply)
    new = rankmodel5.F_PHASE + move_phase[move_of_id[active]] * len(rankmodel5.PHASED) + index[ids[active]]
    moves = np.concatenate([move_of_id, move_of_id[active]])
    order = np.argsort(moves, kind="stable")
    out = PlySet()
    out.ids.frombytes(np.concatenate([ids, new])[order].astype(np.int32).tobytes())
    out.per_move.frombytes((per_move + np.bincount(move_of_id[active], minlength=len(per_move))).astype(np.int32).tobytes())
    out.per_ply = data.per_ply[:]
    out.played = data.played[:]
    return out


def fit_new(data: PlySet, n_features: int, init: list[int], *, iterations: int, lr: float = 0.1,
            l2: float = 1e-4) -> list[int]:
    """Integer weights: ``init``'s kept, the features past them fitted alone (full-batch Adam on the log-loss). Only
    the plies where a new feature is active depend on them, so only those are scored, each move's score from the kept
    weights made once."""
    import numpy as np

    ids = np.frombuffer(data.ids, dtype=np.int32).astype(np.int64)
    per_move = np.frombuffer(data.per_move, dtype=np.int32)
    per_ply = np.frombuffer(data.per_ply, dtype=np.int32)
    move_of_id = np.repeat(np.arange(len(per_move)), per_move)
    ply_of_move = np.repeat(np.arange(len(per_ply)), per_ply)
    kept = np.asarray(init + [0], float) * math.log(2) / SCORE_SCALE
    new = ids >= len(init)
    fixed = np.bincount(move_of_id, weights=kept[np.where(new, len(init), ids)], minlength=len(per_move))
    plies = np.unique(ply_of_move[move_of_id[new]])
    moves = np.nonzero(np.isin(ply_of_move, plies))[0]  # the moves of those plies, in order
    where = np.full(len(per_move), -1)
    where[moves] = np.arange(len(moves))
    ply_of = np.searchsorted(plies, ply_of_move[moves])
    first = np.concatenate([[0], np.cumsum(per_ply[plies])[:-1]])
    target = first + np.frombuffer(data.played, dtype=np.int32)[plies]
    y = np.zeros(len(moves))
    y[target] = 1.0
    new_id = ids[new] - len(init)
    new_move = where[move_of_id[new]]
    k = n_features - len(init)
    w, m, v = np.zeros(k), np.zeros(k), np.zeros(k)
    for it in range(1, iterations + 1):
        scores = fixed[moves] + np.bincount(new_move, weights=w[new_id], minlength=len(moves))
        e = np.exp(scores - np.maximum.reduceat(scores, first)[ply_of])
        p = e / np.add.reduceat(e, first)[ply_of]
        grad = np.bincount(new_id, weights=(p - y)[new_move], minlength=k) / len(per_ply) + l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        w -= lr * (m / (1 - 0.9**it)) / (np.sqrt(v / (1 - 0.999**it)) + 1e-8)
    print(f"  {k} new features fitted on {len(plies)} plies ({iterations} iterations)", flush=True)
    return init + [int(round(float(x) / math.log(2) * SCORE_SCALE)) for x in w]


def fit_model_3(args: argparse.Namespace, train: list) -> None:
    """``--model 3``, ``4`` or ``5``: model 2's features of the training games (``--cache``), the book's added (and
    model 5's phase features); fit or ``--tune``. Model 3 fits the book's weights alone (``--init``'s kept; ``--joint
    N`` then all of them), as model 5 does its phase weights (from model 4's); model 4 fits all of them jointly
    ``--iterations`` times from ``--init``'s (model 3's), the tuning set's cost reported at every checkpoint."""
    n_features = MODELS[args.model][0]
    game = get_game("abalone")
    start = time.time()
    if args.cache is not None and args.cache.exists():
        base = pickle.loads(args.cache.read_bytes())
    else:
        base = collect(((game.position(s), m) for _, s, m in train), rank.canonical_moves, rankmodel2.move_features)
        if args.cache is not None:
            args.cache.write_bytes(pickle.dumps(base))
    fitted, tuning = train, []
    if args.tune or args.tune_book:
        cut = len(train) - math.ceil(len(train) * TUNE_SHARE)
        fitted, tuning = train[:cut], train[cut:]
    cut_ply = sum(len(moves) for _, _, moves in fitted)
    book = build_book(fitted)
    data = with_book(plies_of(base, 0, cut_ply), fitted, book, leave_one_out=True)
    if args.tune_book and not args.tune:  # every training game, the latest 1/8 read with the others' book
        data = joined(data, with_book(plies_of(base, cut_ply, len(base)), tuning, book, leave_one_out=False))
        fitted, tuning = train, []
    if args.model == 5:
        data = with_phase(data, fitted)
    print(f"{len(fitted)} games, {len(data)} plies, {n_features} features, book of "
          f"{len(book_rows(book))} positions ({time.time() - start:.0f}s)", flush=True)
    init = json.loads(args.init.read_text(encoding="utf-8"))["weights"] if args.init is not None else []

    def fitted_weights(checkpoint=None) -> list[int]:
        if args.model == 4:
            return fit(data, rankmodel3.N_FEATURES, iterations=args.iterations, l2=args.l2, lr=args.lr, init=init,
                       checkpoint=checkpoint)
        weights = fit_new(data, n_features, init, iterations=args.iterations)
        if args.joint:
            weights = fit(data, n_features, iterations=args.joint, l2=args.l2, lr=args.lr, init=weights)
        return weights

    if args.tune:
        held = with_book(plies_of(base, cut_ply, len(base)), tuning, book, leave_one_out=False)
        if args.model == 5:
            held = with_phase(held, tuning)
        if init:
            print(f"tuning set, initial weights: {log_loss_bits(held, init + [0] * (n_features - len(init))):.4f} bits a ply")

        def report(weights: list[int]) -> None:
            print(f"    tuning set {log_loss_bits(held, weights):.4f} bits a ply", flush=True)

        weights = fitted_weights(report)
        print(f"tuning set ({len(tuning)} games, {len(held)} unforced plies): {log_loss_bits(held, weights):.4f} "
              f"bits a ply; training {log_loss_bits(data, weights):.4f}")
        return
    out = args.out or OUT / f"rank_model_v{args.model}.json"
    new_ones = f"the {n_features - len(init)} phase weights" if args.model == 5 else "the new ones"

    def save(weights: list[int]) -> None:
        write_model(out, game="abalone", version=args.model, weights=weights, n_features=n_features,
                    trained_on=[f"{FILE} (earliest 80% by date, every game)"], plies=len(data),
                    notes=f"{MODELS[args.model][3]}; held out: latest 20% by date; " + (
                        f"from the weights of {args.init.name}, all fitted jointly ({args.iterations} iterations, "
                        f"lr {args.lr}, l2 {args.l2})" if args.model == 4 else
                        f"the weights of {args.init.name} kept, {new_ones} fitted alone ({args.iterations} iterations, "
                        f"lr 0.1, l2 {args.l2})" + (f", then all of them ({args.joint} iterations, lr {args.lr})"
                                                    if args.joint else "")))
        if args.model < 5:  # model 5 reads model 3's book (the same games, the same rows)
            body = json.loads(out.read_text(encoding="utf-8"))
            body["book"] = book_rows(book)
            out.write_text(json.dumps(body, separators=(",", ":")) + "\n", encoding="utf-8")

    save(fitted_weights(save if args.model == 4 else None))
    print(f"wrote {out}")


def evaluate(data_dir: Path = DATA) -> None:
    """Payload bits a ply of every released model on the held-out games (what a container stores)."""
    _, held = split(data_dir)
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
    parser.add_argument("--joint", type=int, default=0,
                        help="model 3: then fit all the weights this many iterations (--lr, --l2)")
    parser.add_argument("--cache", type=Path, help="keep the collected plies in this pickle, read it when there")
    parser.add_argument("--tune-book", action="store_true",
                        help="models 3-5: read every training game's openings with the book of the earliest 7/8 "
                             "(--tune's; each of those games counted out of it), as model 5 was fitted")
    parser.add_argument("--out", type=Path, help="models 3-5: write the weights here, not to the shipped file")
    parser.add_argument("--data", type=Path, default=DATA, help="the folder of the MiGs file (a worktree's is elsewhere)")
    args = parser.parse_args()
    if args.evaluate:
        evaluate(args.data)
        return
    n_features, features, every, notes = MODELS[args.model]
    start = time.time()
    train, _ = split(args.data)
    if args.model >= 3:
        fit_model_3(args, train)
        return
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
