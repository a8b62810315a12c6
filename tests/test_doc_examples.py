"""Every example in README.md and docs/*.md runs, and prints what the document shows.

How a document writes an example (the rules this test reads them by):

- A command is a line of a ```` ```sh ```` block (a trailing ``\\`` continues it): every such block of every
  document is run, so a command written there is picked up with no change here. The full-line ``# `` comments
  right after a command are its output (standard output, then standard error): ``# `` starts an output line,
  ``#  `` (two spaces or more) continues the one above. An output line that is JSON is compared with the actual
  line as data; ``...`` marks a part the document leaves out (any text within a line, or any number of whole
  lines when it stands alone). A comment on the command's own line is a comment only.
- A command shown anywhere else would escape this test, so it is refused (:func:`test_commands_are_in_sh_blocks`):
  an indented or unlabelled code block may hold a usage synopsis (``plybits dataset info DIR [--json]``: its
  ``[`` or ``|`` or upper-case placeholder say so) or other text, not a runnable command or its output.
- The blocks of one document run in order in one scratch directory that holds a copy of ``docs/examples``
  (so ``docs/examples/games.pgn`` is there, and a file one command writes is there for the next), against
  the real ``plybits`` command and a real uvicorn on 127.0.0.1 (``localhost:8000`` becomes its port).
- The one way to show a command that is not run here: its first words are in :data:`NOT_RUN`, with the reason
  (a server that runs until stopped, a Docker engine, the whole suite). Keep that list this short.
- A ```` ```python ```` block with ``>>>`` lines, and any ``>>>`` example in a document, runs as a doctest in
  the same directory; one without ``>>>`` must run without an error.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent

NOT_RUN = {
    "make ": "builds a virtual environment and runs the whole suite or a server: the suite is this run",
    "docker ": "needs a Docker engine (tests/test_packaging.py checks the Dockerfile and compose.yaml)",
    "plybits serve": "runs until stopped: tests/test_cli.py::test_serve_answers_on_loopback runs it",
}
"""Command prefixes a document may show without this test running them, and why."""

COMMAND_WORDS = ("plybits ", "curl ", "python ", "make ", "docker ", "pip ", "dask ")
"""How a line that is a command (or the ``plybits`` command's output) begins, for :func:`misplaced_commands`."""

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
ELLIPSIS = "..."


@dataclass
class Example:
    """One shell command of a document and the output it shows."""

    command: str
    shown: list[str] = field(default_factory=list)


def shell_examples(text: str) -> list[Example]:
    """The commands of every ```sh block of ``text``, in order, with the output lines they show."""
    return list(_shell_examples(text))


def _shell_examples(text: str) -> Iterator[Example]:
    for match in FENCE.finditer(text):
        if match.group(1) != "sh":
            continue
        current: Example | None = None
        pending = ""
        for line in match.group(2).splitlines():
            if pending:
                pending += "\n" + line
                if not line.endswith("\\"):
                    current = Example(pending)
                    yield current
                    pending = ""
                continue
            if line.startswith("#"):
                assert current is not None, f"output shown before any command: {line!r}"
                body = line[1:]
                if body.startswith("  ") and current.shown:
                    current.shown[-1] += body.strip()
                else:
                    current.shown.append(body.strip())
            elif line.strip():
                if line.endswith("\\"):
                    pending = line
                else:
                    current = Example(line)
                    yield current
            else:
                current = None


def misplaced_commands(text: str) -> list[str]:
    """Lines of ``text``'s indented or unlabelled code blocks that look like a runnable command or its output
    (they begin with one of :data:`COMMAND_WORDS` and are no usage synopsis), which no test would run."""
    found = []
    for match in FENCE.finditer(text):
        if match.group(1) == "":
            found += [line for line in match.group(2).splitlines() if _looks_run(line)]
    outside = FENCE.sub("", text).splitlines()
    for before, line in zip(["", *outside], outside):
        if line.startswith("    ") and (not before.strip() or before.startswith("    ")) and _looks_run(line):
            found.append(line.strip())
    return found


def _looks_run(line: str) -> bool:
    words = line.strip()
    synopsis = re.search(r"[\[|]|\b[A-Z]{2,}\b", words) is not None
    return words.startswith(COMMAND_WORDS) and not synopsis


def python_blocks(text: str) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(text) if m.group(1) in ("python", "pycon")]


def pattern(shown: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in shown.split(ELLIPSIS)), re.S)


