"""Every limit of the service: over it is a 413/422 problem+json (or the over-limit batch line's own problem)."""

from __future__ import annotations

import json
from dataclasses import replace

import anyio
import pytest
from fastapi.testclient import TestClient

import plybits
from app.main import create_app
from app.settings import Settings
from plybits import container, registry
from tests.test_service import GAMES, random_game, seed_scheme

PROBLEM = "application/problem+json"
NDJSON = {"content-type": "application/x-ndjson"}
LIMITS = Settings(max_body_bytes=2000, max_batch_bytes=5000, max_plies=10, max_batch_lines=5, max_games=2,
                  max_line_bytes=600, access_log=False)


@pytest.fixture(scope="module")
def tight() -> TestClient:
    with TestClient(create_app(LIMITS)) as client:
        yield client


def game_line(plies: int = 4, seed: int = 1) -> dict:
    game = GAMES[0]
    texts, _ = random_game(registry.get_game(game), plies, seed=seed)
    return {"game": game, "scheme": seed_scheme(game), "moves": texts}


def assert_problem(r, status: int, kind: str = "limit-exceeded") -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == PROBLEM
    body = r.json()
    assert body["status"] == status and body["type"].endswith(kind)
    return body


def run_asgi(
    app, path: str, headers: list[tuple[bytes, bytes]], chunks: list[bytes], hold: bool = False,
) -> tuple[int, bytes, int]:
    """Call the app with a body in ``chunks``; (status, body, chunks the app pulled). ``hold``: the client sends the
    first chunk, then holds the rest back until it sees an answer (a part of the response body)."""
    pulled = 0
    status = 0
    out = bytearray()
    answered = anyio.Event()

    async def receive() -> dict:
        nonlocal pulled
        if hold and pulled == 1:
            await answered.wait()
        if pulled < len(chunks):
            pulled += 1
            return {"type": "http.request", "body": chunks[pulled - 1], "more_body": pulled < len(chunks)}
        await anyio.sleep_forever()
        raise AssertionError

    async def send(message: dict) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message.get("body"):
            out.extend(message["body"])
            answered.set()

    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
             "root_path": "", "headers": headers, "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}

    async def main() -> None:
        with anyio.fail_after(30):
            await app(scope, receive, send)

    anyio.run(main)
    return status, bytes(out), pulled


def test_content_length_over_the_limit_is_refused_unread() -> None:
    app = create_app(LIMITS)
    status, body, pulled = run_asgi(app, "/v1/encode", [(b"content-type", b"application/json"),
                                                        (b"content-length", b"2001")], [b"x" * 2001])
    assert status == 413 and pulled == 0
    problem = json.loads(body)
    assert problem["type"].endswith("limit-exceeded") and "2001 bytes" in problem["detail"]


def test_content_length_over_the_limit_through_http(tight: TestClient) -> None:
    body = assert_problem(tight.post("/v1/encode", content=b"{" + b" " * 2500 + b"}",
                                     headers={"content-type": "application/json"}), 413)
    assert "2000" in body["detail"]
    assert_problem(tight.post("/v1/batch/encode", content=b"\n" * 5001, headers=NDJSON), 413)


def test_streamed_body_over_the_limit_without_content_length() -> None:
    app = create_app(LIMITS)
    status, body, pulled = run_asgi(app, "/v1/encode", [(b"content-type", b"application/json")],
                                    [b"{" + b" " * 999] * 5 + [b"}"])
    assert status == 413
    assert json.loads(body)["type"].endswith("limit-exceeded")
    assert pulled <= 3  # reading stopped at the limit


