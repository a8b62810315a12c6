"""Where a single request's work runs: small work on the event loop, large or ``rank`` work in the worker processes.

Both places must give the same answers, errors included; where each verb ran is observed directly. The
workers admit a bounded count of work (past it: 503 with Retry-After) and stop work at its deadline.
"""

from __future__ import annotations

import asyncio
import json
import pydoc
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

import plybits
from app import batchcore, service, work
from app.main import create_app
from app.settings import Settings
from plybits import registry
from plybits.records import b64url
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
    """Record, for each call of ``service.<name>``, whether it ran on the event loop (False: it was sent to the
    worker processes; the spy cannot follow it there, it travels as the original function)."""
    seen: list[bool] = []
    original: Callable[..., Any] = getattr(service, name)

    class Spy:
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            seen.append(on_loop())
            return original(*args, **kwargs)

        def __reduce__(self) -> tuple[Any, tuple[str]]:
            return pydoc.locate, (f"app.service.{name}",)

    spy = Spy()
    pool_run = work.Workers.run

    async def pool_spy(self: work.Workers, call: Callable[..., Any], *args: Any) -> Any:
        if call is spy:
            seen.append(False)
        return await pool_run(self, call, *args)

    monkeypatch.setattr(service, name, spy)
    monkeypatch.setattr(work.Workers, "run", pool_spy)
    return seen


def test_plies_hint_and_inline_rule() -> None:
    settings = Settings(inline_plies=10)
    assert service.plies_hint(["e4"] * 7, None) == 7
    for record, plies in (("e4 e5", 2), ("1. e4 e5 2. Nf3", 3), ("a0a1 a9a8", 2), ("d4", 1)):
        assert service.plies_hint(None, record) >= plies  # never under: a long record is never taken for a short one
    assert service.plies_hint(None, None) == 0
    x88, rank = registry.get_scheme("chess", "0x88"), registry.get_scheme("chess", "rank")
    assert service.runs_inline(settings, 10, x88)
    assert not service.runs_inline(settings, 11, x88)
    assert not service.runs_inline(settings, 1, rank)
    assert not service.runs_inline(Settings(inline_plies=0), 1)


@pytest.mark.parametrize("game", GAMES)
def test_small_work_on_the_loop_large_in_the_pool(clients, monkeypatch: pytest.MonkeyPatch, game: str) -> None:
    client, _ = clients
    seen = places_of(monkeypatch, "encode_response")
    short, _ = random_game(registry.get_game(game), INLINE_PLIES, seed=3)
    long, _ = random_game(registry.get_game(game), 60, seed=3)
    assert len(long) > INLINE_PLIES, "the random game ended too soon to test the large path"
    for moves, scheme in ((short, seed_scheme(game)), (long, seed_scheme(game)), (short, "rank")):
        r = client.post("/v1/encode", json={"game": game, "scheme": scheme, "moves": moves})
        assert r.status_code == 200, r.text
    assert seen == [True, False, False]  # short: on the loop; long, and rank however short: in the pool
    decode_seen = places_of(monkeypatch, "decoded_response")
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


LONG_RANK = {"game": "chess", "scheme": "rank", "moves": ["Nf3", "Nf6", "Ng1", "Ng8"] * 1000}
"""A 4,000-ply rank encode: about 0.05-0.1 s of CPU compiled on a quiet core, half a second in pure Python."""


def released(workers: work.Workers, seconds: float = 10.0) -> bool:
    """Whether every admitted piece of work has stopped (the count drops when the worker is done: soon after
    the answer on a busy machine, since an answer at the deadline does not wait for the worker)."""
    until = time.monotonic() + seconds
    while workers.admitted and time.monotonic() < until:
        time.sleep(0.01)
    return workers.admitted == 0


def test_workers_are_processes_not_threads() -> None:
    """The work runs in another process (a thread would share the event loop's interpreter lock)."""
    import os

    workers = work.Workers(Settings(workers=1))

    async def pid() -> int:
        return await workers.run(os.getpid)

    try:
        assert asyncio.run(pid()) != os.getpid()
    finally:
        workers.close()


