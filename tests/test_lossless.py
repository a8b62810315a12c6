"""Lossless records (issue 16): a record in, the same record out.

For chess, decode(encode(record), format="record") read by python-chess equals the source read by python-chess
(compared as python-chess's own export of both: headers, mainline, variations, comments, NAGs, clocks), the
decoded text encodes to the same container bytes (the canonical writer's fixed point), and plybits' text equals
python-chess's exporter text of the source but for the differences docs/chess.md lists (each found difference is
named by its class, and the class must be in that list). Xiangqi PGN and APGN are compared with the source by
the project's own reader (tags, start, moves, comments, NAGs, variations). Bad annotations are clear errors
naming the ply.
"""

from __future__ import annotations

import functools
import io
import logging
import re
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest

import plybits
from plybits import pgntext, records
from plybits.annotations import Comment, Line, Notes, Step
from plybits.errors import IllegalMoveError, InvalidRecordError
from plybits.registry import get_game
from tests.conftest import QUICK, ROOT, shared_data
from tests.roundtrip import CHESS960_TAGS

logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)

SAMPLE = 10
"""Under PLYBITS_QUICK=1, every SAMPLE-th game of a collection is checked."""
UNSUPPORTED_VARIANTS = ("Antichess", "Crazyhouse")
"""Variants of the edge fixtures that plybits refuses (only standard chess and Chess960 are its chess)."""
ROSTER = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?", "Black": "?", "Result": "*"}

NESTED = """[Event "Nested"]
[Site "?"]
[Date "2024.01.01"]
[Round "1"]
[White "A"]
[Black "B"]
[Result "1-0"]
[Annotator "Someone"]

{ A game comment. } 1. e4 { [%clk 0:05:00] } 1... e5 $1 $14 ( 1... c5 { Sicilian } 2. Nf3 ( 2. c3 d5 ( 2...
Nf6 ) ) 2... d6 ) ( 1... e6 $2 ) 2. Nf3!? { [%eval 0.17] [%clk 0:04:58] } 2... Nc6?! ( { starting comment }
2... d6 3. d4 ) 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 1-0
"""
LINE_COMMENTS = """[Event "Semicolons"]
[White "A"]
[Black "B"]
[Result "*"]

1. d4 ; a line comment
d5 2. c4 {braces} ; another
e6 *
"""
BLACK_FIRST = """[Event "From a position"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/8/R3K3 b Q - 0 30"]
[Result "*"]

30... Kd7 { black moves first } ( 30... Kf7 31. O-O-O ) 31. O-O-O+ Ke6 *
"""
CHESS960 = CHESS960_TAGS + "1. d4 d5 2. Nb3 Nb6 3. Ne3 { castle next } 3... Ne6 4. O-O ( 4. c4 ) 4... O-O *\n"
NO_RESULT = """[Event "No result token"]
[Result "1/2-1/2"]

1. e4 {x} e5 2. Nf3 $10
"""
OWN_CHESS = {"nested": NESTED, "line-comments": LINE_COMMENTS, "black-first": BLACK_FIRST, "chess960": CHESS960,
             "no-result": NO_RESULT}


# ---------------------------------------------------------------- python-chess: the reference


def export(text: str) -> str:
    """python-chess's export of the first game of ``text`` as python-chess reads it."""
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    assert not game.errors, game.errors
    return game.accept(chess.pgn.StringExporter(headers=True, variations=True, comments=True))


