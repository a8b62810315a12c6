"""Fit xiangqi/rank model 2 on the TRAIN split and write codecs/plybits/xiangqi/rank_model_v2.json.

Split (docs/rank.md): train on ../shared/data/xiangqi/Hu_Ronghua_1391_UCI_games.pgn; the held-out
set is Liu_Dahua_1125_UCI_games.pgn without the games whose move sequence also appears in the
training file (the two files share the Hu-Liu games). ``--tune`` fits on the training file minus every
8th game and reports those (the tuning set, carved from the training side); ``--evaluate`` reports model 1
and the shipped model 2 on the held-out set, coding each game (payload bits a ply).

The opening book is the training games' first BOOK_DEPTH plies; while a game's features are collected its own
plies are taken out of the book (leave-one-out), so the book's weights are fitted on counts that, like a new
game's, never include the game itself.

    .venv/bin/python -m tools.train_xiangqi [--iterations 200] [--tune] [--evaluate]
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # run as the tool; imported (a test reads its split), the environment is left alone
    os.environ.setdefault("PLYBITS_PURE", "1")  # features are read back under big-integer indicator weights

import argparse
import math
import time
from pathlib import Path

from plybits.openingbook import BOOK_DEPTH, Book, add_to_book, book_rows
from plybits.rank import indicator_weights
from plybits.registry import get_game, get_scheme
from plybits.xiangqi.rankmodel2 import N_FEATURES, LinearXiangqiModel2, position_key
from plybits.xiangqi.board import occupied_cells
from plybits.xiangqi.rank import move_key
from tools.rank_fit import PlySet, fit, read_games, write_model

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "xiangqi"
TRAIN_FILE = "Hu_Ronghua_1391_UCI_games.pgn"
TEST_FILE = "Liu_Dahua_1125_UCI_games.pgn"
OUT = ROOT / "codecs" / "plybits" / "xiangqi" / "rank_model_v2.json"
TUNE_EVERY = 8


def split(data_dir: Path = DATA) -> tuple[list, list]:
    """(train, held out): the Hu Ronghua file, and the Liu Dahua games not also in it."""
    train = read_games("xiangqi", [data_dir / TRAIN_FILE])
    seen = {tuple(m.iccs() for m in moves) for _, _, moves in train}
    test = [r for r in read_games("xiangqi", [data_dir / TEST_FILE]) if tuple(m.iccs() for m in r[2]) not in seen]
    return train, test


def book_plies(start: str | None, moves: list) -> list[tuple[int, int]]:
    """(position key, book move key) of a game's first BOOK_DEPTH plies."""
    position = get_game("xiangqi").position(start)
    out = []
    for move in moves[:BOOK_DEPTH]:
        out.append((position_key(position.cells, position.turn, occupied_cells(position.cells)), move_key(move)))
        position.push(move)
    return out


def build_book(games: list) -> Book:
    book: Book = {}
    for _, start, moves in games:
        add_to_book(book, book_plies(start, moves), 1)
    return book


def collect(games: list, book: Book, leave_one_out: bool) -> PlySet:
    """The plies of ``games`` with model 2's features (each game taken out of ``book`` while it is read if
    ``leave_one_out``)."""
    indicator = LinearXiangqiModel2("rank_model_v2.json", 2)
    indicator._weights = indicator_weights(N_FEATURES)
    indicator.book = book
    data = PlySet()
    game = get_game("xiangqi")
    for _, start, moves in games:
        own = book_plies(start, moves) if leave_one_out else []
        add_to_book(book, own, -1)
        position = game.position(start)
        history: list = []
        for move in moves:
            candidates, scores = indicator.scored(position, history)
            if scores is not None:
                data.add(read_back(scores), candidates.index(move))
            position.push(move)
            history.append(move)
        add_to_book(book, own, 1)
    return data


