"""Structured access logs (one JSON line a request) and Prometheus metrics (``GET /metrics``)."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from functools import cache
from typing import cast

from fastapi import APIRouter
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The *_created series only double the scrape size. (prometheus_client leaves this function unannotated.)
cast(Callable[[], None], disable_created_metrics)()
REGISTRY = CollectorRegistry(auto_describe=True)
"""The service's own metrics registry (not the process-wide default, so several apps can live in one process)."""

REQUESTS = Counter(
    "plybits_requests", "HTTP requests answered, by method, route and status.",
    ["method", "path", "status"], registry=REGISTRY,
)
ERRORS = Counter(
    "plybits_request_errors", "HTTP requests answered with a 4xx or 5xx status, by route and status.",
    ["path", "status"], registry=REGISTRY,
)
LATENCY = Histogram(
    "plybits_request_duration_seconds", "Time from request start to the last body byte sent, by route.",
    ["path"], registry=REGISTRY,
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0),
)
PLIES = Counter(
    "plybits_plies", "Plies encoded or decoded (single and batch requests), by operation and game.",
    ["op", "game"], registry=REGISTRY,
)
BATCH_LINES = Counter(
    "plybits_batch_lines", "Batch lines (or games of a multi-game file) answered, by operation and outcome.",
    ["op", "outcome"], registry=REGISTRY,
)
BUILD = Gauge(
    "plybits_build_info", "The build this process runs (plybits.compiled.build): 1 for its kind and detail.",
    ["build", "detail"], registry=REGISTRY, multiprocess_mode="max",
)

access_log = logging.getLogger("plybits.access")


# Each request's series, looked up once per label set (prometheus-client's ``labels`` checks and converts its
# arguments and takes a lock at every call). The label sets are bounded (see route_path and method_label), so are
# these caches.
@cache
def requests_counter(method: str, path: str, status: int) -> Counter:
    """The ``plybits_requests_total`` series of a (method, route, status)."""
    return REQUESTS.labels(method, path, str(status))


@cache
def errors_counter(path: str, status: int) -> Counter:
    """The ``plybits_request_errors_total`` series of a (route, status)."""
    return ERRORS.labels(path, str(status))


@cache
def latency_histogram(path: str) -> Histogram:
    """The ``plybits_request_duration_seconds`` series of a route."""
    return LATENCY.labels(path)


@cache
def batch_lines_counter(op: str, outcome: str) -> Counter:
    """The ``plybits_batch_lines_total`` series of an (operation, outcome)."""
    return BATCH_LINES.labels(op, outcome)


@cache
def plies_counter(op: str, game: str) -> Counter:
    """The ``plybits_plies_total`` series of an (operation, game): a registered game's name, a bounded set."""
    return PLIES.labels(op, game)


def configure_access_log() -> None:
    """Send ``plybits.access`` records, as they are (already JSON), to stderr, once."""
    if not access_log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        access_log.addHandler(handler)
        access_log.setLevel(logging.INFO)
        access_log.propagate = False


METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"})
"""The methods counted under their own name; any other a client makes up is counted as ``OTHER``."""


def method_label(scope: Scope) -> str:
    """The request's method as a metrics label: one of :data:`METHODS`, else ``OTHER`` (a bounded set)."""
    method = scope["method"]
    return method if method in METHODS else "OTHER"


def route_path(scope: Scope, received: Scope | None = None) -> str:
    """The route template of ``scope`` (``/v1/batch/{op}``, not the raw path), to bound label cardinality.

    The route that served the request; else the one whose path matches ``received`` (the scope as it came in,
    before a mount rewrote its root path), for a request answered before routing, as the body limit's 413, or by
    a plain Starlette route or mount such as /docs or /static; ``unmatched`` when none does.
    """
    path = getattr(scope.get("route"), "path", None)
    if isinstance(path, str):
        return path
    received = scope if received is None else received
    for route in routes_of(getattr(scope.get("app"), "router", None)):
        path = getattr(route, "path", None)
        if isinstance(path, str) and route.matches(received)[0] != Match.NONE:
            return path
    return "unmatched"


def routes_of(router: object) -> Iterator[BaseRoute]:
    """Every route of ``router``, those of the routers it includes too (recent FastAPI keeps an included router
    as one entry holding the original, not as copies of its routes)."""
    for route in getattr(router, "routes", ()):
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from routes_of(inner)
        else:
            yield route


class ObserveMiddleware:
    """Time every HTTP request, log it as one JSON line and count it in the metrics."""

    def __init__(self, app: ASGIApp, log: bool = True) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500
        sent = 0
        received = dict(scope)

        async def observing_send(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, observing_send)
        finally:
            elapsed = time.perf_counter() - start
            path = route_path(scope, received)
            requests_counter(method_label(scope), path, status).inc()
            if status >= 400:
                errors_counter(path, status).inc()
            latency_histogram(path).observe(elapsed)
            if self.log and access_log.isEnabledFor(logging.INFO):
                client = scope.get("client")
                access_log.info(json.dumps({
                    "ts": round(time.time(), 3),
                    "method": scope["method"],
                    "path": scope["path"],
                    "route": path,
                    "status": status,
                    "duration_ms": round(elapsed * 1000, 3),
                    "bytes_out": sent,
                    "client": client[0] if client else None,
                }))


router = APIRouter()


@router.get("/metrics", tags=["health"], response_class=Response,
            responses={200: {"content": {CONTENT_TYPE_LATEST.split(";")[0]: {"schema": {"type": "string"}}},
                             "description": "Prometheus text exposition format"}})
def metrics() -> Response:
    """Counters and the latency histogram in the Prometheus text format."""
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
