"""Fit chess/rank model 2 on the TRAIN split and write codecs/plybits/chess/rank_model_v2.json (weights and book).

Split (docs/rank.md): train on ../shared/data/chess/twic0920.pgn (TWIC issue 920, 2012 opens),
chesscom/chesscom_kyle_b81_2021.pgn (one chess.com player's games) and
clocks/lichess_db_standard_rated_2021-10_first999.pgn (999 lichess games of many players). Held out: carlsen_otb.pgn
(Carlsen over the board) and the pnmadelaine files (chesscom/ and clocks/: another online player), read here only to
leave out of training and of the book any game also in them (same moves and players: none is). Model 1
(rank_model_v1.json, twic0920.pgn only) is released and never refitted.

The opening book counts the first BOOK_DEPTH plies of every training game; each game is counted out of it while its
own features are read (leave-one-out), so the book's weights are fitted on counts that never include the game
scored. The features are read back from the model's scorer (``LinearModel.features``): run it pure
(``PLYBITS_PURE=1``), where one pass reads them all (~2 ms a ply). The shipped rank_model_v2.json was fitted on every
3rd game of each tenth (``--game-share 3``: 102,072 plies, validation 11,419) from the weights of the unreleased
session-10 model 2 (its own features mapped, new ones at 0): 40 steps with four more feature blocks (an escape,
the last-moved piece attacking the target, moving back, the recent kinds: together 0.003 bits a ply on validation),
which were then dropped for speed and the rest refitted 30 steps on the same plies: validation 3.202 bits a ply,
model 1's weights 3.443.

``--ablate STEPS`` writes nothing: it prints what each feature group of model 2 (``GROUPS``) is worth on the
validation plies, model 2 refitted STEPS steps from its shipped weights without the group against the same refit with
all of them (docs/rank.md, "Chess model 2's feature groups: cost and worth").

``--staged STEPS`` writes nothing: it prints what a staged model made for speed would cost on the validation plies
(``tools.chess_staged``: a cheap score for every move, model 2's full score only for a few; docs/rank.md, "A chess model
made for speed: staged coding, measured"), each stage fitted STEPS steps.

    PLYBITS_PURE=1 .venv/bin/python -m tools.train_chess [--iterations 60] [--workers 2] [--game-share K]
        [--init FILE] [--cache FILE] [--ablate STEPS] [--staged STEPS [--cheap-set NAME] [--k K ...] [--q Q ...]]
"""

from __future__ import annotations

import argparse
import json
import pickle
import time
from functools import cache
from multiprocessing import Pool
from pathlib import Path

from plybits.chess import rank, rankmodel2
from plybits.chess.rank import canonical_moves
from plybits.chess.rankmodel2 import MODEL_2, N_FEATURES_2, position_key
from plybits.chess.squares import move_code
from plybits.registry import get_game
from plybits.openingbook import BOOK_DEPTH, Book, add_to_book, book_rows
from tools import chess_staged
from tools.rank_fit import PlySet, collect, fit, read_games, write_model

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "chess"
TRAIN_FILES = ("twic0920.pgn", "chesscom/chesscom_kyle_b81_2021.pgn",
               "clocks/lichess_db_standard_rated_2021-10_first999.pgn")
HELD_OUT_FILES = ("carlsen_otb.pgn", "chesscom/chesscom_pnmadelaine_2021-11_to_2024-03.pgn",
                  "clocks/lichess_pnmadelaine_2024-03-30.pgn")
"""What bench.rank reports; never read here."""
MODEL_DIR = ROOT / "codecs" / "plybits" / "chess"
OUT = MODEL_DIR / "rank_model_v2.json"


VALIDATION = 9
"""Games ``k`` with ``k % 10 == VALIDATION`` of the training files are left out of the fit and only scored, for
choosing the features and iterations (the held-out files are never read)."""


def _game_key(tags: dict[str, str], moves: list[object]) -> tuple[object, ...]:
    """A game's identity for deduplication: its moves and its players' surnames (what precedes a comma, lower case:
    TWIC writes "Carlsen,M" where the Carlsen file writes "Carlsen,Magnus")."""
    players = tuple(tags.get(side, "").split(",")[0].strip().lower() for side in ("White", "Black"))
    return players, tuple(moves)


@cache
def held_out_keys() -> frozenset[tuple[object, ...]]:
    """:func:`_game_key` of every held-out game (read only to keep them out of training)."""
    return frozenset(_game_key(tags, moves) for tags, _, moves in read_games("chess", [DATA / n for n in HELD_OUT_FILES]))


@cache
def _all_records(name: str) -> list[tuple[dict[str, str], str | None, list[object]]]:
    """Every game of a training file, read once a process."""
    return read_games("chess", [DATA / name])


