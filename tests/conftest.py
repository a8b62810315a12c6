"""Shared fixtures: the real game collections in ../shared/data (skipped, visibly, when absent) and the app."""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("PLYBITS_SHARED_DATA", ROOT.parent / "shared" / "data"))
QUICK = os.environ.get("PLYBITS_QUICK") == "1"
"""``PLYBITS_QUICK=1`` samples the slowest whole-collection proofs more thinly (a fast local loop, and the pure-Python
pass), or leaves the slowest to the default run."""
FULL = os.environ.get("PLYBITS_FULL") == "1" and not QUICK
"""``PLYBITS_FULL=1`` runs the peer suites over every real game and every ply; by default (``make test``, plain
``pytest``) they check a fixed sample of them (:func:`sample`), which keeps the suite within its 20 minutes."""

T = TypeVar("T")


def sample(items: Sequence[T], share: float, seed: str, least: int = 1) -> list[T]:
    """A fixed sample of ``items``, in their order: ``share`` of them (at least ``least``), chosen by a generator
    seeded with ``seed`` (the same games on every run and machine); all of them under ``PLYBITS_FULL=1``."""
    if FULL or share >= 1 or len(items) <= least:
        return list(items)
    count = max(least, round(len(items) * share))
    chosen = sorted(random.Random(seed).sample(range(len(items)), count))
    return [items[i] for i in chosen]


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
