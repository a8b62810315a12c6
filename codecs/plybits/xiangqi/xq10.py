"""``xiangqi/xq10``: 10 bits a ply, a 5-bit piece slot and a 5-bit delta (SPEC §4).

Slots are the start position's pieces by increasing ``r * 9 + f``; a piece
keeps its slot all game (a captured piece's slot goes dead). Deltas, with
``(df, dr)`` the step in files and ranks:

* chariot, cannon: along a rank ``d = (f_from - f_to - 1) mod 9`` (0..7), along a
  file ``d = 8 + (r_from - r_to - 1) mod 10`` (8..16); from and d give to, and back;
* horse: index of (df, dr) in :data:`~plybits.xiangqi.board.HORSE_STEPS`;
* elephant (2,2) (2,-2) (-2,-2) (-2,2); advisor (1,1) (1,-1) (-1,-1) (-1,1);
  general (0,1) (1,0) (0,-1) (-1,0);
* soldier: 0 forward, 1 towards f+1, 2 towards f-1.

Decoding checks every field and every move: a slot past the start's pieces, a
dead slot, a piece of the wrong side, a delta outside its kind's range or off
the board, or an illegal move is :class:`~plybits.errors.InvalidDataError` at its ply.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from bitarray import bitarray

from plybits.bitio import BitReader, BitWriter
from plybits.errors import InvalidDataError, UnsupportedError
from plybits.game import Observer, Scheme
from plybits.xiangqi.board import (
    ADVISOR,
    BLACK,
    CANNON,
    CHARIOT,
    COLOR_NAMES,
    ELEPHANT,
    FILE_OF,
    GEOMETRY,
    HORSE,
    HORSE_STEPS,
    KIND_NAMES,
    KING,
    MOVES,
    RANK_OF,
    RED,
    SOLDIER,
    SQUARES,
    Board,
    Move,
    square,
)

SLOT_BITS: Final = 5
DELTA_BITS: Final = 5
MAX_SLOTS: Final = 1 << SLOT_BITS

ELEPHANT_STEPS: Final = ((2, 2), (2, -2), (-2, -2), (-2, 2))
ADVISOR_STEPS: Final = ((1, 1), (1, -1), (-1, -1), (-1, 1))
KING_STEPS: Final = ((0, 1), (1, 0), (0, -1), (-1, 0))
STEPS: Final = {HORSE: HORSE_STEPS, ELEPHANT: ELEPHANT_STEPS, ADVISOR: ADVISOR_STEPS, KING: KING_STEPS}
DELTA_RANGE: Final = {CHARIOT: 17, CANNON: 17, HORSE: 8, ELEPHANT: 4, ADVISOR: 4, KING: 4, SOLDIER: 3}
"""How many deltas each kind has (0 .. n-1)."""


def delta(kind: int, color: int, frm: tuple[int, int], to: tuple[int, int]) -> int:
    """The delta of a move of a ``kind`` piece of ``color`` from ``(f, r)`` to ``(f, r)``.

    :raises ValueError: if no delta of that kind describes the step.
    """
    (ff, rf), (ft, rt) = frm, to
    if kind in (CHARIOT, CANNON):
        if rf == rt and ff != ft:
            return (ff - ft - 1) % 9
        if ff == ft and rf != rt:
            return 8 + (rf - rt - 1) % 10
        raise ValueError(f"{KIND_NAMES[kind]} cannot step from {frm} to {to}")
    step = (ft - ff, rt - rf)
    if kind == SOLDIER:
        fw = 1 if color == RED else -1
        soldier = ((0, fw), (1, 0), (-1, 0))
        if step in soldier:
            return soldier.index(step)
        raise ValueError(f"soldier cannot step by {step}")
    try:
        return STEPS[kind].index(step)
    except ValueError:
        raise ValueError(f"{KIND_NAMES[kind]} cannot step by {step}") from None


def target(kind: int, color: int, frm: tuple[int, int], d: int) -> tuple[int, int] | None:
    """Where delta ``d`` takes a ``kind`` piece of ``color`` from ``(f, r)``; ``None`` if off the board.

    :raises ValueError: if ``d`` is outside the kind's range.
    """
    if not 0 <= d < DELTA_RANGE[kind]:
        raise ValueError(f"delta {d} out of range 0..{DELTA_RANGE[kind] - 1} for a {KIND_NAMES[kind]}")
    f, r = frm
    if kind in (CHARIOT, CANNON):
        if d < 8:
            return (f - d - 1) % 9, r
        return f, (r - (d - 8) - 1) % 10
    if kind == SOLDIER:
        df, dr = ((0, 1 if color == RED else -1), (1, 0), (-1, 0))[d]
    else:
        df, dr = STEPS[kind][d]
    if 0 <= f + df <= 8 and 0 <= r + dr <= 9:
        return f + df, r + dr
    return None


def _target_table() -> list[list[tuple[int, ...]]]:
    """``TARGETS[piece code][cell]``: the target cell of each delta (-1 off the board), from :func:`target`."""
    table: list[list[tuple[int, ...]]] = [[() for _ in range(GEOMETRY.size)] for _ in range(16)]
    for color in (RED, BLACK):
        for kind in DELTA_RANGE:
            for i in SQUARES:
                row = []
                for d in range(DELTA_RANGE[kind]):
                    t = target(kind, color, (FILE_OF[i], RANK_OF[i]), d)
                    row.append(-1 if t is None else square(*t))
                table[kind | color][i] = tuple(row)
    return table


TARGETS: Final = _target_table()


def start_slots(board: Board) -> list[int]:
    """The cells of the start position's pieces, by increasing ``r * 9 + f``: slot -> cell.

    :raises UnsupportedError: if there are more pieces than 5-bit slots.
    """
    cells = [i for i, _ in board.pieces()]
    if len(cells) > MAX_SLOTS:
        raise UnsupportedError(f"xq10 has {MAX_SLOTS} slots; the start position has {len(cells)} pieces")
    return cells


class XQ10Scheme(Scheme[Board, Move]):
    """10 bits a ply: the moving piece's start slot and its delta."""

    game = "xiangqi"
    name = "xq10"
    codec_id = 0x11
    description = "10 bits a ply: 5-bit piece slot (start-position order) + 5-bit delta (0..16 for chariots/cannons)"
    bits_per_ply = 10.0

    def encode(self, start: Board, moves: Sequence[Move]) -> bitarray:
        board = start
        slots = start_slots(board)
        slot_of = [-1] * GEOMETRY.size
        for s, i in enumerate(slots):
            slot_of[i] = s
        writer = BitWriter()
        cells = board.cells
        for move in moves:
            frm, to = move.from_square, move.to_square
            piece = cells[frm]
            d = delta(piece & 7, piece & BLACK, (FILE_OF[frm], RANK_OF[frm]), (FILE_OF[to], RANK_OF[to]))
            s = slot_of[frm]
            writer.write(s, SLOT_BITS)
            writer.write(d, DELTA_BITS)
            slot_of[to] = s
            slot_of[frm] = -1
            board.push(move)
        return writer.bits

    def decode(
        self, start: Board, payload: bytes, plies: int, version: int, observe: Observer[Board, Move] | None = None,
    ) -> list[Move]:
        board = start
        slots = start_slots(board)
        n = len(slots)
        slot_of = [-1] * GEOMETRY.size
        for s, i in enumerate(slots):
            slot_of[i] = s
        if len(payload) * 8 < plies * (SLOT_BITS + DELTA_BITS):
            raise InvalidDataError(
                f"truncated data: {plies} plies need {plies * 10} bits, the payload has {len(payload) * 8}"
            ).at(min(plies, len(payload) * 8 // 10))
        reader = BitReader(payload)
        read = reader.read
        cells = board.cells
        targets = TARGETS
        is_legal = board.is_legal
        push = board.push
        out: list[Move] = []
        for ply in range(plies):
            s = read(SLOT_BITS)
            d = read(DELTA_BITS)
            if s >= n:
                raise InvalidDataError(f"slot {s} out of range: the start position has {n} pieces").at(ply)
            frm = slots[s]
            if frm < 0:
                raise InvalidDataError(f"slot {s} holds no piece (captured)").at(ply)
            piece = cells[frm]
            if piece & BLACK != board.turn:
                raise InvalidDataError(
                    f"slot {s} holds a {COLOR_NAMES[piece & BLACK]} piece but {COLOR_NAMES[board.turn]} is to move"
                ).at(ply)
            row = targets[piece][frm]
            if d >= len(row):
                raise InvalidDataError(
                    f"delta {d} out of range 0..{len(row) - 1} for a {KIND_NAMES[piece & 7]} (slot {s})"
                ).at(ply)
            to = row[d]
            if to < 0:
                raise InvalidDataError(
                    f"delta {d} takes the {KIND_NAMES[piece & 7]} of slot {s} off the board"
                ).at(ply)
            move = MOVES[frm][to]
            if not is_legal(move):
                raise InvalidDataError(f"illegal move {move.iccs()!r} (slot {s}, delta {d})").at(ply, move.iccs())
            taken = slot_of[to]
            if taken >= 0:
                slots[taken] = -1
            slots[s] = to
            slot_of[to] = s
            slot_of[frm] = -1
            if observe is not None:
                observe(board, move)
            push(move)
            out.append(move)
        reader.finish()
        return out


XQ10 = XQ10Scheme()
