"""The chess position and its rules on the shared mailbox (an 8x8 board inside a border of 2).

Squares are indices into a flat array of :data:`GEOMETRY.size` (144) cells (an
:func:`~plybits.packed.int_array`: compiled, a ``vec[i64]`` whose cells the rules read without int objects); border
cells hold :data:`~plybits.mailbox.OFF`. A piece is an ``int``: its colour bit
(:data:`WHITE` = 0, :data:`BLACK` = 8) or-ed with its kind (:data:`PAWN` = 1 ...
:data:`KING` = 6); an empty cell holds :data:`EMPTY` (0)::

    >>> pos = Board()
    >>> pos.cells[parse_square("e1")] == WHITE | KING
    True

Castling is stored as king-takes-rook (``Move(E1, H1)``) for both standard chess and
Chess960; the notations write it as each variant expects. The null move is
``Move(0, 0)`` (:data:`NULL_MOVE`).
"""

from __future__ import annotations

from typing import Any, Final, Self

from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr

from plybits.chess.movegen import (
    _add_king_walk,
    _add_knight_moves,
    _add_pawn_moves,
    _add_slides,
    _attacked,
    _castling_legal,
    _checks_after,
    _discovers,
    _ep_legal,
    _evades,
    _generate_bits,
    _king_lines,
)
from plybits.chess.squares import (
    A1, ADJACENT, BISHOP, BIT_OF, BLACK, CODE_FROM, E, EMPTY, FILE_OF, GEOMETRY, KING, KING_STEPS, KNIGHT, KNIGHT_JUMP,
    KNIGHT_STEPS, LINE, LOWEST_BIT, MOVE_TABLE, N, NAMES, PAWN, PIECE_OF_SYMBOL, QUEEN, RANK_OF, ROOK, S, SIZE, SQUARE_OF_NAME,
    SQUARES, STRIDE, SYMBOLS, W, WHITE, _KING_STEP_ARRAY,
    Move, move, move_code, _MOVES, _ON_BOARD, _SLIDERS_ALONG, square,
)
from plybits.errors import IllegalMoveError, InvalidPositionError
from plybits.mailbox import OFF, Square
from plybits.openingbook import ZOBRIST
from plybits.packed import PACKED, int_array, zeros
from plybits.text import ascii_text, decimal

STANDARD_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

PIECE_KEYS: Final = int_array([ZOBRIST[(p * 8 + RANK_OF[s]) * 8 + FILE_OF[s]] if p and FILE_OF[s] >= 0 else 0
                               for p in range(16) for s in range(SIZE)])
"""PIECE_KEYS[piece * SIZE + cell]: the piece's key on the cell, :data:`~plybits.openingbook.ZOBRIST`'s number of
``piece * 64 + square`` (a1 = 0 ... h8 = 63); 0 for an empty cell. :attr:`Board.pieces_key` XORs them."""
MATERIAL: Final = int_array([(0, 0, 3, 3, 5, 9, 0, 0)[p & 7] for p in range(16)])
"""MATERIAL[piece]: what :attr:`Board.material` counts of it: a knight or bishop 3, a rook 5, a queen 9, a pawn or
king 0 (the ``rank`` model's material phase)."""


# FEN writing: a rank's field read from a store by the rank's pieces (a game's final positions repeat their ranks;
# joining a rank's characters and digits costs more than the rest of a FEN), the castling letters from tables
FEN_ROW_CACHE: Final = 4096
"""How many distinct ranks keep their FEN field (the store stays bounded)."""
_FEN_ROWS: Final[dict[int, str]] = {}
"""A rank's FEN field by its 8 pieces, 4 bits each, the a-file's highest."""
_CASTLING_ORDER: Final[tuple[int, ...]] = tuple(square(file, rank) for rank in (0, 7) for file in range(7, -1, -1))
"""The castling rooks' squares in the order the FEN's castling field names them."""
_CASTLING_LETTERS: Final[dict[int, str]] = {
    sq: ("K" if FILE_OF[sq] == 7 else "Q") if RANK_OF[sq] == 0 else ("k" if FILE_OF[sq] == 7 else "q")
    for sq in _CASTLING_ORDER}
_SHREDDER_LETTERS: Final[dict[int, str]] = {
    sq: ("ABCDEFGH" if RANK_OF[sq] == 0 else "abcdefgh")[FILE_OF[sq]] for sq in _CASTLING_ORDER}


def _fen_row(b: vec[i64], first: i64) -> str:
    """The FEN field of the rank whose a-file cell is ``first``."""
    key: i64 = 0
    for file in range(8):
        key = key << 4 | b[first + file]
    row = _FEN_ROWS.get(key)
    if row is None:
        row = ""
        empty = 0
        for file in range(8):
            p = b[first + file]
            if p:
                if empty:
                    row += str(empty)
                    empty = 0
                row += SYMBOLS[p]
            else:
                empty += 1
        if empty:
            row += str(empty)
        if len(_FEN_ROWS) < FEN_ROW_CACHE:
            _FEN_ROWS[key] = row
    return row


