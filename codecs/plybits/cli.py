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
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from plybits import records, streams
from plybits.records import b64url, from_b64url, seed_scheme
from plybits.errors import InvalidRecordError, LimitExceededError, PlybitsError
from plybits.registry import get_game, get_scheme

CHUNK = 1 << 16
MAX_LINE_BYTES = 16 << 20
"""Longest line (or game) read from a file; longer ones are answered with an error and skipped."""
PROBLEM_BASE = "https://plybits.dev/problems/"
REQUEST_FIELDS = {
    "encode": {"game", "scheme", "moves", "record", "notation", "start", "tags"},
    "decode": {"data", "notation"},
    "validate": {"game", "moves", "record", "notation", "start"},
}


def problem(err: PlybitsError) -> dict[str, Any]:
    """The problem document of an error, as the service writes it."""
    body: dict[str, Any] = {"type": PROBLEM_BASE + err.problem_type, "title": err.title, "status": err.status,
                            "detail": str(err)}
    if err.ply is not None:
        body["ply"] = err.ply
    if err.move is not None:
        body["move"] = err.move
    return body


def _fields(request: Any, op: str) -> dict[str, Any]:
    """The checked fields of one NDJSON request object.

    :raises InvalidRecordError: on a non-object, an unknown field or a field of the wrong type.
    """
    if not isinstance(request, dict):
        raise InvalidRecordError(f"a request line must be a JSON object, not {type(request).__name__}")
    unknown = set(request) - REQUEST_FIELDS[op]
    if unknown:
        raise InvalidRecordError(f"unknown field(s) {', '.join(sorted(map(repr, unknown)))} for {op}")
    for key, value in request.items():
        if value is None:
            continue
        if key == "moves":
            ok = isinstance(value, list) and all(isinstance(m, str) for m in value)
        elif key == "tags":
            ok = isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        else:
            ok = isinstance(value, str)
        if not ok:
            raise InvalidRecordError(f"field {key!r} has the wrong type: {value!r:.80}")
    return {k: v for k, v in request.items() if v is not None}


def do_encode(request: dict[str, Any], max_plies: int) -> dict[str, Any]:
    fields = _fields(request, "encode")
    for key in ("game", "scheme"):
        if key not in fields:
            raise InvalidRecordError(f"missing {key!r} (give it in the line or with --{key})")
    result = records.encode(fields.pop("game"), fields.pop("scheme"), max_plies=max_plies, **fields)
    out: dict[str, Any] = {
        "game": result.game, "scheme": result.scheme, "data": b64url(result.data), "payload": result.payload.hex(),
        "plies": result.plies, "payload_bits": result.payload_bits, "size_bytes": len(result.data),
        "bits_per_ply": result.bits_per_ply, "final_position": result.final_position,
    }
    if result.dropped:
        out["dropped"] = result.dropped
    return out


def do_decode(request: dict[str, Any], max_plies: int) -> dict[str, Any]:
    fields = _fields(request, "decode")
    if "data" not in fields:
        raise InvalidRecordError("missing 'data'")
    result = records.decode(from_b64url(fields["data"]), notation=fields.get("notation"), max_plies=max_plies)
    return {"game": result.game, "scheme": result.scheme, "start": result.start, "moves": result.moves,
            "tags": result.tags, "plies": result.plies, "final_position": result.final_position}


def do_validate(request: dict[str, Any], max_plies: int) -> dict[str, Any]:
    fields = _fields(request, "validate")
    if "game" not in fields:
        raise InvalidRecordError("missing 'game' (give it in the line or with --game)")
    get_game(fields["game"])
    try:
        replay = records.read_record(fields.pop("game"), max_plies=max_plies, **fields)
    except PlybitsError as err:
        if err.ply is None:
            raise
        return {"valid": False, "error": {"ply": err.ply, "move": err.move, "reason": err.reason}}
    status = {k: v for k, v in replay.final.status().items() if v is not None}
    return {"valid": True, "plies": len(replay.moves), "final_position": replay.final.fen(), "status": status}


OPS: dict[str, Callable[[dict[str, Any], int], dict[str, Any]]] = {
    "encode": do_encode, "decode": do_decode, "validate": do_validate,
}


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
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} B"


def _chunks(source: IO[bytes], tally: Tally, progress: Progress) -> Iterator[bytes]:
    while True:
        chunk = source.read(CHUNK)
        if not chunk:
            return
        tally.bytes_in += len(chunk)
        yield chunk
        progress.update()


