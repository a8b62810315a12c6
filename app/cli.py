"""The plybits command: batch encode, decode and validate files, or serve the HTTP API.

    plybits encode games.pgn -o games.ndjson [--scheme rank] [--game xiangqi] [--fidelity moves]
    plybits decode games.ndjson -o moves.ndjson [--notation uci] [--to pgn]
    plybits validate games.pgn
    plybits serve [--host 127.0.0.1 --port 8000]

The game and the kind of input come from the file: its extension (.pgn, .apgn, .ndjson, .jsonl; .gz, .bz2,
.xz and .zst files are read compressed) and its content (NDJSON lines; an APGN header, a
``[Game "Chinese Chess"]`` tag, ICCS or Chinese movetext, Entropy tokens); ``--game`` names it when the file
does not say, and a file that looks like another game is refused. Output is NDJSON, one line per input line
(or game of a multi-game file), in order: ``{"line": n, "result": {...}}`` or
``{"line": n, "error": {problem}}``, the same as the service's batch endpoints; ``encode --to base64url`` (or
``binary``) writes bare containers instead, ``decode --to records`` (or ``pgn``, ``apgn``, ``tokens``) the
games as PGN, APGN or tokens, whole (comments, NAGs, variations) from full-fidelity containers.
Exit status: 0 when every record went through, 1 when some failed, 2 on a usage or I/O error.
"""

from __future__ import annotations

import argparse
import gc
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from app.batchcore import answers, check_target, document, line_json
from app.errors import problem_body
from app.inputs import SNIFF_BYTES, ByteSource, Sniffed, open_input, sniff
from app.settings import Settings
from plybits import __version__, compiled, records, registry
from plybits.container import read_uvarint, write_uvarint
from plybits.errors import InvalidDataError, PlybitsError, UnsupportedError
from plybits.game import Record
from plybits.records import b64url, from_b64url

DESCRIPTION = "Batch encode, decode and validate game files with plybits, or serve its HTTP API."
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
        tallies = f"{count(t.records, 'record')}  {count(t.errors, 'error')}"
        self.stream.write(f"\r{bar}{_size(t.bytes_in)}  {tallies}  {rate:,.0f}/s ")
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


def _chunks(head: bytes, source: ByteSource, tally: Tally, progress: Progress) -> Iterator[bytes]:
    chunk = head
    while chunk:
        tally.bytes_in += len(chunk)
        yield chunk
        progress.update()
        chunk = source.read(CHUNK)


def article(noun: str) -> str:
    """``noun`` after its indefinite article: ``"a chess"``, ``"an abalone"``."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def count(n: int, noun: str) -> str:
    """``"1 record"``, ``"2 records"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


GC_THRESHOLD = (10_000, 10, 10)
"""The collector's thresholds while a command answers records (Python's are 700, 10, 10): a game's work allocates
thousands of short-lived objects and no cycles, so young collections found nothing worth their ~60 runs per 1,000
games."""


def run(op: str, args: argparse.Namespace) -> int:
    """Answer every record of ``args.input`` into ``args.output``; print the summary; the exit status."""
    gc.freeze()  # the start-up's objects (modules, classes) live to the end: no collection walks them again
    gc.set_threshold(*GC_THRESHOLD)
    source, total = open_input(args.input)
    try:
        head = source.read(SNIFF_BYTES)
        binary = op == "decode" and is_binary(head)
        records_mode = False if binary else _records_mode(op, args, sniff(args.input, head))
    except BaseException:
        source.close()
        raise
    sink: IO[bytes] = sys.stdout.buffer if args.output == "-" else open(args.output, "wb")  # noqa: SIM115
    tally = Tally()
    show = args.progress if args.progress is not None else (sys.stderr.isatty() and not args.quiet)
    progress = Progress(tally, total, sys.stderr, show and not args.quiet)
    settings = Settings(max_plies=args.max_plies, max_line_bytes=MAX_LINE_BYTES, max_batch_lines=UNLIMITED,
                        max_games=UNLIMITED, access_log=False)
    output = Output(op, args.to, "game" if records_mode else "line")
    try:
        chunks = _chunks(head, source, tally, progress)
        if binary:
            chunks = _binary_lines(chunks)
        for number, key, value in answers(op, chunks, settings, game=args.game, scheme=getattr(args, "scheme", None),
                                          notation=args.notation, records=records_mode, options=options(op, args)):
            key, value = output.checked(key, document(value))
            tally.records += 1
            tally.errors += key == "error"
            data = output.line(number, key, value)
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
            f"plybits {op}: {count(tally.records, 'record')}, {tally.records - tally.errors} ok, "
            f"{count(tally.errors, 'error')}; {tally.bytes_in:,} bytes in, {tally.bytes_out:,} bytes out; "
            f"{elapsed:.2f} s ({tally.records / max(elapsed, 1e-9):,.0f} records/s)",
            file=sys.stderr,
        )
    return 1 if tally.errors else 0


