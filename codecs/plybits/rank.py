"""The ``rank`` scheme's shared machinery: each ply is its move's index among the legal moves in a
canonical order, range-coded under a versioned, integer move-probability model.

A game plugs in with a :class:`RankScheme` built from its name, codec id, canonical order and one
:class:`MoveModel` per released model version after the uniform model 0 (the container's scheme-version byte). Models give integer scores (log2 units of
``1/SCORE_SCALE``); the shared :func:`softmax_frequencies` turns them into frequencies with exact integer
arithmetic, so encoder and decoder agree bit for bit on every platform. :func:`encode_scored` and
:func:`decode_scored` code a symbol under those frequencies without making the list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from functools import cache
from importlib import resources
from math import isqrt
from typing import Any, ClassVar, Final, Generic, TypeVar, cast

from bitarray import bitarray
from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr

from plybits.deadline import EVERY
from plybits.deadline import active as deadline_active
from plybits.deadline import check as check_deadline
from plybits.errors import InvalidDataError, PlybitsError, UnknownCodecError, UnsupportedError
from plybits.game import MoveT, Observer, BoardT, Position, Scheme, StepEncoder, notation_of
from plybits.packed import PACKED, int_array, zeros
from plybits.rangecoder import MAX_TOTAL, RangeDecoder, RangeEncoder
from plybits.replay import StepTaker, player_of

DerivedT = TypeVar("DerivedT")

SCORE_SCALE = 32
"""Model scores are integers in units of 1/32 bit: a score higher by 32 means twice as likely."""
_FRAC_BITS = 40


def _exp2_table() -> list[int]:
    """``2^(40 - d/32)`` rounded down, for d = 0 .. 32*40, with integer square roots only."""
    # roots[k] = 2^(40 - 1/2^k) for k = 1..5, each from the last by one integer square root
    roots = [1 << _FRAC_BITS]
    half = 1 << (_FRAC_BITS - 1)
    roots.append(isqrt(half << _FRAC_BITS))
    for _ in range(4):
        roots.append(isqrt(roots[-1] << _FRAC_BITS))
    # roots[1] = 2^-1/2, roots[2] = 2^-1/4, ..., roots[5] = 2^-1/32 (scaled by 2^40)
    frac = []
    for j in range(SCORE_SCALE):
        value = 1 << _FRAC_BITS
        for k in range(5):
            if j & (1 << k):
                value = (value * roots[5 - k]) >> _FRAC_BITS
        frac.append(value)
    return [frac[d % SCORE_SCALE] >> (d // SCORE_SCALE) for d in range(SCORE_SCALE * _FRAC_BITS)]


EXP2: Final = int_array(_exp2_table())
"""``EXP2[d]`` is 2^-(d/32) in fixed point with 40 fractional bits; beyond the table it is 0. An
:func:`~plybits.packed.int_array`: compiled, a read is one load, where a list's item is an object."""

SCORE_LOW: Final = -1024
SCORE_INTS: Final[list[object]] = list(range(SCORE_LOW, -SCORE_LOW))
"""The int objects of the scores -1024 .. 1023, shared. A compiled scorer lists a score in that range as
``SCORE_INTS[score - SCORE_LOW]`` (typing its list ``list[object]``), not as a new int object: CPython shares only
-5 .. 256, and allocating and freeing an int per move cost about a tenth of a compiled ply (docs/architecture.md)."""


def softmax_frequencies(scores: list[int], budget: int = MAX_TOTAL) -> list[int]:
    """Integer frequencies proportional to ``2^(score/32)``, each at least 1, summing to at most ``budget``.

    :raises ValueError: if there are no scores or more than ``budget``.
    """
    packed = int_array(scores)
    top, spare, total = _softmax_terms(packed, budget)
    table = EXP2
    size: i64 = len(table)
    n = len(scores)
    freqs = [1] * n
    for i in range(n):
        d: i64 = top - packed[i]
        if d < size:
            weight: i64 = table[d]
            freqs[i] = 1 + weight * spare // total
    return freqs