@cache
def _records(name: str) -> list[tuple[dict[str, str], str | None, list[object]]]:
    """Every game of a training file that is not also a held-out game (by moves and players)."""
    held_out = held_out_keys()
    return [r for r in _all_records(name) if _game_key(r[0], r[2]) not in held_out]


def book_plies(start: str | None, moves: list[object]) -> list[tuple[int, int]]:
    """(position key, move code) of a game's first :data:`BOOK_DEPTH` plies."""
    position = get_game("chess").position(start)
    out = []
    for move in moves[:BOOK_DEPTH]:
        out.append((position_key(position), move_code(move)))  # type: ignore[arg-type]
        position.push(move)
    return out


def build_book() -> Book:
    """The opening book of every training game (fitted and validation)."""
    book: Book = {}
    for name in TRAIN_FILES:
        for _, start, moves in _records(name):
            add_to_book(book, book_plies(start, moves), 1)
    return book


_BOOK: Book = {}
"""The training games' opening book in a worker process (set by :func:`_use_book`)."""


def _use_book(book: Book) -> None:
    """Score with ``book`` as model 2's opening book (in this process)."""
    global _BOOK
    _BOOK = book
    rankmodel2._BOOKS[MODEL_2.filename] = rankmodel2.pack_book(book)


def _count(plies: list[tuple[int, int]], sign: int) -> None:
    """Count a game's ``plies`` into the opening book (``sign`` 1) or out of it (-1), the packed one alike."""
    add_to_book(_BOOK, plies, sign)
    rankmodel2.pack_book(_BOOK, {key for key, _ in plies}, rankmodel2._BOOKS[MODEL_2.filename])


def _collect_share(job: tuple[str, int, int]) -> PlySet:
    """The plies of every ``step``-th game from the ``first`` of one file, each game counted out of the book while
    its own plies are read (leave-one-out: the book's counts never include the game scored, as for a new game)."""
    name, first, step = job  # step: 10 times the --game-share
    game = get_game("chess")
    data = PlySet()
    for _, start, moves in _records(name)[first::step]:
        own = book_plies(start, moves)
        _count(own, -1)
        part = collect([(game.position(start), moves)], canonical_moves, MODEL_2.features, skip_last=True)
        _count(own, 1)
        data.ids.extend(part.ids)
        data.per_move.extend(part.per_move)
        data.per_ply.extend(part.per_ply)
        data.played.extend(part.played)
    return data


def training_plies(workers: int, cache: Path | None, book: Book, game_share: int = 1) -> tuple[PlySet, PlySet]:
    """(the fitted plies, the validation plies) of every ``game_share``-th game of the training files, collected by
    ``workers`` processes under the opening ``book`` (kept in ``cache`` if given)."""
    if cache is not None and cache.exists():
        kept: tuple[PlySet, PlySet] = pickle.loads(cache.read_bytes())
        return kept
    jobs = [(name, k, 10 * game_share) for name in TRAIN_FILES for k in range(10)]
    with Pool(workers, initializer=_use_book, initargs=(book,)) as pool:
        parts = pool.map(_collect_share, jobs, chunksize=5)
    data, validation = PlySet(), PlySet()
    for (_, k, _), part in zip(jobs, parts):  # game k + 10 * game_share * j: validation iff k == VALIDATION
        into = validation if k == VALIDATION else data
        into.ids.extend(part.ids)
        into.per_move.extend(part.per_move)
        into.per_ply.extend(part.per_ply)
        into.played.extend(part.played)
    if cache is not None:
        cache.write_bytes(pickle.dumps((data, validation)))
    return data, validation


def every_kth_ply(data: PlySet, k: int) -> PlySet:
    """Every ``k``-th ply of ``data``."""
    out = PlySet()
    move = hit = 0
    for ply, moves in enumerate(data.per_ply):
        end_move = move + moves
        end_hit = hit + sum(data.per_move[move:end_move])
        if ply % k == 0:
            out.ids.extend(data.ids[hit:end_hit])
            out.per_move.extend(data.per_move[move:end_move])
            out.per_ply.append(moves)
            out.played.append(data.played[ply])
        move, hit = end_move, end_hit
    return out


def bits_per_ply(data: PlySet, weights: list[int]) -> float:
    """The model's mean cost of the played moves of ``data`` in bits (float softmax of the integer weights)."""
    import numpy as np

    ids = np.frombuffer(data.ids, dtype=np.int32)
    per_move = np.frombuffer(data.per_move, dtype=np.int32)
    per_ply = np.frombuffer(data.per_ply, dtype=np.int32)
    w = np.array(weights, dtype=float) / 32.0
    scores = np.bincount(np.repeat(np.arange(len(per_move)), per_move), weights=w[ids], minlength=len(per_move))
    first = np.concatenate([[0], np.cumsum(per_ply)[:-1]])
    top = np.maximum.reduceat(scores, first)
    z = np.add.reduceat(np.exp2(scores - np.repeat(top, per_ply)), first)
    played = scores[first + np.frombuffer(data.played, dtype=np.int32)] - top
    return float((np.log2(z) - played).mean())


