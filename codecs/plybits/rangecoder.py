"""The range (arithmetic) coder of plybits: integer frequencies in, bytes out, exact on every platform.

A 32-bit low/range coder with carry propagation into the bytes already written (the
Schindler / LZMA family), driven by cumulative frequencies::

    enc = RangeEncoder()
    enc.encode(cum_low, freq, total)          # once per symbol
    data = enc.finish()

    dec = RangeDecoder(data)
    target = dec.decode_target(total)          # a value in [0, total)
    # ... find the symbol whose [cum_low, cum_low + freq) holds target ...
    dec.consume(cum_low, freq)
    dec.finish()                               # refuses data the encoder would not have written

Everything is integer arithmetic; nothing depends on floats or on the platform.
The layout is documented in docs/rank.md.
"""

from __future__ import annotations

from typing import Final

from librt.strings import BytesWriter
from librt.vecs import append, vec
from mypy_extensions import i64, mypyc_attr, u8

from plybits.errors import InvalidDataError

RANGE_BITS: Final = 32
"""Width of ``low`` and ``range``."""
MASK: Final = (1 << RANGE_BITS) - 1
TOP: Final = 1 << (RANGE_BITS - 8)
"""``range`` is renormalised (one byte shifted out) while it is below this."""
MAX_TOTAL: Final = 1 << 16
"""Largest total frequency a symbol may be coded with: ``range // total`` keeps at least 8 bits."""
MAX_OVERREAD: Final = 4
"""Bytes the decoder may read past the end of its data (as zeros) before the data counts as truncated."""


def _check(cum_low: int, freq: int, total: int) -> None:
    if not 0 < total <= MAX_TOTAL:
        raise ValueError(f"total frequency {total!r} is outside 1..{MAX_TOTAL}")
    if freq <= 0 or cum_low < 0 or cum_low + freq > total:
        raise ValueError(f"symbol [{cum_low!r}, {cum_low!r} + {freq!r}) does not fit in total {total!r}")


# Compiled with mypyc (docs/architecture.md, "Compiled build"); tests subclass it interpreted.
@mypyc_attr(allow_interpreted_subclasses=True)
class RangeEncoder:
    """Code symbols given as ``(cum_low, freq, total)`` into bytes."""

    __slots__ = ("low", "range", "out")

    # the coder's integers are i64 (docs/architecture.md, "What makes compiled code fast"): ``range // total``
    # can pass 2^31, past which mypyc multiplies plain ints through objects; every value stays below 2^41
    def __init__(self) -> None:
        self.low: i64 = 0
        self.range: i64 = MASK
        self.out = vec[i64]()
        """The bytes shifted out, a librt ``vec[i64]``: compiled, its append and items are native (a bytearray's
        ``append`` is a call by name); :meth:`finish` makes the bytes."""

    def encode(self, cum_low: int, freq: int, total: int) -> None:
        """Code the symbol occupying ``[cum_low, cum_low + freq)`` of ``total``.

        :raises ValueError: if the frequencies are inconsistent or ``total`` exceeds :data:`MAX_TOTAL`.
        """
        _check(cum_low, freq, total)
        self._encode(cum_low, freq, total)

    def _encode(self, cum_low: i64, freq: i64, total: i64) -> None:
        r: i64 = self.range // total
        self._narrow(r * cum_low, r * freq)

    def _narrow(self, offset: i64, rng: i64) -> None:
        """Move ``low`` up by ``offset`` (carrying into the bytes written) and take ``rng`` as the range, shifting
        out the bytes that settled."""
        low: i64 = self.low + offset
        if low > MASK:
            self._carry()
            low &= MASK
        out = self.out
        while rng < TOP:
            out = append(out, low >> 24)
            low = (low << 8) & MASK
            rng <<= 8
        self.out = out
        self.low = low
        self.range = rng

    def _carry(self) -> None:
        out = self.out
        i: i64 = len(out) - 1
        while out[i] == 0xFF:  # never runs off the front: every interval lies inside the first one
            out[i] = 0
            i -= 1
        out[i] += 1

    def finish(self) -> bytes:
        """The coded bytes: those shifted out, then the fewest bytes (0 to 4) naming a value in the final interval."""
        nbytes, value = final_value(self.low, self.range)
        if value > MASK:
            self._carry()
            value &= MASK
        out = self.out
        for k in range(nbytes):
            out = append(out, (value >> (RANGE_BITS - 8 - 8 * k)) & 0xFF)
        self.out = out
        data = BytesWriter()  # native appends compiled (a local: mypyc cannot hold a BytesWriter in an attribute)
        for i in range(len(out)):
            data.append(u8(out[i]))
        return data.getvalue()


