"""The ``plybits`` command, run as a real subprocess on real files."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from plybits import registry
from tests.test_service import GAMES, random_game, seed_scheme

SCRIPT = Path(sys.executable).parent / "plybits"
CLI = [sys.executable, "-m", "app.cli"]
ROOT = Path(__file__).resolve().parent.parent

PGN = """[Event "mate"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "illegal"]
[Result "*"]

1. d4 d5 2. Bb5 *

[Event "nags and variations"]
[Result "*"]

1. c4 $1 (1. d4) e5 {a comment} 2. Nc3 Nf6 *
"""


def run(*args: str, stdin: bytes | None = None, timeout: float = 120) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}"}
    return subprocess.run([*CLI, *args], input=stdin, capture_output=True, timeout=timeout, cwd=ROOT, env=env)


def ndjson(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_installed_script_exists() -> None:
    assert SCRIPT.exists(), "the plybits entry point is not installed (pip install -e .)"
    r = subprocess.run([str(SCRIPT), "--help"], capture_output=True, timeout=60)
    assert r.returncode == 0 and b"encode" in r.stdout and b"serve" in r.stdout


@pytest.fixture()
def pgn_file(tmp_path: Path) -> Path:
    if "chess" not in GAMES:
        pytest.skip("chess is not registered in this build")
    path = tmp_path / "games.pgn"
    path.write_text(PGN, encoding="utf-8")
    return path


def test_encode_decode_validate_pgn(pgn_file: Path, tmp_path: Path) -> None:
    import io

    import chess.pgn

    expected = []
    stream = io.StringIO(PGN)
    while (game := chess.pgn.read_game(stream)) is not None:
        board, san = game.board(), []
        for move in game.mainline_moves():
            san.append(board.san(move))
            board.push(move)
        expected.append(san)

    encoded = tmp_path / "games.ndjson"
    r = run("encode", str(pgn_file), "-o", str(encoded), "--fidelity", "moves")  # moves only: what it drops is counted
    assert r.returncode == 1  # one game is illegal
    summary = r.stderr.decode()
    assert "3 records, 2 ok, 1 error;" in summary
    assert f"{len(PGN.encode()):,} bytes in" in summary
    assert f"{encoded.stat().st_size:,} bytes out" in summary
    lines = ndjson(encoded)
    assert [o["line"] for o in lines] == [1, 2, 3]
    assert lines[0]["result"]["scheme"] == seed_scheme("chess")
    assert lines[1]["error"]["ply"] == 2 and lines[1]["error"]["move"] == "Bb5"
    assert lines[2]["result"]["dropped"]  # the NAG, variation and comment were counted

    decoded = tmp_path / "moves.ndjson"
    r = run("decode", str(encoded), "-o", str(decoded))
    assert r.returncode == 1  # the error line stays an error
    out = ndjson(decoded)
    assert out[0]["result"]["moves"] == expected[0]
    assert out[2]["result"]["moves"] == expected[2]
    assert "error" in out[1]

    r = run("validate", str(pgn_file), "-o", "-", "-q")
    assert r.stderr == b""
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [o["result"]["valid"] for o in out] == [True, False, True]
    assert out[0]["result"]["status"]["status"] == "checkmate"


@pytest.mark.parametrize("game", GAMES)
def test_ndjson_from_stdin_for_every_game(game: str) -> None:
    games = [random_game(registry.get_game(game), 3 + i, seed=50 + i)[0] for i in range(4)]
    body = "\n".join(json.dumps({"moves": moves}) for moves in games) + "\nnot json\n"
    r = run("encode", "-", "--game", game, "--format", "ndjson", stdin=body.encode())
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 1
    assert [o["line"] for o in out] == [1, 2, 3, 4, 5]
    assert [o["result"]["plies"] for o in out[:4]] == [len(m) for m in games]
    assert "not JSON" in out[4]["error"]["detail"]
    # Bare base64url containers, one a line, decode too.
    blobs = "\n".join(o["result"]["data"] for o in out[:4]).encode()
    r = run("decode", "-", stdin=blobs)
    assert r.returncode == 0, r.stderr
    assert [json.loads(x)["result"]["moves"] for x in r.stdout.splitlines()] == games


def test_progress_bar_and_errors(pgn_file: Path, tmp_path: Path) -> None:
    r = run("validate", str(pgn_file), "-o", str(tmp_path / "out.ndjson"), "--progress")
    err = r.stderr.decode()
    assert "100.0%" in err and "records" in err
    r = run("encode", str(tmp_path / "missing.pgn"))
    assert r.returncode == 2 and b"missing.pgn" in r.stderr
    r = run("encode", str(pgn_file), "--scheme", "nope")
    assert r.returncode == 2 and b"nope" in r.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_answers_on_loopback() -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}"}
    server = subprocess.Popen([*CLI, "serve", "--port", str(port), "--log-level", "warning"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                    assert json.load(response)["status"] == "ok"
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.2)
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    access = [json.loads(line) for line in err.decode().splitlines() if line.startswith("{")]
    assert any(a["path"] == "/healthz" and a["status"] == 200 for a in access)


@pytest.mark.data
def test_whole_real_pgn_file_game_for_game(tmp_path: Path) -> None:
    """Every game of a real multi-game PGN file comes out as its own line, ending where python-chess ends it."""
    if "chess" not in GAMES:
        pytest.skip("chess is not registered in this build")
    from tests.conftest import peer_chess_finals, shared_data

    path = shared_data("chess", "twic0920.pgn")
    finals = peer_chess_finals(path)
    out = tmp_path / "twic.ndjson"
    r = run("encode", str(path), "-o", str(out), timeout=600)
    assert r.returncode == 0, r.stderr[-500:]
    lines = ndjson(out)
    assert [o["line"] for o in lines] == list(range(1, len(finals) + 1))
    assert [o["result"]["final_position"] for o in lines] == finals
    assert f"{len(finals)} records, {len(finals)} ok, 0 errors" in r.stderr.decode()


def test_command_and_endpoint_answer_alike(client, tmp_path: Path) -> None:
    """One batch core: the same NDJSON lines get the same answers from the command and from the endpoint,
    including an encode line without a scheme (the game's seed scheme, in both)."""
    from app.cli import main

    game = GAMES[0]
    moves = random_game(registry.get_game(game), 5, seed=7)[0]
    lines = [json.dumps({"game": game, "moves": moves}), json.dumps({"game": game, "scheme": "nope", "moves": []}),
             "not json", json.dumps({"game": game, "moves": moves, "colour": "red"}), "", json.dumps([1, 2])]
    source = tmp_path / "in.ndjson"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    output = tmp_path / "out.ndjson"
    assert main(["encode", str(source), "-o", str(output), "-q"]) == 1
    from_command = ndjson(output)
    from_endpoint = [json.loads(x) for x in client.post(
        "/v1/batch/encode", content=source.read_bytes(), headers={"content-type": "application/x-ndjson"}).text.splitlines()]
    assert from_command == from_endpoint
    assert [o["line"] for o in from_command] == [1, 2, 3, 4, 6]
    assert from_command[0]["result"]["scheme"] == seed_scheme(game)


def test_command_never_leaks_the_text_of_an_internal_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app import batchcore
    from app.cli import main

    def broken(body: object, settings: object) -> object:
        raise RuntimeError("secret internals")

    model, _, drop_none = batchcore.OPS["validate"]
    monkeypatch.setitem(batchcore.OPS, "validate", (model, broken, drop_none))
    source = tmp_path / "in.ndjson"
    source.write_text(json.dumps({"game": GAMES[0], "moves": []}) + "\n", encoding="utf-8")
    output = tmp_path / "out.ndjson"
    assert main(["validate", str(source), "-o", str(output), "-q"]) == 1
    (line,) = ndjson(output)
    assert line["error"]["status"] == 500 and "secret" not in json.dumps(line)


XIANGQI_ICCS = "[Event \"a xiangqi game\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 *\n"
XIANGQI_TAGGED = "[Game \"Chinese Chess\"]\n[Event \"tagged\"]\n\n1. h2e2 h9g7 *\n"
ABALONE_APGN = ("[Event \"an Abalone game\"]\n[Variant \"belgian\"]\n[Notation \"Aba-Pro\"]\n[Result \"*\"]\n\n"
                "1. i9h8 i6h6 2. i8h7 a5b5 *\n")


@pytest.mark.parametrize(("name", "text", "game"), [
    ("games.pgn", XIANGQI_ICCS, "xiangqi"),
    ("games.txt", XIANGQI_TAGGED, "xiangqi"),
    ("games.apgn", ABALONE_APGN, "abalone"),
    ("games.pgn", ABALONE_APGN, "abalone"),
])
def test_the_game_comes_from_the_file(name: str, text: str, game: str, tmp_path: Path) -> None:
    if game not in GAMES:
        pytest.skip(f"{game} is not registered in this build")
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    r = run("validate", str(path), "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    (line,) = [json.loads(x) for x in r.stdout.splitlines()]
    assert line["result"]["valid"] is True
    other = "chess" if game != "chess" else "xiangqi"
    r = run("validate", str(path), "--game", other, "-q")
    named = "an abalone" if game == "abalone" else f"a {game}"
    assert r.returncode == 2 and f"looks like {named} file".encode() in r.stderr and b"--game" in r.stderr
    r = run("validate", str(path), "--game", game, "-q")  # naming the right game is fine
    assert r.returncode == 0


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zst"])
def test_compressed_inputs_are_read_as_they_are(suffix: str, pgn_file: Path, tmp_path: Path) -> None:
    import bz2
    import gzip
    import lzma

    raw = pgn_file.read_bytes()
    if suffix == ".zst":
        zstandard = pytest.importorskip("zstandard")
        packed = zstandard.ZstdCompressor().compress(raw)
    else:
        packed = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix](raw)
    path = tmp_path / f"games.pgn{suffix}"
    path.write_bytes(packed)
    plain = run("validate", str(pgn_file), "-q")
    r = run("validate", str(path), "-q")
    assert r.returncode == plain.returncode and r.stdout == plain.stdout and len(r.stdout.splitlines()) == 3
    r = run("validate", "-", "--format", "records", "-q", stdin=packed)  # by its magic bytes, on stdin too
    assert r.stdout == plain.stdout
    path.write_bytes(packed[: len(packed) // 2])  # cut within the first read: an I/O error, no crash
    r = run("validate", str(path), "-q")
    assert r.returncode == 2 and b"compressed input is cut or corrupt" in r.stderr, r.stderr
    assert b"Traceback" not in r.stderr


def test_bare_containers_one_a_line(pgn_file: Path, tmp_path: Path) -> None:
    wrapped = [json.loads(x) for x in run("encode", str(pgn_file), "-q").stdout.splitlines()]
    r = run("encode", str(pgn_file), "--to", "base64url")
    lines = r.stdout.decode("ascii").split("\n")[:-1]
    assert lines == [o["result"]["data"] if "result" in o else "" for o in wrapped]
    err = r.stderr.decode()
    assert "game 2: ply 2, move 'Bb5'" in err and "3 records, 2 ok, 1 error;" in err
    r = run("decode", "-", stdin=r.stdout)  # line n is still record n
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert [o["line"] for o in out] == [1, 3] and r.returncode == 0


def test_version_help_and_module() -> None:
    from plybits import __version__

    r = run("--version")
    assert r.returncode == 0 and r.stdout.decode().startswith(f"plybits {__version__}: ")
    top = run("--help").stdout.decode()
    assert "``" not in top and "encode" in top
    encode = run("encode", "--help").stdout.decode()
    for name in GAMES:
        assert name in encode
    assert "rank" in encode and "uci" in encode
    serve_help = run("serve", "--help").stdout.decode()
    assert "(default: 127.0.0.1)" in serve_help and "(default: 8000)" in serve_help
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}"}
    r = subprocess.run([sys.executable, "-m", "plybits", "--version"], capture_output=True, timeout=60, env=env)
    assert r.returncode == 0 and r.stdout.decode().startswith(f"plybits {__version__}: ")
    # The library does not import the service.
    r = subprocess.run([sys.executable, "-c", "import sys, plybits, plybits.records; print('app' in sys.modules)"],
                       capture_output=True, timeout=60, env=env)
    assert r.stdout.strip() == b"False"


def test_length_prefixed_containers_and_records_back(pgn_file: Path) -> None:
    wrapped = [json.loads(x) for x in run("encode", str(pgn_file), "-q").stdout.splitlines()]
    r = run("encode", str(pgn_file), "--to", "binary", "-q")
    stream, blobs = r.stdout, []
    while stream:  # a LEB128 length, then the container
        size, used = 0, 0
        while True:
            size |= (stream[used] & 0x7F) << (7 * used)
            used += 1
            if not stream[used - 1] & 0x80:
                break
        blobs.append(stream[used:used + size])
        stream = stream[used + size:]
    assert [registry_b64(b) for b in blobs] == [o["result"]["data"] if "result" in o else "" for o in wrapped]
    decoded = run("decode", "-", stdin=r.stdout)
    assert [json.loads(x)["line"] for x in decoded.stdout.splitlines()] == [1, 3]
    r = run("decode", "-", stdin=r.stdout[:-3])
    assert r.returncode == 1 and b"ends inside a container" in r.stdout
    # Back to PGN: the games read again give the same moves.
    text = run("decode", "-", "--to", "records", "-q",
               stdin="\n".join(o["result"]["data"] for o in wrapped if "result" in o).encode()).stdout
    assert text.count(b"[Event ") == 2
    again = [json.loads(x) for x in run("encode", "-", "--format", "records", "-q", stdin=text).stdout.splitlines()]
    fields = ("plies", "payload", "final_position")  # the PGN writer adds the Seven Tag Roster's "?" tags
    assert [[o["result"][f] for f in fields] for o in again] == [
        [o["result"][f] for f in fields] for o in wrapped if "result" in o]


def registry_b64(blob: bytes) -> str:
    from plybits.records import b64url

    return b64url(blob) if blob else ""


@pytest.mark.parametrize("game", GAMES)
def test_records_written_back_are_read_again_without_naming_the_game(game: str) -> None:
    """decode --to records writes each game's own record format, and the command tells the game from it."""
    games = [random_game(registry.get_game(game), 10 + i, seed=90 + i)[0] for i in range(2)]
    body = "\n".join(json.dumps({"moves": moves}) for moves in games).encode()
    encoded = run("encode", "-", "--game", game, "-q", stdin=body)
    assert encoded.returncode == 0, encoded.stderr
    text = run("decode", "-", "--to", "records", "-q", stdin=encoded.stdout)
    assert text.returncode == 0 and text.stdout.strip(), text.stderr
    again = run("encode", "-", "-q", stdin=text.stdout)
    assert again.returncode == 0, again.stdout[:300] + again.stderr
    first = [json.loads(x)["result"] for x in encoded.stdout.splitlines()]
    second = [json.loads(x)["result"] for x in again.stdout.splitlines()]
    assert [(r["game"], r["plies"], r["final_position"]) for r in second] == [
        (r["game"], r["plies"], r["final_position"]) for r in first]
