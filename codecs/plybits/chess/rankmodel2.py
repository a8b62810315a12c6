"""``chess/rank`` model 2: model 1's features with weights of their own, plus threats, replies and an opening book.

A move's score is model 1's feature sum (:func:`plybits.chess.rank._scores`, under model 2's weights of those
1238 ids) plus the weights of these (``kind`` the mover's, squares relative to the side to move):

- ``G_FROM_SAFETY``: the origin's safety (attacked by nothing / a cheaper piece / another; our defenders
  0/1/2+) by kind: what an attacked piece's escape is worth;
- ``G_LAST_ATTACKS``: the piece the opponent just moved attacks the origin, by kind and whether our piece is
  worth more than it;
- ``G_NEAR_LAST``: the king distance (1-7) from the target to the square the opponent just moved to, by kind;
- ``G_CAPTURE_GUARDED``: a capture on a square the enemy attacks, by victim x mover;
- ``G_PHASE_RANK``: the target's relative rank by material phase and kind;
- ``G_BOOK``: an opening book. In the first :data:`BOOK_DEPTH` plies the position (keyed by :func:`position_key`,
  the pieces and the side to move) is looked up among the training games' positions reached at least
  :data:`BOOK_MIN` times; every move gets the weight of the times the position was reached (6 buckets) x the
  share of those times the move was played (7 buckets, or never played). The book ships in
  ``rank_model_v2.json``; training counts each game out of it while the game's own features are read.

Feature ids are part of model 2's format: never change them; a new feature set is a new model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, TypeAlias, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.chess.board import Board, _castling_rooks, codes_buffer, map_buffer
from plybits.chess.movegen import _add_promotions, _answer_bits, _castling_targets, _ep_legal, _king_lines
from plybits.chess.rank import (
    _CHECK_MARK_BITS,
    _CHECK_MARKS,
    _COUNT_UNIT,
    _LEVELS,
    _NEAR_CHECK,
    _NEAR_CODE,
    _RANK_SHIFT,
    _RANK_UNIT,
    _RANKS,
    _THREAT_LEVELS,
    ATTACK_VALUE,
    END_CODE,
    N_FEATURES,
    NULL_SCORE,
    LinearChessModel,
    _attack_maps,
    _last_terms,
    _origin_terms,
    _position_terms,
    _scores,
    _Tables,
)
from plybits.openingbook import BOOK_DEPTH, BOOK_MIN, SHARE_BUCKET, TOTAL_BUCKET, ZOBRIST, Book, load_book
from plybits.chess.squares import (
    A1, BIT_OF, BLACK, CODE_FROM, FILE_OF, KING, KNIGHT, LINE, LOWEST_BIT, PAWN, RANK_OF, ROOK, SIZE, STRIDE, WHITE,
    _JUMP_BITS, _RAY_OF_STEP, _RAYS, Move,
)
from plybits.packed import PACKED, int_array
from plybits.rank import FeatureIds, load_model_data

MODEL_1_FEATURES: Final = 1238
"""Model 1's feature count (its ids are frozen): model 2's ids start with model 1's, then these. Spelled out, not
read from :mod:`plybits.chess.rank` at import: the two modules import each other."""
_ids = FeatureIds()
_ids.count = MODEL_1_FEATURES
G_FROM_SAFETY = _ids.block(3 * 3 * 7)  # origin attacked (none, by a cheaper piece, by another) x defenders x kind
G_LAST_ATTACKS = _ids.block(2 * 7)  # the opponent's last-moved piece attacks the origin: worth more than it? x kind
G_NEAR_LAST = _ids.block(8 * 7)  # king distance of the target to the opponent's last target x kind
G_CAPTURE_GUARDED = _ids.block(7 * 7)  # capture on a square the enemy attacks: victim x mover
G_PHASE_RANK = _ids.block(4 * 8 * 7)  # phase x relative target rank x kind
G_BOOK = _ids.block(6 * 8)  # in the book: times the position was reached (bucket) x this move's share (0: never)
N_FEATURES_2 = _ids.count

_DISTANCE: Final = int_array([
    max(abs(FILE_OF[a] - FILE_OF[b]), abs(RANK_OF[a] - RANK_OF[b])) if FILE_OF[a] >= 0 and FILE_OF[b] >= 0 else 0
    for a in range(SIZE) for b in range(SIZE)
])
"""_DISTANCE[a * SIZE + b]: the king distance between two squares."""
_REL_RANK: Final = int_array([RANK_OF[s] if RANK_OF[s] >= 0 else 0 for s in range(SIZE)]
                             + [7 - RANK_OF[s] if RANK_OF[s] >= 0 else 0 for s in range(SIZE)])
"""_REL_RANK[side * SIZE + square]: the square's rank as the side sees it."""
_VALUES: Final = (0, 1, 3, 3, 5, 9, 20, 0)
""":data:`~plybits.chess.rank.ATTACK_VALUE`, spelled out as :data:`MODEL_1_FEATURES` is (checked equal)."""
_SQUARES: Final = int_array([s for s in range(SIZE) if FILE_OF[s] >= 0])
"""The board's 64 cells."""
_BLACK_KEY: Final = ZOBRIST[-1]
"""XORed into the key of a position with black to move."""
_TOTAL: Final = int_array(TOTAL_BUCKET)
"""The book bucket of a position reached ``total`` times (0..255), as every opening book's."""
_SHARE: Final = int_array(SHARE_BUCKET)
"""The share bucket of a move played ``s``/64 of the times (1..7), as every opening book's."""

