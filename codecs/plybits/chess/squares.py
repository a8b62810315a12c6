"""The chess board's geometry and tables: squares on the shared mailbox (an 8x8 board inside a border of 2),
piece codes, steps, the line and jump tables the rules look up, and the interned :class:`Move` and its code.

A piece is an ``int``: its colour bit (:data:`WHITE` = 0, :data:`BLACK` = 8) or-ed with its kind (:data:`PAWN` = 1
... :data:`KING` = 6); an empty cell holds :data:`EMPTY` (0). The rules themselves: :mod:`plybits.chess.movegen`
(on bare cells) and :mod:`plybits.chess.board` (on a position).
"""

from __future__ import annotations

import operator
from typing import Final, NamedTuple, cast


from plybits.errors import InvalidMoveError
from plybits.mailbox import Geometry, Square
from plybits.packed import int_array

FILE_NAMES = "abcdefgh"
GEOMETRY = Geometry(8, 8, 2, name=lambda f, r: FILE_NAMES[f] + str(r + 1))
"""The chess board: 8 x 8 inside a border of 2 (so knight jumps stay in the array)."""
# Literal constants (the geometry's, checked below), so that compiled code folds them into its arithmetic.
STRIDE: Final = 12
SIZE: Final = 144
if (GEOMETRY.stride, GEOMETRY.size) != (STRIDE, SIZE):
    raise AssertionError("chess geometry and its STRIDE/SIZE constants disagree")
SQUARES: Final[tuple[int, ...]] = GEOMETRY.squares
"""The 64 playable squares, a1, b1, ..., h8."""
A1: Final = 2 * STRIDE + 2
"""a1's cell: the squares of each rank are the 8 cells from ``A1 + rank * STRIDE``."""
if SQUARES[0] != A1 or SQUARES[8] != A1 + STRIDE:
    raise AssertionError("chess geometry and its A1 constant disagree")

EMPTY: Final = 0
WHITE: Final = 0
BLACK: Final = 8
PAWN: Final = 1
KNIGHT: Final = 2
BISHOP: Final = 3
ROOK: Final = 4
QUEEN: Final = 5
KING: Final = 6
SYMBOLS = ".PNBRQK..pnbrqk"
"""FEN letter of each piece code (index = colour | kind)."""
PIECE_OF_SYMBOL = {s: i for i, s in enumerate(SYMBOLS) if s != "."}
PROMOTION_LETTERS: Final = {KNIGHT: "n", BISHOP: "b", ROOK: "r", QUEEN: "q"}
PROMOTION_OF_LETTER = {v: k for k, v in PROMOTION_LETTERS.items()}

N: Final = STRIDE
S: Final = -STRIDE
E: Final = 1
W: Final = -1
ORTHOGONAL: Final[tuple[int, ...]] = (N, S, E, W)
DIAGONAL: Final[tuple[int, ...]] = (N + E, N + W, S + E, S + W)
KING_STEPS: Final[tuple[int, ...]] = ORTHOGONAL + DIAGONAL
KNIGHT_STEPS: Final[tuple[int, ...]] = (2 * N + E, 2 * N + W, 2 * S + E, 2 * S + W, N + 2 * E, N + 2 * W, S + 2 * E, S + 2 * W)

FILE_OF: Final[list[int]] = [-1] * SIZE
RANK_OF: Final[list[int]] = [-1] * SIZE
NAMES: Final[list[str]] = [""] * SIZE
for _sq in SQUARES:
    FILE_OF[_sq], RANK_OF[_sq] = GEOMETRY.coords(_sq)
    NAMES[_sq] = GEOMETRY.name(_sq)
SQUARE_OF_NAME = {NAMES[s]: s for s in SQUARES}
_ON_BOARD: Final = operator.itemgetter(*SQUARES)
"""The 64 playable cells of a board list, a1..h8 (for compact repetition keys)."""


def square(file: int, rank: int) -> int:
    """The index of the square at ``file``, ``rank`` (0-based)."""
    return GEOMETRY.index(file, rank)


def parse_square(name: str) -> int:
    """The index of a named square such as ``"e4"``.

    :raises InvalidMoveError: if there is no such square.
    """
    return GEOMETRY.parse(name)


