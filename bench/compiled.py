"""The compiled build against the pure-Python modules: the public verb ``plybits.decode`` on the same containers.

Run (after ``make compile``): ``.venv/bin/python -m bench.compiled [--games N] [--rounds R]``; prints a markdown
table. Both sides are this tree in a fresh process: one loads the mypyc extension modules, the other the ``.py``
files (PLYBITS_PURE=1). The sides alternate ``--rounds`` times; each timing is the best of three passes over every
container (the worker of :mod:`bench.decode_verb`); the table gives the median and the spread (min-max) of the
rounds. Both sides' decoded moves are checked equal before anything is reported.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
from typing import Any

from bench.decode_verb import DATA, WORKER, first_containers, run_worker
from bench.report import ROOT, load_average
from bench.timing import turns

CASES = {
    "chess/rank": ("chess", "chess/twic0920.pgn", "rank", "uci"),
    "xiangqi/rank": ("xiangqi", "xiangqi/Hu_Ronghua_1391_UCI_games.pgn", "rank", None),
    "abalone/rank": ("abalone", "abalone/migs-2016-2017.train.apgn", "rank", None),
    "chess/0x88": ("chess", "chess/twic0920.pgn", "0x88", "uci"),
}


def containers(games: int) -> dict[str, tuple[list[bytes], str | None]]:
    """Per case, the containers of the first readable games of its collection (``games``, 4x for 0x88)."""
    return {name: (first_containers(game, path, scheme, games * 4 if scheme == "0x88" else games), notation)
            for name, (game, path, scheme, notation) in CASES.items()}


def run_side(pure: bool, payload: str) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """Which modules the worker loaded compiled, and its timings and decoded moves."""
    code = WORKER.replace("json.dump(out, sys.stdout)",
                          "from plybits.compiled import compiled_modules\n"
                          "json.dump({'compiled': compiled_modules(), 'out': out}, sys.stdout)")
    answer = run_worker(f"{ROOT}{os.pathsep}{ROOT / 'codecs'}", payload, {"PLYBITS_PURE": "1" if pure else "0"}, code)
    return answer["compiled"], answer["out"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games of each collection (4x for 0x88)")
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the two sides")
    args = parser.parse_args()
    if not DATA.is_dir():
        raise SystemExit(f"{DATA} is absent: the real collections are needed")
    cases = containers(args.games)
    payload = json.dumps({name: {"blobs": [base64.b64encode(b).decode() for b in blobs], "notation": notation}
                          for name, (blobs, notation) in cases.items()})
    load_start = load_average()
    times: dict[str, dict[str, list[float]]] = {name: {"compiled": [], "pure": []} for name in cases}
    plies = dict.fromkeys(cases, 0)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for turn, side in enumerate(turns(["compiled", "pure"], args.rounds)):
        loaded, results[side] = run_side(side == "pure", payload)
        if (side == "compiled") != bool(loaded):
            raise SystemExit(f"the {side} side loaded compiled modules {loaded}: run `make compile` first")
        for name in cases:
            times[name][side].append(float(results[side][name]["seconds"]))
        if turn % 2 == 0:
            continue
        for name in cases:
            if results["compiled"][name]["moves"] != results["pure"][name]["moves"]:
                raise SystemExit(f"{name}: the compiled and pure modules decode different moves")
            plies[name] = sum(len(m) for m in results["pure"][name]["moves"])
    print(f"plybits.decode, plies/s: median of {args.rounds} alternated rounds (min-max), best of 3 passes each; "
          f"load average {load_start:.1f} -> {load_average():.1f} on 2 shared cores\n")
    print("| case | games | plies | compiled | pure Python | compiled / pure Python |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in cases:
        rate = {side: [plies[name] / t for t in ts] for side, ts in times[name].items()}
        med = {side: statistics.median(r) for side, r in rate.items()}
        print(f"| {name} | {len(cases[name][0]):,} | {plies[name]:,} | "
              f"{med['compiled']:,.0f} ({min(rate['compiled']):,.0f}-{max(rate['compiled']):,.0f}) | "
              f"{med['pure']:,.0f} ({min(rate['pure']):,.0f}-{max(rate['pure']):,.0f}) | "
              f"{med['compiled'] / med['pure']:.2f} |")


if __name__ == "__main__":
    main()
