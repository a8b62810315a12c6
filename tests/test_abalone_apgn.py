"""APGN records: tags, Position and Variant, numbered move text, results; the MiGs collection replayed and round-tripped."""

from __future__ import annotations

import inspect
import json

import pytest

import plybits
from plybits.abalone import GAME as ABALONE
from plybits.abalone import apgn
from plybits.errors import InvalidRecordError, PlybitsError, UnsupportedError
from plybits.game import Record
from tests.conftest import shared_data

# The first MiGs game, cut after white's 8th move (the collection's own text and layout).
GAME = """[Event "MIGS 29813"]
[Date "2016.09.19"]
[Black "abbelgriebsch"]
[White "budgie"]
[Variant "belgian"]
[Result "*"]
[Notation "Aba-Pro"]
[Termination "Au score"]
[Plies "16"]
[Source "MIGS"]

1. i9h8 i6h6 2. i8h7 a5b5 3. h8g7 h6g5 4. h9g8 a4b4 5. a1b1 b4c4 6. h7g6 g5f4
7. g8g7 e3e4 8. g6f5 f4h4e3 *
"""

# Black pushes white off twice (2 against 1 then 3 against 2 over the same edge), from a Position tag.
PUSHES = """[Event "hand-worked"]
[Date "????.??.??"]
[Black "b"]
[White "w"]
[Variant "custom"]
[Result "1-0"]
[Notation "Aba-Pro"]
[SetUp "1"]
[Position "5/6/7/8/4bbbww/8/7/6/w4-2b4w b"]

1. e5e6 {3 against 2: e9 goes off} a1a2 2. e6e7 {3 against 1: the sixth} 1-0
"""


def test_parse_tags_start_and_moves() -> None:
    record = ABALONE.parse_record(GAME)
    assert record.start == "belgian-daisy"
    assert record.tags["Event"] == "MIGS 29813" and record.tags["Plies"] == "16"
    assert record.moves[:3] == ["i9h8", "i6h6", "i8h7"] and record.moves[-1] == "f4h4e3"
    assert len(record.moves) == 16 and record.dropped == {}


def test_position_tag_and_comments() -> None:
    record = ABALONE.parse_record(PUSHES)
    assert record.dropped == {"comments": 2}
    assert record.moves == ["e5e6", "a1a2", "e6e7"]
    replay = plybits.read_record("abalone", record=PUSHES)
    assert replay.final.status() == {
        "status": "won", "ejected": {"black": 2, "white": 6}, "winner": "black", "result": "1-0",
    }


def test_position_takes_precedence_over_variant() -> None:
    text = GAME.replace('[Variant "belgian"]', '[Variant "standard"]\n[Position "ww1bb/wwwbbb/1ww1bb1/8/9/8/1bb1ww1/bbbwww/bb1ww b"]')
    assert plybits.read_record("abalone", record=text).final.fen() == plybits.read_record("abalone", record=GAME).final.fen()


@pytest.mark.parametrize(
    "change, error, reason",
    [
        (("8. g6f5 f4h4e3 *", "8. g6f5 f4h4e3 1-0"), InvalidRecordError, "disagrees with the Result tag"),
        (("f4h4e3 *", "f4h4e3 * e5e6"), InvalidRecordError, "after the result"),
        (('[Notation "Aba-Pro"]', '[Notation "Nacre"]'), UnsupportedError, "Nacre"),
        (('[Variant "belgian"]', '[Variant "dutch_daisy"]'), UnsupportedError, "dutch_daisy"),
        (('[Variant "belgian"]', '[Variant "custom"]'), InvalidRecordError, "needs a Position"),
        (('[Variant "belgian"]', '[Variant "hexagon"]'), InvalidRecordError, "unknown APGN variant"),
        (('[Variant "belgian"]', '[Variant belgian]'), InvalidRecordError, "unreadable APGN tag"),
        (('[Variant "belgian"]', '[Position "5/5 b"]'), InvalidRecordError, "Position tag"),
        (("1. i9h8", "1. {open i9h8"), InvalidRecordError, "unbalanced brace"),
    ],
)
def test_refused_records(change: tuple[str, str], error: type[Exception], reason: str) -> None:
    with pytest.raises(error, match=reason):
        ABALONE.parse_record(GAME.replace(*change))


def test_illegal_move_in_a_record_is_located() -> None:
    with pytest.raises(PlybitsError) as caught:
        plybits.read_record("abalone", record=GAME.replace("h8g7 h6g5", "h8g7 h6h4"))
    assert caught.value.ply == 5 and caught.value.move == "h6h4"


