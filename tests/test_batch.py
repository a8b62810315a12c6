"""The streaming batch endpoints: 10,000 lines with a few broken ones, multi-game PGN files, true streaming."""

from __future__ import annotations

import base64
import json

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

import plybits
from app.main import create_app
from app.settings import Settings
from plybits import registry
from plybits.streams import TOO_LONG, split_lines
from tests.test_limits import run_asgi
from tests.test_service import GAMES, random_game, seed_scheme

NDJSON = {"content-type": "application/x-ndjson"}
LINE_LIMIT = 4096


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.fixture(scope="module")
def small_lines_client():
    with TestClient(create_app(Settings(max_line_bytes=LINE_LIMIT, access_log=False))) as client:
        yield client


def parse_ndjson(text: str) -> list[dict]:
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def sample_games() -> list[dict]:
    """Short random legal games of every registered game, with their expected encodings."""
    samples = []
    for game in GAMES:
        g = registry.get_game(game)
        scheme = seed_scheme(game)
        for seed in range(12):
            texts, _ = random_game(g, 2 + seed % 9, seed=1000 + seed)
            expected = plybits.encode(game, scheme, moves=texts)
            samples.append({"request": {"game": game, "scheme": scheme, "moves": texts},
                            "data": b64url(expected.data), "plies": len(texts),
                            "final": expected.final_position})
    return samples


def test_ten_thousand_lines_with_broken_ones(small_lines_client: TestClient) -> None:
    samples = sample_games()
    game = GAMES[0]
    texts, _ = random_game(registry.get_game(game), 6, seed=99)
    illegal = [*texts[:2], "@@x@@", *texts[3:]]
    broken: dict[int, tuple[bytes, str, int | None]] = {
        # line number: (raw line, expected problem type suffix, expected ply)
        17: (b'{"game": "chess", "scheme": "0x88", "moves": [', "invalid-request", None),
        503: (b"[1, 2, 3]", "invalid-request", None),
        1234: (json.dumps({"scheme": "x", "moves": []}).encode(), "invalid-request", None),
        2500: (json.dumps({"game": "go", "scheme": "x", "moves": []}).encode(), "unknown-codec", None),
        4000: (json.dumps({"game": game, "scheme": seed_scheme(game), "moves": illegal}).encode(), "", 2),
        6000: (json.dumps({"game": game, "scheme": "nope", "moves": []}).encode(), "unknown-codec", None),
        7777: (json.dumps({"game": game, "scheme": seed_scheme(game), "moves": ["x" * LINE_LIMIT]}).encode(),
               "limit-exceeded", None),
        9998: (json.dumps({"game": game, "scheme": seed_scheme(game), "moves": [], "colour": "red"}).encode(),
               "invalid-request", None),
    }
    blank = {9000}
    lines: list[bytes] = []
    expected: dict[int, dict] = {}
    for number in range(1, 10_001):
        if number in broken:
            lines.append(broken[number][0])
        elif number in blank:
            lines.append(b"   ")
        else:
            sample = samples[number % len(samples)]
            lines.append(json.dumps(sample["request"]).encode())
            expected[number] = sample
    body = b"\n".join(lines)  # no newline after the last line: it still counts
    r = small_lines_client.post("/v1/batch/encode", content=body, headers=NDJSON)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/x-ndjson"
    out = parse_ndjson(r.text)
    assert [o["line"] for o in out] == [n for n in range(1, 10_001) if n not in blank]
    for o in out:
        n = o["line"]
        if n in broken:
            _, kind, ply = broken[n]
            assert "error" in o and "result" not in o, o
            assert o["error"]["type"].endswith(kind), (n, o)
            assert o["error"]["status"] in (413, 422)
            if ply is not None:
                assert o["error"]["ply"] == ply and o["error"]["move"] == "@@x@@"
        else:
            sample = expected[n]
            assert "result" in o, o
            assert o["result"]["data"] == sample["data"]
            assert o["result"]["plies"] == sample["plies"]
            assert o["result"]["final_position"] == sample["final"]


def test_batch_decode_round_trips_batch_encode(client: TestClient) -> None:
    samples = sample_games()
    body = "\n".join(json.dumps({"data": s["data"]}) for s in samples) + "\n"
    out = parse_ndjson(client.post("/v1/batch/decode", content=body, headers=NDJSON).text)
    assert [o["line"] for o in out] == list(range(1, len(samples) + 1))
    for o, sample in zip(out, samples, strict=True):
        assert o["result"]["moves"] == sample["request"]["moves"]
        assert o["result"]["game"] == sample["request"]["game"]


