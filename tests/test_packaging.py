"""The Dockerfile's essentials (no Docker engine runs here) and the wheel it installs."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            pairs.append((keyword.upper(), rest.strip()))
    return pairs


def test_base_image_is_slim_python():
    froms = [args for keyword, args in dockerfile_instructions() if keyword == "FROM"]
    assert len(froms) == 1 and froms[0].startswith("python:3.") and froms[0].endswith("-slim")


def test_runs_as_a_non_root_user():
    users = [args for keyword, args in dockerfile_instructions() if keyword == "USER"]
    assert users and users[-1] not in ("root", "0")


def test_healthcheck_probes_healthz():
    checks = [args for keyword, args in dockerfile_instructions() if keyword == "HEALTHCHECK"]
    assert len(checks) == 1 and "/healthz" in checks[0]


def test_cmd_is_exec_form_uvicorn_on_the_app():
    cmds = [args for keyword, args in dockerfile_instructions() if keyword == "CMD"]
    command = json.loads(cmds[-1])  # exec form is a JSON array
    assert command[0] == "uvicorn" and "app.main:app" in command


def test_dockerignore_keeps_the_context_small():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".git" in ignored and ".venv" in ignored


def test_image_installs_the_package_without_test_extras():
    runs = " ".join(args for keyword, args in dockerfile_instructions() if keyword == "RUN")
    assert "pip install ." in runs and "[test]" not in runs


@pytest.mark.slow
def test_the_wheel_carries_both_packages_and_their_data(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path),
         str(ROOT)],
        check=True,
    )
    (wheel,) = tmp_path.glob("plybits-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"app/main.py", "plybits/__init__.py", "plybits/py.typed"} <= names
    shipped_data = {str(p.relative_to(ROOT / "codecs")) for p in (ROOT / "codecs").rglob("*.json")}
    assert shipped_data <= names, f"package data missing from the wheel: {sorted(shipped_data - names)}"
    assert not any(name.startswith("tests/") for name in names)


def test_readme_first_screen_gives_the_two_commands():
    first_screen = "\n".join((ROOT / "README.md").read_text().splitlines()[:25])
    commands = [line.strip() for line in first_screen.splitlines() if line.strip().startswith("make ")]
    assert [shlex.split(c)[:2] for c in commands] == [["make", "serve"], ["make", "test"]]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci


def test_image_pins_every_dependency_before_copying_the_code():
    """constraints.txt pins each runtime dependency (within pyproject's range) and the build backend; the
    image installs it before the code is copied, so a code change does not reinstall the dependencies."""
    import tomllib

    from packaging.requirements import Requirement

    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not pinned with =="
            pins[name.lower().replace("_", "-")] = version
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for text in [*project["project"]["dependencies"], *project["build-system"]["requires"]]:
        req = Requirement(text)
        name = req.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not pinned in constraints.txt"
        assert req.specifier.contains(pins[name]), f"{name}=={pins[name]} is outside pyproject's {req.specifier}"
    steps = dockerfile_instructions()
    order = [(k, a) for k, a in steps if k in ("COPY", "RUN")]
    install_pins = next(i for i, (k, a) in enumerate(order) if k == "RUN" and "-r constraints.txt" in a)
    first_code = next(i for i, (k, a) in enumerate(order) if k == "COPY" and a.split()[0] in ("codecs", "app"))
    assert install_pins < first_code
    assert any(k == "RUN" and "pip install . --no-deps" in a for k, a in order)
    base = next(a for k, a in steps if k == "FROM")
    assert base.count(".") >= 2, f"base image {base} names no patch release"
    assert any(k == "ENV" and "FORWARDED_ALLOW_IPS=" in a for k, a in steps)
    command = json.loads([a for k, a in steps if k == "CMD"][-1])
    assert "--no-access-log" in command  # the service writes its own JSON line a request


@pytest.mark.slow
def test_the_service_runs_from_the_wheel_alone(tmp_path):
    """The wheel the image installs (`pip install . --no-deps`), unpacked away from the checkout, serves the
    API, the playground and its icon: nothing it needs is left behind in the source tree."""
    import os
    import socket
    import time
    import urllib.request

    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(tmp_path / "dist"),
                    str(ROOT)], check=True)
    (wheel,) = (tmp_path / "dist").glob("plybits-*.whl")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                    str(wheel)], check=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    server = subprocess.Popen([sys.executable, "-m", "uvicorn", "app.main:app", "--port", str(port),
                               "--log-level", "warning"], cwd=tmp_path, env=env, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr.read()
                time.sleep(0.2)
        for path in ("/", "/static/playground.js", "/favicon.ico"):
            with urllib.request.urlopen(base + path, timeout=10) as response:
                assert response.status == 200, path
        request = urllib.request.Request(base + "/v1/encode", method="POST",
                                         data=b'{"game": "chess", "scheme": "rank", "moves": ["e4", "e5", "Nf3"]}',
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert json.load(response)["data"] == "UEIBAgEAA9xO-GJj"  # README's rank container
        probe = subprocess.run([sys.executable, "-c", "import app, plybits; print(app.__file__, plybits.__file__)"],
                               cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
        assert all(path.startswith(str(site)) for path in probe.stdout.split())
    finally:
        server.terminate()
        server.wait(timeout=30)
