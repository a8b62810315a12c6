"""Hostile blobs: every registered codec's decode and ``/v1/decode`` answer random and mutated containers
with a result or a 4xx problem: never a 5xx or another exception, never a hang, never unbounded memory.

Mutated containers get their CRC recomputed, or nearly all of them would stop at the CRC check and the
decoders would never see them. Examples are derandomized (stable in CI); raise ``PLYBITS_FUZZ_EXAMPLES``
to search longer.
"""

from __future__ import annotations

import base64
import os
import signal
import time
import tracemalloc
import zlib
from contextlib import contextmanager
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import plybits
from plybits import container, registry
from plybits.errors import PlybitsError
from tests.test_service import random_game

EXAMPLES = int(os.environ.get("PLYBITS_FUZZ_EXAMPLES", "120"))
CALL_SECONDS = 2.0
"""Most one decode may take (the longest valid game here decodes in milliseconds)."""
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
SCHEMES = registry.schemes()
IDS = [f"{s.game}/{s.name}" for s in SCHEMES]


@contextmanager
def hang_guard(seconds: float = 10.0):
    """Fail instead of hanging: SIGALRM interrupts a call stuck for ``seconds``."""

    def expired(*_: object) -> None:
        raise TimeoutError(f"call still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def with_crc(body: bytes) -> bytes:
    return body + zlib.crc32(body).to_bytes(4, "big")


@cache
def valid_blobs(scheme) -> list[bytes]:
    """A few valid containers of ``scheme``: empty, one ply, short and longer random games."""
    game = registry.get_game(scheme.game)
    blobs = []
    for seed, plies in ((1, 0), (2, 1), (3, 9), (4, 40)):
        texts, _ = random_game(game, plies, seed=seed)
        blobs.append(plybits.encode(scheme.game, scheme.name, moves=texts, tags={"Event": "fuzz"}).data)
    return blobs


@st.composite
def mutated(draw: st.DrawFn, blobs: list[bytes]) -> bytes:
    """A valid container changed in one of several ways, its CRC fixed."""
    blob = draw(st.sampled_from(blobs))
    box = container.unpack(blob, max_plies=1 << 62)
    how = draw(st.sampled_from(["flip", "truncate", "extend", "plies", "codec", "payload", "header"]))
    payload = bytearray(box.payload)
    if how == "flip" and payload:
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(payload) * 8 - 1))
            payload[i // 8] ^= 0x80 >> (i % 8)
    elif how == "truncate" and payload:
        del payload[draw(st.integers(0, len(payload) - 1)):]
    elif how == "extend":
        payload += draw(st.binary(min_size=1, max_size=8))
    elif how == "plies":
        box.plies = draw(st.one_of(st.integers(0, box.plies + 3), st.integers(0, 20_000)))
    elif how == "codec":
        box.codec_id = draw(st.sampled_from([s.codec_id for s in SCHEMES] + [0, 0xFF]))
    elif how == "payload":
        payload = bytearray(draw(st.binary(max_size=64)))
        box.plies = draw(st.integers(0, 64))
    if how == "header":
        raw = bytearray(blob[:-4])
        raw[draw(st.integers(2, min(len(raw) - 1, 12)))] = draw(st.integers(0, 255))
        return with_crc(bytes(raw))
    box.payload = bytes(payload)
    return container.pack(box)


def decode_bounded(blob: bytes, max_plies: int = 20_000) -> None:
    """Decode ``blob``: fine if it decodes or raises a PlybitsError; it must not take long."""
    started = time.perf_counter()
    with hang_guard():
        try:
            plybits.decode(blob, max_plies=max_plies)
        except PlybitsError:
            pass
    assert time.perf_counter() - started < CALL_SECONDS


@pytest.mark.parametrize("scheme", SCHEMES, ids=IDS)
def test_codec_decode_random_bytes(scheme) -> None:
    @FUZZ
    @given(payload=st.binary(max_size=200), plies=st.integers(0, 400), version=st.integers(0, 2))
    def check(payload: bytes, plies: int, version: int) -> None:
        game = registry.get_game(scheme.game)
        with hang_guard():
            started = time.perf_counter()
            try:
                moves = scheme.decode(game.position(None), payload, plies, version)
            except PlybitsError:
                return
            assert time.perf_counter() - started < CALL_SECONDS
        assert len(moves) == plies

    check()


@pytest.mark.parametrize("scheme", SCHEMES, ids=IDS)
def test_codec_decode_mutated_containers(scheme) -> None:
    @FUZZ
    @given(blob=mutated(valid_blobs(scheme)))
    def check(blob: bytes) -> None:
        decode_bounded(blob)

    check()


@pytest.mark.parametrize("scheme", SCHEMES, ids=IDS)
def test_huge_claimed_ply_count_stays_small(scheme) -> None:
    """A container that claims ~2^60 plies over a few bytes of payload: refused at the service's limit, and
    even with no limit at all the decoder fails fast in little memory (it must not size anything by the claim)."""
    blob = valid_blobs(scheme)[2]
    box = container.unpack(blob, max_plies=1 << 62)
    box.plies = 1 << 60
    huge = container.pack(box)
    with pytest.raises(PlybitsError, match="plies"):
        plybits.decode(huge)
    tracemalloc.start()
    try:
        started = time.perf_counter()
        with hang_guard(), pytest.raises(PlybitsError):
            plybits.decode(huge, max_plies=1 << 62)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < CALL_SECONDS * 5  # tracemalloc slows everything down
    assert peak < 16 << 20


@FUZZ
@given(data=st.binary(max_size=120))
def test_decode_random_bytes(data: bytes) -> None:
    decode_bounded(data)
    decode_bounded(with_crc(b"PB" + data))


ANY_BLOB = st.deferred(lambda: st.one_of([mutated(valid_blobs(s)) for s in SCHEMES]))


@FUZZ
@given(
    data=st.one_of(
        ANY_BLOB.map(lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")),
        st.binary(max_size=80).map(lambda b: base64.urlsafe_b64encode(b).decode()),
        st.text(max_size=40),
    ),
    notation=st.one_of(st.none(), st.sampled_from(sorted({n for g in registry.games() for n in g.notations})),
                       st.text(max_size=5)),
)
def test_http_decode_never_5xx(client, data: str, notation: str | None) -> None:
    body = {"data": data} if notation is None else {"data": data, "notation": notation}
    with hang_guard():
        started = time.perf_counter()
        r = client.post("/v1/decode", json=body)
        elapsed = time.perf_counter() - started
    assert r.status_code < 500, r.text
    assert elapsed < CALL_SECONDS
    if r.status_code >= 400:
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["status"] == r.status_code
    else:
        assert r.json()["plies"] == len(r.json()["moves"])