def _line_text(raw: bytes | None, first: bool) -> str | None:
    if raw is None:
        return None
    if first and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8").rstrip("\r")
    except UnicodeDecodeError:
        return raw.decode("latin-1").rstrip("\r")


def _requests(op: str, lines: Iterator[bytes | None], args: argparse.Namespace, records_mode: bool,
              ) -> Iterator[tuple[int, dict[str, Any] | PlybitsError]]:
    """``(line or game number, request | error)`` for every record of the input."""
    if records_mode:
        texts = (_line_text(raw, i == 0) for i, raw in enumerate(lines))
        for number, text in enumerate(streams.split_stream(args.game, texts, max_chars=MAX_LINE_BYTES), 1):
            if isinstance(text, PlybitsError):
                yield number, text
                continue
            request: dict[str, Any] = {"game": args.game, "record": text}
            if op == "encode":
                request["scheme"] = args.scheme
            yield number, request
        return
    for number, raw in enumerate(lines, 1):
        if raw is None:
            yield number, LimitExceededError(f"line is longer than {MAX_LINE_BYTES} bytes")
            continue
        line = raw.strip()
        if not line:
            continue
        if op == "decode" and not line.startswith(b"{"):
            yield number, {"data": line.decode("ascii", "replace")}
            continue
        try:
            obj = json.loads(line)
        except ValueError as err:
            yield number, InvalidRecordError(f"line is not JSON: {err}")
            continue
        if isinstance(obj, dict):
            if op == "decode" and "data" not in obj:
                if "error" in obj and "line" in obj:
                    yield number, InvalidRecordError("this line holds an error, not a container")
                    continue
                if isinstance(obj.get("result"), dict) and "data" in obj["result"]:
                    obj = {"data": obj["result"]["data"]}  # the output of `plybits encode`
            for key in ("game", "scheme"):
                if getattr(args, key, None) is not None and key in REQUEST_FIELDS[op]:
                    obj.setdefault(key, getattr(args, key))
            if op == "encode" and "scheme" not in obj and "game" in obj and isinstance(obj["game"], str):
                try:
                    obj["scheme"] = seed_scheme(obj["game"])
                except PlybitsError:
                    pass  # the unknown game is reported by the verb
        yield number, obj


def run(op: str, args: argparse.Namespace) -> int:
    """Answer every record of ``args.input`` into ``args.output``; print the summary; the exit status."""
    records_mode = _records_mode(op, args)
    source: IO[bytes] = sys.stdin.buffer if args.input == "-" else open(args.input, "rb")  # noqa: SIM115
    sink: IO[bytes] = sys.stdout.buffer if args.output == "-" else open(args.output, "wb")  # noqa: SIM115
    total = None if args.input == "-" else os.path.getsize(args.input)
    tally = Tally()
    show = args.progress if args.progress is not None else (sys.stderr.isatty() and not args.quiet)
    progress = Progress(tally, total, sys.stderr, show and not args.quiet)
    handler = OPS[op]
    try:
        lines = streams.split_lines(_chunks(source, tally, progress), MAX_LINE_BYTES)
        for number, request in _requests(op, lines, args, records_mode):
            if isinstance(request, PlybitsError):
                key, value = "error", problem(request)
            else:
                try:
                    key, value = "result", handler(request, args.max_plies)
                except PlybitsError as err:
                    key, value = "error", problem(err)
                except Exception as err:  # one record's bug never stops the file
                    key, value = "error", {"type": PROBLEM_BASE + "internal", "title": "Internal error",
                                           "status": 500, "detail": f"internal error ({type(err).__name__}: {err})"}
            tally.records += 1
            tally.errors += key == "error"
            line = json.dumps({"line": number, key: value}, separators=(",", ":"), ensure_ascii=False) + "\n"
            data = line.encode()
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
        get_game(args.game)
        if op == "encode" and args.scheme is None:
            args.scheme = seed_scheme(args.game)
    if args.game is not None:
        get_game(args.game)  # an unknown game or scheme is a usage error, found before reading anything
        if getattr(args, "scheme", None) is not None:
            get_scheme(args.game, args.scheme)
    return fmt == "records"


def serve(args: argparse.Namespace) -> int:
    """Run the HTTP service with uvicorn (its own access log off: the service writes JSON lines), keeping idle
    connections open ``PLYBITS_KEEP_ALIVE_SECONDS`` (uvicorn's 5 s races clients that reuse a pooled connection)."""
    import uvicorn

    from app.settings import Settings

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
