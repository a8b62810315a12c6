"""``abalone/rank`` model 3: model 2's features and weights, and an opening book.

In a game's first :data:`~plybits.openingbook.BOOK_DEPTH` plies the position (:func:`position_key`: the XOR of a
:data:`~plybits.openingbook.ZOBRIST` number for each marble on its cell, and one for black to move) is looked up among
the training games' positions reached at least :data:`~plybits.openingbook.BOOK_MIN` times, and a move played there
has the feature :data:`F_BOOK` by the times the position was reached and the move's share of them. The scorer is
model 2's (:func:`~plybits.abalone.rankmodel2.scored_codes_2`) under tables of model 3's weights, the book's weights
then added to the (few) book moves. :func:`move_features` is the plain definition, which training reads (with its own
book, each game counted out of it) and a test holds the scorer to. Weights and book: ``rank_model_v3.json``, fitted
by ``tools/train_abalone.py``.

Feature ids, the key's numbers and the book are part of model 3's format: never change them; a change is a new model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.abalone.board import BLACK, GEOMETRY, WHITE, Board, Move, move_code
from plybits.abalone.rank import LinearAbaloneModel, code_slot
from plybits.abalone.rankmodel2 import _Model2Tables, scored_codes_2
from plybits.abalone.rankmodel2 import move_features as model_2_features
from plybits.openingbook import (
    BOOK_DEPTH, BOOK_MIN, SHARE_BUCKET, TOTAL_BUCKET, ZOBRIST, ZOBRIST_COUNT, Book, load_book,
)
from plybits.packed import int_array
from plybits.rank import FeatureIds, load_model_data

N_MODEL_2_FEATURES: Final = 3808
"""Model 2's feature count (:data:`plybits.abalone.rankmodel2.N_FEATURES`, frozen with its format; a test holds them
equal)."""

_ids = FeatureIds()
F_MODEL_2: Final = _ids.block(N_MODEL_2_FEATURES)
"""Model 2's features (:mod:`plybits.abalone.rankmodel2`), the same ids."""
F_BOOK: Final = _ids.block(6 * 7)
"""A move the book's games played here: the times the position was reached (:data:`~plybits.openingbook.TOTAL_BUCKET`,
0..5) x the move's share of them (:data:`~plybits.openingbook.SHARE_BUCKET`, 1..7), ``F_BOOK + 7 * total + share - 1``.
A move never played there has none."""
N_FEATURES: Final = _ids.count

_SIZE: Final = GEOMETRY.size
_ZOBRIST: Final = int_array(ZOBRIST)
_BLACK_TO_MOVE: Final = ZOBRIST[ZOBRIST_COUNT - 1]


def position_key(board: Board) -> int:
    """The book's key of ``board``: the XOR of ``ZOBRIST[colour * 121 + cell]`` of each marble (colour 1 black,
    2 white; cells of the 11 x 11 mailbox) and, black to move, of ``ZOBRIST[-1]``. Marbles pushed off are not in it."""
    key: i64 = _BLACK_TO_MOVE if board.turn == BLACK else 0
    for colour in range(BLACK, WHITE + 1):  # compiled, a loop over a range is a counter (a tuple's is an iterator)
        row: i64 = colour * _SIZE
        for sq in board.marbles[colour]:  # the board's list of the colour's marbles, ended by -1
            if sq < 0:
                break
            key ^= _ZOBRIST[row + sq]
    return key


def book_entry(book: Book, board: Board, played: int) -> tuple[dict[int, int] | None, int]:
    """The book's moves (code -> times played) of ``board`` after ``played`` plies and the times it was reached;
    ``(None, 0)`` past :data:`~plybits.openingbook.BOOK_DEPTH` plies or if the games reached it fewer than
    :data:`~plybits.openingbook.BOOK_MIN` times."""
    if played >= BOOK_DEPTH:
        return None, 0
    entry = book.get(position_key(board))
    total = sum(entry.values()) if entry is not None else 0
    return (entry, total) if entry is not None and total >= BOOK_MIN else (None, 0)