def difference_classes(ours: str, theirs: str) -> set[str]:
    """The classes of difference between plybits' text of a game and python-chess's export of its source.

    Each class is one docs/chess.md lists; anything else fails the test. Beyond the classes, both texts must
    read (with plybits' reader) to the same tags, moves and annotations up to the normalisations python-chess
    applies (stripped and merged comments, sorted unique NAGs, ``;`` comments dropped).
    """
    ours = ours.removesuffix("\n")
    if ours == theirs:
        return set()
    classes = {"trailing-newline"} if ours.rstrip("\n") != ours else set()
    head_ours, _, body_ours = ours.partition("\n\n")
    head_theirs, _, body_theirs = theirs.partition("\n\n")
    if not head_ours.startswith("["):  # no tags at all
        head_ours, body_ours = "", ours
    tags_ours = pgntext.read(head_ours, kind="PGN").tags
    tags_theirs = pgntext.read(head_theirs, kind="PGN").tags
    if head_ours != head_theirs:
        for name, value in ROSTER.items():
            if name not in tags_ours and tags_theirs.get(name) == value:
                classes.add("roster-defaults")
                tags_theirs.pop(name)
        if tags_ours == tags_theirs and list(tags_ours) != list(tags_theirs):
            classes.add("tag-order")
        if any('"' in value or "\\" in value for value in tags_ours.values()):
            classes.add("tag-escaping")
        assert tags_ours == tags_theirs, "the tags differ beyond the listed classes"
        assert head_ours.replace("\\\\", "\\").replace('\\"', '"') == head_theirs or classes & {
            "roster-defaults", "tag-order"}, "the tag lines differ beyond the listed classes"
    if body_ours != body_theirs:
        read_ours = pgntext.read(body_ours, kind="PGN", lenient=True)
        read_theirs = pgntext.read(body_theirs, kind="PGN", lenient=True)
        assert read_ours.moves == read_theirs.moves
        assert normalised(read_ours.notes) == normalised(read_theirs.notes), "annotations differ beyond the listed"
        found = set()
        for notes_step in steps_of(read_ours.notes):
            if any(comment.line for comment in notes_step.comments):
                found.add("line-comments")
            braces = [comment for comment in notes_step.comments if not comment.line]
            if len(braces) > 1:
                found.add("comment-merge")
            if any(comment.text != f" {comment.text.strip()} " for comment in braces):
                found.add("comment-spacing")
            if notes_step.nags != sorted(set(notes_step.nags)):
                found.add("nag-order")
        if read_ours.notes.result != tags_ours.get("Result", "*"):
            found.add("result-token")
        assert found, f"the movetext differs, by no listed class:\n{body_ours}\n---\n{body_theirs}"
        classes |= found
    return classes


def steps_of(notes: Notes[Any]) -> list[Any]:
    """Every step of the tree (lines' starting comments as steps of their own)."""
    out: list[Any] = [Step(comments=notes.comments)]

    def line(steps: list[Step[Any]]) -> None:
        for step in steps:
            out.append(step)
            for variation in step.variations:
                out.append(Step(comments=variation.comments))
                line(variation.steps)

    line(notes.steps)
    return out


def normalised(notes: Notes[str]) -> Any:
    """The tree as python-chess keeps it: brace comments stripped and joined by spaces, NAGs sorted and unique."""

    def comments(items: list[Comment]) -> str:
        return " ".join(text for text in (item.text.strip() for item in items if not item.line) if text)

    def line(moves: list[str], steps: list[Step[str]]) -> Any:
        return [(move, sorted(set(step.nags)), comments(step.comments),
                 [(comments(v.comments), line(v.moves, v.steps)) for v in step.variations])
                for move, step in zip(moves, steps)]

    return comments(notes.comments), line([""] * len(notes.steps), notes.steps)


@functools.cache
def documented_classes() -> set[str]:
    """The difference classes docs/chess.md lists (``- `class`: reason`` lines of its lossless section)."""
    text = (ROOT / "docs" / "chess.md").read_text(encoding="utf-8")
    section = text.split("\n## Lossless records\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^- `([a-z-]+)`:", section, re.MULTILINE))


def check_chess(text: str) -> set[str]:
    """Assert the round trips of one chess game; return the classes of its text's difference from python-chess's."""
    encoded = plybits.encode("chess", "0x88", record=text)
    decoded = plybits.decode(encoded.data, format="record")
    assert decoded.record is not None
    source = export(text)
    assert export(decoded.record) == source
    assert plybits.encode("chess", "0x88", record=decoded.record).data == encoded.data
    classes = difference_classes(decoded.record, source)
    assert classes <= documented_classes(), f"undocumented differences: {classes - documented_classes()}"
    return classes


# ---------------------------------------------------------------- own fixtures (no ../shared needed)


@pytest.mark.parametrize("name", sorted(OWN_CHESS))
def test_own_chess_fixtures_round_trip(name: str) -> None:
    check_chess(OWN_CHESS[name])


def test_nested_fixture_reads_where_python_chess_puts_each_note() -> None:
    notes = get_game("chess").parse_record(NESTED).notes
    assert notes is not None
    assert notes.comments == [Comment(" A game comment. ")]
    assert notes.steps[0].comments == [Comment(" [%clk 0:05:00] ")]
    assert notes.steps[1].nags == [1, 14]
    c5, e6 = notes.steps[1].variations
    assert c5.moves == ["c5", "Nf3", "d6"] and c5.steps[0].comments == [Comment(" Sicilian ")]
    c3, = c5.steps[1].variations
    assert c3.moves == ["c3", "d5"] and c3.steps[1].variations[0].moves == ["Nf6"]
    assert e6 == Line(moves=["e6"], steps=[Step(nags=[2])])
    assert notes.steps[2].nags == [5] and notes.steps[3].nags == [6]
    assert notes.steps[3].variations[0].comments == [Comment(" starting comment ")]
    assert notes.result == "1-0"


