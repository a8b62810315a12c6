"""The ``plybits`` command: batch encode, decode and validate files, or serve the HTTP API.

    plybits encode games.pgn -o games.ndjson [--game chess --scheme 0x88]
    plybits decode games.ndjson -o moves.ndjson [--notation uci]
    plybits validate games.pgn
    plybits serve [--host 127.0.0.1 --port 8000]

Output is NDJSON, one line per input line (or game of a multi-game file), in order:
``{"line": n, "result": {...}}`` or ``{"line": n, "error": {problem}}``, the same as the service's batch
endpoints. Exit status: 0 when every record went through, 1 when some failed, 2 on a usage or I/O error.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO

from app.batchcore import answers, check_target, line_json
from app.settings import Settings
from plybits import records
from plybits.errors import PlybitsError

CHUNK = 1 << 16
MAX_LINE_BYTES = 16 << 20
"""Longest line (or game) read from a file; longer ones are answered with an error and skipped."""
UNLIMITED = sys.maxsize
"""A file has no limit on its lines or games."""


@dataclass
class Tally:
    """What went through: records, errors and bytes."""

    records: int = 0
    errors: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    started: float = field(default_factory=time.monotonic)


class Progress:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    WIDTH = 30

    def __init__(self, tally: Tally, total: int | None, stream: IO[str], enabled: bool) -> None:
        self.tally, self.total, self.stream, self.enabled = tally, total, stream, enabled
        self.last = 0.0

    def update(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < 0.1:
            return
        self.last = now
        t = self.tally
        rate = t.records / max(now - t.started, 1e-9)
        if self.total:
            done = min(t.bytes_in / self.total, 1.0)
            filled = int(done * self.WIDTH)
            bar = f"[{'#' * filled}{'.' * (self.WIDTH - filled)}] {done * 100:5.1f}% "
        else:
            bar = ""
        self.stream.write(f"\r{bar}{_size(t.bytes_in)}  {t.records} records  {t.errors} errors  {rate:,.0f}/s ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.update(force=True)
            self.stream.write("\n")
            self.stream.flush()


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB"):
        if size < 1000:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


def _chunks(source: IO[bytes], tally: Tally, progress: Progress) -> Iterator[bytes]:
    while True:
        chunk = source.read(CHUNK)
        if not chunk:
            return
        tally.bytes_in += len(chunk)
        yield chunk
        progress.update()


def run(op: str, args: argparse.Namespace) -> int:
    """Answer every record of ``args.input`` into ``args.output``; print the summary; the exit status."""
    records_mode = _records_mode(op, args)
    source: IO[bytes] = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")  # noqa: SIM115
    sink: IO[bytes] = sys.stdout.buffer if args.output == "-" else open(args.output, "wb")  # noqa: SIM115
    total = None if args.input == "-" else os.path.getsize(args.input)
    tally = Tally()
    show = args.progress if args.progress is not None else (sys.stderr.isatty() and not args.quiet)
    progress = Progress(tally, total, sys.stderr, show and not args.quiet)
    settings = Settings(max_plies=args.max_plies, max_line_bytes=MAX_LINE_BYTES, max_batch_lines=UNLIMITED,
                        max_games=UNLIMITED, access_log=False)
    try:
        chunks = _chunks(source, tally, progress)
        for number, key, value in answers(op, chunks, settings, game=args.game, scheme=getattr(args, "scheme", None),
                                          notation=args.notation, records=records_mode):
            tally.records += 1
            tally.errors += key == "error"
            data = line_json(number, key, value)
            sink.write(data)
            tally.bytes_out += len(data)
    finally:
        progress.close()
        sink.flush()
        if sink is not sys.stdout.buffer:
            sink.close()
        if source is not sys.stdin.buffer:
            source.close()
    if not args.quiet:
        elapsed = time.monotonic() - tally.started
        print(
            f"plybits {op}: {tally.records} records, {tally.records - tally.errors} ok, {tally.errors} errors; "
            f"{tally.bytes_in:,} bytes in, {tally.bytes_out:,} bytes out; {elapsed:.2f} s "
            f"({tally.records / max(elapsed, 1e-9):,.0f} records/s)",
            file=sys.stderr,
        )
    return 1 if tally.errors else 0


def _records_mode(op: str, args: argparse.Namespace) -> bool:
    """Whether the input is a multi-game file (split into records) rather than NDJSON lines; fills defaults."""
    fmt: str = args.format
    if fmt == "auto":
        name = args.input.lower()
        if name.endswith((".ndjson", ".jsonl")) or op == "decode":
            fmt = "ndjson"
        elif name.endswith(".pgn") or args.game is not None:
            fmt = "records"
        else:
            fmt = "ndjson"
    if fmt == "records":
        if op == "decode":
            raise SystemExit("plybits decode: input must be NDJSON (or one base64url container a line)")
        if args.game is None:
            args.game = "chess"
    # An unknown game or scheme is a usage error, found before reading anything.
    check_target(op, args.game, getattr(args, "scheme", None))
    return fmt == "records"


def serve(args: argparse.Namespace) -> int:
    """Run the HTTP service with uvicorn (its own access log off: the service writes JSON lines), keeping idle
    connections open ``PLYBITS_KEEP_ALIVE_SECONDS`` (uvicorn's 5 s races clients that reuse a pooled connection)."""
    import uvicorn

    uvicorn.run("app.main:app", host=args.host, port=args.port, workers=args.workers, access_log=False,
                log_level=args.log_level, timeout_keep_alive=Settings.from_env().keep_alive_seconds)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="plybits", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    helps = {
        "encode": "encode a multi-game file (PGN, ...) or NDJSON encode requests into containers",
        "decode": "decode NDJSON lines ({\"data\": ...}, `plybits encode` output, or bare base64url) into moves",
        "validate": "check every move of a multi-game file or of NDJSON validate requests",
    }
    for op, text in helps.items():
        sub = commands.add_parser(op, help=text, description=text)
        sub.add_argument("input", help="input file, or - for standard input")
        sub.add_argument("-o", "--output", default="-", help="output NDJSON file (default: standard output)")
        if op != "decode":
            sub.add_argument("--game", help="the game of a multi-game file (default chess for .pgn); "
                                            "default game of NDJSON lines")
            sub.add_argument("--format", choices=("auto", "records", "ndjson"), default="auto",
                             help="records = a multi-game file, ndjson = one request a line "
                                  "(auto: by extension, .ndjson/.jsonl or .pgn)")
        else:
            sub.set_defaults(format="ndjson", game=None)
        if op == "encode":
            sub.add_argument("--scheme", help="the scheme (default: the game's seed scheme)")
        sub.add_argument("--notation", help="decode: the notation to write the moves in; encode, validate: the "
                                            "notation of the moves read (default: any of the game's)")
        sub.add_argument("--max-plies", type=int, default=records.DEFAULT_MAX_PLIES, help="most plies a record")
        sub.add_argument("--progress", action="store_true", default=None,
                         help="show the progress bar even when stderr is not a terminal")
        sub.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
        sub.set_defaults(handler=lambda args, op=op: run(op, args))
    sub = commands.add_parser("serve", help="run the HTTP service", description="run the HTTP service (uvicorn)")
    sub.add_argument("--host", default="127.0.0.1")
    sub.add_argument("--port", type=int, default=8000)
    sub.add_argument("--workers", type=int, default=None,
                     help="server processes (default: $WEB_CONCURRENCY, else 1)")
    sub.add_argument("--log-level", default="info")
    sub.set_defaults(handler=serve)
    from app import dataset  # pyarrow and dask are loaded only here

    dataset.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``plybits`` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except PlybitsError as err:
        print(f"plybits: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"plybits: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
