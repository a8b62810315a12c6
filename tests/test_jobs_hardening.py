"""Dataset jobs under attack (issue 24 items 2, 4, 5, 6 and 9): paths that could leave the data root or break the
service, jobs bounded and run in processes of their own, children that die with their parent (a real `plybits
serve` and a real Dask client, both killed with SIGKILL, with their real Dask processes), a failed
job's detail without the server's paths, a restarted worker pool with every worker running."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.work import OverloadedError, Workers
from tests.test_cli import ROOT, free_port
from tests.test_dataset import SOURCE

ENV = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}", "PLYBITS_ACCESS_LOG": "0"}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A data root holding one input, ``in/g.pgn``, beside a secret outside it and a link from inside to outside."""
    base = tmp_path_factory.mktemp("jobs")
    data = base / "root"
    (data / "in").mkdir(parents=True)
    (data / "in" / "g.pgn").write_bytes(SOURCE)
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.pgn").write_bytes(SOURCE)
    (data / "link").symlink_to(outside)
    (data / "in" / "file").write_text("not a directory")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("PLYBITS_DATA_ROOT", str(data))
        monkeypatch.delenv("PLYBITS_DASK_SCHEDULER", raising=False)
        yield data


@pytest.fixture(scope="module")
def http(root: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(access_log=False, workers=1, max_jobs=1, job_workers=1))) as client:
        yield client


BAD_JOBS: list[tuple[dict[str, Any], int]] = [
    ({"output": "link::/x"}, 422),  # an fsspec chain through the link
    ({"inputs": ["link::/x/_job.json"]}, 422),
    ({"inputs": ["link/secret.pgn"]}, 403),  # a link leaving the root
    ({"output": "link/out"}, 403),
    ({"inputs": ["file:///etc/passwd"]}, 422),
    ({"output": "memory://x"}, 422),
    ({"inputs": ["in/g.pgn\x00x"]}, 422),
    ({"output": "out\x00"}, 422),
    ({"output": "out\ud800"}, 422),
    ({"output": "in/file"}, 422),  # an existing file as the output
    ({"output": "in/g.pgn"}, 422),
    ({"output": "a" * 300}, 422),
    ({"output": "a/" * 3000}, 422),
    ({"output": "a/" * 600}, 422),
    ({"inputs": ["in/" + "b" * 300]}, 422),
]


@pytest.mark.parametrize(("change", "status"), BAD_JOBS, ids=[repr(c)[:40] for c, _ in BAD_JOBS])
def test_a_path_that_could_escape_or_break_is_refused_before_anything_opens_it(
        http: TestClient, root: Path, change: dict[str, Any], status: int) -> None:
    job = {"inputs": ["in/g.pgn"], "output": "out/g", "partition_bytes": 1 << 16, **change}
    answer = http.post("/v1/jobs", content=json.dumps(job), headers={"content-type": "application/json"})
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert len(answer.text) < 2000
    assert not (root / "out" / "g").exists() and not (root / "a").exists()
    assert sorted(p.name for p in (root.parent / "outside").iterdir()) == ["secret.pgn"]


@pytest.mark.parametrize("job", ["bm9uZQ%00", base64.urlsafe_b64encode(b"a\x00b").decode(),
                                 base64.urlsafe_b64encode(b"../outside").decode(),
                                 base64.urlsafe_b64encode(b"\xed\xa0\x80").decode(), "%F0%9F%98%80", "x" * 5000,
                                 base64.urlsafe_b64encode(b"a/" * 3000).decode()])
def test_a_malformed_job_id_is_a_404(http: TestClient, job: str) -> None:
    answer = http.get(f"/v1/jobs/{job}")
    assert answer.status_code == 404, answer.text
    assert answer.json()["type"].endswith("/no-such-job") and len(answer.text) < 1000


def test_a_failed_jobs_detail_names_no_server_path(http: TestClient, root: Path) -> None:
    out = root / "out" / "other"
    out.mkdir(parents=True)
    (out / "_manifest.json").write_text(json.dumps({"version": 2, "inputs": ["other"], "game": "chess", "scheme": "0x88",
                                                          "partitions": {}}))
    started = http.post("/v1/jobs", json={"inputs": ["in/g.pgn"], "output": "out/other"})
    assert started.status_code == 202, started.text
    status = wait_for_job(http, started.json()["id"])
    assert status["state"] == "failed" and "other inputs" in status["detail"], status
    assert str(root) not in status["detail"] and str(root.parent) not in status["detail"], status["detail"]


