"""``xiangqi/rank`` model 2: log-linear like model 1, with exchange safety, checks, repetitions and an opening book.

A move's score is the sum of the integer weights (1/32 bit) of its active features, all defined by
:meth:`LinearXiangqiModel2.scores` (``move_features`` reads them back, as for model 1). Beyond model 1's
kinds of feature it knows, from a capture map of each side (which pieces could take on a point, the cheapest
of them, how many): whether the target and the origin are safe, defended or hang; whether a capture can be
taken back; whether the move gives check (directly, or by opening a line or forming a cannon's screen); whether
it moves away a piece the opponent's last move attacked; whether it undoes or repeats one's own earlier move;
and, in the first :data:`BOOK_DEPTH` plies, how often masters played it in this very position (the opening
book shipped with the weights, keyed by a Zobrist hash of the position). Piece-square tables are crossed with
the material phase. Weights and book: ``rank_model_v2.json``, fitted by ``tools/train_xiangqi.py``.

Feature ids, the hash and the book are part of model 2's format: never change them; a change is a new model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.errors import InvalidDataError
from plybits.mailbox import OFF
from plybits.openingbook import BOOK_DEPTH, BOOK_MIN, SHARE_BUCKET, TOTAL_BUCKET, ZOBRIST, Book, load_book
from plybits.packed import PACKED, int_array, int_list, zeros
from plybits.rangecoder import RangeDecoder, RangeEncoder
from plybits.rank import FeatureIds, LinearModel, decode_packed, encode_packed, load_model_data
from plybits.xiangqi.board import (
    BLACK,
    CANNON,
    CHARIOT,
    ELEPHANT,
    FILE_OF,
    GEOMETRY,
    HORSE,
    KING,
    MAX_MOVES,
    MOVES,
    ORTHOGONAL,
    POINTS,
    RANK_OF,
    RED,
    SOLDIER,
    SQUARES,
    Board,
    Move,
    _ADVISOR_ROWS,
    _ELEPHANT_ROWS,
    _HORSE_ATTACKER_ROWS,
    _HORSE_ROWS,
    _KING_ROWS,
    _SOLDIER_ATTACKER_ROWS,
    _SOLDIER_ROWS,
    code_index,
    generals_face,
    legal,
    legal_codes,
    moves_of,
    occupied_points,
    pseudo_codes,
)

_SIZE: Final = GEOMETRY.size
RANK_OF_KIND: Final = [0, 6, 2, 2, 3, 5, 3, 1]
"""A piece's rank in an exchange, by kind (general 6: no attacker is dearer)."""
_MATERIAL: Final = [0, 0, 2, 2, 4, 9, 4, 1, 0]
"""Rough piece values by kind, summed for the material phase (as model 1)."""

_ZOBRIST: Final = int_array(ZOBRIST)


def position_key(cells: vec[i64], turn: int, scan: list[int]) -> int:
    """The book's key of a position: the XOR of :data:`ZOBRIST` of each piece on its cell (and of black to
    move); ``scan`` lists the occupied cells."""
    return _position_key(cells, turn, int_array(scan))


def _position_key(cells: vec[i64], turn: int, scan: vec[i64]) -> i64:
    """:func:`position_key`, ``scan`` an :func:`~plybits.xiangqi.board.occupied_points` array."""
    key: i64 = _ZOBRIST[16 * _SIZE] if turn == BLACK else 0
    for sq in scan:
        key ^= _ZOBRIST[cells[sq] * _SIZE + sq]
    return key


# ---------------------------------------------------------------- model 2 features (frozen)

_ids = FeatureIds()
F_TO: Final = _ids.block(8 * 90)  # kind x relative to-point
F_FROM: Final = _ids.block(8 * 90)  # kind x relative from-point
F_TO_PHASE: Final = _ids.block(4 * 8 * 90)  # material phase x kind x relative to-point
F_FROM_PHASE: Final = _ids.block(4 * 8 * 90)  # material phase x kind x relative from-point
F_PHASE: Final = _ids.block(4 * 8)  # material phase x kind
F_CAPTURE: Final = _ids.block(8 * 8 * 2)  # victim kind x mover kind x the opponent can take back
F_TARGET: Final = _ids.block(2 * 8 * 4)  # capture? x mover kind x target state (_STATES)
F_ORIGIN: Final = _ids.block(8 * 4)  # mover kind x origin state (_STATES)
F_RECAPTURE: Final = _ids.block(8)  # captures on the point the opponent just captured on, by mover kind
F_TAKES_LAST: Final = _ids.block(8)  # captures the piece that just moved
F_SAME_PIECE: Final = _ids.block(8)  # moves again the piece this side moved last
F_EVASION: Final = _ids.block(8)  # side to move is in check, by kind
F_SLIDE: Final = _ids.block(2 * 2 * 10)  # chariot/cannon x along a file/rank x distance
F_NEAR_LAST: Final = _ids.block(6)  # king-step distance of the target from the opponent's last target (0..4, 5+)
F_CHECK: Final = _ids.block(8 * 2)  # gives check directly, by kind x the target is attacked
F_DISCOVERED: Final = _ids.block(8)  # opens a line to the enemy general or forms a cannon's screen, by kind
F_FLEE: Final = _ids.block(8 * 2)  # moves a piece the opponent's last moved piece attacks, by kind x defended
F_BACK: Final = _ids.block(8)  # moves back the piece this side moved last, to where it came from
F_REPEAT: Final = _ids.block(8)  # plays again this side's move of two turns ago
F_BOOK: Final = _ids.block(6 * 8)  # in the book: times the position was reached (bucket) x this move's share
N_FEATURES: Final = _ids.count

