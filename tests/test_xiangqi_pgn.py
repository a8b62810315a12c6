"""The xqbase-style xiangqi PGN: reading (the data files' format, Format/FEN tags, comments, variations,
results), writing, lazy splitting, and bad records."""

from __future__ import annotations

import re

import pytest

import plybits
from plybits.errors import IllegalMoveError, InvalidRecordError
from plybits.game import Record
from plybits.xiangqi import GAME
from plybits.xiangqi.pgn import parse_record, split_records, write_record

DATA_STYLE = """[Event "China Team Championship 1998"]
[Red "HU RongHua"]
[Black "XU TianHong"]

1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 b9c7 

[Event ""Huangshan Cup" National GM,CM Tournament 2002"]
[Red "XU YinChuan"]
[Black "LIU DaHua"]

1. c3c4 b7c7 2. h2e2 
"""

XQBASE_CHINESE = """[Game "Chinese Chess"]
[Event "test"]
[Result "1-0"]
[Format "Chinese"]

 1. 炮二平五 马８进７ {a comment}
 2. 马二进三 (2. 马八进七 马２进３) 车９平８ $1
 3. 车一平二 ; rest of line
 1-0
"""

XQBASE_WXF_FEN = """[Game "Chinese Chess"]
[FEN "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"]
[Format "WXF"]

1. R9=6 1-0
"""


def test_data_file_format():
    records = list(split_records(DATA_STYLE))
    assert len(records) == 2
    first = parse_record(records[0])
    assert first.moves == ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]
    assert first.tags == {"Event": "China Team Championship 1998", "Red": "HU RongHua", "Black": "XU TianHong"}
    assert first.start is None and first.dropped == {}
    second = parse_record(records[1])
    assert second.tags["Event"] == '"Huangshan Cup" National GM,CM Tournament 2002'  # unescaped quotes kept
    assert second.moves == ["c3c4", "b7c7", "h2e2"]


def test_split_is_lazy():
    iterator = split_records(DATA_STYLE * 1000)
    assert next(iterator).startswith('[Event "China Team')
    assert GAME.split_records("h2e2 h9g7").__next__() == "h2e2 h9g7"
    assert list(split_records("")) == []


def test_xqbase_chinese_with_comments_variations_nags_and_result():
    record = parse_record(XQBASE_CHINESE)
    assert record.moves == ["炮二平五", "马８进７", "马二进三", "车９平８", "车一平二"]
    assert record.dropped == {"comments": 2, "variations": 1, "nags": 1}
    assert record.tags == {"Game": "Chinese Chess", "Event": "test", "Result": "1-0"}
    replay = plybits.read_record("xiangqi", record=XQBASE_CHINESE)
    assert [m.iccs() for m in replay.moves] == ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0"]


def test_fen_tag_is_the_start():
    record = parse_record(XQBASE_WXF_FEN)
    assert record.start == "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1" and record.moves == ["R9=6"]
    assert "FEN" not in record.tags and "Format" not in record.tags and record.tags["Result"] == "1-0"
    replay = plybits.read_record("xiangqi", record=XQBASE_WXF_FEN)
    assert replay.final.status() == {"status": "checkmate", "winner": "red", "result": "1-0"}


def test_write_each_format_and_read_back():
    moves = ["h2e2", "h9g7", "h0g2"]
    for notation, written in [
        ("iccs", ["H2-E2", "H9-G7", "H0-G2"]),
        ("wxf", ["C2=5", "H8+7", "H2+3"]),
        ("chinese", ["炮二平五", "马８进７", "马二进三"]),
    ]:
        texts = plybits.convert("xiangqi", moves=moves, to_notation=notation)
        text = write_record(Record(moves=texts, tags={"Event": 'a "quoted" event', "Result": "1-0"}), notation)
        assert f'[Format "{ {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese"}[notation]}"]' in text
        assert "1. " + " ".join(written[:2]) + " 2. " + written[2] + " 1-0" in text
        back = parse_record(text)
        assert back.tags == {"Game": "Chinese Chess", "Event": 'a "quoted" event', "Result": "1-0"}
        assert [m.iccs() for m in plybits.read_record("xiangqi", record=text).moves] == moves


def test_write_black_to_move_start():
    fen = "3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 7"
    text = write_record(Record(moves=[], start=fen), "iccs")
    assert f'[FEN "{fen}"]' in text and text.rstrip().endswith("*")
    fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1"
    text = write_record(Record(moves=["h9g7", "h0g2"], start=fen), "iccs")
    assert "1... H9-G7 2. H0-G2 *" in text


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[Event "x"\n\n1. h2e2', "malformed tag"),
        ("1. h2e2 {never closed", "unterminated comment"),
        ("1. h2e2 (h9g7", "unterminated variation"),
        ("1. h2e2 )", "unbalanced ')'"),
    ],
)
def test_bad_records(text, words):
    with pytest.raises(InvalidRecordError, match=re.escape(words)):
        parse_record(text)


def test_bad_move_in_a_record_is_located():
    with pytest.raises(IllegalMoveError) as info:
        plybits.read_record("xiangqi", record="1. h2e2 h9g7 2. a0a5")
    assert info.value.ply == 2 and info.value.move == "a0a5"


def test_unknown_notation_and_bad_start_when_writing():
    with pytest.raises(InvalidRecordError):
        write_record(Record(moves=[]), "san")
    with pytest.raises(InvalidRecordError, match="start position"):
        write_record(Record(moves=[], start="garbage"), "iccs")
