"""The container's record section: everything beside the mainline, stored exactly (plybits.recordsection)."""

from __future__ import annotations

import io
import random
from collections import Counter
from typing import Any

import chess
import chess.pgn
import pytest

import plybits
from plybits import pgntext, recordsection, recordtags
from plybits.chess import GAME
from plybits.annotations import Comment, Line, Notes, Step
from plybits.compiled import is_compiled
from plybits.container import Container, pack, unpack
from plybits.errors import InvalidDataError, InvalidRecordError, LimitExceededError
from plybits.recordcoder import Coder, Writer
from plybits.recorddictionary import TAG_NAMES
from plybits.recordsection import read_section, section_costs, write_section
from plybits.registry import get_game, get_scheme, schemes
from tests.conftest import ROOT, shared_data


def play(game: str, tokens: str, start: str | None = None) -> tuple[Any, list[Any]]:
    """The start position and the moves of ``tokens`` read from it."""
    position = get_game(game).position(start)
    board = position.copy()
    moves = []
    for token in tokens.split():
        move = board.parse_move(token)
        moves.append(move)
        board.push(move)
    return position, moves


def random_moves(game: str, plies: int, seed: int) -> tuple[Any, list[Any]]:
    """``plies`` moves (fewer if the game ends) picked at random from the default start."""
    rng = random.Random(seed)
    position = get_game(game).position(None)
    board = position.copy()
    moves = []
    for _ in range(plies):
        legal = board.legal_moves()
        if not legal:
            break
        move = legal[rng.randrange(len(legal))]
        moves.append(move)
        board.push(move)
    return position, moves


def after(position: Any, moves: list[Any]) -> Any:
    board = position.copy()
    for move in moves:
        board.push(move)
    return board


def round_trip(scheme: Any, start: Any, moves: list[Any], notes: Notes[Any], tags: dict[str, str]) -> bytes:
    before = start.fen()
    data = write_section(scheme, start, moves, notes, tags)
    back, back_tags = read_section(scheme, start, moves, data, max_plies=10_000)
    assert back == notes
    assert back_tags == tags and list(back_tags) == list(tags)
    assert start.fen() == before
    return data