def test_nested_fixture_text_is_python_chess_text() -> None:
    decoded = plybits.decode(plybits.encode("chess", "0x88", record=NESTED).data, format="record")
    assert decoded.record == export(NESTED) + "\n"


def test_an_alternative_to_a_variation_first_move_is_its_sibling() -> None:
    notes = get_game("chess").parse_record("1. e4 e5 (1... c5 (1... e6) 2. Nf3) *").notes
    assert notes is not None
    assert [line.moves for line in notes.steps[1].variations] == [["c5", "Nf3"], ["e6"]]


def test_line_comments_are_kept_exactly() -> None:
    decoded = plybits.decode(plybits.encode("chess", "0x88", record=LINE_COMMENTS).data, format="record")
    assert "; a line comment\n" in decoded.record and "{braces} ; another\n" in decoded.record


def test_comments_are_never_altered() -> None:
    text = '[Event "x"]\n\n1. e4 {  two  spaces\nand a line } e5 {}{x} *\n'
    decoded = plybits.decode(plybits.encode("chess", "0x88", record=text).data, format="record")
    assert decoded.record == '[Event "x"]\n\n1. e4 {  two  spaces\nand a line } 1... e5 {} {x} *\n'


def test_moves_fidelity_and_move_lists_keep_todays_containers() -> None:
    moves_only = plybits.encode("chess", "0x88", record=NESTED, fidelity="moves")
    tags = get_game("chess").parse_record(NESTED).tags
    bare = plybits.encode("chess", "0x88", moves=["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7"],
                          tags=tags)
    assert moves_only.data == bare.data and bare.fidelity == "moves"
    assert moves_only.dropped == {"comments": 3, "nags": 4, "variations": 3}
    full = plybits.encode("chess", "0x88", record=NESTED)
    assert full.fidelity == "full" and full.dropped == {} and full.data != moves_only.data
    assert plybits.decode(full.data).moves == plybits.decode(moves_only.data).moves
    assert plybits.decode(full.data).tags == plybits.decode(moves_only.data).tags == tags


def test_record_of_a_moves_only_container_is_the_bare_writer() -> None:
    data = plybits.encode("chess", "0x88", moves=["e4", "e5"], tags={"White": "W"}).data
    record = plybits.decode(data, format="record").record
    assert record is not None and record.endswith("\n1. e4 e5 *\n") and '[Site "?"]' in record


def test_decode_writes_variations_in_the_asked_notation() -> None:
    data = plybits.encode("chess", "0x88", record=NESTED).data
    record = plybits.decode(data, format="record", notation="uci").record
    assert record is not None
    assert "( 1... c7c5 { Sicilian } 2. g1f3 ( 2. c2c3 d7d5 ( 2... g8f6 ) )" in " ".join(record.split())


def test_unknown_fidelity_and_format_are_errors() -> None:
    with pytest.raises(plybits.errors.UnknownCodecError, match="fidelity 'most'"):
        plybits.encode("chess", "0x88", record="1. e4 *", fidelity="most")
    with pytest.raises(plybits.errors.UnknownCodecError, match="format 'pgn'"):
        plybits.decode(plybits.encode("chess", "0x88", moves=["e4"]).data, format="pgn")


# ---------------------------------------------------------------- bad annotations: errors naming the ply


def test_a_variation_with_an_illegal_move_names_its_ply_variation_and_move() -> None:
    with pytest.raises(IllegalMoveError) as caught:
        plybits.encode("chess", "0x88", record="1. e4 e5 2. Nf3 (2. Nc3 Nc6 3. Ke3) Nc6 *")
    assert caught.value.ply == 2
    assert str(caught.value).startswith("ply 2: variation 1, move 3 'Ke3': illegal move")
    nested = "1. e4 e5 (1... c5 2. Nf3 (2. c3 Qxh1)) *"
    with pytest.raises(IllegalMoveError, match="ply 1: variation 1, move 2, variation 1, move 2 'Qxh1'"):
        plybits.encode("chess", "0x88", record=nested)
    assert plybits.encode("chess", "0x88", record=nested, fidelity="moves").plies == 2


