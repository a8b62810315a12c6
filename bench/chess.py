"""Chess: plybits' public verbs side by side with python-chess's public calls, on the same real games.

Run: ``.venv/bin/python -m bench.chess [--games N] [--repeats R] [--quick] [--label pure|compiled] [--write]``;
prints a markdown section (``--write`` also stores the run in bench/results/chess.json and puts the section into
BENCHMARKS.md between the chess markers).

Both libraries work on the same games (the first ``--games`` of ``twic0920.pgn`` then ``carlsen_otb.pgn`` in
``../shared/data/chess/``) and each side's timed call builds the same objects from the same input:

- read PGN: ``plybits.read_record("chess", record=text)`` (tags, moves checked legal, the final position) vs
  ``chess.pgn.read_game(io.StringIO(text))`` (headers, the mainline checked legal).
- PGN to a container: ``plybits.encode("chess", "0x88", record=text)`` vs the same ``read_game`` (the peer has
  no container; the row shows what plybits' whole encode costs next to python-chess only reading).
- decode: ``plybits.decode(data, notation="uci")`` (container checked, every move checked legal, the UCI moves
  and the final FEN) vs a fresh ``chess.Board()``, ``push_uci`` of each of the game's UCI moves (parsed,
  checked legal, played, the moves kept in a list) and ``board.fen()``.
- legal moves of a position given as FEN: ``plybits.legal_moves("chess", start=fen, notation="uci")`` (the FEN
  and the sorted UCI moves) vs ``chess.Board(fen)``, ``sorted(m.uci() for m in board.legal_moves)`` and
  ``board.fen()``, on every ``k``-th position of the games.

Two extra rows, labelled scheme-internal, time what those verbs are built on: ``X88.decode_uci`` on the bare
payload, and ``Board.legal_moves()`` (its cache cleared) vs ``list(board.legal_moves)`` on boards built
beforehand. The timing loop is bench.timing's (alternated sides, repeats, the collector alike for both).
"""

from __future__ import annotations

import argparse
import io
import platform
import sys
from typing import Any

import chess
import chess.pgn

import plybits
from plybits import container
from plybits.chess import GAME, X88

from bench.report import ROOT, load_average
from bench.timing import POLICY, alternate, arguments, command, each, rates_row, report

DATA = ROOT.parent / "shared" / "data" / "chess"
FILES = ("twic0920.pgn", "carlsen_otb.pgn")


def load(limit: int | None) -> list[str]:
    """The PGN text of each of the first ``limit`` games (all with ``None``)."""
    texts: list[str] = []
    for name in FILES:
        texts += GAME.split_records((DATA / name).read_text(encoding="utf-8-sig"))
    return texts[:limit] if limit else texts


def peer_decode(moves: list[str]) -> None:
    board = chess.Board()
    push = board.push_uci
    played = [push(move) for move in moves]
    board.fen()
    del played


def peer_legal(fen: str) -> None:
    board = chess.Board(fen)
    sorted(m.uci() for m in board.legal_moves)
    board.fen()


def our_generate(board: Any) -> None:
    board._legal = None
    board.legal_moves()