PackedBook: TypeAlias = "dict[int, vec[i64]]"
"""Position key -> its entry packed as ``[times reached, move code, times played, move code, ...]``, the codes
ascending; only positions reached at least :data:`BOOK_MIN` times."""
_BOOKS: dict[str, PackedBook] = {}
"""By data file name: its opening book, read on first use (training puts its own here)."""


def pack_entry(entry: dict[int, int]) -> vec[i64]:
    """A book position's moves (move code -> times played) as a :data:`PackedBook` entry."""
    packed = [sum(entry.values())]
    for code in sorted(entry):
        packed += [code, entry[code]]
    return int_array(packed)


def pack_book(book: Book, keys: Iterable[int] | None = None, into: PackedBook | None = None) -> PackedBook:
    """The :data:`PackedBook` of ``book`` (``keys`` given: those positions of it, updated in ``into``)."""
    out: PackedBook = {} if into is None else into
    for key in book if keys is None else keys:
        entry = book.get(key)
        if entry is not None and sum(entry.values()) >= BOOK_MIN:
            out[key] = pack_entry(entry)
        elif key in out:
            del out[key]
    return out


def position_key(board: Board) -> int:
    """The opening book's key of a position: the XOR of :data:`~plybits.chess.board.PIECE_KEYS` of its pieces
    (:attr:`~plybits.chess.board.Board.pieces_key`, kept as moves are played), and of :data:`_BLACK_KEY` if black is
    to move (castling rights and en passant not included)."""
    key: i64 = board.pieces_key
    return key ^ _BLACK_KEY if board.turn == BLACK else key


def opening_book(filename: str) -> PackedBook:
    """The opening book of a model's data file, its rows ``[key, [[move code, times played], ...]]`` (read once)."""
    book = _BOOKS.get(filename)
    if book is None:
        rows = load_model_data("plybits.chess", filename).get("book", [])
        book = _BOOKS[filename] = pack_book(load_book(rows))
    return book


def _attacked_class(kind: int, entry: int) -> int:
    """0: not attacked, 1: attacked by a cheaper piece, 2: by another (of an attack map entry)."""
    rank = entry // _RANK_UNIT
    if not rank:
        return 0
    return 1 if _THREAT_LEVELS[_RANKS - rank] < ATTACK_VALUE[kind] else 2


