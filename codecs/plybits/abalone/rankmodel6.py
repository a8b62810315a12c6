"""``abalone/rank`` model 6: model 5's features and weights, and two reply books: how often each move answered the
opponent's last move, and followed one's own move before it, in the training games.

A reply book holds, for each move the training games played (the key), the at most :data:`TOP_REPLIES` moves most
often played next by the other side (:data:`F_REPLY`, keyed by the opponent's last move) or two plies later by the
same side (:data:`F_FOLLOW`, keyed by one's own last move), with how often, and the times the key was answered in
all. A move of the key's row has the feature of the times answered (:func:`reply_feature`: 11 classes) x its share of
them (16 buckets); a move not in the row has none. The scorer is model 5's, then each row's weights added to its
moves (a bisection over the codes each, from the last found): two rows of at most 16 a ply, every ply.
:func:`move_features` is the plain definition, which a test holds the scorer to. Weights and books:
``rank_model_v6.json``, fitted by ``tools/train_abalone.py --model 6`` (model 5's weights kept); the opening book is
model 3's.

Feature ids, the buckets and the books are part of model 6's format: never change them; a change is a new model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.abalone.board import N_CODES, Board, Move, move_code
from plybits.abalone.rank import LinearAbaloneModel
from plybits.abalone.rankmodel2 import scored_codes_2
from plybits.abalone.rankmodel3 import MODEL_3
from plybits.abalone.rankmodel5 import _Model5Tables, phase
from plybits.abalone.rankmodel5 import move_features as model_5_features
from plybits.openingbook import BOOK_DEPTH
from plybits.packed import int_array
from plybits.rank import FeatureIds, load_model_data

N_MODEL_5_FEATURES: Final = 6778
"""Model 5's feature count (:data:`plybits.abalone.rankmodel5.N_FEATURES`, frozen with its format; a test holds them
equal)."""
TOP_REPLIES: Final = 16
"""The most moves a reply book's row holds: its key's most frequent answers (ties: the lower code first)."""
TOTAL_CLASSES: Final = 11
"""The classes of the times a key was answered: ``min(floor(log2(total)), 10)``."""
SHARES: Final = 16
"""The buckets of a move's share of its key's answers: ``min(16 * times // total, 15)``."""

_ids = FeatureIds()
F_MODEL_5: Final = _ids.block(N_MODEL_5_FEATURES)
"""Model 5's features (:mod:`plybits.abalone.rankmodel5`), the same ids."""
F_REPLY: Final = _ids.block(TOTAL_CLASSES * SHARES)
"""A move of the reply book's row of the opponent's last move: ``F_REPLY + reply_feature(times, total)``."""
F_FOLLOW: Final = _ids.block(TOTAL_CLASSES * SHARES)
"""A move of the follow-up book's row of one's own last move (two plies back): ``F_FOLLOW + reply_feature(...)``."""
N_FEATURES: Final = _ids.count

ReplyBook = dict[int, tuple[int, dict[int, int]]]
"""By key move code: the times it was answered in all, and its row (move code -> times played)."""


def reply_feature(times: int, total: int) -> int:
    """The offset in ``F_REPLY`` or ``F_FOLLOW`` of a move played ``times`` of the ``total`` times its key was
    answered (``times`` >= 1)."""
    return SHARES * min(total.bit_length() - 1, TOTAL_CLASSES - 1) + min(SHARES * times // total, SHARES - 1)


def load_reply_book(rows: list[Any]) -> ReplyBook:
    """A data file's reply book: rows ``[key, total, [[code, times], ...]]``."""
    return {int(key): (int(total), {int(code): int(times) for code, times in row}) for key, total, row in rows}


def reply_rows(book: ReplyBook) -> list[Any]:
    """``book`` as a data file's rows, sorted."""
    return [[key, total, [[code, row[code]] for code in sorted(row)]] for key, (total, row) in sorted(book.items())]


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 6's active feature ids of each move in ``moves`` (legal here): model 5's, ``F_REPLY`` if it is in the
    reply book's row of the opponent's last move, ``F_FOLLOW`` if in the follow-up book's row of one's own last."""
    out = [[F_MODEL_5 + f for f in feats] for feats in model_5_features(board, moves, history)]
    played = len(history)
    for first, back, book in ((F_REPLY, 1, MODEL_6.reply_book()), (F_FOLLOW, 2, MODEL_6.follow_book())):
        found = book.get(move_code(history[played - back])) if played >= back else None
        if found is not None:
            total, row = found
            for feats, move in zip(out, moves):
                times = row.get(move_code(move), 0)
                if times:
                    feats.append(first + reply_feature(times, total))
    return out


@final
class ReplyTables:
    """A reply book laid out for the scorer: by key code, its row's moves (ascending codes) and their weights."""

    def __init__(self, book: ReplyBook, weights: list[int]) -> None:
        start = [0] * (N_CODES + 1)
        codes: list[int] = []
        scores: list[int] = []
        for key in range(N_CODES):
            found = book.get(key)
            if found is not None:
                total, row = found
                for code in sorted(row):
                    codes.append(code)
                    scores.append(weights[reply_feature(row[code], total)])
            start[key + 1] = len(codes)
        self.start = int_array(start)
        self.codes = int_array(codes)
        self.weights = int_array(scores)

    def add(self, key: i64, codes: vec[i64], n: i64, scores: vec[i64], slots: vec[i64]) -> None:
        """Add to ``scores`` (of the first ``n`` of ``codes``) the weight of each move of ``key``'s row found there:
        ``slots`` holds by code where each of them is (and, for other codes, anything)."""
        row = self.codes
        weights = self.weights
        for i in range(self.start[key], self.start[key + 1]):
            code = row[i]
            slot = slots[code]
            if slot < n and codes[slot] == code:
                scores[slot] += weights[i]


_SLOTS: Final[list[vec[i64]]] = [int_array([0] * N_CODES) for _ in range(4)]
"""By move code, the arrays a ply writes its codes' slots in: a ply takes one (pops it) and gives it back, so that no
two plies write into one (a thread that finds none makes its own)."""


@final
class _Model6Tables:
    """What :meth:`LinearAbaloneModel6.coded` derives from model 6's weights and books: model 5's tables and the two
    reply books' (:class:`ReplyTables`)."""

    def __init__(self, w: list[int], replies: ReplyBook, follows: ReplyBook) -> None:
        self.model_5 = _Model5Tables(w)  # model 5's ids come first
        self.replies = ReplyTables(replies, w[F_REPLY : F_REPLY + TOTAL_CLASSES * SHARES])
        self.follows = ReplyTables(follows, w[F_FOLLOW : F_FOLLOW + TOTAL_CLASSES * SHARES])


@final
class LinearAbaloneModel6(LinearAbaloneModel):
    """Model 6: log-linear over :func:`move_features` with the shipped integer weights and reply books: model 5's
    scorer, then the rows of the two reply books."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, N_FEATURES, move_features)
        self._tables_6: _Model6Tables | None = None
        self._books: tuple[ReplyBook, ReplyBook] | None = None

    def books(self) -> tuple[ReplyBook, ReplyBook]:
        """The reply book and the follow-up book, read from the data file on first use."""
        books = self._books
        if books is None:
            data = load_model_data(self.package, self.filename)
            books = self._books = (load_reply_book(data.get("replies", [])), load_reply_book(data.get("follows", [])))
        return books

    def reply_book(self) -> ReplyBook:
        """The book keyed by the opponent's last move."""
        return self.books()[0]

    def follow_book(self) -> ReplyBook:
        """The book keyed by one's own last move."""
        return self.books()[1]

    def tables_6(self) -> _Model6Tables:
        """The tables of model 6's weights and books, made on first use."""
        tables = self._tables_6
        if tables is None:
            replies, follows = self.books()
            tables = self._tables_6 = self.derived("tables 6", lambda w: _Model6Tables(w, replies, follows))
        return tables

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], int, vec[i64]]:
        tables = self.tables_6()
        model_5 = tables.model_5
        at = phase(position)
        codes, n, scores = scored_codes_2(model_5.model_2, position, history, model_5.phase_tables(at), at)
        played = len(history)
        if played < BOOK_DEPTH:
            model_5.book.add(MODEL_3.opening_book(), position, codes, n, scores)
        if played >= 1:
            try:
                slots = _SLOTS.pop()
            except IndexError:
                slots = int_array([0] * N_CODES)
            for i in range(n):
                slots[codes[i]] = i
            tables.replies.add(move_code(history[played - 1]), codes, n, scores, slots)
            if played >= 2:
                tables.follows.add(move_code(history[played - 2]), codes, n, scores, slots)
            _SLOTS.append(slots)
        return codes, n, scores


MODEL_6: Final[LinearAbaloneModel6] = LinearAbaloneModel6(
    "rank_model_v6.json", 6,
    "log-linear move model 6: model 5's features, opening book and weights, and books of the moves that answered the "
    "opponent's last move and followed one's own, from MiGs games (tools/train_abalone.py)",
)
"""Model 6, what ``encode`` writes."""
