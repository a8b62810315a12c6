"""Fit chess/rank model 1 on the TRAIN split and write codecs/plybits/chess/rank_model_v1.json.

Split (docs/rank.md): train on ../shared/data/chess/twic0920.pgn (TWIC issue 920, 2012 opens);
everything reported as held-out is measured on carlsen_otb.pgn, which this script never reads.

    .venv/bin/python -m tools.train_chess [--iterations 250]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from plybits.chess.rank import N_FEATURES, canonical_moves, move_features
from plybits.registry import get_game
from tools.rank_fit import collect, fit, read_games, write_model

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "chess"
TRAIN_FILES = ("twic0920.pgn",)
OUT = ROOT / "codecs" / "plybits" / "chess" / "rank_model_v1.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=250)
    args = parser.parse_args()
    start = time.time()
    game = get_game("chess")
    records = read_games("chess", [DATA / name for name in TRAIN_FILES])
    data = collect(((game.position(s), m) for _, s, m in records), canonical_moves, move_features, skip_last=True)
    print(f"{len(data)} plies, {len(data.ids)} feature hits, {N_FEATURES} features ({time.time() - start:.0f}s)")

    def save(weights: list[int]) -> None:
        write_model(OUT, game="chess", version=1, weights=weights, n_features=N_FEATURES, trained_on=TRAIN_FILES,
                    plies=len(data), notes="log-linear over plybits.chess.rank.move_features; held out: carlsen_otb.pgn")

    save(fit(data, N_FEATURES, iterations=args.iterations, checkpoint=save))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
