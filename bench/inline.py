"""How long the library calls the service may run on its event loop take, at the inline limit.

    .venv/bin/python -m bench.inline [--plies 256] [--quick]

For each game, a random legal game of up to ``--plies`` plies (the default of ``PLYBITS_INLINE_PLIES``):
milliseconds of encode (seed scheme), decode, validate, and convert / decode into every notation, best
of three. The figures back docs/service.md ("Where the work runs"); nothing is written.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import plybits
from plybits import registry
from plybits.records import seed_scheme
from bench import timing
from tests.test_service import random_game


def best_ms(call: Callable[[], object], repeat: int = 3) -> float:
    """The fastest of ``repeat`` calls, in milliseconds (bench.timing's loop)."""
    return min(timing.repeat(call, repeat)) * 1000


def longest_game(game: str, plies: int) -> list[str]:
    """The longest of a few random legal games of at most ``plies`` plies (stops at the first full one)."""
    found: list[str] = []
    for seed in range(40):
        moves, _ = random_game(registry.get_game(game), plies, seed=seed)
        if len(moves) > len(found):
            found = moves
        if len(found) >= plies:
            break
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plies", type=int, default=256)
    parser.add_argument("--quick", action="store_true", help="a smoke test: games of at most 16 plies")
    args = parser.parse_args(argv)
    if args.quick:
        args.plies = 16
    print("| game | plies | call | ms |\n|---|---:|---|---:|")
    for game in registry.games():
        moves = longest_game(game.name, args.plies)
        scheme = seed_scheme(game.name)
        data = plybits.encode(game.name, scheme, moves=moves).data
        calls: dict[str, Callable[[], object]] = {
            f"encode {scheme}": lambda: plybits.encode(game.name, scheme, moves=moves),
            "validate": lambda: plybits.read_record(game.name, moves=moves),
            "legal moves after": lambda: plybits.legal_moves(game.name, moves=moves),
        }
        for notation in game.notations:
            calls[f"decode to {notation}"] = lambda n=notation: plybits.decode(data, notation=n)
            calls[f"convert to {notation}"] = lambda n=notation: plybits.convert(game.name, moves=moves, to_notation=n)
        for name, call in calls.items():
            print(f"| {game.name} | {len(moves)} | {name} | {best_ms(call):.1f} |")


if __name__ == "__main__":
    main()
