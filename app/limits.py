"""Request body size limit as a pure ASGI middleware: checked against Content-Length up front and counted as it streams.

Over the limit the client gets a 413 problem+json (never the framework's plain-text 413). A batch whose
response has already started sees the overflow as a :class:`BodyTooLargeError` from its body stream and
answers it on its own result line.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import PROBLEM_BASE, PROBLEM_JSON, NotUtf8Error, problem_kind
from app.settings import Settings
from plybits.errors import LimitExceededError

BATCH_PREFIX = "/v1/batch/"


class BodyTooLargeError(LimitExceededError):
    """The request body grew past its limit while it was being read."""


def is_json(scope: Scope) -> bool:
    """Whether the request says its body is JSON (``application/json`` or ``application/*+json``)."""
    for name, value in scope["headers"]:
        if name == b"content-type":
            media: bytes = value.split(b";", 1)[0].strip().lower()
            return media.startswith(b"application/") and media.endswith((b"/json", b"+json"))
    return False


def check_utf8_start(start: bytes) -> None:
    """Refuse a JSON body whose first bytes (up to 4) show UTF-16 or UTF-32: a byte order mark ``FF FE``/``FE FF``,
    or a zero byte, which no UTF-8 JSON text starts with (RFC 8259 §8.1: JSON exchanged is UTF-8).

    :raises NotUtf8Error: naming the bytes seen.
    """
    if start.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in start:
        raise NotUtf8Error(f"the request body is not UTF-8 (it starts with bytes {start.hex(' ')}, as UTF-16 or "
                           "UTF-32 text does): send JSON as UTF-8")


def body_limit(settings: Settings, path: str) -> int:
    """The body size limit of a request to ``path``: batch requests have their own, larger one."""
    return settings.max_batch_bytes if path.startswith(BATCH_PREFIX) else settings.max_body_bytes


def too_large_problem(limit: int, size: int | None = None) -> dict[str, Any]:
    """The 413 problem document for a body over ``limit`` bytes."""
    seen = f"{size} bytes" if size is not None else f"more than {limit} bytes"
    return {
        "type": PROBLEM_BASE + problem_kind(LimitExceededError).type,
        "title": problem_kind(LimitExceededError).title,
        "status": 413,
        "detail": f"request body of {seen} is over the limit of {limit} bytes",
    }


async def send_problem(send: Send, body: dict[str, Any]) -> None:
    """Send ``body`` as a whole problem+json response."""
    raw = json.dumps(body).encode()
    await send({
        "type": "http.response.start",
        "status": body["status"],
        "headers": [(b"content-type", PROBLEM_JSON.encode()), (b"content-length", str(len(raw)).encode()),
                    (b"connection", b"close")],
    })
    await send({"type": "http.response.body", "body": raw, "more_body": False})


class BodyLimitMiddleware:
    """Refuse request bodies over the configured size, before and while they stream."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit(self.settings, scope["path"])
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > limit:
                    await send_problem(send, too_large_problem(limit, declared))
                    return
        received = 0
        exceeded = False
        started = False
        replaced = False
        # The first bytes of a JSON body, checked for UTF-8 (None: not checked; a batch reads its lines itself).
        start: bytes | None = b"" if not scope["path"].startswith(BATCH_PREFIX) and is_json(scope) else None

        async def counting_receive() -> Message:
            nonlocal received, exceeded, start
            if exceeded:
                raise BodyTooLargeError(too_large_problem(limit)["detail"])
            message = await receive()
            if message["type"] == "http.request":
                body = message.get("body", b"")
                if start is not None and len(start) < 4:
                    start += body[:4 - len(start)]
                    if len(start) == 4 or not message.get("more_body", False):
                        check_utf8_start(start)
                received += len(body)
                if received > limit:
                    exceeded = True
                    within = body[:len(body) - (received - limit)]
                    if not within:
                        raise BodyTooLargeError(too_large_problem(limit)["detail"])
                    # The bytes up to the limit are delivered (a batch answers the lines among them); the next
                    # read raises.
                    return {**message, "body": within, "more_body": True}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started, replaced
            if replaced:
                return  # the app's own answer to the overflow is dropped: ours went out instead
            if message["type"] == "http.response.start":
                started = True
                if exceeded:
                    # Whatever the framework made of the overflow (a 400, a 500), the client gets our 413.
                    replaced = True
                    await send_problem(send, too_large_problem(limit))
                    return
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except BodyTooLargeError:
            if started:
                raise
            await send_problem(send, too_large_problem(limit))

