"""The Dockerfile's essentials (no Docker engine runs here) and the wheel it installs."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


MACHINE_PIP_NOTICE = re.compile(r"WARNING: Location '[^']*' is ignored: it is neither a file nor a directory\.")
"""pip's line about a package index in this machine's own pip configuration that does not exist: not the project's."""


def pip(*args: str) -> str:
    """``pip *args`` (quiet) with the build backend at the versions constraints.txt pins, as the image installs it;
    what pip printed on stderr, less :data:`MACHINE_PIP_NOTICE` lines."""
    import os

    env = {**os.environ, "PIP_CONSTRAINT": str(ROOT / "constraints.txt")}
    done = subprocess.run([sys.executable, "-m", "pip", *args, "--quiet"], env=env, capture_output=True, text=True,
                          check=True)
    return "\n".join(line for line in done.stderr.splitlines() if not MACHINE_PIP_NOTICE.fullmatch(line.strip()))


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs of every stage, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            pairs.append((keyword.upper(), rest.strip()))
    return pairs


def dockerfile_stages() -> list[list[tuple[str, str]]]:
    """:func:`dockerfile_instructions` cut into its stages (each from its FROM); the last is the image."""
    stages: list[list[tuple[str, str]]] = []
    for keyword, args in dockerfile_instructions():
        if keyword == "FROM":
            stages.append([])
        stages[-1].append((keyword, args))
    return stages


def image_command() -> list[str]:
    """The image's CMD (exec form: a JSON array)."""
    return json.loads([args for keyword, args in dockerfile_stages()[-1] if keyword == "CMD"][-1])


def test_base_image_is_slim_python():
    froms = [args.split()[0] for keyword, args in dockerfile_instructions() if keyword == "FROM"]
    assert froms and all(f.startswith("python:3.") and f.endswith("-slim") for f in froms)
    assert len(set(froms)) == 1  # the wheel is built on the Python it runs on


def test_runs_as_a_non_root_user():
    users = [args for keyword, args in dockerfile_stages()[-1] if keyword == "USER"]
    assert users and users[-1] not in ("root", "0")


def test_healthcheck_probes_healthz():
    checks = [args for keyword, args in dockerfile_instructions() if keyword == "HEALTHCHECK"]
    assert len(checks) == 1 and "/healthz" in checks[0]


def test_the_image_runs_plybits_serve():
    """The image's command is `plybits serve` (uvicorn with the service's settings: its own access log off, the
    service's keep-alive, proxy headers from FORWARDED_ALLOW_IPS), not uvicorn with options of its own."""
    assert image_command() == ["plybits", "serve", "--host", "0.0.0.0", "--port", "8000"]


def test_the_compiler_mypy_and_setuptools_stay_in_the_build_stage():
    """The C compiler is installed in the build stage's first layer, before any pin or code is copied (a code
    change does not download it again); the image (last stage) installs no compiler and takes the compiled
    wheel from the build stage, and its dependencies are pyproject.toml's runtime ones, which name no build tool."""
    import tomllib

    from packaging.requirements import Requirement

    build, image = dockerfile_stages()[0], dockerfile_stages()[-1]
    assert len(dockerfile_stages()) >= 2
    compiler = next(i for i, (k, a) in enumerate(build) if k == "RUN" and "apt-get install" in a and "gcc" in a)
    first_copy = next(i for i, (k, a) in enumerate(build) if k == "COPY")
    assert compiler < first_copy
    assert any(k == "RUN" and "PLYBITS_COMPILE=1 pip wheel ." in a for k, a in build)
    assert not any(k == "RUN" and "apt-get install" in a for k, a in image)
    assert any(k == "COPY" and a.startswith("--from=") for k, a in image)
    runs = " ".join(a for k, a in image if k == "RUN")
    assert "-r constraints.txt" not in runs and "['project']['dependencies']" in runs
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {Requirement(text).name.lower() for text in dependencies}
    assert not names & {"mypy", "setuptools", "wheel"}


def test_dockerignore_keeps_the_context_small():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".git" in ignored and ".venv" in ignored


def test_image_installs_the_package_without_test_extras():
    runs = " ".join(args for keyword, args in dockerfile_instructions() if keyword == "RUN")
    assert "pip wheel ." in runs and "pip install --no-deps /wheels/" in runs and "[test]" not in runs


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
    for steps in dockerfile_stages():  # in each stage, the pins are installed before the code comes in
        order = [(k, a) for k, a in steps if k in ("COPY", "RUN")]
        install_pins = next(i for i, (k, a) in enumerate(order) if k == "RUN" and "constraints.txt" in a)
        first_code = next(i for i, (k, a) in enumerate(order)
                          if k == "COPY" and (a.split()[0] in ("codecs", "app") or a.startswith("--from=")))
        assert install_pins < first_code
        base = steps[0][1].split()[0]
        assert base.count(".") >= 2, f"base image {base} names no patch release"
    assert any(k == "ENV" and "FORWARDED_ALLOW_IPS=" in a for k, a in dockerfile_stages()[-1])


