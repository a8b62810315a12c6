"""Fit abalone/rank model 1 on the TRAIN split and write codecs/plybits/abalone/rank_model_v1.json.

Split (docs/rank.md): the games of ../shared/data/abalone/migs-2016-2017.train.apgn ordered by
(Date, Event); the earliest 80 % train, the latest 20 % are held out (bench/rank.py reports them).

    .venv/bin/python -m tools.train_abalone [--iterations 300]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from plybits.abalone.rank import N_FEATURES, canonical_moves, move_features
from plybits.registry import get_game
from tools.rank_fit import collect, fit, read_games, write_model

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "abalone"
FILE = "migs-2016-2017.train.apgn"
TRAIN_SHARE = 0.8
OUT = ROOT / "codecs" / "plybits" / "abalone" / "rank_model_v1.json"


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--every", type=int, default=2, help="train on every K-th training game (time)")
    args = parser.parse_args()
    start = time.time()
    train, _ = split()
    game = get_game("abalone")
    train = train[:: args.every]
    data = collect(((game.position(s), m) for _, s, m in train), canonical_moves, move_features)
    print(f"{len(train)} games, {len(data)} plies, {N_FEATURES} features ({time.time() - start:.0f}s)")

    def save(weights: list[int]) -> None:
        write_model(OUT, game="abalone", version=1, weights=weights, n_features=N_FEATURES,
                    trained_on=[f"{FILE} (earliest 80% by date, every {args.every}th game)"], plies=len(data),
                    notes="log-linear over plybits.abalone.rank.move_features; held out: latest 20% by date")

    save(fit(data, N_FEATURES, iterations=args.iterations, checkpoint=save))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
