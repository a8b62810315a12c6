"""New Entropy: the 7x7 board, the bag, a turn (place, then leave or slide), rounds and scores.

The board is a :class:`plybits.mailbox.Geometry` of 7 files (a–g) by 7 rows (1–7) inside a
one-cell border: a rook slide stops at the border's :data:`~plybits.mailbox.OFF` or at a chip.
A cell holds ``None`` (empty) or a colour index 0..6 (``R G O B Y W K``).

A game is two rounds of :data:`TURNS_PER_ROUND` turns. In round 1 the *first* player is Chaos
(places the drawn chip) and the *second* is Order (leaves or slides it, and scores the round's
palindromes); in round 2 the roles are swapped. Each round starts on an empty board with a full
bag; the board is cleared and the round scored right after its 49th turn. Rules and the position
string are documented in ``docs/entropy.md``::

    >>> board = Board()
    >>> board.push(Turn.from_token("Rd4"))
    >>> board.push(Turn.from_token("Ga1a7"))
    >>> board.fen()
    'G6/7/7/3R3/7/7/7 1 3 -'
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple, Self

from plybits.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError
from plybits.mailbox import Geometry, Square
from plybits.text import ascii_text

FILES: Final = "abcdefg"
COLOURS: Final = "RGOBYWK"
"""Colour letters by index: red, green, orange, blue, yellow, white, black (the e13 colour field)."""
COLOUR_NAMES: Final = ("red", "green", "orange", "blue", "yellow", "white", "black")
CHIPS_PER_COLOUR: Final = 7
TURNS_PER_ROUND: Final = 49
ROUNDS: Final = 2
MAX_ROUND_SCORE: Final = 14 * sum(n * (8 - n) for n in range(2, 8))
"""1078: every row and column scoring like an all-one-colour line; a bound for stored scores."""

GEOMETRY: Final = Geometry(width=7, height=7, border=1, name=lambda f, r: FILES[f] + str(r + 1))
SQUARES: Final[tuple[int, ...]] = GEOMETRY.squares
"""Mailbox index of each cell by its number a1 = 0, b1 = 1, ..., g1 = 6, a2 = 7, ..., g7 = 48."""
SQUARE_NUMBER: Final[dict[int, int]] = {index: n for n, index in enumerate(SQUARES)}
"""Cell number (0..48) of each mailbox index."""
DIRECTIONS: Final[tuple[int, ...]] = (
    GEOMETRY.offset(1, 0), GEOMETRY.offset(-1, 0), GEOMETRY.offset(0, 1), GEOMETRY.offset(0, -1)
)
"""Slide steps in the e13 option order: towards file+1, file-1, row+1, row-1."""
LINES: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(GEOMETRY.index(f, r) for f in range(7)) for r in range(7)
) + tuple(tuple(GEOMETRY.index(f, r) for r in range(7)) for f in range(7))
"""The seven rows (a→g) then the seven columns (1→7), as mailbox indices: the lines that score."""
EMPTY_START: Final = "7/7/7/7/7/7/7 1 1 -"


def square_name(index: int) -> str:
    """Name of the cell at a mailbox index, e.g. ``"d4"``."""
    return GEOMETRY.name(index)


class Turn(NamedTuple):
    """A turn: a chip of ``colour`` placed on ``cell`` and left there (``to == cell``) or slid to ``to``.

    ``cell`` and ``to`` are mailbox indices of :data:`GEOMETRY`.
    """

    colour: int
    cell: Square
    to: Square

    @property
    def slides(self) -> bool:
        """Whether the chip was slid away from where it was placed."""
        return self.to != self.cell

    def token(self) -> str:
        """The turn token: ``Rd4`` (left in place) or ``Rd4d7`` (slid to d7)."""
        text = COLOURS[self.colour] + GEOMETRY.name(self.cell)
        return text + GEOMETRY.name(self.to) if self.to != self.cell else text

    @classmethod
    def from_token(cls, token: str) -> Turn:
        """Read a turn token (syntax only): see :func:`parse_token`."""
        return parse_token(token)

    def __repr__(self) -> str:
        try:
            return f"Turn.from_token({self.token()!r})"
        except (IndexError, KeyError, TypeError):  # not a turn on this board: show the raw fields
            return f"Turn(colour={self.colour!r}, cell={self.cell!r}, to={self.to!r})"


def parse_colour(letter: str) -> int:
    """Colour index (``R G O B Y W K`` = 0..6) of a colour letter in either case.

    :raises InvalidMoveError: if it is not one of the seven letters.
    """
    index = COLOURS.find(letter.upper()) if isinstance(letter, str) and len(letter) == 1 else -1
    if index < 0:
        raise InvalidMoveError(f"unknown colour {letter!r} (one of {' '.join(COLOURS)})")
    return index


def parse_square(name: str) -> int:
    """Mailbox index of a cell name ``a1``..``g7`` (file letter in either case).

    :raises InvalidMoveError: if there is no such cell.
    """
    try:
        return GEOMETRY.parse(name.lower())
    except InvalidMoveError:
        raise InvalidMoveError(f"unknown cell {name!r} (files a-g, rows 1-7)") from None


def parse_token(token: str) -> Turn:
    """The turn written as ``token`` (syntax only; whether it is legal is the board's business).

    >>> parse_token("Rd4d7")
    Turn.from_token('Rd4d7')

    :raises InvalidMoveError: on a malformed token, an unknown colour or cell, or a slide that does not move.
    """
    if not isinstance(token, str) or len(token) not in (3, 5):
        raise InvalidMoveError(
            f"bad turn token {token!r}: expected a colour letter and a cell (Rd4), "
            "optionally followed by the cell the chip slides to (Rd4d7)"
        )
    colour = parse_colour(token[0])
    cell = parse_square(token[1:3])
    if len(token) == 3:
        return Turn(colour, cell, cell)
    to = parse_square(token[3:5])
    if to == cell:
        raise InvalidMoveError(
            f"bad turn token {token!r}: a slide must move; write {token[:3]!r} to leave the chip in place"
        )
    return Turn(colour, cell, to)


def line_score(line: list[int | None]) -> int:
    """Score of one row or column: each window of length 2..7 reading the same both ways scores its length.

    The comparison runs inward from both ends and needs equal chips on both sides; the centre of an
    odd window is never compared, so it may be empty.
    """
    n = len(line)
    total = 0
    for i in range(n - 1):
        if line[i] is None:
            continue
        for j in range(i + 1, n):
            a, b = i, j
            while a < b:
                x = line[a]
                if x is None or x != line[b]:
                    break
                a += 1
                b -= 1
            else:
                total += j - i + 1
    return total


class Board:
    """A New Entropy position: the board, the bag (what this round has not yet placed), the round and the scores.

    ``Board()`` or ``Board("empty")`` is the start of a game; ``Board(text)`` reads a position string.

    :raises InvalidPositionError: if ``text`` is not a valid position string (the reason names the field).
    """

    __slots__ = ("cells", "bag", "round", "turn", "scores")

    def __init__(self, start: str | None = None) -> None:
        self.cells: list[Any] = GEOMETRY.empty_cells()
        """Mailbox array: ``None`` empty, a colour index 0..6, or :data:`plybits.mailbox.OFF` on the border."""
        self.bag: list[int] = [CHIPS_PER_COLOUR] * len(COLOURS)
        """Chips of each colour not yet placed this round."""
        self.round = 1
        """The round in play, 1 or 2 (2 once finished)."""
        self.turn = 0
        """Turns played in the current round, 0..48 (49 only once the game is finished)."""
        self.scores: list[int] = []
        """Each finished round's score."""
        if start is not None and start != "empty":
            self._set_fen(start)

    # --- state -------------------------------------------------------------------------------

    def copy(self) -> Self:
        """An independent copy."""
        other = self.__class__.__new__(self.__class__)
        other.cells = self.cells.copy()
        other.bag = self.bag.copy()
        other.round = self.round
        other.turn = self.turn
        other.scores = self.scores.copy()
        return other

    @property
    def finished(self) -> bool:
        """Whether both rounds have been played."""
        return len(self.scores) == ROUNDS

    @property
    def ply(self) -> int:
        """Turns played in the whole game (0..98)."""
        return (self.round - 1) * TURNS_PER_ROUND + self.turn

    def score(self) -> int:
        """The palindrome score of the board as it stands (the round's score once it is full)."""
        cells = self.cells
        return sum(line_score([cells[i] for i in line]) for line in LINES)

    def status(self) -> dict[str, Any]:
        """``ongoing`` or ``finished``, each finished round's ``scores`` and the ``round`` in play.

        Once finished, ``winner`` is ``"first"`` or ``"second"`` (absent on a tie) and ``result`` reads like
        PGN from the first player's side: ``1-0``, ``0-1`` or ``1/2-1/2``. The first player is Order (and
        scores) in round 2, the second in round 1.
        """
        out: dict[str, Any] = {"status": "ongoing", "scores": list(self.scores), "round": self.round}
        if self.finished:
            out["status"] = "finished"
            first, second = self.scores[1], self.scores[0]
            if first != second:
                out["winner"] = "first" if first > second else "second"
            out["result"] = "1-0" if first > second else "0-1" if second > first else "1/2-1/2"
        return out

    def occupied(self) -> list[tuple[int, int, str]]:
        """``(file, row, colour letter)`` of every chip, file and row counted from 0."""
        cells = self.cells
        return [(*GEOMETRY.coords(i), COLOURS[cells[i]]) for i in SQUARES if cells[i] is not None]

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"

    def __eq__(self, other: object) -> bool:
        """Equal positions (by position string); defining this leaves boards unhashable, as they change."""
        return isinstance(other, Board) and self.fen() == other.fen()

    # --- moves -------------------------------------------------------------------------------

    def targets(self, cell: int) -> list[int]:
        """Cells a chip on ``cell`` can slide to, direction by direction (file+1, file-1, row+1, row-1),
        nearest first: the e13 option list without its leading "left in place"."""
        cells = self.cells
        out = []
        for step in DIRECTIONS:
            i = cell + step
            while cells[i] is None:
                out.append(i)
                i += step
        return out

    def empty(self) -> list[int]:
        """Empty cells, by cell number (a1, b1, ..., g7)."""
        cells = self.cells
        return [i for i in SQUARES if cells[i] is None]

    def colours_left(self) -> list[int]:
        """Colours with a chip left in the bag."""
        return [c for c, n in enumerate(self.bag) if n]

    def legal_moves(self, colour: int | str | None = None) -> list[Turn]:
        """Every possible turn, or only those of ``colour`` (index or letter) when it is given.

        Order: colour index, then cell number, then option (left in place first, then the slides in e13
        order). The drawn colour is chance, not choice: a turn's colour is whatever the bag gave.

        :raises InvalidMoveError: if ``colour`` is not a colour.
        """
        if self.finished:
            return []
        if colour is None:
            colours = self.colours_left()
        else:
            c = (COLOURS.find(colour.upper()) if len(colour) == 1 else -1) if isinstance(colour, str) else colour
            if not 0 <= c < len(COLOURS):
                raise InvalidMoveError(f"unknown colour {colour!r} (one of {' '.join(COLOURS)})")
            colours = [c] if self.bag[c] else []
        cells = self.cells
        per_colour: list[tuple[int, int]] = []
        for cell in SQUARES:
            if cells[cell] is None:
                per_colour.append((cell, cell))
                for step in DIRECTIONS:
                    i = cell + step
                    while cells[i] is None:
                        per_colour.append((cell, i))
                        i += step
        new = tuple.__new__  # Turn(c, cell, to) without NamedTuple.__new__'s Python-level call
        return [new(Turn, (c, *pair)) for c in colours for pair in per_colour]

    def illegal_reason(self, turn: Turn) -> str | None:
        """Why ``turn`` cannot be played here, or ``None`` if it can."""
        colour, cell, to = turn
        cells = self.cells
        if self.finished:
            return f"the game is over: both rounds of {TURNS_PER_ROUND} turns have been played"
        if not (isinstance(colour, int) and 0 <= colour < len(COLOURS)):
            return f"unknown colour {colour!r}"
        if cell not in SQUARE_NUMBER or to not in SQUARE_NUMBER:
            return f"cell index {cell if cell not in SQUARE_NUMBER else to!r} is not on the board"
        if not self.bag[colour]:
            return (
                f"no {COLOUR_NAMES[colour]} ({COLOURS[colour]}) chip left: all {CHIPS_PER_COLOUR} "
                f"are on the board in round {self.round}"
            )
        if cells[cell] is not None:
            return f"cell {GEOMETRY.name(cell)} is occupied by {COLOURS[cells[cell]]}"
        if to == cell:
            return None
        (f0, r0), (f1, r1) = GEOMETRY.coords(cell), GEOMETRY.coords(to)
        if f0 != f1 and r0 != r1:
            return (
                f"slide {GEOMETRY.name(cell)}-{GEOMETRY.name(to)} is not along a row or column "
                "(chips slide like a rook)"
            )
        step = GEOMETRY.offset((f1 > f0) - (f1 < f0), (r1 > r0) - (r1 < r0))
        i = cell + step
        while i != to:
            if cells[i] is not None:
                return (
                    f"slide {GEOMETRY.name(cell)}-{GEOMETRY.name(to)} is blocked by "
                    f"{COLOURS[cells[i]]} on {GEOMETRY.name(i)}"
                )
            i += step
        if cells[to] is not None:
            return f"slide target {GEOMETRY.name(to)} is occupied by {COLOURS[cells[to]]}"
        return None

    def is_legal(self, turn: Turn) -> bool:
        """Whether ``turn`` can be played here."""
        return self.illegal_reason(turn) is None

    def push(self, turn: Turn) -> None:
        """Play a legal turn; after a round's 49th turn, score the round and (after round 1) clear the board."""
        colour = turn[0]
        self.cells[turn[2]] = colour
        self.bag[colour] -= 1
        self.turn += 1
        if self.turn == TURNS_PER_ROUND:
            self.scores.append(self.score())
            if self.round < ROUNDS:
                self.round += 1
                self.turn = 0
                self.cells = GEOMETRY.empty_cells()
                self.bag = [CHIPS_PER_COLOUR] * len(COLOURS)

    def check(self, turn: Turn) -> None:
        """Raise unless ``turn`` is legal here.

        :raises IllegalMoveError: naming the cell or chip at fault.
        """
        reason = self.illegal_reason(turn)
        if reason is not None:
            raise IllegalMoveError(reason)

    # --- position string ---------------------------------------------------------------------

    def board_fen(self) -> str:
        """The board part of the position string: rows 7 to 1, ``/``-separated, digits for empty runs."""
        cells = self.cells
        rows = []
        for r in range(6, -1, -1):
            text, run = "", 0
            for f in range(7):
                chip = cells[GEOMETRY.index(f, r)]
                if chip is None:
                    run += 1
                    continue
                if run:
                    text += str(run)
                    run = 0
                text += COLOURS[chip]
            rows.append(text + str(run) if run else text)
        return "/".join(rows)

    def fen(self) -> str:
        """The position string ``<board> <round> <turn> <scores>`` (see ``docs/entropy.md``).

        ``turn`` is the next turn's number in the round (1..49), ``-`` once the game is finished;
        ``scores`` the finished rounds' scores, comma-separated, ``-`` when none.
        """
        turn = "-" if self.finished else str(self.turn + 1)
        scores = ",".join(map(str, self.scores)) or "-"
        return f"{self.board_fen()} {self.round} {turn} {scores}"

    def _set_fen(self, text: str) -> None:
        def bad(reason: str) -> InvalidPositionError:
            return InvalidPositionError(f"bad entropy position {text!r}: {reason}")

        if not isinstance(text, str):
            raise InvalidPositionError(f"bad entropy position {text!r}: not a string")
        fields = ascii_text(text, "entropy position", InvalidPositionError).split()
        if len(fields) != 4:
            raise bad(
                f"expected 4 fields '<rows> <round> <turn> <scores>' (e.g. {EMPTY_START!r}), got {len(fields)}"
            )
        rows, round_text, turn_text, scores_text = fields
        row_texts = rows.split("/")
        if len(row_texts) != 7:
            raise bad(f"expected 7 rows separated by '/', got {len(row_texts)}")
        cells = GEOMETRY.empty_cells()
        bag = [CHIPS_PER_COLOUR] * len(COLOURS)
        for k, row_text in enumerate(row_texts):
            r = 6 - k
            f = 0
            previous_digit = False
            for ch in row_text:
                if ch.isdigit():
                    if previous_digit or not "1" <= ch <= "7":
                        raise bad(f"row {r + 1} {row_text!r}: empty runs are single digits 1-7, not run together")
                    f += int(ch)
                    previous_digit = True
                    continue
                previous_digit = False
                colour = COLOURS.find(ch.upper())
                if colour < 0:
                    raise bad(f"row {r + 1} {row_text!r}: unknown chip {ch!r} (one of {' '.join(COLOURS)} or a digit)")
                if f >= 7:
                    raise bad(f"row {r + 1} {row_text!r} spans more than 7 cells")
                cells[GEOMETRY.index(f, r)] = colour
                bag[colour] -= 1
                f += 1
            if f != 7:
                raise bad(f"row {r + 1} {row_text!r} spans {f} cells, not 7")
        for colour, left in enumerate(bag):
            if left < 0:
                raise bad(f"{CHIPS_PER_COLOUR - left} {COLOUR_NAMES[colour]} ({COLOURS[colour]}) chips on the board, "
                          f"at most {CHIPS_PER_COLOUR} in a round")
        chips = sum(CHIPS_PER_COLOUR - left for left in bag)
        if round_text not in ("1", "2"):
            raise bad(f"round {round_text!r} is not 1 or 2")
        rnd = int(round_text)
        scores = []
        if scores_text != "-":
            for part in scores_text.split(","):
                if not part.isascii() or not part.isdigit() or int(part) > MAX_ROUND_SCORE:
                    raise bad(f"score {part!r} is not a whole number 0-{MAX_ROUND_SCORE}")
                scores.append(int(part))
        if turn_text == "-":
            if rnd != ROUNDS or chips != TURNS_PER_ROUND or len(scores) != ROUNDS:
                raise bad(
                    f"turn '-' marks a finished game: round {ROUNDS}, a full board and {ROUNDS} scores "
                    f"(here round {rnd}, {chips} chips, {len(scores)} scores)"
                )
            turn = TURNS_PER_ROUND
            if scores[1] != self._score_of(cells):
                raise bad(f"round 2 score {scores[1]} does not match the board, which scores {self._score_of(cells)}")
        else:
            if not turn_text.isascii() or not turn_text.isdigit() or not 1 <= int(turn_text) <= TURNS_PER_ROUND:
                raise bad(f"turn {turn_text!r} is not 1-{TURNS_PER_ROUND} (or '-' once finished)")
            turn = int(turn_text) - 1
            if chips != turn:
                raise bad(f"turn {turn + 1} needs {turn} chips on the board (one per turn played), found {chips}")
            if len(scores) != rnd - 1:
                raise bad(f"round {rnd} needs {rnd - 1} finished round score(s) ('-' for none), got {len(scores)}")
        self.cells, self.bag, self.round, self.turn, self.scores = cells, bag, rnd, turn, scores

    @staticmethod
    def _score_of(cells: list[Any]) -> int:
        return sum(line_score([cells[i] for i in line]) for line in LINES)