# A cell of the marks (:func:`_capture_maps`) stays below 2**24 (pure Python, an int of one digit): the opponent's
# count and rank bits, the scorer's per-ply bits, the side to move's count.
_CHECKS: Final = 12
"""The shift of the per-ply bits :meth:`LinearXiangqiModel2._scores` adds to the marks (:func:`_mark_checks`)."""
_THEIRS: Final = (1 << _CHECKS) - 1
"""The opponent's part of a cell of the marks: its count and rank bits."""
_OURS: Final = _CHECKS + 7
"""The shift of the side to move's count in a cell of the marks (above the 7 per-ply bits)."""
_CHECK_BIT: Final = [0, 0, 0, 0, 4 << _CHECKS, 1 << _CHECKS, 2 << _CHECKS, 8 << _CHECKS]
"""By kind: the bit of a cell in the marks that says a piece of that kind gives check from it."""
_SCREEN_BIT: Final = 16 << _CHECKS
"""Set on an empty cell between the enemy general and one's own cannon: a piece (not a cannon) landing there checks."""
_OPEN_BIT: Final = 32 << _CHECKS
"""Set on a cell whose piece, moved off its line, opens a check by a chariot or a cannon behind it."""
_THREAT_BIT: Final = 64 << _CHECKS
"""Set on a cell the piece the opponent just moved could capture on."""


_TOTAL_BUCKET: Final = int_array(TOTAL_BUCKET)
_SHARE_BUCKET: Final = int_array(SHARE_BUCKET)


_LINES: Final = int_array(ORTHOGONAL)
# zeroed templates copied by a slice (compiled, cheaper than a call of zeros())
_NO_MARKS: Final = zeros(_SIZE)
_NO_SCORES: Final = zeros(MAX_MOVES)
_SIDE: Final = GEOMETRY.size
"""The offset of black's rows in the board's packed step tables (a cell's red row is the cell itself)."""


_STEPPING: Final = 1
_JUMPING: Final = 2
_SCREENED: Final = 3
_HOW: Final = int_array([0, _STEPPING, _STEPPING, _JUMPING, _JUMPING, 0, _SCREENED, _STEPPING] * 2)
"""By piece code, how :func:`_mark_captures` walks its targets: steps (general, advisor, soldier: its
:data:`_PIECE_ROWS` row), jumps over a leg or an eye (horse, elephant: ``target << 8 | blocking cell`` rows), lines
(chariot, 0; cannon, past a screen)."""
_PIECE_ROWS: Final = [
    rows[side: side + _SIDE] if rows else []
    for side in (0, _SIDE)
    for rows in ([], _KING_ROWS, _ADVISOR_ROWS, _ELEPHANT_ROWS, _HORSE_ROWS + _HORSE_ROWS, [], [], _SOLDIER_ROWS)
]
"""``_PIECE_ROWS[piece][cell]``: the board's step row of that piece on that cell (by colour where the rules are)."""


