"""What a record holds besides its mainline moves and tags: comments, NAGs and variations (a lossless record).

The tree is generic in its moves: :func:`plybits.pgntext.read` fills it with move tokens as written
(``Notes[str]``); the verbs read those into moves from the positions they are played in (``Notes[Move]``),
which the container's record section stores (:mod:`plybits.recordsection`); decoding writes them back as
tokens in a notation, and the game's record writer writes the text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Generic, TypeVar

MAX_DEPTH: Final = 64
"""Deepest nesting of variations a record may hold (a variation of the mainline is at depth 1)."""
MAX_NAG: Final = (1 << 40) + 254
"""Largest NAG a record may hold: 256 plus the record section's largest number (2^40 − 2)."""

MoveT = TypeVar("MoveT")
OtherT = TypeVar("OtherT")


@dataclass
class Comment:
    """One comment exactly as written: ``{text}`` (``line`` false) or ``;text`` to the end of its line."""

    text: str
    """Everything between the delimiters, white space included (``" [%clk 0:04:57] "``)."""
    line: bool = False


@dataclass
class Step(Generic[MoveT]):
    """What follows one move of a line, in the order a writer writes it: NAGs, comments, then variations."""

    nags: list[int] = field(default_factory=list)
    """Numeric annotation glyphs in the order written (``!`` is 1, ``?`` 2, ``!!`` 3, ``??`` 4, ``!?`` 5, ``?!`` 6)."""
    comments: list[Comment] = field(default_factory=list)
    variations: list[Line[MoveT]] = field(default_factory=list)
    """Alternatives to this step's move, each a line played from the position before it."""

    def is_empty(self) -> bool:
        """Whether nothing follows the move."""
        return not (self.nags or self.comments or self.variations)


@dataclass
class Line(Generic[MoveT]):
    """A variation: its moves, what follows each, and the comments before its first move."""

    moves: list[MoveT] = field(default_factory=list)
    steps: list[Step[MoveT]] = field(default_factory=list)
    """One per move, in step with :attr:`moves`; none when no move has a note (the readers leave it empty then)."""
    comments: list[Comment] = field(default_factory=list)
    """Comments before the first move (python-chess's ``starting_comment``)."""


@dataclass
class Notes(Generic[MoveT]):
    """The annotations of a whole record; its mainline moves live beside it (``Record.moves``)."""

    steps: list[Step[MoveT]] = field(default_factory=list)
    """One per mainline move, in step with the record's moves; none when no move has a note (the readers leave it
    empty then)."""
    comments: list[Comment] = field(default_factory=list)
    """Comments before the first move (python-chess's game comment)."""
    result: str | None = None
    """The result token closing the movetext (``1-0``, ``0-1``, ``1/2-1/2``, ``*``), if it has one."""

    def is_empty(self) -> bool:
        """Whether the record holds nothing besides moves, tags and its result token."""
        return not self.comments and all(step.is_empty() for step in self.steps)
