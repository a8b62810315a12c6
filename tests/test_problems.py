"""The problem+json answer of every library error: the HTTP side of an error lives in app/errors.py only."""

from __future__ import annotations

import inspect
import json

import pytest

from app.errors import PROBLEM_BASE, PROBLEM_KINDS, problem_body
from app.limits import BodyTooLargeError
from plybits import errors, registry
from tests.test_service import GAMES, random_game, seed_scheme

# What each class answered when the library classes carried their own status, type and title (before issue
# 12, point 4): the bodies must not change.
ANSWERED = {
    errors.PlybitsError: (422, "plybits-error", "Invalid input"),
    errors.InvalidMoveError: (422, "invalid-move", "Invalid move syntax"),
    errors.IllegalMoveError: (422, "illegal-move", "Illegal move"),
    errors.AmbiguousMoveError: (422, "ambiguous-move", "Ambiguous move"),
    errors.InvalidPositionError: (422, "invalid-position", "Invalid position"),
    errors.InvalidRecordError: (422, "invalid-record", "Invalid record"),
    errors.InvalidDataError: (422, "invalid-data", "Invalid encoded data"),
    errors.UnknownCodecError: (422, "unknown-codec", "Unknown game, scheme or notation"),
    errors.UnsupportedError: (422, "unsupported", "Not representable"),
    errors.LimitExceededError: (413, "limit-exceeded", "Limit exceeded"),
    # Added since (issue 13): work stopped at its deadline.
    errors.DeadlineExceededError: (503, "deadline-exceeded", "Time limit exceeded"),
}
LIBRARY_ERRORS = [cls for _, cls in inspect.getmembers(errors, inspect.isclass) if issubclass(cls, errors.PlybitsError)]


@pytest.mark.parametrize("cls", LIBRARY_ERRORS, ids=lambda cls: cls.__name__)
def test_every_library_error_answers_as_before(cls: type[errors.PlybitsError]) -> None:
    status, kind, title = ANSWERED[cls]
    assert problem_body(cls("bad thing", ply=3, move="Zz9")) == {
        "type": PROBLEM_BASE + kind, "title": title, "status": status, "detail": "ply 3, move 'Zz9': bad thing",
        "ply": 3, "move": "Zz9",
    }
    assert problem_body(cls("bad thing")) == {"type": PROBLEM_BASE + kind, "title": title, "status": status,
                                              "detail": "bad thing"}
    assert cls in PROBLEM_KINDS  # every class is listed, not left to its ancestor by accident


@pytest.mark.parametrize("cls", LIBRARY_ERRORS, ids=lambda cls: cls.__name__)
def test_library_errors_say_nothing_about_http(cls: type[errors.PlybitsError]) -> None:
    assert not {"status", "problem_type", "title"} & set(dir(cls))


def test_a_subclass_answers_as_its_nearest_listed_ancestor() -> None:
    class TooManyCaptures(errors.AmbiguousMoveError):
        pass

    assert problem_body(TooManyCaptures("x"))["type"] == PROBLEM_BASE + "ambiguous-move"
    over = problem_body(BodyTooLargeError("too big"))
    assert (over["status"], over["type"]) == (413, PROBLEM_BASE + "limit-exceeded")


@pytest.mark.parametrize("game", GAMES)
def test_an_unknown_notation_is_one_problem_on_every_endpoint(client, game: str) -> None:
    moves, _ = random_game(registry.get_game(game), 6, seed=5)
    data = client.post("/v1/encode", json={"game": game, "scheme": seed_scheme(game), "moves": moves}).json()["data"]
    requests = [
        ("/v1/encode", {"game": game, "scheme": seed_scheme(game), "moves": moves, "notation": "klingon"}),
        ("/v1/decode", {"data": data, "notation": "klingon"}),
        ("/v1/validate", {"game": game, "moves": moves, "notation": "klingon"}),
        ("/v1/convert", {"game": game, "moves": moves, "from_notation": "klingon"}),
        ("/v1/convert", {"game": game, "moves": moves, "to_notation": "klingon"}),
        ("/v1/moves", {"game": game, "moves": moves, "notation": "klingon"}),
        ("/v1/replay", {"game": game, "moves": moves, "notation": "klingon"}),
    ]
    expected = {
        "type": PROBLEM_BASE + "unknown-codec", "title": "Unknown game, scheme or notation", "status": 422,
        "detail": f"unknown notation 'klingon' for {game}; known: {', '.join(registry.get_game(game).notations)}",
    }
    for path, body in requests:
        r = client.post(path, json=body)
        assert (r.status_code, r.json()) == (422, expected), (path, body)
    r = client.post("/v1/batch/validate", content=json.dumps(requests[2][1]) + "\n",
                    headers={"Content-Type": "application/x-ndjson"})
    assert [json.loads(line) for line in r.text.splitlines()] == [{"line": 1, "error": expected}]
