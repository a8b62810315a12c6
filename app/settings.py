"""Service limits and options, read once from the environment (documented in docs/service.md and the README)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TypeVar


T = TypeVar("T")


def _env(name: str, default: T, parse: Callable[[str], T]) -> T:
    """The environment variable ``name`` read by ``parse``; ``default`` when it is unset or empty.

    :raises ValueError: naming the variable and its text, with what ``parse`` found wrong with it.
    """
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return parse(raw)
    except ValueError as err:
        raise ValueError(f"environment variable {name}={raw!r} {err}") from None


def _convert(raw: str, kind: Callable[[str], T], what: str) -> T:
    try:
        return kind(raw)
    except ValueError:
        raise ValueError(f"is not {what}") from None


def _int_env(name: str, default: int, minimum: int = 1) -> int:
    def parse(raw: str) -> int:
        value = _convert(raw, int, "an integer")
        if value < minimum:
            raise ValueError(f"must be at least {minimum}")
        return value

    return _env(name, default, parse)


def _float_env(name: str, default: float) -> float:
    def parse(raw: str) -> float:
        value = _convert(raw, float, "a number")
        if not value > 0 or value == float("inf"):
            raise ValueError("must be a positive number of seconds")
        return value

    return _env(name, default, parse)


def _boolean(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError("is not a boolean (1/0, true/false, yes/no, on/off)")


def _bool_env(name: str, default: bool) -> bool:
    return _env(name, default, _boolean)


ENVIRONMENT = {
    "max_body_bytes": "PLYBITS_MAX_BODY_BYTES",
    "max_batch_bytes": "PLYBITS_MAX_BATCH_BYTES",
    "max_plies": "PLYBITS_MAX_PLIES",
    "max_batch_lines": "PLYBITS_MAX_BATCH_LINES",
    "max_games": "PLYBITS_MAX_GAMES",
    "max_line_bytes": "PLYBITS_MAX_LINE_BYTES",
    "access_log": "PLYBITS_ACCESS_LOG",
    "inline_plies": "PLYBITS_INLINE_PLIES",
    "body_idle_seconds": "PLYBITS_BODY_IDLE_SECONDS",
    "workers": "PLYBITS_WORKERS",
    "max_waiting": "PLYBITS_MAX_WAITING",
    "request_seconds": "PLYBITS_REQUEST_SECONDS",
    "keep_alive_seconds": "PLYBITS_KEEP_ALIVE_SECONDS",
    "max_header_bytes": "PLYBITS_MAX_HEADER_BYTES",
    "header_seconds": "PLYBITS_HEADER_SECONDS",
    "body_seconds": "PLYBITS_BODY_SECONDS",
    "max_connections": "PLYBITS_MAX_CONNECTIONS",
    "max_jobs": "PLYBITS_MAX_JOBS",
    "job_workers": "PLYBITS_JOB_WORKERS",
}
"""The environment variable of each setting."""
MAY_BE_ZERO = frozenset({"inline_plies", "workers", "max_waiting", "job_workers"})
"""The counts that may be 0 (none inline; one worker a core); every other count is at least 1."""


@dataclass(frozen=True)
class Settings:
    """Hard limits on what one request may ask for."""

    max_body_bytes: int = 1 << 20
    """Largest request body of a single (non-batch) request."""
    max_batch_bytes: int = 256 << 20
    """Largest request body of a batch request (counted as it streams)."""
    max_plies: int = 20_000
    """Most plies in one record, sent or decoded."""
    max_batch_lines: int = 1_000_000
    """Most lines in one NDJSON batch request."""
    max_games: int = 1_000_000
    """Most games in one multi-game file (PGN) sent to a batch endpoint."""
    max_line_bytes: int = 1 << 20
    """Largest single line (or game of a multi-game file) of a batch request."""
    access_log: bool = True
    """Write one JSON access-log line per request to the ``plybits.access`` logger."""
    inline_plies: int = 256
    """Most plies a single request may hold and still run on the event loop (rank work never does); 0: none does."""
    body_idle_seconds: float = 30
    """Longest wait for the next part of a batch body; a body making no progress that long is ended."""
    workers: int = 0
    """Worker processes that run the work kept off the event loop; 0: one per CPU core the process may use."""
    max_waiting: int = 8
    """Most pieces of work waiting for a free worker; past it a request is answered 503 with ``Retry-After``."""
    request_seconds: float = 30.0
    """Time a request's work may take in the workers, waiting included; past it the work stops with a 503."""
    keep_alive_seconds: int = 75
    """How long ``plybits serve`` keeps an idle HTTP connection open: longer than clients and proxies keep theirs
    (60 s is common), so that the server never closes a connection the client is just reusing."""
    max_header_bytes: int = 64 << 10
    """Largest request line and headers of one request (``plybits serve``); past it a 431 and the connection closed."""
    header_seconds: float = 10.0
    """Longest time from a connection's (or a request's) first byte, or from the connection's start, to the end of
    the request's headers; past it a 408 and the connection closed."""
    body_seconds: float = 30.0
    """Longest wait for the next part of a request body before the answer has begun (``plybits serve``); past it a
    408 and the connection closed (a streaming batch ends its own way, ``body_idle_seconds``)."""
    max_connections: int = 10_000
    """Most connections ``plybits serve`` holds open at once (each process); one more is answered 503 and closed."""
    max_jobs: int = 1
    """Most dataset jobs running at once (each process); one more is answered 503 with ``Retry-After``."""
    job_workers: int = 0
    """Worker processes of a job's local Dask cluster (without ``PLYBITS_DASK_SCHEDULER``); 0: one per core."""

    @classmethod
    def from_env(cls) -> Settings:
        """Settings from ``PLYBITS_*`` environment variables (:data:`ENVIRONMENT`), defaults elsewhere: each read
        as its declared type (a count at least 1, or 0 where :data:`MAY_BE_ZERO` says so)."""
        values: dict[str, int | float | bool] = {}
        for field in fields(cls):
            name, default = ENVIRONMENT[field.name], getattr(cls, field.name)
            if field.type == "bool":
                values[field.name] = _bool_env(name, default)
            elif field.type == "int":
                values[field.name] = _int_env(name, default, minimum=0 if field.name in MAY_BE_ZERO else 1)
            else:
                values[field.name] = _float_env(name, float(default))
        return cls(**values)  # type: ignore[arg-type]