def square_name(sq: int) -> str:
    """The name of a square index, e.g. ``"e4"``."""
    return NAMES[sq]


def castling_two_step(king: int, rook: int) -> int:
    """Where the king lands castling from ``king`` with the rook on ``rook`` (its g- or c-file square): how
    standard chess spells castling, which :class:`Move` spells king-takes-rook."""
    return rook - FILE_OF[rook] + (6 if rook > king else 2)


def castling_rook(king: int, to: int) -> int:
    """The rook square a standard-chess castling ``king``->``to`` (e-file to the g- or c-file of its rank) takes;
    -1 if the step is not one (the other spelling of :func:`castling_two_step`, for a king and rook where
    standard chess puts them)."""
    if FILE_OF[king] == 4 and RANK_OF[king] == RANK_OF[to] and FILE_OF[to] in (2, 6):
        return to - FILE_OF[to] + (7 if FILE_OF[to] == 6 else 0)
    return -1


def _line_table() -> list[int]:
    """LINE[a * SIZE + b]: the unit step from a towards b when they share a rank, file or diagonal, else 0."""
    table = [0] * (SIZE * SIZE)
    for a in SQUARES:
        for step in KING_STEPS:
            b = a + step
            while GEOMETRY.on_board[b]:
                table[a * SIZE + b] = step
                b += step
    return table


LINE: Final[list[int]] = _line_table()
ADJACENT: Final[list[bool]] = [False] * (2 * SIZE)
for _step in KING_STEPS:
    ADJACENT[SIZE + _step] = True
KNIGHT_JUMP: Final[list[bool]] = [False] * (2 * SIZE)
for _step in KNIGHT_STEPS:
    KNIGHT_JUMP[SIZE + _step] = True
SLIDER_STEPS = {BISHOP: DIAGONAL, ROOK: ORTHOGONAL, QUEEN: KING_STEPS}
_SLIDER_STEPS_OF: Final[list[list[int]]] = [list(SLIDER_STEPS.get(kind, ())) for kind in range(8)]
"""_SLIDER_STEPS_OF[kind]: the steps a slider of that kind moves along (none for the other kinds)."""
# The step and target tables the move generator loops over are int_arrays: compiled, such a loop reads plain C
# integers where a loop over a tuple or list unboxes an int object an item.
_TARGETS_OF_KNIGHT = [
    sorted(s + d for d in KNIGHT_STEPS if GEOMETRY.on_board[s + d]) if GEOMETRY.on_board[s] else [] for s in range(SIZE)
]
_KNIGHT_TARGETS: Final = int_array([t for targets in _TARGETS_OF_KNIGHT for t in targets])
"""The squares a knight on each square jumps to, ascending (the legal moves' order), square by square: a knight on
``sq``'s are ``_KNIGHT_TARGETS[_KNIGHT_TARGETS_AT[sq]:_KNIGHT_TARGETS_AT[sq + 1]]`` (one flat array: no array of
arrays unboxed a knight)."""
_KNIGHT_TARGETS_AT: Final = int_array([sum(len(targets) for targets in _TARGETS_OF_KNIGHT[:s]) for s in range(SIZE + 1)])
_KNIGHT_JUMPS: Final = int_array(list(KNIGHT_STEPS))
_KING_STEP_ARRAY: Final = int_array(list(KING_STEPS))
""":data:`KNIGHT_STEPS` and :data:`KING_STEPS` as int_arrays."""
_KING_STEPS_BELOW: Final = int_array([S + W, S, S + E])
_KING_STEPS_ALONG: Final = int_array([W, E])
_KING_STEPS_ABOVE: Final = int_array([N + W, N, N + E])
"""The king's steps in the legal moves' order: to the rank below, along its own rank, to the rank above."""
PAWN_CAPTURES: Final[list[list[int]]] = [[N + E, N + W], [S + E, S + W]]
"""PAWN_CAPTURES[colour >> 3]: the steps a pawn of that colour captures along."""
_SLIDERS_ALONG: Final[list[int]] = [0] * (2 * SIZE)
"""_SLIDERS_ALONG[SIZE + step]: the kinds that move along ``step``, one bit each (``1 << kind``)."""
for _kind, _steps in SLIDER_STEPS.items():
    for _step in _steps:
        _SLIDERS_ALONG[SIZE + _step] |= 1 << _kind


