"""Bounded metrics labels (issue 13.10): a made-up method is one label value, every route is its own template
(the API docs, and an answer the body limit gives before routing, included)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.main import create_app
from app.observe import REGISTRY
from app.settings import Settings


def series() -> set[tuple[str, tuple[tuple[str, str], ...]]]:
    """Every (sample name, labels) the registry exposes."""
    return {(s.name, tuple(sorted(s.labels.items()))) for m in REGISTRY.collect() for s in m.samples}


def request_count(client: TestClient, method: str, path: str, status: int) -> float:
    text = client.get("/metrics").text
    pattern = (rf'^plybits_requests_total\{{method="{re.escape(method)}",path="{re.escape(path)}",'
               rf'status="{status}"\}} (\S+)$')
    found = re.search(pattern, text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def test_made_up_methods_add_no_series() -> None:
    with TestClient(create_app(Settings(access_log=False))) as client:
        client.request("MADEUP", "/healthz")  # the first unknown method may add its one label value
        before = series()
        for i in range(1000):
            assert client.request(f"X{i}", "/healthz").status_code == 405
        assert series() == before
        assert request_count(client, "OTHER", "/healthz", 405) >= 1001
        assert 'method="X1"' not in client.get("/metrics").text


def test_every_route_under_its_own_template() -> None:
    with TestClient(create_app(Settings(access_log=False, max_body_bytes=100))) as client:
        for path in ("/docs", "/redoc", "/openapi.json"):
            before = request_count(client, "GET", path, 200)
            assert client.get(path).status_code == 200
            assert request_count(client, "GET", path, 200) == before + 1, path
        before = request_count(client, "POST", "/v1/encode", 413)
        assert client.post("/v1/encode", content=b"x" * 200).status_code == 413  # refused before routing
        assert request_count(client, "POST", "/v1/encode", 413) == before + 1
        before = request_count(client, "GET", "/static", 404)
        assert client.get("/static/nothing.css").status_code == 404
        assert request_count(client, "GET", "/static", 404) == before + 1
        unmatched = request_count(client, "GET", "unmatched", 404)
        assert client.get("/no/such/path").status_code == 404
        assert request_count(client, "GET", "unmatched", 404) == unmatched + 1
