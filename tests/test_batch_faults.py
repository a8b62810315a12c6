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
from tests.test_cli import free_port
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


def test_nesting_limit_counts_only_real_nesting(quiet: TestClient) -> None:
    """The depth limit is the same wherever the line is read; brackets inside strings (tags, comments) do not
    count, and a line just within the limit reaches the model."""
    from app.batchcore import MAX_JSON_DEPTH

    good = good_request()
    brackets = {**good, "tags": {"Note": "[{" * 400 + '\\"]' * 3}}
    within = '{"game": "chess", "moves": ' + "[" * (MAX_JSON_DEPTH - 1) + "]" * (MAX_JSON_DEPTH - 1) + "}"
    beyond = '{"game": "chess", "moves": ' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}"
    body = "\n".join([json.dumps(brackets), within, beyond]) + "\n"
    out = answers(quiet.post("/v1/batch/encode", content=body.encode(), headers=NDJSON).text)
    assert "result" in out[0], out[0]
    assert "nests" not in out[1]["error"]["detail"] and out[1]["error"]["status"] == 422
    assert f"more than {MAX_JSON_DEPTH} levels" in out[2]["error"]["detail"]


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


class Server:
    """A real uvicorn serving app.main:app on a free loopback port with ``PLYBITS_BODY_IDLE_SECONDS``."""

    def __init__(self, idle_seconds: int) -> None:
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}",
               "PLYBITS_BODY_IDLE_SECONDS": str(idle_seconds), "PLYBITS_ACCESS_LOG": "off"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(self.port),
             "--log-level", "warning"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def __enter__(self) -> Server:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    self.__exit__()
                    raise
                time.sleep(0.2)

    def __exit__(self, *_: object) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)

    def open_upload(self, length: int = 1 << 20) -> socket.socket:
        """A batch upload whose headers promise ``length`` bytes of body, and nothing of it sent yet."""
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        sock.sendall(b"POST /v1/batch/encode HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/x-ndjson\r\nContent-Length: %d\r\n\r\n" % length)
        return sock

    def batch(self, body: bytes, timeout: float) -> tuple[list[dict], float]:
        """POST a whole NDJSON batch; its answers and the seconds it took."""
        import http.client

        started = time.monotonic()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request("POST", "/v1/batch/encode", body=body, headers=NDJSON)
            response = connection.getresponse()
            assert response.status == 200
            text = response.read().decode()
        finally:
            connection.close()
        return answers(text), time.monotonic() - started


def read_answers(sock: socket.socket, timeout: float) -> list[dict]:
    """The NDJSON answer lines of a chunked response read off a raw socket until it ends (bounded)."""
    sock.settimeout(timeout)
    raw = b""
    deadline = time.monotonic() + timeout
    while not raw.endswith(b"\r\n0\r\n\r\n") and time.monotonic() < deadline:
        data = sock.recv(1 << 16)
        if not data:
            break
        raw += data
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    text = b""
    while body:
        size_line, _, body = body.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        text, body = text + body[:size], body[size + 2:]
    return answers(text.decode())


def test_stalled_uploads_hold_no_worker() -> None:
    """64 batch uploads stall (one byte then nothing, or one byte every 100 ms): a new batch is answered at once."""
    import threading

    good = (json.dumps(good_request()) + "\n").encode()
    with Server(idle_seconds=120) as server:
        stalled = [server.open_upload() for _ in range(64)]
        stop = threading.Event()

        def trickle() -> None:
            for _ in range(600):  # one byte every 100 ms to half of them, at most a minute
                if stop.wait(0.1):
                    return
                for sock in stalled[::2]:
                    sock.sendall(b" ")

        trickler = threading.Thread(target=trickle, daemon=True)
        try:
            for sock in stalled:
                sock.sendall(b"{")
            trickler.start()
            time.sleep(1.0)  # every stalled batch has started and is waiting for its body
            out, seconds = server.batch(good * 20, timeout=15)
            assert [o["line"] for o in out] == list(range(1, 21)) and all("result" in o for o in out)
            assert seconds < 5, seconds
        finally:
            stop.set()
            trickler.join(timeout=5)
            for sock in stalled:
                sock.close()


def test_a_body_making_no_progress_is_ended_with_a_last_problem_line() -> None:
    good = (json.dumps(good_request()) + "\n").encode()
    with Server(idle_seconds=1) as server:
        sock = server.open_upload()
        try:
            sock.sendall(good + good + b'{"game": ')
            started = time.monotonic()
            out = read_answers(sock, timeout=20)
            waited = time.monotonic() - started
        finally:
            sock.close()
    assert [o["line"] for o in out] == [1, 2, 3]
    assert "result" in out[0] and "result" in out[1]
    assert out[2]["error"]["status"] == 408 and out[2]["error"]["type"].endswith("body-idle")
    assert 0.9 <= waited < 10


# The batch promise as a property: any lines at all, each answered exactly once, in order, numbered by its
# physical line, and each answered as it would be alone (so no line affects another).

PROPERTY_SETTINGS = Settings(max_line_bytes=2048, access_log=False)
SAMPLE_REQUESTS = [good_request(seed, 2 + seed % 5) for seed in range(6)]


def sample_containers() -> list[str]:
    import plybits
    from plybits.records import b64url

    return [b64url(plybits.encode(r["game"], r["scheme"], moves=r["moves"]).data) for r in SAMPLE_REQUESTS]