def _mark_captures(
    cells: vec[i64], squares: vec[i64], marks: vec[i64], us: i64, bits: vec[i64], plus: i64, threat: i64,
) -> None:
    """For each piece not of ``us`` on ``squares``, on each cell it could capture on if an enemy stood there (its own
    pieces' cells included: it defends them), set its kind's bit of ``bits``, then add ``plus`` (:func:`_capture_maps`
    counts so, and sets the piece's rank bit; the pieces of ``us`` are marked as their moves are listed:
    :func:`~plybits.xiangqi.board.pseudo_codes`). Read from the board's packed step tables (``target << 8 |
    blocking cell`` where a cell can block). One expression a target (``(m | bit) + plus``): no call, no branch; one
    call for all the pieces (pure Python, a call costs). The piece on ``threat`` sets :data:`_THREAT_BIT` too."""
    lines = _LINES
    for sq in squares:
        piece = cells[sq]
        if piece & BLACK == us:
            continue
        bit = bits[piece & 7]
        if sq == threat:
            bit |= _THREAT_BIT
        how = _HOW[piece]
        if how == _STEPPING:
            for t in _PIECE_ROWS[piece][sq]:
                marks[t] = (marks[t] | bit) + plus
        elif how == _JUMPING:
            for e in _PIECE_ROWS[piece][sq]:
                if cells[e & 255] == 0:
                    t = e >> 8
                    marks[t] = (marks[t] | bit) + plus
        elif how == _SCREENED:  # a cannon: past the screen, up to and including the next piece
            for step in lines:
                t = sq + step
                while cells[t] == 0:
                    t += step
                if cells[t] == OFF:
                    continue
                t += step
                q = cells[t]
                while q == 0:
                    marks[t] = (marks[t] | bit) + plus
                    t += step
                    q = cells[t]
                if q != OFF:
                    marks[t] = (marks[t] | bit) + plus
        else:
            for step in lines:
                t = sq + step
                q = cells[t]
                while q == 0:
                    marks[t] = (marks[t] | bit) + plus
                    t += step
                    q = cells[t]
                if q != OFF:
                    marks[t] = (marks[t] | bit) + plus


def capture_map(cells: vec[i64], color: int, scan: list[int]) -> vec[i64]:
    """Per cell, ``rank * 16 + count`` of the pieces of ``color`` that could capture there (:func:`_mark_captures`;
    ``rank`` the cheapest one's, :data:`RANK_OF_KIND`; the count stops at 15), 0 where none; ``scan`` lists the
    occupied cells."""
    maps = _capture_maps(cells, color ^ BLACK, int_array(scan))  # color's marks as the opponent's: with the ranks
    out = zeros(_SIZE)
    for c in range(_SIZE):
        m = maps[c] & _THEIRS
        if m:
            rank = 1
            while not m & 1 << (_COUNT_BITS + rank):
                rank += 1
            out[c] = rank * 16 + min(m & _COUNT_MASK, 15)
    return out


def _capture_maps(cells: vec[i64], us: int, scan: vec[i64], last_to: i64 = -1) -> vec[i64]:
    """The marks of both sides' pieces, in one array made in one pass over ``scan``: per cell, in the low bits
    the count of the opponent's pieces that could capture there (at most 14 of a side reach a cell: below bit
    ``_COUNT_BITS``) and the bits of their ranks (:data:`_RANK_BITS`), and from bit ``_OURS`` the count of those of
    ``us``. The scorer adds its per-ply bits between (:data:`_CHECKS`); :data:`_THREAT_BIT` is set here, where the
    piece on ``last_to`` (the opponent's last target, -1 none) could capture."""
    maps = _NO_MARKS[:]
    _mark_captures(cells, scan, maps, us, _RANK_BITS, 1, last_to)
    pseudo_codes(cells, us, _NO_SCORES[:], scan, maps, 1 << _OURS)
    return maps


def _mark_checks(cells: vec[i64], king: i64, us: i64, mask: vec[i64]) -> None:
    """Set in ``mask``, per cell, the bits of :data:`_CHECK_BIT` (a piece of that kind of ``us`` moving there checks
    the general on ``king``), :data:`_SCREEN_BIT` and :data:`_OPEN_BIT`; from the position before the move. Each
    line from the general is walked once, in this one function (pure Python, a call costs)."""
    rook = CHARIOT | us
    cannon = CANNON | us
    by_chariot: i64 = _CHECK_BIT[CHARIOT]
    by_cannon: i64 = _CHECK_BIT[CANNON]
    for step in _LINES:
        t = king + step
        first: i64 = 0
        bit = by_chariot  # the empty cells up to the first piece: a chariot there checks (and on it, theirs taken)
        while True:
            q = cells[t]
            while q == 0:
                mask[t] |= bit
                t += step
                q = cells[t]
            if q == OFF or first:
                break
            if q & BLACK != us:
                mask[t] |= bit
            first = t
            bit = by_cannon  # past it, up to the second piece: a cannon there checks, the first its screen
            t += step
        if q == OFF:
            continue
        ours_first = cells[first] & BLACK == us
        if q & BLACK != us:
            mask[t] |= by_cannon
        if q == cannon:  # the empty cells before the first piece: a screen placed there checks
            s = king + step
            while s != first:
                mask[s] |= _SCREEN_BIT
                s += step
        if ours_first and q == rook:
            mask[first] |= _OPEN_BIT
        if ours_first and q & BLACK == us:
            second = t
            t += step
            while cells[t] == 0:
                t += step
            if cells[t] == cannon:  # two screens: moving either off leaves one
                mask[first] |= _OPEN_BIT
                mask[second] |= _OPEN_BIT
    for e in _HORSE_ATTACKER_ROWS[king]:  # horse cell << 8 | its leg
        if cells[e & 255] == 0:
            mask[e >> 8] |= _CHECK_BITS[HORSE]
    for s in _SOLDIER_ATTACKER_ROWS[(us >> 3) * _SIDE + king]:
        mask[s] |= _CHECK_BITS[SOLDIER]


