"""The work the public verbs do a ply, for counting instructions under callgrind (a busy machine's wall clock is
noise): the first N games of a file, each encoded (``plybits.encode(game, "rank", record=..., fidelity="moves")``)
and decoded (``plybits.decode``), once to warm up (weights loaded, tables made, lazy imports done), then PASSES
times. ``(Ir(2) - Ir(1)) / plies`` is one encode plus one decode a ply, what ``encode`` writes:

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.P .venv/bin/python \\
        -m bench.verb_instructions GAME FILE N P

with ``P`` each of 1 and 2 (BENCHMARKS.md has the figures; the plies of one pass go to stderr).
"""

from __future__ import annotations

import sys
from pathlib import Path

import plybits
from plybits.registry import get_game


def main(argv: list[str] | None = None) -> int:
    """Run the passes; the plies of one pass."""
    game, path, count, passes = argv if argv is not None else sys.argv[1:]
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    records = list(get_game(game).split_records(text))[:int(count)]
    plies = 0
    for done in range(int(passes) + 1):  # pass 0 warms up
        for record in records:
            decoded = plybits.decode(plybits.encode(game, "rank", record=record, fidelity="moves").data)
            if done == 1:
                plies += len(decoded.moves)
    print(f"{game}: {len(records)} games, {plies} plies a pass", file=sys.stderr)
    return plies


if __name__ == "__main__":
    main()