BIT_OF: Final = int_array([0] * SIZE)
"""BIT_OF[sq]: the bit of a playable square in a board's bitboards of its men (:attr:`~plybits.chess.board.Board.men`),
``1 << (rank * 8 + file)`` (h8's, bit 63, as the signed 64-bit value, so that every bitboard fits an ``i64`` in
both builds); 0 off the board."""
for _sq in SQUARES:
    _bit = RANK_OF[_sq] * 8 + FILE_OF[_sq]
    BIT_OF[_sq] = 1 << _bit if _bit < 63 else -(1 << 63)
_RAYS: Final = int_array([0] * (SIZE * 8))
"""_RAYS[sq * 8 + i]: the squares from ``sq`` (excluded) along ``KING_STEPS[i]`` to the edge, as a bitboard
(:data:`BIT_OF`): a line from the king that holds no enemy man gives no check and pins nothing."""
for _sq in SQUARES:
    for _i, _step in enumerate(KING_STEPS):
        _t = _sq + _step
        while GEOMETRY.on_board[_t]:
            _RAYS[_sq * 8 + _i] |= BIT_OF[_t]
            _t += _step


def _signed64(bits: int) -> int:
    """A 64-bit pattern (0 ... 2^64 - 1) as the signed value an ``i64`` holds (h8, bit 63, the sign)."""
    return bits - (1 << 64) if bits >> 63 else bits


def _rank_reach(file: int, inner: int) -> int:
    """The files a slider on ``file`` of a line of 8 reaches (8 bits), the men of the line's inner six (files b-g)
    being the bits of ``inner``: each way up to and with the first man, or to the end."""
    men = inner << 1
    reach = 0
    for step in (1, -1):
        f = file + step
        while 0 <= f < 8:
            reach |= 1 << f
            if men >> f & 1:
                break
            f += step
    return reach


_LINE_INDEX: Final = 0x0202020202020202
"""The multiplier that gathers a diagonal's men (one a rank, each on its own file) into bits 57-63, files b-g at bits
58-63 (kindergarten bitboards): ``(men & diagonal) * _LINE_INDEX >> 58 & 63`` is their index into
:data:`_SLIDE_TABLE`."""
_FILE_INDEX: Final = 0x0004081020408000
"""The multiplier that gathers file a's men of ranks 2-7 into bits 58-63, rank by rank: ``(men >> file & FILE_A) *
_FILE_INDEX >> 58 & 63``."""
FILE_A: Final = 0x0101010101010101
"""The bitboard of file a."""
_SLIDE_FILE_AT: Final = 512
"""Where :data:`_SLIDE_TABLE`'s file-a reaches start (8 files of 64: a literal, a C constant compiled)."""
_SLIDE_LINES_AT: Final = 1024
"""Where :data:`_SLIDE_TABLE`'s rows of the squares start."""
_SLIDE_TABLE: Final = int_array(
    [_signed64(_rank_reach(file, inner) * FILE_A) for file in range(8) for inner in range(64)]
    + [sum(1 << (8 * rank) for rank in range(8) if _rank_reach(row, inner) >> rank & 1)
       for row in range(8) for inner in range(64)]
    + [0] * (4 * SIZE)
)
if len(_SLIDE_TABLE) != _SLIDE_LINES_AT + 4 * SIZE or _SLIDE_FILE_AT != 8 * 64:
    raise AssertionError("_SLIDE_TABLE and its offsets disagree")
"""What :func:`~plybits.chess.movegen.slide_bits` looks a slider's reach up in, by the men of each line through it
(kindergarten bitboards), one array (compiled, one module read a call):

- ``[file * 64 + inner]``: the reach along a line of a slider on ``file`` (files b-g's men ``inner``), as a byte
  repeated on every rank (read through a rank's or a diagonal's mask: that line's squares);
- ``[_SLIDE_FILE_AT + rank * 64 + inner]``: the reach on file a of a rook on ``rank`` (ranks 2-7's men ``inner``),
  shifted to the rook's file;
- ``[_SLIDE_LINES_AT + sq * 4 + i]``: square ``sq``'s bit number (``rank * 8 + file``), then its rank's, diagonal's
  (a1-h8 way) and anti-diagonal's squares (bitboards of :data:`BIT_OF`)."""
