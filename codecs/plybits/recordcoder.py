"""The adaptive binary coder of the record section (:mod:`plybits.recordsection`): banks of adaptive bit
contexts, and the coding of bits, numbers, bit-tree symbols and UTF-8 text through the range coder.

A writer (:class:`Writer`) is given each value, codes it and returns it; a reader (:class:`Reader`) is given a
placeholder and returns what it decodes: the section's layout is written once, for both. The layout itself
(which model codes what, in which context) stays in :mod:`plybits.recordsection`; this module is its hot
core, compiled with mypyc (:mod:`plybits.compiled`): concrete ``int`` state, packed arrays and final classes.
"""

from __future__ import annotations

import sys
from math import log2
from typing import Final, final

from librt.strings import BytesWriter
from librt.vecs import vec
from mypy_extensions import i64, mypyc_attr, u8
from plybits.compiled import is_compiled
from plybits.container import MAX_STRING
from plybits.errors import InvalidDataError, InvalidRecordError, LimitExceededError
from plybits.packed import int_array, zeros
from plybits.rangecoder import MASK, MAX_TOTAL, TOP, RangeDecoder, RangeEncoder

PROB_BITS: Final = 12
PROB_ONE: Final = 1 << PROB_BITS
"""An adaptive bit's probability of 0 is ``p / PROB_ONE``."""
PROB_MIN: Final = 16
PROB_MAX: Final = PROB_ONE - 16
"""Probabilities stay in ``PROB_MIN..PROB_MAX``, so every decision costs at least 0.0056 bits."""
RATE_LIMIT: Final = 30
"""A context's first observations weigh ``1 / (n + 2)`` (a Krichevsky–Trofimov estimate); from the
``RATE_LIMIT``-th on, ``1 / (RATE_LIMIT + 2)``."""
_RATES: Final = int_array([(1 << 16) // (n + 2) for n in range(RATE_LIMIT + 1)])
DECISIONS_PER_BYTE: Final = 2048
"""Most binary decisions a section may hold per byte of its length (eight bits over the cheapest
decision's 0.0056 bits is 1,430): more is not data a writer made, and reading stops there."""
MAX_NUMBER_BITS: Final = 40
"""Numbers are below ``2^40 - 1``."""
MAX_TEXT: Final = MAX_STRING
"""Longest text in UTF-8 bytes, as the container's strings."""


_SEEN_SHIFT: Final = PROB_BITS
_SEEN_MASK: Final = 31
_PROB_MASK: Final = PROB_ONE - 1
_TOUCHED: Final = 1 << 24
"""Set in a context's state once it adapted, until :meth:`Bits.restore` (its index is then listed in ``Bits.touched``)."""
_NO_CONTEXTS: Final = int_array([])
"""The state of a bank of no contexts (what a copy starts from before it takes its original's state)."""


_NO_ENCODER: Final = RangeEncoder()
"""A reader's encoder: none (:class:`Coder` has both, so that :meth:`Coder.bit` codes either side in one method)."""
_NO_DECODER: Final = RangeDecoder(bytes(4))
"""A writer's decoder: none."""


@final
class Bits:
    """A bank of adaptive binary contexts: each one's probability of 0 (``PROB_BITS`` bits) and, above it, how often
    it was seen, in one int of an :func:`~plybits.packed.int_array` (a compiled update boxes nothing); the contexts
    that adapted are the first ``touched_count`` items of ``touched`` (an array as long as the bank: a context is
    listed once, when it first adapts), so that :meth:`restore` takes a copy back to its original's state in as many
    steps (a section's models are reused, not copied afresh: :func:`plybits.recordmodels.section_models`)."""

    __slots__ = ("state", "touched", "touched_count")

    def __init__(self, size: int, p: int = PROB_ONE >> 1, seen: int = 0) -> None:
        self.state: vec[i64] = int_array([p | seen << _SEEN_SHIFT] * size) if size else _NO_CONTEXTS
        self.touched: vec[i64] = zeros(size) if size else _NO_CONTEXTS
        """The contexts that adapted since the bank was made or restored, in ``touched[:touched_count]`` (machine
        integers compiled: listing one boxes nothing)."""
        self.touched_count: i64 = 0

    def copy(self) -> Bits:
        """An independent copy, in its current state."""
        bits = Bits(0)
        bits.state = self.state[:]
        bits.touched = zeros(len(self.state))
        return bits

    def set(self, ctx: int, p: int, seen: int) -> None:
        """Start context ``ctx`` at probability ``p`` of a 0 (kept in ``PROB_MIN..PROB_MAX``), seen ``seen`` times; one
        that adapted since the bank was made or restored stays listed as such (:data:`_TOUCHED` kept), so it is
        listed once however often it is set."""
        self.state[ctx] = min(max(p, PROB_MIN), PROB_MAX) | seen << _SEEN_SHIFT | (self.state[ctx] & _TOUCHED)

    def prior(self, ctx: int, zero: int, seen: int = 2) -> None:
        """Start context ``ctx`` at probability ``zero / 64`` of a 0, as if seen ``seen`` times."""
        self.set(ctx, zero * (PROB_ONE // 64), seen)

    def restore(self, original: Bits) -> None:
        """Take the contexts that adapted back to ``original``'s state (this bank is a copy of it)."""
        state, start, touched = self.state, original.state, self.touched
        for i in range(self.touched_count):
            ctx = touched[i]
            state[ctx] = start[ctx]
        self.touched_count = 0


_SEEN_AFTER: Final = int_array([(n + 1 if n < RATE_LIMIT else n) << _SEEN_SHIFT | _TOUCHED for n in range(_SEEN_MASK + 1)])
"""A state's bits above its probability after one more observation, by the times ``n`` it was seen: ``n + 1`` up to
``RATE_LIMIT``, and :data:`_TOUCHED`."""


def adapted(word: i64, bit: i64) -> i64:
    """A context's state ``word`` after it saw ``bit``: its probability of 0 moves by ``1 / (n + 2)`` of the way,
    ``n`` the times it was seen, up to ``RATE_LIMIT``; it is marked touched (:data:`_TOUCHED`).

    Interpreted, the coding loops take it by table (:data:`_AFTER_ZERO`; a call a decision costs more than the step);
    tests/test_recordcoder.py holds them to this."""
    p: i64 = word & _PROB_MASK
    n: i64 = (word >> _SEEN_SHIFT) & _SEEN_MASK
    rate: i64 = _RATES[n]
    if bit:
        p -= (p * rate) >> 16
        if p < PROB_MIN:
            p = PROB_MIN
    else:
        p += ((PROB_ONE - p) * rate) >> 16
        if p > PROB_MAX:
            p = PROB_MAX
    return p | _SEEN_AFTER[n]


# tests subclass it interpreted (a writer that changes one decision, to make sections a writer does not make)
@mypyc_attr(allow_interpreted_subclasses=True)
class Coder:
    """Codes binary decisions and uniform symbols; a writer is given each value, a reader decodes it.

    :class:`Writer` and :class:`Reader` code a decision (:meth:`bit`) with the range coder's step inline, so that
    one costs a call and no more in its usual case, in pure Python too; bit trees (:meth:`tree`) and unary runs
    (:meth:`run`) are coded decision by decision through :meth:`bit`, so that a subclass that changes decisions
    (a test's) sees each one."""

    def __init__(self, writing: bool) -> None:
        self.writing = writing
        self.topic = "structure"
        """What a writer accounts its bits to (:data:`plybits.recordsection.TOPICS`)."""
        self.enc = _NO_ENCODER
        """A writer's range encoder."""
        self.costs: dict[str, float] | None = None
        """A writer's bits by topic, when it adds them up."""
        self.dec = _NO_DECODER
        """A reader's range decoder."""
        self.budget = 0
        """The decisions a reader may still read (:data:`DECISIONS_PER_BYTE`)."""

    def bit(self, bits: Bits, ctx: int, bit: int = 0) -> int:
        """``bit`` (writing) or the decoded bit (reading), under context ``ctx`` of ``bits``, which adapts
        (:func:`adapted`): :class:`Writer` and :class:`Reader` code it.

        :raises InvalidDataError: (reading) past the decisions the data's length allows, or on corrupted data."""
        raise NotImplementedError

    def tree(self, bits: Bits, base: int, width: int, symbol: int = 0) -> int:
        """A ``width``-bit ``symbol`` (writing; reading: the decoded one) down a bit tree: its bits from the top, each
        a :meth:`bit` under context ``base`` plus its node (the bits above it after a leading 1)."""
        node = 1
        for i in range(width - 1, -1, -1):
            node = (node << 1) | self.bit(bits, base + node, (symbol >> i) & 1)
        return node - (1 << width)

    def run(self, bits: Bits, base: int, n: int, most: int) -> int:
        """``n`` (writing; reading: the decoded one) in unary, at most ``most``: a 1 under context ``base + i`` for each
        ``i`` below it, then a 0 under ``base + n`` unless it is ``most``."""
        length = 0
        while length < most and self.bit(bits, base + length, 1 if length < n else 0):
            length += 1
        return length

    def uniform(self, n: int, value: int = 0) -> int:
        """``value`` in ``range(n)``, each equally likely (``n`` at most 65,536)."""
        raise NotImplementedError

    def byte_string(self, bits: Bits, n: int, raw: bytes = b"") -> bytes:
        """``n`` bytes (writing: ``raw``'s; reading: the decoded ones), each an 8-bit :meth:`tree` under base 0 of
        ``bits`` (a :class:`Text`'s tree): :class:`Writer` and :class:`Reader` code them in one call."""
        writing = self.writing
        return bytes([self.tree(bits, 0, 8, raw[i] if writing else 0) for i in range(n)])


@final
class Writer(Coder):
    """Codes the values it is given into a :class:`RangeEncoder`; with ``costs``, adds up their bits by topic."""

    def __init__(self, costs: dict[str, float] | None = None) -> None:
        super().__init__(True)
        self.enc = RangeEncoder()
        self.costs = costs

    def _code(self, bits: Bits, base: i64, steps: i64, value: i64, unary: bool) -> i64:
        """Decisions under ``bits``, not accounted, in one loop with the range coder's usual step inline (the same
        arithmetic as :meth:`RangeEncoder._encode`: a binary decision ``[0, p)`` or ``[p, PROB_ONE)`` of ``PROB_ONE``,
        the division a shift): the ``steps``-bit ``value`` down a bit tree whose node's context is ``base`` plus the
        node (:meth:`tree`; the node less ``1 << steps`` is returned), or (``unary``) ``value`` as a run of 1s under
        ``base + i`` ended by a 0 unless it is ``steps`` (:meth:`run`; the run's length is returned)."""
        enc = self.enc
        state = bits.state
        low: i64 = enc.low
        rng: i64 = enc.range
        node: i64 = 1
        if unary:  # a run's node is its length so far (statements: a conditional expression boxes)
            node = 0
        k: i64
        for k in range(steps):
            bit: i64 = 0  # statements, not a conditional expression: mypyc boxes the latter's i64 to join its arms
            if not unary:
                bit = (value >> (steps - 1 - k)) & 1
            elif node < value:
                bit = 1
            ctx: i64 = base + node
            word: i64 = state[ctx]
            if not word & _TOUCHED:
                listed: i64 = bits.touched_count
                bits.touched[listed] = ctx
                bits.touched_count = listed + 1
            state[ctx] = adapted(word, bit)
            p: i64 = word & _PROB_MASK  # PROB_MIN <= p <= PROB_MAX: both symbols fit in PROB_ONE
            r: i64 = rng >> PROB_BITS
            offset: i64 = 0
            rng = r * p
            if bit:
                offset = rng
                rng = r * (PROB_ONE - p)
            low += offset
            if low > MASK or rng < TOP:  # a carry or a byte settled: the encoder's own step
                enc.low = low - offset
                enc._narrow(offset, rng)
                low = enc.low
                rng = enc.range
            if unary:
                if not bit:
                    break
                node += 1
            else:
                node = node << 1 | bit
        enc.low, enc.range = low, rng
        if unary:
            return node
        return node - (1 << steps)

    def bit(self, bits: Bits, ctx: int, bit: int = 0) -> int:
        costs = self.costs
        if costs is not None:
            p = bits.state[ctx] & _PROB_MASK
            costs[self.topic] = costs.get(self.topic, 0.0) + PROB_BITS - log2(PROB_ONE - p if bit else p)
        return self._code(bits, ctx - 1, 1, bit, False)  # a tree of one level: its node is 1

    def tree(self, bits: Bits, base: int, width: int, symbol: int = 0) -> int:
        if self.costs is not None:  # accounted decision by decision
            return super().tree(bits, base, width, symbol)
        return self._code(bits, base, width, symbol, False)

    def run(self, bits: Bits, base: int, n: int, most: int) -> int:
        if self.costs is not None:  # accounted decision by decision
            return super().run(bits, base, n, most)
        return self._code(bits, base, most, n, True)

    def uniform(self, n: int, value: int = 0) -> int:
        self.enc.encode(value, 1, n)
        costs = self.costs
        if costs is not None:
            costs[self.topic] = costs.get(self.topic, 0.0) + log2(n)
        return value

    def byte_string(self, bits: Bits, n: int, raw: bytes = b"") -> bytes:
        if self.costs is not None:  # accounted decision by decision
            return super().byte_string(bits, n, raw)
        for i in range(n):
            self._code(bits, 0, 8, raw[i], False)
        return raw

    def finish(self) -> bytes:
        """The coded bytes."""
        return self.enc.finish()


@final
class Reader(Coder):
    """Decodes what a :class:`Writer` coded, stopping with :class:`InvalidDataError` at more decisions than
    :data:`DECISIONS_PER_BYTE` a byte."""

    def __init__(self, data: bytes) -> None:
        super().__init__(False)
        self.dec = RangeDecoder(data)
        self.budget = DECISIONS_PER_BYTE * (len(data) + 8)
        self.size = len(data)

    def _code(self, bits: Bits, base: i64, steps: i64, unary: bool) -> i64:
        """:meth:`Writer._code`'s decisions decoded (their budget already taken), the range decoder's usual step
        inline (:meth:`RangeDecoder._target` of ``PROB_ONE`` then :meth:`RangeDecoder._consume`, with no division:
        the target is below ``p`` exactly when ``code`` is below ``r * p``).

        :raises InvalidDataError: if the data points outside ``PROB_ONE`` (corruption)."""
        dec = self.dec
        state = bits.state
        code: i64 = dec.code
        low: i64 = dec.low
        rng: i64 = dec.range
        node: i64 = 1
        if unary:  # a run's node is its length so far (statements: a conditional expression boxes)
            node = 0
        k: i64 = 0
        while k < steps:
            ctx: i64 = base + node
            word: i64 = state[ctx]
            if not word & _TOUCHED:
                listed = bits.touched_count
                bits.touched[listed] = ctx
                bits.touched_count = listed + 1
            p: i64 = word & _PROB_MASK
            r: i64 = rng >> PROB_BITS
            if code >= r << PROB_BITS:
                raise InvalidDataError(f"coded value {code // r} is outside the {PROB_ONE} frequencies of this symbol")
            offset: i64 = 0
            bit: i64 = 0
            rng = r * p
            if code >= rng:
                bit = 1
                offset = rng
                rng = r * (PROB_ONE - p)
            state[ctx] = adapted(word, bit)
            if rng >= TOP:
                code -= offset
                low = (low + offset) & MASK
            else:  # a byte to read: the decoder's own step
                dec.code, dec.low = code, low
                dec._narrow(offset, rng)
                code, low, rng = dec.code, dec.low, dec.range
            if not unary:
                node = node << 1 | bit
            elif bit:
                node += 1
            else:
                break
            k += 1
        dec.code, dec.low, dec.range = code, low, rng
        if unary:
            return node
        return node - (1 << steps)

    def bit(self, bits: Bits, ctx: int, bit: int = 0) -> int:
        budget = self.budget - 1
        if budget < 0:
            raise InvalidDataError("it holds more decisions than its length allows")
        self.budget = budget
        return self._code(bits, ctx - 1, 1, False)  # a tree of one level: its node is 1

    def tree(self, bits: Bits, base: int, width: int, symbol: int = 0) -> int:
        if self.budget < width:  # the decision past the budget is refused where it comes
            return super().tree(bits, base, width, symbol)
        self.budget -= width
        return self._code(bits, base, width, False)

    def run(self, bits: Bits, base: int, n: int, most: int) -> int:
        if self.budget < most:  # the decision past the budget is refused where it comes
            return super().run(bits, base, n, most)
        length = self._code(bits, base, most, True)
        self.budget -= length + 1 if length < most else length
        return length

    def uniform(self, n: int, value: int = 0) -> int:
        self.budget -= 1
        if self.budget < 0:
            raise InvalidDataError("it holds more decisions than its length allows")
        value = self.dec.decode_target(n)
        self.dec.consume(value, 1)
        return value

    def byte_string(self, bits: Bits, n: int, raw: bytes = b"") -> bytes:
        if self.budget < 8 * n:  # the decision past the budget is refused where it comes
            return super().byte_string(bits, n, raw)
        self.budget -= 8 * n
        out = BytesWriter()  # native appends compiled (a bytearray's item is set through a generic call)
        for _ in range(n):
            out.append(u8(self._code(bits, 0, 8, False)))
        return out.getvalue()

    def finish(self) -> None:
        """Check the data is exactly what a writer writes for the decisions read (:meth:`RangeDecoder.finish`)."""
        self.dec.finish()


# ------------------------------------------------------------------------------------- pure Python's loops
# Interpreted, a decision costs its bytecodes and a call costs as much again: these stand in for the compiled build's
# loops (shaped for mypyc: i64 locals, one loop for trees and runs) where the module runs as Python (:data:`PURE`),
# with the same decisions and the same bytes (tests/test_recordcoder.py runs both). A decision is the range coder's
# step inline and :func:`adapted`'s by table (:data:`_AFTER_ZERO`, :data:`_AFTER_ONE`); a carry or a settled byte is the coder's own step (:meth:`RangeEncoder._narrow`,
# :meth:`RangeDecoder._narrow`, given the moved ``low`` and ``code`` and an offset of 0).


_AFTER_ZERO: dict[int, int] = {}
_AFTER_ONE: dict[int, int] = {}
""":func:`adapted` of each state seen, after a 0 and after a 1 (a lookup costs a few bytecodes, the step twenty;
no state is 0, so a missing one reads as ``None``, which is false)."""
_AFTER_MOST: Final = 1 << 16
"""States each of them remembers at the most: past that they start afresh."""


def _after(table: dict[int, int], word: int, bit: int) -> int:
    """:func:`adapted` of ``word`` and ``bit``, remembered in ``table``."""
    if len(table) >= _AFTER_MOST:
        table.clear()
    after = table[word] = adapted(word, bit)
    return after


def _written(self: Writer, bits: Bits, base: int, steps: int, value: int, unary: bool) -> int:
    """:meth:`Writer._code` in pure Python."""
    enc = self.enc
    state = bits.state
    low = enc.low
    rng = enc.range
    node = 0 if unary else 1
    for shift in range(steps - 1, -1, -1):
        bit = (node < value) if unary else (value >> shift) & 1
        ctx = base + node
        word = state[ctx]
        if not word & _TOUCHED:
            bits.touched[bits.touched_count] = ctx
            bits.touched_count += 1
        r = rng >> PROB_BITS
        if bit:  # [p, PROB_ONE) of PROB_ONE
            low += r * (word & _PROB_MASK)
            rng = r * (PROB_ONE - (word & _PROB_MASK))
            state[ctx] = _AFTER_ONE.get(word) or _after(_AFTER_ONE, word, 1)  # a state is never 0
        else:  # [0, p)
            rng = r * (word & _PROB_MASK)
            state[ctx] = _AFTER_ZERO.get(word) or _after(_AFTER_ZERO, word, 0)
        if low > MASK or rng < TOP:
            enc.low = low
            enc._narrow(0, rng)
            low = enc.low
            rng = enc.range
        if unary and not bit:
            break
        node = node + 1 if unary else node << 1 | bit
    enc.low = low
    enc.range = rng
    return node if unary else node - (1 << steps)


def _read(self: Reader, bits: Bits, base: int, steps: int, unary: bool) -> int:
    """:meth:`Reader._code` in pure Python (the bytes that settle read here, as :meth:`RangeDecoder._next_byte` reads
    them within the data, and by it past the end)."""
    dec = self.dec
    data = dec.data
    size = len(data)
    pos = dec.pos
    state = bits.state
    code = dec.code
    low = dec.low
    rng = dec.range
    node = 0 if unary else 1
    for _ in range(steps):
        r = rng >> PROB_BITS
        if code >= r << PROB_BITS:
            raise InvalidDataError(f"coded value {code // r} is outside the {PROB_ONE} frequencies of this symbol")
        ctx = base + node
        word = state[ctx]
        if not word & _TOUCHED:
            bits.touched[bits.touched_count] = ctx
            bits.touched_count += 1
        zero = r * (word & _PROB_MASK)  # [0, p) of PROB_ONE, scaled
        bit = code >= zero
        if bit:
            code -= zero
            low = (low + zero) & MASK
            rng = (r << PROB_BITS) - zero
            state[ctx] = _AFTER_ONE.get(word) or _after(_AFTER_ONE, word, 1)
        else:
            rng = zero
            state[ctx] = _AFTER_ZERO.get(word) or _after(_AFTER_ZERO, word, 0)
        while rng < TOP:
            if pos < size:
                byte = data[pos]
            else:
                dec.pos = pos
                byte = dec._next_byte()
            pos += 1
            code = ((code << 8) | byte) & MASK
            low = (low << 8) & MASK
            rng <<= 8
        if unary and not bit:
            break
        node = node + 1 if unary else node << 1 | bit
    dec.pos = pos
    dec.code = code
    dec.low = low
    dec.range = rng
    return node if unary else node - (1 << steps)


def _read_uniform(self: Reader, n: int, value: int = 0) -> int:
    """:meth:`Reader.uniform` in pure Python: :meth:`RangeDecoder.decode_target` and ``consume`` inline."""
    budget = self.budget - 1
    if budget < 0:
        raise InvalidDataError("it holds more decisions than its length allows")
    self.budget = budget
    if not 0 < n <= MAX_TOTAL:
        raise ValueError(f"total frequency {n!r} is outside 1..{MAX_TOTAL}")
    dec = self.dec
    r = dec.range // n
    value = dec.code // r
    if value >= n:
        raise InvalidDataError(f"coded value {value} is outside the {n} frequencies of this symbol")
    dec._narrow(r * value, r)
    return value


def _read_byte_string(self: Reader, bits: Bits, n: int, raw: bytes = b"") -> bytes:
    """:meth:`Reader.byte_string` in pure Python: each byte's eight decisions in :func:`_read`'s loop."""
    budget = self.budget - 8 * n
    if budget < 0:  # the decision past the budget is refused where it comes
        return Coder.byte_string(self, bits, n, raw)
    self.budget = budget
    out = bytearray(n)
    for i in range(n):
        out[i] = _read(self, bits, 0, 8, False)
    return bytes(out)


PURE: Final = not is_compiled(sys.modules[__name__])
"""Whether this module runs as Python, where :class:`Writer` and :class:`Reader` code by the loops above."""
SHAPED: Final = {"Writer._code": Writer._code, "Reader._code": Reader._code, "Reader.byte_string": Reader.byte_string,
                  "Reader.uniform": Reader.uniform}
"""The compiled build's methods that the pure loops stand in for (interpreted, a test runs both)."""
if PURE:
    setattr(Writer, "_code", _written)
    setattr(Reader, "_code", _read)
    setattr(Reader, "byte_string", _read_byte_string)
    setattr(Reader, "uniform", _read_uniform)


@final
class Number:
    """Adaptive Exp-Golomb for ``0 <= n < 2^MAX_NUMBER_BITS - 1`` under one of ``contexts``: the bit length
    of ``n + 1`` in unary, then the bits below its leading one, the first two with their own contexts (by
    length and position), the others plain."""

    __slots__ = ("unary", "mantissa", "shared")

    def __init__(self, contexts: int = 1, *, shared: bool = False) -> None:
        self.unary = Bits(contexts * MAX_NUMBER_BITS)
        self.mantissa = Bits((1 if shared else contexts) * MAX_NUMBER_BITS * 2)
        self.shared = shared
        """Whether the bits below the leading one share their contexts across ``contexts`` (by length only)."""

    def copy(self) -> Number:
        number = Number(0, shared=self.shared)
        number.unary = self.unary.copy()
        number.mantissa = self.mantissa.copy()
        return number

    def code(self, c: Coder, n: int = 0, ctx: int = 0) -> int:
        """:raises LimitExceededError: (writing) if ``n`` is out of range."""
        k = (n + 1).bit_length() - 1
        if c.writing and (n < 0 or k >= MAX_NUMBER_BITS):
            shown = str(n) if -(10 ** 15) < n < 10 ** 15 else f"of {n.bit_length()} bits"  # never thousands of digits
            raise LimitExceededError(f"number {shown} is outside the record section's range (0 to 2^40 - 2)")
        base = ctx * MAX_NUMBER_BITS
        length: i64 = c.run(self.unary, base, k, MAX_NUMBER_BITS - 1)
        # machine integers below (compiled, a Python int's shift is a call): n + 1 is below 2^40 here, and no shift
        # is of a constant (mypyc computes those in a C int)
        value: i64 = 1  # a reader's placeholder n is not read
        if c.writing:
            value = n + 1
        at: i64 = base + length
        if self.shared:
            at = length
        at = at * 2 + length - 1
        mantissa = self.mantissa
        v: i64 = 1
        i: i64 = length - 1
        while i >= 0:
            bit: i64 = (value >> i) & 1
            if i >= length - 2:
                v = (v << 1) | c.bit(mantissa, at - i, bit)
            else:
                v = (v << 1) | c.uniform(2, bit)
            i -= 1
        return v - 1

    def at_most(self, c: Coder, limit: int, what: str, n: int = 0, ctx: int = 0) -> int:
        """:meth:`code`, refusing (reading) a number over ``limit``."""
        n = self.code(c, n, ctx)
        if n > limit:
            raise InvalidDataError(f"{what} {n} is over the limit of {limit}")
        return n


@final
class Signed:
    """A signed number: a sign bit, then the magnitude (less one when negative) as :class:`Number`."""

    __slots__ = ("sign", "magnitude")

    def __init__(self, contexts: int = 1, *, shared: bool = False) -> None:
        self.sign = Bits(contexts)
        self.magnitude = Number(contexts, shared=shared)

    def copy(self) -> Signed:
        signed = Signed(0)
        signed.sign = self.sign.copy()
        signed.magnitude = self.magnitude.copy()
        return signed

    def code(self, c: Coder, n: int = 0, ctx: int = 0) -> int:
        if c.bit(self.sign, ctx, 1 if n < 0 else 0):
            return -1 - self.magnitude.code(c, -1 - n, ctx)
        return self.magnitude.code(c, n, ctx)


@final
class Tree:
    """A symbol of ``width`` bits through a bit tree of adaptive contexts, under one of ``contexts``."""

    __slots__ = ("width", "bits")

    def __init__(self, width: int, contexts: int = 1) -> None:
        self.width = width
        self.bits = Bits(contexts << width)

    def copy(self) -> Tree:
        tree = Tree(self.width, 0)
        tree.bits = self.bits.copy()
        return tree

    def code(self, c: Coder, symbol: int = 0, ctx: int = 0) -> int:
        return c.tree(self.bits, ctx << self.width, self.width, symbol)


def utf8(text: str, what: str) -> bytes:
    """``text`` in UTF-8.

    :raises InvalidRecordError: if it holds a lone surrogate. :raises LimitExceededError: if it is longer
        than :data:`MAX_TEXT` bytes.
    """
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidRecordError(f"{what} {text!r} holds a lone surrogate at {err.start}: not UTF-8 text") from None
    if len(raw) > MAX_TEXT:
        raise LimitExceededError(f"{what} of {len(raw)} bytes is longer than a record section allows ({MAX_TEXT})")
    return raw


def from_utf8(raw: bytes, what: str) -> str:
    """The text of ``raw``. :raises InvalidDataError: if ``raw`` is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidDataError(f"{what} is not UTF-8: {err}") from None


def text_length(c: Coder, length: Number, text: str, what: str) -> tuple[bytes, int]:
    """A text's UTF-8 bytes (writing; reading: none) and its byte length coded by ``length``.

    :raises InvalidRecordError, LimitExceededError: (writing) as :func:`utf8`. :raises InvalidDataError: (reading)
        on a length over :data:`MAX_TEXT`.
    """
    raw = utf8(text, what) if c.writing else b""
    n = length.code(c, len(raw))
    if n > MAX_TEXT:
        raise InvalidDataError(f"{what} length {n} is over the limit of {MAX_TEXT}")
    return raw, n


def byte_tree(weights: list[int]) -> Bits:
    """A byte tree (the contexts of :class:`Text`) starting at the probabilities of ``weights``, an integer
    weight for each of the 256 bytes."""
    mass = [0] * 512
    for byte in range(256):
        mass[256 + byte] = weights[byte]
    for node in range(255, 0, -1):
        mass[node] = mass[2 * node] + mass[2 * node + 1]
    tree = Bits(256, seen=4)
    for node in range(1, 256):
        tree.set(node, mass[2 * node] * PROB_ONE // mass[node], 4)
    return tree


@final
class Text:
    """UTF-8 text: its byte length (:class:`Number`), then each byte through the adaptive bit tree ``tree``
    (:func:`byte_tree`)."""

    __slots__ = ("length", "tree")

    def __init__(self, tree: Bits, length: Number | None = None) -> None:
        self.length = Number() if length is None else length
        self.tree = tree

    def copy(self) -> Text:
        return Text(self.tree.copy(), self.length.copy())

    def code(self, c: Coder, text: str = "", what: str = "text") -> str:
        """:raises InvalidRecordError, LimitExceededError: (writing) as :func:`utf8`."""
        raw, n = text_length(c, self.length, text, what)
        out = c.byte_string(self.tree, n, raw)
        if c.writing and out == raw:  # as a writer codes it (a coder may code other bytes than it is given)
            return text
        return from_utf8(out, what)
