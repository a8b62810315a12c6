"""The work the public verbs do a ply, for counting instructions under callgrind (a busy machine's wall clock is
noise): the first N games of a file, each encoded (``plybits.encode(game, "rank", record=..., fidelity="moves")``)
and decoded (``plybits.decode``), once to warm up (weights loaded, tables made, lazy imports done), then PASSES
times. ``(Ir(2) - Ir(1)) / plies`` is one encode plus one decode a ply, what ``encode`` writes:

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.P .venv/bin/python \\
        -m bench.verb_instructions GAME FILE N P

with ``P`` each of 1 and 2 (BENCHMARKS.md has the figures; the plies of one pass go to stderr). A fifth argument
``moves`` codes each game's UCI moves alone instead (``encode(game, "rank", moves=..., notation="uci")``, no tags)
and decodes them to UCI: bench.speed's moves-only row; a sixth, ``san``, decodes them to SAN instead (its
decode-to-SAN row).
"""

from __future__ import annotations

import sys
from pathlib import Path

import plybits
from plybits.registry import get_game


def main(argv: list[str] | None = None) -> int:
    """Run the passes; the plies of one pass."""
    game, path, count, passes, *what = argv if argv is not None else sys.argv[1:]
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    records = list(get_game(game).split_records(text))[:int(count)]
    if what not in ([], ["moves"], ["moves", "san"]):
        raise SystemExit(f"after PASSES: nothing, 'moves' or 'moves san', not {' '.join(what)!r}")
    moves_only = bool(what)
    written = "san" if what[1:] == ["san"] else "uci"
    games = [plybits.decode(plybits.encode(game, "rank", record=r).data, notation="uci").moves if moves_only else []
             for r in records]
    plies = 0
    for done in range(int(passes) + 1):  # pass 0 warms up
        for record, moves in zip(records, games):
            if moves_only:
                data = plybits.encode(game, "rank", moves=moves, notation="uci").data
                decoded = plybits.decode(data, notation=written)
            else:
                decoded = plybits.decode(plybits.encode(game, "rank", record=record, fidelity="moves").data)
            if done == 1:
                plies += len(decoded.moves)
    print(f"{game}: {len(records)} games, {plies} plies a pass", file=sys.stderr)
    return plies


if __name__ == "__main__":
    main()
