"""Streaming batch endpoints: ``POST /v1/batch/{encode|decode|validate}``.

The body (NDJSON, one request a line, or a multi-game file such as a PGN) is read as it arrives and each
line answered as soon as it is done, in order, by the batch core (:mod:`app.batchcore`) running in a thread
of its own: memory stays flat however long the batch, and the event loop stays free. The thread holds one of
the few batch worker slots only while it has input to answer: waiting for the client's next bytes holds
none, and a body that makes no progress for ``Settings.body_idle_seconds`` is ended with a last problem line.
One bad line gets its own problem, never the batch's.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Literal

import anyio
import anyio.from_thread
import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import APIRouter, Query, Request
from fastapi.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.batchcore import Abandoned, Body, HeavyGroup, InputProblem, answer_each, answers, check_target, line_json
from app.errors import PROBLEM_BASE, problem_body
from app.observe import batch_lines_counter, plies_counter
from app.routes import PROBLEM_CONTENT
from app.service import decode_work, plies_hint, settings_of, workers_of
from app.settings import Settings
from app.work import OverloadedError, Workers
from plybits import registry
from plybits.container import read_header
from plybits.errors import PlybitsError
from plybits.records import from_b64url

NDJSON = "application/x-ndjson"
NDJSON_TYPES = frozenset({NDJSON, "application/jsonl", "application/jsonlines", "application/x-jsonlines",
                          "application/json-lines"})
PGN = "application/x-chess-pgn"
TEXT = "text/plain"
FLUSH_BYTES = 32 << 10
"""Output is sent once this much is ready, or when the next input chunk must be awaited."""

router = APIRouter(prefix="/v1/batch", tags=["batch"])


BATCH_WORKERS = CapacityLimiter(8)
"""Batches answering lines at once; others wait their turn. A separate limiter, so that long batches never
starve the single-request endpoints of threads. A batch waiting for its body holds no slot."""
BATCH_STREAMS = CapacityLimiter(4096)
"""Batches open at once (each has a thread of its own, parked while it waits for input)."""

Emit = Callable[[bytes], None]


class BatchResponse(Response):
    """A 200 NDJSON response written by ``work(emit)`` in a thread of its own while it reads the request body.

    The thread hands each piece of output to the event loop through a small bounded channel: a slow client
    slows the batch down (and so the reading of the body) instead of piling output up in memory.
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
                raise Abandoned() from None

        async def worker() -> None:
            async with sender:
                await anyio.to_thread.run_sync(self.work, emit, limiter=BATCH_STREAMS)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(worker)
            async with receiver:
                async for data in receiver:
                    await send({"type": "http.response.body", "body": data, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def idle_problem(seconds: float) -> dict[str, Any]:
    """The last answer of a batch whose body made no progress for ``seconds``."""
    return {"type": PROBLEM_BASE + "body-idle", "title": "Request body stalled", "status": 408,
            "detail": f"no part of the request body arrived for {seconds:g} s; the batch ends here"}


def body_chunks(request: Request, idle_seconds: float) -> Iterator[bytes]:
    """The request body, chunk by chunk, for the batch's thread; each chunk awaited on the event loop.

    :raises InputProblem: when no chunk arrives for ``idle_seconds``.
    :raises Abandoned: when the client went away.
    """
    stream: AsyncIterator[bytes] = request.stream().__aiter__()

    async def next_chunk() -> bytes | None:
        with anyio.move_on_after(idle_seconds):
            try:
                return await stream.__anext__()
            except StopAsyncIteration:
                return None
            except ClientDisconnect:
                raise Abandoned() from None
        raise InputProblem(idle_problem(idle_seconds))

    while (chunk := anyio.from_thread.run(next_chunk)) is not None:
        if chunk:
            yield chunk


def heavy_plies(op: str, request: Any) -> int | None:
    """A bound on the plies of a batch line that asks for a heavy scheme's work (:attr:`~plybits.game.Scheme.heavy`:
    ``rank``), by its ``game`` and ``scheme`` and its moves or record, or by its container's header (a record
    section's variations counted as :func:`app.service.decode` counts them); ``None`` for any other line, and for
    a line too broken to tell, which is answered where it is read."""
    if not isinstance(request, dict):
        return None
    try:
        if op == "encode" and isinstance(request.get("game"), str) and isinstance(request.get("scheme"), str):
            if not registry.get_scheme(request["game"], request["scheme"]).heavy:
                return None
            moves, record = request.get("moves"), request.get("record")
            return plies_hint(moves if isinstance(moves, list) else None, record if isinstance(record, str) else None)
        if op == "decode" and isinstance(request.get("data"), str):
            scheme, plies = decode_work(*read_header(from_b64url(request["data"])))
            return plies if scheme.heavy else None
    except PlybitsError:
        pass
    return None


def pooled(workers: Workers) -> Callable[[str, list[Any], Settings], list[tuple[str, Body]]]:
    """:func:`~app.batchcore.answer_each` of a group of heavy lines in the worker processes (so that a batch of
    ``rank`` work never holds the interpreter beside the event loop), their plies counted here; a group refused
    for a full pool waits its turn, and the pool's own deadline is every line's problem."""

    def answer_all(op: str, requests: list[Any], settings: Settings) -> list[tuple[str, Body]]:
        while True:
            try:
                answered, plies = anyio.from_thread.run(workers.run, answer_each, op, requests, settings)
                for game, count in plies.items():
                    plies_counter(op, game).inc(count)
                return answered
            except OverloadedError as err:
                time.sleep(err.retry_after)
            except PlybitsError as err:  # the pool's own deadline
                return [("error", problem_body(err))] * len(requests)

    return answer_all


def run_batch(
    op: str, chunks: Iterator[bytes], emit: Emit, settings: Settings, *, game: str | None, scheme: str | None,
    records: bool, group: HeavyGroup | None = None, options: dict[str, str] | None = None,
) -> None:
    """Answer a whole batch through ``emit``, in order. The lines read are answered (``group``'s too) and their
    output emitted, and the worker slot given back, before waiting for more input; the slot is taken again once
    input is there."""
    out = bytearray()
    token = object()
    held = False

    def flush() -> None:
        if out:
            emit(bytes(out))
            out.clear()

    def write(number: int, key: str, value: Body) -> None:
        nonlocal out
        batch_lines_counter(op, "ok" if key == "result" else "error").inc()
        out += line_json(number, key, value)
        if len(out) >= FLUSH_BYTES:
            flush()

    def take(slot: bool) -> None:
        nonlocal held
        if slot and not held:
            anyio.from_thread.run(BATCH_WORKERS.acquire_on_behalf_of, token)
        elif held and not slot:
            anyio.from_thread.run_sync(BATCH_WORKERS.release_on_behalf_of, token)
        held = slot

    def pulled() -> Iterator[bytes]:
        while True:
            if group is not None:
                for answered in group.drain():  # the lines read so far wait for no later ones
                    write(*answered)
            take(False)
            flush()  # the lines so far are answered: hand them over before waiting for the next chunk
            chunk = next(chunks, None)
            take(True)
            if chunk is None:
                return
            yield chunk

    try:
        for number, key, value in answers(op, pulled(), settings, game=game, scheme=scheme, records=records,
                                          group=group, options=options):
            write(number, key, value)
        flush()
    except Abandoned:
        return  # the client went away: nobody to answer
    finally:
        if held:
            take(False)


def media_type(request: Request) -> str:
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def start_batch(op: str, request: Request, game: str | None, scheme: str | None,
                options: dict[str, str] | None = None) -> BatchResponse:
    """Check what can be checked before streaming (media type, game, scheme), then stream the answers;
    ``options`` fill the lines' other fields where they have none."""
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
    check_target(op, game, scheme)
    chunks = body_chunks(request, settings.body_idle_seconds)
    group = HeavyGroup(op, settings, heavy_plies, pooled(workers_of(request)))
    return BatchResponse(lambda emit: run_batch(op, chunks, emit, settings, game=game, scheme=scheme,
                                                records=records, group=group, options=options))


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
FIDELITY_QUERY = Query(None, description="encode: full (the default for a record) or moves, for the lines and "
                                         "games without one")
FORMAT_QUERY = Query(None, description="decode: moves (the default) or record, for the lines without one")


@router.post("/encode", status_code=200, response_class=BatchResponse, responses=RESPONSES,
             openapi_extra=BODY_DOC)
def batch_encode(request: Request, game: str | None = GAME_QUERY, scheme: str | None = SCHEME_QUERY,
                 fidelity: Literal["full", "moves"] | None = FIDELITY_QUERY) -> BatchResponse:
    """Encode many games: each NDJSON line is an encode request, or each game of a multi-game file a record."""
    return start_batch("encode", request, game, scheme, {"fidelity": fidelity} if fidelity else None)


@router.post("/decode", status_code=200, response_class=BatchResponse, responses=RESPONSES,
             openapi_extra=DECODE_BODY_DOC)
def batch_decode(request: Request, format: Literal["moves", "record"] | None = FORMAT_QUERY) -> BatchResponse:
    """Decode many containers: each NDJSON line is a decode request ``{"data": ...}`` (``format: "record"``
    answers the record's text too)."""
    return start_batch("decode", request, None, None, {"format": format} if format else None)


@router.post("/validate", status_code=200, response_class=BatchResponse, responses=RESPONSES,
             openapi_extra=BODY_DOC)
def batch_validate(request: Request, game: str | None = GAME_QUERY) -> BatchResponse:
    """Validate many games: each NDJSON line is a validate request, or each game of a multi-game file a record."""
    return start_batch("validate", request, game, None)
