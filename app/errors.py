"""One place that turns every failure into an RFC 9457 problem+json response."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.work import OverloadedError
from plybits.errors import (
    AmbiguousMoveError,
    DeadlineExceededError,
    IllegalMoveError,
    InvalidDataError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
    LimitExceededError,
    PlybitsError,
    UnknownCodecError,
    UnsupportedError,
)

PROBLEM_JSON = "application/problem+json"
PROBLEM_BASE = "https://plybits.dev/problems/"
BODY_PARSE_ERROR = "There was an error parsing the body"
"""FastAPI's detail for a body it cannot decode."""
MAX_DETAIL_CHARS = 1000
"""Longest ``detail`` of a problem: the reason in full, an echoed input inside it clipped."""
MAX_ECHO_CHARS = 200
"""Most characters of a client's input a problem echoes back (in ``detail`` or ``move``); the rest is elided."""
log = logging.getLogger("plybits.app")


def clipped(text: str, most: int = MAX_ECHO_CHARS) -> str:
    """``text``, or its first and last characters around a note of how many were left out when it is longer than
    ``most`` (a problem never echoes a huge input back whole: a NAG of 4,301 digits, a 1 MB move)."""
    if len(text) <= most:
        return text
    keep = max(most - 48, 2) // 2  # the note takes at most 48 characters
    return f"{text[:keep]}... ({len(text) - 2 * keep} characters elided) ...{text[-keep:]}"


@dataclass(frozen=True)
class ProblemKind:
    """What the service answers for one class of library error."""

    status: int
    type: str
    """The problem type's last path segment (after :data:`PROBLEM_BASE`)."""
    title: str


PROBLEM_KINDS: dict[type[PlybitsError], ProblemKind] = {
    AmbiguousMoveError: ProblemKind(422, "ambiguous-move", "Ambiguous move"),
    InvalidMoveError: ProblemKind(422, "invalid-move", "Invalid move syntax"),
    IllegalMoveError: ProblemKind(422, "illegal-move", "Illegal move"),
    InvalidPositionError: ProblemKind(422, "invalid-position", "Invalid position"),
    InvalidRecordError: ProblemKind(422, "invalid-record", "Invalid record"),
    InvalidDataError: ProblemKind(422, "invalid-data", "Invalid encoded data"),
    UnknownCodecError: ProblemKind(422, "unknown-codec", "Unknown game, scheme or notation"),
    UnsupportedError: ProblemKind(422, "unsupported", "Not representable"),
    LimitExceededError: ProblemKind(413, "limit-exceeded", "Limit exceeded"),
    DeadlineExceededError: ProblemKind(503, "deadline-exceeded", "Time limit exceeded"),
    OverloadedError: ProblemKind(503, "overloaded", "Service overloaded"),
    PlybitsError: ProblemKind(422, "plybits-error", "Invalid input"),
}
"""Every library error class the service answers, most specific first; a subclass not listed answers as its
nearest listed ancestor (see :func:`problem_kind`)."""


def problem_kind(error: type[PlybitsError]) -> ProblemKind:
    """The problem kind of an error class: that of the first class in its MRO that :data:`PROBLEM_KINDS` lists."""
    for cls in error.__mro__:
        kind = PROBLEM_KINDS.get(cls)
        if kind is not None:
            return kind
    raise AssertionError(f"{error.__name__} is not a PlybitsError")  # PlybitsError itself is listed


def problem_body(error: PlybitsError) -> dict[str, Any]:
    """The problem document of a library error (also used inside batch lines)."""
    kind = problem_kind(type(error))
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + kind.type,
        "title": kind.title,
        "status": kind.status,
        "detail": clipped(str(error) if error.move is None else str(error).replace(error.move, clipped(error.move)),
                          MAX_DETAIL_CHARS),
    }
    if error.ply is not None:
        body["ply"] = error.ply
    if error.move is not None:
        body["move"] = clipped(error.move)
    return body


def problem_response(body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(jsonable_encoder(body), status_code=body["status"], media_type=PROBLEM_JSON)


async def _plybits_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, PlybitsError)
    return problem_response(problem_body(exc))


async def _overloaded(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, OverloadedError)
    response = problem_response(problem_body(exc))
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