# The softmax's integers are typed i64 (docs/architecture.md, "What makes compiled code fast"): a weight is up
# to 2^40 and a product up to 2^56, past the 2^31 under which mypyc multiplies plain ints without objects. It reads
# the scores as an int_array (compiled, a vec[i64]: each score read three times as one load, not a list item to
# unbox); the list-taking functions pass theirs through int_array (compiled, one copy; pure, the list itself).
NO_TOP: Final = -(1 << 62)
"""The ``top`` of :func:`encode_packed` and :func:`decode_packed` that gives none: the softmax finds it."""


def _softmax_terms(scores: vec[i64], budget: int, top: i64 = NO_TOP) -> tuple[i64, i64, i64]:
    """(the top score, the frequency spared beyond the floor of 1 each, the sum of the weights ``EXP2[top - s]``); the
    top found here unless given (``top``: the highest of ``scores``, as a scorer keeps it while it writes them).

    :raises ValueError: if there are no scores or more than ``budget``.
    """
    n = len(scores)
    if n == 0:
        raise ValueError("no scores to turn into frequencies")
    if top == NO_TOP:
        top = scores[0]
        for score in scores:  # iterated, not indexed: compiled, no bounds check an item
            if score > top:
                top = score
    spare: i64 = budget - n
    if spare < 0:
        raise ValueError(f"{n} moves do not fit a frequency budget of {budget}")
    table = EXP2
    size: i64 = len(table)
    total: i64 = 0  # >= 2^40: the best move has weight EXP2[0]
    for score in scores:
        d: i64 = top - score
        if d < size:
            total += table[d]
    return top, spare, total


_NO_FREQUENCIES: Final = int_array([])
"""The ``freqs`` of :func:`_frequencies` that asks for none (the encoder's: it needs only the sums)."""
_RECIPROCAL_SHIFT: Final = 46
"""The fixed-point bits of :func:`_reciprocal`: a weight (at most 2^40) times the reciprocal (at most 2^22) fits 63 bits."""
_ONE: Final = 1 << _RECIPROCAL_SHIFT
_FRACTION: Final = _ONE - 1
"""The fraction's bits of an estimate ``weight * reciprocal`` (:func:`_frequencies`)."""


def _reciprocal(spare: i64, total: i64) -> i64:
    """``spare / total`` in fixed point (:data:`_RECIPROCAL_SHIFT` bits, rounded down), for the compiled softmax to find
    each ``weight * spare // total`` by a multiply and a shift, corrected by one multiply (:func:`_frequencies`);
    0 where it does not apply (pure Python, whose ``//`` is one operation, or a budget past the coder's, where the
    bounds below do not hold).

    Exact: with ``total >= 2^40`` (the top score's weight) the estimate ``weight * reciprocal >> 46`` is below
    ``weight * spare / total`` by less than ``weight / 2^46 < 1``, so it is the floor or one less, and the remainder
    ``weight * spare - estimate * total`` tells which.
    """
    if not PACKED or spare > MAX_TOTAL:
        return 0
    return (spare << _RECIPROCAL_SHIFT) // total


def encode_scored(encoder: RangeEncoder, scores: list[int], index: int, budget: int = MAX_TOTAL) -> None:
    """Code symbol ``index`` under :func:`softmax_frequencies` of ``scores`` (what :func:`encode_index` codes)."""
    encode_packed(encoder, int_array(scores), index, budget)


def decode_scored(decoder: RangeDecoder, scores: list[int], budget: int = MAX_TOTAL) -> int:
    """The index of the next symbol under :func:`softmax_frequencies` of ``scores`` (what :func:`decode_index`
    reads), read from ``decoder``."""
    return decode_packed(decoder, int_array(scores), budget)


