"""Multi-game record files (PGN, xiangqi PGN, APGN, Entropy records): every game gets exactly one answer, in
order, numbered right, whatever its neighbours hold: over-long lines, tagless games, comments with brackets."""

from __future__ import annotations

import io
import json

import chess.pgn
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.main import create_app
from app.settings import Settings
from plybits import registry
from plybits.chess import GAME as CHESS
from plybits.errors import LimitExceededError, PlybitsError
from plybits.game import Record
from plybits.streams import record_lines, split_stream
from tests.test_abalone_apgn import GAME as ABALONE_GAME
from tests.test_abalone_apgn import PUSHES
from tests.test_service import GAMES, random_game

LINE_LIMIT = 4096

GAME_ONE = '[Event "one"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'
GAME_TWO = '[Event "two"]\n[Result "*"]\n\n1. e4 e5 2. Nf3 Nc6 *\n'
GAME_THREE = '[Event "three"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'
TAGLESS = "1. e4 e5 2. Nf3 *\n"


@pytest.fixture(scope="module")
def small_lines_client():
    with TestClient(create_app(Settings(max_line_bytes=LINE_LIMIT, access_log=False))) as client:
        yield client


def records_of(game: str, text: str, limit: int = LINE_LIMIT) -> list[str | PlybitsError]:
    """What the batch endpoints read from ``text``: lines of at most ``limit`` bytes, then records."""
    data = text.encode()
    chunks = [data[i:i + 1000] for i in range(0, len(data), 1000)]
    return list(split_stream(game, record_lines(iter(chunks), limit), max_chars=limit, ended=True))


@pytest.mark.parametrize("game", ["chess", "entropy"])
def test_lines_given_ended_are_cut_as_lines_looked_at(game: str) -> None:
    text = GAME_ONE + "\n" + TAGLESS + "\n" + GAME_TWO if game == "chess" else "a b\nc\n"
    stripped = [line.rstrip("\n") for line in text.splitlines(keepends=True)]
    assert records_of(game, text) == list(split_stream(game, stripped, max_chars=LINE_LIMIT))
    assert records_of(game, text) == list(split_stream(game, record_lines(iter([text.encode()]), LINE_LIMIT),
                                                       max_chars=LINE_LIMIT))


def python_chess_games(text: str) -> list[chess.pgn.Game]:
    games = []
    with io.StringIO(text) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def sans(game: chess.pgn.Game) -> list[str]:
    board = game.board()
    out = []
    for move in game.mainline_moves():
        out.append(board.san(move))
        board.push(move)
    return out


# ---------------------------------------------------------------- issue 13.5: a tagless game after a result

def test_a_tagless_game_after_a_result_is_a_game_of_its_own() -> None:
    text = GAME_ONE + "\n" + TAGLESS + "\n" + GAME_TWO
    theirs = python_chess_games(text)
    assert [sans(game) for game in theirs] == [["f3", "e5", "g4", "Qh4#"], ["e4", "e5", "Nf3"],
                                               ["e4", "e5", "Nf3", "Nc6"]]
    for ours in (list(CHESS.split_records(text)), records_of("chess", text)):
        assert [CHESS.parse_record(str(record)).moves for record in ours] == [sans(game) for game in theirs]


def test_a_tagless_game_through_the_batch_endpoint(small_lines_client: TestClient) -> None:
    text = GAME_ONE + "\n" + TAGLESS
    out = answers(small_lines_client, "chess", text)
    assert [o["line"] for o in out] == [1, 2]
    assert [o["result"]["valid"] for o in out] == [True, True]
    assert out[1]["result"]["plies"] == 3


# ---------------------------------------------------------------- issue 13.4: one over-long line

def answers(client: TestClient, game: str, text: str) -> list[dict]:
    reply = client.post(f"/v1/batch/validate?game={game}", content=text.encode(),
                        headers={"content-type": "text/plain"})
    assert reply.status_code == 200
    return [json.loads(line) for line in reply.text.splitlines()]


