"""Xiangqi positions and rules on the shared mailbox board.

The 9x10 board sits inside a border of 2 cells (:data:`GEOMETRY`), so a horse
jump off the board lands on an :data:`~plybits.mailbox.OFF` cell. Files
``f = 0..8`` are ``a..i`` from red's left, ranks ``r = 0..9`` from red's side
(ICCS). A cell holds ``0`` (empty), ``OFF``, or a piece code: the kind
(:data:`KING` .. :data:`SOLDIER`, 1..7) plus :data:`BLACK` (8) for black pieces.

Speed matters (the rank scheme asks for the legal moves every ply): the move
tables are precomputed per cell, :class:`Move` objects are built once and
shared, and the check test after a move is skipped when the move cannot
change any line, horse leg or soldier step that reaches the own general.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from typing import Any, Final, Self, cast, final

from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr

from plybits.errors import InvalidMoveError, InvalidPositionError
from plybits.mailbox import OFF, Geometry, Square
from plybits.packed import PACKED, int_array, int_list, zeros

FILES: Final = "abcdefghi"
RED: Final = 0
BLACK: Final = 8
"""Colour bits: a piece code is ``kind | colour``; :attr:`Board.turn` is one of these."""
KING: Final = 1
ADVISOR: Final = 2
ELEPHANT: Final = 3
HORSE: Final = 4
CHARIOT: Final = 5
CANNON: Final = 6
SOLDIER: Final = 7
KIND_NAMES: Final = ("", "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier")
SYMBOLS: Final = " KABNRCP"
"""FEN letters by kind (upper case red, lower case black)."""
SYMBOL_ALIASES: Final = {"E": ELEPHANT, "H": HORSE}
"""Other letters some files use for the elephant and the horse."""
STANDARD_FEN: Final = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
COLOR_NAMES: Final = {RED: "red", BLACK: "black"}

GEOMETRY: Final = Geometry(width=9, height=10, border=2, name=lambda f, r: f"{FILES[f]}{r}")
"""The board: 9 files x 10 ranks in a border of 2 (so a horse jump off the edge stays inside the array)."""
STRIDE: Final = GEOMETRY.stride
SQUARES: Final = GEOMETRY.squares
"""Cell indices of the 90 points, by increasing ``r * 9 + f`` (the xq10 slot order)."""
FILE_OF: Final = [-1] * GEOMETRY.size
RANK_OF: Final = [-1] * GEOMETRY.size
for _i in SQUARES:
    FILE_OF[_i], RANK_OF[_i] = GEOMETRY.coords(_i)


def square(file: int, rank: int) -> int:
    """The cell index of ``(file, rank)``."""
    return GEOMETRY.index(file, rank)


def square_name(index: int) -> str:
    """ICCS name of a cell, e.g. ``"h2"``."""
    return GEOMETRY.name(index)


def parse_square(name: str) -> int:
    """Cell index of an ICCS square name (``"h2"``).

    :raises InvalidMoveError: if ``name`` is not a square.
    """
    return GEOMETRY.parse(name.lower())


def in_palace(color: int, f: int, r: int) -> bool:
    """Whether ``(f, r)`` is in ``color``'s palace."""
    return 3 <= f <= 5 and (0 <= r <= 2 if color == RED else 7 <= r <= 9)


def own_half(color: int, r: int) -> bool:
    """Whether rank ``r`` is on ``color``'s side of the river."""
    return r <= 4 if color == RED else r >= 5


def forward(color: int) -> int:
    """The rank step towards the opponent."""
    return 1 if color == RED else -1


@final
class Move:
    """A move from one cell to another; instances are shared (``Move.of(from, to)``), compare with ``==``."""

    __slots__ = ("from_square", "to_square")

    def __init__(self, from_square: Square, to_square: Square) -> None:
        self.from_square: Square = from_square
        self.to_square: Square = to_square

    @staticmethod
    def of(from_square: Square, to_square: Square) -> Move:
        """The shared move object for these two cells."""
        return MOVES[from_square][to_square]

    @classmethod
    def from_iccs(cls, text: str) -> Move:
        """Parse ICCS ``h2e2`` (also ``H2-E2``), without checking legality.

        :raises InvalidMoveError: on bad syntax.
        """
        t = text.strip().lower().replace("-", "")
        if len(t) != 4:
            raise InvalidMoveError(f"not an ICCS move: {text!r}")
        try:
            frm, to = parse_square(t[:2]), parse_square(t[2:])
        except InvalidMoveError:
            raise InvalidMoveError(f"not an ICCS move: {text!r}") from None
        if frm == to:
            raise InvalidMoveError(f"not an ICCS move: {text!r} (a move leaves its cell)")
        return MOVES[frm][to]

    def iccs(self) -> str:
        """ICCS text, e.g. ``"h2e2"``."""
        key = self.from_square * _size + self.to_square
        text = _ICCS_TEXT[key]
        if not text:
            text = _ICCS_TEXT[key] = square_name(self.from_square) + square_name(self.to_square)
        return text

    def __repr__(self) -> str:
        return f"Move.from_iccs({self.iccs()!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Move)
            and self.from_square == other.from_square
            and self.to_square == other.to_square
        )

    def __hash__(self) -> int:
        return self.from_square * 256 + self.to_square


