"""chess/rank, xiangqi/rank and abalone/rank: round trips of the real games (all of them through the
library, a sample through the HTTP API), golden vectors of every released model, the canonical orders,
refusal of corrupted data, and a sanity check that the learned model beats the uniform one."""

from __future__ import annotations

import base64
import math
import random

import pytest

import plybits
from plybits.errors import InvalidDataError
from plybits.registry import get_game, get_scheme
from tests.conftest import QUICK, shared_data
from tests.roundtrip import assert_roundtrip

DATA_FILES = {
    "chess": [("chess", name) for name in ("twic0920.pgn", "carlsen_otb.pgn")],
    "xiangqi": [("xiangqi", "Hu_Ronghua_1391_UCI_games.pgn"), ("xiangqi", "Liu_Dahua_1125_UCI_games.pgn")],
    "abalone": [("abalone", "migs-2016-2017.train.apgn")],
}
DAISY_OPENING = ["i9h8", "i6h6", "i8h7", "a5b5", "h8g7", "h6g5"]
EDGE_FILES = [
    "anastasian-lewis.pgn", "chessbase-empty-line.pgn", "cutechess-fischerrandom.pgn", "kasparov-deep-blue-1997.pgn",
    "molinari-bordais-1979.pgn", "nepomniachtchi-liren-game1.pgn", "stockfish-learning.pgn", "uci-moves.pgn",
    "utf8-bom.pgn",
]


def records(game: str, *parts: str) -> list[str]:
    g = get_game(game)
    text = shared_data(*parts).read_text(encoding="utf-8-sig", errors="replace")
    return list(g.split_records(text))


def replay(game: str, record: str) -> tuple[str | None, list]:
    """(start, moves) of a record, read and checked by plybits."""
    replayed = plybits.read_record(game, record=record)
    return replayed.start, replayed.moves


def library_roundtrip(game: str, start: str | None, moves: list, version: int) -> int:
    """Encode and decode with the scheme directly; returns the payload size in bits."""
    g = get_game(game)
    rank = get_scheme(game, "rank")
    payload = rank.encode_version(g.position(start), moves, version).tobytes()
    assert rank.decode(g.position(start), payload, len(moves), version) == moves
    return len(payload) * 8


# ------------------------------------------------------------------ every real game, through the library


STEP = 4
"""The library round trip (current and uniform model) takes every 4th game; every game goes through the
batch API below."""


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.parametrize("game,parts", [(g, p) for g, files in DATA_FILES.items() for p in files])
def test_real_games_round_trip_through_the_library(game, parts):
    """Every 4th game of each collection with the current model, and the uniform model on every 5th of
    those; every move decoded is checked legal."""
    recs = records(game, *parts)
    assert recs
    plies = 0
    for i, record in enumerate(recs[::STEP]):
        start, moves = replay(game, record)
        library_roundtrip(game, start, moves, get_scheme(game, "rank").version)
        if i % 5 == 0:
            library_roundtrip(game, start, moves, 0)
        plies += len(moves)
    assert plies > 50_000 // STEP


@pytest.mark.data
@pytest.mark.parametrize("name", EDGE_FILES)
def test_chess_edge_files_round_trip(name):
    for record in records("chess", "chess", "edge", name):
        start, moves = replay("chess", record)
        library_roundtrip("chess", start, moves, 1)
        library_roundtrip("chess", start, moves, 0)


@pytest.mark.data
@pytest.mark.parametrize("game,parts", [(g, p) for g, files in DATA_FILES.items() for p in files])
def test_a_sample_of_real_games_round_trips_through_the_api(client, game, parts):
    recs = records(game, *parts)
    rng = random.Random(6)
    for record in rng.sample(recs, 4):
        r = client.post("/v1/encode", json={"game": game, "scheme": "rank", "record": record})
        assert r.status_code == 200, r.text
        body = r.json()
        back = client.post("/v1/decode", json={"data": body["data"]})
        assert back.status_code == 200, back.text
        start, moves = replay(game, record)
        g = get_game(game)
        position = g.position(start)
        expected = []
        for move in moves:
            expected.append(position.move_text(move))
            position.push(move)
        assert back.json()["moves"] == expected
        assert back.json()["final_position"] == body["final_position"]
        assert body["payload_bits"] < 6 * max(1, body["plies"])