SAMPLE_DATA = sample_containers()


def _json_values():
    from hypothesis import strategies as st

    scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
               | st.text(max_size=8) | st.integers(0xD800, 0xDFFF).map(chr))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)


def _lines():
    from hypothesis import strategies as st

    values = _json_values()
    fields = st.sampled_from(["game", "scheme", "moves", "record", "notation", "start", "tags", "data", "x"])
    surrogate = st.integers(0xD800, 0xDFFF).map(chr)
    requests = st.sampled_from(SAMPLE_REQUESTS)
    limit = PROPERTY_SETTINGS.max_line_bytes
    return st.one_of(
        requests.map(json.dumps),  # good encode lines
        st.tuples(requests, st.sampled_from(["scheme", "game", "moves"])).map(
            lambda t: json.dumps({k: v for k, v in t[0].items() if k != t[1]})),  # a field missing
        st.tuples(requests, fields, values).map(lambda t: json.dumps({**t[0], t[1]: t[2]})),  # a field of any JSON
        st.tuples(requests, surrogate, st.integers(0, 3)).map(  # a lone surrogate in a move
            lambda t: json.dumps({**t[0], "moves": [*t[0]["moves"][:t[2]], "e4" + t[1], *t[0]["moves"][t[2]:]]})),
        values.map(json.dumps),  # any JSON at all
        st.sampled_from(SAMPLE_DATA).map(lambda d: json.dumps({"data": d})),  # good decode lines
        st.sampled_from(SAMPLE_DATA),  # bare containers
        st.tuples(st.sampled_from(SAMPLE_DATA), st.integers(0, 40)).map(lambda t: t[0][:t[1]] + "A" + t[0][t[1]:]),
        st.tuples(st.sampled_from("[{"), st.integers(1, 20_000)).map(lambda t: t[0] * t[1]),  # any nesting
        st.integers(1, 3000).map(lambda n: '{"moves": ' + "[" * n + "]" * n + "}"),
        st.text(max_size=30),  # any unicode
        st.integers(limit - 40, limit + 40).map(lambda n: '{"moves": ["' + "x" * n + '"]}'),  # around the limit
        st.sampled_from(["", " ", "\t\r", "   "]),  # blank: no answer
    ).map(lambda text: text.replace("\n", " ").encode("utf-8", "surrogatepass")) | st.binary(max_size=40).map(
        lambda raw: raw.replace(b"\n", b""))  # any bytes


def expected_numbers(lines: list[bytes]) -> list[int]:
    limit = PROPERTY_SETTINGS.max_line_bytes
    return [n for n, line in enumerate(lines, 1) if line.strip() or len(line) > limit]


def alone(op: str, line: bytes) -> tuple[str, dict]:
    """The answer the core gives ``line`` sent as a batch of its own."""
    from app.batchcore import answers as core_answers

    (out,) = list(core_answers(op, [line], PROPERTY_SETTINGS))
    assert out[0] == 1
    return out[1], out[2]


def check_promise(op: str, lines: list[bytes], out: list[tuple[int, str, dict]]) -> None:
    numbers = expected_numbers(lines)
    assert [n for n, _, _ in out] == numbers
    for number, key, value in out:
        assert key in ("result", "error")
        assert (key, value) == alone(op, lines[number - 1]), number
        if key == "error":
            assert value["status"] in (408, 413, 422, 500) and value["detail"]


@pytest.fixture(scope="module")
def property_client() -> TestClient:
    with TestClient(create_app(PROPERTY_SETTINGS)) as client:
        yield client


def test_batch_endpoints_answer_every_line_once_in_order(property_client: TestClient) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from tests.conftest import QUICK

    @settings(max_examples=40 if QUICK else 200, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(op=st.sampled_from(["encode", "decode", "validate"]), lines=st.lists(_lines(), max_size=10),
           final_newline=st.booleans())
    def run(op: str, lines: list[bytes], final_newline: bool) -> None:
        body = b"\n".join(lines) + (b"\n" if final_newline else b"")
        r = property_client.post(f"/v1/batch/{op}", content=body, headers=NDJSON)
        assert r.status_code == 200
        out = [json.loads(x) for x in r.content.splitlines()]
        assert all(set(o) in ({"line", "result"}, {"line", "error"}) for o in out), out
        check_promise(op, lines, [(o["line"], *next((k, v) for k, v in o.items() if k != "line")) for o in out])

    run()


def test_batch_core_answers_every_line_once_in_order_however_cut() -> None:
    """The core the command drives: the same promise, with the byte stream cut into chunks anywhere."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from app.batchcore import answers as core_answers
    from tests.conftest import QUICK

    @settings(max_examples=40 if QUICK else 200, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(op=st.sampled_from(["encode", "decode", "validate"]), lines=st.lists(_lines(), max_size=10),
           cuts=st.lists(st.integers(0, 5000), max_size=6))
    def run(op: str, lines: list[bytes], cuts: list[int]) -> None:
        body = b"\n".join(lines)
        bounds = sorted({0, len(body), *(c for c in cuts if c < len(body))})
        chunks = [body[a:b] for a, b in zip(bounds, bounds[1:])]
        out = list(core_answers(op, iter(chunks), PROPERTY_SETTINGS))
        check_promise(op, lines, out)

    run()
