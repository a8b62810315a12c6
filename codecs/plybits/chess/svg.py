"""Chess drawn as SVG: the 8x8 board, coordinates, and pieces as Unicode chess glyphs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from plybits.chess.board import Board
from plybits.chess.squares import GEOMETRY, KING, WHITE
from plybits.mailbox import Geometry
from plybits.svg import LAST_FILL, Drawing, square_labels

LAST_NOTATION: Final = "uci"
"""The notation whose move text names the move's cells (``e2e4``), for ``last=``."""

SQUARE: Final = 60
MARGIN: Final = 24
LIGHT: Final = "#f0d9b5"
DARK: Final = "#b58863"
GLYPHS: Final = {"k": "\u265a", "q": "\u265b", "r": "\u265c", "b": "\u265d", "n": "\u265e", "p": "\u265f"}
"""The solid glyph of each piece letter; white pieces are the same shape filled white."""
TEXT_STYLE: Final = "\ufe0e"
"""Variation selector asking for the text (not emoji) form of a glyph."""
PIECE_FONT: Final = "DejaVu Sans, Noto Sans Symbols2, Segoe UI Symbol, FreeSerif, serif"
NAMES: Final = {"k": "king", "q": "queen", "r": "rook", "b": "bishop", "n": "knight", "p": "pawn"}


def geometry(position: Board) -> Geometry:
    """The board geometry (squares a1..h8)."""
    return GEOMETRY


def board(
    position: Board, *, last: Sequence[tuple[int, int]] = (), flip: bool = False, size: int | None = None
) -> str:
    """``position`` as SVG: each piece is a ``<text class="piece ...">`` with ``data-cell`` and ``data-symbol``;
    the last move's squares carry class ``last``, a king in check class ``check``."""
    side = 8 * SQUARE + 2 * MARGIN
    d = Drawing(side, side, size=size, flip=flip, title=f"chess {position.fen()}",
                board=(MARGIN, MARGIN, 8 * SQUARE, 8 * SQUARE))
    d.rect(0, 0, side, side, fill="#3c3a36", fixed=True)

    def corner(file: int, rank: int) -> tuple[float, float]:
        return MARGIN + file * SQUARE, MARGIN + (7 - rank) * SQUARE

    with d.group(class_="squares"):
        for rank in range(8):
            for file in range(8):
                x, y = corner(file, rank)
                d.rect(x, y, SQUARE, SQUARE, fill=DARK if (file + rank) % 2 == 0 else LIGHT)
    for file, rank in last:
        x, y = corner(file, rank)
        d.rect(x, y, SQUARE, SQUARE, class_="last", fill=LAST_FILL, fill_opacity=0.5)
    if position.is_check():
        king = next(s for s in position.occupied() if s[2] == ("K" if position.turn == WHITE else "k"))
        x, y = corner(king[0], king[1])
        d.circle(x + SQUARE / 2, y + SQUARE / 2, SQUARE * 0.46, class_="check", fill="#e53935", fill_opacity=0.6)
    square_labels(d, "abcdefgh", "12345678", MARGIN, MARGIN, SQUARE, file_y=side - MARGIN / 2, rank_x=MARGIN / 2,
                  fill="#e8e4dc")

    for file, rank, symbol in position.occupied():
        x, y = corner(file, rank)
        white = symbol.isupper()
        d.text(
            x + SQUARE / 2, y + SQUARE / 2, GLYPHS[symbol.lower()] + TEXT_STYLE, dy=SQUARE * 0.04,
            class_=f"piece {'white' if white else 'black'} {NAMES[symbol.lower()]}",
            data_cell=GEOMETRY.name(GEOMETRY.index(file, rank)), data_symbol=symbol,
            font_family=PIECE_FONT, font_size=SQUARE * 0.8,
            fill="#fff" if white else "#111", stroke="#111" if white else "#fff",
            stroke_width=1.4 if white else 0.6, paint_order="stroke",
        )
    return d.to_string()


__all__ = ["KING", "LAST_NOTATION", "board", "geometry"]