@pytest.mark.data
def test_batch_encode_of_a_real_pgn_with_rank(client):
    text = "\n\n".join(records("chess", "chess", "carlsen_otb.pgn")[:5])
    r = client.post("/v1/batch/encode?scheme=rank", content=text.encode(), headers={"content-type": "application/x-chess-pgn"})
    assert r.status_code == 200, r.text
    lines = [line for line in r.text.splitlines() if line.strip()]
    assert len(lines) == 5 and all('"result"' in line and '"rank"' in line for line in lines)


# ------------------------------------------------------------------ the model does its job


@pytest.mark.data
@pytest.mark.parametrize(
    "game,parts,ceiling",
    [("chess", ("chess", "carlsen_otb.pgn"), 3.9), ("xiangqi", ("xiangqi", "Liu_Dahua_1125_UCI_games.pgn"), 4.3),
     ("abalone", ("abalone", "migs-2016-2017.train.apgn"), 4.8)],
)
def test_model_1_beats_uniform_on_real_games(game, parts, ceiling):
    """On 20 games of the held-out file (the latest for Abalone), model 1 costs far less than log2(n)."""
    recs = records(game, *parts)[-20:]
    g = get_game(game)
    bits = uniform = 0.0
    plies = 0
    for record in recs:
        start, moves = replay(game, record)
        bits += library_roundtrip(game, start, moves, 1)
        position = g.position(start)
        for move in moves:
            uniform += math.log2(len(position.legal_moves()))
            position.push(move)
        plies += len(moves)
    assert bits / plies < ceiling
    assert bits < 0.9 * uniform


# ------------------------------------------------------------------ hand-made games and orders


def test_chess_canonical_order_is_from_to_promotion():
    from plybits.chess.rank import canonical_moves

    position = get_game("chess").position("4k3/1P6/8/8/8/8/8/4K2R w K - 0 1")
    texts = [m.raw_uci() for m in canonical_moves(position)]
    # from-square order: e1 (4) before h1 (7) before b7 (49); within b7 promotions n, b, r, q
    assert texts[:5] == ["e1d1", "e1f1", "e1h1", "e1d2", "e1e2"]
    assert texts[-5:] == ["b7b8n", "b7b8b", "b7b8r", "b7b8q", "0000"]
    assert texts[-1] == "0000"  # the null move closes every list


def test_xiangqi_canonical_order_is_from_to():
    from plybits.xiangqi.rank import canonical_moves

    texts = [m.iccs() for m in canonical_moves(get_game("xiangqi").position())]
    assert texts[0] == "a0a1" and texts[1] == "a0a2"
    assert texts == sorted(texts, key=lambda t: ((int(t[1]) * 9 + ord(t[0]) - 97), int(t[3]) * 9 + ord(t[2]) - 97))
    assert len(texts) == 44


def test_abalone_canonical_order_is_abapro_fields():
    from plybits.abalone.rank import canonical_moves, move_key

    moves = canonical_moves(get_game("abalone").position("belgian-daisy"))
    keys = [move_key(m) for m in moves]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert keys[0][0] == 0 and keys[-1][0] == 1  # inline moves first


@pytest.mark.parametrize(
    "game,moves",
    [
        ("chess", ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "--", "b5"]),
        ("chess", ["f3", "e5", "g4", "Qh4#"]),
        ("xiangqi", ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]),
        ("abalone", DAISY_OPENING[:4]),
    ],
)
def test_short_games_round_trip(game, moves):
    start = "belgian-daisy" if game == "abalone" else None
    assert_roundtrip(game, "rank", moves, start=start)


def test_empty_games_have_empty_payloads():
    for game in ("chess", "xiangqi", "abalone"):
        assert assert_roundtrip(game, "rank", [], payload_hex="").payload_bits == 0