def run(args: argparse.Namespace) -> None:
    if not DATA.exists():
        sys.exit(f"{DATA} is absent")
    texts = load(args.games)
    encoded = [plybits.encode("chess", "0x88", record=text) for text in texts]
    plies = sum(e.plies for e in encoded)
    datas = [e.data for e in encoded]
    ucis = [plybits.decode(d, notation="uci").moves for d in datas]
    boxes = [container.unpack(d, max_plies=10**6) for d in datas]
    starts = [(GAME.position(box.start), box.payload, box.plies) for box in boxes]

    positions: list[Any] = []
    for moves in ucis:
        board = GAME.position()
        for move in moves:
            positions.append(board.copy())
            board.push(board.parse_move(move, "uci"))
    step = max(1, len(positions) // args.positions)
    sample = positions[::step]
    fens = [p.fen() for p in sample]
    peer_boards = [chess.Board(f) for f in fens]
    for ours, fen, theirs in zip(sample, fens, peer_boards):  # the two libraries agree before anything is timed
        assert plybits.legal_moves("chess", start=fen, notation="uci")[1] == sorted(m.uci() for m in theirs.legal_moves)

    sides = {
        "read ours": each(lambda t: plybits.read_record("chess", record=t), texts),
        "read peer": each(lambda t: chess.pgn.read_game(io.StringIO(t)), texts),
        "encode ours": each(lambda t: plybits.encode("chess", "0x88", record=t), texts),
        "decode ours": each(lambda d: plybits.decode(d, notation="uci"), datas),
        "decode peer": each(peer_decode, ucis),
        "x88 ours": each(lambda s: X88.decode_uci(s[0].copy(), s[1], s[2]), starts),
        "legal ours": each(lambda f: plybits.legal_moves("chess", start=f, notation="uci"), fens),
        "legal peer": each(peer_legal, fens),
        "gen ours": each(our_generate, sample),
        "gen peer": each(lambda b: list(b.legal_moves), peer_boards),
    }
    t = alternate(sides, args.repeats)
    n = len(fens)
    rows = [
        rates_row("read PGN: `plybits.read_record(record=…)` vs `chess.pgn.read_game`", "plies/s", plies,
                  t["read ours"], t["read peer"]),
        rates_row("PGN → container: `plybits.encode(\"chess\", \"0x88\", record=…)` vs `chess.pgn.read_game` "
                  "(the peer only reads)", "plies/s", plies, t["encode ours"], t["read peer"]),
        rates_row("decode: `plybits.decode(data, notation=\"uci\")` vs `push_uci` of each move + `board.fen()`",
                  "plies/s", plies, t["decode ours"], t["decode peer"]),
        rates_row("scheme-internal: `X88.decode_uci` on the bare payload vs the same `push_uci`", "plies/s", plies,
                  t["x88 ours"], t["decode peer"]),
        rates_row("legal moves from a FEN: `plybits.legal_moves(start=fen, notation=\"uci\")` vs `chess.Board(fen)` "
                  "+ sorted UCI of `legal_moves`", "positions/s", n, t["legal ours"], t["legal peer"]),
        rates_row("scheme-internal: `Board.legal_moves()` (cache cleared) vs `list(board.legal_moves)` on built "
                  "boards", "positions/s", n, t["gen ours"], t["gen peer"]),
    ]
    options = f"--games {args.games}" if args.games else ""
    context = (f"{len(texts):,} games, {plies:,} plies; {n:,} positions (one in {step}); Python "
               f"{platform.python_version()}, python-chess {chess.__version__}; load average {load_average():.1f} "
               "at the end")
    report("chess", args, rows, heading="## Chess", command_line=command("chess", args, options),
           context=context, peer="python-chess",
           before=[f"Timing: {POLICY}. The load average of each run is given with its command."],
           after=[
               "The verb rows are the comparison to read; the scheme-internal rows show what the verbs are built on "
               "(no container, no FEN parsed or written). `plybits.decode` does more than the bare replay: it "
               "unpacks and checks the container, reads its record section (the containers keep each record whole, "
               "`encode`'s default for a record: its tags, range-coded) and writes each move as UCI and the final "
               "FEN during the scheme's one replay; python-chess only replays. Reading PGN is dominated by SAN: each "
               "move's origin is found from the target square backwards and checked with the single-move legality "
               "test, without a full move list. The legal-moves verb also reads the FEN and writes and sorts the UCI "
               "moves and the final FEN, which is most of its time.",
           ])


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv, __doc__, "chess", 7, [
        ("--games", 800, "at most this many games (0: all)"),
        ("--positions", 4000, "about this many positions for the move rows"),
    ], {"games": 12, "positions": 100, "repeats": 2})
    run(args)


if __name__ == "__main__":
    main()