@final
class _Tables2:
    """Model 2's own feature weights laid out by the indices the scorer has at hand (folded into model 1's tables by
    :meth:`LinearChessModel2.build_tables`)."""

    __slots__ = ("from_safety", "last_attacks", "near_last", "guarded", "phase_rank", "book", "lowers")

    def __init__(self, w: list[int]) -> None:
        from_safety = [0] * (7 * _LEVELS)
        for kind in range(1, 7):
            for entry in range(_LEVELS):
                attacked = _attacked_class(kind, entry)
                count = entry % _RANK_UNIT // _COUNT_UNIT
                defenders = 2 if count > 1 else count
                from_safety[kind * _LEVELS + entry] = w[G_FROM_SAFETY + (attacked * 3 + defenders) * 7 + kind]
        self.from_safety = int_array(from_safety)
        """By kind x the origin's attack map entry."""
        self.last_attacks = int_array(w[G_LAST_ATTACKS:G_LAST_ATTACKS + 2 * 7])
        near = [0] * (SIZE * 8 * SIZE)
        phase_rank = [0] * (2 * 4 * 8 * SIZE)
        for kind in range(1, 7):
            for t in _SQUARES:
                for last in _SQUARES:
                    near[(last * 8 + kind) * SIZE + t] = w[G_NEAR_LAST + _DISTANCE[t * SIZE + last] * 7 + kind]
                for side in range(2):
                    for phase in range(4):
                        phase_rank[((side * 4 + phase) * 8 + kind) * SIZE + t] = w[
                            G_PHASE_RANK + (phase * 8 + _REL_RANK[side * SIZE + t]) * 7 + kind]
        self.near_last = int_array(near)
        """``G_NEAR_LAST``'s weight by (the opponent's last target, kind, target) (a border cell's rows: 0, for no
        last move)."""
        self.phase_rank = int_array(phase_rank)
        """``G_PHASE_RANK``'s weight by (side to move, phase, kind, target)."""
        self.guarded = int_array(w[G_CAPTURE_GUARDED:G_CAPTURE_GUARDED + 7 * 7])
        self.book = int_array(w[G_BOOK:G_BOOK + 6 * 8])
        """``G_BOOK``'s weights by times reached (bucket) x share (bucket, 0: never played)."""
        self.lowers = int_array([int(min(w[G_BOOK + total * 8 + 1:G_BOOK + total * 8 + 8]) < w[G_BOOK + total * 8])
                                 for total in range(6)])
        """By times reached (bucket): 1 if a played share's weight is below a move never played's."""


