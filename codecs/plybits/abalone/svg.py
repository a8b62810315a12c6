"""Abalone drawn as SVG: the hexagon of 61 cells, the marbles, and each side's ejected count."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from plybits.abalone.board import GEOMETRY, ROWS, WIN_EJECTED
from plybits.mailbox import Geometry
from plybits.svg import FONT, LAST_FILL, Drawing

LAST_NOTATION: Final = "abapro"
"""The notation whose move text names the move's cells (``e5e6``, ``e6e8f6``), for ``last=``."""

STEP: Final = 52
"""Distance between neighbouring cell centres."""
ROW: Final = STEP * math.sqrt(3) / 2
MARGIN: Final = 86
PANEL: Final = 56
RADIUS: Final = 22
WIDTH: Final = 8 * STEP + 2 * MARGIN
BOARD_HEIGHT: Final = 8 * ROW + 2 * MARGIN
FILL: Final = {"b": "url(#abalone-black)", "w": "url(#abalone-white)"}
DEFS: Final = (
    '<defs><radialGradient id="abalone-black" cx="0.35" cy="0.3" r="0.75">'
    '<stop offset="0" stop-color="#6b6b6b"/><stop offset="1" stop-color="#111"/></radialGradient>'
    '<radialGradient id="abalone-white" cx="0.35" cy="0.3" r="0.75">'
    '<stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#c9c9c9"/></radialGradient></defs>'
)


def geometry(position: Any) -> Geometry:
    """The board geometry (cells a1..i9; file = diagonal - 1, rank = row)."""
    return GEOMETRY


def _centre(file: float, rank: float) -> tuple[float, float]:
    """Row ``a`` at the bottom; each row up is half a step to the left, diagonals lean right."""
    return MARGIN + (file - rank / 2 + 2) * STEP, MARGIN + (8 - rank) * ROW


def board(
    position: Any, *, last: Sequence[tuple[int, int]] = (), flip: bool = False, size: int | None = None
) -> str:
    """``position`` as SVG: each marble is a ``<circle class="piece black|white">`` with ``data-cell`` and
    ``data-symbol``; the last move's cells carry class ``last``; the ejected counts are drawn under the board."""
    height = BOARD_HEIGHT + PANEL
    d = Drawing(WIDTH, height, size=size, flip=flip, title=f"abalone {position.fen()}",
                board=(0, 0, WIDTH, BOARD_HEIGHT))
    d.add(DEFS)
    d.rect(0, 0, WIDTH, height, fill="#f3efe6", fixed=True)
    cx, cy = _centre(4, 4)
    reach = 4.75 * STEP
    d.polygon([(cx + reach * math.cos(math.pi / 3 * k), cy + reach * math.sin(math.pi / 3 * k)) for k in range(6)],
              fill="#5b6b82", stroke="#3d4a5c", stroke_width=3, stroke_linejoin="round")
    for index in GEOMETRY.squares:
        d.circle(*_centre(*GEOMETRY.coords(index)), RADIUS, class_="cell", fill="#46536a")
    for file, rank in last:
        d.circle(*_centre(file, rank), RADIUS + 3, class_="last", fill=LAST_FILL, fill_opacity=0.85)

    with d.group(class_="coords", font_family=FONT, font_size=16, fill="#555"):
        for rank, letter in enumerate(ROWS):  # row letters left of each row's first cell
            d.text(*_centre(max(0, rank - 4) - 1.35, rank), letter)
        for file in range(9):  # diagonal numbers below each diagonal's lowest cell
            d.text(*_centre(file, max(0, file - 4) - 1.35), str(file + 1))

    for file, rank, symbol in position.occupied():
        colour = "black" if symbol == "b" else "white"
        name = GEOMETRY.name(GEOMETRY.index(file, rank))
        d.circle(*_centre(file, rank), RADIUS, class_=f"piece {colour}", data_cell=name, data_symbol=symbol,
                 fill=FILL[symbol], stroke="#222" if symbol == "w" else "#000", stroke_width=1)

    status = position.status()
    ejected = status.get("ejected") or {}
    y = BOARD_HEIGHT + PANEL / 2 - 6
    with d.group(class_="ejected", font_family=FONT, font_size=16, fill="#333"):
        for k, colour in enumerate(("black", "white")):
            x0 = k * WIDTH / 2 + 40
            count = int(ejected.get(colour, 0))
            d.text(x0, y, f"{colour} lost {count}", fixed=True, text_anchor="start", data_colour=colour,
                   data_count=count)
            for n in range(WIN_EJECTED):
                d.circle(x0 + 118 + n * 20, y, 7, fixed=True, fill=FILL[colour[0]] if n < count else "none",
                         stroke="#555", stroke_width=1)
        outcome = status.get("winner")
        side = position.fen().split()[1]
        note = f"{outcome} wins" if outcome else f"{'black' if side == 'b' else 'white'} to move"
        d.text(WIDTH / 2, y + 24, note, fixed=True, font_size=14, fill="#555")
    return d.to_string()