def test_full_workers_answer_503_with_retry_after() -> None:
    """One worker, nobody may wait: a second piece of work while the first runs is refused at once."""
    app = create_app(Settings(access_log=False, workers=1, max_waiting=0))
    with TestClient(app) as client:
        workers: work.Workers = app.state.workers
        first: dict[str, Any] = {}
        thread = threading.Thread(target=lambda: first.update(r=client.post("/v1/encode", json=LONG_RANK)))
        thread.start()
        waited = time.monotonic()
        while workers.admitted == 0 and time.monotonic() - waited < 10:
            time.sleep(0.005)
        assert workers.admitted == 1
        started = time.monotonic()
        refused = client.post("/v1/encode", json={"game": "chess", "scheme": "rank", "moves": ["e4"]})
        assert time.monotonic() - started < 1.0  # at once, not after the first
        thread.join()
        assert first["r"].status_code == 200, first["r"].text
        assert refused.status_code == 503
        assert refused.headers["content-type"] == "application/problem+json"
        assert int(refused.headers["retry-after"]) >= 1
        assert refused.json()["type"].endswith("/overloaded")
        assert released(workers)
        # The slot is free again: the same small request now goes through.
        assert client.post("/v1/encode", json={"game": "chess", "scheme": "rank", "moves": ["e4"]}).status_code == 200


def test_work_past_its_deadline_is_a_problem_not_a_hung_request() -> None:
    # 5 ms: well under what LONG_RANK's encode or decode takes, compiled (a 4,000-ply decode is ~40 ms at 100k plies/s)
    app = create_app(Settings(access_log=False, request_seconds=0.005))
    with TestClient(app) as client:
        started = time.monotonic()
        r = client.post("/v1/encode", json=LONG_RANK)
        assert time.monotonic() - started < 10.0  # generous: the machine may be busy; the 503 is the proof
        assert r.status_code == 503, r.text
        assert r.json()["type"].endswith("/deadline-exceeded")
        assert "0.005 s" in r.json()["detail"]
        data = b64url(plybits.encode("chess", "rank", moves=LONG_RANK["moves"]).data)
        r = client.post("/v1/decode", json={"data": data})  # 4,000 plies: sent to the workers, written in SAN
        assert r.status_code == 503 and r.json()["type"].endswith("/deadline-exceeded"), r.text
        assert released(app.state.workers)


def test_library_loops_stop_at_the_deadline() -> None:
    from plybits.deadline import deadline
    from plybits.errors import DeadlineExceededError

    moves = LONG_RANK["moves"]
    data = plybits.encode("chess", "rank", moves=moves[:40]).data
    with deadline(time.monotonic() - 1, 0.5):
        for call in (lambda: plybits.encode("chess", "0x88", moves=moves), lambda: plybits.decode(data),
                     lambda: plybits.convert("chess", moves=moves), lambda: plybits.legal_moves("chess", moves=moves)):
            with pytest.raises(DeadlineExceededError, match=r"ply 0: .*time limit of 0\.5 s"):
                call()
    with deadline(time.monotonic() + 60):
        assert plybits.decode(data).plies == 40  # a deadline not yet passed changes nothing
    assert plybits.encode("chess", "rank", moves=moves[:40]).data == data  # and none at all, outside the block