def validation_problem(raw_errors: Sequence[Any]) -> dict[str, Any]:
    """The 422 problem document of a request that does not fit its model (also used inside batch lines)."""
    errors = jsonable_encoder(list(raw_errors), exclude={"ctx", "url", "input"})
    for error in errors:  # a dict key in a location may hold a lone surrogate, which no UTF-8 answer can carry
        error["loc"] = [p.encode("utf-8", "backslashreplace").decode() if isinstance(p, str) else p
                        for p in error.get("loc", ())]
    first = errors[0] if errors else {}
    detail = f"{'.'.join(str(p) for p in first.get('loc', ()))}: {first.get('msg', 'invalid request')}"
    return {"type": PROBLEM_BASE + "invalid-request", "title": "Invalid request", "status": 422, "detail": detail,
            "errors": errors}


def internal_problem(exc: BaseException) -> dict[str, Any]:
    """The 500 problem document of an unexpected failure (a bug): logged here, never details leaked."""
    log.error("unhandled error", exc_info=exc)
    return {"type": PROBLEM_BASE + "internal", "title": "Internal error", "status": 500,
            "detail": f"internal error ({type(exc).__name__})"}


def problem_of(exc: BaseException) -> dict[str, Any]:
    """The problem document of whatever answering one request (a batch line, a dataset row) raised: a library
    error's own, a request that does not fit its model 422, anything else a logged 500."""
    if isinstance(exc, PlybitsError):
        return problem_body(exc)
    if isinstance(exc, ValidationError):
        return validation_problem(exc.errors())
    return internal_problem(exc)


async def _validation_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    return problem_response(validation_problem(exc.errors()))


async def _http_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and exc.detail == BODY_PARSE_ERROR:
        # A body FastAPI could not even decode is invalid input like any other: 422, as documented.
        return problem_response({"type": PROBLEM_BASE + "invalid-request", "title": "Invalid request",
                                 "status": 422, "detail": unreadable_body(exc.__cause__)})
    try:
        title = HTTPStatus(exc.status_code).phrase
    except ValueError:
        title = str(exc.detail)
    response = problem_response(
        {"type": "about:blank", "title": title, "status": exc.status_code, "detail": str(exc.detail)}
    )
    if exc.headers:
        response.headers.update(exc.headers)
    return response


class NotUtf8Error(ValueError):
    """A JSON request body in another encoding than UTF-8 (Python's JSON reader would take UTF-16 and UTF-32)."""


def unreadable_body(cause: BaseException | None) -> str:
    """What is wrong with a request body that Python's JSON reader refused with ``cause`` (not a syntax error:
    FastAPI answers those itself), or that the body limit refused as :class:`NotUtf8Error`."""
    if isinstance(cause, NotUtf8Error):
        return str(cause)
    if isinstance(cause, UnicodeDecodeError):
        return f"the request body is not valid UTF-8 (byte {cause.start})"
    if isinstance(cause, RecursionError):
        return "the request body's arrays or objects are nested too deeply"
    if isinstance(cause, ValueError) and "integer string conversion" in str(cause):
        return f"the request body holds an integer of more than {sys.get_int_max_str_digits()} digits"
    return f"the request body cannot be read as JSON ({type(cause).__name__})"


class InternalErrorMiddleware:
    """Answer an unexpected exception (a bug) with the 500 problem from inside the app's middleware stack.

    Starlette's handler of last resort sits outside every middleware and re-raises after answering: its 500 had no
    security headers and uvicorn then dropped the keep-alive connection. Here the 500 is an ordinary answer: the
    headers middleware and the access log see it, and the connection is kept. An exception after the answer
    started (nothing left to answer with) or a library error (its handler answers it) goes on up as before.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def noting_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, noting_send)
        except PlybitsError:
            raise
        except Exception as exc:
            if started or scope["type"] != "http":
                raise
            await problem_response(internal_problem(exc))(scope, receive, send)


def install(app: FastAPI) -> None:
    """Register the problem+json handlers on ``app``."""
    app.add_exception_handler(PlybitsError, _plybits_error)
    app.add_exception_handler(OverloadedError, _overloaded)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_middleware(InternalErrorMiddleware)  # the first added: inside every other middleware