def test_chess960_and_fen_starts_round_trip():
    assert_roundtrip("chess", "rank", ["O-O", "Kd7", "Rf7+"], start="4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert_roundtrip("chess", "rank", ["e4", "e5"], start="chess960")


# ------------------------------------------------------------------ corrupted data


@pytest.mark.parametrize("game", ["chess", "xiangqi", "abalone"])
def test_corrupted_payloads_are_invalid_data_at_a_ply(game):
    start = "belgian-daisy" if game == "abalone" else None
    tokens = {
        "chess": ["d4", "d5", "c4", "e6", "Nc3", "Nf6", "Bg5", "Be7", "e3", "O-O"],
        "xiangqi": ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "c3c4", "b7b3"],
        "abalone": DAISY_OPENING,
    }[game]
    encoded = plybits.encode(game, "rank", moves=tokens, start=start)
    g = get_game(game)
    rank = get_scheme(game, "rank")
    payload = encoded.payload
    version = encoded.data[4]  # the model encode wrote
    with pytest.raises(InvalidDataError, match="trailing"):
        rank.decode(g.position(start), payload + b"\x00", len(tokens), version)
    with pytest.raises(InvalidDataError) as err:
        rank.decode(g.position(start), payload, len(tokens) + 40, version)
    assert err.value.ply is not None
    rng = random.Random(len(game))
    for _ in range(40):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(12)))
        for model in rank.readable_versions:
            try:
                rank.decode(g.position(start), blob, rng.randrange(30), model)
            except InvalidDataError as exc:
                assert exc.ply is not None


def test_unknown_model_version_is_refused():
    encoded = plybits.encode("chess", "rank", moves=["e4"])
    blob = bytearray(encoded.data)
    blob[4] = 9  # scheme version byte
    import zlib

    blob[-4:] = zlib.crc32(bytes(blob[:-4])).to_bytes(4, "big")
    with pytest.raises(InvalidDataError, match="version 9"):
        plybits.decode(bytes(blob))


# ------------------------------------------------------------------ golden vectors (formats are forever)

# Containers produced once by the build that released each model; they must decode the same forever.
SICILIAN = ["e4", "c5", "Nf3", "d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6", "Be3", "e5", "Nb3", "Be6", "f3", "Be7",
            "Qd2", "O-O", "O-O-O", "Nbd7"]
XQ_OPENING = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "c3c4", "b7b3", "b0c2", "a9b9"]
GOLDEN: dict[tuple[str, int], tuple[str, list[str], str | None]] = {
    ("chess", 0): ("UEIBAgAAFKEMBy1Ze1PyYXs8BQoyJMEv", SICILIAN, None),
    ("chess", 1): ("UEIBAgEAFNKoCeXfSVkMbGYflw", SICILIAN, None),
    ("chess", 2): ("UEIBAgIAFIH4VS5u1vI2Rw", SICILIAN, None),
    ("xiangqi", 0): ("UEIBEgAACrPiIq09Uz-SzLx2", XQ_OPENING, None),
    ("xiangqi", 1): ("UEIBEgEACtSRN3mgbR_w", XQ_OPENING, None),
    ("xiangqi", 2): ("UEIBEgIACr91HtIhAFQ", XQ_OPENING, None),
    ("abalone", 0): ("UEIBIgABBg1iZWxnaWFuLWRhaXN50utWuSYnSz2w", DAISY_OPENING, "belgian-daisy"),
    ("abalone", 1): ("UEIBIgEBBg1iZWxnaWFuLWRhaXN55YpwmhZveA", DAISY_OPENING, "belgian-daisy"),
    ("abalone", 2): ("UEIBIgIBBg1iZWxnaWFuLWRhaXN587eVl5yjOQ", DAISY_OPENING, "belgian-daisy"),
    ("abalone", 3): ("UEIBIgMBBg1iZWxnaWFuLWRhaXN5_P9-9t8hvw", DAISY_OPENING, "belgian-daisy"),
    ("abalone", 4): ("UEIBIgQBBg1iZWxnaWFuLWRhaXN586igiFb0UQ", DAISY_OPENING, "belgian-daisy"),
    ("abalone", 5): ("UEIBIgUBBg1iZWxnaWFuLWRhaXN59B0IqcGotQ", DAISY_OPENING, "belgian-daisy"),
}


