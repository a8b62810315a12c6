"""Hostile text in every game's position and move parsers (issue 13, items 7, 8, 9 and "one rule for every
text field"): non-ASCII digits, lone surrogates, look-alike letters and misshapen boards are refused with a
:class:`PlybitsError` naming the input, never a crash (500) and never a silent misreading; and the same
through every HTTP endpoint that reads a position or a move."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import plybits
from plybits.container import Container, pack
from plybits.errors import InvalidMoveError, InvalidPositionError, PlybitsError
from plybits.registry import get_game, get_scheme

START = {
    "chess": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "xiangqi": "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "abalone": "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1",
    "entropy": "R6/7/7/7/7/7/7 1 2 -",
}
GAMES = list(START)

# each: a game, a position string that differs from a valid one only by a hostile character
BAD_POSITIONS = [
    ("xiangqi", "rnbakabnr/\u00b2/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),  # superscript two
    ("xiangqi", "rnbakabnr/\u0669/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),  # Arabic-Indic nine
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - \u0660 1"),
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1_0"),
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - +0 1"),
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR\ud800 w - - 0 1"),
    ("chess", "rnbqkbnr/pppppppp/\u0668/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),  # Arabic-Indic eight
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - \u0660 1"),
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 \u0661"),
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1_0"),
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - +0 1"),
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w \u212aQkq - 0 1"),  # Kelvin sign for K
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\ud800 w KQkq - 0 1"),
    ("abalone", "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b \u00b2 0 1"),
    ("abalone", "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 \u0661"),
    ("abalone", "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb-\u0661b0w b 1"),
    ("abalone", "wwwww/wwwwww/2www2/\u0668/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1"),
    ("abalone", "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb\udfff b 0 0 1"),
    ("entropy", "R6/7/7/7/7/7/\u0667 1 2 -"),
    ("entropy", "R6/7/7/7/7/7/7 1 \u0662 -"),
    ("entropy", "R6/7/7/7/7/7/7\ud800 1 2 -"),
]

# misshapen boards: too many or too few squares in a rank, too many or too few ranks
MISSHAPEN = [
    ("chess", "rnbqkbnrQ/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("chess", "rnbqkbnr/pppppppp/8Q/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("chess", "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("chess", "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("chess", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("xiangqi", "rnbakabnrR/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
    ("xiangqi", "rnbakabnr/9R/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
    ("xiangqi", "rnbakabnr/8/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
    ("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
    ("abalone", "wwwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb b 0 0 1"),
    ("abalone", "wwwww/wwwwww/2www2/8/8/8/2bbb2/bbbbbb/bbbbb b 0 0 1"),
    ("abalone", "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb b 0 0 1"),
    ("entropy", "R7/7/7/7/7/7/7 1 2 -"),
    ("entropy", "R5/7/7/7/7/7/7 1 2 -"),
    ("entropy", "R6/7/7/7/7/7 1 2 -"),
]


@pytest.mark.parametrize("game,text", BAD_POSITIONS + MISSHAPEN)
def test_a_hostile_or_misshapen_position_is_refused_naming_it(game, text):
    with pytest.raises(InvalidPositionError) as caught:
        get_game(game).position(text)
    assert repr(text)[1:-1][:20] in str(caught.value) or repr(text)[1:-1][-20:] in str(caught.value)


@pytest.mark.parametrize("game", GAMES)
def test_the_start_positions_of_these_tests_are_valid(game):
    assert get_game(game).position(START[game]).fen().split()[0] == START[game].split()[0]


# moves: each game's notations with a hostile character where a valid one would be
BAD_MOVES = [
    ("chess", "e\u0664", None), ("chess", "e2e\u0664", "uci"), ("chess", "N\u0192\u0033", "san"),
    ("chess", "e4\ud800", None), ("chess", "\u212a" + "e2", "san"),
    ("xiangqi", "C2.\u0665", "wxf"), ("xiangqi", "h2e\u0662", "iccs"), ("xiangqi", "\u0131h2e2", "wxf"),
    ("xiangqi", "h2e2\ud800", None), ("xiangqi", "\ud800", None),
    # a move that stays on its cell (found by the property test below: it was an AttributeError, a 500)
    ("xiangqi", "h2h2", None), ("xiangqi", "H2-H2", "iccs"),
    ("abalone", "c\u0663d4", None), ("abalone", "\u212ae5e6", None), ("abalone", "e5e6\ud800", None),
    ("entropy", "Rd\u0664", None), ("entropy", "R\u212a4", None), ("entropy", "Rd4\ud800", None),
]


@pytest.mark.parametrize("game,text,notation", BAD_MOVES)
def test_a_hostile_move_is_refused_as_an_invalid_move(game, text, notation):
    position = get_game(game).position(START[game])
    with pytest.raises(InvalidMoveError):
        position.parse_move(text, notation)


_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40) | st.text(
    st.sampled_from(list("0123456789/ -wbrkqnpRNBQKPacehABCDEFGHI+=.x") + ["\u0669", "\u00b2", "\ud800", "\u212a"]),
    max_size=60,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), text=_TEXT)
def test_any_text_as_a_position_is_a_position_or_a_plybits_error(game, text):
    try:
        position = get_game(game).position(text)
    except PlybitsError:
        return
    # what was read is exactly what was sent, in ASCII
    assert text.isascii()
    assert position.fen()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), text=_TEXT, data=st.data())
def test_any_text_as_a_move_is_a_move_or_a_plybits_error(game, text, data):
    g = get_game(game)
    notation = data.draw(st.sampled_from([None, *g.notations]))
    position = g.position(START[game])
    try:
        move = position.parse_move(text, notation)
    except PlybitsError:
        return
    assert move in position.legal_moves()


_RECORD_TEXT = _TEXT | st.lists(st.sampled_from(
    list('[]{}()";%$!?*/-=.0123456789 \n\tabcdefghRNBQKPwbxO+#')
    + ["\u0669", "\u00b2", "\ud800", "\u212a", "FEN", "SetUp", "Variant", "1-0", "e4", "h2e2", "a1a2", "Rd4"]
), max_size=60).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(GAMES), text=_RECORD_TEXT)
def test_any_text_as_a_record_is_a_game_or_a_plybits_error(game, text):
    try:
        plybits.records.read_record(game, record=text)
    except PlybitsError:
        pass


# ---------------------------------------------------------------------------------------- through HTTP

XQ_SUPERSCRIPT = BAD_POSITIONS[0][1]
XQ_ARABIC_NINE = BAD_POSITIONS[1][1]
CHESS_WIDE = MISSHAPEN[0][1]


def _problem(response, status=422):
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    return response.json()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@pytest.mark.parametrize("game,fen", [("xiangqi", XQ_SUPERSCRIPT), ("xiangqi", XQ_ARABIC_NINE), ("chess", CHESS_WIDE)])
def test_every_endpoint_refuses_the_reported_positions(client, game, fen):
    scheme = plybits.records.seed_scheme(game)
    assert "position" in _problem(client.post("/v1/encode", json={"game": game, "scheme": scheme, "moves": [],
                                                                     "start": fen}))["type"]
    tag = "FEN"
    record = f'[SetUp "1"]\n[{tag} "{fen}"]\n\n*\n'
    answer = client.post("/v1/validate", json={"game": game, "record": record})
    assert answer.status_code in (200, 422), answer.text
    if answer.status_code == 200:
        assert answer.json()["valid"] is False
    assert "position" in _problem(client.post("/v1/moves", json={"game": game, "start": fen}))["type"]
    assert "position" in _problem(client.post("/v1/replay", json={"game": game, "start": fen, "moves": []}))["type"]
    assert client.get("/v1/render", params={"game": game, "position": fen}).status_code == 422
    # a hand-made container holding the position, with a valid CRC
    codec_id = get_scheme(game, scheme).codec_id
    blob = pack(Container(codec_id, 0, 0, b"", start=fen))
    assert _problem(client.post("/v1/decode", json={"data": _b64(blob)}))["type"].endswith("/invalid-data")
    # batch lines: each bad line answered on its own, the good one after it still answered
    lines = [
        {"game": game, "scheme": scheme, "moves": [], "start": fen},
        {"game": game, "scheme": scheme, "moves": []},
    ]
    body = "\n".join(json.dumps(line) for line in lines)
    encoded = [json.loads(x) for x in client.post("/v1/batch/encode", content=body.encode(),
                                                   headers={"content-type": "application/x-ndjson"}).text.splitlines()]
    assert len(encoded) == 2 and "error" in encoded[0] and "result" in encoded[1], encoded
    decoded = [json.loads(x) for x in client.post("/v1/batch/decode", content=json.dumps({"data": _b64(blob)}).encode(),
                                                   headers={"content-type": "application/x-ndjson"}).text.splitlines()]
    assert len(decoded) == 1 and "error" in decoded[0], decoded
    validated = [json.loads(x) for x in client.post(
        "/v1/batch/validate", content=json.dumps({"game": game, "record": record}).encode(),
        headers={"content-type": "application/x-ndjson"}).text.splitlines()]
    assert len(validated) == 1 and ("error" in validated[0] or validated[0]["result"]["valid"] is False), validated


@pytest.mark.parametrize("game,record", [
    ("chess", "1. e4 e5 \u0662. Nf3 *"),
    ("chess", "1. e4 $\u0661 e5 *"),
    ("xiangqi", "1. h2e2 h9g7 \u0662. h0g2 *"),
    ("abalone", "1. a1a2 \u0662. a1a2"),
    ("entropy", "1. Rd4 \u0662. Gd5"),
])
def test_a_move_number_in_non_ascii_digits_is_not_skipped_as_one(game, record):
    """``\\d`` matches every Unicode digit: such a move number used to be skipped as if it were 2."""
    with pytest.raises(PlybitsError):
        plybits.records.read_record(game, record=record)


@pytest.mark.parametrize("tags,record", [
    ({"White": "Ann\ud800"}, None),
    ({"Wh\udfffite": "Ann"}, None),
    (None, '[White "Ann\ud800"]\n\n1. e4 *\n'),
])
def test_a_lone_surrogate_in_a_tag_is_refused_naming_the_tag(tags, record):
    """A tag is stored as UTF-8, which has no lone surrogates: refused, not a UnicodeEncodeError."""
    with pytest.raises(PlybitsError, match="tag"):
        plybits.encode("chess", "0x88", moves=None if record else ["e4"], record=record, tags=tags)


def test_a_lone_surrogate_in_a_tag_is_a_422_through_http(client):
    body = json.dumps({"game": "chess", "scheme": "0x88", "moves": ["e4"], "tags": {"White": "Ann\ud800"}})
    assert "\\ud800" in body  # the JSON escape, as a client sends it
    answer = client.post("/v1/encode", content=body.encode(), headers={"content-type": "application/json"})
    assert _problem(answer)["detail"]
