"""The service around the verbs: /v1/convert for every game and notation pair, access logs, /metrics.

Every test here runs for each registered game, so a game that lands later gets the same checks. The
helpers at the top (random legal games of any registered game) are shared by the other service tests.
"""

from __future__ import annotations

import json
import logging
import random
import re
from itertools import product

import pytest

from plybits import registry
from plybits.game import Game

GAMES = [game.name for game in registry.games()]


def seed_scheme(game: str) -> str:
    return next(s.name for s in registry.schemes() if s.game == game)


def random_game(game: Game, plies: int, seed: int, notation: str | None = None) -> tuple[list[str], list[object]]:
    """A random legal game of up to ``plies`` plies from the default start: its moves as text and as objects."""
    rng = random.Random(seed)
    position = game.position(None)
    texts: list[str] = []
    moves: list[object] = []
    for _ in range(plies):
        legal = sorted(position.legal_moves(), key=repr)
        if not legal:
            break
        move = rng.choice(legal)
        texts.append(position.move_text(move, notation))
        moves.append(move)
        position.push(move)
    return texts, moves


def notation_pairs() -> list[tuple[str, str, str]]:
    return [(g.name, a, b) for g in registry.games() for a, b in product(g.notations, repeat=2)]


@pytest.mark.parametrize(("game", "source", "target"), notation_pairs())
def test_convert_every_notation_pair(client, game: str, source: str, target: str) -> None:
    g = registry.get_game(game)
    texts, moves = random_game(g, 30, seed=7, notation=source)
    # The expected text of each move in ``target``: written move by move on our own replay.
    position = g.position(None)
    expected = []
    for move in moves:
        expected.append(position.move_text(move, target))
        position.push(move)
    r = client.post("/v1/convert", json={"game": game, "moves": texts, "from_notation": source, "to_notation": target})
    assert r.status_code == 200, r.text
    assert r.json() == {"moves": expected}
    # And back again: convert is lossless between any two notations.
    back = client.post("/v1/convert", json={"game": game, "moves": expected, "from_notation": target,
                                            "to_notation": source})
    assert back.json() == {"moves": texts}


def test_convert_chess_against_python_chess(client) -> None:
    if "chess" not in GAMES:
        pytest.skip("chess is not registered in this build")
    import chess

    board = chess.Board()
    rng = random.Random(3)
    uci, san = [], []
    for _ in range(60):
        legal = sorted(board.legal_moves, key=lambda m: m.uci())
        if not legal:
            break
        move = rng.choice(legal)
        uci.append(move.uci())
        san.append(board.san(move))
        board.push(move)
    r = client.post("/v1/convert", json={"game": "chess", "moves": uci, "from_notation": "uci", "to_notation": "san"})
    assert r.json() == {"moves": san}
    r = client.post("/v1/convert", json={"game": "chess", "moves": san, "from_notation": "san", "to_notation": "uci"})
    assert r.json() == {"moves": uci}


@pytest.mark.parametrize("game", GAMES)
def test_convert_reports_bad_move_by_ply(client, game: str) -> None:
    texts, _ = random_game(registry.get_game(game), 6, seed=11)
    bad = [*texts[:3], "@@nonsense@@", *texts[4:]]
    r = client.post("/v1/convert", json={"game": game, "moves": bad})
    assert r.status_code == 422
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert body["ply"] == 3 and body["move"] == "@@nonsense@@"


def test_convert_unknown_notation_is_422(client) -> None:
    game = GAMES[0]
    r = client.post("/v1/convert", json={"game": game, "moves": [], "to_notation": "klingon"})
    assert r.status_code == 422
    assert "klingon" in r.json()["detail"]


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample in a Prometheus text exposition (0 when absent)."""
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        match = re.fullmatch(r"([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)", line)
        if not match or match.group(1) != name:
            continue
        got = ",".join(sorted(p for p in re.findall(r'\w+="[^"]*"', match.group(2) or "")))
        if got == want:
            return float(match.group(3))
    return 0.0


@pytest.mark.parametrize("game", GAMES)
def test_metrics_count_requests_errors_and_plies(client, game: str) -> None:
    scheme = seed_scheme(game)
    texts, _ = random_game(registry.get_game(game), 12, seed=5)
    before = client.get("/metrics").text
    encoded = client.post("/v1/encode", json={"game": game, "scheme": scheme, "moves": texts}).json()
    client.post("/v1/decode", json={"data": encoded["data"]})
    client.post("/v1/encode", json={"game": game, "scheme": scheme, "moves": ["@@"]})
    after = client.get("/metrics")
    assert after.headers["content-type"].startswith("text/plain")
    text = after.text
    assert "# TYPE plybits_request_duration_seconds histogram" in text

    def delta(name: str, **labels: str) -> float:
        return metric(text, name, **labels) - metric(before, name, **labels)

    assert delta("plybits_plies_total", op="encode", game=game) == len(texts)
    assert delta("plybits_plies_total", op="decode", game=game) == len(texts)
    assert delta("plybits_requests_total", method="POST", path="/v1/encode", status="200") == 1
    assert delta("plybits_requests_total", method="POST", path="/v1/encode", status="422") == 1
    assert delta("plybits_request_errors_total", path="/v1/encode", status="422") == 1
    assert delta("plybits_request_duration_seconds_count", path="/v1/encode") == 2
    assert delta("plybits_request_duration_seconds_bucket", path="/v1/decode", le="+Inf") == 1


def test_access_log_is_one_json_line_per_request(client, caplog: pytest.LogCaptureFixture) -> None:
    access = logging.getLogger("plybits.access")
    access.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.INFO, logger="plybits.access"):
            client.get("/healthz")
            client.post("/v1/decode", json={"data": "!!"})
            client.get("/no/such/path")
    finally:
        access.removeHandler(caplog.handler)
    records = [json.loads(r.getMessage()) for r in caplog.records if r.name == "plybits.access"]
    assert [(r["method"], r["path"], r["status"]) for r in records] == [
        ("GET", "/healthz", 200), ("POST", "/v1/decode", 422), ("GET", "/no/such/path", 404)]
    for record in records:
        assert isinstance(record["duration_ms"], float) and record["duration_ms"] >= 0


def test_errors_are_problem_json(client) -> None:
    r = client.get("/no/such/path")
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["title"] == "Not Found"
    r = client.post("/v1/decode", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.headers["content-type"] == "application/problem+json"