GROUPS: dict[str, tuple[tuple[int, int], ...]] = {
    "piece-square (F_TO, F_FROM)": ((rank.F_TO, 7 * 64), (rank.F_FROM, 7 * 64)),
    "phase by kind (F_PHASE)": ((rank.F_PHASE, 4 * 7),),
    "target rank by phase (G_PHASE_RANK)": ((rankmodel2.G_PHASE_RANK, 4 * 8 * 7),),
    "slide length, pawn double step": ((rank.F_SLIDE, 7 * 8), (rank.F_PAWN_DOUBLE, 1)),
    "capture, hanging victim (F_CAPTURE, F_HANGING_VICTIM)": ((rank.F_CAPTURE, 7 * 7), (rank.F_HANGING_VICTIM, 7)),
    "guarded capture (G_CAPTURE_GUARDED)": ((rankmodel2.G_CAPTURE_GUARDED, 7 * 7),),
    "target safety (F_SAFETY)": ((rank.F_SAFETY, 2 * 3 * 3 * 7),),
    "origin threat, evasion, origin safety": ((rank.F_FROM_THREAT, 3 * 7), (rank.F_EVASION, 7),
                                              (rankmodel2.G_FROM_SAFETY, 3 * 3 * 7)),
    "origin safety (G_FROM_SAFETY)": ((rankmodel2.G_FROM_SAFETY, 3 * 3 * 7),),
    "direct check (F_CHECK)": ((rank.F_CHECK, 7),),
    "next to the enemy king (F_KING_ZONE)": ((rank.F_KING_ZONE, 7),),
    "promotion (F_PROMOTION)": ((rank.F_PROMOTION, 7),),
    "en passant (F_EN_PASSANT)": ((rank.F_EN_PASSANT, 1),),
    "castling (F_CASTLE)": ((rank.F_CASTLE, 2),),
    "recapture, takes the last-moved piece": ((rank.F_RECAPTURE, 7), (rank.F_TAKES_LAST, 7)),
    "moves again its last-moved piece (F_SAME_PIECE)": ((rank.F_SAME_PIECE, 7),),
    "gives up castling (F_LOSES_CASTLING)": ((rank.F_LOSES_CASTLING, 1),),
    "last-moved piece attacks the origin (G_LAST_ATTACKS)": ((rankmodel2.G_LAST_ATTACKS, 2 * 7),),
    "distance to the last target (G_NEAR_LAST)": ((rankmodel2.G_NEAR_LAST, 8 * 7),),
    "opening book (G_BOOK)": ((rankmodel2.G_BOOK, 6 * 8),),
    "every group model 2 adds to model 1": (
        (rankmodel2.G_FROM_SAFETY, 3 * 3 * 7), (rankmodel2.G_LAST_ATTACKS, 2 * 7), (rankmodel2.G_NEAR_LAST, 8 * 7),
        (rankmodel2.G_CAPTURE_GUARDED, 7 * 7), (rankmodel2.G_PHASE_RANK, 4 * 8 * 7), (rankmodel2.G_BOOK, 6 * 8)),
    "the four of least worth a cost (G_LAST_ATTACKS, F_SAME_PIECE, F_LOSES_CASTLING, G_NEAR_LAST)": (
        (rankmodel2.G_LAST_ATTACKS, 2 * 7), (rank.F_SAME_PIECE, 7), (rank.F_LOSES_CASTLING, 1),
        (rankmodel2.G_NEAR_LAST, 8 * 7)),
}
"""Model 2's feature groups (feature id ranges ``(first, count)``) that ``--ablate`` refits without, one at a time."""


def without(data: PlySet, ranges: tuple[tuple[int, int], ...]) -> PlySet:
    """``data`` with the feature ids of ``ranges`` taken out of every move (the plies and played moves kept)."""
    import numpy as np

    ids = np.frombuffer(data.ids, dtype=np.int32)
    per_move = np.frombuffer(data.per_move, dtype=np.int32)
    keep = np.ones(len(ids), dtype=bool)
    for first, count in ranges:
        keep &= (ids < first) | (ids >= first + count)
    move_of_id = np.repeat(np.arange(len(per_move)), per_move)
    out = PlySet()
    out.ids.frombytes(ids[keep].astype(np.int32).tobytes())
    out.per_move.frombytes(np.bincount(move_of_id[keep], minlength=len(per_move)).astype(np.int32).tobytes())
    out.per_ply.extend(data.per_ply)
    out.played.extend(data.played)
    return out


