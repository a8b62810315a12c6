"""Xiangqi drawn as SVG: 9x10 intersections, the river, both palaces, and pieces with their Chinese names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from plybits.mailbox import Geometry
from plybits.svg import FONT, LAST_FILL, Drawing, square_labels
from plybits.xiangqi.board import GEOMETRY

LAST_NOTATION: Final = "iccs"
"""The notation whose move text names the move's points (``h2e2``), for ``last=``."""

STEP: Final = 56
MARGIN: Final = 60
WIDTH: Final = 8 * STEP
HEIGHT: Final = 9 * STEP
RADIUS: Final = 25

NAMES: Final = {
    "R": "車", "N": "馬", "B": "相", "A": "仕", "K": "帥", "C": "炮", "P": "兵",
    "r": "車", "n": "馬", "b": "象", "a": "士", "k": "將", "c": "砲", "p": "卒",
}
"""The Chinese name of each FEN letter: red (upper case) and black (lower case) names differ for five kinds."""
ALIASES: Final = {"E": "B", "H": "N", "e": "b", "h": "n"}
"""Other letters some files use for the elephant and the horse."""
CJK_FONT: Final = ("WenQuanYi Micro Hei, WenQuanYi Zen Hei, Noto Sans CJK SC, Noto Serif CJK SC, "
                   "Source Han Sans SC, SimSun, Songti SC, serif")
RED: Final = "#c0271d"
BLACK: Final = "#1d1d1d"
LINE: Final = "#6b4a1f"


def geometry(position: Any) -> Geometry:
    """The board geometry (points a0..i9, rank 0 on red's side)."""
    return GEOMETRY


def _point(file: int, rank: int) -> tuple[float, float]:
    return MARGIN + file * STEP, MARGIN + (9 - rank) * STEP


def board(
    position: Any, *, last: Sequence[tuple[int, int]] = (), flip: bool = False, size: int | None = None
) -> str:
    """``position`` as SVG: each piece is a ``<g class="piece red|black">`` with ``data-cell`` and ``data-symbol``;
    the last move's points carry class ``last``."""
    width, height = WIDTH + 2 * MARGIN, HEIGHT + 2 * MARGIN
    d = Drawing(width, height, size=size, flip=flip, title=f"xiangqi {position.fen()}",
                board=(MARGIN, MARGIN, WIDTH, HEIGHT))
    d.rect(0, 0, width, height, fill="#e9c88f", fixed=True)

    with d.group(class_="lines", stroke=LINE, stroke_width=1.6, fill="none"):
        d.rect(MARGIN - 5, MARGIN - 5, WIDTH + 10, HEIGHT + 10, stroke_width=3)
        for rank in range(10):
            d.line(*_point(0, rank), *_point(8, rank))
        for file in range(9):
            if file in (0, 8):
                d.line(*_point(file, 0), *_point(file, 9))
            else:  # the river cuts the inner files
                d.line(*_point(file, 0), *_point(file, 4))
                d.line(*_point(file, 5), *_point(file, 9))
        for low in (0, 7):  # the palaces' diagonals
            d.line(*_point(3, low), *_point(5, low + 2))
            d.line(*_point(5, low), *_point(3, low + 2))
    river_y = MARGIN + 4.5 * STEP
    with d.group(class_="river", font_family=CJK_FONT, font_size=30, fill=LINE):
        d.text(MARGIN + 2 * STEP, river_y, "楚 河", fixed=True)
        d.text(MARGIN + 6 * STEP, river_y, "漢 界", fixed=True)
    square_labels(d, "abcdefghi", "0123456789", MARGIN - STEP / 2, MARGIN - STEP / 2, STEP,
                  file_y=height - 15, rank_x=15, fill=LINE)

    for file, rank in last:
        d.circle(*_point(file, rank), RADIUS + 3, class_="last", fill=LAST_FILL, fill_opacity=0.75)

    for file, rank, symbol in position.occupied():
        letter = ALIASES.get(symbol, symbol)
        red = letter.isupper()
        colour = RED if red else BLACK
        x, y = _point(file, rank)
        name = GEOMETRY.name(GEOMETRY.index(file, rank))
        with d.group(class_=f"piece {'red' if red else 'black'}", data_cell=name, data_symbol=symbol):
            d.circle(x, y, RADIUS, fill="#fbefd5", stroke=colour, stroke_width=2)
            d.circle(x, y, RADIUS - 4, fill="none", stroke=colour, stroke_width=1)
            d.text(x, y, NAMES[letter], font_family=CJK_FONT, font_size=28, fill=colour, font_weight="bold")
    return d.to_string()


__all__ = ["FONT", "LAST_NOTATION", "NAMES", "board", "geometry"]