_COUNT_BITS: Final = 5
_COUNT_MASK: Final = (1 << _COUNT_BITS) - 1
"""The attackers' count in a cell of :func:`_capture_maps`' marks: the low bits."""
_RANK_BITS: Final = int_array([1 << (_COUNT_BITS + rank) for rank in RANK_OF_KIND])
"""By kind: the bit of its :data:`RANK_OF_KIND` in a cell of :func:`_capture_maps`' marks."""
_CHEAPER: Final = int_array([(1 << (_COUNT_BITS + r)) - (1 << (_COUNT_BITS + 1)) if r else 0 for r in RANK_OF_KIND])
"""By kind: the rank bits of the kinds cheaper than it (attackers that win an exchange on its point)."""
_CHECK_BITS: Final = int_array(_CHECK_BIT)
_NOTABLE: Final = int_array([_THEIRS | _CHECK_BIT[kind] | (0 if kind == CANNON else _SCREEN_BIT) for kind in range(8)])
"""By kind: the marks of a target that call for the rarer weights of :meth:`LinearXiangqiModel2._scores` (attacked, a
check, a cannon's screen)."""
_STATES: Final = ("safe", "defended", "cheaper attacker", "hangs")
"""A point's state (``F_TARGET``, ``F_ORIGIN``), 0..3: no attacker; attacked and defended by no cheaper piece;
attacked by a cheaper piece (and defended); attacked and not defended. From the marks: the attackers' rank bits
against the piece's :data:`_CHEAPER`, the defenders' count."""
_FILE: Final = int_array(FILE_OF)
_RANK: Final = int_array(RANK_OF)
_VALUE: Final = int_array(_MATERIAL)