def canonical(line: str) -> str:
    """``line`` as compact JSON when it is JSON (the form documents write), else as it is."""
    try:
        return json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        return line


def line_matches(shown: str, actual: str) -> bool:
    if ELLIPSIS not in shown:
        try:
            return bool(json.loads(shown) == json.loads(actual))
        except ValueError:
            return shown == actual
    return pattern(shown).fullmatch(canonical(actual)) is not None


def output_matches(shown: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` lines are what ``shown`` shows; a lone ``...`` line stands for any lines."""
    if not shown:
        return not actual
    head, rest = shown[0], shown[1:]
    if head == ELLIPSIS:
        return any(output_matches(rest, actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and line_matches(head, actual[0]) and output_matches(rest, actual[1:])


def not_run(command: str) -> str | None:
    first = command.strip()
    return next((why for prefix, why in NOT_RUN.items() if first.startswith(prefix)), None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def environment() -> dict[str, str]:
    path = f"{ROOT}{os.pathsep}{ROOT / 'codecs'}"
    return {**os.environ, "PYTHONPATH": path, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "PLYBITS_ACCESS_LOG": "0"}


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning"],
        cwd=ROOT, env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"uvicorn did not start: {server.stderr.read() if server.stderr else ''}")
                time.sleep(0.2)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture()
def scratch(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples")
    return tmp_path


def test_examples_are_found() -> None:
    """The parser finds what the documents hold, so that a block written wrong cannot pass by being skipped."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [e.command for e in shell_examples(readme)]
    assert sum(c.startswith("curl") for c in commands) >= 4
    assert sum(c.startswith("plybits") and not not_run(c) for c in commands) >= 3
    assert all(e.shown for e in shell_examples(readme) if e.command.startswith("curl"))
    assert any(">>>" in block for block in python_blocks(readme))
    dataset = shell_examples((ROOT / "docs" / "dataset.md").read_text(encoding="utf-8"))
    assert sum(e.command.startswith("plybits dataset") and not not_run(e.command) for e in dataset) >= 3


@pytest.mark.parametrize("document", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_commands_are_in_sh_blocks(document: Path) -> None:
    """A command outside a ```sh block would never be run: each document writes its commands where they are."""
    assert misplaced_commands(document.read_text(encoding="utf-8")) == []


def test_a_misplaced_command_is_found() -> None:
    text = ("Run:\n\n    plybits encode games.pgn -o out.ndjson\n\nSynopsis:\n\n    plybits dataset info DIR\n"
            "    plybits validate games.pgn [-o report.ndjson]\n\n```\ncurl -s localhost:8000/healthz\n```\n"
            "```sh\nplybits encode x.pgn\n```\n")
    assert misplaced_commands(text) == ["curl -s localhost:8000/healthz", "plybits encode games.pgn -o out.ndjson"]


def test_the_matcher_tells_drift() -> None:
    assert output_matches(['{"a":1,"b":[2]}'], ['{"b": [2], "a": 1}'])
    assert not output_matches(['{"a":1}'], ['{"a":2}'])
    assert output_matches(['{"a":"x/...","b":2,...}'], ['{"a": "x/yz", "b": 2, "c": 3}'])
    assert not output_matches(['{"a":"x/...","b":2,...}'], ['{"a": "x/yz", "b": 3, "c": 3}'])
    assert output_matches(["one", "...", "four"], ["one", "two", "three", "four"])
    assert not output_matches(["one", "four"], ["one", "two", "four"])
    assert not output_matches(["one"], [])


@pytest.mark.parametrize("document", DOCUMENTS, ids=[p.name for p in DOCUMENTS])
def test_document_examples(document: Path, port: int, scratch: Path) -> None:
    text = document.read_text(encoding="utf-8")
    env = environment()
    for example in shell_examples(text):
        if not_run(example.command):
            continue
        command = re.sub(r"\b(localhost|127\.0\.0\.1):8000\b", f"127.0.0.1:{port}", example.command)
        r = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, capture_output=True, timeout=300)
        actual = (r.stdout + r.stderr).decode("utf-8").splitlines()
        assert output_matches(example.shown, actual), (
            f"{document.name}: `{example.command}` printed\n" + "\n".join(actual)
            + "\n\nbut the document shows\n" + "\n".join(example.shown))
    globs_dir = os.getcwd()
    os.chdir(scratch)
    try:
        parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        # Each ```python block is a doctest of its own; so is the rest of the document (indented >>> examples).
        pieces = [FENCE.sub("", text), *(b for b in python_blocks(text) if ">>>" in b)]
        names: dict[str, object] = {}  # the blocks of a document are one session
        for index, piece in enumerate(pieces):
            test = parser.get_doctest(piece, names, f"{document.name}[{index}]", str(document), 0)
            runner.run(test, clear_globs=False)
            names.update(test.globs)
        assert runner.failures == 0, f"{document.name}: a >>> example fails (see the output above)"
        for block in python_blocks(text):
            if ">>>" not in block:
                exec(compile(block, str(document), "exec"), {})
    finally:
        os.chdir(globs_dir)


def test_the_browser_icon_is_there(port: int) -> None:
    """A browser asks for /favicon.ico on its own: an icon, not a 404 problem in its console."""
    for path in ("/favicon.ico", "/static/favicon.svg"):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            assert response.status == 200 and response.headers["content-type"].startswith("image/svg+xml")
            assert response.read().startswith(b"<svg")
    page = (ROOT / "app" / "static" / "index.html").read_text(encoding="utf-8")
    assert 'rel="icon" href="/static/favicon.svg"' in page


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_api_docs_pages_need_no_other_host(port: int, page: str) -> None:
    """/docs (Swagger UI) and /redoc (ReDoc) name only scripts and style sheets the service serves itself, so they
    work offline: each is answered 200 with its media type, and the page names no other host."""
    base = f"http://127.0.0.1:{port}"
    with urllib.request.urlopen(base + page, timeout=10) as response:
        assert response.status == 200 and response.headers["content-type"].startswith("text/html")
        html = response.read().decode("utf-8")
    scripts = re.findall(r'<script[^>]*\bsrc="([^"]+)"', html)
    links = re.findall(r'<link[^>]*\brel="([^"]+)"[^>]*\bhref="([^"]+)"|<link[^>]*\bhref="([^"]+)"[^>]*\brel="([^"]+)"',
                       html)
    assets = [(url, "text/javascript") for url in scripts]
    for rel, href, href2, rel2 in links:
        kind = rel or rel2
        assets.append((href or href2, "text/css" if kind == "stylesheet" else "image/"))
    assert scripts and len(assets) >= 2, html
    assert not re.findall(r"(?:https?:)?//[\w.-]+\.\w+/", html), "the page names another host"
    for url, media_type in assets:
        assert url.startswith("/") and not url.startswith("//"), (page, url)
        with urllib.request.urlopen(base + url, timeout=10) as response:
            assert response.status == 200, url
            assert response.headers["content-type"].startswith(media_type), (url, response.headers["content-type"])
            assert len(response.read()) > 100, url


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_serve_installs_and_compiles_only_when_their_sources_change(tmp_path: Path) -> None:
    """`make serve` reinstalls only after pyproject.toml changed, compiles the core only after one of its sources
    changed, and serves with `plybits serve` (uvicorn without its own access log: the service writes one JSON
    line a request). A dry run (``make -n``) in a copy: nothing is installed or compiled."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "codecs" / "plybits").mkdir(parents=True)
    shutil.copy(ROOT / "codecs" / "plybits" / "compiled.py", tmp_path / "codecs" / "plybits" / "compiled.py")
    listed = subprocess.run([sys.executable, "codecs/plybits/compiled.py"], cwd=tmp_path, capture_output=True,
                            text=True, check=True).stdout.split()  # the sources the Makefile reads the same way
    sources = [tmp_path / name for name in ("pyproject.toml", "setup.py", "constraints.txt", *listed)]
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").touch()
    for path in sources:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
        os.utime(path, (time.time() - 60, time.time() - 60))
    installed, built = tmp_path / ".venv" / ".installed", tmp_path / ".venv" / ".compiled"
    installed.touch()
    built.touch()

    def dry_run() -> str:
        return subprocess.run(["make", "-n", "serve"], cwd=tmp_path, capture_output=True, text=True,
                              timeout=60, check=True).stdout

    unchanged = dry_run()
    # `plybits serve` runs uvicorn with its own access log off and the service's keep-alive (app/cli.py).
    assert "pip install" not in unchanged and "PLYBITS_COMPILE" not in unchanged and "plybits serve" in unchanged
    os.utime(built, (time.time() - 120, time.time() - 120))  # a source of the compiled core changed since
    plan = dry_run()
    assert "pip install -e" not in plan and plan.index("PLYBITS_COMPILE=1") < plan.index("plybits serve")
    os.utime(installed, (time.time() - 120, time.time() - 120))
    assert "pip install" in dry_run()
