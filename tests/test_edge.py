"""Limits at the HTTP edge and error answers, on a real uvicorn server with the protocol `plybits serve` runs
(issue 24 items 3, 5 and 9): header size (431), header and body time (408), idle and open connections (503),
a 500 that keeps the security headers and the connection, a UTF-16 body, a huge input never echoed whole.

The servers here run scaled-down limits (1 s instead of 10 s, a handful of connections instead of 10,000) so that
the file stays quick; `bench/load.py` runs the full-scale slowloris (5,000 connections)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from app import edge
from app.errors import problem_body
from app.main import create_app
from app.settings import Settings
from plybits.errors import LimitExceededError
from tests.test_cli import free_port

LIMITS = {"PLYBITS_HEADER_SECONDS": "1", "PLYBITS_BODY_SECONDS": "1", "PLYBITS_MAX_CONNECTIONS": "8",
          "PLYBITS_MAX_HEADER_BYTES": "16384"}


@contextmanager
def serving(application: FastAPI, monkeypatch: pytest.MonkeyPatch, env: dict[str, str] | None = None
            ) -> Iterator[int]:
    """A real uvicorn server (in a thread of this process) of ``application`` with `plybits serve`'s protocol and
    the edge limits of ``env`` (default :data:`LIMITS`), answering on the port it yields."""
    for name, value in (LIMITS if env is None else env).items():
        monkeypatch.setenv(name, value)
    edge.edge_settings.cache_clear()
    port = free_port()
    config = uvicorn.Config(application, host="127.0.0.1", port=port, http=edge.PROTOCOL, log_level="critical",
                            access_log=False, timeout_keep_alive=30)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        edge.edge_settings.cache_clear()


def app_with_a_bug() -> FastAPI:
    application = create_app(Settings(access_log=False, workers=1))

    @application.get("/bug")
    async def bug() -> None:
        raise RuntimeError("a bug")

    return application


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with pytest.MonkeyPatch.context() as monkeypatch, serving(app_with_a_bug(), monkeypatch) as p:
        yield p


def healthz(port: int) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    finally:
        connection.close()


def answer_of(sock: socket.socket, wait: float = 10) -> bytes:
    """All the server sends on ``sock`` until it closes the connection (or ``wait`` seconds pass)."""
    sock.settimeout(wait)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        return data + b"<still open>"
    except ConnectionResetError:
        return data + b"<reset>"
    return data


def test_an_oversized_header_is_a_431_without_reading_it_whole(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        try:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before the client was done sending
        answer = answer_of(sock)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"x-content-type-options: nosniff" in head and b"content-security-policy:" in head
    assert json.loads(body.removesuffix(b"<reset>"))["type"].endswith("/header-too-large")
    assert healthz(port) == 200


def test_headers_just_under_the_limit_and_a_body_in_the_same_packet_are_served(port: int) -> None:
    body = json.dumps({"game": "chess", "scheme": "0x88", "moves": ["e4", "e5"], "tags": {"Event": "e" * 4000}})
    padding = b"p" * (16384 - 400)
    request = (b"POST /v1/encode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Pad: " + padding +
               b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body.encode())
    assert request.index(b"\r\n\r\n") < 16384 < len(request)
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(request)
        sock.settimeout(10)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")


def test_a_slowloris_connection_is_closed_and_healthz_keeps_answering(port: int) -> None:
    """Connections sending one header byte every 0.3 s are closed by the server at the header time limit (1 s
    here); /healthz answers all the while."""
    socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
    opened = time.monotonic()
    closed: dict[int, float] = {}
    try:
        for s in socks:
            s.setblocking(False)
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
        step = 0
        while len(closed) < len(socks) and time.monotonic() - opened < 10:
            for i, s in enumerate(socks):
                if i in closed:
                    continue
                try:
                    s.send(request[step % len(request):step % len(request) + 1])
                    if s.recv(65536) == b"":
                        closed[i] = time.monotonic() - opened
                except BlockingIOError:
                    pass
                except OSError:
                    closed[i] = time.monotonic() - opened
            step += 1
            assert healthz(port) == 200
            time.sleep(0.3)
    finally:
        for s in socks:
            s.close()
    assert len(closed) == len(socks), f"still open after 10 s: {len(socks) - len(closed)} of {len(socks)}"


def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        answer = answer_of(sock)
    assert answer.startswith(b"HTTP/1.1 408 ") and b"/header-timeout" in answer, answer[:200]


def test_a_stalled_body_is_a_408(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(b"POST /v1/encode HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 200\r\n\r\n{\"game\": ")
        answer = answer_of(sock)
    assert answer.startswith(b"HTTP/1.1 408 ") and b"/body-timeout" in answer, answer[:200]
    assert healthz(port) == 200


def test_connections_over_the_limit_are_refused_at_once(port: int) -> None:
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(8)]
    try:
        time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", port)) as extra:
            answer = answer_of(extra, wait=0.9)  # before the held ones reach the header time limit
        assert answer.startswith(b"HTTP/1.1 503 ") and b"retry-after: 1" in answer.lower(), answer[:200]
    finally:
        for s in held:
            s.close()
    time.sleep(0.2)
    assert healthz(port) == 200


def test_a_500_has_the_security_headers_and_keeps_the_connection(port: int) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/bug")
        response = connection.getresponse()
        body = json.loads(response.read())
        first = connection.sock
        assert response.status == 500 and body["type"].endswith("/internal") and "a bug" not in body["detail"]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "default-src 'none'" in response.headers["content-security-policy"]
        assert response.headers["content-type"] == "application/problem+json"
        connection.request("GET", "/healthz")
        assert json.loads(connection.getresponse().read())["status"] == "ok" and connection.sock is first
    finally:
        connection.close()


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_a_json_body_in_utf16_or_utf32_is_refused(client: Any, encoding: str) -> None:
    body = json.dumps({"game": "chess", "scheme": "0x88", "moves": ["e4"]}).encode(encoding)
    answer = client.post("/v1/encode", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422, answer.text
    assert "not UTF-8" in answer.json()["detail"]
    assert client.post("/v1/encode", content=body.decode(encoding).encode("utf-8"),
                       headers={"content-type": "application/json"}).status_code == 200


def test_a_problem_never_echoes_a_huge_input_whole() -> None:
    digits = "1" * 4301
    error = LimitExceededError(f"ply 3: the NAG ${digits} is over the limit", ply=3, move="e4" + "!" * 10_000)
    body = problem_body(error)
    assert len(body["detail"]) <= 1000 and len(body["move"]) <= 300
    assert body["detail"].startswith("ply 3, move 'e4!!!") and body["detail"].count("characters elided") == 2
    assert body["detail"].endswith("is over the limit") and body["move"].startswith("e4!")


def test_plybits_serve_runs_the_edge_protocol_with_its_settings() -> None:
    """The command itself (as `make serve` runs it): a connection that sends nothing is closed with a 408 at
    `PLYBITS_HEADER_SECONDS`, and the open-file limit is raised to hold `PLYBITS_MAX_CONNECTIONS`."""
    import resource

    import psutil

    from tests.test_keepalive import serving as serving_command

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 4024:
        pytest.skip(f"the hard open-file limit here ({hard}) is below what the test asks for")
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 1024), hard))  # what the server process inherits
    try:
        with pytest.MonkeyPatch.context() as monkeypatch:
            monkeypatch.setenv("PLYBITS_HEADER_SECONDS", "1")
            monkeypatch.setenv("PLYBITS_MAX_CONNECTIONS", "3000")
            with serving_command(keep_alive=30) as port, socket.create_connection(("127.0.0.1", port)) as sock:
                answer = answer_of(sock)
                server = next(p for p in psutil.Process().children() if str(port) in p.cmdline())
                raised, _ = server.rlimit(psutil.RLIMIT_NOFILE)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert answer.startswith(b"HTTP/1.1 408 ") and b"/header-timeout" in answer, answer[:200]
    assert raised == 3000 + 1024