_size: Final = GEOMETRY.size
_on: Final = GEOMETRY.on_board
_ICCS_TEXT: Final = [""] * (_size * _size)
"""``_ICCS_TEXT[from * size + to]``: a move's ICCS text, written on first use (a move is written every ply)."""
MOVES: Final = cast("list[list[Move]]", [[None] * _size for _ in range(_size)])
"""MOVES[a][b]: the shared move from cell ``a`` to cell ``b`` (``None`` where either is off the board, or a == b)."""
for _a in SQUARES:
    for _b in SQUARES:
        if _a != _b:
            MOVES[_a][_b] = Move(_a, _b)

# the ray steps are lists, not tuples: compiled code iterates a list[int] natively, a Final tuple it boxes anew
ORTHOGONAL: Final = [1, -1, STRIDE, -STRIDE]
_STEPS: Final = int_array(ORTHOGONAL)  # packed: compiled, a step is an i64, not an int object
_BELOW: Final = [-STRIDE, -1]
"""The ray steps towards lower cells (move generation lists their farthest target first)."""
_ABOVE: Final = [1, STRIDE]
"""The ray steps towards higher cells (nearest target first)."""

StepTable = list[list[list[int]]]
"""``table[colour][cell]``: target cells, ascending."""
PairTable = list[list[tuple[int, int]]]
"""``table[cell]``: ``(target, blocking cell)`` pairs, by ascending target."""