@final
class _Tables:
    """What :meth:`LinearXiangqiModel2.scores` derives from the weights, as :func:`~plybits.packed.int_array`
    arrays (compiled, a read is one load): piece-square sums by phase, made per phase and per last target on
    first use (a process that codes a few plies pays for no more)."""

    __slots__ = ("weights", "w", "to", "origin", "near", "slide", "moves", "target")

    def __init__(self, w: list[int]) -> None:
        # model 1's point tables; imported here, not at the top: plybits.xiangqi.rank imports this module
        from plybits.xiangqi.rank import _SLIDE_STEPS

        self.weights: list[int] = w
        self.w: vec[i64] = int_array(w)
        self.slide: list[vec[i64]] = _SLIDE_STEPS
        """slide[f][t]: the ``F_SLIDE`` offset of a slide from ``f`` to ``t`` (0 off the lines)."""
        self.to: list[list[vec[i64]] | None] = [None] * 4
        """to[phase][piece][t]: ``F_TO`` + ``F_TO_PHASE`` of that piece's move to ``t``."""
        self.origin: list[vec[i64] | None] = [None] * 4
        """origin[phase][piece * SIZE + f]: ``F_FROM`` + ``F_FROM_PHASE`` + ``F_PHASE`` of a move from ``f``, with the
        ``F_ORIGIN`` weight of a safe origin and the ``F_TARGET`` one of a quiet move to a safe point (most moves')."""
        self.moves: list[vec[i64] | None] = [None] * (4 * 16 * _SIZE)
        """moves[(phase * 16 + piece) * SIZE + f][t]: a chariot's or a cannon's ``to`` weight with its ``F_SLIDE`` one of
        the slide from ``f`` to ``t`` (one read a move)."""
        self.near: list[vec[i64] | None] = [None] * (_SIZE + 1)
        """near[last_to][t]: the ``F_NEAR_LAST`` weight of target ``t`` (row SIZE: no last move, no weight)."""
        self.target: vec[i64] = int_array([w[F_TARGET + capture * 32 + kind * 4 + state] - w[F_TARGET + kind * 4]
                                           for kind in range(8) for capture in (0, 1) for state in range(4)])
        """target[kind * 8 + capture? * 4 + state]: ``F_TARGET``'s weight less that of a quiet move to a safe point
        (which the origin's weights hold)."""

    def phase_rows(self, phase: int) -> tuple[list[vec[i64]], vec[i64]]:
        """``(to[phase], origin[phase])``, made on first use."""
        to_rows = self.to[phase]
        origin_row = self.origin[phase]
        if to_rows is not None and origin_row is not None:
            return to_rows, origin_row
        from plybits.xiangqi.rank import piece_points

        w = self.weights
        to = [0] * (16 * _SIZE)
        origin = [0] * (16 * _SIZE)
        for index, kind, point in piece_points():
            r = kind * 90 + point
            to[index] = w[F_TO + r] + w[F_TO_PHASE + phase * 720 + r]
            origin[index] = (w[F_FROM + r] + w[F_FROM_PHASE + phase * 720 + r] + w[F_PHASE + phase * 8 + kind]
                             + w[F_ORIGIN + kind * 4] + w[F_TARGET + kind * 4])
        to_rows = self.to[phase] = [int_array(to[piece * _SIZE:(piece + 1) * _SIZE]) for piece in range(16)]
        origin_row = self.origin[phase] = int_array(origin)
        return to_rows, origin_row

    def move_row(self, phase: int, piece: i64, f: i64) -> vec[i64]:
        """``moves[...]`` of a chariot or a cannon (``piece``) on ``f`` in ``phase``, made on first use."""
        at = (phase * 16 + piece) * _SIZE + f
        row = self.moves[at]
        if row is not None:
            return row
        block = F_SLIDE + (20 if piece & 7 == CANNON else 0)
        steps = self.slide[f]
        to_row = self.phase_rows(phase)[0][piece]
        made = zeros(_SIZE)
        for t in SQUARES:
            made[t] = to_row[t] + self.w[block + steps[t]]
        self.moves[at] = made
        return made

    def near_row(self, last_to: int) -> vec[i64]:
        """``near[last_to]`` (``last_to`` -1: the first ply's row, no weight), made on first use."""
        if last_to < 0:
            last_to = _SIZE
        row = self.near[last_to]
        if row is not None:
            return row
        from plybits.xiangqi.rank import _NEAR_STEPS

        made = zeros(_SIZE)
        if last_to < _SIZE:
            steps = _NEAR_STEPS[last_to]
            for t in SQUARES:
                made[t] = self.w[F_NEAR_LAST + steps[t]]
        self.near[last_to] = made
        return made


class CodedXiangqiModel(LinearModel):
    """A xiangqi model that scores the legal moves' codes (:func:`~plybits.xiangqi.board.legal_codes`) and codes a
    ply by its code's place among them, with no :class:`Move` made a legal move; a subclass defines :meth:`coded`."""

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], i64, vec[i64]]:
        """The legal moves' codes in canonical order (the first ``n``), ``n`` and their :meth:`scores`."""
        raise NotImplementedError

    def scored(self, position: Board, history: Sequence[Move]) -> tuple[list[Move], list[int] | None]:
        """The legal moves in canonical order and their :meth:`scores`."""
        moves, scores = self.packed_scored(position, history)
        return moves, int_list(scores) if moves else None

    def packed_scored(self, position: Board, history: Sequence[Move]) -> tuple[list[Move], vec[i64]]:
        """:meth:`scored`, the scores as the scorer makes them (an :func:`~plybits.packed.int_array`)."""
        codes, n, scores = self.coded(position, history)
        return moves_of(codes, n), scores

    def encode_ply(self, encoder: RangeEncoder, position: Board, move: Move, history: Sequence[Move]) -> None:
        """Code ``move`` (legal in ``position``) by its code's place among the legal moves' codes.

        :raises ValueError: if ``move`` is not legal here.
        """
        codes, n, scores = self.coded(position, history)
        index = code_index(codes, n, move.from_square << 8 | move.to_square)
        if index < 0:
            raise ValueError(f"{move!r} is not a legal move here")
        encode_packed(encoder, scores, index)

    def decode_ply(self, decoder: RangeDecoder, position: Board, history: Sequence[Move]) -> Move:
        """The next move, read from ``decoder`` (always one of the legal moves).

        :raises InvalidDataError: if there is no legal move or the data points outside them.
        """
        codes, n, scores = self.coded(position, history)
        if n == 0:
            raise InvalidDataError("a move is coded but the position has no legal move")
        c = codes[decode_packed(decoder, scores)]
        return MOVES[c >> 8][c & 255]


