"""``abalone/rank`` model 5: model 3's features and opening book, and model 1's evaluation features by the marbles
each side has lost.

A program (the MiGs server's, in most games) weighs a move's kind, what it pushes off, its centre gain, cohesion and
edge exposure differently as marbles fall: model 5 adds, for each of model 1's features of those kinds
(:data:`PHASED`), one by the phase (:func:`phase`: the marbles the mover has lost, 0..3+, and the opponent, 0..3+).
A phase's weights add to model 1's, so the scorer is model 3's with the tables that change with the phase taken from
the position's phase (made when a phase is first met: :class:`_Model5Tables`), and the book's weights then; a move
costs one more look-up (its phase's share of the weights by move). :func:`move_features` is the plain definition, which training reads and a test
holds the scorer to. Weights: ``rank_model_v5.json`` (fitted by ``tools/train_abalone.py --model 5``); the book is
model 3's (``rank_model_v3.json``).

Feature ids and the phases are part of model 5's format: never change them; a change is a new model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.abalone.board import INLINE_CODES, N_CODES, Board, Move
from plybits.abalone.rank import LinearAbaloneModel, _ScorerTables, scorer_tables
from plybits.abalone.rankmodel2 import _Model2Tables, scored_codes_2
from plybits.abalone.rankmodel3 import MODEL_3, N_MODEL_2_FEATURES, BookTables
from plybits.abalone.rankmodel3 import move_features as model_3_features
from plybits.openingbook import BOOK_DEPTH
from plybits.packed import int_array
from plybits.rank import FeatureIds

N_MODEL_3_FEATURES: Final = 3850
"""Model 3's feature count (:data:`plybits.abalone.rankmodel3.N_FEATURES`: model 2's 3,808, then its book's 42 from
``F_BOOK`` = 3,808; frozen with its format, a test holds them equal)."""
PHASES: Final = 16
"""The phases: the mover's lost marbles (0, 1, 2, 3+) x 4 + the opponent's (0, 1, 2, 3+)."""
N_MODEL_1_FEATURES: Final = 499
"""Model 1's feature count (:data:`plybits.abalone.rank.N_FEATURES`, frozen with its format; a test holds them equal)."""
PHASED_BLOCKS: Final = ((0, 30), (30, 45), (147, 65), (212, 20), (232, 20), (496, 3))
"""(first id, size) of model 1's blocks that model 5 weighs by phase: ``F_KIND`` (kind x pushed x ejects),
``F_CENTRE``, ``F_COHESION``, ``F_EDGE``, ``F_LEAVE_EDGE`` and ``F_THREAT`` (frozen with model 1's ids; a test holds
them equal)."""
PHASED: Final = [f for first, size in PHASED_BLOCKS for f in range(first, first + size)]
"""Model 1's features that model 5 weighs by phase, in the order of :data:`PHASED_BLOCKS` (183)."""
_PHASED_INDEX = [-1] * N_MODEL_1_FEATURES
for _j, _f in enumerate(PHASED):
    _PHASED_INDEX[_f] = _j
PHASED_INDEX: Final = int_array(_PHASED_INDEX)
"""By model 1's feature id: its index in :data:`PHASED`, -1 if it has no phase weights."""

_ids = FeatureIds()
F_MODEL_3: Final = _ids.block(N_MODEL_3_FEATURES)
"""Model 3's features (:mod:`plybits.abalone.rankmodel3`: model 2's and the book's), the same ids."""
F_PHASE: Final = _ids.block(PHASES * len(PHASED))
"""Phase x the model 1 feature (its index in :data:`PHASED`): ``F_PHASE + phase * 183 + index``, with each of the
move's model 1 features that :data:`PHASED` holds."""
N_FEATURES: Final = _ids.count


