"""The v1 endpoints: each reads its model, calls one library verb, and writes its model."""

from __future__ import annotations

from typing import Any

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
from plybits import registry
from plybits.records import b64url, from_b64url
from plybits.errors import PlybitsError

PROBLEM_CONTENT = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


def problem_responses(*codes: tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries of problem+json error statuses (``model`` only registers the Problem schema)."""
    return {code: {"model": Problem, "content": PROBLEM_CONTENT, "description": text} for code, text in codes}


PROBLEMS = problem_responses((413, "over a limit"), (422, "invalid input"))

router = APIRouter(prefix="/v1", responses=PROBLEMS)


def settings_of(request: Request) -> Settings:
    return request.app.state.settings


@router.get("/codecs", response_model=list[CodecInfo])
def list_codecs() -> list[CodecInfo]:
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


def encode_body(body: EncodeRequest, settings: Settings) -> EncodeResponse:
    """Encode one request (shared with the batch endpoint)."""
    result = plybits.encode(
        body.game, body.scheme, moves=body.moves, record=body.record, notation=body.notation,
        start=body.start, tags=body.tags, max_plies=settings.max_plies,
    )
    PLIES.labels("encode", result.game).inc(result.plies)
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
    result = plybits.decode(from_b64url(body.data), notation=body.notation, max_plies=settings.max_plies)
    PLIES.labels("decode", result.game).inc(result.plies)
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
def encode(body: EncodeRequest, request: Request) -> EncodeResponse:
    """Encode a move list or record into a container with the chosen scheme."""
    return encode_body(body, settings_of(request))


@router.post("/decode", response_model=DecodeResponse)
def decode(body: DecodeRequest, request: Request) -> DecodeResponse:
    """Decode a container back into moves."""
    return decode_body(body, settings_of(request))


@router.post("/validate", response_model=ValidateResponse, response_model_exclude_none=True)
def validate(body: ValidateRequest, request: Request) -> ValidateResponse:
    """Check every move of a game; report the first bad ply or the final state."""
    return validate_body(body, settings_of(request))


@router.post("/convert", response_model=ConvertResponse)
def convert(body: ConvertRequest, request: Request) -> ConvertResponse:
    """Rewrite a game's moves from one notation into another."""
    moves = plybits.convert(
        body.game, moves=body.moves, record=body.record, from_notation=body.from_notation,
        to_notation=body.to_notation, start=body.start, max_plies=settings_of(request).max_plies,
    )
    return ConvertResponse(moves=moves)


@router.post("/moves", response_model=MovesResponse)
def moves(body: MovesRequest, request: Request) -> MovesResponse:
    """The legal moves after replaying ``moves`` from ``start``."""
    position, legal = plybits.legal_moves(
        body.game, moves=body.moves, notation=body.notation, start=body.start,
        max_plies=settings_of(request).max_plies,
    )
    return MovesResponse(position=position, legal=legal)
