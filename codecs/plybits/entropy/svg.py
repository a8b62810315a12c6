"""New Entropy drawn as SVG: the 7x7 board, coloured chips, and each round's score."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from plybits.entropy.board import GEOMETRY, TURNS_PER_ROUND, Board
from plybits.mailbox import Geometry
from plybits.svg import FONT, LAST_FILL, Drawing, square_labels

LAST_NOTATION: Final = "tokens"
"""The notation whose move text names the move's cells (``Rd4d7``), for ``last=``."""

CELL: Final = 60
MARGIN: Final = 28
PANEL: Final = 62
SIZE: Final = 7 * CELL

CHIP_FILL: Final = {"R": "#d62828", "G": "#2a9d4b", "O": "#f08a24", "B": "#2767c4", "Y": "#f4d03f",
                    "W": "#fbfbf8", "K": "#23232b"}
"""Fill of each colour's chip."""
DARK_CHIPS: Final = frozenset("RGBK")
"""Chips whose letter is written in white."""


def geometry(position: Board) -> Geometry:
    """The board geometry (cells a1..g7)."""
    return GEOMETRY


def board(
    position: Board, *, last: Sequence[tuple[int, int]] = (), flip: bool = False, size: int | None = None
) -> str:
    """``position`` as SVG: chips are ``<g class="piece chip">`` with ``data-cell`` and ``data-symbol``."""
    width, height = SIZE + 2 * MARGIN, SIZE + 2 * MARGIN + PANEL
    d = Drawing(width, height, size=size, flip=flip, title=f"entropy {position.fen()}",
                board=(MARGIN, MARGIN, SIZE, SIZE))
    d.rect(0, 0, width, height, fill="#f4f1ea", fixed=True)
    d.rect(MARGIN, MARGIN, SIZE, SIZE, fill="#e3ddd0", stroke="#8a8170", stroke_width=2)

    def corner(file: int, rank: int) -> tuple[float, float]:
        return MARGIN + file * CELL, MARGIN + (6 - rank) * CELL

    with d.group(class_="grid", stroke="#b3a994", stroke_width=1):
        for k in range(1, 7):
            d.line(MARGIN + k * CELL, MARGIN, MARGIN + k * CELL, MARGIN + SIZE)
            d.line(MARGIN, MARGIN + k * CELL, MARGIN + SIZE, MARGIN + k * CELL)
    for file, rank in last:
        x, y = corner(file, rank)
        d.rect(x + 1, y + 1, CELL - 2, CELL - 2, class_="last", fill=LAST_FILL, fill_opacity=0.55)
    square_labels(d, "abcdefg", "1234567", MARGIN, MARGIN, CELL, file_y=MARGIN * 1.5 + SIZE, rank_x=MARGIN / 2)

    for file, rank, symbol in position.occupied():
        x, y = corner(file, rank)
        name = GEOMETRY.name(GEOMETRY.index(file, rank))
        with d.group(class_="piece chip", data_cell=name, data_symbol=symbol):
            d.rect(x + 6, y + 6, CELL - 12, CELL - 12, rx=9, fill=CHIP_FILL[symbol], stroke="#3b3b3b",
                   stroke_width=1.5)
            d.text(x + CELL / 2, y + CELL / 2, symbol, font_family=FONT, font_size=20, font_weight="bold",
                   fill="#fff" if symbol in DARK_CHIPS else "#222")

    status = position.status()
    scores = list(status.get("scores") or [])
    turn = f"turn {position.turn + 1} of {TURNS_PER_ROUND}" if status["status"] == "ongoing" else "game over"
    rounds = "  ·  ".join(
        f"round {n}: {scores[n - 1] if n <= len(scores) else '—'}" for n in (1, 2)
    )
    y = SIZE + 2 * MARGIN
    with d.group(class_="scores", font_family=FONT, fill="#333"):
        d.text(width / 2, y + 16, rounds, fixed=True, font_size=18, font_weight="bold")
        live = "" if status["status"] != "ongoing" else f" · board scores {position.score()} now"
        d.text(width / 2, y + 42, f"round {status.get('round', 1)}, {turn}{live}", fixed=True, font_size=15)
    return d.to_string()