for _sq in SQUARES:
    _at = _SLIDE_LINES_AT + _sq * 4
    _SLIDE_TABLE[_at] = RANK_OF[_sq] * 8 + FILE_OF[_sq]
    for _t in SQUARES:
        if RANK_OF[_t] == RANK_OF[_sq]:
            _SLIDE_TABLE[_at + 1] |= BIT_OF[_t]
        if RANK_OF[_t] - FILE_OF[_t] == RANK_OF[_sq] - FILE_OF[_sq]:
            _SLIDE_TABLE[_at + 2] |= BIT_OF[_t]
        if RANK_OF[_t] + FILE_OF[_t] == RANK_OF[_sq] + FILE_OF[_sq]:
            _SLIDE_TABLE[_at + 3] |= BIT_OF[_t]
def _ray_squares(sq: int, step: int) -> tuple[int, ...]:
    """The squares from ``sq`` (excluded) along ``step`` to the edge, nearest first (none from a border cell)."""
    ray = []
    if GEOMETRY.on_board[sq]:
        t = sq + step
        while GEOMETRY.on_board[t]:
            ray.append(t)
            t += step
    return tuple(ray)


RAY_SQUARES: Final[list[tuple[int, ...]]] = [_ray_squares(_sq, _step) for _sq in range(SIZE) for _step in KING_STEPS]
"""RAY_SQUARES[sq * 8 + i]: the squares from ``sq`` (excluded) along ``KING_STEPS[i]`` to the edge, nearest first:
what pure Python walks a line by (a loop over a tuple, no step added and no border cell read)."""
SLIDER_RAYS: Final[list[tuple[tuple[int, ...], ...]]] = [
    tuple(RAY_SQUARES[_sq * 8 + _i] for _i, _step in enumerate(KING_STEPS)
          if _step in SLIDER_STEPS.get(_piece & 7, ()) and RAY_SQUARES[_sq * 8 + _i])
    for _piece in range(16) for _sq in range(SIZE)
]
"""SLIDER_RAYS[piece * SIZE + sq]: the rays (:data:`RAY_SQUARES`, none empty) a bishop, rook or queen on ``sq``
slides along; none for the other pieces."""
JUMP_SQUARES: Final[list[tuple[int, ...]]] = [
    tuple(_sq + _step for _step in (
        (N + W, N + E) if _piece == WHITE | PAWN else (S + W, S + E) if _piece == BLACK | PAWN
        else KNIGHT_STEPS if _piece & 7 == KNIGHT else KING_STEPS if _piece & 7 == KING else ()
    ) if GEOMETRY.on_board[_sq] and GEOMETRY.on_board[_sq + _step])
    for _piece in range(16) for _sq in range(SIZE)
]
"""JUMP_SQUARES[piece * SIZE + sq]: the squares a pawn (of its colour), knight or king on ``sq`` attacks, ascending
by step order; none for the other pieces (:data:`_JUMP_BITS` as a tuple to loop over)."""
_RAY_OF_STEP: Final = int_array([-1] * (2 * SIZE))
"""_RAY_OF_STEP[SIZE + step]: the index of a king step in :data:`KING_STEPS` (its rays' in :data:`_RAYS`); -1 for
another step."""
for _i, _step in enumerate(KING_STEPS):
    _RAY_OF_STEP[SIZE + _step] = _i
_JUMP_BITS: Final = int_array([0] * (16 * SIZE))
"""_JUMP_BITS[piece * SIZE + sq]: the squares a pawn (of its colour), knight or king on ``sq`` attacks, as a bitboard
(:data:`BIT_OF`); 0 for the other pieces."""
for _piece, _jumps in ((WHITE | PAWN, (N + W, N + E)), (BLACK | PAWN, (S + W, S + E)), (WHITE | KNIGHT, KNIGHT_STEPS),
                       (BLACK | KNIGHT, KNIGHT_STEPS), (WHITE | KING, KING_STEPS), (BLACK | KING, KING_STEPS)):
    for _sq in SQUARES:
        for _step in _jumps:
            _JUMP_BITS[_piece * SIZE + _sq] |= BIT_OF[_sq + _step]