def annotated_chess() -> tuple[Any, Any, list[Any], Notes[Any], dict[str, str]]:
    """A hand-made chess record using every kind of annotation."""
    scheme = get_scheme("chess", "rank")
    start, moves = play("chess", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6")
    # the variation 1... e6 2. d4 d5 (2... b6 (2... g6 3. c4)) branches before Black's first move
    _, french = play("chess", "e4 e6 d4 d5")
    _, inner = play("chess", "e4 e6 d4 b6")
    _, innermost = play("chess", "e4 e6 d4 g6 c4")
    inner_line = Line(moves=innermost[3:], steps=[Step(nags=[6]), Step(comments=[Comment("deep", line=True)])])
    variation_b6 = Line(moves=inner[3:], steps=[Step(comments=[Comment("{no}")], variations=[inner_line])])
    french_line = Line(
        moves=french[1:],
        steps=[Step(nags=[5]), Step(), Step(variations=[variation_b6])],
        comments=[Comment(" the French ")],
    )
    notes: Notes[Any] = Notes(
        comments=[Comment(" A game comment "), Comment(" line comment", line=True)],
        result="1-0",
        steps=[
            Step(comments=[Comment(" [%clk 0:03:00] ")]),
            Step(nags=[1, 146], comments=[Comment(" [%eval 0.17] [%clk 0:02:59] ")], variations=[french_line]),
            Step(comments=[Comment(" [%clk 0:00:05.3] ")]),
            Step(comments=[Comment(" [%clk 1:2:3] ")]),
            Step(comments=[Comment(" [%eval #-3] [%clk 0:02:50] "), Comment("second")]),
            Step(comments=[Comment("[%cal Ra1a8] [%csl Ge4]")]),
            Step(comments=[Comment("\t odd  white\nspace ")], nags=[255]),
            Step(),
        ],
    )
    tags = {"Event": "Rated Blitz game", "Site": "https://lichess.org/abcdEFGH", "White": "Ann",
            "Black": "Bo", "Result": "1-0", "TimeControl": "180+2", "Zeta": "", "Annotator": "ünï ☃"}
    return scheme, start, moves, notes, tags


def test_every_kind_of_annotation_comes_back_exactly():
    scheme, start, moves, notes, tags = annotated_chess()
    round_trip(scheme, start, moves, notes, tags)


@pytest.mark.parametrize("scheme_name", ["0x88", "rank"])
def test_both_chess_schemes_code_variations(scheme_name):
    _, start, moves, notes, tags = annotated_chess()
    round_trip(get_scheme("chess", scheme_name), start, moves, notes, tags)


@pytest.mark.parametrize("scheme", schemes(), ids=lambda s: f"{s.game}/{s.name}")
def test_every_game_and_scheme_round_trips_annotations(scheme):
    start, moves = random_moves(scheme.game, 24, seed=scheme.codec_id)
    assert len(moves) >= 6
    _, other = random_moves(scheme.game, 30, seed=scheme.codec_id + 1000)
    branch = after(start, moves[:3])
    alternatives = []
    board = branch.copy()
    for _ in range(4):  # a variation at ply 3: random legal moves from the branch point
        legal = board.legal_moves()
        move = legal[len(legal) // 2]
        alternatives.append(move)
        board.push(move)
    steps: list[Step[Any]] = [Step() for _ in moves]
    steps[0].comments.append(Comment(" opening note "))
    steps[3].variations.append(Line(moves=alternatives, steps=[Step(nags=[2]), Step(), Step(), Step()]))
    steps[-1].nags.append(4)
    notes: Notes[Any] = Notes(steps=steps, result="*", comments=[Comment("before")])
    round_trip(scheme, start, moves, notes, {"Event": "test", "Round": "1"})
    del other


def test_empty_notes_and_no_tags():
    scheme = get_scheme("chess", "rank")
    start, moves = play("chess", "e4 e5")
    round_trip(scheme, start, moves, Notes(), {})
    round_trip(scheme, start, [], Notes(), {})
    round_trip(scheme, start, [], Notes(result="1/2-1/2"), {})


def test_an_unusual_result_token_is_kept():
    scheme = get_scheme("xiangqi", "rank")
    start, moves = random_moves("xiangqi", 4, seed=1)
    round_trip(scheme, start, moves, Notes(result="2-0"), {})


def test_tags_keep_their_order_and_odd_values():
    scheme = get_scheme("chess", "rank")
    start, moves = play("chess", "d4")
    tags = {"Result": "*", "Date": "2021.??.01", "WhiteElo": "0123", "BlackElo": "-", "UTCDate": "2021.10.02",
            "TimeControl": "1/3600:300", "Site": "https://lichess.org/", "X": " padded ", "ECO": "Z99"}
    round_trip(scheme, start, moves, Notes(result="*"), tags)


def test_steps_that_do_not_fit_the_moves_are_refused():
    scheme = get_scheme("chess", "rank")
    start, moves = play("chess", "e4 e5")
    with pytest.raises(InvalidRecordError, match="1 annotation steps for 2 moves"):
        write_section(scheme, start, moves, Notes(steps=[Step()]), {})


def test_a_lone_surrogate_is_refused():
    scheme = get_scheme("chess", "rank")
    start, moves = play("chess", "e4")
    with pytest.raises(InvalidRecordError, match="surrogate"):
        write_section(scheme, start, moves, Notes(comments=[Comment("\ud800")]), {})


def test_too_deep_variations_are_refused_when_written():
    scheme = get_scheme("chess", "0x88")
    start, moves = play("chess", "e4")
    line: Line[Any] = Line(moves=[start.parse_move("d4")], steps=[Step()])
    for _ in range(100):
        line = Line(moves=[start.parse_move("d4")], steps=[Step(variations=[line])])
    with pytest.raises(LimitExceededError, match="nested deeper"):
        write_section(scheme, start, moves, Notes(steps=[Step(variations=[line])]), {})


def test_every_corrupted_byte_is_invalid_data_or_another_valid_section():
    scheme, start, moves, notes, tags = annotated_chess()
    data = write_section(scheme, start, moves, notes, tags)
    invalid = {}
    for i in range(len(data)):
        for flip in (0x01, 0x80, 0xFF):
            corrupted = bytearray(data)
            corrupted[i] ^= flip
            # the range coder may read a flipped byte near the end as other decisions; then it is a section
            # write_section makes (the container's CRC catches the corruption itself)
            invalid[i, flip] = read_back_or_invalid(scheme, start, moves, bytes(corrupted))
    assert all(invalid[i, flip] for (i, flip) in invalid if i < len(data) // 2)
    assert sum(invalid.values()) >= 0.95 * len(invalid)


def read_back_or_invalid(scheme: Any, start: Any, moves: list[Any], data: bytes, max_plies: int = 10_000) -> bool:
    """Whether ``data`` is invalid data; if it is not, it is a section that writing its contents back gives."""
    try:
        notes, tags = read_section(scheme, start, moves, data, max_plies=max_plies)
    except InvalidDataError:
        return True
    assert write_section(scheme, start, moves, notes, tags, version=data[0]) == data
    return False


class OneChangeWriter(Coder):
    """A writer that codes decision number ``change`` otherwise than it is given (another bit, another uniform
    value) and goes on with the layout from there: a section a writer makes for no record, or for another one."""

    def __init__(self, change: int, rng: random.Random) -> None:
        super().__init__(True)
        self.writer, self.count, self.change, self.rng = Writer(), 0, change, rng

    def bit(self, bits: Any, ctx: int, bit: int = 0) -> int:
        bit ^= self.count == self.change
        self.count += 1
        return self.writer.bit(bits, ctx, bit)

    def uniform(self, n: int, value: int = 0) -> int:
        if self.count == self.change and n > 1:
            value = (value + self.rng.randrange(1, n)) % n
        self.count += 1
        return self.writer.uniform(n, value)


def written_one_by_one(scheme: Any, start: Any, moves: list[Any], notes: Notes[Any], tags: dict[str, str],
                       coder: OneChangeWriter) -> bytes:
    """The section ``coder`` writes for the record, each decision through its ``bit`` (Coder's loops)."""
    writer = recordsection._NotesWriter(coder, scheme, recordsection.State(
        recordsection.FinalPosition(start, moves, None), len(moves), recordsection.SECTION_VERSION))
    writer.tags(tags)
    writer.result(notes.result)
    writer.comments(notes.comments, -1, 7)
    writer.steps(start, moves, notes.steps, 0, 0)
    return bytes([recordsection.SECTION_VERSION]) + coder.writer.finish()


def changed_sections(scheme: Any, start: Any, moves: list[Any], notes: Notes[Any], tags: dict[str, str],
                     rng: random.Random, most: int) -> list[bytes]:
    """Sections written for the record with one decision changed (at most ``most`` of them, at random)."""
    def write(change: int) -> tuple[bytes, int]:
        coder = OneChangeWriter(change, rng)
        return written_one_by_one(scheme, start, moves, notes, tags, coder), coder.count

    decisions = write(-1)[1]
    sections = []
    for change in sorted(rng.sample(range(decisions), min(most, decisions))):
        try:
            sections.append(write(change)[0])
        except Exception:  # the layout may not go on with the changed decision (a value that is not there)
            continue
    return sections


def test_a_section_coded_decision_by_decision_is_the_one_the_writer_codes_in_loops():
    """Writer codes bit trees and unary runs in loops of its own; a coder that codes each decision through bit()
    (Coder's loops, as OneChangeWriter changing none) writes the same bytes, so the loops code the same decisions."""
    rng = random.Random(11)
    records = [annotated_chess()]
    every = schemes()
    for _ in range(12):
        records.append(_random_record(rng, every, 20))
    for scheme, start, moves, notes, tags in records:
        one_by_one = written_one_by_one(scheme, start, moves, notes, tags, OneChangeWriter(-1, rng))
        assert write_section(scheme, start, moves, notes, tags) == one_by_one
        assert read_section(scheme, start, moves, one_by_one, max_plies=10_000) == (notes, tags)


def _random_record(
    rng: random.Random, every: list[Any], max_plies: int
) -> tuple[Any, Any, list[Any], Notes[Any], dict[str, str]]:
    """(scheme, start, moves, notes, tags) of a random record of up to ``max_plies`` plies: comments, steps with
    notes (in four records of five), a result, odd tags."""
    scheme = rng.choice(every)
    start, moves = random_moves(scheme.game, rng.randrange(0, max_plies), rng.randrange(10**6))
    notes: Notes[Any] = Notes(result=rng.choice([None, "1-0", "*", "2-0", ""]),
                              comments=[Comment(_text(rng))] if rng.random() < 0.3 else [])
    if rng.random() < 0.8:
        notes.steps = _random_steps(rng, start, moves, 0)
    tags = {rng.choice(_NAMES): rng.choice(_VALUES) for _ in range(rng.randrange(0, 12))}
    return scheme, start, moves, notes, tags


def test_a_section_with_any_decision_changed_is_invalid_or_the_one_section_of_what_it_holds():
    """The reader checks each choice a record could be coded with two ways (a typed value as text, a known tag
    name or a result token as text, a comment's numbers as text, a date in full that is the last one, ...) as
    it decodes it: a section read is the one write_section makes of what it holds."""
    from conftest import QUICK

    rng = random.Random(5)
    records = [annotated_chess()]
    every = schemes()
    for _ in range(6 if QUICK else 40):
        records.append(_random_record(rng, every, 20))
    outcomes = Counter()
    for scheme, start, moves, notes, tags in records:
        for data in changed_sections(scheme, start, moves, notes, tags, rng, 40 if QUICK else 200):
            outcomes[read_back_or_invalid(scheme, start, moves, data)] += 1
    assert outcomes[True] >= 10 and outcomes[False] >= 10  # both occur: the checks are exercised


@pytest.mark.parametrize("text, skeleton", [
    ("ab", ("a", "b")),  # two text parts in a row: a writer keeps them one
    (" [%clk 0:01:00] x", (" [%clk 0:01:00]", " x")),  # a clock as text beside another part
    ("", ("",)),
])
def test_a_comment_coded_by_a_skeleton_a_writer_does_not_split_it_into_is_invalid(monkeypatch, text, skeleton):
    scheme, start, moves = get_scheme("chess", "rank"), *play("chess", "e4")
    split = recordsection._split_comment
    monkeypatch.setattr(recordsection, "_split_comment", lambda t: (skeleton, []) if t == text else split(t))
    data = write_section(scheme, start, moves, Notes(comments=[Comment(text)]), {})
    monkeypatch.setattr(recordsection, "_split_comment", split)
    with pytest.raises(InvalidDataError, match="skeleton"):
        read_section(scheme, start, moves, data, max_plies=10)


def test_every_truncation_is_invalid_data_or_another_section():
    scheme, start, moves, notes, tags = annotated_chess()
    data = write_section(scheme, start, moves, notes, tags)
    invalid = [read_back_or_invalid(scheme, start, moves, data[:n]) for n in range(len(data))]
    assert sum(invalid) >= len(data) - 4  # the bare version byte, or a cut in the coder's last bytes, may be a section
    with pytest.raises(InvalidDataError):
        read_section(scheme, start, moves, data + b"\x00", max_plies=10_000)


def test_random_bytes_are_invalid_data_with_bounded_work():
    scheme, start, moves, _, _ = annotated_chess()
    rng = random.Random(7)
    for version in recordsection.READABLE_VERSIONS:
        for _ in range(300):
            read_back_or_invalid(scheme, start, moves, bytes([version]) + rng.randbytes(rng.randrange(0, 40)), 100)


def test_a_section_of_another_version_is_refused():
    scheme, start, moves, notes, tags = annotated_chess()
    data = write_section(scheme, start, moves, notes, tags)
    with pytest.raises(InvalidDataError, match="version 4"):
        read_section(scheme, start, moves, bytes([4]) + data[1:], max_plies=10_000)
    with pytest.raises(InvalidDataError, match="empty"):
        read_section(scheme, start, moves, b"", max_plies=10_000)


def test_variation_plies_count_against_the_ply_limit():
    scheme, start, moves, notes, tags = annotated_chess()
    data = write_section(scheme, start, moves, notes, tags)
    with pytest.raises(InvalidDataError, match="ply limit"):
        read_section(scheme, start, moves, data, max_plies=3)


def test_a_container_with_a_record_section_round_trips_and_flags_it():
    box = Container(codec_id=0x02, scheme_version=1, plies=2, payload=b"\x12\x34", record=b"\x01\xab")
    blob = pack(box)
    assert blob[5] == 0x04
    assert blob[7:10] == b"\x02\x01\xab"
    assert unpack(blob, max_plies=10) == box


def test_a_container_cannot_hold_plain_tags_and_a_record_section():
    with pytest.raises(ValueError, match="record section"):
        pack(Container(codec_id=2, scheme_version=1, plies=0, payload=b"", tags={"A": "b"}, record=b"\x01"))
    import zlib

    body = b"PB\x01\x02\x01\x06\x00\x01\x01A\x01b\x01\x01"
    with pytest.raises(InvalidDataError, match="0x02 and 0x04"):
        unpack(body + zlib.crc32(body).to_bytes(4, "big"), max_plies=10)


def test_a_record_section_longer_than_the_container_is_invalid():
    import zlib

    body = b"PB\x01\x02\x01\x04\x00\x05\x01"
    with pytest.raises(InvalidDataError, match="record section"):
        unpack(body + zlib.crc32(body).to_bytes(4, "big"), max_plies=10)


# ------------------------------------------------------------------------------------- real collections

# python-chess's reading of each game (the peer's tree), as Notes of plybits moves; python-chess strips the white
# space around a comment, which lichess writes as one space each side, so it is put back

def _comment(text: str) -> list[Comment]:
    return [Comment(f" {text} ")] if text else []


def _line(position: Any, node: chess.pgn.ChildNode) -> tuple[list[Any], list[Step[Any]]]:
    """The moves and steps of the line starting at ``node`` (played from ``position``, a copy played forward)."""
    moves: list[Any] = []
    steps: list[Step[Any]] = []
    current: chess.pgn.ChildNode | None = node
    while current is not None:
        parent = current.parent
        step: Step[Any] = Step(nags=sorted(current.nags), comments=_comment(current.comment))
        for alternative in parent.variations[1:] if parent.variations[0] is current else []:
            branch = position.copy()
            line_moves, line_steps = _line(branch, alternative)
            step.variations.append(Line(moves=line_moves, steps=line_steps,
                                        comments=_comment(alternative.starting_comment)))
        move = position.parse_move(current.move.uci(), "uci")
        moves.append(move)
        steps.append(step)
        position.push(move)
        current = current.variations[0] if current.variations else None
    if all(step.is_empty() for step in steps):
        steps = []
    return moves, steps


def python_chess_notes(text: str) -> tuple[Any, list[Any], Notes[Any], dict[str, str]]:
    """The start, mainline, notes and tags of one PGN game."""
    record = pgntext.read(text, kind="PGN")
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None
    start = GAME.position(record.tags.get("FEN"))
    notes: Notes[Any] = Notes(comments=_comment(game.comment), result=record.result)
    moves: list[Any] = []
    if game.variations:
        moves, notes.steps = _line(start.copy(), game.variations[0])
    return start, moves, notes, record.tags


def _collection_games(path: Any, every: int) -> list[tuple[Any, list[Any], Notes[Any], dict[str, str]]]:
    """Every ``every``-th game of a PGN file of standard chess or Chess960 (other variants left out)."""
    texts = list(GAME.split_records(path.read_text(encoding="utf-8-sig")))[::every]
    return [python_chess_notes(text) for text in texts
            if pgntext.read(text, kind="PGN", lenient=True).tags.get("Variant", "Standard").lower().replace(" ", "")
            in ("standard", "chess960", "fischerandom", "fromposition")]


@pytest.mark.parametrize("name", ["lichess_db_standard_rated_2021-10_first999.pgn", "lichess_pnmadelaine_2024-03-30.pgn"])
def test_clock_annotated_lichess_games_round_trip(name):
    from conftest import QUICK, shared_data

    games = _collection_games(shared_data("chess", "clocks", name), 40 if QUICK else 1)
    scheme = get_scheme("chess", "rank")
    clocks = bits = 0.0
    for start, moves, notes, tags in games:
        round_trip(scheme, start, moves, notes, tags)
        section, costs = section_costs(scheme, start, moves, notes, tags)
        assert section == write_section(scheme, start, moves, notes, tags)
        clocks += sum(comment.text.count("[%clk ") for step in notes.steps for comment in step.comments)
        bits += costs.get("clock", 0.0)
    assert clocks > 1000
    assert bits / clocks < 6.5  # the time spent, predicted from the side's last clock, not the clock's text



@pytest.mark.parametrize("path", [("clocks", "lichess_pnmadelaine_2024-03-30.pgn"),
                                  ("chesscom", "chesscom_kyle_b81_2021.pgn")])
def test_version_2_clocks_cost_less_than_version_1_on_games_its_priors_were_not_measured_on(path):
    """Version 2 predicts a clock from each side's pace, with priors measured on other files (bench.clock_priors)."""
    from conftest import QUICK, shared_data

    games = _collection_games(shared_data("chess", *path), 40 if QUICK else 8)
    scheme = get_scheme("chess", "rank")
    bits = {1: 0.0, 2: 0.0}
    for start, moves, notes, tags in games:
        for version in bits:
            section, costs = section_costs(scheme, start, moves, notes, tags, version=version)
            assert read_section(scheme, start, moves, section, max_plies=0) == (notes, tags)
            bits[version] += costs.get("clock", 0.0)
    assert bits[2] < 0.93 * bits[1]

def test_edge_records_round_trip():
    """Chess960 starts, engine comments, odd tags (the edge files hold no variations: hand-made ones above)."""
    from conftest import shared_data

    seen: Counter[str] = Counter()
    for path in sorted(shared_data("chess", "edge").glob("*.pgn")):
        for start, moves, notes, tags in _collection_games(path, 1):
            for scheme in (get_scheme("chess", "rank"), get_scheme("chess", "0x88")):
                round_trip(scheme, start, moves, notes, tags)
            seen["comments"] += sum(len(step.comments) for step in notes.steps)
            seen["starts"] += "FEN" in tags
    assert seen["comments"] > 100 and seen["starts"], seen


def test_a_full_fidelity_container_carries_the_section():
    scheme, start, moves, notes, tags = annotated_chess()
    section = write_section(scheme, start, moves, notes, tags)
    payload = scheme.encode(start.copy(), moves).tobytes()
    blob = pack(Container(scheme.codec_id, scheme.version, len(moves), payload, record=section))
    box = unpack(blob, max_plies=100)
    assert box.tags == {} and box.payload == payload
    assert box.record is not None
    assert read_section(scheme, start, moves, box.record, max_plies=100, version=box.scheme_version) == (notes, tags)


def test_clocks_evals_and_rating_diffs_are_coded_as_numbers_only_when_exact():
    scheme = get_scheme("chess", "rank")
    start, moves = play("chess", "e4 e5 Nf3 Nc6 Bb5 a6")
    texts = [" [%clk 0:03:00] ", " [%clk 0:03:00] ", " [%clk 0:02:58] ", " [%clk 0:02:59.5] ", "[%clk 0:02:50]",
             " [%clk 00:02:57] "]
    evals = [" [%eval 0.2] ", " [%eval 0.20] ", " [%eval -0.0] ", " [%eval #0] ", " [%eval 0.17,20] ",
             " [%eval +1.5] "]
    for comments in (texts, evals):
        notes: Notes[Any] = Notes(steps=[Step(comments=[Comment(text)]) for text in comments])
        round_trip(scheme, start, moves, notes, {"TimeControl": "180+2", "WhiteRatingDiff": "+0",
                                                 "BlackRatingDiff": "0", "WhiteElo": "1500", "BlackElo": "01500"})


def test_reading_stops_at_the_deadline():
    import time

    from plybits.deadline import deadline
    from plybits.errors import DeadlineExceededError

    scheme, start, moves, notes, tags = annotated_chess()
    data = write_section(scheme, start, moves, notes, tags)
    with deadline(time.monotonic() - 1, 0.5), pytest.raises(DeadlineExceededError, match="time limit"):
        read_section(scheme, start, moves, data, max_plies=100)


def test_writing_over_the_limits_is_refused_by_name():
    scheme = get_scheme("chess", "rank")
    start, moves = play("chess", "e4")
    with pytest.raises(LimitExceededError, match="257 tags"):
        write_section(scheme, start, moves, Notes(), {f"T{i}": "x" for i in range(257)})
    with pytest.raises(LimitExceededError, match="longer than a record section allows"):
        write_section(scheme, start, moves, Notes(steps=[Step(comments=[Comment("x" * 70_000)])]), {})
    with pytest.raises(LimitExceededError, match="outside the record section's range"):
        write_section(scheme, start, moves, Notes(steps=[Step(nags=[1 << 41])]), {})


def test_a_section_claiming_more_than_its_length_holds_stops_early():
    scheme = get_scheme("chess", "rank")
    start, moves = play("chess", "e4 e5")
    # one byte of coded data, read as far as the decision budget allows: invalid data, not minutes of work
    for tail in (b"\xff", b"\x00", b"\x80\x00\x00"):
        assert read_back_or_invalid(scheme, start, moves, bytes([1]) + tail)


# ------------------------------------------------------------------------------------------ random records

_PIECES = [
    "[%clk 0:01:00]", "[%clk 1:2:3]", "[%clk 0:00:05.3]", "[%clk 12:59:59.999]", "[%eval 0.17]", "[%eval -0.0]",
    "[%eval #-3]", "[%eval #3]", "[%eval 12.5]", "[%emt 0:00:02]", "[%emt 0:00:02.25]", "[%cal Ra1a8]", " ", "  ",
    "\n", "hello", "ünï ☃", "[%clk ", "]", "[%eval 0.1", "{", ";", "[%clk 999:59:59]", "[%clk 1000:00:00]",
    "[%eval 9999.99]", "[%eval -10000.0]", "[%eval #100000]", "\x00", "\x01",
]
"""Pieces of comments: commands that are numbers, ones that only look so, and plain text."""
_VALUES = [
    "", "?", "-", "2021.10.01", "2021.13.01", "????.??.??", "0001.01.01", "9999.12.31", "00:00:00", "23:59:59",
    "24:00:00", "1500", "0", "4095", "4096", "+0", "-0", "0", "+12", "-999999", "600+0", "180+2", "1+0", "0+1",
    "A00", "E99", "F00", "1-0", "*", "https://lichess.org/abcdEFGH", "https://lichess.org/abc", "https://lichess.org/",
    "https://www.chess.com/game/live/123456789", "https://www.chess.com/game/live/0123",
    "Rated Blitz tournament https://lichess.org/tournament/6D4bmWzZ", "Sicilian Defense: Najdorf Variation",
    "Queen's Gambit Declined", "Caro-Kann", "ünï", "x" * 300,
]
"""Tag values of every typed form, and ones just outside them."""
_NAMES = [*TAG_NAMES, "Foo", "event", "X"]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randrange(0, 5)))


def _random_steps(rng: random.Random, position: Any, moves: list[Any], depth: int) -> list[Step[Any]]:
    """Random NAGs, comments and variations (nested up to 3 deep) for ``moves`` played from ``position``."""
    steps: list[Step[Any]] = []
    board = position.copy()
    for move in moves:
        step: Step[Any] = Step()
        if rng.random() < 0.3:
            step.nags = [rng.choice([1, 2, 3, 4, 5, 6, 0, 255, 256, 1000]) for _ in range(rng.randrange(1, 3))]
        if rng.random() < 0.6:
            step.comments = [Comment(_text(rng), rng.random() < 0.1) for _ in range(rng.randrange(1, 3))]
        if depth < 3 and rng.random() < 0.1:
            for _ in range(rng.randrange(1, 3)):
                branch = board.copy()
                alternative = []
                for _ in range(rng.randrange(0, 4)):
                    legal = branch.legal_moves()
                    if not legal:
                        break
                    alternative.append(legal[rng.randrange(len(legal))])
                    branch.push(alternative[-1])
                line: Line[Any] = Line(moves=alternative, comments=[Comment(_text(rng))] if rng.random() < 0.3 else [])
                if rng.random() < 0.7:
                    line.steps = _random_steps(rng, board, alternative, depth + 1)
                step.variations.append(line)
        steps.append(step)
        board.push(move)
    return steps


@pytest.mark.parametrize("seed", [1, 2])
def test_random_records_of_every_game_round_trip(seed):
    """Texts mixing commands that are numbers with ones that only look so, odd tag values, NAGs, nested lines."""
    from conftest import QUICK

    rng = random.Random(seed)
    every = schemes()
    for _ in range(25 if QUICK else 100):
        round_trip(*_random_record(rng, every, 30))


@pytest.mark.skipif(is_compiled(recordtags), reason="a compiled TagCoder calls its own derivations; the pure run tests it")
def test_a_derived_value_coded_in_full_is_invalid_data(monkeypatch: pytest.MonkeyPatch) -> None:
    real = recordtags.TagCoder.derivations
    monkeypatch.setattr(recordtags.TagCoder, "derivations",
                        lambda self, name: [None if value is None else value + "?" for value in real(self, name)])
    chesscom = (ROOT / "tests" / "fixtures" / "records" / "v1_chesscom.pgn").read_text(encoding="utf-8")
    data = plybits.encode("chess", "rank", record=chesscom).data
    monkeypatch.setattr(recordtags.TagCoder, "derivations", real)
    with pytest.raises(InvalidDataError, match="derived but coded in full"):
        plybits.decode(data)


def test_version_3_measured_priors_name_contexts_its_models_have():
    from plybits.recordmodels import Priors, model_banks
    from plybits.recordpriors import PRIORS

    banks = model_banks(Priors(3))
    for path, entries in PRIORS.items():
        assert path in banks, path
        for ctx, p, seen in entries:
            assert 0 <= ctx < len(banks[path].state) and 16 <= p <= 4080 and 1 <= seen <= 30, (path, ctx)
            assert banks[path].state[ctx] == p | seen << 12, (path, ctx)


def test_sections_reuse_one_set_of_models_given_back_at_their_priors():
    """A section takes its models from the ones an earlier section gave back (not a copy of each model a section):
    every context the section adapted is back at its prior when it ends, and the next section of the version takes
    that same set and writes the same bytes."""
    from plybits import recordmodels

    record = (ROOT / "tests" / "fixtures" / "records" / "v1_chesscom.pgn").read_text(encoding="utf-8")
    replay = plybits.read_record("chess", record=record, variations=True)
    scheme = get_scheme("chess", "rank")
    assert replay.notes is not None
    for version in recordsection.READABLE_VERSIONS:
        data = write_section(scheme, replay.start_position, replay.moves, replay.notes, replay.tags, version=version)
        models = recordmodels.section_models(version)
        assert len(models.banks) > 10  # the models the section used, copied once
        for bits, prior in models.banks:
            assert list(bits.state) == list(prior.state) and not bits.touched_count
        recordmodels.release_models(models)
        again = write_section(scheme, replay.start_position, replay.moves, replay.notes, replay.tags, version=version)
        assert again == data
        notes, tags = read_section(scheme, replay.start_position, replay.moves, data, max_plies=1000)
        assert tags == replay.tags and notes == replay.notes
        assert recordmodels.section_models(version) is models


def test_clock_and_evaluation_texts_are_the_format_specs_ones():
    """clock_text and eval_text write by table and zfill what format specs write (the section's bytes depend on it:
    a value is coded as a number only where its text is written back exactly)."""
    from plybits.recordvalues import clock_text, eval_text

    rng = random.Random(25)
    samples = [0, 1, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, 999 * 3_600_000 + 3_599_999]
    samples += [rng.randrange(0, 1000 * 3_600_000) for _ in range(3000)] + [rng.randrange(0, 200_000) for _ in range(3000)]
    for ms in samples:
        seconds, fraction = divmod(ms, 1000)
        text = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        assert clock_text(ms, 0) == text
        for digits in (1, 2, 3):
            assert clock_text(ms, digits) == f"{text}.{fraction // 10 ** (3 - digits):0{digits}d}", (ms, digits)
    for value in [0, 5, -5, 10, -10, 99, 100, -100, 12_345, -12_345] + [rng.randrange(-10_000_000, 10_000_000)
                                                                           for _ in range(3000)]:
        for digits in (0, 1, 2):
            units = abs(value) // 10 ** (2 - digits)
            expected = f"{'-' if value < 0 else ''}{units // 10 ** digits}.{units % 10 ** digits:0{digits}d}"
            assert eval_text(False, value, digits) == expected, (value, digits)


def test_tag_facts_by_index_are_those_by_name() -> None:
    """The tag coder reads a known name's kind, error label, derived index and player flag by its index in TAG_NAMES;
    each table holds what the dictionaries by name give (an unknown name still goes through those)."""
    from plybits.recordvalues import KIND_TEXT, TAG_KIND, value_what

    for i, name in enumerate(TAG_NAMES):
        assert recordtags._KIND_AT[i] == TAG_KIND.get(name, KIND_TEXT), name
        assert recordtags._WHAT_AT[i] == value_what(name) == f"tag {name!r} value"
        assert recordtags._DERIVED_AT[i] == recordtags.DERIVED_INDEX.get(name, -1), name
        assert recordtags._PLAYER_AT[i] == (name in recordtags._PLAYERS), name
    assert len(recordtags._KIND_AT) == len(recordtags._WHAT_AT) == len(TAG_NAMES)


class _NoCopy:
    """A start position that refuses to be copied (it writes its moves as the standard position does)."""

    def __init__(self) -> None:
        self.board = GAME.position(None)

    def copy(self) -> Any:
        raise AssertionError("copied")

    def move_text(self, move: Any, notation: str | None = None) -> str:
        return self.board.move_text(move, notation)


def test_eco_start_is_the_class_of_the_first_two_sans_and_plays_the_second_only_where_one_is_named():
    """Version 3's ECO context: the class of the first two plies' SAN (check marks off) where
    recorddictionary.ECO_STARTS names it, else of the first (14 for another, 0 for none), as a plain definition
    reads it on real games; the start is copied and the first move played only when the first ply opens a two-ply
    class (e4, d4): after 1.c4 or 1.Nf3 it is not (it failed before: every game copied its start)."""
    from plybits.recorddictionary import ECO_STARTS
    from plybits.recordmodels import ECO_OTHER_START, FinalPosition

    def plain(start: Any, moves: list[Any]) -> int:
        position, sans = start.copy(), []
        for move in moves[:2]:
            sans.append(position.move_text(move, None).rstrip("+#"))
            position.push(move)
        if not sans:
            return 0
        return ECO_STARTS.get(" ".join(sans), ECO_STARTS.get(sans[0], ECO_OTHER_START))

    text = shared_data("chess", "twic0920.pgn").read_text(encoding="utf-8", errors="replace")
    records = list(GAME.split_records(text))[:200]
    seen = Counter()
    for record in records:
        replay = plybits.read_record("chess", record=record)
        for plies in (0, 1, 2, len(replay.moves)):
            moves = replay.moves[:plies]
            found = FinalPosition(replay.start_position, moves, None).eco_start()
            assert found == plain(replay.start_position, moves), (record[:80], plies)
            cached = FinalPosition(replay.start_position, moves, None)
            cached.sans()
            assert cached.eco_start() == found
            seen[found] += 1
    assert len(seen) >= 8  # e4 e5, e4 c5, d4 Nf6, c4, Nf3, ... all met
    for first, expected in (("c2c4", 12), ("g1f3", 13), ("b2b3", ECO_OTHER_START)):
        moves = plybits.read_record("chess", moves=[first, "e7e5"], notation="uci").moves
        assert FinalPosition(_NoCopy(), moves, None).eco_start() == expected  # type: ignore[arg-type]


def test_a_section_read_with_context_gives_back_its_own_tags_alone():
    """Tags kept outside the section (an archive's columns) predict its values but are not among the tags read; with
    no context the section's tags are the state's (one dictionary)."""
    scheme = get_scheme("chess", "rank")
    replay = plybits.read_record("chess", moves=["e4", "e5"])
    tags = {"Event": "Rated Blitz game", "White": "a", "Black": "b", "Result": "1-0", "UTCDate": "2020.01.01"}
    context = {"TimeControl": "60+0", "Date": "2020.01.01", "Result": "1-0"}
    for given in (context, None):
        data = write_section(scheme, replay.start_position, replay.moves, Notes(result="1-0"), tags, context=given,
                             tags_only=True)
        notes, read = read_section(scheme, replay.start_position, replay.moves, data, max_plies=10, context=given,
                                   tags_only=True)
        assert read == tags and notes.result == "1-0"
