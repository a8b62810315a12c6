"""``abalone/rank`` model 6: model 5's features and opening book, and a reply book, every weight refitted together.

The MiGs server's program, which plays in most games, answers a move much as it answered it before: at every ply
after the first, the opponent's last move is looked up among the training games' moves answered at least
:data:`~plybits.openingbook.BOOK_MIN` times (:func:`reply_entry`), and a move that answered it there has the feature
:data:`F_REPLY` by the times it did and its share of the times the last move was answered. The reply book is kept as
an opening book is, keyed by the opponent's last move's code rather than by the position (the same rows); its counts
run into the hundreds (the program's usual moves), so its buckets are finer than the opening book's. The scorer is
model 5's (:func:`~plybits.abalone.rankmodel5.scored_codes_5`) under model 6's weights, which adds to each legal move,
as it scores it, the weight of the answers to the last move, laid out by move code (:class:`ReplyTables`, made when a
last move is first met). :func:`move_features` is the plain definition, which training reads (with its own reply
book, each game counted out of it) and a test holds the scorer to. Weights and reply book: ``rank_model_v6.json``
(fitted by ``tools/train_abalone.py --model 6``); the opening book is model 3's (``rank_model_v3.json``).

Feature ids, the buckets and the reply book are part of model 6's format: never change them; a change is a new model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.abalone.board import N_CODES, Board, Move, move_code
from plybits.abalone.rank import NO_REPLY, LinearAbaloneModel
from plybits.abalone.rankmodel5 import _Model5Tables, scored_codes_5
from plybits.abalone.rankmodel5 import move_features as model_5_features
from plybits.openingbook import BOOK_MIN, Book, load_book
from plybits.packed import int_array
from plybits.rank import FeatureIds, load_model_data

N_MODEL_5_FEATURES: Final = 6778
"""Model 5's feature count (:data:`plybits.abalone.rankmodel5.N_FEATURES`, frozen with its format; a test holds them
equal)."""

_ids = FeatureIds()
F_MODEL_5: Final = _ids.block(N_MODEL_5_FEATURES)
"""Model 5's features (:mod:`plybits.abalone.rankmodel5`: model 3's, with its opening book, and the phase's), the same
ids."""
REPLY_TIMES: Final = 11
"""The buckets of the times a move answered the last move: ``floor(log2(times))``, 0..9, and 10 for 1,024 or more."""
REPLY_SHARES: Final = 16
"""The buckets of its share of the times the last move was answered: ``16 * times // total``, 0..15 (all: 15)."""
F_REPLY: Final = _ids.block(REPLY_TIMES * REPLY_SHARES)
"""A move that answered the opponent's last move in the reply book's games: the times it did (:data:`REPLY_TIMES`)
x its share of the times that move was answered (:data:`REPLY_SHARES`), ``F_REPLY + 16 * times bucket + share
bucket`` (:func:`reply_feature`). A move that never answered it has none, nor has any move of a game's first ply."""
N_FEATURES: Final = _ids.count


def reply_entry(book: Book, history: Sequence[Move]) -> tuple[dict[int, int] | None, int]:
    """The reply book's answers (code -> times played) to the last move of ``history`` and the times it was answered;
    ``(None, 0)`` before the first move or if the games answered it fewer than
    :data:`~plybits.openingbook.BOOK_MIN` times."""
    if not history:
        return None, 0
    entry = book.get(move_code(history[-1]))
    total = sum(entry.values()) if entry is not None else 0
    return (entry, total) if entry is not None and total >= BOOK_MIN else (None, 0)