# Compiled with mypyc (docs/architecture.md, "Compiled build"); plybits.chess.Position subclasses it interpreted.
@mypyc_attr(allow_interpreted_subclasses=True)
class Board:
    """A chess position: pieces, side to move, castling rights, en passant square and counters.

    ``cells`` is the mailbox cell array (:func:`~plybits.packed.int_array`), ``turn`` is :data:`WHITE` or :data:`BLACK`,
    ``castling`` the frozenset of rook squares that may still castle, ``ep`` the en
    passant target square (0 when none), ``kings`` the king square of each colour
    (index ``colour >> 3``), ``men`` the squares of each colour's pieces as a bitboard (index ``colour >> 3``;
    :data:`~plybits.chess.squares.BIT_OF`), ``pawns`` those of its pawns (the same index), ``pieces_key`` the XOR
    of :data:`PIECE_KEYS` of the men on their cells (an opening book's key of the pieces:
    :func:`plybits.chess.rankmodel2.position_key`), ``material`` the sum of
    :data:`MATERIAL` of both sides' men (the ``rank`` model's phase), all kept by :func:`push` with the cells.
    """

    __slots__ = ("cells", "turn", "castling", "ep", "halfmove_clock", "fullmove_number", "chess960", "kings", "men",
                 "pawns", "pieces_key", "material", "_anchor", "_trail", "_legal", "_check", "_safe", "_codes", "_map",
                 "_rights", "_rights_of")

    def __init__(self, fen: str | None = STANDARD_FEN, *, chess960: bool = False) -> None:
        """Set up from a FEN (X-FEN or Shredder-FEN castling); ``None`` gives an empty board.

        :raises InvalidPositionError: if ``fen`` is not a valid position.
        """
        start = _START if fen == STANDARD_FEN and not chess960 else None  # the usual start, read once
        self.cells: vec[i64] = int_array(GEOMETRY.empty_cells(EMPTY)) if start is None else start.cells[:]
        self.turn = WHITE
        self.castling: frozenset[int] = frozenset()
        self.ep = 0
        self.halfmove_clock = 0
        self.fullmove_number = 1
        self.chess960 = chess960
        self.kings = [0, 0]
        self.men: vec[i64] = int_array([0, 0]) if start is None else start.men[:]
        self.pawns: vec[i64] = int_array([0, 0]) if start is None else start.pawns[:]
        self.pieces_key: i64 = 0 if start is None else start.pieces_key
        self.material: i64 = 0 if start is None else start.material
        self._anchor: tuple[Any, ...] = ()
        """A position (cells, turn, castling, ep, kings) at or before the last capture or pawn move, for
        repetitions: :func:`push` takes a new one only once :attr:`_trail` holds :data:`REANCHOR` moves."""
        self._trail: list[Move] = []
        """The moves played since :attr:`_anchor`."""
        self._legal: list[Move] | None = None
        self._check: bool | None = None
        """Whether the side to move is in check; ``None`` until known (see :meth:`is_check`)."""
        self._safe: bool | None = True
        """Whether the side not to move is known not to be in check, so that :meth:`push` may find checks from
        the move alone: false after a null move made in check, ``None`` for good once a king was taken (which
        only a null move made in check allows)."""
        self._codes: vec[i64] = vec[i64]()
        """The buffer :func:`reused_codes` writes the legal moves' codes into (empty until its first call)."""
        self._map: vec[i64] = vec[i64]()
        """The buffer :func:`map_buffer` lends (empty until its first call)."""
        self._rights: i64 = 0
        """:attr:`castling` as a bitboard, made by :func:`_castling_rooks` from the set :attr:`_rights_of`."""
        self._rights_of: frozenset[int] | None = None
        if start is not None:
            self.castling = start.castling
            self.kings = start.kings[:]
            self._anchor = start._anchor
        elif fen is not None:
            self._set_fen(fen, chess960)

    # ------------------------------------------------------------------ FEN

    def _set_fen(self, fen: str, chess960: bool) -> None:
        fields = ascii_text(fen, "FEN", InvalidPositionError).strip().split()
        if not 1 <= len(fields) <= 6:
            raise InvalidPositionError(f"FEN needs 1 to 6 fields, got {len(fields)}: {fen!r}")
        fields += ["w", "-", "-", "0", "1"][len(fields) - 1:]
        placement, turn, castling, ep, halfmove, fullmove = fields
        rows = placement.split("/")
        if len(rows) != 8:
            raise InvalidPositionError(f"FEN board needs 8 ranks, got {len(rows)}: {fen!r}")
        b = self.cells
        for r, row in enumerate(rows):
            rank = 7 - r
            file = 0
            for ch in row:
                if ch in "12345678":
                    file += int(ch)
                elif ch in PIECE_OF_SYMBOL:
                    if file > 7:
                        raise InvalidPositionError(f"FEN rank {rank + 1} has more than 8 squares: {row!r} in {fen!r}")
                    b[square(file, rank)] = PIECE_OF_SYMBOL[ch]
                    file += 1
                else:
                    raise InvalidPositionError(f"bad character {ch!r} in FEN board: {fen!r}")
            if file != 8:
                raise InvalidPositionError(f"FEN rank {rank + 1} has {file} squares, not 8: {row!r} in {fen!r}")
        for colour in (WHITE, BLACK):
            kings = [s for s in SQUARES if b[s] == colour | KING]
            if len(kings) != 1:
                raise InvalidPositionError(f"{'white' if colour == WHITE else 'black'} must have exactly one king: {fen!r}")
            self.kings[colour >> 3] = kings[0]
        if any(b[s] & 7 == PAWN for s in SQUARES if RANK_OF[s] in (0, 7) and b[s]):
            raise InvalidPositionError(f"pawn on the first or last rank: {fen!r}")
        if turn not in ("w", "b"):
            raise InvalidPositionError(f"side to move must be 'w' or 'b', got {turn!r}")
        self.turn = WHITE if turn == "w" else BLACK
        self._set_castling(castling, chess960, fen)
        if ep != "-":
            if ep not in SQUARE_OF_NAME:
                raise InvalidPositionError(f"bad en passant square {ep!r}")
            sq = SQUARE_OF_NAME[ep]
            forward = N if self.turn == WHITE else S
            them = self.turn ^ BLACK
            if (RANK_OF[sq] != (5 if self.turn == WHITE else 2) or b[sq] or b[sq + forward]
                    or b[sq - forward] != them | PAWN):
                raise InvalidPositionError(f"en passant square {ep!r} does not follow a double pawn push")
            self.ep = sq
        halfmove_clock, fullmove_number = decimal(halfmove), decimal(fullmove)
        if halfmove_clock is None or fullmove_number is None:
            raise InvalidPositionError(f"bad move counters {halfmove!r} {fullmove!r} in {fen!r}")
        if fullmove_number < 1 or fullmove_number > 100_000 or halfmove_clock > 100_000:
            raise InvalidPositionError(f"move counters out of range: {halfmove!r} {fullmove!r}")
        self.halfmove_clock, self.fullmove_number = halfmove_clock, fullmove_number
        _count_men(self)
        them = self.turn ^ BLACK
        if _attacked(b, self.kings[them >> 3], self.turn):
            raise InvalidPositionError(f"the side not to move is in check: {fen!r}")
        self._anchor = _snapshot(self)

    def _set_castling(self, text: str, chess960: bool, fen: str) -> None:
        if text == "-":
            return
        b = self.cells
        rights = set()
        for ch in text:
            colour = WHITE if ch.isupper() else BLACK
            rank = 0 if colour == WHITE else 7
            king = self.kings[colour >> 3]
            if RANK_OF[king] != rank:
                raise InvalidPositionError(f"castling right {ch!r} but the king is not on its back rank: {fen!r}")
            rook = colour | ROOK
            up = ch.upper()
            if up in "KQ":
                files = range(7, FILE_OF[king], -1) if up == "K" else range(0, FILE_OF[king])
                found = [square(f, rank) for f in files if b[square(f, rank)] == rook]
                if not found:
                    raise InvalidPositionError(f"castling right {ch!r} but no rook on that side: {fen!r}")
                rights.add(found[0])
            elif up in "ABCDEFGH":
                sq = square("ABCDEFGH".index(up), rank)
                if b[sq] != rook:
                    raise InvalidPositionError(f"castling right {ch!r} but no rook on {NAMES[sq]}: {fen!r}")
                rights.add(sq)
                chess960 = True
            else:
                raise InvalidPositionError(f"bad castling field {text!r}")
        if len(rights) != len(text):
            raise InvalidPositionError(f"repeated castling right in {text!r}")
        for colour in (WHITE, BLACK):
            mine = [s for s in rights if (RANK_OF[s] == 0) == (colour == WHITE)]
            king = self.kings[colour >> 3]
            if len([s for s in mine if s > king]) > 1 or len([s for s in mine if s < king]) > 1:
                raise InvalidPositionError(f"two castling rooks on one side in {text!r}")
            if mine and (FILE_OF[king] != 4 or any(FILE_OF[s] not in (0, 7) for s in mine)):
                chess960 = True
        self.castling = frozenset(rights)
        self.chess960 = self.chess960 or chess960

    def fen(self) -> str:
        """The position as FEN; Chess960 castling rights as Shredder-FEN file letters (``HAha``).

        The en passant square is written only when an en passant capture is legal (as python-chess does).
        """
        b = self.cells
        rows = [_fen_row(b, A1 + rank * STRIDE) for rank in range(7, -1, -1)]
        ep = "-"
        if self.ep and any(m[1] == self.ep and b[m[0]] & 7 == PAWN for m in self.legal_moves()):
            ep = NAMES[self.ep]
        return (f"{'/'.join(rows)} {'w' if self.turn == WHITE else 'b'} {self.castling_fen()} {ep} "
                f"{self.halfmove_clock} {self.fullmove_number}")

    def castling_fen(self) -> str:
        """The castling field: ``KQkq`` style in standard chess, Shredder-FEN file letters in Chess960."""
        castling = self.castling
        if not castling:
            return "-"
        letters = _SHREDDER_LETTERS if self.chess960 else _CASTLING_LETTERS
        out = ""
        for sq in _CASTLING_ORDER:
            if sq in castling:
                out += letters[sq]
        return out

    def _key(self) -> tuple[Any, ...]:
        """What makes two positions the same for repetition: pieces, side, castling, en passant."""
        ep = self.ep
        if ep:
            pawn = (self.turn | PAWN)
            back = S if self.turn == WHITE else N
            if self.cells[ep + back + E] != pawn and self.cells[ep + back + W] != pawn:
                ep = 0
        return (bytes(_ON_BOARD(self.cells)), self.turn, self.castling, ep)

    # ------------------------------------------------------------------ queries

    def copy(self, *, history: bool = True) -> Self:
        """An independent copy of the same class, with the repetition history unless ``history=False``."""
        other = type(self).__new__(type(self))
        other.cells = self.cells[:]
        other.turn = self.turn
        other.castling = self.castling
        other.ep = self.ep
        other.halfmove_clock = self.halfmove_clock
        other.fullmove_number = self.fullmove_number
        other.chess960 = self.chess960
        other.kings = self.kings[:]
        other.men = self.men[:]
        other.pawns = self.pawns[:]
        other.pieces_key = self.pieces_key
        other.material = self.material
        if history:
            other._anchor = self._anchor
            other._trail = self._trail[:]
        else:
            other._anchor = _snapshot(self)
            other._trail = []
        other._legal = self._legal
        other._check = self._check
        other._safe = self._safe
        other._codes = vec[i64]()  # a buffer of its own
        other._map = vec[i64]()
        other._rights = self._rights
        other._rights_of = self._rights_of
        return other

    def piece_at(self, sq: int) -> int:
        """The piece code on ``sq`` (0 when empty)."""
        piece: int = self.cells[sq]
        return piece

    def attacked(self, sq: int, by: int) -> bool:
        """Whether any piece of colour ``by`` attacks ``sq`` (with the board as it stands)."""
        return _attacked(self.cells, sq, by)

    def attackers(self, sq: int, by: int) -> list[int]:
        """Squares of the pieces of colour ``by`` that attack ``sq``."""
        b = self.cells
        out = []
        pawn_from = (sq - 11, sq - 13) if by == WHITE else (sq + 11, sq + 13)
        out += [s for s in pawn_from if b[s] == by | PAWN]
        out += [sq + d for d in KNIGHT_STEPS if b[sq + d] == by | KNIGHT]
        out += [sq + d for d in KING_STEPS if b[sq + d] == by | KING]
        for d in KING_STEPS:
            t = sq + d
            while b[t] == 0:
                t += d
            p = b[t]
            if p != OFF and p & BLACK == by and _SLIDERS_ALONG[SIZE + d] >> (p & 7) & 1:
                out.append(t)
        return out

    def is_check(self) -> bool:
        """Whether the side to move is in check."""
        return is_check(self)

    # ------------------------------------------------------------------ move generation

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move (castling as king-takes-rook), as a new list."""
        return legal_moves(self)

    def is_castling(self, m: Move) -> bool:
        """Whether ``m`` (legal here) is a castling move."""
        p = self.cells[m[0]]
        return bool(m[0]) and p & 7 == KING and self.cells[m[1]] == (p & BLACK) | ROOK

    def is_capture(self, m: Move) -> bool:
        """Whether ``m`` (legal here) captures, en passant included."""
        b = self.cells
        q: int = b[m[1]]
        if q:
            return q & BLACK != self.turn
        return m[1] == self.ep and bool(self.ep) and b[m[0]] & 7 == PAWN

    def gives_check(self, m: Move) -> bool:
        """Whether ``m`` (legal here, not the null move) puts the opponent in check, found without playing it."""
        return gives_check(self, m)

    def checked_move(self, f: int, t: int, promotion: int = 0) -> Move:
        """The move ``f`` -> ``t`` (castling as king-takes-rook) if it is legal here, checked without generating every move.

        :raises IllegalMoveError: naming why it is not legal.
        """
        return checked_move(self, f, t, promotion)

    # ------------------------------------------------------------------ making moves

    def push(self, m: Move) -> None:
        """Play ``m`` (legal here, or the null move)."""
        push(self, m)

    # ------------------------------------------------------------------ game state

    def is_insufficient_material(self) -> bool:
        """Neither side can possibly mate (python-chess's rule)."""
        return self._insufficient(WHITE) and self._insufficient(BLACK)

    def _insufficient(self, colour: int) -> bool:
        b = self.cells
        mine = [b[s] & 7 for s in SQUARES if b[s] and b[s] & BLACK == colour]
        if any(k in (PAWN, ROOK, QUEEN) for k in mine):
            return False
        if KNIGHT in mine:
            others = [b[s] & 7 for s in SQUARES if b[s] and b[s] & BLACK != colour]
            return len(mine) <= 2 and all(k in (KING, QUEEN) for k in others)
        if BISHOP in mine:
            bishops = [s for s in SQUARES if b[s] and b[s] & 7 == BISHOP]
            colours = {(FILE_OF[s] + RANK_OF[s]) % 2 for s in bishops}
            anywhere = [b[s] & 7 for s in SQUARES if b[s]]
            return len(colours) == 1 and PAWN not in anywhere and KNIGHT not in anywhere
        return True

    def repetitions(self) -> int:
        """How many times the current position has occurred (since the last capture or pawn move)."""
        cells, turn, castling, ep, kings = self._anchor
        replay = Board(None, chess960=self.chess960)
        replay.cells, replay.turn, replay.castling, replay.ep, replay.kings = cells[:], turn, castling, ep, kings[:]
        _count_men(replay)
        replay.halfmove_clock = 1
        keys = [replay._key()]
        for m in self._trail:
            replay.push(m)
            if replay.halfmove_clock == 0:  # a capture or pawn move: no position before it comes again
                keys.clear()
            keys.append(replay._key())
        return keys.count(keys[-1])

    def status(self) -> dict[str, Any]:
        """The game state: checkmate > stalemate > insufficient_material > fifty_moves > threefold > ongoing."""
        if not self.legal_moves():
            if self.is_check():
                winner = "black" if self.turn == WHITE else "white"
                return {"status": "checkmate", "winner": winner, "result": "1-0" if winner == "white" else "0-1"}
            return {"status": "stalemate", "result": "1/2-1/2"}
        if self.is_insufficient_material():
            return {"status": "insufficient_material", "result": "1/2-1/2"}
        if self.halfmove_clock >= 100:
            return {"status": "fifty_moves", "result": "1/2-1/2"}
        if self.repetitions() >= 3:
            return {"status": "threefold", "result": "1/2-1/2"}
        return {"status": "ongoing"}

    def occupied(self) -> list[tuple[int, int, str]]:
        """``(file, rank, FEN letter)`` of every piece."""
        b = self.cells
        return [(FILE_OF[s], RANK_OF[s], SYMBOLS[b[s]]) for s in SQUARES if b[s]]

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"


# The rules the methods above give, as functions of the board: compiled code (x88, rank) calls these directly,
# where a method called on an instance of an interpreted subclass (plybits.chess.Position: every board the verbs
# make) goes through Python's method lookup. Each method is its function; nothing overrides them.


REANCHOR: Final = 32
"""How many moves :attr:`Board._trail` holds before a capture or pawn move takes a new :attr:`Board._anchor`
(copying the cells at each one cost a tenth of a compiled replay)."""


def _snapshot(board: Board) -> tuple[Any, ...]:
    """A copy of the position for :meth:`Board.repetitions` (what :attr:`Board._anchor` holds)."""
    return (board.cells[:], board.turn, board.castling, board.ep, board.kings[:])


def _count_men(board: Board) -> None:
    """Set :attr:`Board.men`, :attr:`Board.pawns`, :attr:`Board.pieces_key` and :attr:`Board.material` from the
    cells."""
    b = board.cells
    men = int_array([0, 0])
    pawns = int_array([0, 0])
    key: i64 = 0
    material: i64 = 0
    for s in SQUARES:
        p = b[s]
        if p:
            men[p >> 3] |= BIT_OF[s]
            if p & 7 == PAWN:
                pawns[p >> 3] |= BIT_OF[s]
            key ^= PIECE_KEYS[p * SIZE + s]
            material += MATERIAL[p]
    board.men = men
    board.pawns = pawns
    board.pieces_key = key
    board.material = material


def is_check(board: Board) -> bool:
    """Whether the side to move is in check (:meth:`Board.is_check`)."""
    check = board._check
    if check is None:
        check = board._check = _attacked(board.cells, board.kings[board.turn >> 3], board.turn ^ BLACK)
    return check


_NO_MAP: Final = vec[i64]()
"""No map of the opponent's attacks: :func:`legal_moves` looks for the attackers of each square the king steps to."""


def legal_moves(board: Board, attacks: vec[i64] = _NO_MAP, attacked: int = 0) -> list[Move]:
    """Every legal move of the side to move (castling as king-takes-rook), as a new list (:meth:`Board.legal_moves`).

    ``attacks``, when given, maps each cell to a value of at least ``attacked`` (> 0) where the opponent attacks it
    with the cells as they stand (the king on its square): the king's steps are then read from it, not found by
    looking for attackers (a caller that has the map anyway, the ``rank`` model, saves that work).
    """
    legal = board._legal
    if legal is None:
        codes, n = legal_codes(board, attacks, attacked)
        table = MOVE_TABLE
        legal = []
        for i in range(n):
            legal.append(table[codes[i]])
        board._legal = legal
    return legal[:]


_ROOM_CODES: Final = 128
"""The codes :func:`legal_codes` first makes room for: more than the legal moves of the positions of real games
(about 35, rarely past 80; the zeroed copy is what costs); a position of more (218 at most in standard chess) is
generated again into room for :data:`_MOST_CODES`."""
_MOST_CODES: Final = 64 * 28
"""Room for the codes of any position a FEN can write: 63 pieces of at most 27 moves, a king's 8 and castling."""


def legal_codes(board: Board, attacks: vec[i64] = _NO_MAP, attacked: int = 0) -> tuple[vec[i64], int]:
    """The codes (:func:`move_code`) of :func:`legal_moves`, in its order: the first ``n`` of an
    :func:`~plybits.packed.int_array` with room for at least one more code, and ``n``. The arguments: as
    :func:`legal_moves` takes them. Not cached: a compiled scorer reads the codes where a list of moves would be
    made and unpacked (the ``rank`` model)."""
    return _codes_into(board, zeros(_ROOM_CODES), attacks, attacked)


def reused_codes(board: Board, attacks: vec[i64] = _NO_MAP, attacked: int = 0) -> tuple[vec[i64], int]:
    """:func:`legal_codes` written into the board's own buffer, which the next call on the board overwrites: for a
    caller that reads the codes at once (the ``rank`` model's coders), no array made and zeroed a ply."""
    codes, n = _codes_into(board, codes_buffer(board), attacks, attacked)
    board._codes = codes  # a larger one where the codes did not fit
    return codes, n


def codes_buffer(board: Board) -> vec[i64]:
    """The board's own array for the legal moves' codes (:func:`reused_codes`; first made with room for
    :data:`_ROOM_CODES`), which the next call on the board lends again: no array made a ply."""
    codes = board._codes
    if len(codes) == 0:
        codes = board._codes = zeros(_ROOM_CODES)
    return codes


def map_buffer(board: Board) -> vec[i64]:
    """The board's own array of twice :data:`~plybits.chess.squares.SIZE` cells for a per-ply map of its squares
    (the ``rank`` model's attack map: :func:`plybits.chess.rank._attack_maps` writes each of the 64 squares into the
    first :data:`~plybits.chess.squares.SIZE`, their border cells keep what they held; compiled, it writes beside them
    bitboards: at ``SIZE + square`` each slider's attacks, at ``SIZE`` the squares the opponent attacks, which
    :func:`legal_codes` given that map reads as the side to move's sliders' and the king's targets, and the next map
    keeps the sliders' by), which the next call on the board lends again: no array made a ply, and none shared between
    threads, as a module's would be."""
    cells = board._map
    if len(cells) == 0:
        cells = board._map = _MAP_ZEROS[:]
    return cells


_MAP_ZEROS: Final = zeros(2 * SIZE)
"""What :func:`map_buffer` copies for a board's map: compiled, one memory copy, where :func:`~plybits.packed.zeros`
of more than 256 items builds the array item by item (about 19k instructions a board: a game's)."""


def _codes_into(board: Board, codes: vec[i64], attacks: vec[i64], attacked: int) -> tuple[vec[i64], int]:
    """:func:`legal_codes` written into ``codes`` if they fit with room for one more, else into a new array of room
    for any position."""
    try:
        n: i64 = _generate(board, codes, attacks, attacked)
        if n < len(codes):
            return codes, n
    except IndexError:  # more moves than the array holds (a FEN of many queens): the cells are restored
        pass
    codes = zeros(_MOST_CODES)
    return codes, _generate(board, codes, attacks, attacked)


def has_legal_move(board: Board) -> bool:
    """Whether the side to move has a legal move (``bool(legal_moves(board))``): a legal king step, looked for
    first, answers without generating the moves (a check mark's mate test: most checked kings can step)."""
    if board._legal is None:
        b = board.cells
        them: i64 = board.turn ^ BLACK
        k: i64 = board.kings[board.turn >> 3]
        king = b[k]
        b[k] = EMPTY  # lifted, so that it does not hide the squares behind it from a slider
        found = False
        for step in _KING_STEP_ARRAY:
            t: i64 = k + step
            q: i64 = b[t]
            if (q == 0 or q ^ them < 8) and not _attacked(b, t, them):
                found = True
                break
        b[k] = king
        if found:
            return True
    return len(legal_moves(board)) > 0


def _generate(board: Board, codes: vec[i64], attacks: vec[i64], attacked: i64, bits: bool = PACKED) -> i64:
    """The codes of the legal moves in canonical order, written from ``codes[0]``, and their count: by origin
    square, then target square, then promotion kind (knight, bishop, rook, queen). Square indices grow as a1 = 0
    ... h8 = 63 do and promotion kinds in that order, so this is the order of the moves as tuples and of their
    codes (castling, king-takes-rook, sorts by the rook's square): each piece's moves are made in that order.
    ``attacks`` and ``attacked``: as :func:`legal_moves` takes them (``attacked`` 0: no map). ``bits``: each man's
    targets as a bitboard, pins and checks as masks (compiled code's way: :func:`_generate_bits`), else walked on the
    cells (pure Python's: a 64-bit int's every operation makes an object).
    :raises IndexError: if ``codes`` is too short (the cells as they were)."""
    b = board.cells
    us: i64 = board.turn  # squares and pieces in i64 locals: compiled, plain C arithmetic
    them: i64 = us ^ BLACK
    k: i64 = board.kings[us >> 3]
    if bits:
        rooks: i64 = _castling_rooks(board)
        return _generate_bits(codes, b, us, k, board.men[us >> 3], board.men[them >> 3], board.ep, rooks,
                              board._check is not False, attacks, attacked)
    n: i64 = 0
    checked = board._check is not False and (attacked == 0 or attacks[k] >= attacked)  # else no pawn, knight looked for
    checks, checker, check_step, hidden_a, hidden_b, pinned = _king_lines(b, k, us, board.men[them >> 3], checked)
    forward: i64 = N if us == WHITE else S
    start_rank: i64 = 1 if us == WHITE else 6
    before_last: i64 = 6 if us == WHITE else 1
    ep: i64 = board.ep
    s: i64
    men: i64 = board.men[us >> 3]
    rank: i64  # of ``s``: counted, not read from RANK_OF (a list: an int object a read)
    for rank in range(8):  # as _generate_bits walks them: rank by rank, each rank's men by file
        row: i64 = men >> (rank * 8) & 255
        a_file: i64 = A1 + rank * STRIDE
        while row != 0:
            s = a_file + LOWEST_BIT[row]
            row &= row - 1
            p = b[s]
            kind: i64 = p & 7
            if kind == KING:
                n = _add_king_moves(board, k, checks, codes, n, attacks, attacked, hidden_a, hidden_b)
                continue
            if checks >= 2:
                continue
            pin: i64 = 0
            if pinned != 0 and pinned & BIT_OF[s] != 0:
                pin = LINE[k * SIZE + s]  # the step from the king along the pin
            base: i64 = s * CODE_FROM
            if kind == PAWN:
                if checks != 0 or pin != 0 or rank == before_last:
                    n = _add_pawn_moves(codes, n, b, s, us, k, pin, checks, checker, check_step, rank == start_rank,
                                        rank == before_last, ep)
                    continue
                # unpinned, short of the last rank, not in check: (black's double step), capture towards a, push,
                # capture towards h, (white's double step), each as it comes (no call)
                t = s + forward
                empty = b[t] == 0
                if us == BLACK and empty and rank == start_rank and b[t + S] == 0:
                    codes[n] = (base + t + S) * 8
                    n += 1
                q: i64 = b[t + W]
                if q != 0 and q ^ them < 8 or t + W == ep and _ep_legal(b, s, ep, us, k):
                    codes[n] = (base + t + W) * 8
                    n += 1
                if empty:
                    codes[n] = (base + t) * 8
                    n += 1
                q = b[t + E]
                if q != 0 and q ^ them < 8 or t + E == ep and _ep_legal(b, s, ep, us, k):
                    codes[n] = (base + t + E) * 8
                    n += 1
                if us == WHITE and empty and rank == start_rank and b[t + N] == 0:
                    codes[n] = (base + t + N) * 8
                    n += 1
            elif kind == KNIGHT:
                if not pin:  # a pinned knight never stays on its line
                    n = _add_knight_moves(codes, n, b, s, them, checks, k, checker, check_step)
            else:
                n = _add_slides(codes, n, b, s, kind, pin, them, checks, k, checker, check_step)
    return n


def _add_king_moves(
    board: Board, k: int, checks: int, codes: vec[i64], n: i64, attacks: vec[i64], attacked: i64, hidden_a: i64,
    hidden_b: i64,
) -> i64:
    """Add from ``codes[n]`` the legal moves of the king on ``k`` (``checks``: how many pieces give check), in target
    order, walked on the cells (:func:`~plybits.chess.movegen._add_king_walk`); the new count.

    ``attacks``, ``attacked``: as :func:`legal_moves` takes them; ``hidden_a``, ``hidden_b``: the cells a sliding
    checker attacks through the king (0: none), which the map does not show."""
    rooks: i64 = _castling_rooks(board) if checks == 0 else 0  # both sides': the king's own are read
    return _add_king_walk(codes, n, board.cells, k, rooks, attacks, attacked, hidden_a, hidden_b)


def _castling_rooks(board: Board) -> i64:
    """The squares of the rooks that may castle (:attr:`Board.castling`) as a bitboard
    (:data:`~plybits.chess.squares.BIT_OF`): made from the set once, kept with it (a set is walked by iterator
    objects)."""
    castling = board.castling
    if castling is not board._rights_of:
        rights: i64 = 0
        for r in castling:
            rights |= BIT_OF[r]
        board._rights = rights
        board._rights_of = castling
    return board._rights


def gives_check(board: Board, m: Move) -> bool:
    """Whether ``m`` (legal here, not the null move) puts the opponent in check, found without playing it
    (:meth:`Board.gives_check`)."""
    f: i64 = m[0]  # i64 locals: compiled, plain C arithmetic and cell reads
    t: i64 = m[1]
    promotion: i64 = m[2]
    b = board.cells
    us: i64 = board.turn
    p: i64 = b[f]
    q: i64 = b[t]
    kind: i64 = p & 7
    k: i64 = board.kings[(us >> 3) ^ 1]
    castles = kind == KING and q == us | ROOK
    en_passant = kind == PAWN and t == board.ep and not q
    if board._safe and not promotion and not castles and not en_passant:
        b[f] = EMPTY
        check = _checks_after(b, f, t, p, k)
        b[f] = p
        return check
    # play it on the cells, look at the opponent's king, take it back
    if castles:
        rank_base = f - FILE_OF[f]
        kt = rank_base + (2 if t < f else 6)
        rt = rank_base + (3 if t < f else 5)
        b[f] = EMPTY
        b[t] = EMPTY
        old_k, old_r = b[kt], b[rt]
        b[kt] = p
        b[rt] = q
        check = _attacked(b, k, us)
        b[kt] = old_k
        b[rt] = old_r
        b[f] = p
        b[t] = q
        return check
    cap = t - (N if us == WHITE else S) if en_passant else 0
    taken = b[cap]
    b[f] = EMPTY
    if en_passant:
        b[cap] = EMPTY
    b[t] = us | promotion if promotion else p
    check = _attacked(b, k, us)
    b[t] = q
    b[cap] = taken
    b[f] = p
    return check


def checked_move(board: Board, f: int, t: int, promotion: int = 0) -> Move:
    """The move ``f`` -> ``t`` (castling as king-takes-rook) if it is legal here, checked without generating every move
    (:meth:`Board.checked_move`).

    :raises IllegalMoveError: naming why it is not legal.
    """
    b = board.cells
    us = board.turn
    them = us ^ BLACK
    p = b[f]
    if not p or p == OFF or p & BLACK != us:
        raise IllegalMoveError(f"no {'white' if us == WHITE else 'black'} piece on {NAMES[f] or f!r}")
    q = b[t]
    if q == OFF:
        raise IllegalMoveError(f"target {t!r} is off the board")
    kind = p & 7
    ep_capture = False
    if q and q & BLACK == us:
        if kind == KING and q == us | ROOK and t in board.castling and not is_check(board) \
                and _castling_legal(b, f, t, us):
            if promotion:
                raise IllegalMoveError("castling cannot promote")
            return MOVE_TABLE[(f * CODE_FROM + t) * 8]
        raise IllegalMoveError(f"{NAMES[t]} holds a piece of the side to move")
    if kind == PAWN:
        forward = N if us == WHITE else S
        d = t - f
        if d == forward:
            ok = q == 0
        elif d == 2 * forward:
            ok = q == 0 and b[f + forward] == 0 and RANK_OF[f] == (1 if us == WHITE else 6)
        elif d == forward + E or d == forward + W:
            if q:
                ok = True
            else:
                ok = ep_capture = t == board.ep and bool(t)
        else:
            ok = False
        if not ok:
            raise IllegalMoveError(f"the pawn on {NAMES[f]} cannot move to {NAMES[t]}")
        if (RANK_OF[t] == (7 if us == WHITE else 0)) != bool(promotion):
            raise IllegalMoveError("a pawn reaching the last rank must promote" if not promotion
                                   else "only a pawn reaching the last rank promotes")
    else:
        if promotion:
            raise IllegalMoveError("only a pawn reaching the last rank promotes")
        d = t - f
        if kind == KNIGHT:
            ok = KNIGHT_JUMP[SIZE + d]
        elif kind == KING:
            ok = ADJACENT[SIZE + d]
        else:
            step = LINE[f * SIZE + t]
            ok = step != 0 and _SLIDERS_ALONG[SIZE + step] >> kind & 1 != 0
            if ok:
                s = f + step
                while s != t:
                    if b[s]:
                        ok = False
                        break
                    s += step
        if not ok:
            raise IllegalMoveError(f"the {SYMBOLS[kind]} on {NAMES[f]} cannot move to {NAMES[t]}")
    if kind != KING and not ep_capture:
        check = board._check
        if check is None:
            check = is_check(board)
        if not check:
            # not in check: only a line from the king through ``f`` can open (a pin)
            b[f] = EMPTY
            pinned = _discovers(b, board.kings[us >> 3], f, t, them)
            b[f] = p
            if pinned:
                raise IllegalMoveError("it leaves the king in check")
            found = _MOVES[(f * CODE_FROM + t) * 8 + promotion]
            return move(f, t, promotion) if found is None else found
    # play it on the cells, look at the king, take it back
    b[t] = p
    b[f] = EMPTY
    if ep_capture:
        cap = t - (N if us == WHITE else S)
        b[cap] = EMPTY
    k = t if kind == KING else board.kings[us >> 3]
    exposed = _attacked(b, k, them)
    b[f] = p
    b[t] = q
    if ep_capture:
        b[cap] = them | PAWN
    if exposed:
        raise IllegalMoveError("it leaves the king in check")
    return move(f, t, promotion)


def push(board: Board, m: Move) -> None:
    """Play ``m`` (legal here, or the null move) (:meth:`Board.push`)."""
    f: i64 = m[0]  # squares and pieces in i64 locals: compiled, plain C arithmetic and cell reads
    t: i64 = m[1]
    promotion: i64 = m[2]
    b = board.cells
    us: i64 = board.turn
    board._legal = None
    check: bool | None = None  # unknown: found on demand by is_check()
    safe = board._safe  # else the opponent may already be in check: _checks_after does not apply
    if not f:  # null move
        if safe is not None:
            board._safe = not is_check(board)
        board.ep = 0
        board.halfmove_clock += 1
    else:
        p = b[f]
        q = b[t]
        kind = p & 7
        castling = board.castling
        men = board.men
        keys = PIECE_KEYS
        key: i64 = board.pieces_key ^ keys[p * SIZE + f] ^ keys[q * SIZE + t]  # both off (an empty cell's key: 0)
        if kind == KING and q == us | ROOK:
            rank_base = f - FILE_OF[f]
            a_side = t < f
            kt = rank_base + (2 if a_side else 6)
            rt = rank_base + (3 if a_side else 5)
            b[f] = EMPTY
            b[t] = EMPTY
            b[kt] = p
            b[rt] = q
            board.pieces_key = key ^ keys[p * SIZE + kt] ^ keys[q * SIZE + rt]
            men[us >> 3] = men[us >> 3] & ~(BIT_OF[f] | BIT_OF[t]) | BIT_OF[kt] | BIT_OF[rt]
            board.kings[us >> 3] = kt
            board.castling = frozenset(s for s in castling if RANK_OF[s] != RANK_OF[f])
            board.ep = 0
            board.halfmove_clock += 1
        else:
            b[f] = EMPTY
            men[us >> 3] ^= BIT_OF[f] | BIT_OF[t]  # off ``f``, onto ``t`` (not its own)
            if q:
                men[(us >> 3) ^ 1] &= ~BIT_OF[t]
                board.pawns[(us >> 3) ^ 1] &= ~BIT_OF[t]
                board.material -= MATERIAL[q]
            if kind == PAWN:
                pawns = board.pawns
                pawns[us >> 3] ^= BIT_OF[f] | BIT_OF[t]  # off ``f``, onto ``t`` (off it again below if promoted)
                if t == board.ep and not q:
                    taken = t - (N if us == WHITE else S)
                    key ^= keys[b[taken] * SIZE + taken]
                    b[taken] = EMPTY
                    men[(us >> 3) ^ 1] &= ~BIT_OF[taken]
                    pawns[(us >> 3) ^ 1] &= ~BIT_OF[taken]
                elif not promotion and safe:
                    check = _checks_after(b, f, t, p, board.kings[(us >> 3) ^ 1])
                placed = us | promotion if promotion else p
                if promotion:
                    board.material += MATERIAL[placed]
                    pawns[us >> 3] ^= BIT_OF[t]
                b[t] = placed
                board.pieces_key = key ^ keys[placed * SIZE + t]
                if t - f == 2 * N or t - f == 2 * S:  # statements: compiled, a conditional expression boxed the i64 arm
                    board.ep = (f + t) >> 1
                else:
                    board.ep = 0
                board.halfmove_clock = 0
            else:
                b[t] = p
                board.pieces_key = key ^ keys[p * SIZE + t]
                if safe:
                    check = _checks_after(b, f, t, p, board.kings[(us >> 3) ^ 1])
                board.ep = 0
                if q:
                    board.halfmove_clock = 0
                else:
                    board.halfmove_clock += 1
                if kind == KING:
                    board.kings[us >> 3] = t
                    if len(castling):  # compiled, a frozenset's size is read in place; its truth test is a call
                        board.castling = frozenset(s for s in castling if RANK_OF[s] != RANK_OF[f])
                        castling = board.castling
            if len(castling):
                ends: i64 = BIT_OF[f] | BIT_OF[t]
                # a castling rook stands on a back rank: the set is looked in only for a move from or to one
                if (ends & 255 != 0 or ends >> 56 != 0) and (f in castling or t in castling):
                    board.castling = castling - {f, t}
        if safe is not None:
            board._safe = None if q and q & 7 == KING else True  # a legal move leaves its own king safe
    board._check = check
    board.turn = us ^ BLACK
    if us == BLACK:
        board.fullmove_number += 1
    if board.halfmove_clock == 0 and len(board._trail) >= REANCHOR:  # a copy of the cells once in so many moves
        board._anchor = _snapshot(board)
        board._trail = []
    else:
        board._trail.append(m)


_START: Board | None = None
_START = Board(STANDARD_FEN)
"""The standard start position, read from its FEN once; ``Board()`` copies it."""