LOWEST_BIT: Final = int_array([(_row & -_row).bit_length() - 1 for _row in range(256)])
"""LOWEST_BIT[row]: the file of the lowest set bit of an 8-bit rank of a bitboard (-1 for 0)."""


class Move(NamedTuple):
    """A move from one square index to another, with the promotion kind (0 for none).

    Castling is the king's move onto its own rook; :data:`NULL_MOVE` is ``Move(0, 0)``.
    """

    from_square: Square
    to_square: Square
    promotion: int = 0

    @classmethod
    def from_uci(cls, text: str) -> Move:
        """The raw move ``text`` names (``"e2e4"``, ``"a7a8q"``, ``"0000"``), not checked against a position.

        :raises InvalidMoveError: on bad syntax.
        """
        if text == "0000":
            return NULL_MOVE
        if len(text) not in (4, 5) or text[:2] not in SQUARE_OF_NAME or text[2:4] not in SQUARE_OF_NAME:
            raise InvalidMoveError(f"invalid uci: {text!r}")
        promotion = 0
        if len(text) == 5:
            if text[4] not in PROMOTION_OF_LETTER:
                raise InvalidMoveError(f"invalid promotion piece in uci: {text!r}")
            promotion = PROMOTION_OF_LETTER[text[4]]
        return move(SQUARE_OF_NAME[text[:2]], SQUARE_OF_NAME[text[2:4]], promotion)

    def raw_uci(self) -> str:
        """The move as ``from``+``to``(+promotion) square names; castling as king-takes-rook."""
        if not self.from_square:
            return "0000"
        text = NAMES[self.from_square] + NAMES[self.to_square]
        return text + PROMOTION_LETTERS[self.promotion] if self.promotion else text

    def __repr__(self) -> str:
        return f"Move.from_uci({self.raw_uci()!r})"

    def __bool__(self) -> bool:
        return self.from_square != 0


NULL_MOVE: Final = Move(0, 0, 0)
CODE_FROM: Final = 256
"""A move's code is ``(from * CODE_FROM + to) * 8 + promotion`` (:func:`move_code`): its index in
:data:`MOVE_TABLE`, and what :func:`legal_codes` lists. A power of two above :data:`SIZE`, so that compiled code
unpacks it with shifts: ``code >> 11``, ``code >> 3 & 255``, ``code & 7``."""
_MOVES: Final[list[Move | None]] = [None] * (SIZE * CODE_FROM * 8)
_MOVES[0] = NULL_MOVE


def move_code(m: Move) -> int:
    """The code of ``m`` (:data:`CODE_FROM`); the null move's is 0."""
    return (m[0] * CODE_FROM + m[1]) * 8 + m[2]


def move(from_square: Square, to_square: Square, promotion: int = 0) -> Move:
    """The (shared, interned) :class:`Move` object for these squares and promotion kind."""
    key = (from_square * CODE_FROM + to_square) * 8 + promotion
    found = _MOVES[key]
    if found is None:
        found = _MOVES[key] = Move(from_square, to_square, promotion)
    return found


for _a in SQUARES:
    for _b in SQUARES:
        if _a != _b:
            move(_a, _b)
            if abs(RANK_OF[_a] - RANK_OF[_b]) == 1 and RANK_OF[_b] in (0, 7) and abs(FILE_OF[_a] - FILE_OF[_b]) <= 1:
                for _promotion in (QUEEN, ROOK, BISHOP, KNIGHT):
                    move(_a, _b, _promotion)
MOVE_TABLE: Final = cast("list[Move]", _MOVES)
"""MOVE_TABLE[code]: the interned move of a :func:`move_code` (the null move at 0; every non-promotion move and every
pawn step or capture onto the last rank filled above; another promotion's entry is ``None``: :func:`move` makes
those)."""
