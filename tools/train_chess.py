"""Fit chess/rank model 1 on the TRAIN split and write codecs/plybits/chess/rank_model_v1.json.

Split (docs/rank.md): train on ../shared/data/chess/twic0920.pgn (TWIC issue 920, 2012 opens);
everything reported as held-out is measured on carlsen_otb.pgn, which this script never reads.

    .venv/bin/python -m tools.train_chess [--iterations 300]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from plybits.chess.rank import N_FEATURES, canonical_moves, move_features
from plybits.registry import get_game
from tools.rank_fit import PlySet, fit, write_model

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "chess"
TRAIN_FILES = ("twic0920.pgn",)
OUT = ROOT / "codecs" / "plybits" / "chess" / "rank_model_v1.json"


def games(path: Path):
    """Each game of a PGN file as (start position, legal moves played)."""
    game = get_game("chess")
    text = path.read_text(encoding="utf-8", errors="replace")
    for chunk in game.split_records(text):
        record = game.parse_record(chunk)
        position = game.position(record.start)
        moves = []
        for token in record.moves:
            move = position.parse_move(token)
            moves.append(move)
            position.push(move)
        yield game.position(record.start), moves


def collect(files) -> PlySet:
    data = PlySet()
    for name in files:
        for position, moves in games(DATA / name):
            history = []
            for move in moves:
                candidates = canonical_moves(position)[:-1]  # the null move is not learned
                if move in candidates:
                    data.add(move_features(position, candidates, history), candidates.index(move))
                position.push(move)
                history.append(move)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=300)
    args = parser.parse_args()
    start = time.time()
    data = collect(TRAIN_FILES)
    print(f"{len(data)} plies, {len(data.ids)} feature hits, {N_FEATURES} features ({time.time() - start:.0f}s)")
    weights = fit(data, N_FEATURES, iterations=args.iterations)
    write_model(OUT, game="chess", version=1, weights=weights, n_features=N_FEATURES, trained_on=TRAIN_FILES,
                plies=len(data), notes="log-linear over plybits.chess.rank.move_features; held out: carlsen_otb.pgn")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