class LinearChessModel2(LinearChessModel):
    """Model 2: model 1's scorer under its own weights, with this module's features folded into its tables."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description)
        if N_FEATURES != MODEL_1_FEATURES or ATTACK_VALUE != _VALUES:
            raise AssertionError("model 1's features changed under model 2")
        self.n_features = N_FEATURES_2
        self.book: PackedBook | None = None
        """The opening book (:func:`opening_book`), kept on first use."""
        self._tables2: _Tables2 | None = None

    def tables2(self) -> _Tables2:
        """Model 2's own weights laid out by feature, made on first use (the book's read by :func:`_add_book`)."""
        tables = self._tables2
        if tables is None:
            tables = self._tables2 = self.derived("tables2", _Tables2)
        return tables

    def build_tables(self, w: list[int]) -> _Tables:
        """Model 1's :class:`~plybits.chess.rank._Tables` of model 2's weights with :class:`_Tables2`'s folded in: one
        pass of :func:`~plybits.chess.rank._scores` scores a move under all of them."""
        tables = _Tables(w)
        own = self.tables2()
        tables.add_terms(own.from_safety, own.guarded, own.phase_rank, own.near_last, own.last_attacks)
        return tables

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], int, vec[i64], i64]:
        """:meth:`~plybits.chess.rank.LinearChessModel.coded`'s, each move scored as it is generated
        (:func:`_generated_scores`: one pass, where the codes were walked again), where they fit; compiled only (pure
        Python runs model 1's, set below the class)."""
        men = position.men
        attacks, material = _attack_maps(position.cells, position.turn, men[0] | men[1], map_buffer(position),
                                         position.material, position.pawns)
        entry = self.book_entry(position, history)
        extra: i64 = 0
        if entry is not None:
            extra = self.tables2().book[_book_base(entry)]
        codes = codes_buffer(position)  # the buffer reused_codes writes into
        try:
            n, scores, top = _generated_scores(self.tables(), position, codes, history, attacks, material, extra)
        except IndexError:  # the scores past the buffer's end: more moves than half of it holds
            n = -1
        if n < 0:
            return super().coded(position, history)
        codes[n] = END_CODE  # past the null move, as the two passes leave it (the scores' half is the buffer's upper)
        if entry is not None:
            top = _add_book(self.tables2(), entry, codes, n, scores, top, True)
        return codes, n, scores, top

    def book_entry(self, board: Board, history: Sequence[Move]) -> vec[i64] | None:
        """The book's entry of the position (:data:`PackedBook`), or ``None``: out of the book or past its depth."""
        if len(history) >= BOOK_DEPTH:
            return None
        book = self.book
        if book is None:
            book = self.book = opening_book(self.filename)
        return book.get(position_key(board))

    def topped_codes(
        self, board: Board, codes: vec[i64], n: int, history: Sequence[Move], attacks: vec[i64], material: int,
        ordered: bool = False,
    ) -> tuple[vec[i64], i64]:
        """The scores of model 1's features and this module's but the book's (:func:`~plybits.chess.rank._scores`
        under :meth:`build_tables`), plus the book's (:func:`_add_book`; ``ordered``: as it takes it), and their top
        (the null move's aside)."""
        entry = self.book_entry(board, history)
        if entry is None:
            return _scores(self.tables(), board, codes, n, history, attacks, material)
        tables = self.tables2()
        base: i64 = _book_base(entry)
        # the weight of a move never played here added by the scorer to every move (in its origins' sums), the played
        # moves' own weights over it by _add_book
        scores, top = _scores(self.tables(), board, codes, n, history, attacks, material, tables.book[base])
        return scores, _add_book(tables, entry, codes, n, scores, top, ordered)


if not PACKED:  # pure Python takes the two passes: model 1's coders, with no override to call through each ply
    LinearChessModel2.coded = LinearChessModel.coded  # type: ignore[method-assign]


def _book_base(entry: vec[i64]) -> i64:
    """The start of :attr:`_Tables2.book`'s row of a position's :data:`PackedBook` ``entry``: its weights by share
    bucket (0: never played) for the times the position was reached."""
    bucket: i64 = entry[0]  # an i64 index: compiled, a load (a mixed int one boxes the array)
    if bucket > 255:  # statements: compiled, a conditional expression with a literal boxed its value
        bucket = 255
    return _TOTAL[bucket] * 8


def _add_book(
    tables: _Tables2, entry: vec[i64], codes: vec[i64], n: int, scores: vec[i64], top: i64, ordered: bool,
) -> i64:
    """Add ``G_BOOK``'s weights to the ``scores`` of the first ``n`` ``codes`` (the null move's left as it is), given
    the position's :data:`PackedBook` entry and that every move's but the null move's holds the weight of a move never
    played already (their highest ``top``, :data:`~plybits.chess.rank.NULL_SCORE` if none): each move of the entry
    gets its share's weight instead. ``ordered``: the codes are the generator's (ascending, the null move last), so
    each of the entry's (ascending too) is looked for from where the one before it was; else among all the moves. The
    highest of the moves' new scores, the null move's aside."""
    total: i64 = entry[0]
    base: i64 = _book_base(entry)
    book = tables.book
    unplayed: i64 = book[base]
    end: i64 = len(entry)
    count: i64 = n
    i: i64 = 0
    at: i64
    code: i64
    score: i64
    if ordered:  # each of the entry's codes looked for from where the one before it was (or would have been)
        moves: i64 = count - 1  # the null move last
        for at in range(1, end, 2):
            code = entry[at]
            while i < moves and codes[i] < code:
                i += 1
            if i < moves and codes[i] == code:
                score = scores[i] + book[base + _SHARE[entry[at + 1] * 64 // total]] - unplayed
                scores[i] = score
                if score > top:
                    top = score
    else:
        for at in range(1, end, 2):
            for i in range(count):
                if codes[i] == entry[at]:
                    score = scores[i] + book[base + _SHARE[entry[at + 1] * 64 // total]] - unplayed
                    scores[i] = score
                    top = score if score > top else top
    if tables.lowers[base >> 3]:  # a played move's weight may be below a move never played's: the top read again
        top = NULL_SCORE
        for i in range(count):
            if codes[i] != 0 and scores[i] > top:
                top = scores[i]
    return top


def _generated_scores(
    tables: _Tables, board: Board, codes: vec[i64], history: Sequence[Move], attacks: vec[i64], material: i64,
    extra: i64,
) -> tuple[i64, vec[i64], i64]:
    """(how many, their scores, the top but the null move's) of :func:`~plybits.chess.board.reused_codes`' codes, each
    scored as it is written (:func:`~plybits.chess.rank._scores`' terms; the scores in the upper half of ``codes`` until
    the end), then the null move; -1 codes where they do not fit half of ``codes`` (the caller takes the two passes).
    Here what :func:`~plybits.chess.movegen._generate_bits` and ``_scores`` read once a position, given the rank
    model's map in the board's buffer, passed to :func:`_walked_scores` as arguments (compiled, returned tuples of
    them cost more)."""
    us: i64 = board.turn
    k: i64 = board.kings[us >> 3]
    men: i64 = board.men[us >> 3]
    theirs: i64 = board.men[(us >> 3) ^ 1]
    rights: i64 = _castling_rooks(board)
    checks, checker, check_step, hidden_a, hidden_b, pinned = _king_lines(
        board.cells, k, us, theirs, board._check is not False and attacks[k] >= _RANK_UNIT)
    rooks: i64 = rights  # the rooks that may castle now: none in check
    if checks != 0:
        rooks = 0
    allowed: i64 = ~men & _answer_bits(k, checks, checker, check_step)
    last_to, my_last_to, last_capture, near_base, last_value, last_attacks = _last_terms(tables, board, history)
    phase, in_check = _position_terms(board, attacks, material)
    threat_base: i64 = 0  # the start of the origin's threat in _Tables.from_threat
    if in_check:
        threat_base = 7 * _LEVELS
    return _walked_scores(tables, board, codes, attacks, extra, k, men, theirs, rooks, rights, allowed, pinned,
                          hidden_a, hidden_b, last_to, my_last_to, last_capture, near_base, last_value, last_attacks,
                          phase, threat_base)


def _walked_scores(
    tables: _Tables, board: Board, codes: vec[i64], attacks: vec[i64], extra: i64, k: i64, men: i64, theirs: i64,
    rooks: i64, rights: i64, allowed: i64, pinned: i64, hidden_a: i64, hidden_b: i64, last_to: i64, my_last_to: i64,
    last_capture: bool, near_base: i64, last_value: i64, last_attacks: i64, phase: i64, threat_base: i64,
) -> tuple[i64, vec[i64], i64]:
    """The walk of :func:`_generated_scores`, given what that reads once a position (``rooks``: those that may castle
    now, ``rights``: the castling rooks, ``allowed``: the squares a man may move to; the rest as named there)."""
    b: vec[i64] = board.cells
    colour: i64 = board.turn
    ep_square: i64 = board.ep
    start_rank: i64 = 1 if colour == WHITE else 6
    bit_of, lowest = BIT_OF, LOWEST_BIT
    king_at: i64 = SIZE + board.kings[(colour >> 3) ^ 1]  # as _NEAR_CODE is indexed
    row_base: i64 = (phase * 16) * SIZE  # the start of the phase's rows in _Tables.rows
    near_last, quiet, captures, near_code = tables.near_last, tables.quiet, tables.captures, _NEAR_CODE
    off: i64 = len(codes) >> 1  # where the scores go
    top: i64 = NULL_SCORE
    n: i64 = 0
    rank: i64
    for rank in range(8):  # our men rank by rank, each rank's by file, as _generate_bits walks them
        here: i64 = men >> (rank * 8) & 255
        while here != 0:
            s: i64 = A1 + rank * STRIDE + lowest[here]
            here &= here - 1
            p: i64 = b[s]
            kind: i64 = p & 7
            mask: i64 = allowed
            if pinned != 0 and pinned & bit_of[s] != 0:
                mask &= _RAYS[k * 8 + _RAY_OF_STEP[SIZE + LINE[k * SIZE + s]]]
            a: i64 = _JUMP_BITS[p * SIZE + s]  # a pawn's captures, a knight's or king's steps
            if kind == PAWN:  # its pushes onto empty squares, its captures, en passant played on the cells
                push: i64 = (bit_of[s] << 8 if colour == WHITE else bit_of[s] >> 8) & ~(men | theirs)
                if rank == start_rank:
                    push |= (push << 8 if colour == WHITE else push >> 8) & ~(men | theirs)
                if ep_square != 0 and a & bit_of[ep_square] != 0 and _ep_legal(b, s, ep_square, colour, k):
                    a = (a & theirs | push) & mask | bit_of[ep_square]
                else:
                    a = (a & theirs | push) & mask
            elif kind == KNIGHT:
                a &= mask
            elif kind == KING:
                a &= ~men & ~attacks[SIZE] & ~bit_of[hidden_a] & ~bit_of[hidden_b]
                if rooks != 0:
                    a |= _castling_targets(b, k, rooks, attacks, _RANK_UNIT)
            else:
                a = attacks[SIZE + s] & mask
            if a == 0:
                continue
            row = tables.rows[row_base + p * SIZE + s]  # the origin's terms, as _scores sums them
            if len(row) == 0:
                row = tables.row(phase, p, s)
            fixed: i64 = tables.from_threat[threat_base + kind * _LEVELS + attacks[s]] + extra
            if s == my_last_to:
                fixed += tables.same[kind]
            threatened = last_attacks & bit_of[s] != 0
            if threatened or (kind == ROOK or kind == KING) and rights != 0:
                fixed += _origin_terms(tables, kind, s, threatened, last_value, colour, rights)
            if kind == PAWN and rank == 7 - start_rank:  # promotions: four codes a target
                n, top = _promotions(tables, board, codes, n, s, a, off, row, fixed, near_base, last_to, last_capture,
                                     attacks, top)
                continue
            pawn_ep: i64 = 0  # statements: compiled, a conditional expression with a literal boxed the i64
            if kind == PAWN:
                pawn_ep = ep_square
            near_king_at: i64 = p * (2 * SIZE) + king_at
            near_at: i64 = near_base + kind * SIZE
            t: i64 = A1  # the first square of the rank ``a``'s low byte holds
            if a & 0xFFFFFFFF == 0:
                a = a >> 32 & 0xFFFFFFFF
                t += 4 * STRIDE
            while a != 0:
                bits: i64 = a & 255
                while bits != 0:
                    target: i64 = t + lowest[bits]
                    bits &= bits - 1
                    codes[n] = (s * CODE_FROM + target) * 8
                    q: i64 = b[target]
                    entry: i64 = attacks[target]
                    score: i64 = row[target] + fixed + near_last[near_at + target]
                    near: i64 = p * (4 * _LEVELS) + near_code[near_king_at - target]
                    if q == 0 and target != pawn_ep:
                        score += quiet[near + entry]  # the near terms and the safety
                    elif q != 0 and q & BLACK != colour:
                        score += captures[(q & 7) * (7 * _LEVELS) + kind * _LEVELS + entry] \
                            + tables.near[near + (entry & _CHECK_MARK_BITS)]
                        if target == last_to:
                            score += tables.recapture[kind] if last_capture else tables.takes_last[kind]
                    else:  # en passant, or castling (the king takes its own rook)
                        score = _rare_terms(tables, q, kind, phase, s, target, entry, near, score, extra)
                    codes[off + n] = score
                    n += 1
                    if score > top:
                        top = score
                a = a >> 8 & 0xFFFFFFFFFFFFFF
                t += STRIDE
    if n >= off:
        return -1, codes, top
    codes[n] = 0  # the null move, below every move
    codes[off + n] = NULL_SCORE
    return n + 1, codes[off:off + n + 1], top


def _rare_terms(
    tables: _Tables, q: i64, kind: i64, phase: i64, f: i64, t: i64, entry: i64, near: i64, score: i64, extra: i64,
) -> i64:
    """The score of an en passant capture (``q`` empty) or of castling (the king takes its own rook ``q``), as
    :func:`~plybits.chess.rank._scores` reads them, given the move's ``score`` so far."""
    if q == 0:
        return (score + tables.en_passant[entry >> _RANK_SHIFT] + tables.safety[kind * 2 * _LEVELS + _LEVELS + entry]
                + tables.near[near + (entry & _CHECK_MARK_BITS)])
    return (tables.castle_h[phase] if t > f else tables.castle_a[phase]) + extra


def _promotions(
    tables: _Tables, board: Board, codes: vec[i64], n: i64, s: i64, targets: i64, off: i64, row: vec[i64], fixed: i64,
    near_base: i64, last_to: i64, last_capture: bool, attacks: vec[i64], top: i64,
) -> tuple[i64, i64]:
    """Add the pawn on ``s``'s promotions to ``targets`` from ``codes[n]`` (:func:`_add_promotions`), each scored
    into ``codes[off + i]`` as :func:`~plybits.chess.rank._scores` scores it (the origin's ``row`` and ``fixed`` sum
    given); (the new count, the new top)."""
    end: i64 = _add_promotions(codes, n, s, targets)
    return end, _scored_codes(tables, board, codes, n, end, off, row, fixed, near_base, last_to, last_capture, attacks,
                              top)


def _scored_codes(
    tables: _Tables, board: Board, codes: vec[i64], start: i64, end: i64, off: i64, row: vec[i64], fixed: i64,
    near_base: i64, last_to: i64, last_capture: bool, attacks: vec[i64], top: i64,
) -> i64:
    """Score ``codes[start:end]``, one man's promotions, as :func:`~plybits.chess.rank._scores` does (its origin's
    ``row`` and ``fixed`` sum given), each into ``codes[off + i]``; the new top."""
    b = board.cells
    colour: i64 = board.turn
    king_at: i64 = SIZE + board.kings[(colour >> 3) ^ 1]
    p: i64 = b[codes[start] >> 11]
    kind: i64 = p & 7
    i: i64
    for i in range(start, end):
        code: i64 = codes[i]
        t: i64 = code >> 3 & 255
        promotion: i64 = code & 7
        q: i64 = b[t]
        a: i64 = attacks[t]
        score: i64 = row[t] + fixed + tables.near_last[near_base + kind * SIZE + t]
        near: i64 = p * (4 * _LEVELS) + _NEAR_CODE[p * (2 * SIZE) + king_at - t]
        if q:
            score += (tables.captures[(q & 7) * (7 * _LEVELS) + kind * _LEVELS + a]
                      + tables.near[near + (a & _CHECK_MARK_BITS)])
            if t == last_to:
                score += tables.recapture[kind] if last_capture else tables.takes_last[kind]
        else:
            score += tables.quiet[near + a]
        score += tables.promotion[promotion]
        if _NEAR_CODE[(colour | promotion) * (2 * SIZE) + king_at - t] >= _NEAR_CHECK or a & _CHECK_MARKS[promotion]:
            score += tables.check[promotion]
        codes[off + i] = score
        if score > top:
            top = score
    return top


MODEL_2: Final[LinearChessModel2] = LinearChessModel2(
    "rank_model_v2.json", 2, "log-linear move model 2: model 1's features plus threats, replies to the last move and an "
    "opening book, "
    "learned from master and online games (tools/train_chess.py)"
)
"""Model 2, what ``encode`` writes."""