def image_sources(into: Path) -> Path:
    """``into`` holding what the Dockerfile's COPY instructions put in the image's work folder, from this checkout
    (less what .dockerignore keeps out of every folder: caches)."""
    import shutil

    caches = shutil.ignore_patterns("__pycache__", "*.egg-info", ".mypy_cache")
    for keyword, args in dockerfile_stages()[0]:  # the build stage's sources (the image copies its wheel)
        if keyword != "COPY":
            continue
        *sources, destination = args.split()
        for source in sources:
            path, target = ROOT / source, into / destination
            if path.is_dir():
                shutil.copytree(path, target, ignore=caches, dirs_exist_ok=True)
            else:
                target = target / path.name if destination.endswith("/") or len(sources) > 1 else target
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, target)
    return into


class ImageCommand:
    """The Dockerfile's CMD run here (``python -m plybits serve ...``): on 127.0.0.1 and a free port (not
    0.0.0.0:8000), Python path ``site`` alone."""

    def __init__(self, site: Path, cwd: Path, **environment: str) -> None:
        import os
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        command = image_command()
        assert command[0] == "plybits"  # the console script: `python -m plybits` here, as no script is installed
        command[:1] = ["plybits"]
        command[command.index("--host") + 1] = "127.0.0.1"
        command[command.index("--port") + 1] = str(self.port)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env.update(PYTHONPATH=str(site), PLYBITS_WORKERS="1", **environment)
        self.server = subprocess.Popen([sys.executable, "-m", *command], cwd=cwd, env=env, stderr=subprocess.PIPE,
                                       text=True)
        self.base = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "ImageCommand":
        import time
        import urllib.request

        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=2).close()
                return self
            except OSError:
                assert self.server.poll() is None and time.monotonic() < deadline, self.server.communicate()[1]
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        self.server.terminate()
        self.log = self.server.communicate(timeout=30)[1]

    def access_log(self) -> list[dict]:
        """The service's JSON access lines (after the server stopped)."""
        return [json.loads(line) for line in self.log.splitlines() if line.startswith("{")]


@pytest.fixture(scope="module")
def image_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package built the way the image builds it (the Dockerfile's COPY steps, then `pip install .` with the
    backend at its pinned versions) and installed alone in a folder of its own."""
    tmp_path = tmp_path_factory.mktemp("image")
    source = image_sources(tmp_path / "src")
    pip("wheel", "--no-deps", "-w", str(tmp_path / "dist"), str(source))
    (wheel,) = (tmp_path / "dist").glob("plybits-*.whl")
    site = tmp_path / "site"
    pip("install", "--no-deps", "--target", str(site), str(wheel))
    return site


@pytest.mark.slow
def test_the_service_runs_from_the_wheel_alone(image_site, tmp_path):
    """The package built from what the Dockerfile copies, the way it builds it, installed away from the checkout and
    run with the image's command, serves the API, the playground and its icon, and the API docs pages' scripts:
    nothing it needs is left behind in the source tree."""
    import urllib.request

    site = image_site
    with ImageCommand(site, cwd=tmp_path, PLYBITS_ACCESS_LOG="0") as service:
        for path in ("/", "/static/playground.js", "/favicon.ico", "/docs", "/static/swagger-ui-bundle.js"):
            with urllib.request.urlopen(service.base + path, timeout=10) as response:
                assert response.status == 200, path
        request = urllib.request.Request(service.base + "/v1/encode", method="POST",
                                         data=b'{"game": "chess", "scheme": "rank", "moves": ["e4", "e5", "Nf3"]}',
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            assert json.load(response)["data"] == "UEIBAgIAA6wMSLyx"  # README's rank container
        probe = subprocess.run([sys.executable, "-c", "import app, plybits; print(app.__file__, plybits.__file__)"],
                               cwd=tmp_path, env={"PYTHONPATH": str(site)}, capture_output=True, text=True,
                               check=True)
        assert all(path.startswith(str(site)) for path in probe.stdout.split())


@pytest.mark.slow
def test_the_image_trusts_the_proxy_that_its_environment_names(image_site, tmp_path):
    """The image's command trusts X-Forwarded-For from the addresses in FORWARDED_ALLOW_IPS (`docker run -e ...`):
    from a named proxy the access log shows the forwarded client, from any other address the peer's own."""
    import urllib.request

    site = image_site
    clients = {}
    for proxy in ("127.0.0.1", "192.0.2.1"):  # this test's own address, and one it does not connect from
        with ImageCommand(site, cwd=tmp_path, FORWARDED_ALLOW_IPS=proxy, PLYBITS_ACCESS_LOG="1") as service:
            request = urllib.request.Request(service.base + "/v1/codecs", headers={"x-forwarded-for": "198.51.100.7"})
            urllib.request.urlopen(request, timeout=10).close()
        clients[proxy] = [line["client"] for line in service.access_log() if line["path"] == "/v1/codecs"]
    assert clients == {"127.0.0.1": ["198.51.100.7"], "192.0.2.1": ["127.0.0.1"]}