LONG_COMMENT = "{" + "x" * (2 * LINE_LIMIT) + "}\n"
LONG_TAG = '[Annotator "' + "y" * (2 * LINE_LIMIT) + '"]\n'


@pytest.mark.parametrize(
    "middle",
    [
        GAME_TWO.replace("1. e4", LONG_COMMENT + "1. e4"),  # a movetext line over the limit
        GAME_TWO.replace("1. e4 e5 2. Nf3 Nc6 *\n", LONG_COMMENT),  # the only movetext line
        GAME_TWO.replace('[Event "two"]\n', '[Event "two"]\n' + LONG_TAG),  # a tag line in the middle
        LONG_TAG + GAME_TWO,  # the first tag line, right after the previous game
        " " + LONG_TAG + GAME_TWO,  # the same, indented
        GAME_TWO.replace("\n\n", "\n\n" + LONG_COMMENT),  # a comment line before the moves
    ],
    ids=["movetext", "only-movetext", "tag", "first-tag", "first-tag-indented", "comment-line"],
)
def test_an_over_long_line_costs_its_own_game_only(small_lines_client: TestClient, middle: str) -> None:
    text = GAME_ONE + "\n" + middle + "\n" + GAME_THREE
    records = records_of("chess", text)
    assert len(records) == 3
    assert CHESS.parse_record(str(records[0])).moves == ["f3", "e5", "g4", "Qh4#"]
    assert isinstance(records[1], LimitExceededError)
    assert CHESS.parse_record(str(records[2])).tags["Event"] == "three"
    out = answers(small_lines_client, "chess", text)
    assert [o["line"] for o in out] == [1, 2, 3]
    assert out[0]["result"]["valid"] is True and out[2]["result"]["valid"] is True
    assert out[2]["result"]["plies"] == 7
    assert out[1]["error"]["status"] == 413


def test_an_over_long_line_after_a_tagless_game(small_lines_client: TestClient) -> None:
    text = GAME_ONE + "\n" + TAGLESS + "\n" + LONG_COMMENT + "1. d4 *\n\n" + GAME_THREE
    out = answers(small_lines_client, "chess", text)
    assert [o["line"] for o in out] == [1, 2, 3, 4]
    assert [o.get("result", {}).get("valid") for o in out] == [True, True, None, True]
    assert out[2]["error"]["status"] == 413


# ---------------------------------------------------------------- the batch promise, for multi-game files

def _pool(game: str) -> list[tuple[str, list[str]]]:
    """Short games of ``game`` as record texts and their move tokens: random legal games written by the game's
    own writer (standard start, so they stay valid without their tags) first, then real texts."""
    g = registry.get_game(game)
    texts = []
    for seed in range(5):
        moves, _ = random_game(g, 3 + 4 * seed, seed=500 + seed)
        texts.append(g.write_record(Record(moves=moves, tags={"Event": f"random {seed}"})))
    if game == "chess":
        texts += [GAME_ONE, GAME_THREE]
    if game == "abalone":
        texts += [ABALONE_GAME, PUSHES]
    return [(text, g.parse_record(text).moves) for text in texts]


RECORD_GAMES = [name for name in ("chess", "xiangqi", "abalone", "entropy") if name in GAMES]
POOLS = {game: _pool(game) for game in RECORD_GAMES}
SMALL_LIMIT = 512
COMMENTS = st.sampled_from(["{ [not a tag] }", "{ a comment (with a bracket ] }", "{ spans\n[two lines] }",
                            "; [rest of the line\n", "{\n\n}", "$1", "(1. xx yy)"])