def wait_for_job(http: TestClient, job: str, seconds: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while (status := http.get(f"/v1/jobs/{job}").json())["state"] == "running":
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    return status  # type: ignore[no-any-return]


def post_when_free(http: TestClient, job: dict[str, Any]) -> Any:
    """``job`` posted once the slot is free: once the job before has ended its process (just after its last state)."""
    deadline = time.monotonic() + 30
    while (answer := http.post("/v1/jobs", json=job)).status_code == 503:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert answer.status_code == 202, answer.text
    return answer


def test_jobs_are_bounded_and_run_in_a_process_of_their_own(http: TestClient, root: Path) -> None:
    (root / "in" / "h.pgn").write_bytes(SOURCE * 50)
    first = post_when_free(http, {"inputs": ["in/h.pgn"], "output": "out/a"})
    again = http.post("/v1/jobs", json={"inputs": ["in/h.pgn"], "output": "out/a"})
    assert again.status_code == 202  # the running job itself: its state, not a second run
    refused = http.post("/v1/jobs", json={"inputs": ["in/h.pgn"], "output": "out/b"})
    assert refused.status_code == 503 and refused.headers["retry-after"] == "30", refused.text
    assert refused.json()["type"].endswith("/overloaded")
    deadline = time.monotonic() + 60
    while (pid := json.loads((root / "out" / "a" / "_job.json").read_text())["pid"]) is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert pid != os.getpid() and (not psutil.pid_exists(pid) or psutil.Process(pid).ppid() == os.getpid())
    status = wait_for_job(http, first.json()["id"])
    assert (status["state"], status["games"], status["errors"]) == ("done", 150, 50), status
    answer = post_when_free(http, {"inputs": ["in/h.pgn"], "output": "out/b"})
    assert wait_for_job(http, answer.json()["id"])["state"] == "done"


def descendants_once(pid: int, seconds: float, least: int) -> list[psutil.Process]:
    """The descendant processes of ``pid`` once there are at least ``least`` of them (within ``seconds``)."""
    deadline = time.monotonic() + seconds
    while True:
        found = psutil.Process(pid).children(recursive=True)
        if len(found) >= least or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def survivors(processes: list[psutil.Process], seconds: float) -> list[str]:
    """Those of ``processes`` still running after ``seconds`` (a zombie counts as ended)."""
    deadline = time.monotonic() + seconds
    while True:
        alive = []
        for p in processes:
            try:
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(f"{p.pid} {' '.join(p.cmdline())[:120]}")
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


@contextmanager
def reaped(parent: subprocess.Popen[Any]) -> Iterator[list[psutil.Process]]:
    """A list to put ``parent``'s children in; whatever happens, ``parent`` and they are killed at the end."""
    children: list[psutil.Process] = []
    try:
        yield children
    finally:
        if parent.poll() is None:
            parent.kill()
        for p in children:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass


def survivors_of_kill_9(parent: subprocess.Popen[Any], children: list[psutil.Process]) -> list[str]:
    """``kill -9`` of ``parent``; which of its ``children`` still run 20 s later."""
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=10)
    return survivors(children, 20)


def test_kill_9_of_the_service_leaves_no_worker_job_or_tracker_running(tmp_path: Path) -> None:
    data = tmp_path / "root"
    (data / "in").mkdir(parents=True)
    (data / "in" / "g.pgn").write_bytes(SOURCE * 4000)
    port = free_port()
    env = {**ENV, "PLYBITS_DATA_ROOT": str(data), "PLYBITS_WORKERS": "1", "PLYBITS_JOB_WORKERS": "1"}
    env.pop("PLYBITS_DASK_SCHEDULER", None)
    server = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--log-level",
                               "warning"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with reaped(server) as children:
        post = [sys.executable, "-c", "import sys, urllib.request as u; r = u.Request(sys.argv[1], "
                "data=sys.argv[2].encode(), headers={'content-type': 'application/json'}); "
                "print(u.urlopen(r, timeout=30).status)", f"http://127.0.0.1:{port}/v1/jobs",
                json.dumps({"inputs": ["in/g.pgn"], "output": "out", "partition_bytes": 1 << 16})]
        deadline = time.monotonic() + 60
        while subprocess.run(post, capture_output=True, text=True).stdout.strip() != "202":
            assert time.monotonic() < deadline and server.poll() is None, "the service did not take the job"
            time.sleep(0.3)
        # the pool's worker and resource tracker, the job's process, its cluster's worker (and its tracker)
        children.extend(descendants_once(server.pid, 60, least=4))
        assert len(children) >= 4, [p.cmdline() for p in children]
        assert survivors_of_kill_9(server, children) == []


BUSY_CLIENT = """
import re, sys, time
from app.cluster import cluster

local = cluster(1, None)  # kept: the client lives while its context does
client = local.__enter__()
# A call that holds the interpreter lock for ages (catastrophic backtracking), as a long compiled loop may.
busy = client.submit(re.match, r"(a+)+$", "a" * 64 + "b", pure=False)
time.sleep(1.5)
print("busy", flush=True)
time.sleep(600)
"""


def test_kill_9_of_a_client_ends_its_cluster_workers_even_when_busy_holding_the_interpreter() -> None:
    """dask's own watch of the parent is a thread, which cannot run while the worker's task holds the interpreter
    lock; the kernel's parent-death signal needs nothing of the worker."""
    client = subprocess.Popen([sys.executable, "-c", BUSY_CLIENT], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    with reaped(client) as children:
        assert client.stdout is not None and client.stdout.readline().strip() == "busy"
        children.extend(psutil.Process(client.pid).children(recursive=True))
        assert children
        assert survivors_of_kill_9(client, children) == []


def test_after_a_pool_restart_every_worker_runs() -> None:
    async def scenario() -> tuple[int, int]:
        workers = Workers(Settings(workers=2, access_log=False))
        await workers.start()
        try:
            pool = workers._executor()
            before = len(pool._processes)  # noqa: SLF001 (the pool's own table of its worker processes)
            os.kill(next(iter(pool._processes)), signal.SIGKILL)  # noqa: SLF001
            for _ in range(3):
                try:
                    assert await workers.run(os.getpid) > 0
                except OverloadedError:
                    await asyncio.sleep(0.2)  # the broken pool is found and replaced
            after = workers._executor()
            deadline = time.monotonic() + 30
            while sum(p.is_alive() for p in after._processes.values()) < 2 and time.monotonic() < deadline:  # noqa
                await asyncio.sleep(0.1)
            return before, sum(p.is_alive() for p in after._processes.values())  # noqa: SLF001
        finally:
            workers.close()

    assert asyncio.run(scenario()) == (2, 2)
