"""Xiangqi through the HTTP service: encode, decode, validate, convert, moves, and problem+json for bad input."""

from __future__ import annotations

import base64

import pytest

MATE_IN_ONE = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"


def test_codecs_lists_xiangqi(client):
    codecs = {(c["game"], c["scheme"]): c for c in client.get("/v1/codecs").json()}
    xq10 = codecs["xiangqi", "xq10"]
    assert xq10["bits_per_ply"] == 10.0
    assert xq10["notations"] == ["iccs", "wxf", "chinese"] and xq10["starts"] == ["standard"]


def test_encode_decode(client):
    r = client.post("/v1/encode", json={"game": "xiangqi", "scheme": "xq10", "moves": ["炮二平五", "马8进7"]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["payload"] == "50bc40" and body["plies"] == 2 and body["payload_bits"] == 20
    r = client.post("/v1/decode", json={"data": body["data"], "notation": "wxf"})
    assert r.status_code == 200 and r.json()["moves"] == ["C2=5", "H8+7"]
    assert r.json()["final_position"] == body["final_position"]


def test_encode_a_record(client):
    record = '[Event "e"]\n[Red "r"]\n[Black "b"]\n\n1. h2e2 h9g7 2. h0g2 \n'
    r = client.post("/v1/encode", json={"game": "xiangqi", "scheme": "xq10", "record": record})
    assert r.status_code == 200, r.text
    decoded = client.post("/v1/decode", json={"data": r.json()["data"]}).json()
    assert decoded["moves"] == ["h2e2", "h9g7", "h0g2"]
    assert decoded["tags"] == {"Event": "e", "Red": "r", "Black": "b"}


def test_validate(client):
    r = client.post("/v1/validate", json={"game": "xiangqi", "moves": ["h2e2", "h9g7", "a0a5"]})
    assert r.status_code == 200
    body = r.json()
    assert body["valid"] is False and body["error"]["ply"] == 2 and body["error"]["move"] == "a0a5"
    r = client.post("/v1/validate", json={"game": "xiangqi", "moves": ["R9=6"], "start": MATE_IN_ONE})
    body = r.json()
    assert body["valid"] is True and body["status"]["status"] == "checkmate"
    assert body["status"]["winner"] == "red" and body["status"]["result"] == "1-0"


def test_convert_and_moves(client):
    r = client.post("/v1/convert", json={"game": "xiangqi", "moves": ["h2e2", "h9g7"],
                                         "from_notation": "iccs", "to_notation": "chinese"})
    assert r.status_code == 200 and r.json()["moves"] == ["炮二平五", "马８进７"]
    r = client.post("/v1/moves", json={"game": "xiangqi", "start": MATE_IN_ONE, "notation": "wxf"})
    assert r.status_code == 200
    assert "R9=6" in r.json()["legal"] and r.json()["position"] == MATE_IN_ONE


@pytest.mark.parametrize(
    "body",
    [
        {"game": "xiangqi", "scheme": "xq10", "moves": ["h2e2", "zz"]},
        {"game": "xiangqi", "scheme": "xq10", "moves": ["C2=4", "C2=9"]},
        {"game": "xiangqi", "scheme": "xq10", "moves": [], "start": "not a fen"},
        {"game": "xiangqi", "scheme": "xq10", "moves": ["h2e2"], "notation": "san"},
        {"game": "xiangqi", "scheme": "xq10", "record": "1. h2e2 {"},
    ],
)
def test_bad_input_is_a_problem(client, body):
    r = client.post("/v1/encode", json=body)
    assert 400 <= r.status_code < 500, r.text
    assert r.headers["content-type"].startswith("application/problem+json")


def test_bad_data_is_a_problem_with_its_ply(client):
    good = client.post("/v1/encode", json={"game": "xiangqi", "scheme": "xq10", "moves": ["h2e2", "h9g7"]}).json()
    raw = base64.urlsafe_b64decode(good["data"] + "==")
    r = client.post("/v1/decode", json={"data": base64.urlsafe_b64encode(raw[:-6]).decode().rstrip("=")})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")
    from plybits import container

    box = container.Container(codec_id=0x11, scheme_version=0, plies=1, payload=bytes.fromhex("8000"))  # slot 16
    data = base64.urlsafe_b64encode(container.pack(box)).decode().rstrip("=")
    r = client.post("/v1/decode", json={"data": data})
    assert r.status_code == 422 and r.json()["ply"] == 0 and "black piece" in r.json()["detail"]


def test_batch_of_a_multi_game_file(client):
    from pathlib import Path

    body = (Path(__file__).parent / "fixtures" / "xiangqi" / "with_illegal.pgn").read_bytes()
    r = client.post("/v1/batch/validate?game=xiangqi", content=body, headers={"content-type": "text/plain"})
    assert r.status_code == 200
    import json

    lines = [json.loads(line) for line in r.text.splitlines() if line.strip()]
    assert [line["line"] for line in lines] == [1, 2, 3]
    assert lines[0]["result"]["valid"] is True and lines[0]["result"]["plies"] == 4
    assert lines[1]["result"]["valid"] is False and lines[1]["result"]["error"]["ply"] == 2