def _frequencies(scores: vec[i64], top: i64, budget: int, index: i64, freqs: vec[i64]) -> tuple[i64, i64, i64]:
    """(the sum of the frequencies before symbol ``index``, its frequency (0: no such symbol), the sum of all) under
    :func:`softmax_frequencies` of ``scores``, whose highest is ``top`` (:data:`NO_TOP`: found here); each frequency
    written to ``freqs`` unless that is empty (``freqs`` may be ``scores``: each score is read before its frequency is
    written).

    Compiled, each ``weight * spare // total`` is a multiply by the :func:`_reciprocal` and a shift, corrected up by
    one where it fell short: the estimate ``weight * reciprocal`` is at most ``weight`` below ``weight * spare / total``
    (in units of 2^-46), so where its fraction plus the weight does not pass one it is exact; only else (at most one
    move in 64; in chess about one in 600) does the remainder tell. No division a move, and a test a move is a C
    compare. Pure Python divides (one operation there) and tests nothing a move: it keeps every frequency (in an array
    of its own if ``freqs`` is empty) and sums those before ``index`` after.
    """
    top, spare, total = _softmax_terms(scores, budget, top)
    table = EXP2
    size: i64 = len(table)
    reciprocal: i64 = _reciprocal(spare, total)
    n = len(scores)
    low: i64 = 0
    freq: i64 = 0
    sum_freqs: i64 = 0
    f: i64
    if reciprocal:  # the path chosen once, not a move
        keep = len(freqs) != 0
        i: i64 = 0
        for score in scores:
            d: i64 = top - score
            f = 1
            if d < size:
                weight: i64 = table[d]
                estimate: i64 = weight * reciprocal
                q: i64 = estimate >> _RECIPROCAL_SHIFT
                # exact where the estimate's fraction leaves room for the weight (nearly always: a weight is at most
                # 2^40 of the fraction's 2^46); else the remainder tells
                if (estimate & _FRACTION) + weight > _ONE and weight * spare - q * total >= total:
                    q += 1
                f += q
            if keep:
                freqs[i] = f
            if i == index:
                low = sum_freqs
                freq = f
            sum_freqs += f
            i += 1
        return low, freq, sum_freqs
    if len(freqs) < n:
        freqs = zeros(n)
    for i in range(n):
        d = top - scores[i]
        f = 1 + table[d] * spare // total if d < size else 1
        freqs[i] = f
        sum_freqs += f
    if 0 <= index < n:
        for i in range(index):
            low += freqs[i]
        freq = freqs[index]
    return low, freq, sum_freqs


def encode_packed(
    encoder: RangeEncoder, scores: vec[i64], index: int, budget: int = MAX_TOTAL, top: i64 = NO_TOP,
) -> None:
    """:func:`encode_scored` of scores given as an :func:`~plybits.packed.int_array`; ``top``, if given, their highest
    (a scorer keeps it as it writes them: no pass to find it)."""
    low, freq, sum_freqs = _frequencies(scores, top, budget, index, _NO_FREQUENCIES)
    if freq == 0 or sum_freqs > MAX_TOTAL:  # no symbol ``index``, or a budget past the coder's: refused by encode
        encoder.encode(sum_freqs if index >= len(scores) else low, freq, sum_freqs)
    else:
        encoder._encode(low, freq, sum_freqs)


def decode_packed(
    decoder: RangeDecoder, scores: vec[i64], budget: int = MAX_TOTAL, top: i64 = NO_TOP,
    freqs: vec[i64] = _NO_FREQUENCIES,
) -> int:
    """:func:`decode_scored` of scores given as an :func:`~plybits.packed.int_array`; ``top`` as :func:`encode_packed`
    takes it. The frequencies are kept in ``freqs`` (as long as ``scores``), by default a new array; it may be
    ``scores`` itself (a scorer's own array, read once: none made), which is then overwritten."""
    if len(freqs) == 0:
        freqs = zeros(len(scores))  # kept for the search: each frequency is made once
    sums = _frequencies(scores, top, budget, -1, freqs)  # not unpacked into ``_``: compiled, that boxes each i64
    sum_freqs: i64 = sums[2]
    # a budget past the coder's is refused by decode_target; a valid one needs no check (statements, not a conditional
    # expression: compiled, that boxed the i64 arm to meet the int one)
    target: i64
    if sum_freqs > MAX_TOTAL:
        target = decoder.decode_target(sum_freqs)
    else:
        target = decoder._target(sum_freqs)
    low: i64 = 0
    i: i64 = 0
    for f in freqs:  # stops before the end: target < sum_freqs; iterated, not indexed: no bounds check an item
        if low + f > target:
            decoder._consume(low, f)  # the symbol holding the target, by construction
            return i
        low += f
        i += 1
    raise AssertionError("decode_target returned a target beyond its total")