def test_an_unclosed_comment_is_refused_by_full_fidelity_naming_the_ply() -> None:
    with pytest.raises(InvalidRecordError, match=r"^ply 1: the record cannot be kept as written: unclosed comment "
                                                 r"'\{never closed' \(unbalanced brace\)$") as caught:
        plybits.encode("chess", "0x88", record="1. e4 e5 {never closed")
    assert caught.value.ply == 1
    assert plybits.encode("chess", "0x88", record="1. e4 e5 {never closed", fidelity="moves").plies == 2
    with pytest.raises(InvalidRecordError, match="unclosed comment"):  # the strict readers refuse it anyway
        plybits.encode("xiangqi", "xq10", record="1. h2e2 {never closed")


def test_what_the_tree_cannot_hold_is_refused_not_dropped() -> None:
    with pytest.raises(InvalidRecordError, match="NAG"):
        plybits.encode("chess", "0x88", record="$1 1. e4 *")
    with pytest.raises(InvalidRecordError, match="varies no move"):
        plybits.encode("chess", "0x88", record="(1. d4) 1. e4 *")


PLAIN_MOVETEXTS = (
    "1. e4 e5 2. Nf3 *", "1.e4 e5 2.Nf3 Nc6 1-0", "1...e5 2. Nf3 0-1", "12 e4 0000 0000. 00000 e5 1/2-1/2", "e4\te5\n",
    "", "1-0", "1. e4\u00a0e5\u2003*", "e4 e5. 3.O-O-O+ 1-0 1-0", "1. e4 1-0 2. e5", "1. e4 * Nf3",
)
"""Movetexts of moves, move numbers and results only, each read by the reader's fast path."""
GENERAL_MOVETEXTS = ("1.0-0 e5", "1. e4 ... e5", "*x e4", "1-0x e4", "1.é4 e5", "1. e4 {c} e5", "1. e4! e5", "e4 (d4) e5",
                     "e4 $1", "e4 ; c", "1. e4 e5 .")
"""Movetexts the fast path leaves to the token reader."""


def test_plain_movetext_is_read_by_the_fast_path_as_the_token_reader_reads_it() -> None:
    def both(movetext: str) -> tuple[Any, Any] | None:
        read: list[Any] = []
        for plain in (True, False):
            record = pgntext.RecordText()
            try:
                if plain and not pgntext._plain_movetext(movetext, record):
                    return None
                if not plain:
                    pgntext._movetext(movetext, record, lenient=True)
            except InvalidRecordError as err:
                read.append(str(err))
                continue
            read.append((record.moves, record.result, record.notes, record.dropped, [str(f) for f in record.faults]))
        return read[0], read[1]

    for movetext in PLAIN_MOVETEXTS:
        read = both(movetext)
        assert read is not None, movetext
        assert read[0] == read[1], movetext
    for movetext in GENERAL_MOVETEXTS:
        assert both(movetext) is None, movetext
    taken = 0
    for name in [*chess_files(), "xiangqi/Hu_Ronghua_1391_UCI_games.pgn", "abalone/migs-2016-2017.train.apgn"]:
        for index, text in games(shared_data(name)):
            read = both(text[pgntext._tags(text, "PGN")[1]:])
            if read is not None:
                taken += 1
                assert read[0] == read[1], f"{name} game {index}"
    assert taken > 100


# ---------------------------------------------------------------- the real collections


def games(path: Path) -> list[tuple[int, str]]:
    """The (index, text) of the games of a collection, every SAMPLE-th under PLYBITS_QUICK=1."""
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    game = get_game("chess") if path.suffix == ".pgn" else get_game("abalone")
    return [(n, record) for n, record in enumerate(game.split_records(text)) if not QUICK or n % SAMPLE == 0]


def chess_files() -> list[str]:
    return ["chess/carlsen_otb.pgn", "chess/twic0920.pgn", "chess/clocks/lichess_db_standard_rated_2021-10_first999.pgn",
            "chess/clocks/lichess_pnmadelaine_2024-03-30.pgn", "chess/chesscom/chesscom_pnmadelaine_2021-11_to_2024-03.pgn",
            "chess/chesscom/chesscom_kyle_b81_2021.pgn"]


@pytest.mark.parametrize("name", chess_files())
def test_chess_collections_round_trip_losslessly(name: str) -> None:
    classes: set[str] = set()
    for index, text in games(shared_data(name)):
        try:
            classes |= check_chess(text)
        except AssertionError as err:
            raise AssertionError(f"{name} game {index}: {err}") from None
    assert classes <= documented_classes()