def read_back(scores: list[int]) -> list[list[int]]:
    """Each move's feature ids (with repeats) from its score under indicator weights: what
    :func:`plybits.rank.indicated_features` reads, for a whole ply at once."""
    import numpy as np

    width = -(-N_FEATURES // 8) * 8
    counts = np.frombuffer(b"".join(s.to_bytes(width, "little") for s in scores), dtype=np.uint8)
    words = np.flatnonzero(counts.view("<u8"))  # 8 features a word: few are not zero
    blocks = counts.reshape(-1, 8)[words]
    at, byte = blocks.nonzero()
    position = words[at] * 8 + byte
    repeats = blocks[at, byte]
    out: list[list[int]] = [[] for _ in scores]
    for p, r in zip(position.tolist(), repeats.tolist()):
        row, feature = divmod(p, width)
        out[row].extend([feature] * r)
    return out


def log_loss(data: PlySet, weights: list[int]) -> float:
    """Bits a ply of ``data`` under integer ``weights`` (the softmax in floats: the coder adds ~0.01)."""
    import numpy as np

    w = np.asarray(weights, dtype=np.float64) / 32.0
    ids = np.frombuffer(data.ids, dtype=np.int32)
    per_move = np.frombuffer(data.per_move, dtype=np.int32)
    per_ply = np.frombuffer(data.per_ply, dtype=np.int32)
    scores = np.bincount(np.repeat(np.arange(len(per_move)), per_move), weights=w[ids], minlength=len(per_move))
    first = np.concatenate([[0], np.cumsum(per_ply)[:-1]])
    top = np.maximum.reduceat(scores, first)
    z = np.add.reduceat(np.exp2(scores - np.repeat(top, per_ply)), first)
    played = scores[first + np.frombuffer(data.played, dtype=np.int32)] - top
    return float((np.log2(z) - played).sum() / len(per_ply))


def coded_bits(games: list, version: int) -> tuple[float, int]:
    """(payload bits a ply, plies) of coding ``games`` with the shipped model ``version``."""
    game = get_game("xiangqi")
    rank = get_scheme("xiangqi", "rank")
    bits = plies = 0
    for _, start, moves in games:
        bits += len(rank.encode_version(game.position(start), moves, version).tobytes()) * 8
        plies += len(moves)
    return bits / plies, plies


def cached(folder: Path | None, name: str, make) -> PlySet:
    """``make()``, kept in ``folder`` under ``name`` (a development shortcut: delete the folder when features change)."""
    import pickle

    if folder is None:
        return make()
    path = folder / f"{name}.pickle"
    if path.exists():
        return pickle.loads(path.read_bytes())
    data = make()
    folder.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(data))
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--tune", action="store_true", help="fit without every 8th training game, report those")
    parser.add_argument("--cache", type=Path, help="keep the collected plies in this folder (re-fits skip collecting)")
    parser.add_argument("--evaluate", action="store_true", help="report the held-out set with models 1 and 2")
    args = parser.parse_args()
    start = time.time()
    train, test = split()
    if args.evaluate:
        for version in (1, 2):
            bits, plies = coded_bits(test, version)
            print(f"held out ({len(test)} Liu Dahua games, {plies} plies): model {version} {bits:.3f} bits a ply")
        return
    tuning = train[::TUNE_EVERY] if args.tune else []
    fitted = [g for i, g in enumerate(train) if not (args.tune and i % TUNE_EVERY == 0)]
    book = build_book(fitted)
    data = cached(args.cache, "tune-fit" if args.tune else "fit", lambda: collect(fitted, book, leave_one_out=True))
    print(f"{len(fitted)} games, {len(data)} plies, {N_FEATURES} features, book of {len(book_rows(book))} positions "
          f"({time.time() - start:.0f}s)", flush=True)
    weights = fit(data, N_FEATURES, iterations=args.iterations, l2=args.l2)
    if args.tune:
        check = cached(args.cache, "tune-check", lambda: collect(tuning, book, leave_one_out=False))
        print(f"tuning set ({len(tuning)} games of the training file, {len(check)} unforced plies): "
              f"{log_loss(check, weights):.4f} bits a ply ({time.time() - start:.0f}s)")
        return
    write_model(OUT, game="xiangqi", version=2, weights=weights, n_features=N_FEATURES, trained_on=[TRAIN_FILE],
                plies=len(data), notes="log-linear over plybits.xiangqi.rankmodel2 features with an opening book of "
                f"the first {BOOK_DEPTH} plies; held out: {TEST_FILE} minus shared games")
    body = OUT.read_text(encoding="utf-8")
    import json

    shipped = json.loads(body)
    shipped["book"] = book_rows(book)
    OUT.write_text(json.dumps(shipped, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({time.time() - start:.0f}s)")


if __name__ == "__main__":
    main()
