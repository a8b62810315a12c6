"""The service layer: each request model in, one library verb, its response model out.

The endpoints (``app/routes.py``) and the batch endpoints call these. A small request runs its verb on the
event loop: a few milliseconds at most, cheaper than a hop to the worker pool and back. A large one (more than
``Settings.inline_plies`` plies) or any ``rank`` work goes to the worker pool, so that it never stalls the
requests around it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from fastapi import Request
from starlette.concurrency import run_in_threadpool

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
    ValidateRequest,
    ValidateResponse,
)
from app.observe import PLIES
from app.settings import Settings
from plybits import records, registry
from plybits.errors import PlybitsError
from plybits.records import Validation, b64url, from_b64url, peek

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


async def run(work: Callable[[], T], inline: bool) -> T:
    """``work()`` on the event loop when ``inline``, else in the worker pool."""
    return work() if inline else await run_in_threadpool(work)


def codecs() -> list[CodecInfo]:
    """Every registered (game, scheme)."""
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
    """Encode one request."""
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


async def encode(body: EncodeRequest, settings: Settings) -> EncodeResponse:
    """:func:`encode_body`, inline or in the worker pool by its size and scheme."""
    inline = runs_inline(settings, plies_hint(body.moves, body.record), body.scheme)
    return await run(lambda: encode_body(body, settings), inline)


def decode_body(body: DecodeRequest, settings: Settings) -> DecodeResponse:
    """Decode one request."""
    return decode_container(from_b64url(body.data), body.notation, settings)


def decode_container(data: bytes, notation: str | None, settings: Settings) -> DecodeResponse:
    """Decode a container (already out of its base64url) into moves written in ``notation``."""
    result = plybits.decode(data, notation=notation, max_plies=settings.max_plies)
    PLIES.labels("decode", result.game).inc(result.plies)
    return DecodeResponse(
        game=result.game, scheme=result.scheme, start=result.start, moves=result.moves,
        tags=result.tags, plies=result.plies, final_position=result.final_position,
    )


async def decode(body: DecodeRequest, settings: Settings) -> DecodeResponse:
    """:func:`decode_container`, inline or in the worker pool by the plies and scheme its header gives."""
    data = from_b64url(body.data)
    _, scheme, plies = peek(data, max_plies=settings.max_plies)
    return await run(lambda: decode_container(data, body.notation, settings), runs_inline(settings, plies, scheme))


def move_error(error: PlybitsError) -> MoveError:
    """Where and why a game's move is bad, as the ``error`` of a ``valid: false`` answer."""
    return MoveError(ply=error.ply, move=error.move, reason=error.reason)


def validation_response(result: Validation) -> ValidateResponse:
    """The answer of a :class:`~plybits.records.Validation`: the final state, or the first bad move."""
    if result.error is not None:
        return ValidateResponse(valid=False, error=move_error(result.error))
    return ValidateResponse(valid=True, plies=result.plies, final_position=result.final_position,
                            status=GameStatus(**result.status))


def validate_body(body: ValidateRequest, settings: Settings) -> ValidateResponse:
    """Validate one request: a bad move is a 200 with ``valid: false``."""
    return validation_response(records.validate(
        body.game, moves=body.moves, record=body.record, notation=body.notation, start=body.start,
        max_plies=settings.max_plies,
    ))


async def validate(body: ValidateRequest, settings: Settings) -> ValidateResponse:
    """:func:`validate_body`, inline or in the worker pool by its size."""
    inline = runs_inline(settings, plies_hint(body.moves, body.record))
    return await run(lambda: validate_body(body, settings), inline)


def convert_body(body: ConvertRequest, settings: Settings) -> ConvertResponse:
    """Convert one request."""
    return ConvertResponse(moves=plybits.convert(
        body.game, moves=body.moves, record=body.record, from_notation=body.from_notation,
        to_notation=body.to_notation, start=body.start, max_plies=settings.max_plies,
    ))


async def convert(body: ConvertRequest, settings: Settings) -> ConvertResponse:
    """:func:`convert_body`, inline or in the worker pool by its size."""
    return await run(lambda: convert_body(body, settings), runs_inline(settings, plies_hint(body.moves, body.record)))


def moves_body(body: MovesRequest, settings: Settings) -> MovesResponse:
    """The legal moves of one request."""
    position, legal = plybits.legal_moves(
        body.game, moves=body.moves, notation=body.notation, start=body.start, max_plies=settings.max_plies,
    )
    return MovesResponse(position=position, legal=legal)


async def moves(body: MovesRequest, settings: Settings) -> MovesResponse:
    """:func:`moves_body`, inline or in the worker pool by its size."""
    return await run(lambda: moves_body(body, settings), runs_inline(settings, plies_hint(body.moves, None)))