def test_chess_edge_fixtures_round_trip_losslessly() -> None:
    folder = shared_data("chess", "edge")
    checked = 0
    for path in sorted(folder.glob("*.pgn")):
        for index, text in enumerate(get_game("chess").split_records(path.read_text(encoding="utf-8-sig"))):
            variant = pgntext.read(text, kind="PGN", lenient=True).tags.get("Variant")
            if variant in UNSUPPORTED_VARIANTS:
                with pytest.raises(InvalidRecordError, match="not supported"):
                    plybits.encode("chess", "0x88", record=text)
                continue
            try:
                check_chess(text)
            except AssertionError as err:
                raise AssertionError(f"{path.name} game {index}: {err}") from None
            checked += 1
    assert checked >= 15


def same_by_own_reader(game: str, scheme: str, text: str, notation: str | None = None) -> str:
    """Encode ``text`` in full, decode its record; assert both read to the same record; return the decoded text."""
    encoded = plybits.encode(game, scheme, record=text)
    decoded = plybits.decode(encoded.data, format="record", notation=notation)
    assert decoded.record is not None
    source = records.read_record(game, record=text, variations=True)
    back = records.read_record(game, record=decoded.record, variations=True)
    assert (back.start, back.moves, back.notes) == (source.start, source.moves, source.notes)
    assert back.tags == source.tags
    assert plybits.encode(game, scheme, record=decoded.record).data == encoded.data
    return decoded.record


XIANGQI_ANNOTATED = """[Event "Annotated"]
[Red "A"]
[Black "B"]
[Result "1-0"]

{ opening } 1. h2e2 { central cannon } h9g7 $1 (1... b9c7 2. h0g2) 2. h0g2 ; a line comment
i9h9 1-0
"""


def test_xiangqi_own_fixture_round_trips() -> None:
    text = same_by_own_reader("xiangqi", "xq10", XIANGQI_ANNOTATED)
    assert "{ central cannon } 1... H9-G7 $1 ( 1... B9-C7 2. H0-G2 ) 2." in text
    assert "H0-G2 ; a line comment\n2... I9-H9 1-0\n" in text
    wxf = same_by_own_reader("xiangqi", "xq10", XIANGQI_ANNOTATED, notation="wxf")
    assert '[Format "WXF"]' in wxf


@pytest.mark.parametrize("name", ["Hu_Ronghua_1391_UCI_games.pgn", "Liu_Dahua_1125_UCI_games.pgn"])
def test_xiangqi_collections_round_trip_losslessly(name: str) -> None:
    path = shared_data("xiangqi", name)
    game = get_game("xiangqi")
    for index, text in enumerate(game.split_records(path.read_text(encoding="utf-8"))):
        if QUICK and index % SAMPLE:
            continue
        decoded = same_by_own_reader("xiangqi", "xq10", text)
        source = pgntext.read(text, kind="xiangqi PGN")
        back = pgntext.read(decoded, kind="xiangqi PGN")
        assert [move.replace("-", "").lower() for move in back.moves] == source.moves, f"{name} game {index}"
        assert back.notes.comments == source.notes.comments and back.notes.result == source.notes.result


APGN_ANNOTATED = """[Event "Annotated"]
[Black "A"]
[White "B"]
[Variant "belgian"]
[Result "0-1"]
[Notation "Aba-Pro"]

{ start } 1. i9h8 {good} i6h6 $2 (1... a5b5 2. i8h7) 2. i8h7 a5b5 0-1
"""


def test_apgn_own_fixture_round_trips() -> None:
    text = same_by_own_reader("abalone", "abapro", APGN_ANNOTATED)
    assert text.startswith('[Event "Annotated"]\n[Black "A"]')
    assert "{ start } 1. i9h8 {good} 1... i6h6 $2 ( 1... a5b5 2. i8h7 ) 2. i8h7 a5b5 0-1\n" in text


def test_apgn_collection_round_trips_losslessly() -> None:
    path = shared_data("abalone", "migs-2016-2017.train.apgn")
    for index, text in games(path):
        try:
            same_by_own_reader("abalone", "abapro", text)
        except AssertionError as err:
            raise AssertionError(f"game {index}: {err}") from None


def test_entropy_record_round_trips() -> None:
    text = '[Event "Club"]\n\n{ chaos first } Rd4 {placed} Gc3 $1 ( Ga1 ) *\n'
    assert same_by_own_reader("entropy", plybits.records.seed_scheme("entropy"), text) == text


def test_a_comment_its_delimiters_cannot_hold_is_refused_by_the_writer() -> None:
    from plybits.game import Record

    game = get_game("chess")
    for comment in (Comment("a } b"), Comment("two\nlines", line=True)):
        notes: Notes[str] = Notes(steps=[Step(comments=[comment])], result="*")
        with pytest.raises(InvalidRecordError, match="cannot be written"):
            game.write_record(Record(moves=["e4"], notes=notes))