def test_streamed_batch_over_the_limit_answers_what_came_and_ends_with_a_problem_line() -> None:
    app = create_app(replace(LIMITS, max_batch_lines=1000))
    line = (json.dumps(game_line()) + "\n").encode()
    chunks = [line] * (2 * 5000 // len(line))  # twice 5000 bytes in all, sent without a Content-Length
    status, body, _ = run_asgi(app, "/v1/batch/encode", [(b"content-type", b"application/x-ndjson")], chunks)
    assert status == 200
    out = [json.loads(x) for x in body.splitlines()]
    answered = 5000 // len(line)
    assert all("result" in o for o in out[:-1])
    assert len(out) - 1 <= answered
    assert out[-1]["error"]["status"] == 413 and "5000" in out[-1]["error"]["detail"]
    assert [o["line"] for o in out] == list(range(1, len(out) + 1))


def test_plies_per_record(tight: TestClient) -> None:
    game = GAMES[0]
    texts, _ = random_game(registry.get_game(game), 11, seed=3)
    assert len(texts) == 11
    assert_problem(tight.post("/v1/encode", json={**game_line(), "moves": texts}), 413)
    assert tight.post("/v1/encode", json={**game_line(), "moves": texts[:10]}).status_code == 200
    assert_problem(tight.post("/v1/validate", json={"game": game, "moves": texts}), 413)
    # A container that claims more plies than allowed is refused before its payload is read.
    blob = plybits.encode(game, seed_scheme(game), moves=texts).data
    assert container.unpack(blob, max_plies=100).plies == 11
    import base64
    data = base64.urlsafe_b64encode(blob).decode()
    body = assert_problem(tight.post("/v1/decode", json={"data": data}), 413)
    assert "11 plies" in body["detail"]


def test_lines_per_batch(tight: TestClient) -> None:
    lines = "\n".join(json.dumps(game_line(2, seed=i)) for i in range(8))
    out = [json.loads(x) for x in tight.post("/v1/batch/encode", content=lines, headers=NDJSON).text.splitlines()]
    assert [o["line"] for o in out] == [1, 2, 3, 4, 5, 6]
    assert all("result" in o for o in out[:5])
    assert out[5]["error"]["status"] == 413 and "more than 5 lines" in out[5]["error"]["detail"]


def test_bytes_per_line(tight: TestClient) -> None:
    long = json.dumps({**game_line(), "tags": {"Note": "x" * 700}})
    lines = "\n".join([json.dumps(game_line()), long, json.dumps(game_line())])
    out = [json.loads(x) for x in tight.post("/v1/batch/encode", content=lines, headers=NDJSON).text.splitlines()]
    assert ["result" in o for o in out] == [True, False, True]
    assert out[1]["error"]["status"] == 413 and "600 bytes" in out[1]["error"]["detail"]


def test_games_per_multi_game_file(tight: TestClient) -> None:
    if "chess" not in GAMES:
        pytest.skip("chess is not registered in this build")
    pgn = "".join(f'[Event "{i}"]\n\n1. e4 e5 *\n\n' for i in range(4))
    out = [json.loads(x) for x in tight.post("/v1/batch/validate", content=pgn,
                                             headers={"content-type": "application/x-chess-pgn"}).text.splitlines()]
    assert [o["line"] for o in out] == [1, 2, 3]
    assert out[0]["result"]["valid"] and out[1]["result"]["valid"]
    assert out[2]["error"]["status"] == 413 and "more than 2 games" in out[2]["error"]["detail"]


def test_settings_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLYBITS_MAX_BODY_BYTES", "123")
    monkeypatch.setenv("PLYBITS_MAX_GAMES", "7")
    monkeypatch.setenv("PLYBITS_ACCESS_LOG", "off")
    settings = Settings.from_env()
    assert (settings.max_body_bytes, settings.max_games, settings.access_log) == (123, 7, False)
    assert settings.max_plies == Settings.max_plies
    monkeypatch.setenv("PLYBITS_MAX_PLIES", "lots")
    with pytest.raises(ValueError, match="PLYBITS_MAX_PLIES"):
        Settings.from_env()
    monkeypatch.setenv("PLYBITS_MAX_PLIES", "0")
    with pytest.raises(ValueError, match="PLYBITS_MAX_PLIES.*at least 1"):
        Settings.from_env()
    monkeypatch.setenv("PLYBITS_MAX_PLIES", "50")
    monkeypatch.setenv("PLYBITS_INLINE_PLIES", "0")  # allowed: every request to the worker pool
    assert Settings.from_env().inline_plies == 0
    monkeypatch.setenv("PLYBITS_INLINE_PLIES", "-1")
    with pytest.raises(ValueError, match="PLYBITS_INLINE_PLIES.*at least 0"):
        Settings.from_env()