@pytest.mark.parametrize(("game", "notation"), [(g.name, n) for g in registry.games() for n in g.notations])
def test_a_decode_checks_the_deadline_once_in_so_many_plies(game: str, notation: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # each check reads the clock once: a clock that moves a second a read is past a deadline half a second away at
    # the second check, which is ply EVERY (the first is ply 0)
    from types import SimpleNamespace

    from plybits import deadline as deadlines
    from plybits.errors import DeadlineExceededError

    texts, _ = random_game(registry.get_game(game), 200, seed=1)
    assert len(texts) > deadlines.EVERY
    data = plybits.encode(game, seed_scheme(game), moves=texts).data
    reads = iter(range(1000))
    monkeypatch.setattr(deadlines, "time", SimpleNamespace(monotonic=lambda: next(reads)))
    with deadlines.deadline(0.5, 0.5), pytest.raises(DeadlineExceededError, match=f"stopped at ply {deadlines.EVERY}:"):
        plybits.decode(data, notation=notation)


def test_worker_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLYBITS_WORKERS", "3")
    monkeypatch.setenv("PLYBITS_MAX_WAITING", "0")
    monkeypatch.setenv("PLYBITS_REQUEST_SECONDS", "2.5")
    monkeypatch.setenv("PLYBITS_KEEP_ALIVE_SECONDS", "90")
    settings = Settings.from_env()
    assert (settings.workers, settings.max_waiting, settings.request_seconds, settings.keep_alive_seconds) == (
        3, 0, 2.5, 90)
    assert work.Workers(settings).capacity == 3
    monkeypatch.setenv("PLYBITS_WORKERS", "0")
    assert work.Workers(Settings.from_env()).size >= 1  # one per core
    for bad in ("0", "-1", "soon", "inf", "nan"):
        monkeypatch.setenv("PLYBITS_REQUEST_SECONDS", bad)
        with pytest.raises(ValueError, match="PLYBITS_REQUEST_SECONDS"):
            Settings.from_env()


def test_heavy_batch_lines_run_in_the_worker_processes(clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's rank lines go to the worker processes (a batch thread would hold the interpreter beside the event
    loop), in groups (here of one line); its light lines stay in the batch's thread; the answers are those of the
    single endpoints."""
    client, _ = clients
    sent: list[tuple[Callable[..., Any], str, int]] = []
    pool_run = work.Workers.run

    async def spy(self: work.Workers, call: Callable[..., Any], *args: Any) -> Any:
        sent.append((call, args[0], len(args[1]) if call is batchcore.answer_each else 1))
        return await pool_run(self, call, *args)

    monkeypatch.setattr(work.Workers, "run", spy)
    moves, _ = random_game(registry.get_game("chess"), 12, seed=21)
    lines = [{"game": "chess", "scheme": "rank", "moves": moves}, {"game": "chess", "scheme": "0x88", "moves": moves}]
    ndjson = {"content-type": "application/x-ndjson"}
    encoded = client.post("/v1/batch/encode", content="\n".join(json.dumps(line) for line in lines), headers=ndjson)
    assert sent == [(batchcore.answer_each, "encode", 1)]
    out = [json.loads(text) for text in encoded.text.splitlines()]
    assert [o["line"] for o in out] == [1, 2]
    sent.clear()
    assert [o["result"] for o in out] == [client.post("/v1/encode", json=line).json() for line in lines]
    sent.clear()
    decoded = client.post("/v1/batch/decode", content="\n".join(json.dumps({"data": o["result"]["data"]}) for o in out),
                          headers=ndjson)
    assert sent == [(batchcore.answer_each, "decode", 1)]
    assert [json.loads(text)["result"]["moves"] for text in decoded.text.splitlines()] == [moves, moves]


def test_heavy_batch_lines_read_together_go_to_the_workers_together(clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rank lines of a batch read at once go to the worker processes in one trip a group: those before a
    light line first (answered in order), then the rest; the answers are those of the single endpoints."""
    client, _ = clients
    sent: list[int] = []
    pool_run = work.Workers.run

    async def spy(self: work.Workers, call: Callable[..., Any], *args: Any) -> Any:
        if call is batchcore.answer_each:
            sent.append(len(args[1]))
        return await pool_run(self, call, *args)

    monkeypatch.setattr(work.Workers, "run", spy)
    lines = [{"game": "chess", "scheme": scheme, "moves": random_game(registry.get_game("chess"), 10, seed=seed)[0]}
             for seed, scheme in enumerate(("rank", "rank", "0x88", "rank", "rank", "rank"))]
    body = "".join(json.dumps(line) + "\n" for line in lines)  # one chunk, each line ended (none waits for input)
    encoded = client.post("/v1/batch/encode", content=body, headers={"content-type": "application/x-ndjson"})
    assert sent == [2, 3]
    out = [json.loads(text) for text in encoded.text.splitlines()]
    assert [o["line"] for o in out] == [1, 2, 3, 4, 5, 6]
    assert [o["result"] for o in out] == [client.post("/v1/encode", json=line).json() for line in lines]


def test_a_heavy_group_is_answered_when_full_by_lines_or_by_plies() -> None:
    """A group never holds more than its lines, nor more plies than one request may have (so that it keeps to one
    request's time limit); each answer goes with its own line."""
    groups: list[list[int]] = []

    def answer_all(op: str, requests: list[Any], settings: Settings) -> list[tuple[str, dict[str, Any]]]:
        groups.append([r["plies"] for r in requests])
        return [("result", {"plies": r["plies"]}) for r in requests]

    group = batchcore.HeavyGroup("encode", Settings(max_plies=100), lambda op, r: r.get("plies"), answer_all,
                                 most_lines=3)
    answered: list[batchcore.Answer] = []
    for number, plies in enumerate((10, 20, 30, 40, 70, 100, 1), 1):
        done = group.add(number, {"plies": plies})
        assert done is not None
        answered += done
    assert group.add(8, {"light": True}) is None  # not heavy: not taken
    answered += group.drain()
    assert groups == [[10, 20, 30], [40], [70], [100], [1]]
    assert answered == [(n, "result", {"plies": p}) for n, p in enumerate((10, 20, 30, 40, 70, 100, 1), 1)]
    assert group.drain() == []


def test_a_heavy_group_is_answered_when_its_lines_pass_its_bytes() -> None:
    """However long its lines may be, a group holds at most ``most_bytes`` of them (beyond one line, which is
    always taken): long lines go in smaller groups, each answer still with its own line."""
    groups: list[list[int]] = []

    def answer_all(op: str, requests: list[Any], settings: Settings) -> list[tuple[str, dict[str, Any]]]:
        groups.append([r["n"] for r in requests])
        return [("result", {"n": r["n"]}) for r in requests]

    group = batchcore.HeavyGroup("encode", Settings(), lambda op, r: 1, answer_all, most_lines=10, most_bytes=100)
    answered: list[batchcore.Answer] = []
    for number, size in enumerate((60, 40, 1, 500, 20, 30), 1):
        done = group.add(number, {"n": number}, size)
        assert done is not None
        answered += done
    answered += group.drain()
    assert groups == [[1, 2], [3], [4], [5, 6]]
    assert answered == [(n, "result", {"n": n}) for n in range(1, 7)]


def test_answers_written_in_a_worker_make_the_same_lines() -> None:
    """A worker's answers cross back as their JSON (one ``bytes`` each): the line written from it is the line of
    the document itself, a lone surrogate echoed back as its escape (``json.dumps``, compact, read as UTF-8)."""
    documents = [{"moves": ["e4", "e5"], "tags": {"White": "Łukasz", "Note": "a\ud800b"}, "bits_per_ply": 2.5},
                 {"type": "about:blank", "status": 422, "detail": 'a "quoted" \\ line\n'}]
    for number, (key, document) in enumerate(zip(("result", "error"), documents), 1):
        expected = json.dumps({"line": number, key: document}, separators=(",", ":"), ensure_ascii=False)
        line = expected.encode("utf-8", "backslashreplace") + b"\n"
        assert batchcore.line_json(number, key, document) == line
        assert batchcore.line_json(number, key, batchcore.body_json(document)) == line
    requests: list[Any] = [{"game": "chess", "scheme": "rank", "moves": ["e4", "e5", "Nf3"]},
                           {"game": "chess", "scheme": "rank", "moves": ["e4", "e4"]}, "not an object"]
    written, plies = batchcore.answer_each("encode", requests, Settings())
    assert plies == {"chess": 3}  # the plies of the one line answered with a result
    assert all(isinstance(body, bytes) for _, body in written)
    assert [(key, json.loads(body)) for key, body in written] == [batchcore.answer("encode", r, Settings())
                                                                  for r in requests]


def test_plies_of_heavy_batch_lines_are_counted_by_the_service(clients) -> None:
    """A batch's rank lines are answered in the worker processes, whose metrics nobody scrapes: their plies are
    counted in the service's ``plybits_plies_total`` all the same, as the single endpoints' are."""
    from tests.test_service import metric

    client, _ = clients
    games = [random_game(registry.get_game("chess"), plies, seed=seed)[0] for seed, plies in ((31, 9), (32, 14))]
    ndjson = {"content-type": "application/x-ndjson"}
    before = client.get("/metrics").text
    encoded = client.post("/v1/batch/encode", headers=ndjson, content="".join(
        json.dumps({"game": "chess", "scheme": "rank", "moves": moves}) + "\n" for moves in games))
    middle = client.get("/metrics").text
    client.post("/v1/batch/decode", headers=ndjson, content="".join(
        json.dumps({"data": json.loads(line)["result"]["data"]}) + "\n" for line in encoded.text.splitlines()))
    after = client.get("/metrics").text
    plies = sum(len(moves) for moves in games)
    for op, start, end in (("encode", before, middle), ("decode", middle, after)):
        counted = metric(end, "plybits_plies_total", op=op, game="chess") - metric(start, "plybits_plies_total", op=op,
                                                                                   game="chess")
        assert counted == plies, op
