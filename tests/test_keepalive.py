"""`plybits serve` keeps idle connections open `PLYBITS_KEEP_ALIVE_SECONDS` (issue 13 item 15): a real server
on 127.0.0.1, one connection reused after an idle spell longer than uvicorn's own 5 s."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.test_cli import ROOT, free_port


@contextmanager
def serving(keep_alive: int) -> Iterator[int]:
    """A `plybits serve` process with the given keep-alive, answering on the port it yields."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}",
           "PLYBITS_KEEP_ALIVE_SECONDS": str(keep_alive), "PLYBITS_ACCESS_LOG": "0"}
    server = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--log-level",
                               "warning"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                probe.request("GET", "/healthz")
                probe.getresponse().read()
                probe.close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


def reused_after(port: int, idle: float) -> bool:
    """Whether one connection answers a second request after ``idle`` seconds without a word."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", "/healthz")
        assert json.loads(connection.getresponse().read())["status"] == "ok"
        first = connection.sock
        time.sleep(idle)
        try:
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            response.read()
        except (http.client.RemoteDisconnected, ConnectionError):
            return False
        return response.status == 200 and connection.sock is first
    finally:
        connection.close()


def test_an_idle_connection_outlives_uvicorns_five_seconds() -> None:
    with serving(keep_alive=30) as port:
        assert reused_after(port, idle=5.5)


def test_the_keep_alive_setting_is_what_closes_it() -> None:
    with serving(keep_alive=1) as port:
        assert not reused_after(port, idle=2.5)
