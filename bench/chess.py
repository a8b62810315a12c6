"""Chess: PGN -> chess/0x88 encode and 0x88 -> UCI decode with full legality replay, side by side with python-chess.

Run: ``.venv/bin/python -m bench.chess [--games N] [--write]``; prints a markdown section (``--write`` also puts
it into BENCHMARKS.md between the chess markers).

Both libraries work on the same games, the real collections in ``../shared/data/chess/`` (twic0920.pgn and
carlsen_otb.pgn, every game unless ``--games`` bounds it), each game one PGN text:

- read: ours is ``plybits.encode("chess", "0x88", record=text)`` (PGN tags and SAN movetext read, every move
  checked legal, packed into a container); python-chess's is ``chess.pgn.read_game`` on the same text.
- replay: ours is ``X88.decode_uci`` on each game's payload (16 bits read, the move checked legal without
  generating the full move list, played, written as UCI); python-chess's is ``Board.push_uci`` of the same
  UCI moves (parsed, checked legal, played). Also the library verb ``plybits.decode(data, notation="uci")``,
  which adds the container (CRC, header) and writes the moves from a second replay.
- legal-move generation: ``Board.legal_moves()`` (cache cleared) vs ``list(board.legal_moves)`` on every position
  of the first 300 games (what the rank scheme asks for every ply).
The two sides alternate chunk by chunk (250 games); replay timings are each chunk's best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import io
import platform
import sys
import time

import chess
import chess.pgn

import plybits
from plybits import container
from plybits.chess import GAME, X88

from bench.report import ROOT, add_write_option, publish

DATA = ROOT.parent / "shared" / "data" / "chess"
FILES = ("twic0920.pgn", "carlsen_otb.pgn")


def load(limit: int | None) -> list[str]:
    texts: list[str] = []
    for name in FILES:
        texts += GAME.split_records((DATA / name).read_text(encoding="utf-8-sig"))
    return texts[:limit] if limit else texts


CHUNK = 250
GEN_GAMES = 300


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None, help="at most this many games (default: all)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs for the replays")
    add_write_option(parser, "chess")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"{DATA} is absent")
    texts = load(args.games)

    # Ours and python-chess's timings alternate chunk by chunk, so that load from other jobs on this shared
    # machine falls on both sides alike; each chunk's replay time is the best of --repeat runs.
    chunks = [texts[i:i + CHUNK] for i in range(0, len(texts), CHUNK)]
    t_ours_read = t_theirs_read = t_ours_replay = t_theirs_replay = t_ours_verb = 0.0
    encoded: list[plybits.Encoded] = []
    plies = 0
    for chunk in chunks:
        out: list[plybits.Encoded] = []
        t_ours_read += timed(lambda: out.extend(plybits.encode("chess", "0x88", record=text) for text in chunk), 1)
        t_theirs_read += timed(lambda: [chess.pgn.read_game(io.StringIO(text)) for text in chunk], 1)
        encoded += out
        plies += sum(e.plies for e in out)
        boxes = [container.unpack(e.data, max_plies=10**6) for e in out]
        starts = [GAME.position(box.start) for box in boxes]
        ucis = [X88.decode_uci(start.copy(), box.payload, box.plies) for start, box in zip(starts, boxes)]

        def ours_replay() -> None:
            for start, box in zip(starts, boxes):
                X88.decode_uci(start.copy(), box.payload, box.plies)

        def theirs_replay() -> None:
            for moves in ucis:
                board = chess.Board()
                push = board.push_uci
                for move in moves:
                    push(move)

        t_ours_replay += timed(ours_replay, args.repeat)
        t_theirs_replay += timed(theirs_replay, args.repeat)
        t_ours_verb += timed(lambda: [plybits.decode(e.data, notation="uci") for e in out], args.repeat)

    # legal-move generation on the positions of the first games (what the rank scheme does every ply)
    ours_positions: list = []
    for e in encoded[:GEN_GAMES]:
        replay = plybits.read_record("chess", moves=plybits.decode(e.data, notation="uci").moves, notation="uci")
        position = replay.start_position.copy()
        for m in replay.moves:
            ours_positions.append(position.copy())
            position.push(m)
    theirs_positions = [chess.Board(p.fen()) for p in ours_positions]

    def ours_generate() -> None:
        for p in ours_positions:
            p._legal = None
            p.legal_moves()

    def theirs_generate() -> None:
        for board in theirs_positions:
            list(board.legal_moves)

    t_ours_gen = t_theirs_gen = 0.0
    for _ in range(args.repeat):  # alternate, keep each side's best
        a, b = timed(ours_generate, 1), timed(theirs_generate, 1)
        t_ours_gen = a if not t_ours_gen else min(t_ours_gen, a)
        t_theirs_gen = b if not t_theirs_gen else min(t_theirs_gen, b)
    positions = len(ours_positions)

    def rate(seconds: float) -> str:
        return f"{plies / seconds:,.0f}"

    command = ".venv/bin/python -m bench.chess" + (f" --games {args.games}" if args.games else "") + " --write"
    lines = [
        "## Chess",
        "",
        f"Command: `{command}` — {len(texts):,} games, {plies:,} plies from `twic0920.pgn` and `carlsen_otb.pgn`,",
        f"one run on this machine (Python {platform.python_version()}, python-chess {chess.__version__}; 2 cores shared "
        "with other jobs: the two sides alternate every 250 games so the load falls on both, and the ratios are "
        f"the figures to read; replays are each chunk's best of {args.repeat}).",
        "",
        "| task | plybits plies/s | python-chess plies/s | ratio (plybits / python-chess) |",
        "|---|---:|---:|---:|",
        f"| PGN → moves: `plybits.encode(record=…)` to chess/0x88 vs `chess.pgn.read_game` | {rate(t_ours_read)} | "
        f"{rate(t_theirs_read)} | {t_theirs_read / t_ours_read:.2f} |",
        f"| validated replay: `X88.decode_uci` (0x88 → UCI, every move checked legal) vs `Board.push_uci` | "
        f"{rate(t_ours_replay)} | {rate(t_theirs_replay)} | {t_theirs_replay / t_ours_replay:.2f} |",
        f"| the library verb `plybits.decode(data, notation=\"uci\")` (container + CRC + replay + UCI written) vs `push_uci` | "
        f"{rate(t_ours_verb)} | {rate(t_theirs_replay)} | {t_theirs_replay / t_ours_verb:.2f} |",
        f"| legal-move generation: `Board.legal_moves()` vs `list(board.legal_moves)`, {positions:,} positions of the "
        f"first {GEN_GAMES} games (positions/s) | {positions / t_ours_gen:,.0f} | {positions / t_theirs_gen:,.0f} | "
        f"{t_theirs_gen / t_ours_gen:.2f} |",
        "",
        f"Sizes: chess/0x88 payload {16 * plies // 8:,} bytes for {plies:,} plies (16 bits/ply); containers with the PGN "
        f"tags {sum(len(e.data) for e in encoded):,} bytes; the PGN texts {sum(len(t.encode()) for t in texts):,} bytes.",
        "",
        'Where the validated replay spends its time (cProfile of `X88.decode_uci`, 400 games): about a third in '
        '`Board.push` (which also works out from the move alone whether it gives check), close to a third in the '
        "move's own legality test (`Board.checked_move`: its pattern, then only the line from its king through the "
        'moving piece; a full `Board.attacked` scan is left for the rarer king moves, checks and en passant), an '
        'eighth reading the 16-bit fields (`plybits.bitio.BitReader`, `int.from_bytes` a ply), the rest in the '
        'loop itself. No full move list is generated. The library verb is slower than the scheme alone because '
        '`plybits.decode` also unpacks and checks the container and writes each move as UCI (during the scheme\'s one '
        'replay) and the final FEN. Reading PGN is '
        "dominated by SAN: each move's origin is found from the target square backwards and checked with the same "
        'single-move test, again without a full move list.',
    ]
    publish("chess", "\n".join(lines), args.write)


if __name__ == "__main__":
    main()
