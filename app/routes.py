"""The v1 endpoints: each reads its model, makes one call to :mod:`app.service`, and writes its model."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app import models, service
from app.service import settings_of, workers_of

PROBLEM_CONTENT = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}


def problem_responses(*codes: tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries of problem+json error statuses (``model`` only registers the Problem schema)."""
    return {code: {"model": models.Problem, "content": PROBLEM_CONTENT, "description": text} for code, text in codes}


PROBLEMS = problem_responses((413, "over a limit"), (422, "invalid input"),
                             (503, "the workers are full (see Retry-After), or the work ran past its time limit"))

router = APIRouter(prefix="/v1", responses=PROBLEMS)


@router.get("/codecs", response_model=list[models.CodecInfo])
async def list_codecs() -> list[models.CodecInfo]:
    """Every (game, scheme) this service encodes and decodes."""
    return service.codecs()


@router.post("/encode", response_model=models.EncodeResponse, response_model_exclude_none=True)
async def encode(body: models.EncodeRequest, request: Request) -> models.EncodeResponse:
    """Encode a move list or record into a container with the chosen scheme."""
    return await service.encode(body, settings_of(request), workers_of(request))


@router.post("/decode", response_model=models.DecodeResponse, response_model_exclude_unset=True)
async def decode(body: models.DecodeRequest, request: Request) -> models.DecodeResponse:
    """Decode a container back into moves, and with ``format: "record"`` into the record's text."""
    return await service.decode(body, settings_of(request), workers_of(request))


@router.post("/validate", response_model=models.ValidateResponse, response_model_exclude_none=True)
async def validate(body: models.ValidateRequest, request: Request) -> models.ValidateResponse:
    """Check every move of a game; report the first bad ply or the final state."""
    return await service.validate(body, settings_of(request), workers_of(request))


@router.post("/convert", response_model=models.ConvertResponse)
async def convert(body: models.ConvertRequest, request: Request) -> models.ConvertResponse:
    """Rewrite a game's moves from one notation into another."""
    return await service.convert(body, settings_of(request), workers_of(request))


@router.post("/moves", response_model=models.MovesResponse)
async def moves(body: models.MovesRequest, request: Request) -> models.MovesResponse:
    """The legal moves after replaying ``moves`` from ``start``."""
    return await service.moves(body, settings_of(request), workers_of(request))
