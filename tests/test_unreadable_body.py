"""A body FastAPI cannot turn into JSON is a 422 that says what is wrong with it (issue 13.11): a valid UTF-8
JSON body with a 4,301-digit integer or 1,000 levels of nesting is not called "not valid UTF-8 JSON"."""

from __future__ import annotations

import sys

import pytest


def post(client, body: bytes):
    return client.post("/v1/validate", content=body, headers={"content-type": "application/json"})


@pytest.mark.parametrize(("body", "says"), [
    (b'{"game": "chess", "moves": [], "n": ' + b"1" * 4301 + b"}", f"more than {sys.get_int_max_str_digits()} digits"),
    (b'{"game": "chess", "moves": ' + b"[" * 1000 + b"]" * 1000 + b"}", "nested too deeply"),
    (b'{"game": "chess", "moves": ["e4\xff"]}', "not valid UTF-8"),
])
def test_the_422_says_what_is_wrong(client, body: bytes, says: str) -> None:
    # Python's own recursion limit decides when 1,000 levels are too deep; hypothesis raises it for its tests, so
    # the interpreter's default is set back for this one (the limit is global: the app's thread sees it too).
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        r = post(client, body)
    finally:
        sys.setrecursionlimit(limit)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert says in r.json()["detail"], r.json()["detail"]
    if "UTF-8" not in says:
        assert "UTF-8" not in r.json()["detail"]
