"""The build in use (compiled or pure Python, and why) is said where a user looks: `plybits --version`, the
service's start-up log and `/healthz`; and `make serve` compiles the core before it serves."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from plybits import compiled

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != compiled.PURE_ENV}
    return {**env, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}", **extra}


def test_the_build_says_what_is_loaded() -> None:
    kind, why = compiled.build()
    loaded = compiled.compiled_modules()
    assert kind == ("compiled" if loaded == list(compiled.MODULES) else "pure")
    assert why and compiled.describe() == f"{'pure-Python' if kind == 'pure' else kind} build ({why})"


def test_the_build_says_why_it_is_pure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiled, "compiled_modules", lambda: [])
    monkeypatch.setattr(compiled, "_PURE_BECAUSE", [])
    monkeypatch.setattr(compiled, "have_c_compiler", lambda: False)
    assert compiled.build() == ("pure", "no C compiler (or Python headers) to compile the core with")
    monkeypatch.setattr(compiled, "have_c_compiler", lambda: True)
    assert compiled.build()[1].startswith("not compiled here: `make compile`")
    monkeypatch.setattr(compiled, "compiled_modules", lambda: list(compiled.MODULES[:2]))
    assert compiled.build()[0] == "mixed"
    monkeypatch.setattr(compiled, "compiled_modules", lambda: [])
    monkeypatch.setattr(compiled, "_PURE_BECAUSE", ["PLYBITS_PURE=1 is set"])
    assert compiled.build() == ("pure", "PLYBITS_PURE=1 is set")


def test_version_names_the_build() -> None:
    pure = subprocess.run([str(BIN / "plybits"), "--version"], env=environment(PLYBITS_PURE="1"),
                          capture_output=True, text=True, timeout=120, check=True).stdout
    assert pure == f"plybits {compiled_version()}: pure-Python build (PLYBITS_PURE=1 is set)\n"
    default = subprocess.run([str(BIN / "plybits"), "--version"], env=environment(), capture_output=True,
                             text=True, timeout=120, check=True).stdout
    built = "compiled build (mypyc" if compiled_here() else "pure-Python build ("
    assert default.startswith(f"plybits {compiled_version()}: {built}")


def compiled_version() -> str:
    import plybits

    return plybits.__version__


def compiled_here() -> bool:
    """Whether a child process that does not ask for pure Python loads the compiled build."""
    done = subprocess.run([sys.executable, "-c", "import plybits.compiled as c; print(c.build()[0])"],
                          env=environment(), capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip() == "compiled"


def test_healthz_names_the_build(client) -> None:  # type: ignore[no-untyped-def]
    answer = client.get("/healthz").json()
    kind, why = compiled.build()
    assert answer == {"status": "ok", "build": kind, "build_detail": why}


def test_serve_logs_the_build_at_start_up(tmp_path: Path) -> None:
    """A real `plybits serve`, on pure Python: its log names the build before the first request."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path / "serve.log"
    with open(log, "wb") as sink:
        server = subprocess.Popen([str(BIN / "plybits"), "serve", "--port", str(port)], cwd=tmp_path,
                                  env=environment(PLYBITS_PURE="1", PLYBITS_WORKERS="1"), stdout=sink, stderr=sink)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                        health = json.load(response)
                    break
                except OSError:
                    assert server.poll() is None and time.monotonic() < deadline, log.read_text()
                    time.sleep(0.2)
        finally:
            server.terminate()
            server.wait(timeout=30)
    assert health["build"] == "pure" and health["build_detail"] == "PLYBITS_PURE=1 is set"
    startup = log.read_text().split("Application startup complete")[0]
    assert f"plybits {compiled_version()}: pure-Python build (PLYBITS_PURE=1 is set)" in startup


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_serve_compiles_before_it_serves() -> None:
    """`make serve` (dry run) builds the compiled core first, when it is not built yet, then serves."""
    plan = subprocess.run(["make", "-n", "-B", "serve"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=True).stdout
    assert "PLYBITS_COMPILE=1" in plan and "compiled.py cc" in plan
    assert plan.index("PLYBITS_COMPILE=1") < plan.index("plybits serve")


def test_metrics_name_the_build(client) -> None:  # type: ignore[no-untyped-def]
    kind, why = compiled.build()
    text = client.get("/metrics").text
    assert f'plybits_build_info{{build="{kind}",detail="{why}"}} 1.0' in text
