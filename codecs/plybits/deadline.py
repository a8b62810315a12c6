"""A wall-clock deadline for the verbs' per-ply loops, set by a caller around a call (the service's workers).

The loops of :func:`plybits.records.read_record` (every verb that reads moves), of the ``rank`` decoder and of
writing moves call :func:`check` between plies; with no deadline set it costs one context-variable read. A loop
of cheap plies (a scheme's decode writing each move's text) may instead ask :func:`active` once and check every
:data:`EVERY` plies from ply 0.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Final

from plybits.errors import DeadlineExceededError

_END: ContextVar[tuple[float, float] | None] = ContextVar("plybits_deadline", default=None)
"""(``time.monotonic()`` at which to stop, the seconds allowed) of the current context, if any."""
EVERY: Final = 64
"""How many plies a loop of cheap plies may run between two checks (it checks at ply 0, ``EVERY``, ...): it then
runs past a deadline by at most that many plies' work (a few milliseconds at most, in pure Python)."""


@contextmanager
def deadline(end: float | None, seconds: float = 0.0) -> Iterator[None]:
    """Within the block, :func:`check` raises once ``time.monotonic()`` passes ``end`` (``None``: never).

    ``seconds`` (the budget ``end`` came from) is only quoted in the error.
    """
    token = _END.set(None if end is None else (end, seconds))
    try:
        yield
    finally:
        _END.reset(token)


def active() -> bool:
    """Whether a deadline is set in the current context: a loop that runs without one need not :func:`check`."""
    return _END.get() is not None


def check(ply: int) -> None:
    """Stop work at ``ply`` if the current deadline has passed.

    :raises DeadlineExceededError: naming the ply reached and the time allowed.
    """
    current = _END.get()
    if current is not None and time.monotonic() > current[0]:
        raise DeadlineExceededError(f"stopped at ply {ply}: the work ran past its time limit of {current[1]:g} s")
