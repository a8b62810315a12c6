"""Exceptions raised by plybits, each naming the bad input.

Every error is a :class:`PlybitsError`; the service turns one into a
problem+json body using :attr:`PlybitsError.problem_type`, :attr:`PlybitsError.status`
and, where known, the 0-based :attr:`PlybitsError.ply` and the offending :attr:`PlybitsError.move`.
"""

from __future__ import annotations


class PlybitsError(Exception):
    """Base class of every error plybits raises on bad input."""

    problem_type = "plybits-error"
    title = "Invalid input"
    status = 422

    def __init__(self, reason: str, *, ply: int | None = None, move: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.ply = ply
        self.move = move

    def at(self, ply: int, move: str | None = None) -> PlybitsError:
        """Return this error located at a 0-based ply (and move text), for re-raising."""
        self.ply = ply
        if move is not None:
            self.move = move
        return self

    def __str__(self) -> str:
        where = []
        if self.ply is not None:
            where.append(f"ply {self.ply}")
        if self.move is not None:
            where.append(f"move {self.move!r}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason


class InvalidMoveError(PlybitsError, ValueError):
    """A move's text is not syntactically valid in its notation."""

    problem_type = "invalid-move"
    title = "Invalid move syntax"


class IllegalMoveError(PlybitsError, ValueError):
    """A move is well formed but not legal in its position."""

    problem_type = "illegal-move"
    title = "Illegal move"


class AmbiguousMoveError(InvalidMoveError):
    """A move's text matches more than one legal move."""

    problem_type = "ambiguous-move"
    title = "Ambiguous move"


class InvalidPositionError(PlybitsError, ValueError):
    """A start position (FEN, position string or layout name) cannot be read."""

    problem_type = "invalid-position"
    title = "Invalid position"


class InvalidRecordError(PlybitsError, ValueError):
    """A game record (PGN, APGN, ...) cannot be read."""

    problem_type = "invalid-record"
    title = "Invalid record"


class InvalidDataError(PlybitsError, ValueError):
    """Encoded bytes or bits are malformed, truncated, corrupted or out of range."""

    problem_type = "invalid-data"
    title = "Invalid encoded data"


class UnknownCodecError(PlybitsError, LookupError):
    """No game, scheme, notation or model version of that name or id is known."""

    problem_type = "unknown-codec"
    title = "Unknown game, scheme or notation"


class UnsupportedError(PlybitsError, ValueError):
    """The input is valid but this scheme or notation cannot carry it."""

    problem_type = "unsupported"
    title = "Not representable"


class LimitExceededError(PlybitsError):
    """A configured limit (plies, body size, lines, games) was exceeded."""

    problem_type = "limit-exceeded"
    title = "Limit exceeded"
    status = 413


class DeadlineExceededError(PlybitsError):
    """Work ran past the time its caller allowed it (see :mod:`plybits.deadline`)."""

    problem_type = "deadline-exceeded"
    title = "Time limit exceeded"
    status = 503
