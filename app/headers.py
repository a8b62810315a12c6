"""Security headers on every answer, as a pure ASGI middleware (outermost, so that the limit's 413 has them too).

Every answer says ``X-Content-Type-Options: nosniff`` and carries a Content-Security-Policy that forbids
framing (``frame-ancestors 'none'``). Each kind of document gets the least it needs: the playground its own
scripts, styles and the board pictures; the API docs pages (/docs, /redoc) their scripts and styles, served from
here too, and their inline start-up script and styles; an SVG board or any other answer nothing at all.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

NOSNIFF = (b"x-content-type-options", b"nosniff")

NOTHING_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
"""An SVG board, a JSON answer, a problem: no script, no style, no frame, nothing loaded."""
PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
               "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
"""The playground: its own script, style sheet, board pictures (/v1/render) and API calls, nothing else."""
DOCS_POLICY = ("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data:; connect-src 'self'; worker-src blob:; frame-ancestors 'none'; "
               "base-uri 'none'; form-action 'none'")
"""Swagger UI and ReDoc (app/render.py): their bundles and style sheet from here (no CDN, no web font), their
inline start-up script (fixed text: it holds no request input) and the styles they write, their icons as data:
URLs, the OpenAPI document from here, ReDoc's search worker."""
DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})


def policy(path: str, content_type: bytes) -> str:
    """The Content-Security-Policy of an answer to ``path`` of ``content_type``."""
    if content_type.startswith(b"text/html"):
        return DOCS_POLICY if path in DOCS_PATHS else PAGE_POLICY
    return NOTHING_POLICY


class SecurityHeadersMiddleware:
    """Add ``X-Content-Type-Options: nosniff`` and a Content-Security-Policy to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() not in (b"x-content-type-options", b"content-security-policy")]
                content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                headers.append(NOSNIFF)
                headers.append((b"content-security-policy", policy(scope["path"], content_type).encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
