"""Shared fixtures: the real game collections in ../shared/data (skipped, visibly, when absent) and the app."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("PLYBITS_SHARED_DATA", ROOT.parent / "shared" / "data"))
QUICK = os.environ.get("PLYBITS_QUICK") == "1"
"""``PLYBITS_QUICK=1`` samples the slowest whole-collection proofs instead of running every game (for a
fast local loop); ``make test`` and CI run them in full."""


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data; skips the calling test with a visible reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real game collection {path} is absent (it lives in ../shared/data beside the repo)")
    return path


def peer_chess_finals(path: Path, limit: int | None = None) -> list[str]:
    """The final FEN of each game (the first ``limit``) of a PGN file, as python-chess reads it."""
    import chess.pgn

    finals: list[str] = []
    with open(path, encoding="utf-8") as handle:
        while (limit is None or len(finals) < limit) and (game := chess.pgn.read_game(handle)) is not None:
            finals.append(game.end().board().fen())
    return finals


@pytest.fixture(scope="session")
def client():
    """An in-process client of the app (for a real server see the load and browser tests)."""
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.settings import Settings

    with TestClient(create_app(Settings())) as test_client:
        yield test_client