def final_value(low: int, rng: int) -> tuple[int, int]:
    """(``k``, ``v``) of the finish: ``v`` is ``low`` rounded up to a multiple of ``2^(32 - 8k)``, for the fewest
    ``k`` (0 to 4) with ``v < low + rng``; the encoder writes the top ``k`` bytes of ``v`` (a ``v`` past 32 bits
    carries first)."""
    end = low + rng
    for nbytes in range(4):
        unit = 1 << (RANGE_BITS - 8 * nbytes)
        value = -(-low // unit) * unit
        if value < end:
            return nbytes, value
    return 4, low  # a unit of 1: low itself, always inside a non-empty interval


class RangeDecoder:
    """Decode what :class:`RangeEncoder` wrote, checking the data is exactly what it would write.

    Besides ``code`` (the data's window minus the encoder's ``low``) it keeps the encoder's ``low`` itself, so that
    :meth:`finish` knows the one finish the encoder writes without replaying the encoder: ``code`` is exact
    (``0 <= code < range`` after every symbol), so the data's value is the encoder's ``low`` plus ``code``
    (carries included), and the data is canonical exactly when ``low + code`` is the finish's value and the data
    ends with its last byte.
    """

    __slots__ = ("data", "pos", "code", "low", "range", "r", "target", "total")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.code: i64 = 0
        for _ in range(4):
            self.code = (self.code << 8) | self._next_byte()
        self.low: i64 = 0
        """The encoder's ``low`` (its carries dropped: they only change bytes already read)."""
        self.range: i64 = MASK
        self.r: i64 = 0
        self.target: i64 = -1
        self.total: i64 = 0

    def _next_byte(self) -> i64:
        pos = self.pos
        self.pos = pos + 1
        if pos < len(self.data):
            return self.data[pos]
        if pos >= len(self.data) + MAX_OVERREAD:
            raise InvalidDataError(f"truncated data: read past the end of {len(self.data)} bytes of coded moves")
        return 0

    def decode_target(self, total: int) -> int:
        """The next symbol's position in ``[0, total)``; follow with :meth:`consume` of the symbol holding it.

        :raises InvalidDataError: if the data points outside ``total`` (corruption).
        :raises ValueError: if ``total`` is outside ``1..MAX_TOTAL``.
        """
        if not 0 < total <= MAX_TOTAL:
            raise ValueError(f"total frequency {total!r} is outside 1..{MAX_TOTAL}")
        return self._target(total)

    # _target and _consume are decode_target and consume for compiled callers whose totals and symbols are right by
    # construction (rank's softmax): their arguments stay machine integers, and nothing is checked twice
    def _target(self, total: i64) -> i64:
        """:meth:`decode_target` of a ``total`` in ``1..MAX_TOTAL``.

        :raises InvalidDataError: if the data points outside ``total`` (corruption).
        """
        r: i64 = self.range // total
        target: i64 = self.code // r
        if target >= total:
            raise InvalidDataError(f"coded value {target} is outside the {total} frequencies of this symbol")
        self.r = r
        self.total = total
        self.target = target
        return target

    def consume(self, cum_low: int, freq: int) -> None:
        """Remove the symbol ``[cum_low, cum_low + freq)`` that holds the last target.

        :raises ValueError: if that symbol does not hold the target (a caller's bug, not bad data).
        """
        if not cum_low <= self.target < cum_low + freq or cum_low + freq > self.total:
            raise ValueError(f"symbol [{cum_low!r}, {cum_low + freq!r}) does not hold target {self.target!r}")
        self._consume(cum_low, freq)

    def _consume(self, cum_low: i64, freq: i64) -> None:
        """:meth:`consume` of the symbol that holds the last target (unchecked)."""
        self.target = -1
        r: i64 = self.r
        self._narrow(r * cum_low, r * freq)

    def _narrow(self, offset: i64, rng: i64) -> None:
        """The encoder's :meth:`RangeEncoder._narrow`: ``code`` and ``low`` move by ``offset``, the range is ``rng``,
        and the bytes that settled are read."""
        code: i64 = self.code - offset
        low: i64 = (self.low + offset) & MASK
        while rng < TOP:
            code = ((code << 8) | self._next_byte()) & MASK
            low = (low << 8) & MASK
            rng <<= 8
        self.code = code
        self.low = low
        self.range = rng

    def finish(self) -> None:
        """Check the data is exactly what the encoder writes for the symbols decoded (no trailing bytes).

        :raises InvalidDataError: on trailing or non-canonical bytes.
        """
        nbytes, value = final_value(self.low, self.range)
        size = self.pos - 4 + nbytes  # the bytes shifted out (one a byte read past the first 4), then the finish's
        # the data's value minus the finish's, in units of the window's last byte: zero in a canonical stream; below
        # the finish's unit when the data starts with the encoder's bytes and goes on
        excess = self.low + self.code - value
        if excess == 0 and len(self.data) == size:
            return
        if len(self.data) > size and 0 <= excess < 1 << (RANGE_BITS - 8 * nbytes):
            raise InvalidDataError(f"{len(self.data) - size} bytes of trailing data after the last ply")
        raise InvalidDataError("coded moves are not in canonical form (corrupted or trailing data)")
