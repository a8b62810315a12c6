"""The v1 endpoints: each reads its model, calls one library verb, and writes its model.

A small request runs its verb on the event loop: a few milliseconds at most, cheaper than a hop to the
worker processes and back. A large one (more than ``Settings.inline_plies`` plies) or any ``rank`` work goes
to the worker processes (:mod:`app.work`), so that it never stalls the requests around it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fastapi import APIRouter, Request

import plybits
from app.models import (
    CodecInfo,
    ConvertRequest,
    ConvertResponse,
    DecodeRequest,
    DecodeResponse,
    EncodeRequest,
    EncodeResponse,
    GameStatus,
    MoveError,
    MovesRequest,
    MovesResponse,
    Problem,
    ValidateRequest,
    ValidateResponse,
)
from app.observe import PLIES
from app.settings import Settings
from app.work import Workers
from plybits import registry
from plybits.records import b64url, from_b64url, peek
from plybits.errors import PlybitsError

PROBLEM_CONTENT = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


def problem_responses(*codes: tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries of problem+json error statuses (``model`` only registers the Problem schema)."""
    return {code: {"model": Problem, "content": PROBLEM_CONTENT, "description": text} for code, text in codes}


PROBLEMS = problem_responses((413, "over a limit"), (422, "invalid input"),
                             (503, "the workers are full (see Retry-After), or the work ran past its time limit"))

router = APIRouter(prefix="/v1", responses=PROBLEMS)


T = TypeVar("T")

HEAVY_SCHEMES = frozenset({"rank"})
"""Schemes whose work is 10-250 times a seed scheme's a ply (a move model at every ply): never run inline."""


def settings_of(request: Request) -> Settings:
    """The settings the app was built with."""
    settings: Settings = request.app.state.settings
    return settings


def plies_hint(moves: Sequence[str] | None, record: str | None) -> int:
    """An upper bound on the plies of a move list or record (in a record, each ply but the last takes at least
    three characters: a move of two or more, and a separator)."""
    if moves is not None:
        return len(moves)
    return (len(record or "") + 1) // 3


def runs_inline(settings: Settings, plies: int, scheme: str | None = None) -> bool:
    """Whether work on ``plies`` plies (with ``scheme``, if any) is small enough for the event loop."""
    return plies <= settings.inline_plies and scheme not in HEAVY_SCHEMES


