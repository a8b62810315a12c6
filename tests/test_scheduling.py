"""Where a single request's work runs: small work on the event loop, large or ``rank`` work in the worker pool.

Both places must give the same answers, errors included; the thread each verb ran on is observed directly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import service
from app.main import create_app
from app.settings import Settings
from plybits import registry
from tests.test_service import GAMES, random_game, seed_scheme

INLINE_PLIES = 20


@pytest.fixture(scope="module")
def clients() -> Iterator[tuple[TestClient, TestClient]]:
    """(a service that runs up to INLINE_PLIES plies inline, one that sends every request to the pool)."""
    small = create_app(Settings(access_log=False, inline_plies=INLINE_PLIES))
    none = create_app(Settings(access_log=False, inline_plies=0))
    with TestClient(small) as inline_client, TestClient(none) as pool_client:
        yield inline_client, pool_client


def on_loop() -> bool:
    """Whether the caller runs on an event loop's thread (a worker-pool thread has no running loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def places_of(monkeypatch: pytest.MonkeyPatch, name: str) -> list[bool]:
    """Record, for each call of ``service.<name>``, whether it ran on the event loop."""
    seen: list[bool] = []
    original: Callable[..., Any] = getattr(service, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(on_loop())
        return original(*args, **kwargs)

    monkeypatch.setattr(service, name, spy)
    return seen


def test_plies_hint_and_inline_rule() -> None:
    settings = Settings(inline_plies=10)
    assert service.plies_hint(["e4"] * 7, None) == 7
    for record, plies in (("e4 e5", 2), ("1. e4 e5 2. Nf3", 3), ("a0a1 a9a8", 2), ("d4", 1)):
        assert service.plies_hint(None, record) >= plies  # never under: a long record is never taken for a short one
    assert service.plies_hint(None, None) == 0
    assert service.runs_inline(settings, 10, "0x88")
    assert not service.runs_inline(settings, 11, "0x88")
    assert not service.runs_inline(settings, 1, "rank")
    assert not service.runs_inline(Settings(inline_plies=0), 1)


@pytest.mark.parametrize("game", GAMES)
def test_small_work_on_the_loop_large_in_the_pool(clients, monkeypatch: pytest.MonkeyPatch, game: str) -> None:
    client, _ = clients
    seen = places_of(monkeypatch, "encode_body")
    short, _ = random_game(registry.get_game(game), INLINE_PLIES, seed=3)
    long, _ = random_game(registry.get_game(game), 60, seed=3)
    assert len(long) > INLINE_PLIES, "the random game ended too soon to test the large path"
    for moves, scheme in ((short, seed_scheme(game)), (long, seed_scheme(game)), (short, "rank")):
        r = client.post("/v1/encode", json={"game": game, "scheme": scheme, "moves": moves})
        assert r.status_code == 200, r.text
    assert seen == [True, False, False]  # short: on the loop; long, and rank however short: in the pool
    decode_seen = places_of(monkeypatch, "decode_container")
    small = client.post("/v1/encode", json={"game": game, "scheme": seed_scheme(game), "moves": short}).json()["data"]
    large = client.post("/v1/encode", json={"game": game, "scheme": seed_scheme(game), "moves": long}).json()["data"]
    for data in (small, large):
        assert client.post("/v1/decode", json={"data": data}).status_code == 200
    assert decode_seen == [True, False]


@pytest.mark.parametrize("game", GAMES)
def test_loop_and_pool_answer_alike(clients, game: str) -> None:
    inline_client, pool_client = clients
    g = registry.get_game(game)
    moves, _ = random_game(g, INLINE_PLIES, seed=11)
    bad = [*moves[:5], "not-a-move", *moves[5:]]
    requests: list[tuple[str, dict[str, Any]]] = [
        ("/v1/encode", {"game": game, "scheme": seed_scheme(game), "moves": moves}),
        ("/v1/encode", {"game": game, "scheme": seed_scheme(game), "moves": bad}),
        ("/v1/validate", {"game": game, "moves": moves}),
        ("/v1/validate", {"game": game, "moves": bad}),
        ("/v1/convert", {"game": game, "moves": moves, "to_notation": g.notations[-1]}),
        ("/v1/moves", {"game": game, "moves": moves[:4]}),
    ]
    for path, body in requests:
        on_loop, in_pool = inline_client.post(path, json=body), pool_client.post(path, json=body)
        assert (on_loop.status_code, on_loop.json()) == (in_pool.status_code, in_pool.json()), path
    data = inline_client.post("/v1/encode", json=requests[0][1]).json()["data"]
    on_loop, in_pool = inline_client.post("/v1/decode", json={"data": data}), pool_client.post(
        "/v1/decode", json={"data": data})
    assert on_loop.status_code == 200 and on_loop.json() == in_pool.json()
    broken = data[:-3] + ("A" if data[-3] != "A" else "B") + data[-2:]
    on_loop, in_pool = inline_client.post("/v1/decode", json={"data": broken}), pool_client.post(
        "/v1/decode", json={"data": broken})
    assert on_loop.status_code == 422 and on_loop.json() == in_pool.json()