OUTPUTS = {"encode": ("ndjson", "base64url", "binary"), "decode": ("ndjson", "records", "pgn", "apgn", "tokens"),
           "validate": ("ndjson",)}
"""What each command can write (``--to``): the batch NDJSON lines, or bare containers (one base64url a line,
or each as a LEB128 length and its bytes), or the games as records: ``records`` in each game's own format,
``pgn``, ``apgn`` or ``tokens`` only games of that format (:data:`RECORD_FORMATS`)."""
RECORD_FORMATS = {"chess": "pgn", "xiangqi": "pgn", "abalone": "apgn", "entropy": "tokens"}
"""The record format each game's record writer writes (``decode --to``)."""


def options(op: str, args: argparse.Namespace) -> dict[str, str]:
    """The request fields the command's options give every line without them: encode's ``fidelity``, decode's
    ``format`` (``record`` when the records are written, or asked with ``--record``)."""
    if op == "encode" and args.fidelity is not None:
        return {"fidelity": args.fidelity}
    if op == "decode" and (args.to not in ("ndjson",) or args.record):
        return {"format": "record"}
    return {}


class Output:
    """Each answer as the bytes written for it; the error of an answer that NDJSON does not carry goes to
    stderr, and its place is kept (an empty line, a zero length; records are numbered by their tags' order)."""

    def __init__(self, op: str, to: str, unit: str) -> None:
        self.op, self.to, self.unit = op, to, unit

    def checked(self, key: str, value: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The answer, or an error when ``--to`` names a record format the answer's game is not written in."""
        if key != "result" or self.to not in ("pgn", "apgn", "tokens"):
            return key, value
        own = RECORD_FORMATS.get(str(value.get("game")))
        if own == self.to:
            return key, value
        return "error", problem_body(UnsupportedError(
            f"a {value.get('game')} game is not written as {self.to}: its records are {own} (try --to records)"))

    def line(self, number: int, key: str, value: dict[str, Any]) -> bytes:
        if self.to == "ndjson":
            return line_json(number, key, value)
        if key == "error":
            print(f"plybits {self.op}: {self.unit} {number}: {value['detail']}", file=sys.stderr)
            return b"\n" if self.to == "base64url" else b"\x00" if self.to == "binary" else b""
        if self.to == "base64url":
            return str(value["data"]).encode("ascii") + b"\n"
        if self.to == "binary":
            blob = from_b64url(str(value["data"]))
            return write_uvarint(len(blob)) + blob
        text = value.get("record")
        if not isinstance(text, str):  # an answer without the record's text: write its moves
            game = registry.get_game(str(value["game"]))
            record = Record(moves=list(value["moves"]), start=value.get("start"), tags=dict(value.get("tags") or {}))
            text = game.write_record(record)
        return (text.rstrip("\n") + "\n\n").encode("utf-8")


def is_binary(head: bytes) -> bool:
    """Whether ``head`` starts a stream of length-prefixed containers (a varint, then the magic ``PB``)."""
    for at in range(1, 4):
        if head[at:at + 2] == b"PB" and all(b & 0x80 for b in head[:at - 1]) and not head[at - 1] & 0x80:
            return True
    return False


def _binary_lines(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """Length-prefixed containers read as base64url lines, one a container (an empty line for a zero length).

    :raises InvalidDataError: a stream cut inside a length or a container.
    """
    buf = bytearray()
    for chunk in chunks:
        buf += chunk
        while (read := read_uvarint(buf, 0, "container length")) is not None:
            size, used = read
            if len(buf) < used + size:
                break
            yield b64url(bytes(buf[used:used + size])).encode("ascii") + b"\n"
            del buf[:used + size]
    if buf:
        raise InvalidDataError(f"length-prefixed input ends inside a container ({len(buf)} bytes left)")


class UsageError(Exception):
    """The command line does not fit the input (exit status 2)."""


def _records_mode(op: str, args: argparse.Namespace, seen: Sniffed) -> bool:
    """Whether the input is a multi-game file (split into records) rather than NDJSON lines; fills the game.

    :raises UsageError: a decode input that is not NDJSON, or a file that looks like another game than
        ``--game`` names.
    """
    fmt: str = args.format
    if op == "decode" and seen.format == "records":
        game = f"{seen.game} " if seen.game else ""
        raise UsageError(f"plybits decode: {args.input} looks like a {game}record file, not containers: decode reads "
                         "NDJSON ({\"data\": ...} lines, plybits encode output), bare base64url lines, or "
                         "length-prefixed containers (plybits encode --to binary); encode it first")
    if fmt == "auto":
        fmt = "ndjson" if op == "decode" else seen.format
        if fmt == "auto":
            fmt = "records" if args.game is not None else "ndjson"
    if fmt == "records":
        if op == "decode":
            raise UsageError("plybits decode: input must be NDJSON (or one base64url container a line)")
        if args.game is not None and seen.game is not None and args.game != seen.game:
            raise UsageError(f"{args.input} looks like {article(seen.game)} file ({seen.because}), not {args.game}: "
                             f"leave out --game {args.game}, or check the file")
        if args.game is None:
            args.game = seen.game or "chess"
    # An unknown game or scheme is a usage error, found before reading anything.
    check_target(op, args.game, getattr(args, "scheme", None))
    return fmt == "records"


def serve(args: argparse.Namespace) -> int:
    """Run the HTTP service with uvicorn (its own access log off: the service writes JSON lines), keeping idle
    connections open ``PLYBITS_KEEP_ALIVE_SECONDS`` (uvicorn's 5 s races clients that reuse a pooled connection),
    with the limits at the HTTP edge of :mod:`app.edge` (header size and time, body time, open connections).

    With several server processes (``--workers``, ``WEB_CONCURRENCY``) they share a listening socket bound here
    as uvicorn binds it, then marked TCP (:func:`tcp_listener`), so that every connection sends without delay.
    """
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from app.edge import PROTOCOL

    settings = Settings.from_env()
    open_files_for(settings.max_connections)
    config = uvicorn.Config("app.main:app", host=args.host, port=args.port, workers=args.workers, access_log=False,
                            log_level=args.log_level, timeout_keep_alive=settings.keep_alive_seconds, http=PROTOCOL)
    if config.workers > 1:
        Multiprocess(config, sockets=[tcp_listener(config.bind_socket())]).run()
        return 0
    server = uvicorn.Server(config)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    return 0 if server.started else STARTUP_FAILURE


def open_files_for(connections: int) -> None:
    """Raise this process's open-file limit (soft, up to the hard one) to hold ``connections`` and some to spare."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + 1024
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard),
                                                    hard))


STARTUP_FAILURE = 3
"""``plybits serve``'s exit status when the server did not start (uvicorn's own)."""


def tcp_listener(sock: socket.socket) -> socket.socket:
    """``sock``, a listening socket, as a socket object that says it is TCP (``proto`` ``IPPROTO_TCP``).

    asyncio turns Nagle's algorithm off (``TCP_NODELAY``) only on accepted connections whose socket says so, and a
    socket bound with ``proto`` left at 0 (uvicorn's, for several workers; uvicorn issue 3149) passes 0 on to
    them: each keep-alive answer's last segment then waits for the client's delayed ACK, about 40 ms.
    """
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM and sock.proto == 0:
        return socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
    return sock


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that ends each option with its default, when it has one worth saying and does not say it already."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default not in (None, False, argparse.SUPPRESS) and "default" not in text and action.option_strings:
            text += " (default: %(default)s)"
        return text


class VersionAction(argparse.Action):
    """``--version``: the version and the build in use (compiled or pure Python, and why), on one line."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show the version and the build in use (compiled or pure Python), then exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(f"plybits {__version__}: {compiled.describe()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    games = [g.name for g in registry.games()]
    schemes = sorted({s.name for s in registry.schemes()})
    notations = sorted({n for g in registry.games() for n in g.notations})
    defaults = DefaultsFormatter
    parser = argparse.ArgumentParser(prog="plybits", description=DESCRIPTION)
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    helps = {
        "encode": "encode a multi-game file (PGN, APGN, ...) or NDJSON encode requests into containers",
        "decode": "decode NDJSON lines ({\"data\": ...}, plybits encode output, or bare base64url) into moves",
        "validate": "check every move of a multi-game file or of NDJSON validate requests",
    }
    for op, text in helps.items():
        sub = commands.add_parser(op, help=text, description=text, formatter_class=defaults)
        sub.add_argument("input", help="input file (.gz .bz2 .xz .zst read as they are), or - for standard input")
        sub.add_argument("-o", "--output", default="-", help="output file, - for standard output")
        if op != "decode":
            sub.add_argument("--game", choices=games, metavar="GAME",
                             help=f"one of {', '.join(games)}: the game of a multi-game file when its extension "
                                  "and content do not tell (else chess), or of NDJSON lines without one")
            sub.add_argument("--format", choices=("auto", "records", "ndjson"), default="auto",
                             help="records = a multi-game file, ndjson = one request a line; auto: by extension "
                                  "(.pgn .apgn / .ndjson .jsonl) and content")
        else:
            sub.set_defaults(format="ndjson", game=None)
        if op == "encode":
            sub.add_argument("--scheme", choices=schemes, metavar="SCHEME",
                             help=f"one of {', '.join(schemes)} (default: the game's seed scheme)")
            sub.add_argument("--fidelity", choices=records.FIDELITIES, default=None,
                             help="full: keep each record whole (tags, comments, clocks, NAGs, variations, result); "
                                  "moves: its moves and tags (default: full for records, moves for move lists)")
        if op == "decode":
            sub.add_argument("--record", action="store_true",
                             help="with --to ndjson: answer each line with the record's text too (format record)")
        if op != "validate":
            sub.add_argument("--to", choices=OUTPUTS[op], default="ndjson",
                             help={"encode": "ndjson: the batch lines; base64url: one bare container a line; "
                                             "binary: each container as its LEB128 length and bytes "
                                             "(a failed record: an empty line, length 0, its error on stderr)",
                                   "decode": "ndjson: the batch lines; records: the games as the game's record "
                                             "format (PGN, APGN, tokens) with their tags, comments, NAGs, "
                                             "variations and result, a failed one left out (its error on "
                                             "stderr); pgn, apgn, tokens: the same, for games of that format "
                                             "only"}[op])
        else:
            sub.set_defaults(to="ndjson")
        sub.add_argument("--notation", choices=notations, metavar="NOTATION",
                         help=f"one of {', '.join(notations)}; decode: the notation to write the moves in "
                              "(default: the game's first); encode, validate: the notation of the moves read "
                              "(default: any of the game's)")
        sub.add_argument("--max-plies", type=int, default=records.DEFAULT_MAX_PLIES, help="most plies a record")
        sub.add_argument("--progress", action="store_true", default=None,
                         help="show the progress bar even when stderr is not a terminal")
        sub.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
        sub.set_defaults(handler=lambda args, op=op: run(op, args))
    sub = commands.add_parser("serve", help="run the HTTP service", description="run the HTTP service (uvicorn)",
                              formatter_class=defaults)
    sub.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0: every interface)")
    sub.add_argument("--port", type=int, default=8000, help="port to listen on")
    sub.add_argument("--workers", type=int, default=None,
                     help="server processes (default: $WEB_CONCURRENCY, else 1)")
    sub.add_argument("--log-level", default="info", choices=("critical", "error", "warning", "info", "debug"),
                     help="uvicorn's log level")
    sub.set_defaults(handler=serve)
    from app import dataset  # pyarrow and dask are loaded only here

    dataset.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``plybits`` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except (PlybitsError, UsageError, OSError) as err:
        print(f"plybits: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
