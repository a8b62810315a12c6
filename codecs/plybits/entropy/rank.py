"""``entropy/rank`` (codec 0x32): each turn as the drawn colour, the placement and the slide option,
range-coded (docs/rank.md).

Canonical order of a turn's parts: colours by index (``R G O B Y W K``), cells by number
(a1, b1, ..., g7), options as in e13 (left in place, then the slide targets towards file+1,
file-1, row+1, row-1, nearest first).

- Model 0: every legal turn (all colours left x empty cells x options) equally likely.
- Model 1: the colour is coded with the bag's exact chance (chips of that colour left / chips
  left), then the placement uniformly among the empty cells and the option uniformly among
  the reachable ones. No real Entropy games are in the shared data, so the players' choices
  are not learned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from plybits.entropy.board import SQUARES, Board, Turn
from plybits.errors import InvalidDataError
from plybits.rangecoder import RangeDecoder, RangeEncoder
from plybits.rank import MoveModel, RankScheme, decode_index, encode_index


def canonical_turns(board: Board) -> list[Turn]:
    """Every legal turn ordered by (colour, cell number, option)."""
    if board.finished:
        return []
    cells = board.cells
    per_colour: list[tuple[int, int]] = []
    for cell in SQUARES:
        if cells[cell] is None:
            per_colour.append((cell, cell))
            per_colour.extend((cell, to) for to in board.targets(cell))
    return [Turn(c, cell, to) for c in board.colours_left() for cell, to in per_colour]


class ChanceModel(MoveModel):
    """Model 1: the draw at the bag's odds, then placement and option uniform."""

    version = 1
    description = "colour at the bag's exact odds; placement and slide uniform"

    def encode_ply(self, encoder: RangeEncoder, position: Any, move: Any, history: Sequence[Any]) -> None:
        board: Board = position
        colour, cell, to = move
        encode_index(encoder, board.bag, colour)
        cells = board.cells
        empty = [i for i in SQUARES if cells[i] is None]
        encoder.encode(empty.index(cell), 1, len(empty))
        options = [cell, *board.targets(cell)]
        encoder.encode(options.index(to), 1, len(options))

    def decode_ply(self, decoder: RangeDecoder, position: Any, history: Sequence[Any]) -> Any:
        board: Board = position
        if board.finished:
            raise InvalidDataError("a turn is coded after the game's last turn")
        colour = decode_index(decoder, board.bag)
        cells = board.cells
        empty = [i for i in SQUARES if cells[i] is None]
        index = decoder.decode_target(len(empty))
        decoder.consume(index, 1)
        cell = empty[index]
        options = [cell, *board.targets(cell)]
        index = decoder.decode_target(len(options))
        decoder.consume(index, 1)
        return Turn(colour, cell, options[index])


RANK: Final = RankScheme(
    "entropy", 0x32, "each turn range-coded: the drawn colour at the bag's odds, then placement and slide among the "
    "legal ones (model 1)", canonical_turns, ChanceModel(),
)
"""New Entropy turns range-coded: chance draws at their odds, choices under the model."""
