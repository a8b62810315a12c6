"""The committed OpenAPI document is the app's: regenerate with ``make openapi`` after any API change."""

from __future__ import annotations

import json
from pathlib import Path

from app.openapi_dump import render

COMMITTED = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def test_committed_openapi_matches_the_app() -> None:
    rendered = render()
    committed = COMMITTED.read_text(encoding="utf-8")
    assert json.loads(committed) == json.loads(rendered), "openapi/openapi.json is stale: run `make openapi`"
    assert committed == rendered, "openapi/openapi.json is not formatted as `make openapi` writes it"


def test_openapi_lists_every_endpoint() -> None:
    paths = json.loads(COMMITTED.read_text(encoding="utf-8"))["paths"]
    for path in ("/healthz", "/metrics", "/v1/codecs", "/v1/encode", "/v1/decode", "/v1/validate", "/v1/convert",
                 "/v1/moves", "/v1/batch/encode", "/v1/batch/decode", "/v1/batch/validate"):
        assert path in paths, path
    batch = paths["/v1/batch/encode"]["post"]
    assert set(batch["requestBody"]["content"]) == {"application/x-ndjson", "application/x-chess-pgn", "text/plain"}
    assert "application/x-ndjson" in batch["responses"]["200"]["content"]
    assert "application/problem+json" in paths["/v1/encode"]["post"]["responses"]["413"]["content"]
