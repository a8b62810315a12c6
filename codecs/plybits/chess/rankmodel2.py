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

from plybits.chess.board import Board
from plybits.chess.rank import (
    _COUNT_UNIT,
    _LEVELS,
    _RANK_UNIT,
    _RANKS,
    _THREAT_LEVELS,
    ATTACK_VALUE,
    N_FEATURES,
    NULL_SCORE,
    LinearChessModel,
    _scores,
    _Tables,
)
from plybits.openingbook import BOOK_DEPTH, BOOK_MIN, SHARE_BUCKET, TOTAL_BUCKET, ZOBRIST, Book, load_book
from plybits.chess.squares import BLACK, FILE_OF, RANK_OF, SIZE, Move
from plybits.packed import int_array
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

    def topped_codes(
        self, board: Board, codes: vec[i64], n: int, history: Sequence[Move], attacks: vec[i64], material: int,
        ordered: bool = False,
    ) -> tuple[vec[i64], i64]:
        """The scores of model 1's features and this module's but the book's (:func:`~plybits.chess.rank._scores`
        under :meth:`build_tables`), plus the book's (:func:`_add_book`; ``ordered``: as it takes it), and their top
        (the null move's aside)."""
        entry = None
        if len(history) < BOOK_DEPTH:
            book = self.book
            if book is None:
                book = self.book = opening_book(self.filename)
            entry = book.get(position_key(board))
        if entry is None:
            return _scores(self.tables(), board, codes, n, history, attacks, material)
        tables = self.tables2()
        base: i64 = _book_base(entry)
        # the weight of a move never played here added by the scorer to every move (in its origins' sums), the played
        # moves' own weights over it by _add_book
        scores, top = _scores(self.tables(), board, codes, n, history, attacks, material, tables.book[base])
        return scores, _add_book(tables, entry, codes, n, scores, top, ordered)


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


MODEL_2: Final[LinearChessModel2] = LinearChessModel2(
    "rank_model_v2.json", 2, "log-linear move model 2: model 1's features plus threats, replies to the last move and an "
    "opening book, "
    "learned from master and online games (tools/train_chess.py)"
)
"""Model 2, what ``encode`` writes."""
