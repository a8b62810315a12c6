"""The library and the service type-check under ``mypy --strict`` (configured in pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_finds_nothing(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # mypy reads [tool.mypy] of the project's pyproject.toml and its file list
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-error-summary"])
    assert status == 0, out + err