def test_plain_move_list() -> None:
    record = ABALONE.parse_record("a1b2 i5h5\nc5c3d5")
    assert record.moves == ["a1b2", "i5h5", "c5c3d5"] and record.start is None and record.tags == {}


def test_split_records_lazily() -> None:
    text = GAME + "\n" + PUSHES + "\n\n" + GAME
    parts = ABALONE.split_records(text)
    assert inspect.isgenerator(parts)
    games = list(parts)
    assert len(games) == 3
    assert [ABALONE.parse_record(g).tags["Event"] for g in games] == ["MIGS 29813", "hand-worked", "MIGS 29813"]
    assert list(ABALONE.split_records("")) == []


def test_write_record_reads_back() -> None:
    record = ABALONE.parse_record(GAME)
    text = apgn.write_record(record)
    assert text.startswith('[Event "MIGS 29813"]\n[Date "2016.09.19"]\n[Black "abbelgriebsch"]')
    assert "\n\n1. i9h8 i6h6 2. i8h7 a5b5" in text and text.rstrip().endswith("f4h4e3 *")
    again = ABALONE.parse_record(text)
    assert (again.moves, again.start, again.tags) == (record.moves, record.start, record.tags)


def test_write_record_from_a_white_to_move_position() -> None:
    start = "5/6/7/8/4bb3/8/w6/w5/b4 w 5 3 30"
    text = apgn.write_record(Record(moves=["c1b1"], start=start, tags={"Result": "0-1"}))
    assert '[Variant "custom"]' in text and '[SetUp "1"]' in text
    assert f'[Position "{start}"]' in text
    assert text.rstrip().endswith("30... c1b1 0-1")
    assert plybits.read_record("abalone", record=text).final.status()["winner"] == "white"


def test_batch_validate_apgn_file(client) -> None:
    body = GAME + "\n" + GAME.replace("h8g7 h6g5", "h8g7 h6h4") + "\n" + PUSHES
    reply = client.post("/v1/batch/validate?game=abalone", content=body, headers={"content-type": "text/plain"})
    out = [json.loads(line) for line in reply.text.splitlines() if line.strip()]
    assert [o["line"] for o in out] == [1, 2, 3]
    assert out[0]["result"]["valid"] is True and out[0]["result"]["plies"] == 16
    assert out[1]["result"]["valid"] is False and out[1]["result"]["error"]["ply"] == 5
    assert out[2]["result"]["status"]["status"] == "won"


@pytest.mark.data
def test_every_migs_game_replays_and_round_trips() -> None:
    """All 2,330 MiGs games: replay (a game would be cut at its first illegal move, and reported),
    abapro round trip, canonical tokens, and the Result tag agrees with who pushed six off."""
    text = shared_data("abalone", "migs-2016-2017.train.apgn").read_text(encoding="utf-8")
    games = plies = broadside = 0
    cut: list[str] = []
    for game_text in ABALONE.split_records(text):
        record = ABALONE.parse_record(game_text)
        try:
            replay = plybits.read_record("abalone", record=game_text)
            moves = record.moves
        except PlybitsError as err:
            assert err.ply is not None, err
            cut.append(f"{record.tags.get('Event')}: ply {err.ply} {err.move!r}: {err.reason}")
            moves = record.moves[: err.ply]
            replay = plybits.read_record("abalone", moves=moves, start=record.start)
        games += 1
        plies += len(moves)
        broadside += sum(len(m) == 6 for m in moves)
        encoded = plybits.encode("abalone", "abapro", moves=moves, start=record.start, tags=record.tags)
        assert encoded.payload_bits == 10 * len(moves) + 4 * sum(len(m) == 6 for m in moves)
        decoded = plybits.decode(encoded.data)
        assert decoded.moves == moves  # every MiGs token is already canonical Aba-Pro
        assert decoded.tags == record.tags and decoded.start == record.start
        assert decoded.final_position == replay.final.fen()
        status = replay.final.status()
        if record.tags["Result"] in ("1-0", "0-1"):
            assert status.get("result") == record.tags["Result"], record.tags["Event"]
        assert int(record.tags["Plies"]) == len(record.moves)
    print(f"\nMiGs: {games} games, {plies} plies ({broadside} broadside), {len(cut)} cut: {cut[:10]}")
    assert (games, len(cut)) == (2330, 0), cut[:10]
    assert plies == 240_207
