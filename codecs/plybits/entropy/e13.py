"""``entropy/e13``: 13 bits a turn (SPEC §4).

Each turn, most significant bit first:

- colour (3 bits): ``R G O B Y W K`` = 0..6;
- cell (6 bits): where the chip is placed, ``a1``..``g1`` = 0..6, ``a2`` = 7, ..., ``g7`` = 48;
- option (4 bits): 0 = left in place, else 1 + the index of the slide's target in the list of
  cells the chip can reach, taken direction by direction (file+1, file-1, row+1, row-1), nearest
  first (:meth:`Board.targets`). At most 12 cells are reachable, so options 13..15 never occur.

Colour 7, cells 49..63, an option beyond the reachable cells, a colour with no chip left, an
occupied cell or a turn after the game's 98th are invalid data at their ply.

>>> from plybits.entropy.board import Board, Turn
>>> E13.encode(Board(), [Turn.from_token("Rd4")]).to01()
'0000110000000'
"""

from __future__ import annotations

from typing import ClassVar, Final

from plybits.bitio import BitReader, BitWriter
from plybits.entropy.board import COLOURS, SQUARE_NUMBER, SQUARES, Board, Turn
from plybits.errors import InvalidDataError
from plybits.game import MoveScheme

COLOUR_BITS: Final = 3
CELL_BITS: Final = 6
OPTION_BITS: Final = 4


class E13Scheme(MoveScheme[Board, Turn]):
    """Colour, cell and slide option of each turn in 3 + 6 + 4 bits."""

    game = "entropy"
    name: ClassVar[str] = "e13"
    codec_id = 0x31
    description = (
        "13 bits a turn: colour (3), cell a1..g7 (6), option (4): 0 = left in place, "
        "else 1 + index among reachable cells (f+1, f-1, row+1, row-1; nearest first)"
    )
    bits_per_ply: ClassVar[float | None] = 13.0

    def write_move(self, writer: BitWriter, position: Board, move: Turn) -> None:
        colour, cell, to = move
        write = writer.write
        write(colour, COLOUR_BITS)
        write(SQUARE_NUMBER[cell], CELL_BITS)
        write(1 + position.targets(cell).index(to) if to != cell else 0, OPTION_BITS)

    def read_move(self, reader: BitReader, position: Board) -> Turn:
        """The turn whose 13 bits come next, possible on ``position``.

        :raises InvalidDataError: on an out-of-range field or an impossible turn (the ply is added), truncation.
        """
        read = reader.read
        colour, number, option = read(COLOUR_BITS), read(CELL_BITS), read(OPTION_BITS)
        if colour >= len(COLOURS):
            raise InvalidDataError(f"colour {colour} out of range (0-6: {' '.join(COLOURS)})")
        if number >= len(SQUARES):
            raise InvalidDataError(f"cell {number} out of range (0-48: a1..g7)")
        cell = SQUARES[number]
        turn = _new(Turn, (colour, cell, cell))
        if position.finished or not position.bag[colour] or position.cells[cell] is not None:
            raise InvalidDataError(str(position.illegal_reason(turn)), move=turn.token())
        if option:
            targets = position.targets(cell)
            if option > len(targets):
                where = turn.token()[1:]
                can = (f"can stay (0) or slide to {len(targets)} cell(s) (1-{len(targets)})" if targets
                       else "cannot slide (no empty cell beside it): only 0, left in place")
                raise InvalidDataError(f"option {option} out of range: a chip on {where} {can}", move=turn.token())
            turn = _new(Turn, (colour, cell, targets[option - 1]))
        return turn


_new = tuple.__new__
"""``_new(Turn, fields)``: a Turn without NamedTuple.__new__'s Python-level call."""


E13 = E13Scheme()
