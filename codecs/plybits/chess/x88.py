"""The ``chess/0x88`` scheme: 16 bits a ply, the from-square then the to-square as 0x88 bytes (SPEC §4).

A promotion puts its piece in the to-byte's spare bits: 0x08 = p & 1, 0x80 = p >> 1 with
p = 0 queen, 1 rook, 2 bishop, 3 knight. Castling is written as the king's move (e1g1) in
standard chess and as king-takes-rook (e1h1) in Chess960. The null move is 0x0000.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from bitarray import bitarray

from plybits.bitio import BitReader, BitWriter
from plybits.chess.board import Board, checked_move, push
from plybits.chess.squares import (
    BISHOP,
    BLACK,
    FILE_OF,
    KING,
    KNIGHT,
    NAMES,
    NULL_MOVE,
    PAWN,
    PROMOTION_LETTERS,
    QUEEN,
    RANK_OF,
    ROOK,
    SIZE,
    SQUARES,
    Move,
    castling_rook,
    castling_two_step,
)
from plybits.chess.notation import san
from plybits.deadline import EVERY
from plybits.deadline import active as deadline_active
from plybits.deadline import check as check_deadline
from plybits.errors import IllegalMoveError, InvalidDataError
from plybits.game import Observer, Scheme, StepEncoder

TO_X88: Final[list[int]] = [0] * SIZE
"""TO_X88[mailbox square]: its 0x88 index (rank * 16 + file)."""
FROM_X88: Final[list[int]] = [0] * 128
"""FROM_X88[0x88 index]: the mailbox square (0 for the off-board 0x88 codes)."""
for _sq in SQUARES:
    TO_X88[_sq] = RANK_OF[_sq] * 16 + FILE_OF[_sq]
    FROM_X88[TO_X88[_sq]] = _sq
X88_NAMES: Final[list[str]] = [""] * 128
"""X88_NAMES[0x88 index]: the square's name."""
for _sq in SQUARES:
    X88_NAMES[TO_X88[_sq]] = NAMES[_sq]
PROMOTION_CODE = {QUEEN: 0, ROOK: 1, BISHOP: 2, KNIGHT: 3}
PROMOTION_OF_CODE: Final[list[int]] = [QUEEN, ROOK, BISHOP, KNIGHT]
SPARE_BITS = (0x00, 0x08, 0x80, 0x88)
"""The to-byte's spare bits for promotion code p: 0x08 = p & 1, 0x80 = p >> 1."""


def word_of(board: Board, move: Move) -> int:
    """The 16-bit field of ``move`` (legal in ``board``)."""
    f, t, promotion = move
    if not f:
        return 0
    if not board.chess960:
        b = board.cells
        p = b[f]
        if p & 7 == KING and b[t] == (p & BLACK) | ROOK:  # castling: the king's own two-step
            t = castling_two_step(f, t)
    to_byte = TO_X88[t] | SPARE_BITS[PROMOTION_CODE[promotion]] if promotion else TO_X88[t]
    return TO_X88[f] << 8 | to_byte


class X88StepEncoder(StepEncoder[Board, Move]):
    """The ``chess/0x88`` payload built move by move, each move given with the board it is played from."""

    def __init__(self, scheme: Scheme[Board, Move]) -> None:
        super().__init__(scheme)
        self._writer = BitWriter()
        self._write = self._writer.write

    def add(self, board: Board, move: Move) -> None:
        """Append the 16-bit field of ``move`` (legal in ``board``, which is not changed)."""
        self._write(word_of(board, move), 16)

    def finish(self, start: Board) -> bitarray:
        """The payload bits so far (``start`` is not needed: every word was written as its move came)."""
        return self._writer.bits


