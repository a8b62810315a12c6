"""Lossless records through the service, the batch endpoints, the command and the dataset job (issue 16)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import chess.pgn

from tests.test_lossless import APGN_ANNOTATED, NESTED, export

NDJSON = {"content-type": "application/x-ndjson"}
PGN = {"content-type": "application/x-chess-pgn"}
ILLEGAL_VARIATION = "1. e4 e5 2. Nf3 (2. Nc3 Nc6 3. Ke3) Nc6 *"


def test_encode_keeps_the_whole_record_by_default_and_decode_writes_it(client) -> None:
    body = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "record": NESTED}).json()
    assert body["fidelity"] == "full" and "dropped" not in body
    plain = client.post("/v1/decode", json={"data": body["data"]}).json()
    assert "record" not in plain and plain["moves"][:3] == ["e4", "e5", "Nf3"] and plain["tags"]["Annotator"]
    decoded = client.post("/v1/decode", json={"data": body["data"], "format": "record"}).json()
    assert export(decoded["record"]) == export(NESTED)
    again = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "record": decoded["record"]}).json()
    assert again["data"] == body["data"]


def test_moves_fidelity_is_todays_container(client) -> None:
    record = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "record": NESTED,
                                             "fidelity": "moves"}).json()
    assert record["fidelity"] == "moves" and record["dropped"] == {"comments": 3, "nags": 4, "variations": 3}
    listed = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "moves": ["e4", "e5"]}).json()
    assert listed["fidelity"] == "moves"


def test_bad_fidelity_and_format_are_422(client) -> None:
    response = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "record": "1. e4", "fidelity": "x"})
    assert response.status_code == 422
    data = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "moves": ["e4"]}).json()["data"]
    assert client.post("/v1/decode", json={"data": data, "format": "pgn"}).status_code == 422


def test_a_variation_with_an_illegal_move_is_a_problem_naming_the_ply(client) -> None:
    response = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "record": ILLEGAL_VARIATION})
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["type"].endswith("/illegal-move") and problem["ply"] == 2
    assert "variation 1, move 3 'Ke3'" in problem["detail"]


def test_an_unclosed_comment_is_a_problem_naming_the_ply(client) -> None:
    response = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "record": "1. e4 e5 {open"})
    assert response.status_code == 422 and response.json()["type"].endswith("/invalid-record")
    assert response.json()["ply"] == 1 and "unclosed comment '{open'" in response.json()["detail"]


def test_batch_lines_and_query_carry_fidelity_and_format(client) -> None:
    pgn = NESTED + "\n" + ILLEGAL_VARIATION + "\n"
    lines = [json.loads(line) for line in client.post("/v1/batch/encode", content=pgn, headers=PGN).text.splitlines()]
    assert lines[0]["result"]["fidelity"] == "full" and lines[1]["error"]["ply"] == 2
    moves = client.post("/v1/batch/encode?fidelity=moves", content=pgn, headers=PGN).text.splitlines()
    assert [json.loads(line)["result"]["fidelity"] for line in moves] == ["moves", "moves"]
    data = lines[0]["result"]["data"]
    asked = json.dumps({"data": data, "format": "record"}) + "\n" + json.dumps({"data": data}) + "\n"
    decoded = [json.loads(line)["result"] for line in
               client.post("/v1/batch/decode", content=asked, headers=NDJSON).text.splitlines()]
    assert export(decoded[0]["record"]) == export(NESTED) and "record" not in decoded[1]
    by_query = client.post("/v1/batch/decode?format=record", content=json.dumps({"data": data}) + "\n",
                           headers=NDJSON).text
    assert "record" in json.loads(by_query)["result"]


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app.cli", *args], input=stdin, capture_output=True, text=True,
                          timeout=120)


def test_cli_encodes_in_full_and_decodes_to_pgn(tmp_path: Path) -> None:
    source = tmp_path / "games.pgn"
    source.write_text(NESTED + "\n" + APGN_ANNOTATED.replace("[Variant", "[X"), encoding="utf-8")
    (tmp_path / "one.pgn").write_text(NESTED, encoding="utf-8")
    encoded = _cli("encode", str(tmp_path / "one.pgn"), "-q")
    assert encoded.returncode == 0 and json.loads(encoded.stdout)["result"]["fidelity"] == "full"
    text = _cli("decode", "-", "--to", "pgn", "-q", stdin=encoded.stdout)
    assert text.returncode == 0
    assert export(text.stdout) == export(NESTED)
    wrong = _cli("decode", "-", "--to", "apgn", "-q", stdin=encoded.stdout)
    assert wrong.returncode == 1 and wrong.stdout == "" and "its records are pgn" in wrong.stderr
    moves = _cli("encode", str(tmp_path / "one.pgn"), "--fidelity", "moves", "-q")
    assert json.loads(moves.stdout)["result"]["dropped"] == {"comments": 3, "nags": 4, "variations": 3}
    with_record = _cli("decode", "-", "--record", "-q", stdin=encoded.stdout)
    assert export(json.loads(with_record.stdout)["result"]["record"]) == export(NESTED)


def test_cli_decode_to_apgn_writes_abalone_records(tmp_path: Path) -> None:
    source = tmp_path / "game.apgn"
    source.write_text(APGN_ANNOTATED, encoding="utf-8")
    encoded = _cli("encode", str(source), "-q")
    text = _cli("decode", "-", "--to", "apgn", "-q", stdin=encoded.stdout)
    assert text.returncode == 0 and "{ start } 1. i9h8 {good} 1... i6h6 $2" in text.stdout


def test_python_chess_reads_the_decoded_record(client) -> None:
    body = client.post("/v1/encode", json={"game": "chess", "scheme": "0x88", "record": NESTED}).json()
    record = client.post("/v1/decode", json={"data": body["data"], "format": "record"}).json()["record"]
    import io

    game = chess.pgn.read_game(io.StringIO(record))
    assert game is not None and game.next() is not None and game.next().clock() == 300.0


def test_dataset_rows_keep_the_whole_record_or_its_moves() -> None:
    import io as _io

    import plybits
    from app import dataset
    from plybits import archive

    def row(fidelity: str) -> tuple[dict[str, object], archive.Meta]:
        lines = dataset._lines(_io.BytesIO(NESTED.encode()), 0, None)
        table = dataset.games_table("chess", "0x88", "mem", dataset.pieces(lines, cuts=True), fidelity=fidelity)
        return table.to_pylist()[0], archive.Meta.from_schema(table.schema)

    (full, full_meta), (moves, moves_meta) = row("full"), row("moves")
    assert full["event"] == moves["event"] == "Nested" and full["tag_order"] == moves["tag_order"]
    assert archive.container_of(moves, moves_meta) == plybits.encode("chess", "0x88", record=NESTED,
                                                                     fidelity="moves").data
    record = archive.record_of(full, full_meta)
    assert '[Annotator "Someone"]' in record and export(record) == export(NESTED)