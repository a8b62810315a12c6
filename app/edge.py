"""Limits at the HTTP edge, where uvicorn has none: a uvicorn protocol (its httptools one, subclassed) that bounds
what a connection may take before the application sees a request.

- **Header size**: at most ``Settings.max_header_bytes`` of request line and headers, counted before the parser
  sees them (httptools gathers a header's pieces by concatenation: a 40 MB header cost seconds of CPU); past it a
  ``431`` problem and the connection is closed.
- **Header time**: the headers must be complete ``Settings.header_seconds`` after the connection opened or the
  request's first byte came (a slowloris client sending a byte every few seconds); else a ``408`` and close.
- **Body time**: before the answer has begun, a body making no progress for ``Settings.body_seconds`` while the
  server is reading it gets a ``408`` and the connection closed (a streaming batch, once answering, ends its own
  way: ``body_idle_seconds``).
- **Idle connections**: uvicorn's keep-alive timeout after an answer (``Settings.keep_alive_seconds``); a new
  connection that sends nothing is held ``header_seconds`` at most.
- **Open connections**: at most ``Settings.max_connections`` per server process; one more is answered ``503``
  with ``Retry-After`` and closed at once.

``plybits serve`` runs uvicorn with this protocol (``--http app.edge:EdgeProtocol`` for a bare ``uvicorn``), and
raises the process's open-file limit so that the connection limit, not the file descriptors, is what binds.
"""

from __future__ import annotations

import asyncio
import json
from functools import cache
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.errors import PROBLEM_BASE, PROBLEM_JSON
from app.headers import NOSNIFF, NOTHING_POLICY
from app.settings import Settings

PROTOCOL = "app.edge:EdgeProtocol"
"""The protocol as uvicorn's ``http`` option names it."""
RETRY_AFTER_SECONDS = 1
"""What a connection refused because the server holds its most is told to wait."""


@cache
def edge_settings() -> Settings:
    """The settings of every connection of this process, read from the environment once."""
    return Settings.from_env()


def problem_bytes(status: int, kind: str, title: str, detail: str, *extra: tuple[bytes, bytes]) -> bytes:
    """A whole HTTP/1.1 answer holding a problem document, with the security headers, that closes the connection."""
    body = json.dumps({"type": PROBLEM_BASE + kind, "title": title, "status": status, "detail": detail}).encode()
    headers = [(b"content-type", PROBLEM_JSON.encode()), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close"), NOSNIFF, (b"content-security-policy", NOTHING_POLICY.encode()), *extra]
    head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
    return f"HTTP/1.1 {status} {title}\r\n".encode() + head + b"\r\n" + body


class EdgeProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with bounded header size, header and body time, and open connections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = edge_settings()
        self.in_head = True
        """Whether the bytes arriving now belong to a request's line and headers."""
        self.head_bytes = 0
        self.heads = 0
        """Requests whose headers were read whole on this connection."""
        self.head_timer: asyncio.TimerHandle | None = None
        self.body_timer: asyncio.TimerHandle | None = None
        self.body_last = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            self.refuse(problem_bytes(503, "overloaded", "Service Unavailable",
                                      f"the server holds its most connections ({self.limits.max_connections}); "
                                      f"retry after {RETRY_AFTER_SECONDS} s",
                                      (b"retry-after", str(RETRY_AFTER_SECONDS).encode())))
            return
        self.arm_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self.cancel_timers()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.in_head and not self.transport.is_closing():
            if self.head_timer is None:
                self.arm_head()  # a request's first byte on a kept-alive connection
            room = self.limits.max_header_bytes - self.head_bytes
            if len(data) > room:
                # Feed what the limit allows: the headers may end within it (a body or the next request follows).
                self.head_bytes += room
                heads = self.heads
                super().data_received(data[:room])
                if self.heads == heads and not self.transport.is_closing():
                    self.refuse(problem_bytes(431, "header-too-large", "Request Header Fields Too Large",
                                              f"the request line and headers are over the limit of "
                                              f"{self.limits.max_header_bytes} bytes"))
                    return
                data = data[room:]
                if self.transport.is_closing() or not data:
                    return
            else:
                self.head_bytes += len(data)
        super().data_received(data)

    # The parser's callbacks: where a request's head and body begin and end.

    def on_headers_complete(self) -> None:
        self.heads += 1
        self.in_head = False
        self.head_bytes = 0
        self.cancel_head()
        super().on_headers_complete()
        if self.cycle is not None and self.cycle.more_body:
            self.body_last = self.loop.time()
            self.body_timer = self.loop.call_later(self.limits.body_seconds, self.body_check)

    def on_body(self, body: bytes) -> None:
        self.body_last = self.loop.time()
        super().on_body(body)

    def on_message_complete(self) -> None:
        self.in_head = True
        self.head_bytes = 0
        self.cancel_body()
        super().on_message_complete()

    # Timers

    def arm_head(self) -> None:
        self.cancel_head()
        self.head_timer = self.loop.call_later(self.limits.header_seconds, self.head_expired)

    def head_expired(self) -> None:
        self.head_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self.arm_head()  # the server is still answering the request before: not the client's delay
            return
        self.refuse(problem_bytes(408, "header-timeout", "Request Timeout",
                                  f"the request's headers did not arrive within {self.limits.header_seconds:g} s"))

    def body_check(self) -> None:
        self.body_timer = None
        cycle = self.cycle
        if self.transport.is_closing() or cycle is None or not cycle.more_body or cycle.response_started:
            return  # done, or the answer has begun: a streaming batch paces its own body
        now = self.loop.time()
        if self.flow.read_paused:
            self.body_last = now  # the server is not reading: not the client's delay
        idle = now - self.body_last
        if idle < self.limits.body_seconds:
            self.body_timer = self.loop.call_later(self.limits.body_seconds - idle, self.body_check)
            return
        cycle.disconnected = True  # the application's next read sees the client gone; what it sends is dropped
        cycle.message_event.set()
        self.refuse(problem_bytes(408, "body-timeout", "Request Timeout",
                                  f"the request body made no progress for {self.limits.body_seconds:g} s"))

    def cancel_head(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def cancel_body(self) -> None:
        if self.body_timer is not None:
            self.body_timer.cancel()
            self.body_timer = None

    def cancel_timers(self) -> None:
        self.cancel_head()
        self.cancel_body()

    def refuse(self, answer: bytes) -> None:
        """Send ``answer`` (a whole HTTP answer) and close the connection."""
        self.cancel_timers()
        self.in_head = False
        if not self.transport.is_closing():
            self.transport.write(answer)
            self.transport.close()