def phase(board: Board) -> i64:
    """The phase of ``board``: ``4 * min(the mover's lost marbles, 3) + min(the opponent's, 3)``."""
    ejected = board.ejected
    me = board.turn
    own: i64 = ejected[me]
    opp: i64 = ejected[3 - me]
    if own > 3:  # compiled, a comparison of machine ints where min() is a generic call
        own = 3
    if opp > 3:
        opp = 3
    return 4 * own + opp


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 5's active feature ids of each move in ``moves`` (legal here): model 3's
    (:func:`~plybits.abalone.rankmodel3.move_features`, whose book is model 3's), and ``F_PHASE`` of the position's
    :func:`phase` with each of its model 1 features in :data:`PHASED`."""
    row = F_PHASE + phase(board) * len(PHASED)
    out = []
    for feats in model_3_features(board, moves, history):
        feats = [F_MODEL_3 + f for f in feats]
        feats.extend([row + PHASED_INDEX[f] for f in feats if f < N_MODEL_1_FEATURES and PHASED_INDEX[f] >= 0])
        out.append(feats)
    return out


@final
class _Model5Tables:
    """What :meth:`LinearAbaloneModel5.coded` derives from model 5's weights: model 2's tables of its model 2 weights,
    the book's weights, and by phase (made when a ply first needs it) the tables that change with it: model 1's
    ``F_KIND`` share by what an inline move pushes, ``F_COHESION`` and ``F_THREAT`` with the phase's weights added,
    and the phase's share of the weights by move (:attr:`~plybits.abalone.rank._ScorerTables.phase_inline`,
    ``phase_broadside``), so that a phase adds no copy of the tables by move and side."""

    def __init__(self, w: list[int]) -> None:
        self.weights = w
        self.model_2 = _Model2Tables(w[F_MODEL_3 : F_MODEL_3 + N_MODEL_2_FEATURES])
        book = F_MODEL_3 + N_MODEL_2_FEATURES  # model 3's F_BOOK
        self.book = BookTables(w[book : book + 6 * 7])
        self._model_1 = scorer_tables(w[F_MODEL_3 : F_MODEL_3 + N_MODEL_1_FEATURES])
        self.by_phase: list[_ScorerTables | None] = [None] * PHASES

    def phase_tables(self, at: i64) -> _ScorerTables:
        """The tables of phase ``at``: model 1's scorer tables of model 5's model 1 weights with the phase's added,
        their weights by move and side less those without it moved into the phase's weights by move."""
        tables = self.by_phase[at]
        if tables is None:
            w = self.weights
            weights = w[F_MODEL_3 : F_MODEL_3 + N_MODEL_1_FEATURES]
            row = F_PHASE + at * len(PHASED)
            for j, f in enumerate(PHASED):
                weights[f] += w[row + j]
            full = scorer_tables(weights)
            plain = self._model_1
            tables = plain.with_phase(full)  # keeps full's push, cohesion and threat weights, no more of it
            tables.phase_inline = int_array([full.inline[i] - plain.inline[i] for i in range(2 * INLINE_CODES * 3)])
            tables.phase_broadside = int_array([full.broadside[i] - plain.broadside[i] for i in range(N_CODES)])
            self.by_phase[at] = tables
        return tables


@final
class LinearAbaloneModel5(LinearAbaloneModel):
    """Model 5: log-linear over :func:`move_features` with the shipped integer weights: model 2's scorer
    (:func:`~plybits.abalone.rankmodel2.scored_codes_2`) under the tables of the position's phase, then model 3's
    book under model 5's book weights."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, N_FEATURES, move_features)
        self._tables_5: _Model5Tables | None = None

    def phase_tables(self) -> _Model5Tables:
        """The tables of model 5's weights, made on first use."""
        if self._tables_5 is None:
            self._tables_5 = self.derived("tables 5", _Model5Tables)
        return self._tables_5

    def coded(self, position: Board, history: Sequence[Move]) -> tuple[vec[i64], int, vec[i64]]:
        tables = self.phase_tables()
        at = phase(position)
        codes, n, scores = scored_codes_2(tables.model_2, position, history, tables.phase_tables(at), at)
        if len(history) < BOOK_DEPTH:
            tables.book.add(MODEL_3.opening_book(), position, codes, n, scores)
        return codes, n, scores


MODEL_5: Final[LinearAbaloneModel5] = LinearAbaloneModel5(
    "rank_model_v5.json", 5,
    "log-linear move model 5: model 3's features and opening book, and model 1's evaluation features by the marbles "
    "each side has lost, from MiGs games (tools/train_abalone.py)",
)
"""Model 5, what ``encode`` writes."""