def ablate(data: PlySet, validation: PlySet, iterations: int) -> None:
    """Print, for each of :data:`GROUPS`, the validation bits a ply it is worth: model 2 refitted ``iterations`` steps
    from its shipped weights without the group, against the same refit with every group (nothing written)."""
    shipped = json.loads(OUT.read_text(encoding="utf-8"))["weights"]
    control = bits_per_ply(validation, fit(data, N_FEATURES_2, iterations=iterations, init=shipped, log=False))
    print(f"validation: shipped model 2 {bits_per_ply(validation, shipped):.4f}, refitted {iterations} steps "
          f"{control:.4f} bits a ply; each group's worth (refitted without it, minus that):", flush=True)
    for name, ranges in GROUPS.items():
        init = list(shipped)
        for first, count in ranges:
            init[first:first + count] = [0] * count
        weights = fit(without(data, ranges), N_FEATURES_2, iterations=iterations, init=init, log=False)
        print(f"  {bits_per_ply(without(validation, ranges), weights) - control:+.4f}  {name}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=None, help="keep the collected plies in this file")
    parser.add_argument("--ply-share", type=int, default=1, help="fit every K-th collected ply (a shorter fit)")
    parser.add_argument("--game-share", type=int, default=1, help="read every K-th game of each tenth (a shorter run)")
    parser.add_argument("--ablate", type=int, default=0, metavar="STEPS", help="write nothing: print each feature "
                        "group's worth on validation (model 2 refitted STEPS steps without it)")
    parser.add_argument("--staged", type=int, default=0, metavar="STEPS", help="write nothing: print the staged "
                        "designs' bits a ply and full scores a ply on validation (each stage fitted STEPS steps)")
    parser.add_argument("--cheap-set", action="append", choices=sorted(chess_staged.CHEAP_SETS), default=None,
                        help="the cheap score's feature groups (repeatable; default: both)")
    parser.add_argument("--k", type=int, action="append", default=None, help="a set size K (default: 4 6 8 12)")
    parser.add_argument("--q", type=float, action="append", default=None, help="a cheap mass q (default: 0.9 0.95)")
    parser.add_argument("--init", type=Path, default=None, help="start from this data file's weights (default: "
                        "model 1's, the new features at 0)")
    args = parser.parse_args()
    start = time.time()
    book = build_book()
    dropped = {name: len(_all_records(name)) - len(_records(name)) for name in TRAIN_FILES}
    print(f"left out as held-out games (same moves and players): {dropped}; book of {len(book_rows(book))} positions "
          f"({time.time() - start:.0f}s)", flush=True)
    data, validation = training_plies(args.workers, args.cache, book, args.game_share)
    if args.ply_share > 1:
        data = every_kth_ply(data, args.ply_share)
    print(f"{len(data)} plies, {len(data.ids)} feature hits, {N_FEATURES_2} features, {len(validation)} validation "
          f"plies ({time.time() - start:.0f}s)")
    if args.ablate:
        ablate(data, validation, args.ablate)
        return
    if args.staged:
        chess_staged.study(data, validation, args.staged, args.cheap_set or list(chess_staged.CHEAP_SETS),
                           args.k or [4, 6, 8, 12], args.q or [0.9, 0.95])
        return
    model_1 = json.loads((MODEL_DIR / "rank_model_v1.json").read_text(encoding="utf-8"))["weights"]
    print(f"validation: model 1's weights {bits_per_ply(validation, model_1 + [0] * (N_FEATURES_2 - len(model_1))):.4f}"
          " bits a ply")

    def save(weights: list[int]) -> None:
        write_model(OUT, game="chess", version=2, weights=weights, n_features=N_FEATURES_2, trained_on=TRAIN_FILES,
                    plies=len(data), notes="log-linear over plybits.chess.rankmodel2 (model 1's features and its "
                    "own) with an opening book of the training games' first plies; held out: "
                    + ", ".join(HELD_OUT_FILES))
        shipped = json.loads(OUT.read_text(encoding="utf-8"))
        shipped["book"] = book_rows(book)
        OUT.write_text(json.dumps(shipped, separators=(",", ":")) + "\n", encoding="utf-8")

    init = model_1 + [0] * (N_FEATURES_2 - len(model_1))
    if args.init is not None:
        init = json.loads(args.init.read_text(encoding="utf-8"))["weights"]
        print(f"validation: the --init weights {bits_per_ply(validation, init):.4f} bits a ply", flush=True)
    weights = fit(data, N_FEATURES_2, iterations=args.iterations, checkpoint=save, init=init)
    save(weights)
    print(f"validation: model 2 {bits_per_ply(validation, weights):.4f} bits a ply; wrote {OUT}")


if __name__ == "__main__":
    main()
