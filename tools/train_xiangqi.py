"""Fit xiangqi/rank model 1 on the TRAIN split and write codecs/plybits/xiangqi/rank_model_v1.json.

Split (docs/rank.md): train on ../shared/data/xiangqi/Hu_Ronghua_1391_UCI_games.pgn; the held-out
set is Liu_Dahua_1125_UCI_games.pgn without the games whose move sequence also appears in the
training file (the two files share the Hu-Liu games).

    .venv/bin/python -m tools.train_xiangqi [--iterations 300]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from plybits.registry import get_game
from plybits.xiangqi.rank import N_FEATURES, canonical_moves, move_features
from tools.rank_fit import collect, fit, read_games, write_model

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "xiangqi"
TRAIN_FILE = "Hu_Ronghua_1391_UCI_games.pgn"
TEST_FILE = "Liu_Dahua_1125_UCI_games.pgn"
OUT = ROOT / "codecs" / "plybits" / "xiangqi" / "rank_model_v1.json"


def split(data_dir: Path = DATA) -> tuple[list, list]:
    """(train, held out): the Hu Ronghua file, and the Liu Dahua games not also in it."""
    train = read_games("xiangqi", [data_dir / TRAIN_FILE])
    seen = {tuple(m.iccs() for m in moves) for _, _, moves in train}
    test = [r for r in read_games("xiangqi", [data_dir / TEST_FILE]) if tuple(m.iccs() for m in r[2]) not in seen]
    return train, test


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=300)
    args = parser.parse_args()
    start = time.time()
    train, test = split()
    game = get_game("xiangqi")
    data = collect(((game.position(s), m) for _, s, m in train), canonical_moves, move_features)
    print(f"{len(train)} games ({len(test)} held out), {len(data)} plies, {N_FEATURES} features ({time.time() - start:.0f}s)")

    def save(weights: list[int]) -> None:
        write_model(OUT, game="xiangqi", version=1, weights=weights, n_features=N_FEATURES, trained_on=[TRAIN_FILE],
                    plies=len(data),
                    notes="log-linear over plybits.xiangqi.rank.move_features; held out: " + TEST_FILE + " minus shared games")

    save(fit(data, N_FEATURES, iterations=args.iterations, checkpoint=save))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
