"""Streaming batch endpoints: ``POST /v1/batch/{encode|decode|validate}``.

The body (NDJSON, one request a line, or a multi-game file such as a PGN) is read as it arrives and each
line answered as soon as it is done, in order, by a generator that runs in a worker thread: memory stays
flat however long the batch, and the event loop stays free. One bad line gets its own problem, never
the batch's.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import APIRouter, Query, Request
from fastapi.exceptions import HTTPException
from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.errors import PROBLEM_BASE, internal_problem, problem_body, validation_problem
from app.models import DecodeRequest, EncodeRequest, ValidateRequest
from app.observe import BATCH_LINES
from app.routes import PROBLEM_CONTENT, decode_body, encode_body, settings_of, validate_body
from app.settings import Settings
from plybits import registry
from plybits.errors import LimitExceededError, PlybitsError
from plybits.records import seed_scheme
from plybits.streams import TOO_LONG, LongLine, record_lines, split_lines, split_stream

log = logging.getLogger("plybits.app")

NDJSON = "application/x-ndjson"
NDJSON_TYPES = frozenset({NDJSON, "application/jsonl", "application/jsonlines", "application/x-jsonlines",
                          "application/json-lines"})
PGN = "application/x-chess-pgn"
TEXT = "text/plain"
FLUSH_BYTES = 32 << 10
"""Output is sent once this much is ready, or when the next input chunk must be awaited."""

OPS: dict[str, tuple[type[BaseModel], Callable[[Any, Settings], BaseModel], bool]] = {
    "encode": (EncodeRequest, encode_body, True),
    "decode": (DecodeRequest, decode_body, False),
    "validate": (ValidateRequest, validate_body, True),
}
"""Each operation's request model, per-request function, and whether ``None`` fields are left out (as the
single-request endpoints do)."""

router = APIRouter(prefix="/v1/batch", tags=["batch"])


BATCH_WORKERS = CapacityLimiter(8)
"""Batches run at once (each holds a worker thread for its whole life); others wait their turn. A separate
limiter, so that long batches never starve the single-request endpoints of threads."""

Emit = Callable[[bytes], None]


class BatchResponse(Response):
    """A 200 NDJSON response written by ``work(emit)`` in a worker thread while it reads the request body.

    The worker hands each piece of output to the event loop through a small bounded channel: a slow client
    slows the worker down (and so the reading of the body) instead of piling output up in memory.
    """

    media_type = NDJSON

    def __init__(self, work: Callable[[Emit], None]) -> None:
        super().__init__(media_type=NDJSON)
        self.work = work

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", NDJSON.encode())]})
        sender, receiver = anyio.create_memory_object_stream[bytes](8)

        def emit(data: bytes) -> None:
            try:
                anyio.from_thread.run(sender.send, data)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                raise ClientDisconnect() from None

        async def worker() -> None:
            async with sender:
                await anyio.to_thread.run_sync(self.work, emit, limiter=BATCH_WORKERS)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(worker)
            async with receiver:
                async for data in receiver:
                    await send({"type": "http.response.body", "body": data, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def line_json(line: int, key: str, value: Any) -> bytes:
    """One output line: ``{"line": n, "result"|"error": ...}`` and its newline."""
    return json.dumps({"line": line, key: value}, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def answer(op: str, request: dict[str, Any] | Any, settings: Settings) -> tuple[str, Any]:
    """``("result", body)`` or ``("error", problem)`` for one request object; never raises."""
    model, handler, drop_none = OPS[op]
    try:
        body = model.model_validate(request)
        result = handler(body, settings)
        return "result", result.model_dump(mode="json", exclude_none=drop_none)
    except PlybitsError as err:
        return "error", problem_body(err)
    except ValidationError as err:
        return "error", validation_problem(err.errors())
    except Exception as err:  # a bug in a codec must cost one line, not the batch
        return "error", internal_problem(err)


@dataclass
class LineProblem:
    """A line refused before it reached a model (not JSON): its problem document."""

    body: dict[str, Any]


def ndjson_requests(
    lines: Iterator[bytes | None], defaults: dict[str, str], settings: Settings
) -> Iterator[tuple[int, Any]]:
    """``(line number, request object | error)`` for every non-blank NDJSON line; 1-based physical line numbers."""
    for number, raw in enumerate(lines, 1):
        if number > settings.max_batch_lines:
            yield number, LimitExceededError(
                f"batch has more than {settings.max_batch_lines} lines; line {number} and after are not read")
            return
        if raw is TOO_LONG:
            yield number, LimitExceededError(f"line is longer than the limit of {settings.max_line_bytes} bytes")
            continue
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except ValueError as err:
            yield number, LineProblem({"type": PROBLEM_BASE + "invalid-request", "title": "Invalid request",
                                       "status": 422, "detail": f"line is not JSON: {err}"})
            continue
        if isinstance(obj, dict):
            for key, value in defaults.items():
                obj.setdefault(key, value)
        yield number, obj


def record_requests(
    lines: Iterator[str | LongLine], game: str, scheme: str | None, settings: Settings
) -> Iterator[tuple[int, dict[str, Any] | PlybitsError]]:
    """``(game number, request object | error)`` for every record of a multi-game file; 1-based."""
    for number, record in enumerate(split_stream(game, lines, max_chars=settings.max_line_bytes), 1):
        if number > settings.max_games:
            yield number, LimitExceededError(
                f"file holds more than {settings.max_games} games; game {number} and after are not read")
            return
        if isinstance(record, PlybitsError):
            yield number, record
            continue
        request: dict[str, Any] = {"game": game, "record": record}
        if scheme is not None:
            request["scheme"] = scheme
        yield number, request


def run_batch(
    op: str, chunks: Iterator[bytes], emit: Emit, settings: Settings, *, game: str | None, scheme: str | None,
    records: bool,
) -> None:
    """Answer a whole batch through ``emit``, in order; output ready is emitted before waiting for more input."""
    out = bytearray()

    def flush() -> None:
        if out:
            emit(bytes(out))
            out.clear()

    def pulled() -> Iterator[bytes]:
        for chunk in chunks:
            yield chunk
            flush()  # the lines of this chunk are answered: hand them over before blocking on the next

    if records:
        assert game is not None
        requests: Iterator[tuple[int, Any]] = record_requests(
            record_lines(pulled(), settings.max_line_bytes), game, scheme, settings)
    else:
        defaults = {k: v for k, v in (("game", game), ("scheme", scheme)) if v is not None}
        requests = ndjson_requests(split_lines(pulled(), settings.max_line_bytes), defaults, settings)
    number = 0
    try:
        while True:
            try:
                item = next(requests)
            except StopIteration:
                break
            except PlybitsError as err:  # the body went over its size limit while streaming
                out += line_json(number + 1, "error", problem_body(err))
                BATCH_LINES.labels(op, "error").inc()
                break
            except ClientDisconnect:
                raise
            except Exception as err:  # a bug in reading or splitting: say so on a last line, never cut silently
                out += line_json(number + 1, "error", internal_problem(err))
                break
            number, request = item
            if isinstance(request, PlybitsError):
                key, value = "error", problem_body(request)
            elif isinstance(request, LineProblem):
                key, value = "error", request.body
            else:
                key, value = answer(op, request, settings)
            BATCH_LINES.labels(op, "ok" if key == "result" else "error").inc()
            out += line_json(number, key, value)
            if len(out) >= FLUSH_BYTES:
                flush()
        flush()
    except ClientDisconnect:
        return  # the client went away: nobody to answer


def body_chunks(request: Request) -> Iterator[bytes]:
    """The request body, chunk by chunk, for a worker thread (each chunk fetched on the event loop)."""
    stream: AsyncIterator[bytes] = request.stream().__aiter__()

    async def next_chunk() -> bytes:
        return await stream.__anext__()

    while True:
        try:
            chunk = anyio.from_thread.run(next_chunk)
        except StopAsyncIteration:
            return
        if chunk:
            yield chunk


def media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def start_batch(op: str, request: Request, game: str | None, scheme: str | None) -> BatchResponse:
    """Check what can be checked before streaming (media type, game, scheme), then stream the answers."""
    settings = settings_of(request)
    kind = media_type(request)
    if kind in NDJSON_TYPES:
        records = False
    elif kind in (PGN, TEXT):
        if op == "decode":
            raise HTTPException(415, f"batch decode reads NDJSON ({NDJSON}) lines of {{\"data\": ...}}, not {kind!r}")
        if game is None:
            if kind == TEXT:
                raise HTTPException(422, f"a {TEXT} batch needs ?game= to say which game its records are")
            game = "chess"
        records = True
    else:
        raise HTTPException(
            415, f"batch bodies are {NDJSON}, {PGN} or {TEXT} (with ?game=), not {kind or 'missing'!r}")
    if game is not None:
        registry.get_game(game)
        if scheme is not None:
            registry.get_scheme(game, scheme)
    if records and op == "encode" and scheme is None:
        assert game is not None
        scheme = seed_scheme(game)
    chunks = body_chunks(request)
    return BatchResponse(
        lambda emit: run_batch(op, chunks, emit, settings, game=game, scheme=scheme, records=records))


BODY_DOC = {
    "requestBody": {
        "required": True,
        "description": "NDJSON: one request object a line (the single endpoint's body; `game`/`scheme` may come "
                       "from the query). Or a multi-game file: `application/x-chess-pgn` (chess unless "
                       "?game=), or `text/plain` with ?game= (encode and validate only).",
        "content": {
            NDJSON: {"schema": {"type": "string"}},
            PGN: {"schema": {"type": "string"}},
            TEXT: {"schema": {"type": "string"}},
        },
    },
}
DECODE_BODY_DOC = {
    "requestBody": {
        "required": True,
        "description": "NDJSON: one decode request object (`{\"data\": ...}`) a line.",
        "content": {NDJSON: {"schema": {"type": "string"}}},
    },
}
RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": 'One NDJSON line per input line (or game), in order: {"line": n, "result": {...}} '
                       'or {"line": n, "error": {problem}}.',
        "content": {NDJSON: {"schema": {"type": "string"}}},
    },
    **{code: {"content": PROBLEM_CONTENT, "description": text} for code, text in (
        (413, "body over the size limit (by Content-Length)"),
        (415, "unsupported body media type"),
        (422, "unknown game or scheme, or text/plain without ?game="))},
}
GAME_QUERY = Query(None, description="the game of a multi-game file; default game of NDJSON lines without one")
SCHEME_QUERY = Query(None, description="encode: the scheme (default: the game's seed scheme for a multi-game "
                                       "file); default scheme of NDJSON lines without one")


@router.post("/encode", status_code=200, response_class=BatchResponse, responses=RESPONSES,
             openapi_extra=BODY_DOC)
def batch_encode(request: Request, game: str | None = GAME_QUERY, scheme: str | None = SCHEME_QUERY) -> BatchResponse:
    """Encode many games: each NDJSON line is an encode request, or each game of a multi-game file a record."""
    return start_batch("encode", request, game, scheme)


@router.post("/decode", status_code=200, response_class=BatchResponse, responses=RESPONSES,
             openapi_extra=DECODE_BODY_DOC)
def batch_decode(request: Request) -> BatchResponse:
    """Decode many containers: each NDJSON line is a decode request ``{"data": ...}``."""
    return start_batch("decode", request, None, None)


@router.post("/validate", status_code=200, response_class=BatchResponse, responses=RESPONSES,
             openapi_extra=BODY_DOC)
def batch_validate(request: Request, game: str | None = GAME_QUERY) -> BatchResponse:
    """Validate many games: each NDJSON line is a validate request, or each game of a multi-game file a record."""
    return start_batch("validate", request, game, None)
