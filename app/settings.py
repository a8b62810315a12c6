"""Service limits and options, read once from the environment (documented in the README)."""

from __future__ import annotations

import os
from dataclasses import dataclass


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"environment variable {name}={raw!r} is not an integer") from None
    if value <= 0:
        raise ValueError(f"environment variable {name}={raw!r} must be positive")
    return value


@dataclass(frozen=True)
class Settings:
    """Hard limits on what one request may ask for."""

    max_body_bytes: int = 1 << 20
    """Largest request body of a single (non-batch) request."""
    max_plies: int = 20_000
    """Most plies in one record, sent or decoded."""
    max_batch_lines: int = 1_000_000
    """Most lines (or games) in one batch request."""
    max_line_bytes: int = 1 << 20
    """Largest single line (or game) of a batch request."""

    @classmethod
    def from_env(cls) -> Settings:
        """Settings from ``PLYBITS_*`` environment variables, defaults elsewhere."""
        return cls(
            max_body_bytes=_int_env("PLYBITS_MAX_BODY_BYTES", cls.max_body_bytes),
            max_plies=_int_env("PLYBITS_MAX_PLIES", cls.max_plies),
            max_batch_lines=_int_env("PLYBITS_MAX_BATCH_LINES", cls.max_batch_lines),
            max_line_bytes=_int_env("PLYBITS_MAX_LINE_BYTES", cls.max_line_bytes),
        )
