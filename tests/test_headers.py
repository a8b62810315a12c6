"""Security headers on every answer (issue 13.16): ``X-Content-Type-Options: nosniff`` everywhere, and a
Content-Security-Policy that forbids framing; the playground, the SVG boards and the API docs pages each get
the least their documents need (the docs pages' CDN scripts and styles allowed, as the pages load them)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings


@pytest.fixture(scope="module")
def small_client():
    with TestClient(create_app(Settings(access_log=False, max_body_bytes=100, workers=1))) as client:
        yield client


def directives(response) -> dict[str, list[str]]:
    policy = response.headers["content-security-policy"]
    out = {}
    for part in policy.split(";"):
        name, *values = part.split()
        out[name] = values
    return out


ANSWERS = [
    ("GET", "/healthz", None, 200),
    ("GET", "/", None, 200),
    ("GET", "/static/playground.js", None, 200),
    ("GET", "/v1/render?game=chess", None, 200),
    ("GET", "/v1/codecs", None, 200),
    ("POST", "/v1/encode", b'{"game": "chess", "scheme": "0x88", "moves": ["e4"]}', 200),
    ("POST", "/v1/encode", b'{"game": "chess"}', 422),
    ("POST", "/v1/encode", b"x" * 200, 413),
    ("GET", "/no/such/path", None, 404),
    ("PUT", "/healthz", None, 405),
    ("GET", "/metrics", None, 200),
    ("GET", "/docs", None, 200),
    ("GET", "/redoc", None, 200),
    ("GET", "/openapi.json", None, 200),
]


@pytest.mark.parametrize(("method", "path", "body", "status"), ANSWERS, ids=[f"{m} {p} {s}" for m, p, _, s in ANSWERS])
def test_every_answer_says_nosniff_and_forbids_framing(small_client, method, path, body, status) -> None:
    r = small_client.request(method, path, content=body, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    assert r.headers["x-content-type-options"] == "nosniff"
    assert directives(r)["frame-ancestors"] == ["'none'"]


def test_svg_and_api_answers_may_load_nothing(small_client) -> None:
    for r in (small_client.get("/v1/render?game=chess"), small_client.get("/v1/codecs")):
        policy = directives(r)
        assert policy["default-src"] == ["'none'"]
        assert not {"script-src", "style-src", "img-src", "connect-src"} & set(policy)


def test_playground_may_load_only_its_own_files(small_client) -> None:
    r = small_client.get("/")
    policy = directives(r)
    assert policy["default-src"] == ["'none'"]
    for name in ("script-src", "style-src", "img-src", "connect-src"):
        assert policy[name] == ["'self'"], name
    # Every script and style sheet the page names is its own (relative), so 'self' covers it.
    for url in re.findall(r'(?:src|href)="([^"]+)"', r.text):
        assert not urlsplit(url).netloc, url


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_docs_pages_may_load_what_they_name(small_client, path: str) -> None:
    r = small_client.get(path)
    policy = directives(r)
    assert policy["default-src"] == ["'none'"]
    scripts = re.findall(r'<script[^>]*\bsrc="([^"]+)"', r.text)
    styles = re.findall(r'<link[^>]*\bhref="([^"]+)"', r.text)
    assert scripts, "the docs page names no script: has FastAPI changed how it serves it?"
    for url, directive in [*((u, "script-src") for u in scripts), *((u, "style-src") for u in styles)]:
        parts = urlsplit(url)
        allowed = policy["img-src"] if url.endswith((".png", ".ico")) else policy[directive]
        origin = f"{parts.scheme}://{parts.netloc}"
        assert (origin in allowed) if parts.netloc else ("'self'" in allowed), (url, directive, allowed)
    if "<script>" in r.text or re.search(r"<script(?![^>]*\bsrc=)[^>]*>", r.text):
        assert "'unsafe-inline'" in policy["script-src"]  # the page's own start-up script
    assert policy["connect-src"] == ["'self'"]  # the OpenAPI document comes from here


def test_the_image_keeps_idle_connections_as_long_as_plybits_serve() -> None:
    """The container runs ``plybits serve`` itself, so it keeps the service's keep-alive, not uvicorn's 5 s (issue
    13.15), and no option on its command line overrides it."""
    import json
    from pathlib import Path

    dockerfile = (Path(__file__).resolve().parent.parent / "Dockerfile").read_text()
    command = json.loads(re.findall(r"^CMD (.*)$", dockerfile, re.MULTILINE)[-1])
    assert command[:2] == ["plybits", "serve"]
    assert "--timeout-keep-alive" not in command
