"""The service layer: each request model in, one library verb, its response model out.

The endpoints (``app/routes.py``) and the batch endpoints call these. A small request runs its verb on the
event loop: a few milliseconds at most, cheaper than a hop to the worker processes and back. A large one (more
than ``Settings.inline_plies`` plies) or any heavy scheme's work (``rank``) goes to the worker processes
(:mod:`app.work`), so that it never stalls the requests around it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from fastapi import Request

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
from app.observe import plies_counter
from app.settings import Settings
from app.work import Workers
from plybits import records, registry
from plybits.container import Container
from plybits.registry import AnyScheme
from plybits.errors import PlybitsError
from plybits.records import Validation, b64url, from_b64url

T = TypeVar("T")


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


def runs_inline(settings: Settings, plies: int, scheme: AnyScheme | None = None) -> bool:
    """Whether work on ``plies`` plies (with ``scheme``, if any) is small enough for the event loop: a heavy
    scheme's work (:attr:`~plybits.game.Scheme.heavy`, a move model at every ply) never is."""
    return plies <= settings.inline_plies and not (scheme is not None and scheme.heavy)


def workers_of(request: Request) -> Workers:
    """The worker processes the app started."""
    workers: Workers = request.app.state.workers
    return workers


async def run(workers: Workers, inline: bool, work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` on the event loop when ``inline``, else in a worker process (a module-level ``work`` and
    picklable ``args``)."""
    if inline:
        return work(*args)
    return await workers.run(work, *args)


R = TypeVar("R", EncodeResponse, DecodeResponse)


def counted(op: str, response: R) -> R:
    """``response``, its plies counted in the metrics (here in the service process: a worker's counts are lost)."""
    plies_counter(op, response.game).inc(response.plies)
    return response


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
    """Encode one request, counted (the batch endpoints' call)."""
    return counted("encode", encode_response(body, settings))


def encode_response(body: EncodeRequest, settings: Settings) -> EncodeResponse:
    """Encode one request (uncounted: it may run in a worker process)."""
    result = plybits.encode(
        body.game, body.scheme, moves=body.moves, record=body.record, notation=body.notation,
        start=body.start, tags=body.tags, max_plies=settings.max_plies, fidelity=body.fidelity,
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
        fidelity="full" if result.fidelity == "full" else "moves",
    )


async def encode(body: EncodeRequest, settings: Settings, workers: Workers) -> EncodeResponse:
    """:func:`encode_response`, inline or in a worker process by its size and scheme, counted."""
    scheme = registry.get_scheme(body.game, body.scheme)
    inline = runs_inline(settings, plies_hint(body.moves, body.record), scheme)
    return counted("encode", await run(workers, inline, encode_response, body, settings))


def decode_body(body: DecodeRequest, settings: Settings) -> DecodeResponse:
    """Decode one request."""
    return decode_container(from_b64url(body.data), body.notation, settings, body.format)


def decode_container(data: bytes, notation: str | None, settings: Settings, format: str = "moves") -> DecodeResponse:
    """Decode a container (already out of its base64url) into moves written in ``notation``, counted."""
    return counted("decode", decoded_response(data, notation, settings, format))


def decoded_response(
    data: bytes | Container, notation: str | None, settings: Settings, format: str = "moves",
) -> DecodeResponse:
    """Decode a container into moves written in ``notation``, and with ``format="record"`` the record's text
    (uncounted: it may run in a worker process). ``record`` is set only when asked, so that it is left out."""
    result = plybits.decode(data, notation=notation, max_plies=settings.max_plies, format=format)
    response = DecodeResponse(
        game=result.game, scheme=result.scheme, start=result.start, moves=result.moves,
        tags=result.tags, plies=result.plies, final_position=result.final_position,
    )
    if result.record is not None:
        response.record = result.record
    return response


def decode_work(codec_id: int, plies: int, record_bytes: int) -> tuple[AnyScheme, int]:
    """The scheme of a container and a bound on the plies its decode replays, from its header
    (:func:`plybits.container.read_header`): its plies, and those of its record section's variations (at most a
    few plies a byte of the section).

    :raises UnknownCodecError: on an unknown codec id.
    """
    return registry.scheme_by_id(codec_id), plies + 8 * record_bytes


async def decode(body: DecodeRequest, settings: Settings, workers: Workers) -> DecodeResponse:
    """:func:`decoded_response`, inline or in a worker process by its :func:`decode_work`, counted."""
    box = records.unpack(from_b64url(body.data), max_plies=settings.max_plies)
    scheme, plies = decode_work(box.codec_id, box.plies, len(box.record or b""))
    inline = runs_inline(settings, plies, scheme)
    return counted("decode", await run(workers, inline, decoded_response, box, body.notation, settings, body.format))


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


async def validate(body: ValidateRequest, settings: Settings, workers: Workers) -> ValidateResponse:
    """:func:`validate_body`, inline or in a worker process by its size."""
    inline = runs_inline(settings, plies_hint(body.moves, body.record))
    return await run(workers, inline, validate_body, body, settings)


def convert_body(body: ConvertRequest, settings: Settings) -> ConvertResponse:
    """Convert one request."""
    return ConvertResponse(moves=plybits.convert(
        body.game, moves=body.moves, record=body.record, from_notation=body.from_notation,
        to_notation=body.to_notation, start=body.start, max_plies=settings.max_plies,
    ))


async def convert(body: ConvertRequest, settings: Settings, workers: Workers) -> ConvertResponse:
    """:func:`convert_body`, inline or in a worker process by its size."""
    inline = runs_inline(settings, plies_hint(body.moves, body.record))
    return await run(workers, inline, convert_body, body, settings)


def moves_body(body: MovesRequest, settings: Settings) -> MovesResponse:
    """The legal moves of one request."""
    position, legal = plybits.legal_moves(
        body.game, moves=body.moves, notation=body.notation, start=body.start, max_plies=settings.max_plies,
    )
    return MovesResponse(position=position, legal=legal)


async def moves(body: MovesRequest, settings: Settings, workers: Workers) -> MovesResponse:
    """:func:`moves_body`, inline or in a worker process by its size."""
    return await run(workers, runs_inline(settings, plies_hint(body.moves, None)), moves_body, body, settings)