def reply_feature(times: int, total: int) -> int:
    """The ``F_REPLY`` id of a move that answered the last move ``times`` of the ``total`` times it was answered
    (``1 <= times <= total``)."""
    return F_REPLY + min(times.bit_length() - 1, REPLY_TIMES - 1) * REPLY_SHARES + min(
        times * REPLY_SHARES // total, REPLY_SHARES - 1)


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 6's active feature ids of each move in ``moves`` (legal here): model 5's
    (:func:`~plybits.abalone.rankmodel5.move_features`, whose book is model 3's), and ``F_REPLY``
    (:func:`reply_feature`) for a move :data:`MODEL_6`'s reply book holds as an answer to the last move
    (:func:`reply_entry`)."""
    out = [[F_MODEL_5 + f for f in feats] for feats in model_5_features(board, moves, history)]
    entry, total = reply_entry(MODEL_6.reply_book(), history)
    if entry is not None:
        for feats, move in zip(out, moves):
            times = entry.get(move_code(move), 0)
            if times:
                feats.append(reply_feature(times, total))
    return out


@final
class ReplyTables:
    """The reply book's weights of a model (``F_REPLY``'s, by :func:`reply_feature` less ``F_REPLY``), and by the
    code of a last move the weight of each move answering it, by move code (:meth:`row`)."""

    def __init__(self, weights: list[int]) -> None:
        self.reply = int_array(weights)
        self._rows_of: Book | None = None
        """The book :attr:`_rows` were made from."""
        self._rows: list[vec[i64] | None] = []

    def row(self, book: Book, last: i64) -> vec[i64]:
        """By move code, the ``F_REPLY`` weight of the answers ``book`` holds to the move of code ``last``
        (:data:`~plybits.abalone.rank.NO_REPLY` if it holds none, :func:`reply_entry`), which the scorer adds to each
        move: made when first asked for (an array by code, 40 KiB), and again when the model is given another book
        (as training does)."""
        rows = self._rows
        if self._rows_of is not book:
            rows = self._rows = [None] * N_CODES
            self._rows_of = book
        row = rows[last]
        if row is None:
            entry = book.get(last)
            total = sum(entry.values()) if entry is not None else 0
            if entry is None or total < BOOK_MIN:
                row = NO_REPLY
            else:
                row = int_array([0] * N_CODES)
                for code, times in entry.items():
                    row[code] = self.reply[reply_feature(times, total) - F_REPLY]
            rows[last] = row
        return row


@final
class LinearAbaloneModel6(LinearAbaloneModel):
    """Model 6: log-linear over :func:`move_features` with the shipped integer weights and reply book: model 5's
    scorer under its tables, then the reply book's weights."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, N_FEATURES, move_features)
        self._tables_6: _Model6Tables | None = None
        self.replies: Book | None = None
        """The reply book (read from the data file on first use); training sets its own."""

    def reply_book(self) -> Book:
        """:attr:`replies`, read from the data file on first use."""
        book = self.replies
        if book is None:
            book = self.replies = load_book(load_model_data(self.package, self.filename).get("replies", []))
        return book

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], int, vec[i64]]:
        tables = self._tables_6
        if tables is None:
            tables = self._tables_6 = self.derived("tables 6", _Model6Tables)
        played = len(history)
        reply = tables.reply.row(self.reply_book(), move_code(history[played - 1])) if played else NO_REPLY
        return scored_codes_5(tables.model_5, position, history, reply)


@final
class _Model6Tables:
    """What :meth:`LinearAbaloneModel6.coded` derives from model 6's weights: model 5's tables of its model 5 weights
    and the reply book's weights (:class:`ReplyTables`)."""

    def __init__(self, w: list[int]) -> None:
        self.model_5 = _Model5Tables(w[F_MODEL_5 : F_MODEL_5 + N_MODEL_5_FEATURES])
        self.reply = ReplyTables(w[F_REPLY : F_REPLY + REPLY_TIMES * REPLY_SHARES])


MODEL_6: Final[LinearAbaloneModel6] = LinearAbaloneModel6(
    "rank_model_v6.json", 6,
    "log-linear move model 6: model 5's features and opening book, and a reply book, every weight refitted, from MiGs "
    "games (tools/train_abalone.py)",
)
"""Model 6, what ``encode`` writes."""