@final
class LinearXiangqiModel2(CodedXiangqiModel):
    """Model 2: log-linear with the shipped integer weights and opening book; :meth:`scores` defines the features."""

    def __init__(self, filename: str, version: int, description: str = "",
                 canonical: Callable[[Any], list[Any]] | None = None) -> None:
        super().__init__(filename, version, description, package="plybits.xiangqi", n_features=N_FEATURES,
                         canonical=canonical or _canonical, features=None, packed_weights=PACKED)
        self._tables: _Tables | None = None
        self.book: Book | None = None
        """The opening book (read with the weights on first use); training sets its own."""

    def opening_book(self) -> Book:
        """:attr:`book`, read from the data file on first use."""
        book = self.book
        if book is None:
            data = load_model_data(self.package, self.filename)
            book = self.book = load_book(data.get("book", []))
            weights = data["weights"]
            if self._weights is None and len(weights) == self.n_features:  # else :attr:`weights` reads and checks
                self._weights = [int(x) for x in weights]
        return book

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], i64, vec[i64]]:
        """The legal moves' codes (:func:`~plybits.xiangqi.board.legal_codes`: the first ``n``), ``n`` and their
        :meth:`scores`; the board is scanned for its pieces once, for both."""
        cells = position.cells
        us = position.turn
        kings = position.kings
        k = kings[us >> 3]
        red, black, material = sides(cells)
        mine, theirs = (black, red) if us == BLACK else (red, black)
        maps = _NO_MARKS[:]  # :func:`_capture_maps`: the opponent's marks, and ours as the moves are listed
        _mark_captures(cells, theirs, maps, us, _RANK_BITS, 1, history[-1].to_square if history else -1)
        # the opponent's marks hit the general iff it is in check, the flying general aside
        checked = 1 if maps[k] & _THEIRS or generals_face(cells, kings[0], kings[1]) else 0
        codes, n = legal_codes(cells, k, us, mine, checked, maps, 1 << _OURS, _COUNT_MASK)
        return codes, n, self._scores(position, codes, n, history, mine, theirs, material, maps)

    def scores(self, board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[int]:
        """Each move's score: the sum of the weights of its features (``kind`` the mover's, points relative to the
        side to move): ``F_TO``/``F_FROM`` and their crosses with the material phase, ``F_PHASE``, ``F_SLIDE``;
        ``F_TARGET`` and ``F_ORIGIN`` by the safety of the two points (:data:`_STATES`); a capture's
        ``F_CAPTURE`` (victim, mover, can be taken back), ``F_RECAPTURE``/``F_TAKES_LAST``; ``F_NEAR_LAST``,
        ``F_SAME_PIECE``, ``F_EVASION``; ``F_CHECK``/``F_DISCOVERED`` (:func:`_mark_checks`); ``F_FLEE`` (the origin
        is attacked by the piece the opponent just moved); ``F_BACK``, ``F_REPEAT``; ``F_BOOK``."""
        n = len(moves)
        codes = zeros(n)
        for i in range(n):
            codes[i] = moves[i].from_square << 8 | moves[i].to_square
        cells = board.cells
        red, black, material = sides(cells)
        mine, theirs = (black, red) if board.turn == BLACK else (red, black)
        last_to = history[-1].to_square if history else -1
        maps = _capture_maps(cells, board.turn, occupied_points(cells), last_to)
        return int_list(self._scores(board, codes, n, history, mine, theirs, material, maps))

    def _derive(self) -> _Tables:
        """:attr:`_tables`, made once from the weights (the opening book read first: one read of the file for both)."""
        self.opening_book()
        tables = self._tables = self.derived("tables2", _Tables)
        return tables

    def _book_entry(
        self, cells: vec[i64], us: int, mine: vec[i64], theirs: vec[i64],
    ) -> tuple[dict[int, int] | None, int]:
        """The opening book's moves of this position (the pieces of each side on ``mine`` and ``theirs``) and the times
        it was reached, ``(None, 0)`` if the training games reached it fewer than :data:`BOOK_MIN` times."""
        entry = self.opening_book().get(_position_key(cells, us, mine) ^ _position_key(cells, RED, theirs))
        if entry is None:
            return None, 0
        total = 0
        for count in entry.values():
            total += count
        return (entry, total) if total >= BOOK_MIN else (None, 0)

    def _book_weights(
        self, cells: vec[i64], us: int, mine: vec[i64], theirs: vec[i64], played: int, w: vec[i64],
    ) -> tuple[dict[int, int] | None, int, i64, i64]:
        """:meth:`_book_entry` (none after :data:`BOOK_DEPTH` plies ``played``), its row of ``F_BOOK`` weights and
        the weight of a move not in the book (0 without an entry)."""
        entry, total = self._book_entry(cells, us, mine, theirs) if played < BOOK_DEPTH else (None, 0)
        book_base = F_BOOK + 8 * _TOTAL_BUCKET[min(total, 255)]
        return entry, total, book_base, w[book_base] if entry is not None else 0

    def _scores(
        self, board: Board, codes: vec[i64], n: i64, history: Sequence[Move], mine: vec[i64], opponents: vec[i64],
        material: i64, maps: vec[i64],
    ) -> vec[i64]:
        """:meth:`scores` of the first ``n`` move codes, given the board's pieces by side (``mine``, ``opponents``) and
        their material (:func:`sides`) and both sides' marks (:func:`_capture_maps` given ``history``'s last target, to
        which it adds its :data:`_CHECKS` bits)."""
        tables = self._tables or self._derive()
        w = tables.w
        target_w = tables.target  # F_TARGET less a quiet move's to a safe point (in origin_w, so in fixed)
        cells = board.cells
        us: i64 = board.turn
        their_king: i64 = board.kings[(us ^ BLACK) >> 3]
        last_to, my_last_from, my_last_to, repeat_from, repeat_to = _recent(history)
        near = tables.near_row(last_to)
        phase = _phase(material)
        to_rows, origin_w = tables.phase_rows(phase)
        in_check = maps[board.kings[us >> 3]] & _THEIRS != 0
        entry, total, book_base, unplayed = self._book_weights(cells, us, mine, opponents, len(history), w)
        _mark_checks(cells, their_king, us, maps)
        took = F_RECAPTURE if last_to >= 0 and board.halfmove_clock == 0 else F_TAKES_LAST
        out = _NO_SCORES[:n] if n <= MAX_MOVES else zeros(n)
        ours: i64 = _OURS  # read in the loop: a local is cheaper in pure Python (a global is a lookup)
        theirs: i64 = _THEIRS
        origin: i64 = -1  # the moves come grouped by origin: what depends on it only is set when it changes
        limit: i64 = -1  # the first code past the origin's moves
        fixed: i64 = 0  # the origin's weights, the book's unplayed one and a safe quiet target's (origin_w has it)
        kind: i64 = 0
        at: i64 = 0  # the origin's marks
        notable: i64 = 0  # the marks of a target that call for more than the common weights (_NOTABLE of the mover)
        special = False  # a move from the origin can open a line, move back or repeat
        row = _NO_MARKS  # the weights of the mover's target (to_rows, or a slider's moves row: with F_SLIDE)
        for i in range(n):
            c = codes[i]
            t = c & 255
            if c >= limit:
                origin = c >> 8
                limit = (origin + 1) << 8
                p = cells[origin]
                kind = p & 7
                at = maps[origin]
                fixed = origin_w[p * _SIZE + origin] + unplayed
                hit: i64 = at & theirs
                if hit:  # F_ORIGIN of an attacked origin, for the safe one's that origin_w holds
                    state: i64 = 3 if at >> ours == 0 else 2 if hit & _CHEAPER[kind] else 1
                    fixed += w[F_ORIGIN + kind * 4 + state] - w[F_ORIGIN + kind * 4]
                if at & _THREAT_BIT:
                    fixed += w[F_FLEE + kind * 2 + (1 if at >> ours != 0 else 0)]
                if origin == my_last_to:
                    fixed += w[F_SAME_PIECE + kind]
                if in_check:
                    fixed += w[F_EVASION + kind]
                row = tables.move_row(phase, p, origin) if kind == CHARIOT or kind == CANNON else to_rows[p]
                notable = _NOTABLE[kind]
                special = at & _OPEN_BIT != 0 or origin == my_last_to or origin == repeat_from
            q = cells[t]
            m = maps[t]
            score: i64 = row[t] + fixed + near[t]
            if m & notable or q or special:  # rarer: F_TARGET of an attacked or captured-on target, F_CAPTURE, ...
                hit = m & theirs
                if hit:  # the state of t after the move (_STATES): its defenders are ours but the mover (a cannon's
                    # marks count it where it captures, not where it slides to)
                    others: i64 = (m >> ours) - (0 if q == 0 and kind == CANNON else 1)
                    state = (2 if hit & _CHEAPER[kind] else 1) if others > 0 else 3
                    hit = 1
                    score += target_w[kind * 8 + 4 + state] if q else target_w[kind * 8 + state]
                elif q:
                    score += target_w[kind * 8 + 4]
                if q:
                    score += w[F_CAPTURE + kind * 2 + (q & 7) * 16 + hit]
                    if t == last_to:
                        score += w[took + kind]
                if m & _CHECK_BITS[kind]:
                    score += w[F_CHECK + kind * 2 + hit]
                screened = m & _SCREEN_BIT != 0 and kind != CANNON
                if screened:
                    score += w[F_DISCOVERED + kind]
                if special:
                    score += _special_weights(w, kind, origin, t, at, screened, their_king, my_last_from, my_last_to,
                                              repeat_from, repeat_to)
            out[i] = score
        if entry is not None:
            _add_book(out, codes, n, entry, total, w, book_base, unplayed)
        return out


def _special_weights(
    w: vec[i64], kind: i64, f: i64, t: i64, at: i64, screened: bool, their_king: i64, my_last_from: i64,
    my_last_to: i64, repeat_from: i64, repeat_to: i64,
) -> i64:
    """``F_DISCOVERED`` (unless ``screened``: given for the screen), ``F_BACK`` and ``F_REPEAT`` of a move of a ``kind``
    from ``f`` (marks ``at``) to ``t``, which :meth:`LinearXiangqiModel2._scores` adds where the origin may open a line,
    moves back or repeats (rare: out of its loop)."""
    score: i64 = 0
    off_line = _FILE[t] != _FILE[f] if _FILE[f] == _FILE[their_king] else _RANK[t] != _RANK[f]
    if not screened and at & _OPEN_BIT and off_line:
        score += w[F_DISCOVERED + kind]  # moves off the line through f and their general
    if f == my_last_to and t == my_last_from:
        score += w[F_BACK + kind]
    if f == repeat_from and t == repeat_to:
        score += w[F_REPEAT + kind]
    return score


def _add_book(
    out: vec[i64], codes: vec[i64], n: i64, entry: dict[int, int], total: int, w: vec[i64], book_base: i64,
    unplayed: i64,
) -> None:
    """Give the book's moves among the first ``n`` of ``codes`` their share's ``F_BOOK`` weight (``book_base``'s
    row, ``total`` the times the position was reached) for the unplayed one (``unplayed``) in ``out``."""
    whole: i64 = total
    for key, count in entry.items():
        point: i64 = key  # compiled: machine integers from here on
        times: i64 = count
        i = code_index(codes, n, POINTS[point // 90] << 8 | POINTS[point % 90]) if times else -1
        if i >= 0:
            out[i] += w[book_base + _SHARE_BUCKET[times * 64 // whole]] - unplayed


def _phase(material: i64) -> int:
    """The material phase, 0 (the start) .. 3, of the pieces' summed :data:`_MATERIAL`."""
    return 0 if material >= 60 else 1 if material >= 44 else 2 if material >= 28 else 3


_NO_SIDE: Final = zeros(16)
_PIECE_VALUE: Final = int_array(_MATERIAL[:8] * 2)
""":data:`_MATERIAL` by piece code, either colour (read with no ``& 7``)."""


def sides(cells: vec[i64]) -> tuple[vec[i64], vec[i64], i64]:
    """The cells of red's pieces and of black's, each in point order (the scans of the code generators and the
    marks), and the pieces' summed :data:`_MATERIAL`. One loop in both builds: pure Python runs the common bytecodes
    whose machine code the rest of a ply keeps in the processor's cache, where a few C calls a ply (bytes, translate,
    compress, sum: fewer instructions) each brought their own in."""
    red = _NO_SIDE[:]
    black = _NO_SIDE[:]
    n_red: i64 = 0
    n_black: i64 = 0
    material: i64 = 0
    for i in POINTS:
        p = cells[i]
        if p:
            material += _PIECE_VALUE[p]
            if p > BLACK:  # black's piece codes are 9..15 (compared: pure Python specializes it, not ``p & BLACK``)
                black[n_black] = i
                n_black += 1
            else:
                red[n_red] = i
                n_red += 1
    return red[:n_red], black[:n_black], material


def _recent(history: Sequence[Move]) -> tuple[i64, i64, i64, i64, i64]:
    """The opponent's last target, this side's last move (from, to) and its move of two turns ago (from, to); -1
    for each that was not played."""
    moves = history if isinstance(history, list) else list(history[-4:])  # compiled, a list is indexed directly
    played = len(moves)
    last_to: i64 = moves[played - 1].to_square if played >= 1 else -1
    my_last_from: i64 = -1
    my_last_to: i64 = -1
    repeat_from: i64 = -1
    repeat_to: i64 = -1
    if played >= 2:
        mine = moves[played - 2]
        my_last_from = mine.from_square
        my_last_to = mine.to_square
    if played >= 4:
        again = moves[played - 4]
        repeat_from = again.from_square
        repeat_to = again.to_square
    return last_to, my_last_from, my_last_to, repeat_from, repeat_to


def _canonical(board: Board) -> list[Move]:
    """The legal moves in canonical (from, to) point order (as ``plybits.xiangqi.rank.canonical_moves``)."""
    return legal(board.cells, board.kings[board.turn >> 3], board.turn)