def book_feature(times: int, total: int) -> int:
    """The ``F_BOOK`` id of a move played ``times`` of the ``total`` times its position was reached (``times`` >= 1)."""
    return F_BOOK + 7 * TOTAL_BUCKET[min(total, 255)] + SHARE_BUCKET[times * 64 // total] - 1


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 3's active feature ids of each move in ``moves`` (legal here): model 2's, and ``F_BOOK``
    (:func:`book_feature`) for a move :data:`MODEL_3`'s book played in this position (:func:`book_entry`)."""
    out = [[F_MODEL_2 + f for f in feats] for feats in model_2_features(board, moves, history)]
    entry, total = book_entry(MODEL_3.opening_book(), board, len(history))
    if entry is not None:
        for feats, move in zip(out, moves):
            times = entry.get(move_code(move), 0)
            if times:
                feats.append(book_feature(times, total))
    return out


@final
class BookTables:
    """The book's weights of a model (``F_BOOK``'s 42, by :func:`book_feature` less ``F_BOOK``), and by position key
    the moves of the book it was last asked about with their weights (:meth:`book_moves`)."""

    def __init__(self, weights: list[int]) -> None:
        self.book = int_array(weights)
        self._moves_of: Book | None = None
        """The book :attr:`_moves` was made from."""
        self._moves: dict[int, tuple[vec[i64], vec[i64]]] = {}

    def book_moves(self, book: Book) -> dict[int, tuple[vec[i64], vec[i64]]]:
        """By the key of each position ``book`` holds (:func:`book_entry`: reached at least ``BOOK_MIN`` times), its
        moves' codes, ascending, and the ``F_BOOK`` weight of each (:func:`book_feature`): made once per book (a model
        in training is given others), so that a ply looks its position up once and adds what it finds."""
        if self._moves_of is not book:
            weights = self.book
            moves: dict[int, tuple[vec[i64], vec[i64]]] = {}
            for key, entry in book.items():
                total = sum(entry.values())
                if total >= BOOK_MIN:
                    codes = sorted(entry)
                    moves[key] = (int_array(codes),
                                  int_array([weights[book_feature(entry[code], total) - F_BOOK] for code in codes]))
            self._moves = moves
            self._moves_of = book
        return self._moves

    def add(self, book: Book, position: Board, codes: vec[i64], n: i64, scores: vec[i64]) -> None:
        """Add to ``scores`` (of the first ``n`` of ``codes``, ascending) the book weight of each of ``book``'s moves of
        ``position`` (a bisection over the codes each); nothing if ``book`` does not hold it."""
        found = self.book_moves(book).get(position_key(position))
        if found is not None:
            book_codes, weights = found
            for i in range(len(book_codes)):
                slot = code_slot(codes, n, book_codes[i])
                if slot >= 0:
                    scores[slot] += weights[i]


@final
class _Model3Tables:
    """What :meth:`LinearAbaloneModel3.coded` derives from model 3's weights: model 2's tables of them and the book's
    weights (:class:`BookTables`)."""

    def __init__(self, w: list[int]) -> None:
        self.model_2 = _Model2Tables(w[F_MODEL_2 : F_MODEL_2 + N_MODEL_2_FEATURES])
        self.book = BookTables(w[F_BOOK : F_BOOK + 6 * 7])


@final
class LinearAbaloneModel3(LinearAbaloneModel):
    """Model 3: log-linear over :func:`move_features` with the shipped integer weights and opening book: model 2's
    scorer (:func:`~plybits.abalone.rankmodel2.scored_codes_2`) under its tables, then the book's weights."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, N_FEATURES, move_features)
        self._tables_3: _Model3Tables | None = None
        self.book: Book | None = None
        """The opening book (read from the data file on first use); training sets its own."""

    def opening_book(self) -> Book:
        """:attr:`book`, read from the data file on first use."""
        book = self.book
        if book is None:
            book = self.book = load_book(load_model_data(self.package, self.filename).get("book", []))
        return book

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], int, vec[i64]]:
        tables = self._tables_3
        if tables is None:
            tables = self._tables_3 = self.derived("tables 3", _Model3Tables)
        codes, n, scores = scored_codes_2(tables.model_2, position, history)
        if len(history) < BOOK_DEPTH:
            tables.book.add(self.opening_book(), position, codes, n, scores)
        return codes, n, scores


MODEL_3: Final[LinearAbaloneModel3] = LinearAbaloneModel3(
    "rank_model_v3.json", 3, "log-linear move model 3 with an opening book, learned from MiGs games (tools/train_abalone.py)"
)
"""Model 3, what ``encode`` writes."""