def _tables() -> tuple[StepTable, StepTable, list[PairTable], PairTable, StepTable, PairTable, StepTable]:
    """Per-cell step tables: general, advisor, elephant (with eye), horse (with leg), soldier; and attack tables.
    Every list of targets is ascending, so that move generation lists the moves in canonical (from, to) order."""
    king: StepTable = [[[] for _ in range(_size)] for _ in range(9)]
    advisor: StepTable = [[[] for _ in range(_size)] for _ in range(9)]
    elephant: list[PairTable] = [[[] for _ in range(_size)] for _ in range(9)]
    soldier: StepTable = [[[] for _ in range(_size)] for _ in range(9)]
    horse: PairTable = [[] for _ in range(_size)]
    horse_attackers: PairTable = [[] for _ in range(_size)]
    soldier_attackers: StepTable = [[[] for _ in range(_size)] for _ in range(9)]
    for i in SQUARES:
        f, r = FILE_OF[i], RANK_OF[i]
        for color in (RED, BLACK):
            for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                if in_palace(color, f, r) and in_palace(color, f + df, r + dr):
                    king[color][i].append(square(f + df, r + dr))
            for df, dr in ((1, 1), (1, -1), (-1, -1), (-1, 1)):
                if in_palace(color, f, r) and in_palace(color, f + df, r + dr):
                    advisor[color][i].append(square(f + df, r + dr))
                t = square(f + 2 * df, r + 2 * dr)
                if _on[t] and own_half(color, r) and own_half(color, r + 2 * dr):
                    elephant[color][i].append((t, square(f + df, r + dr)))
            fw = forward(color)
            steps = [(0, fw)] + ([(1, 0), (-1, 0)] if not own_half(color, r) else [])
            for df, dr in steps:
                t = square(f + df, r + dr)
                if _on[t]:
                    soldier[color][i].append(t)
                    soldier_attackers[color][t].append(i)
        for df, dr in HORSE_STEPS:
            t = square(f + df, r + dr)
            if _on[t]:
                leg = square(f + (df // 2 if abs(df) == 2 else 0), r + (dr // 2 if abs(dr) == 2 else 0))
                horse[i].append((t, leg))
                # a horse on i attacks t through leg: seen from t
                horse_attackers[t].append((i, leg))
    for per_color in (king, advisor, soldier):
        for cells in per_color:
            for targets in cells:
                targets.sort()
    for pairs_by_cell in (*elephant, horse):
        for pairs in pairs_by_cell:
            pairs.sort()
    return king, advisor, elephant, horse, soldier, horse_attackers, soldier_attackers


HORSE_STEPS: Final = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
"""The horse's (df, dr) in xq10 delta order."""
_TABLES: Final = _tables()
KING_STEPS: Final = _TABLES[0]
"""``KING_STEPS[colour][cell]`` etc.: targets (elephants and horses with the blocking cell) of a piece on ``cell``,
ascending; ``HORSE_ATTACKERS[cell]``: ``(horse cell, leg)`` pairs from which a horse hits ``cell``;
``SOLDIER_ATTACKERS[colour][cell]``: cells from which a soldier of ``colour`` hits ``cell``."""
ADVISOR_STEPS: Final = _TABLES[1]
ELEPHANT_STEPS: Final = _TABLES[2]
HORSE_JUMPS: Final = _TABLES[3]
SOLDIER_STEPS: Final = _TABLES[4]
HORSE_ATTACKERS: Final = _TABLES[5]
SOLDIER_ATTACKERS: Final = _TABLES[6]


def _packed(rows: list[list[int]]) -> list[vec[i64]]:
    """Rows of ints as :func:`~plybits.packed.int_array` rows (compiled code reads them without an int object)."""
    return [int_array(row) for row in rows]


def _joined(pairs: list[tuple[int, int]]) -> list[int]:
    """``(target, blocking cell)`` pairs as ``target << 8 | blocking cell`` (ascending as the pairs are)."""
    return [t << 8 | block for t, block in pairs]


# the step tables packed; by colour, a cell's red row is the cell, its black row _size + the cell
_KING_ROWS: Final = _packed(KING_STEPS[RED] + KING_STEPS[BLACK])
_ADVISOR_ROWS: Final = _packed(ADVISOR_STEPS[RED] + ADVISOR_STEPS[BLACK])
_SOLDIER_ROWS: Final = _packed(SOLDIER_STEPS[RED] + SOLDIER_STEPS[BLACK])
_ELEPHANT_ROWS: Final = _packed([_joined(row) for row in ELEPHANT_STEPS[RED] + ELEPHANT_STEPS[BLACK]])
_HORSE_ROWS: Final = _packed([_joined(row) for row in HORSE_JUMPS])
_HORSE_ATTACKER_ROWS: Final = _packed([_joined(row) for row in HORSE_ATTACKERS])
_SOLDIER_ATTACKER_ROWS: Final = _packed(SOLDIER_ATTACKERS[RED] + SOLDIER_ATTACKERS[BLACK])


LEG: Final = 1000
"""Marks a general's diagonal neighbour (a horse leg) in :data:`DANGER`."""


def _danger_lines() -> list[list[int]]:
    """For a general on cell k: per cell, the ray step from k to it (same file or rank), :data:`LEG` for a
    diagonal neighbour, else 0 -- the cells whose change can alter an attack on k."""
    out = [[0] * _size for _ in range(_size)]
    for k in SQUARES:
        for i in SQUARES:
            df, dr = FILE_OF[i] - FILE_OF[k], RANK_OF[i] - RANK_OF[k]
            line = (STRIDE if dr > 0 else -STRIDE) if df == 0 else (1 if df > 0 else -1) if dr == 0 else 0
            out[k][i] = 0 if i == k else line or (LEG if abs(df) == abs(dr) == 1 else 0)
    return out


DANGER: Final = _danger_lines()
_DANGER_ROWS: Final = [int_array(row) for row in DANGER]  # its rows as int_arrays

# Compiled with mypyc (docs/architecture.md, "Compiled build"); plybits.xiangqi.Position subclasses it interpreted.
@mypyc_attr(allow_interpreted_subclasses=True)
class Board:
    """A xiangqi position: pieces, side to move and the two move counters of the FEN.

    ``Board()`` is the standard start; ``Board(fen)`` reads a xiangqi FEN
    (``w``, ``r`` or ``b`` to move; ``E``/``H`` accepted for ``B``/``N``).
    """

    __slots__ = ("cells", "turn", "kings", "halfmove_clock", "fullmove_number")

    def __init__(self, fen: str | None = STANDARD_FEN) -> None:
        self.cells: vec[i64] = int_array(GEOMETRY.empty_cells(0))
        """The cell array (an :func:`~plybits.packed.int_array`: a ``vec[i64]`` compiled, a list in pure Python)."""
        self.turn: int = RED
        self.kings: list[int] = [0, 0]
        """Cell of the red general (index 0) and the black general (index 1)."""
        self.halfmove_clock: int = 0
        """Plies since the last capture (as Fairy-Stockfish counts it)."""
        self.fullmove_number: int = 1
        if fen is not None:
            self.set_fen(fen)

    # ---- FEN -------------------------------------------------------------------------------------------

    def set_fen(self, fen: str) -> None:
        """Read a xiangqi FEN (:func:`plybits.xiangqi.fen.read_fen`).

        :raises InvalidPositionError: if it is malformed or describes an impossible position.
        """
        from plybits.xiangqi.fen import read_fen  # read once a game: interpreted, out of the compiled rules

        cells, turn, kings, half, full = read_fen(fen)
        self.cells, self.turn, self.kings = int_array(cells), turn, kings
        self.halfmove_clock, self.fullmove_number = half, full
        if self.attacked_general(turn ^ BLACK):
            raise InvalidPositionError(f"the side not to move is in check (or the generals face) in FEN {fen!r}")

    def fen(self) -> str:
        """The xiangqi FEN (red to move is ``w``, as Fairy-Stockfish and xqbase write it)."""
        rows = []
        cells = self.cells
        for rank in range(9, -1, -1):
            row, empty = "", 0
            for f in range(9):
                piece = cells[square(f, rank)]
                if piece == 0:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                symbol = SYMBOLS[piece & 7]
                row += symbol.lower() if piece & BLACK else symbol
            rows.append(row + (str(empty) if empty else ""))
        side = "b" if self.turn == BLACK else "w"
        return f"{'/'.join(rows)} {side} - - {self.halfmove_clock} {self.fullmove_number}"

    def copy(self) -> Self:
        """An independent copy."""
        board = type(self).__new__(type(self))
        board.cells = self.cells[:]
        board.turn = self.turn
        board.kings = self.kings[:]
        board.halfmove_clock = self.halfmove_clock
        board.fullmove_number = self.fullmove_number
        return board

    def occupied(self) -> list[tuple[int, int, str]]:
        """``(file, rank, FEN letter)`` of every piece."""
        out = []
        for i in SQUARES:
            piece = self.cells[i]
            if piece:
                symbol = SYMBOLS[piece & 7]
                out.append((FILE_OF[i], RANK_OF[i], symbol.lower() if piece & BLACK else symbol))
        return out

    def piece_at(self, index: int) -> int:
        """The piece code on a cell (0 when empty)."""
        piece = self.cells[index]
        return 0 if piece == OFF else piece

    # ---- attacks ---------------------------------------------------------------------------------------

    def attacked_general(self, color: int) -> bool:
        """Whether ``color``'s general is attacked (the flying-general rule included)."""
        return _attacked(self.cells, self.kings[color >> 3], color)

    def reaches(self, index: int, color: int) -> bool:
        """Whether a piece of ``color`` has a move to cell ``index`` by its movement rules alone (what
        :meth:`pseudo_legal_moves` would list for ``color`` to move; the cell holds the other colour or nothing)."""
        return reached_by(self.cells, self.kings[color >> 3], index, color)

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        return self.attacked_general(self.turn)

    # ---- move generation -------------------------------------------------------------------------------

    def pseudo_legal_moves(self) -> list[Move]:
        """Moves that follow each piece's movement rules, ignoring the own general's safety, in canonical
        order: by from-cell, then to-cell (cells number as the points do, ``r * 9 + f``)."""
        out: list[Move] = []
        pseudo_legal(self.cells, self.turn, out)
        return out

    def _safe(self, frm: int, to: int) -> bool:
        """Whether moving ``frm`` -> ``to`` (pseudo-legal) leaves the mover's general unattacked."""
        return _safe(self.cells, self.kings[self.turn >> 3], self.turn, frm, to)

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move, in canonical order: by from-cell, then to-cell (cells number
        as the points do, ``r * 9 + f``)."""
        return legal(self.cells, self.kings[self.turn >> 3], self.turn)

    def is_pseudo_legal(self, frm: int, to: int) -> bool:
        """Whether the piece on ``frm`` (of the side to move) may move to ``to`` by its movement rules."""
        return _pseudo_legal_move(self.cells, self.turn, frm, to)

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` is legal here."""
        frm, to = move.from_square, move.to_square
        cells, us = self.cells, self.turn
        return _pseudo_legal_move(cells, us, frm, to) and _safe(cells, self.kings[us >> 3], us, frm, to)

    # ---- playing ---------------------------------------------------------------------------------------

    def push(self, move: Move) -> None:
        """Play a move known to be legal."""
        cells = self.cells
        frm, to = move.from_square, move.to_square
        piece = cells[frm]
        if cells[to]:
            self.halfmove_clock = 0
        else:
            self.halfmove_clock += 1
        cells[to] = piece
        cells[frm] = 0
        turn = self.turn
        if piece & 7 == KING:
            self.kings[turn >> 3] = to
        if turn == BLACK:
            self.fullmove_number += 1
        self.turn = turn ^ BLACK

    def status(self) -> dict[str, Any]:
        """``{"status": "ongoing"}``, or checkmate/stalemate (both lose for the side to move) with winner and result."""
        if self.has_legal_move():
            return {"status": "ongoing"}
        winner = self.turn ^ BLACK
        return {
            "status": "checkmate" if self.is_check() else "stalemate",
            "winner": COLOR_NAMES[winner],
            "result": "1-0" if winner == RED else "0-1",
        }

    def has_legal_move(self) -> bool:
        """Whether the side to move has any legal move."""
        return legal_codes(self.cells, self.kings[self.turn >> 3], self.turn)[1] > 0

    def pieces(self, color: int | None = None) -> Iterator[tuple[int, int]]:
        """``(cell, piece code)`` of every piece (of ``color`` when given), by increasing ``r * 9 + f``."""
        cells = self.cells
        for i in SQUARES:
            p = cells[i]
            if p and (color is None or p & BLACK == color):
                yield i, p

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"


# ---- the rules on a cell list (the hot core: Board's methods and the rank model call these) ------------------
# The generators write move codes, ``from << 8 | to`` (:func:`move_of`), into an int_array: no Move object and no list
# item a move until a caller asks for Move objects (:func:`legal`, :func:`pseudo_legal`).

MAX_MOVES: Final = 160
"""More than any position's pseudo-legal moves (two chariots and two cannons 17 each, two horses 8, five soldiers 3,
the rest 4: 119), the room the code generators are given."""
# zeroed templates the generators copy (a slice: no function call a ply in pure Python)
_NO_CODES: Final = zeros(MAX_MOVES)
_NO_MARKS: Final = zeros(_size)
_NO_PIECES: Final = zeros(32)  # a position holds at most 16 pieces a side
_NO_RISK: Final = zeros(_size)  # the DANGER row of no general; the marks of a caller that wants none (0 added)


CODES: Final = [int_array([i << 8 | t for t in range(_size)]) for i in range(_size)]
"""``CODES[from][to]``: the move code (read, not computed: pure Python makes no int object a move)."""


def move_of(code: int) -> Move:
    """The shared move of a move code ``from << 8 | to``."""
    return MOVES[code >> 8][code & 255]


def moves_of(codes: vec[i64], n: int) -> list[Move]:
    """The shared moves of the first ``n`` move codes."""
    return [MOVES[c >> 8][c & 255] for c in codes[:n]]


def _attacked(cells: vec[i64], k: i64, color: i64) -> bool:
    """Whether the general of ``color`` on cell ``k`` is attacked (the flying-general rule included)."""
    enemy = color ^ BLACK
    e_rook = CHARIOT | enemy
    e_cannon = CANNON | enemy
    e_king = KING | enemy
    for step in _STEPS:
        t = k + step
        p = cells[t]
        while p == 0:
            t += step
            p = cells[t]
        if p == OFF:
            continue
        if p == e_rook or (p == e_king and (step == STRIDE or step == -STRIDE)):
            return True
        t += step
        p = cells[t]
        while p == 0:
            t += step
            p = cells[t]
        if p == e_cannon:
            return True
    e_horse = HORSE | enemy
    for e in _HORSE_ATTACKER_ROWS[k]:
        if cells[e >> 8] == e_horse and cells[e & 255] == 0:
            return True
    e_soldier = SOLDIER | enemy
    for s in _SOLDIER_ATTACKER_ROWS[(enemy >> 3) * _size + k]:
        if cells[s] == e_soldier:
            return True
    return False


def reached_by(cells: vec[i64], king: int, index: int, color: int) -> bool:
    """Whether a piece of ``color`` (whose general stands on ``king``) has a move to cell ``index`` by its
    movement rules alone (the cell holds the other colour or nothing): :meth:`Board.reaches` on a cell list."""
    e_rook = CHARIOT | color
    e_cannon = CANNON | color
    capture = cells[index] != 0
    # a cannon slides like a chariot onto an empty cell and captures over exactly one screen
    e_slider = e_rook if capture else e_cannon
    e_jumper = e_cannon if capture else -1
    for step in ORTHOGONAL:
        t = index + step
        p = cells[t]
        while p == 0:
            t += step
            p = cells[t]
        if p == OFF:
            continue
        if p == e_rook or p == e_slider:
            return True
        if not capture:
            continue
        t += step
        p = cells[t]
        while p == 0:
            t += step
            p = cells[t]
        if p == e_jumper:
            return True
    e_horse = HORSE | color
    for e in _HORSE_ATTACKER_ROWS[index]:
        if cells[e >> 8] == e_horse and cells[e & 255] == 0:
            return True
    # the soldiers' attack rows are seen from the target; the general's, the advisors' and the elephants' steps are
    # symmetric: from ``index`` back to the piece
    side = (color >> 3) * _size + index
    e_soldier = SOLDIER | color
    for s in _SOLDIER_ATTACKER_ROWS[side]:
        if cells[s] == e_soldier:
            return True
    e_elephant = ELEPHANT | color
    for e in _ELEPHANT_ROWS[side]:
        if cells[e >> 8] == e_elephant and cells[e & 255] == 0:
            return True
    e_advisor = ADVISOR | color
    for a in _ADVISOR_ROWS[side]:
        if cells[a] == e_advisor:
            return True
    for g in _KING_ROWS[side]:
        if g == king:
            return True
    return False


POINT_CELLS: Final = list(SQUARES)
"""The cells of the 90 points in point order, as a list (what the move generators scan unless told fewer)."""
POINTS: Final = int_array(POINT_CELLS)


def occupied_points(cells: vec[i64]) -> vec[i64]:
    """:func:`occupied_cells` as an int_array (what the code generators scan)."""
    out = _NO_PIECES[:]
    n = 0
    for i in POINTS:
        if cells[i]:
            out[n] = i
            n += 1
    return out[:n]


def occupied_cells(cells: vec[i64]) -> list[int]:
    """The cells holding a piece, in point order: what :func:`pseudo_legal`, :func:`targets` and :func:`legal`
    need scan, for a caller that runs more than one of them on a position."""
    return int_list(occupied_points(cells))


def _scan_array(scan: list[int]) -> vec[i64]:
    """A list of cells to scan as the code generators take it."""
    return POINTS if scan is POINT_CELLS else int_array(scan)


def pseudo_codes(
    cells: vec[i64], us: i64, codes: vec[i64], scan: vec[i64] = POINTS, marks: vec[i64] = _NO_RISK, plus: i64 = 0,
) -> i64:
    """Write into ``codes`` (room for :data:`MAX_MOVES`) the codes of the moves of ``us`` that follow each piece's
    movement rules (:func:`pseudo_legal`'s moves, in its order); return their count. ``scan``: the cells to look at,
    in point order (every piece of ``us`` among them; :func:`occupied_points`). ``marks``: per cell, ``plus`` is
    added for each piece of ``us`` that could capture there if an enemy stood there (its own pieces' cells too: it
    defends them; a cannon past a screen, not where it slides to)."""
    return _generate(cells, us, codes, scan, -1, 0, marks, plus, 0)


def _generate(
    cells: vec[i64], us: i64, codes: vec[i64], scan: vec[i64], k: i64, risk: i64, marks: vec[i64], plus: i64,
    counts: i64,
) -> i64:
    """:func:`pseudo_codes`, keeping of the moves of the general on ``k`` (not in check) and of a piece on a line or
    leg ``risk`` marks (:func:`_risks`) those that leave it unattacked, tested as the piece's are written (at the end;
    ``counts`` as :func:`legal_codes` takes it)."""
    danger = _DANGER_ROWS[k] if k >= 0 else _NO_RISK
    n: i64 = 0
    side = (us >> 3) * _size
    lo = us + 1  # the codes of our pieces are lo .. hi (the colour plus the kind): tested by comparisons, which pure
    hi = us + 7  # Python specializes, not by ``&``
    for i in scan:
        kind = cells[i] - us
        if kind <= 0 or kind > 7:  # empty, or the other colour's
            continue
        start = n
        row = CODES[i]
        if kind == CHARIOT or kind == CANNON:
            cannon = kind == CANNON
            slid: i64 = 0 if cannon else plus  # the mark of a cell slid over: a cannon captures only past a screen
            for step in _BELOW:
                # the lower rays, farthest target first: find the end, then list back towards i
                t = i + step
                q = cells[t]
                while q == 0:
                    t += step
                    q = cells[t]
                if q != OFF:
                    if cannon:
                        c = t + step
                        q = cells[c]
                        while q == 0:
                            marks[c] += plus
                            c += step
                            q = cells[c]
                        if q != OFF:
                            marks[c] += plus
                            if q < lo or q > hi:
                                codes[n] = row[c]
                                n += 1
                    else:
                        marks[t] += plus
                        if q < lo or q > hi:
                            codes[n] = row[t]
                            n += 1
                t -= step
                while t != i:
                    codes[n] = row[t]
                    n += 1
                    if slid:
                        marks[t] += slid
                    t -= step
            for step in _ABOVE:
                t = i + step
                q = cells[t]
                while q == 0:
                    codes[n] = row[t]
                    n += 1
                    if slid:
                        marks[t] += slid
                    t += step
                    q = cells[t]
                if q == OFF:
                    continue
                if cannon:
                    t += step
                    q = cells[t]
                    while q == 0:
                        marks[t] += plus
                        t += step
                        q = cells[t]
                    if q == OFF:
                        continue
                marks[t] += plus
                if q < lo or q > hi:
                    codes[n] = row[t]
                    n += 1
        elif kind == HORSE or kind == ELEPHANT:
            for e in _HORSE_ROWS[i] if kind == HORSE else _ELEPHANT_ROWS[side + i]:
                if cells[e & 255] == 0:
                    t = e >> 8
                    marks[t] += plus
                    q = cells[t]  # the steps land on the board: never OFF
                    if q < lo or q > hi:
                        codes[n] = row[t]
                        n += 1
        else:
            for t in (_KING_ROWS if kind == KING else _ADVISOR_ROWS if kind == ADVISOR else _SOLDIER_ROWS)[side + i]:
                marks[t] += plus
                q = cells[t]
                if q < lo or q > hi:
                    codes[n] = row[t]
                    n += 1
        d = danger[i]
        if i == k or (d != 0 and risk >> (_LEGS + i - k if d == LEG else d + STRIDE) & 1):
            n = _keep_legal(cells, us, k, i, codes, start, n, marks, counts)
    return n


def _keep_legal(
    cells: vec[i64], us: i64, k: i64, frm: i64, codes: vec[i64], start: i64, end: i64, marks: vec[i64], counts: i64,
) -> i64:
    """Keep those of the moves ``codes[start:end]`` from ``frm`` that leave the general on ``k`` (not in check)
    unattacked; the end. The general's own moves: by :func:`_king_safe` where ``counts`` reads its attackers from
    ``marks``, else played. Another piece's quiet move along its own line from ``k`` keeps the line's pieces in
    their order (safe), and its quiet moves off every line from ``k`` change only ``frm``'s line or leg, alike
    (tested once)."""
    danger = _DANGER_ROWS[k]
    df = danger[frm]
    off: i64 = -1  # whether a quiet move off every line exposes the general: 1 or 0 once tested
    kept = start
    for j in range(start, end):
        c = codes[j]
        to = c & 255
        if frm == k:
            safe = _king_safe(cells, k, us, to, marks[to] & counts) if counts else _safe(cells, k, us, frm, to)
        else:
            dt = danger[to]
            if cells[to] != 0 or (dt != 0 and (dt != df or df == LEG)):
                safe = not _exposes(cells, us, frm, to, k, df, dt)
            elif dt == 0:
                if off < 0:
                    off = 1 if _exposes(cells, us, frm, to, k, df, 0) else 0
                safe = off == 0
            else:
                safe = True
        if safe:
            codes[kept] = c
            kept += 1
    return kept


def pseudo_legal(cells: vec[i64], us: int, out: list[Move], scan: list[int] = POINT_CELLS) -> None:
    """Append to ``out`` the moves of ``us`` that follow each piece's movement rules (:meth:`Board.pseudo_legal_moves`
    on a cell list), by from-cell, then to-cell. ``scan``: the cells to look at, in point order (every piece of
    ``us`` among them; :func:`occupied_cells`)."""
    codes = _NO_CODES[:]
    out += moves_of(codes, pseudo_codes(cells, us, codes, _scan_array(scan)))


def _pseudo_legal_move(cells: vec[i64], us: int, frm: int, to: int) -> bool:
    """:meth:`Board.is_pseudo_legal` on a cell list, ``us`` to move."""
    p = cells[frm]
    if p == OFF or not p or p & BLACK != us or not _on[to]:
        return False
    q = cells[to]
    if q != 0 and q & BLACK == us:
        return False
    kind = p & 7
    if kind == CHARIOT or kind == CANNON:
        if FILE_OF[frm] == FILE_OF[to]:
            step = STRIDE if to > frm else -STRIDE
        elif RANK_OF[frm] == RANK_OF[to]:
            step = 1 if to > frm else -1
        else:
            return False
        between = 0
        t = frm + step
        while t != to:
            if cells[t]:
                between += 1
            t += step
        if kind == CHARIOT:
            return between == 0
        return between == 0 if q == 0 else between == 1
    if kind == HORSE or kind == ELEPHANT:
        pairs = HORSE_JUMPS[frm] if kind == HORSE else ELEPHANT_STEPS[us][frm]
        for t, block in pairs:
            if t == to and cells[block] == 0:
                return True
        return False
    table = (KING_STEPS if kind == KING else ADVISOR_STEPS if kind == ADVISOR else SOLDIER_STEPS)[us]
    return to in table[frm]


def _safe(cells: vec[i64], k: i64, us: i64, frm: i64, to: i64) -> bool:
    """Whether moving ``frm`` -> ``to`` (pseudo-legal) leaves the general of ``us`` (on ``k``) unattacked."""
    piece = cells[frm]
    captured = cells[to]
    cells[to] = piece
    cells[frm] = 0
    bad = _attacked(cells, to if frm == k else k, us)
    cells[frm] = piece
    cells[to] = captured
    return not bad


def _king_safe(cells: vec[i64], k: i64, us: i64, t: i64, attackers: i64) -> bool:
    """Whether the general of ``us`` on ``k``, not in check, may step to ``t``, given the count of the opponent's
    pieces that could capture on ``t`` now, ``attackers`` (the model's marks): :func:`_safe` without playing the step.
    Emptying ``k`` changes only the line through ``k`` and ``t`` (a horse's leg is a diagonal neighbour, never ``k``):
    a cannon right past ``k`` loses its screen (a chariot there, or a cannon past one screen, would check ``k``
    already); and on ``t``'s file the generals may come to face."""
    enemy = us ^ BLACK
    d = k - t
    s = k + d  # the first piece past k, seen from t
    p = cells[s]
    while p == 0:
        s += d
        p = cells[s]
    if p == CANNON | enemy:
        attackers -= 1  # it captures on t over the general as its screen: not once the general stands on t
    if attackers > 0 or p == CHARIOT | enemy or p == KING | enemy:
        return False
    up = STRIDE if us == RED else -STRIDE  # towards the other general's palace
    s = t + up
    while cells[s] == 0:
        s += up
    return cells[s] != KING | enemy


def generals_face(cells: vec[i64], red: i64, black: i64) -> bool:
    """Whether the generals on ``red`` and ``black`` (:attr:`Board.kings`) share a file with nothing between them (the
    flying general)."""
    if FILE_OF[red] != FILE_OF[black]:
        return False
    t = red + STRIDE  # the red palace lies below the black one
    while t < black:
        if cells[t]:
            return False
        t += STRIDE
    return True


def code_index(codes: vec[i64], n: i64, code: i64) -> i64:
    """The index of ``code`` among the first ``n`` move codes, ascending as the generators write them (by from-cell,
    then to-cell), -1 if it is not there."""
    lo: i64 = 0
    hi = n
    if not PACKED:  # pure Python: the list bisected in C, not a loop of interpreted steps
        lo = bisect_left(codes, code, 0, n)
        hi = lo
    while lo < hi:
        mid = (lo + hi) >> 1
        if codes[mid] < code:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < n and codes[lo] == code else -1


def legal_codes(
    cells: vec[i64], k: i64, us: i64, scan: vec[i64] = POINTS, checked: i64 = -1, marks: vec[i64] = _NO_RISK,
    plus: i64 = 0, counts: i64 = 0,
) -> tuple[vec[i64], i64]:
    """The codes of the legal moves of ``us``, whose general stands on ``k``, and their count: :func:`legal` as
    move codes (the first ``count`` items; ``scan``, ``marks`` and ``plus`` as :func:`pseudo_codes` takes them).
    ``checked``: 1 or 0 when the caller knows whether ``us`` is in check (:meth:`Board.is_check`), -1 to have it
    tested. ``counts``: the bits of ``marks`` that count, per cell, the opponent's pieces that could capture there
    (the rank model's marks), from which the general's steps are tested (:func:`_king_safe`); 0 for none."""
    codes = _NO_CODES[:]
    if _attacked(cells, k, us) if checked < 0 else checked == 1:
        n = pseudo_codes(cells, us, codes, scan, marks, plus)
        danger = _DANGER_ROWS[k]
        kept: i64 = 0
        for j in range(n):  # indexed, not a slice: compiled, no array is copied
            c = codes[j]
            frm = c >> 8
            to = c & 255
            # another piece's quiet move touching no line or leg of the general leaves every attack on it: in check
            if frm != k and danger[frm] == 0 and danger[to] == 0 and cells[to] == 0:
                continue
            if _safe(cells, k, us, frm, to):
                codes[kept] = c
                kept += 1
        return codes, kept
    risk, hazard = _risks(cells, k, us)
    n = _generate(cells, us, codes, scan, k, risk, marks, plus, counts)
    if not hazard:
        return codes, n
    # a move onto the empty cells between the general and an enemy cannon facing it screens (the line tested: exactly)
    danger = _DANGER_ROWS[k]
    kept = 0
    for j in range(n):
        c = codes[j]
        frm = c >> 8
        to = c & 255
        dt = danger[to]
        if frm != k and dt != 0 and dt != LEG and hazard >> (dt + STRIDE) & 1:
            if _exposes(cells, us, frm, to, k, danger[frm], dt):
                continue
        codes[kept] = c
        kept += 1
    return codes, kept


_LEGS: Final = STRIDE + 2  # below 31 (compiled, ``1 << n`` shifts a C int): bits 1, 3, 27, 29; the lines' 0, 12, 14, 26
"""Bit ``_LEGS + leg - k`` of :func:`_risks`' mask: the leg of an enemy horse aimed at the general on ``k``."""


def _risks(cells: vec[i64], k: i64, us: i64) -> tuple[i64, i64]:
    """For ``us`` not in check with the general on ``k``, as bits: the lines from it holding an enemy chariot or (the
    file) general past at most one piece, or an enemy cannon past at most two, bit ``step + STRIDE``, and the legs of
    enemy horses aimed at it (:data:`_LEGS`), which a piece moved off may open; the lines whose first piece is an
    enemy cannon with empty cells between, which a piece put there screens. Every other move is legal."""
    risk: i64 = 0
    hazard: i64 = 0
    enemy = us ^ BLACK
    e_rook = CHARIOT | enemy
    e_cannon = CANNON | enemy
    e_king = KING | enemy
    for step in _STEPS:
        t = k + step
        p = cells[t]
        while p == 0:
            t += step
            p = cells[t]
        if p == e_cannon and t != k + step:
            hazard |= 1 << (step + STRIDE)
        # p is past ``between`` pieces: a move takes at most one of them off the line, so a chariot (or the general)
        # past two, or a cannon past three, stays blocked whatever moves
        between: i64 = 0
        while p != OFF and between <= 2:
            facing = p == e_king and (step == STRIDE or step == -STRIDE)
            if p == e_cannon or (between <= 1 and (p == e_rook or facing)):
                risk |= 1 << (step + STRIDE)
                break
            between += 1
            t += step
            p = cells[t]
            while p == 0:
                t += step
                p = cells[t]
    e_horse = HORSE | enemy
    for e in _HORSE_ATTACKER_ROWS[k]:
        if cells[e >> 8] == e_horse:
            risk |= 1 << (_LEGS + (e & 255) - k)
    return risk, hazard


def legal(cells: vec[i64], k: int, us: int, scan: list[int] = POINT_CELLS) -> list[Move]:
    """The legal moves of ``us``, whose general stands on ``k`` (:meth:`Board.legal_moves` on a cell list); ``scan``
    as :func:`pseudo_legal` takes it."""
    codes, n = legal_codes(cells, k, us, _scan_array(scan))
    return moves_of(codes, n)


def _exposes(cells: vec[i64], us: i64, frm: i64, to: i64, k: i64, df: i64, dt: i64) -> bool:
    """Whether a non-general move ``frm`` -> ``to`` of ``us``, played when not in check, lets an attack reach
    the general on ``k``: only the lines through ``frm`` and ``to`` (steps ``df`` and ``dt`` from :data:`DANGER`)
    and a horse leg on ``frm`` can change."""
    piece = cells[frm]
    captured = cells[to]
    cells[to] = piece
    cells[frm] = 0
    enemy = us ^ BLACK
    e_rook = CHARIOT | enemy
    e_cannon = CANNON | enemy
    e_king = KING | enemy
    hit = False
    for n in range(2):
        step = df if n == 0 else dt
        if step == 0 or step == LEG:
            continue
        t = k + step
        p = cells[t]
        while p == 0:
            t += step
            p = cells[t]
        if p == OFF:
            continue
        if p == e_rook or (p == e_king and (step == STRIDE or step == -STRIDE)):
            hit = True
            break
        t += step
        p = cells[t]
        while p == 0:
            t += step
            p = cells[t]
        if p == e_cannon:
            hit = True
            break
    if not hit and df == LEG:
        e_horse = HORSE | enemy
        for e in _HORSE_ATTACKER_ROWS[k]:
            if e & 255 == frm and cells[e >> 8] == e_horse:
                hit = True
                break
    cells[frm] = piece
    cells[to] = captured
    return hit
