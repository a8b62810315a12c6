"""The problem+json answer of every library error: the HTTP side of an error lives in app/errors.py only."""

from __future__ import annotations

import inspect

import pytest

from app.errors import PROBLEM_BASE, PROBLEM_KINDS, problem_body
from app.limits import BodyTooLargeError
from plybits import errors

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
