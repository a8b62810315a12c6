"""What every benchmark shares: the ``--write`` option, the load average, and its BENCHMARKS.md section."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "BENCHMARKS.md"


def load_average() -> float:
    """The one-minute load average of the machine."""
    return os.getloadavg()[0]


def add_write_option(parser: argparse.ArgumentParser, name: str) -> None:
    """Add ``--write``: put the printed section into BENCHMARKS.md between the ``name`` markers."""
    parser.add_argument("--write", action="store_true", help=f"put the section into BENCHMARKS.md between the {name} markers")


def write_section(name: str, section: str, path: Path = BENCHMARKS) -> None:
    """Replace what stands between ``<!-- name:start -->`` and ``<!-- name:end -->`` in ``path`` by ``section``.

    :raises SystemExit: when the markers are missing.
    """
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = path.read_text(encoding="utf-8")
    if start not in text or end not in text.split(start, 1)[1]:
        raise SystemExit(f"{path}: no {start} ... {end} markers")
    before, rest = text.split(start, 1)
    _, after = rest.split(end, 1)
    path.write_text(f"{before}{start}\n{section}\n{end}{after}", encoding="utf-8")


def publish(name: str, section: str, write: bool) -> None:
    """Print ``section``, and with ``write`` also put it into BENCHMARKS.md between the ``name`` markers."""
    print(section)
    if write:
        write_section(name, section)
