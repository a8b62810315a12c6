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
import bz2
import gc
import gzip
import io
import lzma
import os
import re
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from app.batchcore import answers, check_target, document, line_json
from app.errors import problem_body
from app.settings import Settings
from plybits import __version__, compiled, records, registry
from plybits.container import write_uvarint
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


def count(n: int, noun: str) -> str:
    """``"1 record"``, ``"2 records"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


COMPRESSED: dict[bytes, str] = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd"}
"""Magic bytes of the compressed inputs read as they are (whatever the file is called)."""
ZSTD_FEED = 256
"""Compressed bytes given to the zstd decompressor at a time."""
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst")


class ByteSource(Protocol):
    """A readable byte stream: a file, standard input, or a decompressing reader."""

    def read(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


def open_input(path: str) -> tuple[ByteSource, int | None]:
    """The decompressed byte stream of ``path`` (``-``: standard input) and its size when known and not
    compressed (for the progress bar).

    :raises OSError: the file cannot be read, or is compressed in a way this Python cannot read.
    """
    reader: IO[bytes] = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    if not isinstance(reader, io.BufferedReader):  # no peeking: read as it is
        return reader, None
    magic = reader.peek(6)[:6]
    kind = next((k for m, k in COMPRESSED.items() if magic.startswith(m)), None)
    if kind is None:
        return reader, None if path == "-" else os.path.getsize(path)
    stream: ByteSource
    if kind == "gzip":
        stream = gzip.GzipFile(fileobj=reader, mode="rb")
    elif kind == "bz2":
        stream = bz2.BZ2File(reader, mode="rb")
    elif kind == "xz":
        stream = lzma.LZMAFile(reader, mode="rb")
    else:
        stream = ZstdReader(reader, path)
    return Decompressed(stream, reader), None


class ZstdReader:
    """Zstandard frames, one after another, decompressed; a stream cut inside a frame is an error (the
    zstandard package's own stream reader ends quietly there). Compressed bytes go in :data:`ZSTD_FEED` at a
    time, so one step never holds more than that much input can expand to (a few MB at zstd's largest ratio).

    :raises OSError: the zstandard package is not installed.
    """

    def __init__(self, raw: ByteSource, path: str) -> None:
        try:
            import zstandard
        except ImportError as err:
            raise OSError(f"{path}: a zstd file, and the zstandard package is not installed") from err
        self.new = zstandard.ZstdDecompressor().decompressobj
        self.raw, self.frame, self.started, self.pending = raw, self.new(), False, b""

    def read(self, size: int = -1, /) -> bytes:
        while not self.pending:
            chunk = self.raw.read(ZSTD_FEED)
            if not chunk:
                if self.started and not self.frame.eof:
                    raise InvalidDataError("zstd input ends inside a frame")
                return b""
            while chunk:
                if self.frame.eof:
                    self.frame = self.new()
                self.started = True
                self.pending += self.frame.decompress(chunk)
                chunk = self.frame.unused_data if self.frame.eof else b""
        size = len(self.pending) if size < 0 else size
        out, self.pending = self.pending[:size], self.pending[size:]
        return out

    def close(self) -> None:
        self.raw.close()


class Decompressed:
    """A decompressing reader that also closes the file under it (the readers given a file object do not)."""

    def __init__(self, stream: ByteSource, raw: ByteSource) -> None:
        self.stream, self.raw = stream, raw

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` decompressed bytes.

        :raises InvalidDataError: the compressed data is cut or corrupt (whichever format's error it is).
        """
        try:
            return self.stream.read(size)
        except Exception as err:  # gzip, bz2, lzma and zstandard each raise their own
            raise InvalidDataError(f"compressed input is cut or corrupt: {err}") from err

    def close(self) -> None:
        self.stream.close()
        if self.raw is not sys.stdin.buffer:
            self.raw.close()


SNIFF_BYTES = 1 << 16
"""How much of the input is read to tell its kind and game."""

_TAG = re.compile(r'^\s*\[(\w+)\s+"([^"]*)"\]', re.M)
_MOVE_NUMBER = re.compile(r"\d+\.(\.\.)?")
_COMMENT = re.compile(r"\{[^}]*\}?|;[^\n]*|\$\d+")
_ICCS = re.compile(r"[a-i][0-9]-?[a-i][0-9]")
_ABAPRO = re.compile(r"([a-i][1-9]){2,3}")
_SAN = re.compile(r"([KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](=?[QRBN])?|O-O(-O)?|[a-h][1-8][a-h][1-8][qrbn]?)[+#]?[!?]*")
_TOKEN = re.compile(r"[RGOBYWK][a-g][1-7]([a-g][1-7])?", re.I)
_CJK = re.compile(r"[\u4e00-\u9fff\uff10-\uff19]")
GAME_TAGS = {"chinese chess": "xiangqi", "xiangqi": "xiangqi", "chess": "chess", "abalone": "abalone",
             "entropy": "entropy", "new entropy": "entropy"}
"""``[Game "..."]`` values (lower case) and the game each names."""


@dataclass(frozen=True)
class Sniffed:
    """What the start of an input looks like: its format, and its game with the reason, when it shows."""

    format: str
    game: str | None = None
    because: str = ""


def sniff(name: str, head: bytes) -> Sniffed:
    """The format (``ndjson``, ``records`` or ``auto`` when unsure) and game the file called ``name`` that
    starts with ``head`` looks like."""
    lower = name.lower()
    for suffix in COMPRESSED_SUFFIXES:
        lower = lower.removesuffix(suffix)
    if lower.endswith((".ndjson", ".jsonl")) or head.lstrip()[:1] == b"{":
        return Sniffed("ndjson")
    text = head.decode("utf-8", "replace")
    tags = {key.lower(): value for key, value in _TAG.findall(text)}
    if tags.get("game", "").lower() in GAME_TAGS:
        return Sniffed("records", GAME_TAGS[tags["game"].lower()], f'its [Game "{tags["game"]}"] tag')
    if tags.get("notation", "").lower() == "aba-pro" or lower.endswith(".apgn"):
        return Sniffed("records", "abalone", "its APGN header" if "notation" in tags else "its .apgn extension")
    if tags.get("format", "").lower() in ("iccs", "wxf", "chinese"):
        return Sniffed("records", "xiangqi", f'its [Format "{tags["format"]}"] tag')
    movetext = _COMMENT.sub(" ", _TAG.sub(" ", text))
    moves = [t for t in _MOVE_NUMBER.sub(" ", movetext).split() if t[:1].isalpha()][:200]
    if _CJK.search(movetext):
        return Sniffed("records", "xiangqi", "its Chinese movetext")
    if moves and all(_ICCS.fullmatch(m) for m in moves) and any("0" in m for m in moves):
        return Sniffed("records", "xiangqi", "its ICCS movetext")
    if moves and all(_ABAPRO.fullmatch(m) for m in moves) and any(c in "i9" for m in moves for c in m):
        return Sniffed("records", "abalone", "its Aba-Pro movetext")
    if moves and all(_TOKEN.fullmatch(m) for m in moves):  # a chess game cannot open with K, R or B moves only
        return Sniffed("records", "entropy", "its Entropy tokens")
    if moves and all(_SAN.fullmatch(m) for m in moves):
        return Sniffed("records", "chess", "its SAN or UCI movetext")
    if lower.endswith(".pgn") or tags:
        return Sniffed("records")
    return Sniffed("auto")


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
        while True:
            size, used = 0, 0
            while used < len(buf) and used < 10:
                size |= (buf[used] & 0x7F) << (7 * used)
                used += 1
                if not buf[used - 1] & 0x80:
                    break
            else:
                break
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
    if fmt == "auto":
        fmt = "ndjson" if op == "decode" else seen.format
        if fmt == "auto":
            fmt = "records" if args.game is not None else "ndjson"
    if fmt == "records":
        if op == "decode":
            raise UsageError("plybits decode: input must be NDJSON (or one base64url container a line)")
        if args.game is not None and seen.game is not None and args.game != seen.game:
            raise UsageError(f"{args.input} looks like a {seen.game} file ({seen.because}), not {args.game}: "
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
