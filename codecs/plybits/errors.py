"""Exceptions raised by plybits, each naming the bad input.

Every error is a :class:`PlybitsError` carrying its :attr:`~PlybitsError.reason` and, where known, the
0-based :attr:`~PlybitsError.ply` and the offending :attr:`~PlybitsError.move`. The classes say nothing
about HTTP: the service maps each to its problem type and status (``app/errors.py``).
"""

from __future__ import annotations


class PlybitsError(Exception):
    """Base class of every error plybits raises on bad input."""

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


class IllegalMoveError(PlybitsError, ValueError):
    """A move is well formed but not legal in its position."""


class AmbiguousMoveError(InvalidMoveError):
    """A move's text matches more than one legal move."""


class InvalidPositionError(PlybitsError, ValueError):
    """A start position (FEN, position string or layout name) cannot be read."""


class InvalidRecordError(PlybitsError, ValueError):
    """A game record (PGN, APGN, ...) cannot be read."""


class InvalidDataError(PlybitsError, ValueError):
    """Encoded bytes or bits are malformed, truncated, corrupted or out of range."""


class UnknownCodecError(PlybitsError, LookupError):
    """No game, scheme, notation or model version of that name or id is known."""


class UnsupportedError(PlybitsError, ValueError):
    """The input is valid but this scheme or notation cannot carry it."""


class LimitExceededError(PlybitsError):
    """A configured limit (plies, body size, lines, games) was exceeded."""


class DeadlineExceededError(PlybitsError):
    """Work ran past the time its caller allowed it (see :mod:`plybits.deadline`)."""