def _golden_cases():
    return sorted(GOLDEN)


@pytest.mark.parametrize("key", _golden_cases())
def test_golden_vectors_decode_forever(key):
    blob, moves, start = GOLDEN[key]
    game, version = key
    data = base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4))
    decoded = plybits.decode(data, notation=None)
    assert (decoded.game, decoded.scheme, decoded.start) == (game, "rank", start)
    assert data[4] == version
    assert decoded.moves == moves


@pytest.mark.parametrize("game", ["chess", "xiangqi", "abalone"])
def test_every_released_model_has_a_golden_vector(game):
    assert {v for g, v in GOLDEN if g == game} == set(get_scheme(game, "rank").readable_versions)


# ------------------------------------------------------------------ the fast scorers agree with the definition


@pytest.mark.data
@pytest.mark.parametrize(
    "game,parts", [("chess", ("chess", "carlsen_otb.pgn")), ("abalone", ("abalone", "migs-2016-2017.train.apgn"))]
)
def test_fast_scorer_equals_the_sum_of_feature_weights(game, parts):
    """The cached scorer the decoder uses gives exactly the sum of the weights of ``move_features``
    (random weights, so that every feature counts), on every ply of 12 real games."""
    import importlib

    module = importlib.import_module(f"plybits.{game}.rank")
    shipped = module.RANK.models[1]
    model = type(shipped)(shipped.filename, shipped.version)
    rng = random.Random(3)
    model._weights = [rng.randrange(-300, 300) for _ in range(module.N_FEATURES)]
    g = get_game(game)
    checked = 0
    for record in records(game, *parts)[:12]:
        start, moves = replay(game, record)
        position = g.position(start)
        history: list = []
        for move in moves:
            candidates = module.canonical_moves(position)
            reference = [sum(model._weights[i] for i in feats) for feats in module.move_features(position, candidates, history)]
            fast = model.scores(position, candidates, history)
            if game == "chess":  # the null move is pinned to frequency 1 by the fast scorer
                reference, fast = reference[:-1], fast[:-1]
            assert fast == reference
            position.push(move)
            history.append(move)
            checked += 1
    assert checked > 500


@pytest.mark.data
@pytest.mark.slow
@pytest.mark.skipif(QUICK, reason="PLYBITS_QUICK=1: every real game through the API is left to the full run")
@pytest.mark.parametrize("game,parts", [(g, p) for g, files in DATA_FILES.items() for p in files])
def test_every_real_game_round_trips_through_the_batch_api(client, game, parts):
    """Every game of the collections: /v1/batch/encode with rank, then /v1/batch/decode, moves compared
    with the library's replay of the record (100 games a request)."""
    import json

    recs = records(game, *parts)
    headers = {"content-type": "application/x-ndjson"}
    for i in range(0, len(recs), 100):
        chunk = recs[i : i + 100]
        body = "\n".join(json.dumps({"game": game, "scheme": "rank", "record": r}) for r in chunk)
        encoded = [json.loads(line) for line in client.post("/v1/batch/encode", content=body.encode(), headers=headers).text.splitlines() if line.strip()]
        assert len(encoded) == len(chunk) and all("result" in e for e in encoded), [e for e in encoded if "result" not in e][:1]
        body = "\n".join(json.dumps({"data": e["result"]["data"]}) for e in encoded)
        decoded = [json.loads(line) for line in client.post("/v1/batch/decode", content=body.encode(), headers=headers).text.splitlines() if line.strip()]
        assert len(decoded) == len(chunk)
        for record, enc, dec in zip(chunk, encoded, decoded):
            start, moves = replay(game, record)
            position = get_game(game).position(start)
            expected = []
            for move in moves:
                expected.append(position.move_text(move))
                position.push(move)
            assert dec["result"]["moves"] == expected
            assert dec["result"]["final_position"] == enc["result"]["final_position"]