def test_batch_decode_isolates_corrupt_blobs(client: TestClient) -> None:
    good = sample_games()[0]["data"]
    raw = bytearray(base64.urlsafe_b64decode(good + "=" * (-len(good) % 4)))
    raw[-1] ^= 0xFF
    lines = [{"data": good}, {"data": b64url(bytes(raw))}, {"data": "***"}, {"data": good, "notation": "nope"},
             {"data": good}]
    out = parse_ndjson(client.post("/v1/batch/decode", content="\n".join(map(json.dumps, lines)),
                                   headers=NDJSON).text)
    assert ["result" in o for o in out] == [True, False, False, False, True]
    assert "CRC" in out[1]["error"]["detail"]
    assert "base64url" in out[2]["error"]["detail"]


def test_ndjson_lines_take_game_and_scheme_from_the_query(client: TestClient) -> None:
    game = GAMES[0]
    texts, _ = random_game(registry.get_game(game), 5, seed=4)
    body = json.dumps({"moves": texts}) + "\n"
    r = client.post(f"/v1/batch/encode?game={game}&scheme={seed_scheme(game)}", content=body, headers=NDJSON)
    (line,) = parse_ndjson(r.text)
    assert line["result"]["plies"] == len(texts)


def test_batch_validate_ndjson(client: TestClient) -> None:
    game = GAMES[0]
    texts, _ = random_game(registry.get_game(game), 8, seed=8)
    lines = [{"game": game, "moves": texts}, {"game": game, "moves": [*texts[:4], "@@"]}, {"moves": texts}]
    out = parse_ndjson(client.post("/v1/batch/validate", content="\n".join(map(json.dumps, lines)),
                                   headers=NDJSON).text)
    assert out[0]["result"]["valid"] is True and out[0]["result"]["plies"] == len(texts)
    assert out[1]["result"] == {"valid": False, "error": {"ply": 4, "move": "@@", "reason": out[1]["result"]["error"]["reason"]}}
    assert out[2]["error"]["status"] == 422


CHESS_PGN = """[Event "one"]
[White "A"]
[Black "B"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0

[Event "two, with an illegal move"]
[Result "*"]

1. e4 e5 2. Ke3 *

[Event "three"]
[Result "1/2-1/2"]

1. d4 {a comment
[that looks like a tag]} d5 2. c4 (2. Nf3) e6 1/2-1/2
"""


def test_multi_game_chess_pgn(client: TestClient) -> None:
    if "chess" not in GAMES:
        pytest.skip("chess is not registered in this build")
    import chess.pgn
    import io

    expected = []
    stream = io.StringIO(CHESS_PGN)
    while (game := chess.pgn.read_game(stream)) is not None:
        expected.append(game)
    r = client.post("/v1/batch/encode", content=CHESS_PGN, headers={"content-type": "application/x-chess-pgn"})
    out = parse_ndjson(r.text)
    assert [o["line"] for o in out] == [1, 2, 3]
    assert out[0]["result"]["scheme"] == seed_scheme("chess")
    assert out[0]["result"]["final_position"] == expected[0].end().board().fen()
    assert out[0]["result"]["plies"] == 7
    assert out[1]["error"]["ply"] == 2 and out[1]["error"]["move"] == "Ke3"
    assert out[2]["result"]["plies"] == 4
    assert out[2]["result"]["final_position"] == expected[2].end().board().fen()
    r = client.post("/v1/batch/validate?game=chess", content=CHESS_PGN, headers={"content-type": "text/plain"})
    out = parse_ndjson(r.text)
    assert [o["result"]["valid"] for o in out] == [True, False, True]
    assert out[0]["result"]["status"]["status"] == "checkmate"


@pytest.mark.data
def test_real_chess_pgn_file_through_batch(client: TestClient) -> None:
    if "chess" not in GAMES:
        pytest.skip("chess is not registered in this build")
    from tests.conftest import peer_chess_finals, shared_data

    path = shared_data("chess", "carlsen_otb.pgn")
    boards = peer_chess_finals(path, limit=300)
    with open(path, "rb") as handle:
        text = handle.read()
    cut = 0
    for _ in range(len(boards) + 1):  # only the games compared (the whole file takes longer than it tells)
        cut = text.find(b"[Event ", cut + 1)
    text = text[:cut] if cut > 0 else text
    r = client.post("/v1/batch/validate", content=text, headers={"content-type": "application/x-chess-pgn"})
    out = parse_ndjson(r.text)
    for o, fen in zip(out[:300], boards, strict=True):
        assert o["result"]["valid"] is True, o
        assert o["result"]["final_position"] == fen


