"""New Entropy through the HTTP API: encode, decode, validate, convert, moves, and problem+json on bad turns."""

from __future__ import annotations

import base64
import random

import pytest

from tests.test_entropy_e13 import blob, word
from tests.test_entropy_rules import FILES, LETTERS, model_moves_count, random_game

PROBLEM = "application/problem+json"


def test_codecs_lists_e13(client):
    rows = [row for row in client.get("/v1/codecs").json() if row["game"] == "entropy"]
    e13 = next(row for row in rows if row["scheme"] == "e13")
    assert e13["bits_per_ply"] == 13 and e13["notations"] == ["tokens"] and e13["starts"] == ["empty"]


def test_encode_decode_the_spec_vector(client):
    body = client.post("/v1/encode", json={"game": "entropy", "scheme": "e13", "moves": ["Rd4", "Ga1a7"]}).json()
    assert body["payload"] == "0c010300" and body["payload_bits"] == 26 and body["plies"] == 2
    assert body["final_position"] == "G6/7/7/3R3/7/7/7 1 3 -"
    back = client.post("/v1/decode", json={"data": body["data"]}).json()
    assert back["moves"] == ["Rd4", "Ga1a7"] and back["final_position"] == body["final_position"]


def test_validate_reports_scores_and_round(client):
    tokens, _, scores, _ = random_game(random.Random(21))
    half = client.post("/v1/validate", json={"game": "entropy", "moves": tokens[:60]}).json()
    assert half["valid"] and half["status"] == {"status": "ongoing", "scores": scores[:1], "round": 2}
    done = client.post("/v1/validate", json={"game": "entropy", "moves": tokens}).json()
    assert done["status"]["status"] == "finished" and done["status"]["scores"] == scores
    assert done["status"]["result"] == ("1-0" if scores[1] > scores[0] else "0-1" if scores[0] > scores[1] else "1/2-1/2")


def test_a_record_can_start_from_a_final_position(client):
    tokens, _, _, _ = random_game(random.Random(22))
    first = client.post("/v1/encode", json={"game": "entropy", "scheme": "e13", "moves": tokens[:30]}).json()
    rest = client.post("/v1/encode", json={"game": "entropy", "scheme": "e13", "moves": tokens[30:],
                                           "start": first["final_position"]}).json()
    back = client.post("/v1/decode", json={"data": rest["data"]}).json()
    assert back["start"] == first["final_position"] and back["moves"] == tokens[30:]


def test_moves_lists_every_turn_of_every_colour_left(client):
    body = client.post("/v1/moves", json={"game": "entropy", "moves": ["Rd4"]}).json()
    assert body["position"] == "7/7/7/3R3/7/7/7 1 2 -"
    board: list[list[str | None]] = [[None] * 7 for _ in range(7)]
    board[3][3] = "R"
    assert len(body["legal"]) == len(set(body["legal"])) == model_moves_count(board, dict.fromkeys(LETTERS, 6))
    assert "Gd1d3" in body["legal"] and "Gd1d4" not in body["legal"] and "Gd1d5" not in body["legal"]


def test_convert_canonicalises_case(client):
    body = client.post("/v1/convert", json={"game": "entropy", "moves": ["rd4", "GA1A7"],
                                            "from_notation": "tokens", "to_notation": "tokens"}).json()
    assert body == {"moves": ["Rd4", "Ga1a7"]}


BAD = [
    (["Rd4", "Gd4"], 1, "cell d4 is occupied by R"),
    (["Rd4", "Gd1d7"], 1, "blocked by R on d4"),
    (["Rd4", "Gd1d4"], 1, "slide target d4 is occupied by R"),
    (["Rd4", "Ga1b2"], 1, "not along a row or column"),
    ([f"K{f}7" for f in FILES] + ["Ka1"], 7, "no black (K) chip left"),
    (["Rd4", "Qd5"], 1, "unknown colour 'Q'"),
    (["Rd4", "Ri9"], 1, "unknown cell 'i9'"),
]


@pytest.mark.parametrize("tokens,ply,reason", BAD)
def test_bad_turns_are_problem_json_with_their_ply(client, tokens, ply, reason):
    response = client.post("/v1/encode", json={"game": "entropy", "scheme": "e13", "moves": tokens})
    assert response.status_code == 422 and response.headers["content-type"] == PROBLEM
    problem = response.json()
    assert problem["ply"] == ply and problem["move"] == tokens[ply] and reason in problem["detail"]
    checked = client.post("/v1/validate", json={"game": "entropy", "moves": tokens}).json()
    assert checked["valid"] is False and checked["error"]["ply"] == ply and reason in checked["error"]["reason"]


def test_a_99th_turn_is_problem_json(client):
    tokens, _, _, _ = random_game(random.Random(23))
    response = client.post("/v1/encode", json={"game": "entropy", "scheme": "e13", "moves": tokens + ["Rd4"]})
    assert response.status_code == 422 and response.headers["content-type"] == PROBLEM
    assert response.json()["ply"] == 98 and "game is over" in response.json()["detail"]


def test_bad_data_is_problem_json_with_its_ply(client):
    data = base64.urlsafe_b64encode(blob([word("R", "d4"), word("G", "a1", 14)])).rstrip(b"=").decode()
    response = client.post("/v1/decode", json={"data": data})
    assert response.status_code == 422 and response.headers["content-type"] == PROBLEM
    assert response.json()["ply"] == 1 and "option 14 out of range" in response.json()["detail"]


@pytest.mark.parametrize("start", ["7/7/7/7/7/7 1 1 -", "7/7/7/7/7/7/7 1 2 -", "standard", ""])
def test_bad_starts_are_problem_json(client, start):
    response = client.post("/v1/encode", json={"game": "entropy", "scheme": "e13", "moves": [], "start": start})
    assert response.status_code == 422 and response.headers["content-type"] == PROBLEM
    assert "bad entropy position" in response.json()["detail"]