async def run(request: Request, inline: bool, work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` on the event loop when ``inline``, else in a worker process (a module-level ``work`` and
    picklable ``args``)."""
    if inline:
        return work(*args)
    workers: Workers = request.app.state.workers
    return await workers.run(work, *args)


@router.get("/codecs", response_model=list[CodecInfo])
async def list_codecs() -> list[CodecInfo]:
    """Every (game, scheme) this service encodes and decodes."""
    return [
        CodecInfo(
            game=scheme.game,
            scheme=scheme.name,
            description=scheme.description,
            bits_per_ply=scheme.bits_per_ply,
            notations=list(registry.get_game(scheme.game).notations),
            starts=list(registry.get_game(scheme.game).starts),
        )
        for scheme in registry.schemes()
    ]


R = TypeVar("R", EncodeResponse, DecodeResponse)


def counted(op: str, response: R) -> R:
    """``response``, its plies counted in the metrics (here in the service process: a worker's counts are lost)."""
    PLIES.labels(op, response.game).inc(response.plies)
    return response


def encode_body(body: EncodeRequest, settings: Settings) -> EncodeResponse:
    """Encode one request, counted (shared with the batch endpoint)."""
    return counted("encode", encode_response(body, settings))


def encode_response(body: EncodeRequest, settings: Settings) -> EncodeResponse:
    """Encode one request (uncounted: it may run in a worker process)."""
    result = plybits.encode(
        body.game, body.scheme, moves=body.moves, record=body.record, notation=body.notation,
        start=body.start, tags=body.tags, max_plies=settings.max_plies,
    )
    return EncodeResponse(
        game=result.game,
        scheme=result.scheme,
        data=b64url(result.data),
        payload=result.payload.hex(),
        plies=result.plies,
        payload_bits=result.payload_bits,
        size_bytes=len(result.data),
        bits_per_ply=result.bits_per_ply,
        final_position=result.final_position,
        dropped=result.dropped or None,
    )


def decode_body(body: DecodeRequest, settings: Settings) -> DecodeResponse:
    """Decode one request (shared with the batch endpoint)."""
    return decode_container(from_b64url(body.data), body.notation, settings)


def decode_container(data: bytes, notation: str | None, settings: Settings) -> DecodeResponse:
    """Decode a container (already out of its base64url) into moves written in ``notation``, counted."""
    return counted("decode", decoded_response(data, notation, settings))


def decoded_response(data: bytes, notation: str | None, settings: Settings) -> DecodeResponse:
    """Decode a container into moves written in ``notation`` (uncounted: it may run in a worker process)."""
    result = plybits.decode(data, notation=notation, max_plies=settings.max_plies)
    return DecodeResponse(
        game=result.game, scheme=result.scheme, start=result.start, moves=result.moves,
        tags=result.tags, plies=result.plies, final_position=result.final_position,
    )


def validate_body(body: ValidateRequest, settings: Settings) -> ValidateResponse:
    """Validate one request: a rule or syntax problem is a 200 with ``valid: false``."""
    registry.get_game(body.game)
    try:
        replay = plybits.read_record(
            body.game, moves=body.moves, record=body.record, notation=body.notation,
            start=body.start, max_plies=settings.max_plies,
        )
    except PlybitsError as err:
        if err.ply is None:
            raise
        return ValidateResponse(valid=False, error=MoveError(ply=err.ply, move=err.move, reason=err.reason))
    return ValidateResponse(
        valid=True,
        plies=len(replay.moves),
        final_position=replay.final.fen(),
        status=GameStatus(**replay.final.status()),
    )


@router.post("/encode", response_model=EncodeResponse, response_model_exclude_none=True)
async def encode(body: EncodeRequest, request: Request) -> EncodeResponse:
    """Encode a move list or record into a container with the chosen scheme."""
    settings = settings_of(request)
    inline = runs_inline(settings, plies_hint(body.moves, body.record), body.scheme)
    return counted("encode", await run(request, inline, encode_response, body, settings))


@router.post("/decode", response_model=DecodeResponse)
async def decode(body: DecodeRequest, request: Request) -> DecodeResponse:
    """Decode a container back into moves."""
    settings = settings_of(request)
    data = from_b64url(body.data)
    _, scheme, plies = peek(data, max_plies=settings.max_plies)
    inline = runs_inline(settings, plies, scheme)
    return counted("decode", await run(request, inline, decoded_response, data, body.notation, settings))


@router.post("/validate", response_model=ValidateResponse, response_model_exclude_none=True)
async def validate(body: ValidateRequest, request: Request) -> ValidateResponse:
    """Check every move of a game; report the first bad ply or the final state."""
    settings = settings_of(request)
    inline = runs_inline(settings, plies_hint(body.moves, body.record))
    return await run(request, inline, validate_body, body, settings)


@router.post("/convert", response_model=ConvertResponse)
async def convert(body: ConvertRequest, request: Request) -> ConvertResponse:
    """Rewrite a game's moves from one notation into another."""
    settings = settings_of(request)
    return await run(request, runs_inline(settings, plies_hint(body.moves, body.record)), convert_body, body, settings)


def convert_body(body: ConvertRequest, settings: Settings) -> ConvertResponse:
    """Convert one request."""
    return ConvertResponse(moves=plybits.convert(
        body.game, moves=body.moves, record=body.record, from_notation=body.from_notation,
        to_notation=body.to_notation, start=body.start, max_plies=settings.max_plies,
    ))


@router.post("/moves", response_model=MovesResponse)
async def moves(body: MovesRequest, request: Request) -> MovesResponse:
    """The legal moves after replaying ``moves`` from ``start``."""
    settings = settings_of(request)
    return await run(request, runs_inline(settings, plies_hint(body.moves, None)), moves_body, body, settings)


def moves_body(body: MovesRequest, settings: Settings) -> MovesResponse:
    """The legal moves of one request."""
    position, legal = plybits.legal_moves(
        body.game, moves=body.moves, notation=body.notation, start=body.start, max_plies=settings.max_plies,
    )
    return MovesResponse(position=position, legal=legal)
