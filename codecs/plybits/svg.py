"""Boards as SVG: a small document builder shared by every game's renderer, and :func:`render`.

Each game draws itself with a :class:`~plybits.game.Renderer` built on :class:`Drawing` (by convention its
``plybits.<game>.svg`` module, which its :attr:`~plybits.game.Game.renderer` declares), whose function
``board(position, *, last=(), flip=False, size=None) -> str`` draws a position.
Coordinates are user units of a fixed viewBox; ``size`` only sets the pixel width
(the height follows the aspect ratio), so a board scales without being redrawn.
``flip`` turns the board by 180 degrees: shapes move, text stays upright::

    >>> d = Drawing(100, 50, size=200, flip=True)
    >>> d.circle(10, 10, 5, class_="piece")
    >>> print(d.to_string())  # doctest: +ELLIPSIS
    <svg ... width="200" height="100" viewBox="0 0 100 50"><circle cx="90" cy="40" r="5" class="piece"/></svg>
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from plybits.errors import InvalidMoveError, InvalidPositionError, UnsupportedError
from plybits.game import Renderer
from plybits.mailbox import Geometry
from plybits.registry import get_game

MIN_SIZE = 16
MAX_SIZE = 4096
"""Bounds of the pixel width a caller may ask for."""

LAST_FILL = "#f2d024"
"""Fill of a highlighted last-move cell (drawn with opacity under the pieces)."""

SVG_NS = "http://www.w3.org/2000/svg"
FONT = "DejaVu Sans, Noto Sans, Arial, sans-serif"
"""Font stack of labels and Western piece letters."""

_CELL = re.compile(r"[a-z]\d+")


def escape(text: object) -> str:
    """``text`` made safe for XML character data and attribute values."""
    return (
        str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace('"', "&quot;").replace("'", "&#39;")
    )


def _number(value: float) -> str:
    """A coordinate written short: integers without a decimal point, others to 2 places."""
    rounded = round(float(value), 2)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"


def _attributes(attrs: dict[str, Any]) -> str:
    """``key="value"`` pairs; ``class_`` becomes ``class``, other underscores hyphens; ``None`` is left out."""
    out = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = "class" if key == "class_" else key.rstrip("_").replace("_", "-")
        if isinstance(value, float):
            value = _number(value)
        out.append(f' {name}="{escape(value)}"')
    return "".join(out)


class Drawing:
    """An SVG document of ``width`` x ``height`` user units, turned by 180 degrees when ``flip``.

    :raises UnsupportedError: if ``size`` is outside ``MIN_SIZE..MAX_SIZE``.
    """

    def __init__(
        self,
        width: float,
        height: float,
        *,
        size: int | None = None,
        flip: bool = False,
        title: str | None = None,
        board: tuple[float, float, float, float] | None = None,
    ) -> None:
        if size is not None and not MIN_SIZE <= size <= MAX_SIZE:
            raise UnsupportedError(f"size {size!r} is outside {MIN_SIZE}..{MAX_SIZE} pixels")
        self.width = width
        self.height = height
        self.size = size
        self.flip = flip
        self.title = title
        self.board = board or (0, 0, width, height)
        """``(x, y, width, height)`` of the area turned by ``flip`` (the whole drawing by default)."""
        self._parts: list[str] = []

    def point(self, x: float, y: float, fixed: bool = False) -> tuple[float, float]:
        """Where the board point ``(x, y)`` is drawn: turned around the board area's centre when flipped,
        unless ``fixed`` (for the frame: labels, score panels)."""
        if not self.flip or fixed:
            return x, y
        bx, by, bw, bh = self.board
        return 2 * bx + bw - x, 2 * by + bh - y

    def add(self, markup: str) -> None:
        """Append raw, already escaped markup."""
        self._parts.append(markup)

    def element(self, tag: str, content: str | None = None, **attrs: Any) -> None:
        """Append ``<tag attrs>content</tag>`` (self-closing without content); ``content`` is escaped."""
        if content is None:
            self._parts.append(f"<{tag}{_attributes(attrs)}/>")
        else:
            self._parts.append(f"<{tag}{_attributes(attrs)}>{escape(content)}</{tag}>")

    @contextmanager
    def group(self, **attrs: Any) -> Iterator[None]:
        """Elements appended inside the ``with`` block go into one ``<g>``."""
        self._parts.append(f"<g{_attributes(attrs)}>")
        yield
        self._parts.append("</g>")

    def rect(self, x: float, y: float, w: float, h: float, *, fixed: bool = False, **attrs: Any) -> None:
        """A rectangle with its top-left corner at board point ``(x, y)``."""
        x0, y0 = self.point(x + w, y + h) if self.flip and not fixed else (x, y)
        self.element("rect", x=_number(x0), y=_number(y0), width=_number(w), height=_number(h), **attrs)

    def circle(self, cx: float, cy: float, r: float, *, fixed: bool = False, **attrs: Any) -> None:
        """A circle centred on board point ``(cx, cy)``."""
        x, y = self.point(cx, cy, fixed)
        self.element("circle", cx=_number(x), cy=_number(y), r=_number(r), **attrs)

    def line(self, x1: float, y1: float, x2: float, y2: float, *, fixed: bool = False, **attrs: Any) -> None:
        """A segment between two board points."""
        a, b = self.point(x1, y1, fixed), self.point(x2, y2, fixed)
        self.element("line", x1=_number(a[0]), y1=_number(a[1]), x2=_number(b[0]), y2=_number(b[1]), **attrs)

    def polygon(self, points: Iterable[tuple[float, float]], *, fixed: bool = False, **attrs: Any) -> None:
        """A closed shape through board points."""
        self.element("polygon", points=self._points(points, fixed), **attrs)

    def text(self, x: float, y: float, content: str, *, fixed: bool = False, **attrs: Any) -> None:
        """Text centred on board point ``(x, y)``; it moves with ``flip`` but is never turned upside down."""
        px, py = self.point(x, y, fixed)
        attrs.setdefault("text_anchor", "middle")
        attrs.setdefault("dominant_baseline", "central")
        self.element("text", content, x=_number(px), y=_number(py), **attrs)

    def _points(self, points: Iterable[tuple[float, float]], fixed: bool) -> str:
        return " ".join(f"{_number(x)},{_number(y)}" for x, y in (self.point(x, y, fixed) for x, y in points))

    def to_string(self) -> str:
        """The whole document."""
        size = ""
        if self.size is not None:
            size = f' width="{self.size}" height="{_number(self.size * self.height / self.width)}"'
        title = f"<title>{escape(self.title)}</title>" if self.title else ""
        return (
            f'<svg xmlns="{SVG_NS}" version="1.1"{size} viewBox="0 0 {_number(self.width)} {_number(self.height)}">'
            f"{title}{''.join(self._parts)}</svg>"
        )


def names_cells(text: str) -> bool:
    """Whether a move text names any cell (a null move ``0000`` or ``--`` does not)."""
    return _CELL.search(text) is not None


def last_cells(geometry: Geometry, last: str | None) -> list[int]:
    """The cells named in a last-move text such as ``e2e4``, ``h2e2``, ``e6e8f6`` or ``Rd4d7``.

    Every lower-case letter-and-digits group must name a playable cell; other characters
    (a piece or colour letter, a promotion letter, separators) are ignored.

    :raises InvalidMoveError: if a group names no cell, or no cell is named at all.
    """
    if not last:
        return []
    names = _CELL.findall(last)
    if not names:
        raise InvalidMoveError(f"last move {last!r} names no cell")
    return [geometry.parse(name) for name in names]


def renderer(game: str) -> Renderer[Any]:
    """What draws ``game``: what the game declares (:attr:`plybits.game.Game.renderer`).

    :raises UnknownCodecError: for an unknown game.
    :raises UnsupportedError: if the game has no renderer.
    """
    drawn = get_game(game).renderer
    if drawn is None:
        raise UnsupportedError(f"no board drawing for game {game!r}")
    return drawn


def render(
    game: str, position: str | None = None, *, last: str | None = None, flip: bool = False, size: int | None = None
) -> str:
    """The SVG of ``position`` (a position string or start name; the default start when ``None``) of ``game``.

    :raises UnknownCodecError: for an unknown game.
    :raises InvalidPositionError: if ``position`` cannot be read.
    :raises InvalidMoveError: if ``last`` names no cell of the board.
    :raises UnsupportedError: for a size out of bounds or a game without a renderer.
    """
    module = renderer(game)
    if position is not None and not position.strip():
        raise InvalidPositionError("empty position")
    board = get_game(game).position(position)
    geometry = module.geometry(board)
    cells = [geometry.coords(i) for i in last_cells(geometry, last)]
    return module.board(board, last=cells, flip=flip, size=size)


def square_labels(
    d: Drawing, files: Sequence[str], ranks: Sequence[str], x0: float, y0: float, cell: float, *,
    file_y: float, rank_x: float, **attrs: Any,
) -> None:
    """File names in a row at ``file_y`` and rank names in a column at ``rank_x`` for a grid of ``cell``-wide
    cells whose top-left corner is ``(x0, y0)`` (rank 0 at the bottom). Each name sits where the possibly
    flipped board shows its file or rank, so the labels stay upright and outside the board."""
    attrs.setdefault("font_size", 14)
    attrs.setdefault("fill", "#555")
    attrs.setdefault("font_family", FONT)
    with d.group(class_="coords", **attrs):
        for f, name in enumerate(files):
            x, _ = d.point(x0 + (f + 0.5) * cell, y0)
            d.text(x, file_y, name, fixed=True)
        for r, name in enumerate(ranks):
            _, y = d.point(x0, y0 + (len(ranks) - r - 0.5) * cell)
            d.text(rank_x, y, name, fixed=True)