def test_xiangqi_pgn_with_game_query(client: TestClient) -> None:
    if "xiangqi" not in GAMES:
        pytest.skip("xiangqi is not registered in this build")
    pgn = ('[Event "a"]\n[Format "ICCS"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 *\n\n'
           '[Event "b"]\n[Format "ICCS"]\n\n1. h2e2 h9g7 2. h0g2 z9z9 *\n')
    out = parse_ndjson(client.post("/v1/batch/validate?game=xiangqi", content=pgn,
                                   headers={"content-type": "text/plain"}).text)
    assert [o["line"] for o in out] == [1, 2]
    assert out[0]["result"]["valid"] is True and out[0]["result"]["plies"] == 4
    assert out[1]["result"]["valid"] is False and out[1]["result"]["error"]["ply"] == 3


def test_media_types_and_query_checked_before_streaming(client: TestClient) -> None:
    r = client.post("/v1/batch/encode", content="x", headers={"content-type": "application/xml"})
    assert r.status_code == 415 and r.headers["content-type"] == "application/problem+json"
    r = client.post("/v1/batch/encode", content="x", headers={"content-type": "text/plain"})
    assert r.status_code == 422 and "?game=" in r.json()["detail"]
    r = client.post("/v1/batch/decode", content="x", headers={"content-type": "application/x-chess-pgn"})
    assert r.status_code == 415
    r = client.post("/v1/batch/validate?game=go", content="x", headers={"content-type": "text/plain"})
    assert r.status_code == 422 and r.json()["type"].endswith("unknown-codec")


@pytest.mark.parametrize("heavy", [False, True], ids=["seed scheme", "rank"])
def test_batch_streams_answers_before_the_body_ends(heavy: bool) -> None:
    """Drive the ASGI app by hand (``run_asgi`` holding back): the second half of the body is only sent once the
    first answers arrived, which deadlocks (and fails on the timeout) if the endpoint read the whole body before
    answering, or held the heavy lines it read (answered in groups, in the worker processes) until more came."""
    app = create_app(Settings(access_log=False))
    game = GAMES[0]
    texts, _ = random_game(registry.get_game(game), 4, seed=2)
    scheme = "rank" if heavy else seed_scheme(game)
    line = (json.dumps({"game": game, "scheme": scheme, "moves": texts}) + "\n").encode()
    try:
        _, body, _ = run_asgi(app, "/v1/batch/encode", [(b"content-type", b"application/x-ndjson")],
                              [line * 3, line * 3], hold=True)
    finally:
        app.state.workers.close()
    out = [json.loads(x) for x in body.splitlines()]
    assert [o["line"] for o in out] == [1, 2, 3, 4, 5, 6]
    assert all("result" in o for o in out)


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(lines=st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=12),
       cuts=st.lists(st.integers(0, 200), max_size=8), final_newline=st.booleans(), limit=st.integers(1, 10))
def test_split_lines_any_chunking(lines: list[bytes], cuts: list[int], final_newline: bool, limit: int) -> None:
    """However the stream is cut into chunks, the same lines come out; over-long ones as TOO_LONG."""
    text = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    bounds = sorted({0, len(text), *(c for c in cuts if c < len(text))})
    chunks = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    expected = text.split(b"\n")
    if expected and expected[-1] == b"":
        expected.pop()  # a final newline ends the last line, it opens no new one
    expected = [line if len(line) <= limit else TOO_LONG for line in expected]
    assert list(split_lines(iter(chunks), limit)) == expected


REAL_FILES = [
    ("xiangqi", ("xiangqi", "Hu_Ronghua_1391_UCI_games.pgn"), r"\b[a-i][0-9][a-i][0-9]\b"),
    ("abalone", ("abalone", "migs-2016-2017.train.apgn"), r"\b[a-i][1-9](?:[a-i][1-9]){1,2}\b"),
]


@pytest.mark.data
@pytest.mark.parametrize(("game", "parts", "move_pattern"), REAL_FILES, ids=[g for g, _, _ in REAL_FILES])
def test_real_record_file_through_batch(client: TestClient, game: str, parts: tuple[str, str],
                                        move_pattern: str) -> None:
    """A real multi-game file sent whole as text/plain with ?game=: one answer per game, every game legal,
    each with as many plies as its movetext has moves (counted here with a regular expression)."""
    if game not in GAMES:
        pytest.skip(f"{game} is not registered in this build")
    import re

    from tests.conftest import shared_data

    text = shared_data(*parts).read_text(encoding="utf-8")
    games = re.split(r"\n(?=\[Event )", text.strip())
    plies = [len(re.findall(move_pattern, re.sub(r"\[[^\]]*\]", "", g))) for g in games]
    r = client.post(f"/v1/batch/validate?game={game}", content=text.encode(), headers={"content-type": "text/plain"})
    out = parse_ndjson(r.text)
    assert [o["line"] for o in out] == list(range(1, len(games) + 1))
    assert [o["result"]["valid"] for o in out] == [True] * len(games)
    assert [o["result"]["plies"] for o in out] == plies