class X88Scheme(Scheme[Board, Move]):
    """chess/0x88: from and to squares as 0x88 bytes, 16 bits a ply."""

    game = "chess"
    name: ClassVar[str] = "0x88"
    codec_id = 0x01
    description = "16 bits a ply: from and to squares as 0x88 bytes, promotion in the spare bits"
    bits_per_ply: ClassVar[float | None] = 16.0

    def encode(self, start: Board, moves: Sequence[Move]) -> bitarray:
        """The payload of ``moves`` (legal, in order) played from ``start``."""
        encoder = X88StepEncoder(self)
        board = start
        for move in moves:
            encoder.add(board, move)
            push(board, move)
        return encoder.finish(start)

    def step_encoder(self) -> X88StepEncoder:
        """An encoder fed each move with the board before it, during a replay done anyway
        (see :func:`plybits.records.encode`): the same payload as :meth:`encode`, without a second replay."""
        return X88StepEncoder(self)

    def decode(
        self, start: Board, payload: bytes, plies: int, version: int, observe: Observer[Board, Move] | None = None,
    ) -> list[Move]:
        """The ``plies`` moves in ``payload``, each checked legal and played on ``start``.

        :raises InvalidDataError: on a spare bit set, an illegal move (with its ply), truncation or trailing data.
        """
        return self._decode(start, payload, plies, None, False, observe)

    def decode_texts(
        self, start: Board, payload: bytes, plies: int, version: int, notation: str | None,
    ) -> tuple[list[Move], list[str]]:
        """:meth:`decode`, and each move written in ``notation`` (``"uci"``, else SAN) from the position before it:
        UCI from the 0x88 words themselves (their squares are UCI's, castling included), SAN by
        :func:`plybits.chess.notation.san`, both in the decode's own loop (the deadline checked every
        :data:`~plybits.deadline.EVERY` plies).

        :raises InvalidDataError: as :meth:`decode`.
        """
        texts: list[str] = []
        moves = self._decode(start, payload, plies, texts, notation != "uci", None)
        return moves, texts

    def decode_uci(self, start: Board, payload: bytes, plies: int) -> list[str]:
        """The moves in ``payload`` as UCI text (each checked legal): :meth:`decode_texts`' texts.

        :raises InvalidDataError: as :meth:`decode`.
        """
        return self.decode_texts(start, payload, plies, 0, "uci")[1]

    def _decode(
        self, start: Board, payload: bytes, plies: int, texts: list[str] | None, write_san: bool,
        observe: Observer[Board, Move] | None,
    ) -> list[Move]:
        """:meth:`decode`, each move also written into ``texts`` when given (SAN if ``write_san``, else UCI)."""
        reader = BitReader(payload)  # for its checks of the length and of what follows the last ply
        if reader.remaining < 16 * plies:
            raise InvalidDataError(f"truncated data: {plies} plies need {2 * plies} bytes, got {len(payload)}")
        board = start
        b = board.cells
        chess960 = board.chess960
        moves: list[Move] = []
        timed = texts is not None and deadline_active()
        for ply in range(plies):
            fx = payload[2 * ply]
            tx = payload[2 * ply + 1]
            promotion = 0
            if fx == 0 and tx == 0:
                move = NULL_MOVE
            else:
                if fx & 0x88:
                    raise InvalidDataError(f"from-byte 0x{fx:02x} is not a square (spare bits set)").at(ply)
                f = FROM_X88[fx]
                t = FROM_X88[tx & 0x77]
                p = b[f]
                kind = p & 7
                if kind == PAWN and (RANK_OF[t] == 0 or RANK_OF[t] == 7):
                    promotion = PROMOTION_OF_CODE[(tx >> 6 & 2) | (tx >> 3 & 1)]
                elif tx & 0x88:
                    raise InvalidDataError(
                        f"to-byte 0x{tx:02x} has spare bits set on a move that is not a promotion").at(ply)
                if kind == KING and not chess960:
                    rook = castling_rook(f, t)
                    if rook >= 0 and b[rook] == (p & BLACK) | ROOK:
                        if rook in board.castling:
                            t = rook
                    elif b[t] == (p & BLACK) | ROOK:
                        raise InvalidDataError(
                            f"{NAMES[f]}{NAMES[t]}: standard chess writes castling as the king's two-step").at(ply)
                try:
                    move = checked_move(board, f, t, promotion)
                except IllegalMoveError as err:
                    name = NAMES[f] + NAMES[t] if NAMES[f] else f"0x{fx << 8 | tx:04x}"
                    raise InvalidDataError(f"illegal move {name}: {err.reason}").at(ply, name) from None
            moves.append(move)
            if texts is not None:
                if timed and ply % EVERY == 0:
                    check_deadline(ply)
                if write_san:
                    texts.append(san(board, move))
                elif move is NULL_MOVE:
                    texts.append("0000")
                else:
                    text = X88_NAMES[fx] + X88_NAMES[tx & 0x77]
                    texts.append(text + PROMOTION_LETTERS[promotion] if promotion else text)
            if observe is not None:
                observe(board, move)
            push(board, move)
        reader.pos = 16 * plies
        reader.finish()
        return moves


X88 = X88Scheme()
