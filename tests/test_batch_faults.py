"""The batch promise under hostile input: every line gets exactly one answer, in order, and a bad line (or a
stalled upload) never costs another line or another client its answers (issue 13, items 1, 2, 3, 6)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from plybits import registry
from tests.test_limits import LIMITS, run_asgi
from tests.test_service import GAMES, random_game, seed_scheme

NDJSON = {"content-type": "application/x-ndjson"}
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def quiet() -> TestClient:
    with TestClient(create_app(Settings(access_log=False))) as client:
        yield client


def good_request(seed: int = 1, plies: int = 4) -> dict:
    game = GAMES[0]
    texts, _ = random_game(registry.get_game(game), plies, seed=seed)
    return {"game": game, "scheme": seed_scheme(game), "moves": texts}


def answers(text: str) -> list[dict]:
    assert text.endswith("\n"), text[-200:]
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("op", ["encode", "validate"])
def test_lone_surrogate_costs_its_line_only(quiet: TestClient, op: str) -> None:
    """A JSON string holding a lone surrogate (a valid JSON escape) is answered on its own line; the lines
    before and after it are answered as if it were not there."""
    good = good_request()
    if op == "validate":
        del good["scheme"]
    bad = json.dumps({**good, "moves": ["e4\ud800", *good["moves"]]})  # json.dumps writes the \\ud800 escape
    assert "\\ud800" in bad
    body = "\n".join([json.dumps(good), bad, json.dumps(good)]) + "\n"
    r = quiet.post(f"/v1/batch/{op}", content=body.encode(), headers=NDJSON)
    assert r.status_code == 200
    out = answers(r.text)
    assert [o["line"] for o in out] == [1, 2, 3]
    assert out[0] == {**out[2], "line": 1}
    assert "result" in out[0]
    if op == "encode":
        assert "error" in out[1] and out[1]["error"]["status"] != 500
    else:
        assert out[1].get("result", {}).get("valid") is False or out[1]["error"]["status"] != 500


@pytest.mark.parametrize("depth", [900, 1000, 5000, 100_000])
def test_deep_nesting_costs_its_line_only(quiet: TestClient, depth: int) -> None:
    """A line of thousands of nested ``[`` is a 422 of its own; the good lines after it are still answered."""
    good = json.dumps(good_request())
    deep = "[" * depth + "]" * depth
    body = "\n".join([good, deep, good, '{"moves": ' + "[" * depth, good]) + "\n"
    r = quiet.post("/v1/batch/encode", content=body.encode(), headers=NDJSON)
    out = answers(r.text)
    assert [o["line"] for o in out] == [1, 2, 3, 4, 5]
    assert ["result" in o for o in out] == [True, False, True, False, True]
    assert out[1]["error"]["status"] == 422 and out[3]["error"]["status"] == 422


def test_lines_within_the_limit_in_the_overflowing_chunk_are_answered() -> None:
    """A chunked body that goes over the batch limit in the middle of a chunk: every whole line before the
    limit is answered, then one 413 line numbered as the line that crossed it."""
    app = create_app(replace(LIMITS, max_batch_lines=1000))
    line = (json.dumps(good_request()) + "\n").encode()
    within = 5000 // len(line)
    assert within >= 3
    status, body, _ = run_asgi(app, "/v1/batch/encode", [(b"content-type", b"application/x-ndjson")],
                               [line * (within + 5)])  # one chunk: the limit falls inside it
    assert status == 200
    out = [json.loads(x) for x in body.splitlines()]
    assert [o["line"] for o in out] == list(range(1, within + 2))
    assert all("result" in o for o in out[:-1])
    assert out[-1]["error"]["status"] == 413 and "5000" in out[-1]["error"]["detail"]