@pytest.mark.slow
def test_installing_prints_no_warning(tmp_path):
    """`pip install -e .` (what `make serve` and `make test` run) and the wheel the image builds print nothing on
    stderr: pip shows the build backend's warnings, and setuptools' "same name as your package" notice at every
    editable install was one (tools/build_backend.py leaves it out), its "license as a TOML table" another."""
    # Into a throwaway environment (pip --python): `--prefix` would first uninstall the running one's plybits.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True)
    throwaway = tmp_path / "venv" / "bin" / "python"
    assert pip("--python", str(throwaway), "install", "--no-deps", "-e", str(ROOT)) == ""
    assert pip("wheel", "--no-deps", "-w", str(tmp_path / "dist"), str(ROOT)) == ""
    assert list((tmp_path / "venv").rglob("__editable__*plybits*"))


def compose_services() -> dict[str, dict]:
    """compose.yaml's services, as Docker Compose reads them (YAML merge keys resolved)."""
    import yaml

    return yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]


def probe_of(service: dict) -> list[str] | None:
    """A compose service's health probe as an argument list, or None when it has none (disabled: a job)."""
    check = service.get("healthcheck")
    if check is None:
        return None  # would inherit the image's /healthz probe
    if check.get("disable"):
        return []
    test = check["test"]
    assert test[0] == "CMD", f"probe {test} is not exec form"
    return test[1:]


def test_every_compose_service_has_a_probe_that_fits_what_it_runs():
    """Only the HTTP service keeps the image's /healthz probe (and the image's command, `plybits serve`); the
    scheduler and workers probe their own ports, the one-shot steps none."""
    services = compose_services()
    assert "command" not in services["service"] and "entrypoint" not in services["service"]
    assert probe_of(services["service"]) is None  # the image's HEALTHCHECK: /healthz on 8000
    for name in ("scheduler", "worker"):
        command, probe = services[name]["command"], probe_of(services[name])
        assert command[:2] == ["dask", name] and probe, f"{name} inherits the image's HTTP probe"
        port = command[command.index("--port" if name == "scheduler" else "--worker-port") + 1]
        assert f"8000" not in " ".join(probe) and f", {port})" in probe[-1]
    for name in ("data", "dataset"):
        assert probe_of(services[name]) == [], f"{name} runs once and exits: no health probe"


def test_the_containers_user_can_write_the_shared_data_folder():
    """The containers run as the image's uid 10001; ./data (created by Docker as root when missing) gets a folder
    they may write, made by a root step every other service waits for."""
    uid = re.search(r"useradd [^&]*--uid (\d+) plybits", (ROOT / "Dockerfile").read_text().replace("\\\n", " "))
    assert uid
    services = compose_services()
    step = services["data"]
    assert step["user"] == "0" and f"chown {uid.group(1)} /data/out" in " ".join(step["command"])
    for name, service in services.items():
        if name != "data":
            assert service["depends_on"]["data"] == {"condition": "service_completed_successfully"}, name
            assert "./data:/data" in service["volumes"]
    usage = (ROOT / "compose.yaml").read_text().split("services:")[0]
    assert "-o /data/out/" in usage


@pytest.mark.slow
def test_the_dask_probes_tell_a_running_scheduler_and_worker(tmp_path):
    """compose.yaml's scheduler and worker commands, run here for real (other ports), pass their own probes; with
    nothing running, the probes fail."""
    import os
    import socket
    import time

    services = compose_services()

    def free_port() -> str:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return str(s.getsockname()[1])

    ports = {"8786": free_port(), "8789": free_port()}

    def here(words: list[str]) -> list[str]:
        text = json.dumps(words)
        for port, free in ports.items():
            text = text.replace(port, free)
        words = json.loads(text.replace("0.0.0.0", "127.0.0.1").replace("tcp://scheduler:", "tcp://127.0.0.1:"))
        return [sys.executable if words[0] == "python" else str(Path(sys.executable).parent / words[0]), *words[1:]]

    def healthy(name: str) -> bool:
        return subprocess.run(here(probe_of(services[name])), capture_output=True, timeout=30).returncode == 0

    assert not healthy("scheduler") and not healthy("worker")
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    started = [subprocess.Popen(here(services[name]["command"]), cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for name in ("scheduler", "worker")]
    try:
        deadline = time.monotonic() + 120
        while not (healthy("scheduler") and healthy("worker")):
            assert time.monotonic() < deadline and all(p.poll() is None for p in started), "no healthy scheduler/worker"
            time.sleep(0.5)
    finally:
        for process in reversed(started):
            process.terminate()
            process.wait(timeout=60)