def quantise(probabilities: list[int], budget: int = MAX_TOTAL) -> list[int]:
    """Integer frequencies proportional to non-negative integer ``probabilities``, floor 1, sum at most ``budget``."""
    n = len(probabilities)
    total = 0
    for p in probabilities:
        total += p
    if total == 0:
        return [1] * n
    spare = budget - n
    if spare < 0:
        raise ValueError(f"{n} symbols do not fit a frequency budget of {budget}")
    out = [0] * n
    for i in range(n):
        out[i] = 1 + probabilities[i] * spare // total
    return out


def encode_index(encoder: RangeEncoder, freqs: list[int], index: int) -> None:
    """Code symbol ``index`` of the frequencies ``freqs`` (in order)."""
    low = 0
    for i in range(index):
        low += freqs[i]
    total = low
    for i in range(index, len(freqs)):
        total += freqs[i]
    encoder.encode(low, freqs[index], total)


def decode_index(decoder: RangeDecoder, freqs: list[int]) -> int:
    """The index of the next symbol of the frequencies ``freqs`` (not empty), read from ``decoder``."""
    total = 0
    for f in freqs:
        total += f
    target = decoder.decode_target(total)
    low = 0
    index = 0
    freq = freqs[0]
    while low + freq <= target:  # stops before the end: target < total
        low += freq
        index += 1
        freq = freqs[index]
    decoder.consume(low, freq)
    return index