GARBAGE = st.text(st.characters(codec="utf-8", exclude_characters="{}[%\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
                  min_size=1, max_size=40).filter(lambda s: s.strip() != "")


@st.composite
def record_files(draw: st.DrawFn, game: str) -> tuple[str, list[tuple[str, list[str] | None]]]:
    """A multi-game file of ``game`` and what each of its games is: ``("game", moves)``, ``("long", None)``
    for a game holding a line over :data:`SMALL_LIMIT`, ``("garbage", None)`` for one that may be refused."""
    pool = POOLS[game]
    parts: list[str] = []
    expected: list[tuple[str, list[str] | None]] = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["game", "game", "tagless", "commented", "long-comment", "long-tag", "garbage"]))
        text, moves = pool[draw(st.integers(0, 4 if kind == "tagless" else len(pool) - 1))]
        head, _, body = text.partition("\n\n")
        if kind == "tagless":
            text = body
        elif kind == "commented":
            tokens = body.split(" ")
            outside = [i for i in range(len(tokens) + 1)  # not inside a comment of the text (they do not nest)
                       if " ".join(tokens[:i]).count("{") == " ".join(tokens[:i]).count("}")]
            at = draw(st.sampled_from(outside))
            text = head + "\n\n" + " ".join([*tokens[:at], draw(COMMENTS), *tokens[at:]])
        elif kind == "long-comment":
            text = head + "\n\n{" + "x" * SMALL_LIMIT + "}\n" + body
        elif kind == "long-tag":
            text = '[Annotator "' + "y" * SMALL_LIMIT + '"]\n' + text
        elif kind == "garbage":
            text = "\n".join(draw(st.lists(GARBAGE, min_size=1, max_size=3))) + "\n"
        expected.append(("long", None) if kind.startswith("long") else ("garbage", None) if kind == "garbage"
                        else ("game", moves))
        # a game without tags starts after a blank line (as python-chess reads it); a tagged one may follow at once
        blank = kind in ("tagless", "garbage") or not parts
        parts.append(draw(st.sampled_from(["\n", "\n\n", " \n"] if blank else ["", "\n", " \n"])))
        parts.append(text if text.endswith("\n") else text + "\n")
    text = "".join(parts)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text, expected


def chunked(text: str, cut: int) -> list[bytes]:
    data = text.encode()
    return [data[i:i + cut] for i in range(0, len(data), cut)]


def check_answers(game: str, expected: list[tuple[str, list[str] | None]], answers: list[str | PlybitsError]) -> None:
    assert len(answers) == len(expected), (answers, expected)
    g = registry.get_game(game)
    for (kind, moves), answer in zip(expected, answers):
        if kind == "long":
            assert isinstance(answer, LimitExceededError)
        elif kind == "game":
            assert isinstance(answer, str), answer
            assert g.parse_record(answer).moves == moves


@pytest.mark.parametrize("game", RECORD_GAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), cut=st.integers(1, 700))
def test_every_game_of_any_file_gets_one_answer(game: str, data: st.DataObject, cut: int) -> None:
    text, expected = data.draw(record_files(game))
    answers = list(split_stream(game, record_lines(iter(chunked(text, cut)), SMALL_LIMIT), max_chars=1 << 20))
    check_answers(game, expected, answers)


@pytest.fixture(scope="module")
def tiny_lines_client():
    with TestClient(create_app(Settings(max_line_bytes=SMALL_LIMIT, access_log=False))) as client:
        yield client


@pytest.mark.parametrize("game", RECORD_GAMES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_game_of_any_file_gets_one_answer_from_the_service(tiny_lines_client: TestClient, game: str,
                                                                 data: st.DataObject) -> None:
    text, expected = data.draw(record_files(game))
    out = answers(tiny_lines_client, game, text)
    assert [o["line"] for o in out] == list(range(1, len(expected) + 1))
    for (kind, moves), o in zip(expected, out):
        if kind == "long":
            assert o["error"]["status"] == 413
        elif kind == "game":
            assert o["result"]["valid"] is True and o["result"]["plies"] == len(moves or [])
