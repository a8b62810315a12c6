"""One rule for every text field of a request: a lone surrogate or a control character (other than tab and line
breaks) is a 422 naming the field, never a 500 (issue 13.8).

JSON may carry a lone surrogate as an escape (``"\\ud800"``) that no UTF-8 answer can hold; a NUL or a control
character is never part of a move, record, tag or position. Each case is sent as raw JSON text.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

BAD_TEXT = {"lone surrogate": "e4\ud800", "low surrogate": "\udc80", "NUL": "e4\x00", "escape": "e\x1b4"}

BASE: dict[str, dict[str, Any]] = {
    "/v1/encode": {"game": "chess", "scheme": "0x88", "moves": ["e4", "e5"]},
    "/v1/validate": {"game": "chess", "moves": ["e4", "e5"]},
    "/v1/convert": {"game": "chess", "moves": ["e4", "e5"]},
    "/v1/moves": {"game": "chess", "moves": ["e4", "e5"]},
    "/v1/replay": {"game": "chess", "moves": ["e4", "e5"]},
    "/v1/decode": {"data": "UEIBAQEAAg"},
}


def cases() -> list[tuple[str, str, dict[str, Any], str]]:
    """(path, field named in the answer, body with one bad text, kind of bad text) for every text field."""
    out = []
    for path, base in BASE.items():
        fields: dict[str, Any] = {"game": None, "start": None, "notation": None}
        if path == "/v1/decode":
            fields = {"data": None, "notation": None}
        elif path in ("/v1/encode", "/v1/validate", "/v1/convert", "/v1/replay"):
            fields["record"] = None
        if path == "/v1/encode":
            fields.update(scheme=None, tags=None)
        if path == "/v1/convert":
            del fields["notation"]
            fields.update(from_notation=None, to_notation=None)
        for kind, text in BAD_TEXT.items():
            for field in fields:
                body = dict(base)
                if field == "record":
                    body.pop("moves")
                    body["record"] = f"1. {text} e5"
                elif field == "tags":
                    body["tags"] = {"Event": text}
                else:
                    body[field] = text
                out.append((path, field, body, kind))
            if "moves" in base:
                out.append((path, "moves.1", {**base, "moves": ["e4", text]}, kind))
            if path == "/v1/encode":
                out.append((path, "tags", {**base, "tags": {text: "x"}}, kind))
    return out


@pytest.mark.parametrize(("path", "field", "body", "kind"), cases(),
                         ids=[f"{p}-{f}-{k}" for p, f, _, k in cases()])
def test_bad_text_in_any_field_is_a_422_naming_it(client, path: str, field: str, body: dict[str, Any],
                                                  kind: str) -> None:
    raw = json.dumps(body)  # ASCII: the bad characters travel as \\u escapes, as a hostile client sends them
    r = client.post(path, content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    problem = r.json()
    assert problem["type"].endswith("/invalid-request")
    assert problem["detail"].startswith(f"body.{field}"), problem["detail"]
    assert "surrogate" in problem["detail"] or "control character" in problem["detail"]


def test_tab_and_line_breaks_stay_allowed(client) -> None:
    record = '[Event "a\tb"]\r\n\r\n1. e4 e5\n2. Nf3 *\n'
    r = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "record": record})
    assert r.status_code == 200, r.text