@cache
def load_model_data(package: str, filename: str) -> dict[str, Any]:
    """A model's JSON data file shipped in ``package``, read once."""
    with resources.files(package).joinpath(filename).open("r", encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


_NO_SCORES: Final = int_array([])
"""The scores of :meth:`MoveModel.packed_scored` when all moves are equally likely."""


def _index_of(moves: list[Any], move: Any) -> int:
    """The index of ``move`` in ``moves``: found by identity first (games that intern their moves, chess, make the
    played move the listed object; ``list.index`` compares each tuple it passes, ~40 ns a move), else by equality.

    :raises ValueError: if ``move`` is not listed.
    """
    for i in range(len(moves)):
        if moves[i] is move:
            return i
    return moves.index(move)


# Compiled with mypyc (docs/architecture.md, "Compiled build"); entropy's ChanceModel subclasses it interpreted.
@mypyc_attr(allow_interpreted_subclasses=True)
class MoveModel:
    """One released model version: the canonical order of the legal moves and their scores.

    Subclasses implement :meth:`scored`; a game with chance (Entropy's draws) overrides
    :meth:`encode_ply` / :meth:`decode_ply` to code more than one symbol a ply.
    """

    version: int = 0
    description: str = "uniform: every legal move equally likely"

    def scored(self, position: Any, history: Sequence[Any]) -> tuple[list[Any], list[int] | None]:
        """The legal moves in canonical order and their integer scores (``None``: all equally likely), which
        :func:`softmax_frequencies` turns into the frequencies they are coded with.

        ``history`` is every move played so far from the start, oldest first.
        """
        raise NotImplementedError

    def ranked(self, position: Any, history: Sequence[Any]) -> tuple[list[Any], list[int] | None]:
        """The legal moves in canonical order and their frequencies (``None`` = all equal)."""
        moves, scores = self.scored(position, history)
        if scores is None or not moves:
            return moves, None
        return moves, softmax_frequencies(scores)

    def packed_scored(self, position: Any, history: Sequence[Any]) -> tuple[list[Any], vec[i64]]:
        """:meth:`scored` with the scores as an :func:`~plybits.packed.int_array`, empty for all equally likely:
        what :meth:`encode_ply` and :meth:`decode_ply` code with. A model whose scorer makes that array
        overrides this (and :meth:`scored` lists it)."""
        moves, scores = self.scored(position, history)
        return moves, _NO_SCORES if scores is None or not moves else int_array(scores)

    def encode_ply(self, encoder: RangeEncoder, position: Any, move: Any, history: Sequence[Any]) -> None:
        """Code ``move`` (legal in ``position``)."""
        moves, scores = self.packed_scored(position, history)
        index = _index_of(moves, move)
        if len(scores) == 0:
            encoder.encode(index, 1, len(moves))
        else:
            encode_packed(encoder, scores, index)

    def encode_text(
        self, encoder: RangeEncoder, position: Any, text: str, notation: str | None, history: Sequence[Any],
    ) -> Any:
        """The legal move ``text`` writes in ``notation``, coded as :meth:`encode_ply` codes it, where the model reads
        it among the moves it ranks (no second look at the position); ``None`` (this default), nothing coded: the
        game's notation reads it, then :meth:`encode_ply` codes it."""
        return None

    def decode_ply(self, decoder: RangeDecoder, position: Any, history: Sequence[Any]) -> Any:
        """The next move, read from ``decoder`` (always one of ``position``'s legal moves).

        :raises InvalidDataError: if there is no legal move or the data points outside them.
        """
        moves, scores = self.packed_scored(position, history)
        n = len(moves)
        if n == 0:
            raise InvalidDataError("a move is coded but the position has no legal move")
        if len(scores) == 0:
            index = decoder.decode_target(n)
            decoder.consume(index, 1)
            return moves[index]
        return moves[decode_packed(decoder, scores)]


class UniformModel(MoveModel):
    """Model version 0 of every game: each legal move costs log2(n) bits, in the game's canonical order."""

    def __init__(self, canonical: Any) -> None:
        self._canonical = canonical

    def scored(self, position: Any, history: Sequence[Any]) -> tuple[list[Any], list[int] | None]:
        return self._canonical(position), None


class FeatureIds:
    """A log-linear model's feature ids, handed out in consecutive blocks in the order its module declares them."""

    def __init__(self) -> None:
        self.count = 0
        """The ids handed out so far: the model's feature count once its last block is declared."""

    def block(self, size: int) -> int:
        """The first of the next ``size`` ids."""
        start = self.count
        self.count += size
        return start


_FEATURE_COUNT_BITS = 8
"""Bits of a score under :func:`indicator_weights` that count one feature (so at most 255 times a move)."""
_NONZERO = re.compile(rb"[^\x00]")
FEATURES_PER_PASS: Final = 7
"""The features :meth:`LinearModel.features` reads back a pass from a scorer of ``packed_weights``: its indicator
weights 2^(8i), i < 7, and their sums fit in a signed 64-bit integer."""


def indicator_weights(n_features: int) -> list[int]:
    """Weights under which a linear score spells out its move's features: feature ``i`` weighs
    ``2^(8i)``, so the score's byte ``i`` (little-endian) counts how often the move has feature ``i``."""
    return [1 << (_FEATURE_COUNT_BITS * i) for i in range(n_features)]


def indicated_features(score: int, n_features: int) -> list[int]:
    """The feature ids (with repeats, ascending) whose :func:`indicator_weights` sum to ``score``.

    :raises ValueError: if ``score`` is not such a sum.
    """
    if score < 0 or score.bit_length() > _FEATURE_COUNT_BITS * n_features:
        raise ValueError(f"score {score!r} is not a sum of {n_features} indicator weights")
    counts = score.to_bytes(n_features, "little")
    return [found.start() for found in _NONZERO.finditer(counts) for _ in range(counts[found.start()])]


class LinearModel(MoveModel):
    """A log-linear model: a move's score is the sum of the integer weights (1/32 bit) of its active
    features; frequencies come from :func:`softmax_frequencies`.

    A game passes in its weights' package, its feature count, its canonical move order and either its
    feature function (as :class:`UniformModel` takes the order; :meth:`scores` then sums the weights)
    or ``None``: then a subclass's :meth:`scores` is the one definition of the features, which
    :meth:`features` reads back by scoring under :func:`indicator_weights` (with another instance of the
    subclass, built from ``(filename, version, description)``). Such a scorer must be
    linear in :attr:`weights` and keep whatever it derives from them in :attr:`cache`. A scorer that keeps its
    weights in 64-bit integers (``packed_weights``: compiled int_arrays) is read back in passes of
    :data:`FEATURES_PER_PASS` features, whose indicator weights fit in them.
    """

    def __init__(
        self,
        filename: str,
        version: int,
        description: str = "",
        *,
        package: str,
        n_features: int,
        canonical: Callable[[Any], list[Any]],
        features: Callable[[Any, Sequence[Any], Sequence[Any]], list[list[int]]] | None,
        packed_weights: bool = False,
    ) -> None:
        self.filename = filename
        self.version = version
        self.description = description or f"log-linear move model ({filename})"
        self.package = package
        """The package holding the weights file."""
        self.n_features = n_features
        self._canonical = canonical
        self._features = features
        self._weights: list[int] | None = None
        self.cache: dict[str, Any] = {}
        """Whatever a fast :meth:`scores` derives from the weights (tables, per-move partial scores)."""
        self.packed_weights = packed_weights
        """Whether :meth:`scores` holds weights (and sums of a few) in 64-bit integers."""
        self._indicators: dict[int, LinearModel] = {}
        """By the first feature id of its pass: the instance scoring under that pass's indicator weights."""
        if features is None and type(self).scores is LinearModel.scores:
            raise TypeError(f"{type(self).__name__} defines no features: pass a feature function or define scores")

    def derived(self, key: str, build: Callable[[list[int]], DerivedT]) -> DerivedT:
        """What ``build`` makes of :attr:`weights`, made once and kept in :attr:`cache` under ``key``."""
        value = self.cache.get(key)
        if value is None:
            value = self.cache[key] = build(self.weights)
        return cast(DerivedT, value)

    @property
    def weights(self) -> list[int]:
        """The integer weights, read from the package's data file on first use.

        :raises ValueError: if the file's weights do not match the feature count.
        """
        if self._weights is None:
            weights = load_model_data(self.package, self.filename)["weights"]
            if len(weights) != self.n_features:
                raise ValueError(f"{self.filename}: {len(weights)} weights for {self.n_features} features")
            self._weights = [int(w) for w in weights]
        return self._weights

    def canonical(self, position: Any) -> list[Any]:
        """The legal moves in canonical order."""
        return self._canonical(position)

    def features(self, position: Any, moves: Sequence[Any], history: Sequence[Any]) -> list[list[int]]:
        """The active feature ids of each move."""
        if self._features is not None:
            return self._features(position, moves, history)
        n = self.n_features
        width = FEATURES_PER_PASS if self.packed_weights else n
        found: list[list[int]] = []
        for first in range(0, n, width):
            count = min(width, n - first)
            indicator = self._indicators.get(first)
            if indicator is None:
                # built anew, not copy.copy(self): a class compiled by mypyc cannot be copied (docs/architecture.md)
                subclass = cast(Callable[[str, int, str], LinearModel], type(self))  # only subclasses get here
                indicator = self._indicators[first] = subclass(self.filename, self.version, self.description)
                indicator._weights = [0] * first + indicator_weights(count) + [0] * (n - first - count)
            scores = indicator.scores(position, moves, history)
            if not found:
                found = [[] for _ in scores]
            for i in range(len(scores)):
                if scores[i]:  # most moves have no feature of most passes
                    for feature in indicated_features(scores[i], count):
                        found[i].append(first + feature)
        return found

    def scores(self, position: Any, moves: Sequence[Any], history: Sequence[Any]) -> list[int]:
        """Each move's score: the sum of the weights of its features."""
        w = self.weights
        return [sum([w[i] for i in feats]) for feats in self.features(position, moves, history)]

    def scored(self, position: Any, history: Sequence[Any]) -> tuple[list[Any], list[int] | None]:
        moves = self.canonical(position)
        if not moves:
            return moves, None
        return moves, self.scores(position, moves, history)


class RankScheme(Scheme[BoardT, MoveT]):
    """Each ply's index among the legal moves, range-coded under the model of the container's version.

    A game's rank scheme is one of these, built from the game's name, codec id, description, canonical order and
    its released models after model 0 (each keyed by its :attr:`MoveModel.version`): model 0 is uniform over the
    canonical order (:class:`UniformModel`), every model stays readable, and :meth:`encode` writes the newest.
    """

    name: ClassVar[str] = "rank"
    bits_per_ply: ClassVar[float | None] = None
    heavy: ClassVar[bool] = True

    def __init__(
        self, game: str, codec_id: int, description: str, canonical: Callable[[BoardT], list[MoveT]], *models: MoveModel,
    ) -> None:
        self.game = game
        self.codec_id = codec_id
        self.description = description
        self.models: dict[int, MoveModel] = {0: UniformModel(canonical)}
        """Every released model by version; all stay decodable forever."""
        for model in models:
            if model.version in self.models:
                raise ValueError(f"{game}/rank: a second model of version {model.version}")
            self.models[model.version] = model
        self.readable_versions = tuple(sorted(self.models))
        self.version = self.readable_versions[-1]

    def model(self, version: int) -> MoveModel:
        """The model of ``version``.

        :raises UnknownCodecError: if this build has no such model.
        """
        try:
            return self.models[version]
        except KeyError:
            raise UnknownCodecError(f"{self.game}/rank has no model version {version!r}") from None

    def encode(self, start: BoardT, moves: Sequence[MoveT]) -> bitarray:
        return self.encode_version(start, moves, self.version)

    def encode_version(self, start: BoardT, moves: Sequence[MoveT], version: int) -> bitarray:
        """The payload of ``moves`` under model ``version`` (encode writes :attr:`version`; an older one is how a
        container of that model codes its side variations)."""
        encoder = RankStepEncoder(self, version)
        for move in moves:
            encoder.add(start, move)
            if encoder.error is not None:
                raise encoder.error
            start.push(move)
        return encoder.finish(start)

    def step_encoder(self) -> RankStepEncoder[BoardT, MoveT]:
        """An encoder that ranks and codes each move as the checking replay reaches it (no second replay)."""
        return RankStepEncoder(self, self.version)

    def decode(
        self, start: BoardT, payload: bytes, plies: int, version: int,
        observe: Observer[BoardT, MoveT] | None = None,
    ) -> list[MoveT]:
        return self._decode(start, payload, plies, version, observe, None, None)

    def decode_texts(
        self, start: BoardT, payload: bytes, plies: int, version: int, notation: str | None,
    ) -> tuple[list[MoveT], list[str]]:
        """:meth:`decode`, each move written in ``notation`` in the decoding loop (no observer called per ply)."""
        texts: list[str] = []  # grown as plies decode: ``plies`` is the container's claim, not yet proved by the payload
        return self._decode(start, payload, plies, version, None, texts, notation), texts

    def _decode(
        self, start: BoardT, payload: bytes, plies: int, version: int,
        observe: Observer[BoardT, MoveT] | None, texts: list[str] | None, notation: str | None,
    ) -> list[MoveT]:
        """The moves of ``payload`` played on ``start``; each seen by ``observe``, and, given ``texts``, written there
        in ``notation`` from the position before it (by the notation module's :class:`~plybits.replay.MovePlayer`,
        which plays it too, called natively, where the module has one, else by its ``move_text``). The deadline is
        checked every :data:`~plybits.deadline.EVERY` plies from ply 0 (a compiled ply takes microseconds)."""
        model = self.model(version)
        decoder = RangeDecoder(payload)
        position = start
        speaker = cast("Position[MoveT]", start)  # the position decode plays on, as its notation module reads it
        player = player_of(speaker) if texts is not None else None  # writes the move and plays it in one native call
        write = notation_of(speaker).move_text if texts is not None and player is None else None
        play = position.push  # looked up once: a game's Position may be an interpreted subclass of a compiled board
        timed = deadline_active()
        history: list[MoveT] = []
        ply = 0
        try:
            for ply in range(plies):
                if timed and ply % EVERY == 0:
                    check_deadline(ply)
                move: MoveT = model.decode_ply(decoder, position, history)
                if observe is not None:
                    observe(position, move)
                if texts is None:
                    play(move)
                elif player is not None:
                    texts.append(player.play_text(speaker, move, notation))
                else:
                    assert write is not None
                    texts.append(write(speaker, move, notation))
                    play(move)
                history.append(move)
            ply = plies
            decoder.finish()
        except InvalidDataError as err:
            raise err.at(ply) from None
        return history



class _RankSteps(StepTaker, Generic[BoardT, MoveT]):
    """What a :class:`RankStepEncoder` keeps, in a compiled class of its own: its base class (:class:`StepEncoder`,
    interpreted) makes each of the step encoder's attributes a dictionary lookup, where these are read as fields; and
    its :attr:`~RankStepEncoder.step_taker` (the replay calls :meth:`add_text` and :meth:`add` natively)."""

    def __init__(self, model: MoveModel, moves: list[MoveT]) -> None:
        self.model = model
        self.encoder = RangeEncoder()
        self.moves = moves
        """The step encoder's :attr:`~plybits.game.StepEncoder.moves` (the same list)."""
        self.error: PlybitsError | None = None
        self.timed = deadline_active()
        """Whether a deadline was set when it was made (set around a whole verb call or not at all): only then is it
        checked every :data:`~plybits.deadline.EVERY` plies (an unset one's check is a Python call)."""

    def add(self, position: BoardT, move: MoveT) -> None:
        """:meth:`RankStepEncoder.add`."""
        moves = self.moves
        ply = len(moves)
        if self.timed and ply % EVERY == 0:  # the replay feeding it checks every ply too
            check_deadline(ply)
        if self.error is None:
            try:
                self.model.encode_ply(self.encoder, position, move, moves)
            except ValueError as err:
                if isinstance(err, PlybitsError):
                    self.error = err.at(ply)
                else:
                    self.error = UnsupportedError(f"move {move!r} cannot be ranked: {err}").at(ply)
        moves.append(move)

    def add_text(self, position: BoardT, text: str, notation: str | None) -> MoveT | None:
        """:meth:`RankStepEncoder.add_text`."""
        if self.error is not None:
            return None
        moves = self.moves
        ply = len(moves)
        if self.timed and ply % EVERY == 0:
            check_deadline(ply)
        try:
            move: MoveT | None = self.model.encode_text(self.encoder, position, text, notation, moves)
        except ValueError:  # add meets it again, and keeps it for finish
            return None
        if move is not None:
            moves.append(move)
        return move


class RankStepEncoder(StepEncoder[BoardT, MoveT]):
    """A ``rank`` scheme's step encoder: each move ranked and range-coded from the position before it, as the
    replay that checks the record reaches it; a move that cannot be ranked is reported by :meth:`finish`, so
    that a bad move later in the record is still the error a caller sees first."""

    def __init__(self, scheme: RankScheme[BoardT, MoveT], version: int) -> None:
        # the base's two fields set here: compiled, a call of the interpreted base's __init__ costs about 1.5k
        # instructions (a game's)
        self.scheme = scheme
        self.moves = []
        self.steps: _RankSteps[BoardT, MoveT] = _RankSteps(scheme.model(version), self.moves)

    @property
    def model(self) -> MoveModel:
        """The model the moves are coded under."""
        return self.steps.model

    @property
    def encoder(self) -> RangeEncoder:
        """The range coder the moves are coded into."""
        return self.steps.encoder

    @property
    def step_taker(self) -> StepTaker:
        """What :func:`~plybits.replay.read_moves` hands each text and move natively: :meth:`add_text`'s and
        :meth:`add`'s work."""
        return self.steps

    @property
    def error(self) -> PlybitsError | None:
        """The error of the first move that could not be ranked (``None``: none so far)."""
        return self.steps.error

    def add(self, position: BoardT, move: MoveT) -> None:
        self.steps.add(position, move)

    def add_text(self, position: BoardT, text: str, notation: str | None) -> MoveT | None:
        """The move ``text`` writes, ranked and coded as :meth:`add` takes it, where the model reads it among the moves
        it ranks (:meth:`MoveModel.encode_text`); else ``None``."""
        return self.steps.add_text(position, text, notation)

    def finish(self, start: BoardT) -> bitarray:
        """The payload bits of every move added.

        :raises UnsupportedError: (or the model's own error) at the first move that could not be ranked.
        """
        steps = self.steps
        if steps.error is not None:
            raise steps.error
        bits = bitarray(0, "big")  # by position: compiled, a keyword call of the type parses a dictionary
        bits.frombytes(steps.encoder.finish())
        return bits
