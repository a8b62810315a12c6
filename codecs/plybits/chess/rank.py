"""``chess/rank`` (codec 0x02): each ply's index among the legal moves, range-coded under a learned model.

Canonical order: the legal moves sorted by ``(from, to, promotion)`` with squares numbered
a1 = 0 ... h8 = 63 and promotion 0 none, 2 knight, 3 bishop, 4 rook, 5 queen (castling is
king-takes-rook); then the null move (PGN ``--``), which every model gives frequency 1.

- Model 0: uniform over that list.
- Model 1: a log-linear model over the move features of :meth:`LinearChessModel.scores` (piece-square
  tables, captures by victim and attacker, safety of the target square, checks, promotions,
  recaptures, the opponent's last move, the piece that just moved, castling, game phase), with
  integer weights learned by ``tools/train_chess.py`` and shipped in ``rank_model_v1.json``.

Feature ids are part of model 1's format: never change them; a new feature set is a new model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, cast, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.chess.board import MATERIAL, Board, _castling_rooks, legal_moves, map_buffer, reused_codes
from plybits.chess.movegen import pawn_bits, slide_bits
from plybits.chess.notation import san_index
from plybits.chess.squares import (
    A1,
    ADJACENT,
    BISHOP,
    BIT_OF,
    BLACK,
    DIAGONAL,
    E,
    FILE_OF,
    KING,
    KING_STEPS,
    KNIGHT,
    KNIGHT_JUMP,
    KNIGHT_STEPS,
    LINE,
    LOWEST_BIT,
    N,
    NULL_MOVE,
    ORTHOGONAL,
    PAWN,
    PAWN_CAPTURES,
    QUEEN,
    RANK_OF,
    RAY_SQUARES,
    ROOK,
    S,
    SIZE,
    SQUARES,
    STRIDE,
    W,
    WHITE,
    CODE_FROM,
    JUMP_SQUARES,
    MOVE_TABLE,
    SLIDER_RAYS,
    _JUMP_BITS,
    Move,
    move_code,
)
from plybits.packed import PACKED, int_array, int_list, zeros
from plybits.rangecoder import RangeDecoder, RangeEncoder
from plybits.rank import FeatureIds, LinearModel, RankScheme, decode_packed, encode_packed

SQUARE64 = [-1] * SIZE
"""a1 = 0 ... h8 = 63 of each mailbox index."""
for _sq in SQUARES:
    SQUARE64[_sq] = FILE_OF[_sq] + 8 * RANK_OF[_sq]
RELATIVE = ([-1] * SIZE, [-1] * SIZE)
"""RELATIVE[side][sq]: the square as seen by ``side`` (black's board flipped rank-wise), 0..63."""
for _sq in SQUARES:
    RELATIVE[0][_sq] = FILE_OF[_sq] + 8 * RANK_OF[_sq]
    RELATIVE[1][_sq] = FILE_OF[_sq] + 8 * (7 - RANK_OF[_sq])
PROMOTION_ORDER = {0: 0, KNIGHT: 2, BISHOP: 3, ROOK: 4, QUEEN: 5}


def move_key(move: Move) -> int:
    """The canonical sort key of a legal move: (from, to, promotion) as one integer."""
    return (SQUARE64[move[0]] * 64 + SQUARE64[move[1]]) * 8 + PROMOTION_ORDER[move[2]]


def canonical_moves(board: Board) -> list[Move]:
    """The legal moves in canonical order (the order :func:`~plybits.chess.board.legal_moves` makes them in:
    ascending :func:`move_key`), then the null move."""
    moves = legal_moves(board)  # the function: a method call on a Position goes through Python's lookup
    moves.append(NULL_MOVE)
    return moves


# ---------------------------------------------------------------- model 1 features (frozen)

VALUE = (0, 1, 3, 3, 5, 9, 0, 0)
"""Piece values by kind, for the attack maps (king 0 there: it never defends or attacks as a trade)."""
ATTACK_VALUE = (0, 1, 3, 3, 5, 9, 20, 0)
_ATTACK_VALUES: Final = int_array(list(ATTACK_VALUE))
""":data:`ATTACK_VALUE` as an :func:`~plybits.packed.int_array` (compiled, an item is a load, not an object)."""

_ids = FeatureIds()


F_TO = _ids.block(7 * 64)  # kind x relative to-square
F_FROM = _ids.block(7 * 64)  # kind x relative from-square
F_CAPTURE = _ids.block(7 * 7)  # victim kind x mover kind
F_SAFETY = _ids.block(2 * 3 * 3 * 7)  # capture? x attacked by (none, lower-or-equal... see _safety) x defended x kind
F_FROM_THREAT = _ids.block(3 * 7)  # from-square threat (none, attacked, attacked by a lower piece) x kind
F_CHECK = _ids.block(7)  # gives a direct check, by kind
F_PROMOTION = _ids.block(7)  # promotion kind
F_CASTLE = _ids.block(2)  # castling towards h, towards a
F_RECAPTURE = _ids.block(7)  # captures on the square the opponent just captured on, by kind
F_TAKES_LAST = _ids.block(7)  # captures the piece that just moved, by kind
F_SAME_PIECE = _ids.block(7)  # moves again the piece this side moved last, by kind
F_PHASE = _ids.block(4 * 7)  # material phase x kind
F_EVASION = _ids.block(7)  # side to move is in check, by kind
F_SLIDE = _ids.block(7 * 8)  # kind x distance (sliders)
F_KING_ZONE = _ids.block(7)  # lands next to the enemy king, by kind
F_LOSES_CASTLING = _ids.block(1)  # a king or rook move that gives up castling rights
F_PAWN_DOUBLE = _ids.block(1)
F_EN_PASSANT = _ids.block(1)
F_NULL = _ids.block(1)
F_HANGING_VICTIM = _ids.block(7)  # captures an undefended piece, by victim kind
N_FEATURES = _ids.count


_MATERIAL: Final = MATERIAL
if list(_MATERIAL) != [VALUE[p & 7] if p & 7 != PAWN else 0 for p in range(16)]:
    raise AssertionError("the board's MATERIAL and the rank model's VALUE disagree")
_THREAT_LEVELS = sorted(set(ATTACK_VALUE[PAWN:KING + 1]))
"""The distinct attack values (1, 3, 5, 9, 20)."""
_RANKS: Final = len(_THREAT_LEVELS)
_BY_RANK: Final = 6
"""The enemy ranks of an attack map entry, 0 (not attacked) to :data:`_RANKS`: a literal, which compiled code reads as
a C constant (a computed final is a module attribute read and checked a use)."""
if _BY_RANK != _RANKS + 1:
    raise AssertionError("_BY_RANK and _RANKS disagree")
# An attack map entry (:func:`_attack_maps`) packs, from the high bits down: the rank of the enemy's cheapest
# attacker of the square (0: none), our count of attacks on it (0..3: more count as 3, which the features do not
# tell from 3) and the check marks of :func:`_mark_checks`. Raising the rank keeps the bits below it, so the
# sides' pieces may be walked in any order; every entry stays below 2^7 (an int object of CPython's cache).
_DIAGONAL_MARK: Final = 1
"""Bit of an attack map entry: a bishop or queen there would attack the enemy king (blockers as they stand)."""
_ORTHOGONAL_MARK: Final = 2
"""Bit of an attack map entry: a rook or queen there would attack the enemy king (blockers as they stand)."""
_COUNT_UNIT: Final = 4
"""Our count of attacks on the square, in units of this (bits 2 and 3)."""
_COUNT_FULL: Final = 3 * _COUNT_UNIT
_RANK_UNIT: Final = 16
"""The enemy's rank, in units of this (bits 4 to 6): an entry of at least this is attacked by the enemy."""
_RANK_SHIFT: Final = 4
"""An attack map entry shifted right by this is the enemy's rank."""
if 1 << _RANK_SHIFT != _RANK_UNIT:
    raise AssertionError("_RANK_SHIFT and _RANK_UNIT disagree")
_THREAT: Final = int_array([
    (_RANKS - _THREAT_LEVELS.index(ATTACK_VALUE[p & 7])) * _RANK_UNIT if PAWN <= p & 7 <= KING else 0
    for p in range(16)
])
"""_THREAT[piece]: the rank of its attack value, the cheapest the highest (pawn 5 ... king 1), times
:data:`_RANK_UNIT`: the cheapest attacker of a square is the one of the highest rank."""
if [_THREAT[kind] // _RANK_UNIT for kind in range(PAWN, KING + 1)] != [5, 4, 4, 3, 2, 1]:
    raise AssertionError("_attack_maps's rank planes (pawn 5, knight and bishop 4, rook 3, queen 2, king 1) and _THREAT disagree")
_CHECK_MARKS: Final = int_array([
    _DIAGONAL_MARK if kind == BISHOP else _ORTHOGONAL_MARK if kind == ROOK
    else _DIAGONAL_MARK | _ORTHOGONAL_MARK if kind == QUEEN else 0
    for kind in range(8)
])
"""_CHECK_MARKS[kind]: the marks of the squares a slider of that kind checks from (0 for the other kinds)."""
if KING_STEPS[:len(ORTHOGONAL)] != ORTHOGONAL or len(KING_STEPS) != 8:
    raise AssertionError("_mark_checks reads the king's 8 rays, the orthogonal ones first")

_NO_MAP: Final = vec[i64]()
"""No array given: :func:`_attack_maps` makes one."""
_NO_ATTACKS: Final = int_array([0] * SIZE)
"""The attack map of no piece, which :func:`_attack_maps` copies (:func:`~plybits.packed.int_array`: compiled, a
``vec[i64]``, about 2x faster maps than a list)."""


_COUNTED: Final = int_array([
    entry + _COUNT_UNIT if entry & _COUNT_FULL != _COUNT_FULL else entry for entry in range(_RANK_UNIT * 8)
])
"""_COUNTED[entry]: an attack map entry with our count raised by one, up to 3 (what :func:`_walked_attack_maps` writes
for each of our attacks: one look-up, no test)."""
_RAISED: Final[list[vec[i64]]] = [
    int_array([max(entry, _THREAT[kind] + (entry & (_RANK_UNIT - 1))) for entry in range(_RANK_UNIT * 8)])
    for kind in range(8)
]
"""_RAISED[kind][entry]: an attack map entry with the enemy's rank raised to that of an attacker of ``kind``
(:data:`_THREAT`; unchanged where it is that or higher), for :func:`_walked_attack_maps`."""


_PLANE_ORDER: Final = (_DIAGONAL_MARK, _ORTHOGONAL_MARK, _COUNT_UNIT, 2 * _COUNT_UNIT, _RANK_UNIT, 2 * _RANK_UNIT,
                       4 * _RANK_UNIT)
"""The units of :func:`_attack_maps`'s seven bit planes (the check marks', our count's two, the enemy rank's three), in
the order :func:`_attack_maps` stacks a rank's rows of them, a byte each, and transposes the 8x8 bit matrix: plane ``u``'s
unit is ``1 << u``, so byte ``i`` of the transpose is file ``i``'s entry."""
if _PLANE_ORDER != tuple(1 << u for u in range(7)):
    raise AssertionError("_attack_maps's transposed planes and the attack map entry's bits disagree")


# The map is made as bitboards (:data:`~plybits.chess.squares.BIT_OF`) and spread to the cells once: in i64 locals
# (docs/architecture.md, "What makes compiled code fast"), compiled plain C; no square of a ray is walked.
def _attack_maps(
    b: vec[i64], us: int, men: i64 = -1, into: vec[i64] = _NO_MAP, material: i64 = -1, pawns: vec[i64] = _NO_MAP,
) -> tuple[vec[i64], int]:
    """(per square: the rank of the enemy's cheapest attacker of it (:data:`_THREAT`, 0: not attacked) plus the
    count of our attacks on it (:data:`_COUNT_UNIT`), the material of both sides' pieces other than pawns and kings).

    ``men``: a bitboard (:data:`~plybits.chess.squares.BIT_OF`) of both sides' men (:attr:`Board.men
    <plybits.chess.board.Board.men>` or'd); the default, -1, reads it from the 64 cells. ``into``: the array the map's
    squares are written to (:func:`~plybits.chess.board.map_buffer`: with the enemy king's check marks
    (:func:`_mark_checks`), and as bitboards at ``SIZE + square`` each slider's attacks, at ``SIZE`` the squares the
    enemy attacks, which the move generator reads, at :data:`_KEPT_MEN` what the next map keeps them by); the default,
    a new one (border cells 0, no marks). ``material``: the men's (:attr:`~plybits.chess.board.Board.material`), -1:
    summed. ``pawns``: each side's (:attr:`~plybits.chess.board.Board.pawns`), their attacks then made by shifts
    (:func:`~plybits.chess.movegen.pawn_bits`).

    Each man's attacks are a bitboard (a jump table's, :func:`slide_bits`, or in the buffer the last map's if a slider
    of its kind stood there and none of those squares' men came or went); ours counted in two bit planes (up to 3), the
    enemy's or'd by value, the cheapest giving the rank's three planes; the check marks the king's lines; a rank's seven
    planes, a byte each, transposed as a bit matrix are its 8 entries. Pure Python: :func:`_walked_attack_maps`."""
    if men == -1:
        men = _men_of(b)
    if material < 0:
        material = _material_of(b, men)
    if not PACKED:
        return _walked_attack_maps(b, us, men), material
    jumps = _JUMP_BITS
    lowest = LOWEST_BIT
    colour: i64 = us
    keep = len(into) == 2 * SIZE  # the board's buffer: room for the sliders' attacks beside the map
    s: i64
    rank: i64
    low: i64 = 0  # our count of attacks, its low bit and its high bit a square (3: 3 or more)
    high: i64 = 0
    by_pawns: i64 = 0  # the enemy's attacks by value: pawns, knights and bishops, rooks, queens, king
    minors: i64 = 0
    rooks: i64 = 0
    queens: i64 = 0
    king: i64 = 0
    their_king: i64 = -1
    walked: i64 = men
    if len(pawns) != 0:  # the pawns' attacks by shifts: our count's first two, the enemy's pawn attacks
        walked = men & ~(pawns[0] | pawns[1])
        low, high, by_pawns = pawn_bits(pawns[colour >> 3], pawns[(colour >> 3) ^ 1], colour)
    changed: i64 = -1  # the squares whose men came or went since the last map
    kept: i64 = 0  # its sliders' squares by kind, in two planes (bishop 01, rook 10, queen 11); this map's: odd, even
    kept_high: i64 = 0
    if keep:
        changed, kept, kept_high = into[_KEPT_MEN] ^ men, into[_KEPT_MEN + 1], into[_KEPT_MEN + 2]
    odd: i64 = 0
    even: i64 = 0
    for rank in range(8):  # the men rank by rank, each rank's by its lowest bit (no empty cell read)
        row: i64 = walked >> (rank * 8) & 255
        first: i64 = A1 + rank * STRIDE
        while row != 0:
            s = first + lowest[row]
            bit: i64 = (row & -row) << (rank * 8)
            row &= row - 1
            p: i64 = b[s]
            kind: i64 = p & 7
            a: i64
            if BISHOP <= kind <= QUEEN:
                odd |= bit & -(kind & 1)  # its square in this map's planes of the kinds
                even |= bit & -(kind >> 2)
                if keep and (kept ^ odd | kept_high ^ even) & bit == 0 and into[SIZE + s] & changed == 0:
                    a = into[SIZE + s]  # its kind stood there and none of its attacks' men came or went
                else:
                    a = slide_bits(s, men, kind)
                    if keep:
                        into[SIZE + s] = a
            else:
                a = jumps[p * SIZE + s]
            if p & BLACK == colour:  # counted, up to 3: one more on each square of ``a`` not at 3
                a &= ~(low & high)
                high ^= low & a
                low ^= a
            elif kind == PAWN:
                by_pawns |= a
            elif kind == KNIGHT or kind == BISHOP:
                minors |= a
            elif kind == ROOK:
                rooks |= a
            elif kind == QUEEN:
                queens |= a
            else:
                king |= a
                their_king = s
    diagonal: i64 = 0  # the check marks' planes (the board's buffer only)
    orthogonal: i64 = 0
    if keep:  # beside the map: the squares the enemy attacks, for the king's steps; what the next map keeps by
        into[SIZE] = by_pawns | minors | rooks | queens | king
        into[_KEPT_MEN], into[_KEPT_MEN + 1], into[_KEPT_MEN + 2] = men, odd, even
        if their_king >= 0:
            diagonal = slide_bits(their_king, men, BISHOP)
            orthogonal = slide_bits(their_king, men, ROOK)
    rank4 = by_pawns | minors  # the cheapest attacker's rank, 5 (pawn) ... 1 (king), as three bit planes
    rank2 = ~rank4 & (rooks | queens)
    rank1 = by_pawns | (~minors & (rooks | (~queens & king)))
    attacks = into if len(into) != 0 else _NO_ATTACKS[:]  # a new one: one copy of a zeroed vec (docs/architecture.md)
    _spread(attacks, diagonal, orthogonal, low, high, rank1, rank2, rank4)
    return attacks, material


_KEPT_MEN: Final = 145
"""In a board's buffer: the men its kept sliders' attacks were made with, then their squares' kinds (border cells)."""
if _KEPT_MEN != SIZE + 1 or A1 <= 3:
    raise AssertionError("_attack_maps's kept bitboards and the buffer's squares overlap")


def _spread(attacks: vec[i64], p0: i64, p1: i64, p2: i64, p3: i64, p4: i64, p5: i64, p6: i64) -> None:
    """Write into the 64 squares of ``attacks`` the entries of the seven bit planes ``p0`` ... ``p6`` (bitboards,
    :data:`~plybits.chess.squares.BIT_OF`; plane ``u``'s unit ``1 << u``, :data:`_PLANE_ORDER`).

    The planes, a byte a rank, are an 8x8 byte matrix: transposed by three swaps of blocks (Hacker's Delight's), word
    ``r`` holds rank ``r``'s byte of each plane; that word, an 8x8 bit matrix below 2^56, transposed the same way bit by
    bit, holds file ``i``'s entry in byte ``i``. No table read; compiled, plain C on i64 locals (a shift into the sign
    bit wraps, as in :func:`~plybits.chess.movegen.slide_bits`'s multiplications)."""
    p7: i64 = 0
    shift: i64 = 32  # a swap of the blocks of a row-index bit and its column-index bit: 4, then 1, then 2 (they commute)
    mask: i64 = 0xFFFFFFFF
    stage: i64
    for stage in range(3):  # each swaps the pairs 4 words apart, then the words are dealt out (0, 2, 4, 6, 1, 3, 5, 7)
        p0, p4 = p0 ^ (((p0 >> shift) ^ p4) & mask) << shift, p4 ^ (((p0 >> shift) ^ p4) & mask)
        p1, p5 = p1 ^ (((p1 >> shift) ^ p5) & mask) << shift, p5 ^ (((p1 >> shift) ^ p5) & mask)
        p2, p6 = p2 ^ (((p2 >> shift) ^ p6) & mask) << shift, p6 ^ (((p2 >> shift) ^ p6) & mask)
        p3, p7 = p3 ^ (((p3 >> shift) ^ p7) & mask) << shift, p7 ^ (((p3 >> shift) ^ p7) & mask)
        p1, p2, p3, p4, p5, p6 = p2, p4, p6, p1, p3, p5
        shift, mask = (8, 0x00FF00FF00FF00FF) if shift == 32 else (16, 0x0000FFFF0000FFFF)
    t: i64
    s: i64 = A1
    rank: i64
    for rank in range(8):  # rank by rank: its word in p0, the next ones moved down
        entries: i64 = p0
        t = (entries ^ (entries >> 7)) & 0x00AA00AA00AA00AA
        entries ^= t ^ (t << 7)
        t = (entries ^ (entries >> 14)) & 0x0000CCCC0000CCCC
        entries ^= t ^ (t << 14)
        t = (entries ^ (entries >> 28)) & 0x00000000F0F0F0F0
        entries ^= t ^ (t << 28)
        attacks[s] = entries & 255  # the rank's 8 cells, a statement each
        attacks[s + 1] = entries >> 8 & 255
        attacks[s + 2] = entries >> 16 & 255
        attacks[s + 3] = entries >> 24 & 255
        attacks[s + 4] = entries >> 32 & 255
        attacks[s + 5] = entries >> 40 & 255
        attacks[s + 6] = entries >> 48 & 255
        attacks[s + 7] = entries >> 56 & 255
        s += STRIDE
        p0, p1, p2, p3, p4, p5, p6 = p1, p2, p3, p4, p5, p6, p7


def _material_of(b: vec[i64], men: i64) -> i64:
    """The sum of :data:`_MATERIAL` of the ``men`` (a bitboard) on the cells ``b``."""
    material: i64 = 0
    material_of = _MATERIAL
    rank: i64
    for rank in range(8):
        row: i64 = men >> (rank * 8) & 255
        while row != 0:
            material += material_of[b[A1 + rank * STRIDE + LOWEST_BIT[row]]]
            row &= row - 1
    return material


def _men_of(b: vec[i64]) -> i64:
    """The bitboard (:data:`~plybits.chess.squares.BIT_OF`) of the men on the cells ``b``."""
    men: i64 = 0
    s: i64
    for s in SQUARES:
        if b[s] != 0:
            men |= BIT_OF[s]
    return men


def _walked_attack_maps(b: vec[i64], us: int, men: i64) -> vec[i64]:
    """:func:`_attack_maps` in pure Python, where a 64-bit int's every operation makes an object: each attacked
    square's entry looked up anew (:data:`_COUNTED`, :data:`_RAISED`) by a walk over the tuples of its squares
    (:data:`~plybits.chess.squares.JUMP_SQUARES`, :data:`~plybits.chess.squares.SLIDER_RAYS`: no step added, no
    border cell read; a new map). ``men``: as :func:`_attack_maps` takes it (-1: every square, the empty ones passed
    over)."""
    attacks = _NO_ATTACKS[:]  # one copy of a zeroed vec (docs/architecture.md)
    jumps = JUMP_SQUARES
    slider_rays = SLIDER_RAYS
    lowest = LOWEST_BIT
    counted = _COUNTED
    raised = _RAISED
    by_pawn = raised[PAWN]
    colour: i64 = us
    own_pawn: i64 = us | PAWN  # and the steps to its capture towards the a-file (t + 2: the h-file's, or a border cell)
    step: i64 = N + W if us == WHITE else S + W
    their_step: i64 = N + S + 2 * W - step  # an enemy pawn's
    s: i64
    rank: i64
    t: i64
    for rank in range(8):  # the men rank by rank (no empty cell read), in any order: counts saturate, ranks only rise
        row: i64 = men >> (rank * 8) & 255
        first: i64 = A1 + rank * STRIDE
        while row != 0:
            s = first + lowest[row]
            row &= row - 1
            p: i64 = b[s]
            kind: i64 = p & 7
            if kind == PAWN:  # pure Python: compared, not masked (CPython's `==` on ints is specialised, `&` is not)
                if p == own_pawn:
                    t = s + step
                    attacks[t] = counted[attacks[t]]
                    attacks[t + 2] = counted[attacks[t + 2]]
                else:  # an enemy pawn, the cheapest attacker
                    t = s + their_step
                    attacks[t] = by_pawn[attacks[t]]
                    attacks[t + 2] = by_pawn[attacks[t + 2]]
            elif BISHOP <= kind <= QUEEN:
                _slide_attacks(attacks, b, slider_rays[p * SIZE + s], counted if p & BLACK == colour else raised[kind])
            else:  # a knight's or king's jumps: our count raised, or the enemy's rank
                entries = counted if p & BLACK == colour else raised[kind]
                for t in jumps[p * SIZE + s]:
                    attacks[t] = entries[attacks[t]]
    return attacks


def _slide_attacks(attacks: vec[i64], b: vec[i64], rays: tuple[tuple[int, ...], ...], entries: vec[i64]) -> None:
    """A slider's ``rays`` (:data:`~plybits.chess.squares.SLIDER_RAYS`): each square along them, up to and with the
    first piece, given the entry ``entries`` maps its entry to (:data:`_COUNTED` or a :data:`_RAISED`)."""
    t: i64
    for ray in rays:
        for t in ray:
            attacks[t] = entries[attacks[t]]
            if b[t]:
                break


def _mark_checks(attacks: vec[i64], b: vec[i64], king: i64) -> None:
    """Mark in ``attacks`` the squares a slider would attack the ``king`` from, with the cells as they stand
    (:data:`_DIAGONAL_MARK`, :data:`_ORTHOGONAL_MARK`): each line from the king up to its first piece
    (:data:`~plybits.chess.squares.RAY_SQUARES`, the orthogonal ones first)."""
    rays = RAY_SQUARES
    at: i64 = king * 8
    i: i64
    t: i64
    for i in range(8):
        mark: i64 = _ORTHOGONAL_MARK if i < 4 else _DIAGONAL_MARK
        for t in rays[at + i]:
            attacks[t] = attacks[t] | mark
            if b[t]:
                break


_CHECK_MARK_BITS: Final = _DIAGONAL_MARK | _ORTHOGONAL_MARK
"""The check marks of an attack map entry (:func:`_mark_checks`)."""
_ZONE: Final = 1 << 2
"""Bit of a :data:`_NEAR_KING` entry: the square touches the king."""
_NEAR_BIT: Final = int_array([
    1 << (KNIGHT + 2) if p & 7 == KNIGHT else 1 << (PAWN + 2 if p == WHITE | PAWN else 9) if p & 7 == PAWN else 0
    for p in range(16)
])
"""_NEAR_BIT[piece]: its bit in a :data:`_NEAR_KING` entry, set where a knight or pawn checks from (bit 9: a black
pawn); 0 for the other pieces (a slider's check needs the cells between)."""
_NEAR_KING: Final = int_array([0] * (2 * SIZE))
"""_NEAR_KING[SIZE + king - square]: :data:`_ZONE` if the square touches the king, and the :data:`_NEAR_BIT` of
each knight or pawn that would check it from there (the board's ``ADJACENT``, ``KNIGHT_JUMP`` and pawn captures
in one look-up)."""
for _d in range(1 - SIZE, SIZE):
    _NEAR_KING[SIZE + _d] = (
        (_ZONE if ADJACENT[SIZE + _d] else 0)
        | (_NEAR_BIT[KNIGHT] if KNIGHT_JUMP[SIZE + _d] else 0)
        | (_NEAR_BIT[WHITE | PAWN] if _d in PAWN_CAPTURES[WHITE >> 3] else 0)
        | (_NEAR_BIT[BLACK | PAWN] if _d in PAWN_CAPTURES[BLACK >> 3] else 0)
    )


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 1's active feature ids of each move in ``moves`` (legal here, null move allowed), as training
    fits them: read back from :meth:`LinearChessModel.scores`, their one definition."""
    return MODEL.features(board, moves, history)


NULL_SCORE: Final = -(1 << 20)
"""The null move's score in :meth:`LinearChessModel.scored`, whatever its weight: far below every move, so
its frequency is 1."""

_SLIDE_LENGTH = [0] * (SIZE * SIZE)
"""_SLIDE_LENGTH[f * SIZE + t]: how many steps apart f and t are along their line (0: not on one)."""
for _f in SQUARES:
    for _t in SQUARES:
        if LINE[_f * SIZE + _t]:
            _SLIDE_LENGTH[_f * SIZE + _t] = (_t - _f) // LINE[_f * SIZE + _t]
if CODE_FROM != 1 << 8:
    raise AssertionError("chess move codes and the shifts of _scores disagree")
END_CODE: Final = -(1 << 12)
"""Ends the codes :func:`_scores` reads in an array that holds more (a move code is at least 0; its origin,
``code >> 11``, here -2: never the scorer's first origin, -1)."""
_NO_ROW: Final = int_array([])
"""A :attr:`_Tables.rows` entry not made yet."""


def _row_table(n: int) -> vec[vec[i64]]:
    """``n`` rows not made yet (:data:`_NO_ROW`): compiled, a ``vec[vec[i64]]``, whose item is read as one load (a list's
    is an object to check and unbox); in pure Python a list (which CPython indexes faster)."""
    return vec[vec[i64]]([_NO_ROW] * n) if PACKED else cast("vec[vec[i64]]", [_NO_ROW] * n)
_LEVELS: Final = 6 * _RANK_UNIT
"""The span of an attack map entry (enemy rank, own count): the stride of the safety and from-threat tables."""
_NEAR_ZONE: Final = _LEVELS
"""A :data:`_NEAR_CODE` term: the square touches the king."""
_NEAR_CHECK: Final = 2 * _LEVELS
"""A :data:`_NEAR_CODE` term: the piece there would check the king (a knight or a pawn: a slider's check is the
target's check marks)."""
_NEAR_CODE: Final = int_array([
    (_NEAR_ZONE if _NEAR_KING[SIZE + _d] & _ZONE else 0) + (_NEAR_CHECK if _NEAR_KING[SIZE + _d] & _NEAR_BIT[_p] else 0)
    for _p in range(16) for _d in range(-SIZE, SIZE)
])
"""_NEAR_CODE[piece * 2 * SIZE + SIZE + king - square]: :data:`_NEAR_ZONE` and :data:`_NEAR_CHECK` of the piece on the
square (:data:`_NEAR_KING` read for one piece): the offset, within the piece's, of the :attr:`_Tables.quiet` and
:attr:`_Tables.near` rows of those terms."""


@final
class _Tables:
    """What :meth:`LinearChessModel.scores` derives from the weights: the weights of each feature group laid
    out by the indices the scorer has at hand, so that a move's score is a few look-ups, in
    :func:`~plybits.packed.int_array` arrays (compiled, ``vec[i64]``: each a load; the model's ``packed_weights``)."""

    __slots__ = ("w", "rows", "safety", "from_threat", "captures", "recapture", "takes_last", "promotion", "check",
                 "zone", "quiet", "near", "same", "castle_h", "castle_a", "null", "loses_castling", "en_passant",
                 "target_terms", "near_last", "last_attacks", "replies")

    def __init__(self, w: list[int]) -> None:
        self.w = w
        self.rows = _row_table(4 * 16 * SIZE)
        """rows[(phase * 16 + piece) * SIZE + from][to]: the weights of the features that depend on the piece,
        its squares and the phase only (to- and from-square, phase, pawn double step or slide length); each row made
        whole on first use and then set, so that scorers in threads sharing the model see a row whole or not at
        all."""
        levels = _LEVELS
        safety = [0] * (7 * 2 * levels)
        """safety[(kind * 2 + capture) * _LEVELS + attack map entry]: the ``F_SAFETY`` weight."""
        from_threat = [0] * (7 * levels)
        """By kind x attack map entry: the ``F_FROM_THREAT`` weight (0 when not attacked)."""
        for kind in range(1, 7):
            for rank in range(_RANKS + 1):
                cheapest = _THREAT_LEVELS[_RANKS - rank] if rank else 0
                attacked = 0 if not rank else 1 if cheapest < ATTACK_VALUE[kind] else 2
                threat = 1 if cheapest >= ATTACK_VALUE[kind] else 2
                for low in range(_RANK_UNIT):  # our count and the check marks
                    entry = rank * _RANK_UNIT + low
                    count = low // _COUNT_UNIT
                    if rank:
                        from_threat[kind * levels + entry] = w[F_FROM_THREAT + threat * 7 + kind]
                    for capture in (0, 1):
                        defenders = count - (0 if kind == PAWN and not capture else 1)
                        feature = F_SAFETY + ((capture * 3 + attacked) * 3 + (2 if defenders > 1 else defenders)) * 7
                        safety[(kind * 2 + capture) * levels + entry] = w[feature + kind]
        self.safety = int_array(safety)
        evasion = w[F_EVASION:F_EVASION + 7]
        self.from_threat = int_array(from_threat + [
            from_threat[i] + evasion[i // levels] for i in range(len(from_threat))
        ])
        """from_threat[(in check) * 7 * _LEVELS + kind * _LEVELS + attack map entry]: the ``F_FROM_THREAT`` weight, and
        in check the ``F_EVASION`` weight of the kind."""
        self.captures = int_array([
            w[F_CAPTURE + victim_mover] + (w[F_HANGING_VICTIM + victim_mover // 7] if entry < _RANK_UNIT else 0)
            + safety[(victim_mover % 7 * 2 + 1) * levels + entry]
            for victim_mover in range(7 * 7) for entry in range(levels)
        ])
        """captures[(victim * 7 + mover) * _LEVELS + the target's attack map entry]: the weights of the capture
        (``F_CAPTURE``, ``F_HANGING_VICTIM`` where the enemy does not attack the target, and the capture's
        ``F_SAFETY``)."""
        self.recapture = int_array(w[F_RECAPTURE:F_RECAPTURE + 7])
        self.takes_last = int_array(w[F_TAKES_LAST:F_TAKES_LAST + 7])
        self.promotion = int_array(w[F_PROMOTION:F_PROMOTION + 7])
        self.check = int_array(w[F_CHECK:F_CHECK + 7])
        """By kind: the weight of a direct check."""
        self.zone = int_array(w[F_KING_ZONE:F_KING_ZONE + 7])
        """By kind: the weight of landing next to the enemy king."""
        near = [
            (w[F_KING_ZONE + kind] if zone else 0)
            + (w[F_CHECK + kind] if check or entry & _CHECK_MARKS[kind] else 0) if PAWN <= kind <= KING else 0
            for piece in range(16) for kind in (piece & 7,) for check in (0, 1) for zone in (0, 1)
            for entry in range(levels)
        ]
        self.near = int_array(near)
        """near[piece * 4 * _LEVELS + the target's :data:`_NEAR_CODE` + its attack map entry]: the weights of landing
        next to the enemy king (``F_KING_ZONE``) and of a direct check (``F_CHECK``, the entry's check marks for a
        slider) by the piece (a pawn's on a promotion: none, its check is the promoted piece's)."""
        self.quiet = int_array([
            near[i] + safety[(i // (4 * levels) & 7) * 2 * levels + i % levels] if PAWN <= i // (4 * levels) & 7 <= KING
            else 0 for i in range(len(near))
        ])
        """quiet[as :attr:`near`]: those weights and the target's ``F_SAFETY`` of a move that captures nothing: one
        look-up."""
        self.same = int_array(w[F_SAME_PIECE:F_SAME_PIECE + 7])
        """By kind: the weight of moving again the piece this side moved last."""
        self.castle_h = int_array([w[F_CASTLE] + w[F_PHASE + phase * 7 + KING] for phase in range(4)])
        """By phase: the score of castling towards h (towards a: :attr:`castle_a`)."""
        self.castle_a = int_array([w[F_CASTLE + 1] + w[F_PHASE + phase * 7 + KING] for phase in range(4)])
        self.null: i64 = w[F_NULL]
        self.loses_castling: i64 = w[F_LOSES_CASTLING]
        self.en_passant = int_array([
            w[F_EN_PASSANT] + w[F_CAPTURE + PAWN * 7 + PAWN] + (w[F_HANGING_VICTIM + PAWN] if rank == 0 else 0)
            for rank in range(_BY_RANK)
        ])
        """By the target's enemy rank: the weights of an en passant capture (``F_EN_PASSANT``, pawn takes pawn, and
        ``F_HANGING_VICTIM`` where the enemy does not attack the target)."""
        self.target_terms = _NO_ROW
        """A later model's weights by ``((side * 4 + phase) * 8 + kind) * SIZE + to``, added to the :attr:`rows`
        (none: model 1)."""
        self.near_last = zeros(8 * SIZE)
        """A later model's weights by ``(the opponent's last target * 8 + kind) * SIZE + to`` (model 1: only the
        rows of the border cell 0, all 0)."""
        self.last_attacks = zeros(2 * 7)
        """A later model's weights of an origin the opponent's last-moved piece attacks, by whether the mover is
        worth more than that piece x kind (model 1: 0)."""
        self.replies = False
        """Whether :attr:`near_last` and :attr:`last_attacks` hold a later model's weights (:meth:`add_terms`)."""

    def add_terms(
        self, from_terms: vec[i64], captures_attacked: vec[i64], target_terms: vec[i64], near_last: vec[i64],
        last_attacks: vec[i64],
    ) -> None:
        """Fold in a later model's weights, before any row is made: ``from_terms`` by kind x attack map entry (added to
        :attr:`from_threat`, in check or not), ``captures_attacked`` by ``victim * 7 + mover`` (added to
        :attr:`captures` where the enemy attacks the target), and :attr:`target_terms`, :attr:`near_last` and
        :attr:`last_attacks`."""
        for i in range(len(from_terms)):
            self.from_threat[i] += from_terms[i]
            self.from_threat[7 * _LEVELS + i] += from_terms[i]
        for victim_mover in range(7 * 7):
            for entry in range(_RANK_UNIT, _LEVELS):  # attacked by the enemy
                self.captures[victim_mover * _LEVELS + entry] += captures_attacked[victim_mover]
        self.target_terms = target_terms
        self.near_last = near_last
        self.last_attacks = last_attacks
        self.replies = True

    def row(self, phase: int, piece: int, f: int) -> vec[i64]:
        """``rows[(phase * 16 + piece) * SIZE + f]``, made on first use."""
        index = (phase * 16 + piece) * SIZE + f
        row = self.rows[index]
        if len(row):
            return row
        w = self.w
        kind = piece & 7
        rel = RELATIVE[piece >> 3]
        fixed = w[F_FROM + kind * 64 + rel[f]] + w[F_PHASE + phase * 7 + kind]
        to_base = F_TO + kind * 64
        scores = [0] * SIZE
        for t in SQUARES:
            if t == f:
                continue
            score = fixed + w[to_base + rel[t]]
            if kind == PAWN:
                if abs(t - f) > 13:
                    score += w[F_PAWN_DOUBLE]
            elif kind != KNIGHT and kind != KING and LINE[f * SIZE + t]:
                score += w[F_SLIDE + kind * 8 + _SLIDE_LENGTH[f * SIZE + t]]
            scores[t] = score
        terms = self.target_terms
        if len(terms):
            at = (((piece >> 3) * 4 + phase) * 8 + kind) * SIZE
            for t in SQUARES:
                if t != f:
                    scores[t] += terms[at + t]
        row = self.rows[index] = int_array(scores)
        return row


class LinearChessModel(LinearModel):
    """Model 1: log-linear with the shipped integer weights; :meth:`scores` defines the features."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, package="plybits.chess", n_features=N_FEATURES,
                         canonical=canonical_moves, features=None, packed_weights=PACKED)
        self._tables: _Tables | None = None

    def scored(self, position: Board, history: Sequence[Move]) -> tuple[list[Move], list[int] | None]:
        """The legal moves and the null move (last, at :data:`NULL_SCORE`) with their scores."""
        moves, scores = self.packed_scored(position, history)
        return moves, int_list(scores)

    def packed_scored(self, position: Board, history: Sequence[Move]) -> tuple[list[Move], vec[i64]]:
        """:meth:`scored`, the scores as the scorer makes them (an :func:`~plybits.packed.int_array`)."""
        codes, n, scores, _ = self.coded(position, history)
        table = MOVE_TABLE
        moves = []
        for i in range(n):
            moves.append(table[codes[i]])
        return moves, scores

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], int, vec[i64], i64]:
        """The codes (:func:`~plybits.chess.board.move_code`) of the legal moves and the null move (last, code 0), how
        many, their scores (the null move's :data:`NULL_SCORE`) and the highest of them: what :meth:`encode_ply` and
        :meth:`decode_ply` code with (given the top, :func:`~plybits.rank.encode_packed`), no move listed or unpacked. The codes are the board's buffer (:func:`~plybits.chess.board.reused_codes`):
        read them before the next call on the same board."""
        men = position.men
        attacks, material = _attack_maps(position.cells, position.turn, men[0] | men[1], map_buffer(position),
                                         position.material, position.pawns)
        # the canonical moves, the king's steps read from the map the scores need anyway
        codes, n = reused_codes(position, attacks, _RANK_UNIT)  # read below, before the board's next call
        codes[n] = 0  # the null move (reused_codes leaves room)
        n += 1
        if n < len(codes):
            codes[n] = END_CODE  # where _scores stops: the buffer holds codes of earlier plies past the null move
        scores, top = self.topped_codes(position, codes, n, history, attacks, material, True)
        scores[n - 1] = NULL_SCORE  # below every move's: the top stands
        return codes, n, scores, top

    def scored_codes(
        self, board: Board, codes: vec[i64], n: int, history: Sequence[Move], attacks: vec[i64], material: int,
    ) -> vec[i64]:
        """The scores of the moves of the first ``n`` ``codes`` given the position's :func:`_attack_maps`
        (:meth:`topped_codes`'s)."""
        return self.topped_codes(board, codes, n, history, attacks, material)[0]

    def topped_codes(
        self, board: Board, codes: vec[i64], n: int, history: Sequence[Move], attacks: vec[i64], material: int,
        ordered: bool = False,
    ) -> tuple[vec[i64], i64]:
        """(:meth:`scored_codes`, the highest score of a move other than the null move, or :data:`NULL_SCORE`): model
        1's :func:`_scores`; a later model (:mod:`plybits.chess.rankmodel2`) adds its own features here (``ordered``: the
        codes are the generator's, ascending, the null move last)."""
        return _scores(self.tables(), board, codes, n, history, attacks, material)

    def encode_ply(self, encoder: RangeEncoder, position: Board, move: Move, history: Sequence[Move]) -> None:
        codes, n, scores, top = self.coded(position, history)
        code: i64 = move_code(move)
        count: i64 = n
        i: i64
        for i in range(count):
            if codes[i] == code:
                encode_packed(encoder, scores, i, top=top)
                return
        raise ValueError(f"{move!r} is not a legal move here")

    def encode_text(
        self, encoder: RangeEncoder, position: Board, text: str, notation: str | None, history: Sequence[Move],
    ) -> Move | None:
        """The move ``text`` writes, found among the codes ranked here (:func:`~plybits.chess.notation.san_index`:
        no move checked a second time) and coded as :meth:`encode_ply` codes it; ``None``, nothing coded, where
        the notation module must read it."""
        codes, n, scores, top = self.coded(position, history)
        i = san_index(position, text, notation, codes, n)
        if i < 0:
            return None
        encode_packed(encoder, scores, i, top=top)
        return MOVE_TABLE[codes[i]]

    def decode_ply(self, decoder: RangeDecoder, position: Board, history: Sequence[Move]) -> Move:
        codes, n, scores, top = self.coded(position, history)
        return MOVE_TABLE[codes[decode_packed(decoder, scores, top=top, freqs=scores)]]

    def tables(self) -> _Tables:
        """The weights laid out for :func:`_scores`, made on first use."""
        tables = self._tables
        if tables is None:
            tables = self._tables = self.derived("tables", self.build_tables)
        return tables

    def build_tables(self, w: list[int]) -> _Tables:
        """The :class:`_Tables` of the weights ``w`` (a later model folds its own features in)."""
        return _Tables(w)

    def scores(self, board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[int]:
        """Each move's score: the sum of the weights of its features, which are (ids by block, ``kind``
        the mover's, squares relative to the side to move):

        - null move: ``F_NULL`` only; castling (king takes own rook): ``F_CASTLE`` by side and
          ``F_PHASE`` for a king; any other move: ``F_TO``/``F_FROM`` by kind and square and ``F_PHASE``;
        - a capture (en passant: also ``F_EN_PASSANT``): ``F_CAPTURE`` by victim and mover,
          ``F_HANGING_VICTIM`` if the target is not attacked, ``F_RECAPTURE``/``F_TAKES_LAST`` on the
          square the opponent just moved to;
        - ``F_SAFETY`` (capture?, attacked by a cheaper or other piece or not, defenders 0/1/2+);
          ``F_FROM_THREAT`` if the origin is attacked; ``F_PROMOTION``; ``F_SAME_PIECE``;
          ``F_EVASION`` in check; ``F_PAWN_DOUBLE`` or ``F_SLIDE`` by distance;
          ``F_LOSES_CASTLING``; ``F_KING_ZONE`` next to the enemy king; ``F_CHECK`` direct check.

        The weights come laid out in :class:`_Tables`; what depends on the origin square is summed once for
        all the moves from it (:func:`_scores`).
        """
        men = board.men
        attacks, material = _attack_maps(board.cells, board.turn, men[0] | men[1], material=board.material)
        n = len(moves)
        codes = int_array([0] * n)
        for i in range(n):
            codes[i] = move_code(moves[i])
        return int_list(self.scored_codes(board, codes, n, history, attacks, material))


def _last_terms(tables: _Tables, board: Board, history: Sequence[Move]) -> tuple[i64, i64, bool, i64, i64, i64]:
    """(the square the opponent's last move went to, the square this side's last move went to (each -1: none or a
    null move), whether the opponent's last move captured, and for a model with :attr:`_Tables.replies` (else 0 each):
    the start of that target's :attr:`_Tables.near_last` rows, the attack value of the piece on it, the squares that
    piece attacks (:func:`_last_attacks`)). One call a position: what the scorer reads of the last two moves."""
    last_to: i64 = -1
    my_last_to: i64 = -1
    last_capture = False
    # each move read into a local typed Move (compiled, its items are then tuple reads, not generic item calls)
    last: Move
    mine: Move
    count: i64
    if isinstance(history, list):  # the coders' history: read as a list (a generic sequence's size and item are calls)
        count = len(history)
        if count == 0:
            return last_to, my_last_to, last_capture, 0, 0, 0
        last = history[count - 1]
        mine = history[count - 2] if count >= 2 else NULL_MOVE
    else:
        count = len(history)
        if count == 0:
            return last_to, my_last_to, last_capture, 0, 0, 0
        last = history[count - 1]
        mine = history[count - 2] if count >= 2 else NULL_MOVE
    mine_from: i64 = mine[0]  # an i64 local: a C test, not an int object's truth
    if mine_from:
        my_last_to = mine[1]
    last_from: i64 = last[0]
    if last_from == 0:
        return last_to, my_last_to, last_capture, 0, 0, 0
    last_to = last[1]
    p: i64 = board.cells[last_to]
    if board.halfmove_clock == 0:
        if p & 7 == PAWN or last[2]:
            last_capture = FILE_OF[last_from] != FILE_OF[last_to]
        else:
            last_capture = True
    if not tables.replies:
        return last_to, my_last_to, last_capture, 0, 0, 0
    if p:
        return last_to, my_last_to, last_capture, last_to * 8 * SIZE, _ATTACK_VALUES[p & 7], _last_attacks(board, last_to)
    return last_to, my_last_to, last_capture, last_to * 8 * SIZE, 0, 0


def _position_terms(board: Board, attacks: vec[i64], material: i64) -> tuple[i64, bool]:
    """(the material phase 0-3 of the :func:`_attack_maps` ``material``, whether the side to move is in check) of the
    position whose map ``attacks`` is, to which this adds the check marks (:func:`_mark_checks`) unless it is the
    board's buffer, which holds them already."""
    kings = board.kings
    side: i64 = board.turn >> 3
    in_check = attacks[kings[side]] >= _RANK_UNIT
    if len(attacks) != 2 * SIZE:  # the board's buffer holds them already (:func:`_attack_maps`)
        _mark_checks(attacks, board.cells, kings[side ^ 1])
    phase: i64 = 3  # worked out here: no call a position
    if material >= 56:
        phase = 0
    elif material >= 40:
        phase = 1
    elif material >= 20:
        phase = 2
    return phase, in_check


def _last_attacks(board: Board, last_to: i64) -> i64:
    """The squares the piece on ``last_to`` attacks, blockers as they stand, as a bitboard
    (:data:`~plybits.chess.squares.BIT_OF`): a jump table's or :func:`slide_bits` of the board's men."""
    p: i64 = board.cells[last_to]
    kind: i64 = p & 7
    if BISHOP <= kind <= QUEEN:
        men = board.men
        return slide_bits(last_to, men[0] | men[1], kind)
    return _JUMP_BITS[p * SIZE + last_to]


def _scores(
    tables: _Tables, board: Board, codes: vec[i64], n: i64, history: Sequence[Move], attacks: vec[i64], material: int,
    extra: i64 = 0,
) -> tuple[vec[i64], i64]:
    """(:meth:`LinearChessModel.scores` of the ``n`` ``codes`` (or up to :data:`END_CODE`) given the map with its check
    marks, a later model's terms in ``tables`` (:meth:`_Tables.add_terms`), plus ``extra`` each but the null move's
    (in an origin's sum: none a move); the top score but the null move's)."""
    b: vec[i64] = board.cells
    colour: i64 = board.turn
    king_at: i64 = SIZE + board.kings[(colour >> 3) ^ 1]  # the enemy king, as _NEAR_CODE is indexed
    last_to, my_last_to, last_capture, near_base, last_value, last_attacks = _last_terms(tables, board, history)
    phase, in_check = _position_terms(board, attacks, material)
    bit_of = BIT_OF
    rights: i64 = _castling_rooks(board)  # the castling rooks as a bitboard, kept on the board
    ep: i64 = board.ep or -1
    row_base: i64 = (phase * 16) * SIZE
    threat_base: i64 = 7 * _LEVELS if in_check else 0
    rows = tables.rows
    from_threat = tables.from_threat
    captures = tables.captures
    near_last = tables.near_last
    quiet = tables.quiet
    near_w = tables.near
    mark_bits: i64 = _CHECK_MARK_BITS
    near_code = _NEAR_CODE
    out = zeros(n)
    top: i64 = NULL_SCORE
    origin: i64 = -1  # this and below: what depends on the origin only, set when it changes (i64 locals: plain C)
    row = _NO_ROW
    kind: i64 = 0
    safe_at: i64 = 0
    captures_at: i64 = 0
    pawn_ep: i64 = -1
    fixed: i64 = 0
    near_king_at: i64 = 0
    piece_at: i64 = 0
    near_at: i64 = 0
    i: i64 = -1
    for code in codes:  # iterated, not indexed: compiled, no bounds check an item
        i += 1
        f: i64 = code >> 11
        t: i64 = code >> 3 & 255
        if f != origin:
            if f <= 0:  # the null move, or END_CODE
                if f < 0:
                    break
                out[i] = tables.null
                continue
            origin = f
            p: i64 = b[f]
            kind = p & 7
            row = rows[row_base + p * SIZE + f]
            if len(row) == 0:
                row = tables.row(phase, p, f)
            entry: i64 = attacks[f]
            fixed = from_threat[threat_base + kind * _LEVELS + entry] + extra
            if f == my_last_to:  # the piece moves again (a ply in two: inline, not a call)
                fixed += tables.same[kind]
            threatened = last_attacks & bit_of[f] != 0  # by the piece the opponent just moved
            if threatened or (kind == ROOK or kind == KING) and rights != 0:  # seldom
                fixed += _origin_terms(tables, kind, f, threatened, last_value, colour, rights)
            safe_at = kind * 2 * _LEVELS
            captures_at = kind * _LEVELS
            pawn_ep = -1
            if kind == PAWN:
                pawn_ep = ep
            near_king_at = p * (2 * SIZE) + king_at
            piece_at = p * (4 * _LEVELS)
            near_at = near_base + kind * SIZE
        promotion: i64 = code & 7
        q: i64 = b[t]
        a: i64 = attacks[t]
        score: i64 = row[t] + fixed + near_last[near_at + t]
        # next to the king, and a direct check: the piece on its target attacks the king past the cells as they stand
        near: i64 = piece_at + near_code[near_king_at - t]
        if q:
            if q & BLACK == colour:  # castling: the king takes its own rook (a later model's terms: none)
                castle: i64 = (tables.castle_h[phase] if t > f else tables.castle_a[phase]) + extra
                out[i] = castle
                if castle > top:
                    top = castle
                continue
            score += captures[(q & 7) * (7 * _LEVELS) + captures_at + a] + near_w[near + (a & mark_bits)]
            if t == last_to:
                score += tables.recapture[kind] if last_capture else tables.takes_last[kind]
        elif t == pawn_ep:
            score += (tables.en_passant[a >> _RANK_SHIFT] + tables.safety[safe_at + _LEVELS + a]
                      + near_w[near + (a & mark_bits)])
        else:
            score += quiet[near + a]  # the near terms and the safety
        if promotion:
            score += tables.promotion[promotion]
            if near_code[(colour | promotion) * (2 * SIZE) + king_at - t] >= _NEAR_CHECK or a & _CHECK_MARKS[promotion]:
                score += tables.check[promotion]
        out[i] = score
        if score > top:
            top = score
    return out, top


def _origin_terms(
    tables: _Tables, kind: i64, f: i64, threatened: bool, last_value: i64, colour: i64, rights: i64,
) -> i64:
    """The weights of a move's origin beyond :attr:`_Tables.from_threat` and :attr:`_Tables.same`: the move gives up
    castling (``colour``'s, a king's: any of its rooks left in ``rights``, the castling rooks as a bitboard
    (:func:`~plybits.chess.board._castling_rooks`); a rook's: its own), and (a later model's) the opponent's
    last-moved piece, of ``last_value``, attacks it (``threatened``)."""
    terms: i64 = 0
    if kind == KING:
        back: i64 = rights & 255 if colour == WHITE else rights >> 56 & 255  # its own back rank's rooks
        if back != 0:
            terms += tables.loses_castling
    elif kind == ROOK and rights & BIT_OF[f] != 0:
        terms += tables.loses_castling
    if threatened:
        if _ATTACK_VALUES[kind] > last_value:
            terms += tables.last_attacks[7 + kind]
        else:
            terms += tables.last_attacks[kind]
    return terms


MODEL: Final = LinearChessModel(
    "rank_model_v1.json", 1, "log-linear move model learned from master games (tools/train_chess.py)"
)
"""Model 1, whose scorer defines :func:`move_features`."""

from plybits.chess.rankmodel2 import MODEL_2  # noqa: E402  (model 2 builds on this module's scorer, defined above)

RANK: Final = RankScheme(
    "chess", 0x02, "each move's index among the legal moves (sorted by from, to, promotion), range-coded under a "
    "learned log-linear move model", canonical_moves, MODEL, MODEL_2,
)
"""Chess moves range-coded by rank under a learned move model."""
