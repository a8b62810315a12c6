"""``abalone/abapro``: the minimal Aba-Pro move as 10 (inline) or 14 (broadside) bits (SPEC §4).

Inline: ``0``, the pushing (rear) marble's cell number (6 bits, a1..i9 = 0..60), the
direction (3 bits). Broadside: ``1``, the first end's cell (6), the direction to the
other end (3; 0..2, since the first end is the alphanumerically smaller one), ``0`` for
two marbles or ``1`` for three, the move direction (3). Directions as in
:data:`plybits.abalone.board.DIRECTIONS`.
"""

from __future__ import annotations

from typing import ClassVar

from plybits.abalone.board import BROADSIDE, CELL_NUMBER, GEOMETRY, INLINE, SQUARES, STEPS, Board, Move
from plybits.bitio import BitReader, BitWriter
from plybits.errors import InvalidDataError
from plybits.game import MoveScheme


class AbaProScheme(MoveScheme[Board, Move]):
    """Aba-Pro moves as fixed fields: 10 bits inline, 14 bits broadside."""

    game = "abalone"
    name: ClassVar[str] = "abapro"
    codec_id = 0x21
    description = (
        "Aba-Pro as bits: inline 0+cell(6)+direction(3) = 10 bits, "
        "broadside 1+first end(6)+line direction(3)+two/three(1)+move direction(3) = 14 bits"
    )
    bits_per_ply: ClassVar[float | None] = None

    def write_move(self, writer: BitWriter, position: Board, move: Move) -> None:
        if move.line < 0:
            writer.write_bit(0)
            writer.write(CELL_NUMBER[move.cell], 6)
            writer.write(move.direction, 3)
        else:
            writer.write_bit(1)
            writer.write(CELL_NUMBER[move.cell], 6)
            writer.write(move.line, 3)
            writer.write_bit(move.marbles - 2)
            writer.write(move.direction, 3)

    def read_move(self, reader: BitReader, position: Board) -> Move:
        move = _read_move(reader)
        reason = position.illegal_reason(move)
        if reason is not None:
            raise InvalidDataError(f"illegal move {str(move)!r}: {reason}", move=str(move))
        return move


def _read_move(reader: BitReader) -> Move:
    broadside = reader.read_bit()
    number = reader.read(6)
    if number >= len(SQUARES):
        raise InvalidDataError(f"cell number {number} is out of range 0..{len(SQUARES) - 1}")
    cell = SQUARES[number]
    direction = reader.read(3)
    if direction > 5:
        raise InvalidDataError(f"direction {direction} is out of range 0..5")
    if not broadside:
        if not GEOMETRY.on_board[cell + STEPS[direction]]:
            raise InvalidDataError(f"inline move from {GEOMETRY.name(cell)} in direction {direction} leaves the board")
        return INLINE[cell][direction]
    line = direction
    if line > 2:
        raise InvalidDataError(
            f"broadside line direction {line} is not 0..2: the first end must be the alphanumerically smaller one"
        )
    marbles = 2 + reader.read_bit()
    direction = reader.read(3)
    if direction > 5:
        raise InvalidDataError(f"broadside move direction {direction} is out of range 0..5")
    if direction % 3 == line % 3:
        raise InvalidDataError(f"broadside move direction {direction} runs along its line (direction {line})")
    move = BROADSIDE.get((cell, line, marbles, direction))
    if move is None:
        raise InvalidDataError(f"a broadside line of {marbles} from cell number {number} leaves the board")
    return move


ABAPRO = AbaProScheme()
