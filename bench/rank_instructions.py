"""The work a chess ``rank`` model does a ply, for counting instructions under callgrind (a busy machine's wall clock
is noise): every 60th held-out Carlsen game from the 31st (30 games, 2,804 plies), each encoded and decoded under
model ``V``; ``none`` reads and replays the same games only, and warms every model up the same way (weights loaded,
tables made on two other games), so that ``(Ir(V) - Ir(none)) / plies`` is model ``V``'s cost a ply (one encode
and one decode):

    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.V .venv/bin/python -m bench.rank_instructions V

with ``V`` each of ``none`` and the readable versions (docs/rank.md has the figures).
"""

from __future__ import annotations

import sys

from plybits.records import read_record
from plybits.registry import get_game, get_scheme

from bench.rank import DATA


def main(argv: list[str] | None = None) -> None:
    mode = (argv if argv is not None else sys.argv[1:] or ["none"])[0]
    game = get_game("chess")
    rank = get_scheme("chess", "rank")
    chunks = list(game.split_records((DATA / "chess" / "carlsen_otb.pgn").read_text(encoding="utf-8", errors="replace")))
    replayed = [read_record("chess", record=chunk) for chunk in chunks[:2] + chunks[30::60]]
    games = [(r.start, r.moves) for r in replayed]
    for version in rank.readable_versions:  # the same warm-up in every mode
        for start, moves in games[:2]:
            payload = rank.encode_version(game.position(start), moves, version).tobytes()
            rank.decode(game.position(start), payload, len(moves), version)
    if mode != "none":
        version = int(mode)
        for start, moves in games[2:]:
            payload = rank.encode_version(game.position(start), moves, version).tobytes()
            if rank.decode(game.position(start), payload, len(moves), version) != moves:
                raise SystemExit(f"model {version} did not decode a game back")
    print(f"mode {mode}: {len(games) - 2} games, {sum(len(m) for _, m in games[2:])} plies")


if __name__ == "__main__":
    main()
