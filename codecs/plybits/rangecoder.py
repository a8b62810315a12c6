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

from mypy_extensions import i64, mypyc_attr

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
        self.out = bytearray()

    def encode(self, cum_low: int, freq: int, total: int) -> None:
        """Code the symbol occupying ``[cum_low, cum_low + freq)`` of ``total``.

        :raises ValueError: if the frequencies are inconsistent or ``total`` exceeds :data:`MAX_TOTAL`.
        """
        _check(cum_low, freq, total)
        self._encode(cum_low, freq, total)

    def _encode(self, cum_low: i64, freq: i64, total: i64) -> None:
        r: i64 = self.range // total
        low: i64 = self.low + r * cum_low
        rng: i64 = r * freq
        if low > MASK:
            self._carry()
            low &= MASK
        out = self.out
        while rng < TOP:
            out.append(low >> 24)
            low = (low << 8) & MASK
            rng <<= 8
        self.low = low
        self.range = rng

    def _carry(self) -> None:
        out = self.out
        i = len(out) - 1
        while out[i] == 0xFF:  # never runs off the front: every interval lies inside the first one
            out[i] = 0
            i -= 1
        out[i] += 1

    def finish(self) -> bytes:
        """The coded bytes: those shifted out, then the fewest bytes (0 to 4) naming a value in the final interval."""
        low, end = self.low, self.low + self.range
        for nbytes in range(5):
            unit = 1 << (RANGE_BITS - 8 * nbytes)
            value = -(-low // unit) * unit
            if value < end:
                break
        if value > MASK:
            self._carry()
            value &= MASK
        for k in range(nbytes):
            self.out.append((value >> (RANGE_BITS - 8 - 8 * k)) & 0xFF)
        return bytes(self.out)


class RangeDecoder:
    """Decode what :class:`RangeEncoder` wrote, checking the data is exactly what it would write."""

    __slots__ = ("data", "pos", "code", "range", "r", "target", "total", "mirror")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.code: i64 = 0
        for _ in range(4):
            self.code = (self.code << 8) | self._next_byte()
        self.range: i64 = MASK
        self.r: i64 = 0
        self.target: i64 = -1
        self.total: i64 = 0
        self.mirror = RangeEncoder()
        """The encoder replayed on the decoded symbols, so that :meth:`finish` can demand identical bytes."""

    def _next_byte(self) -> int:
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
        self.mirror._encode(cum_low, freq, self.total)
        self.target = -1
        r: i64 = self.r
        code: i64 = self.code - r * cum_low
        rng: i64 = r * freq
        while rng < TOP:
            code = ((code << 8) | self._next_byte()) & MASK
            rng <<= 8
        self.code = code
        self.range = rng

    def finish(self) -> None:
        """Check the data is exactly what the encoder writes for the symbols decoded (no trailing bytes).

        :raises InvalidDataError: on trailing or non-canonical bytes.
        """
        expected = self.mirror.finish()
        if expected != self.data:
            if len(self.data) > len(expected) and self.data.startswith(expected):
                raise InvalidDataError(f"{len(self.data) - len(expected)} bytes of trailing data after the last ply")
            raise InvalidDataError("coded moves are not in canonical form (corrupted or trailing data)")
