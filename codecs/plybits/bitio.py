"""Bit I/O on :mod:`bitarray`, most significant bit first; the only bit packing in plybits."""

from __future__ import annotations

from bitarray import bitarray
from bitarray.util import ba2int

from plybits.errors import InvalidDataError

_FORMATS = [f"0{width}b" for width in range(64)]
"""_FORMATS[width]: the :func:`format` spec writing an unsigned field of ``width`` bits (below 64)."""


class BitWriter:
    """Append unsigned fields of fixed width to a growing bit string."""

    __slots__ = ("bits",)

    def __init__(self) -> None:
        self.bits = bitarray(endian="big")

    def write(self, value: int, width: int) -> None:
        """Append ``value`` as ``width`` bits.

        :raises ValueError: if ``value`` does not fit in ``width`` bits.
        """
        if not 0 <= value < (1 << width) or width <= 0:
            raise ValueError(f"value {value!r} does not fit in {width} bits")
        if width & 7:
            self.bits.extend(format(value, _FORMATS[width] if width < 64 else f"0{width}b"))
        else:  # whole bytes: appended as bytes, at any bit position
            self.bits.frombytes(value.to_bytes(width >> 3, "big"))

    def write_bit(self, bit: int) -> None:
        """Append a single bit."""
        self.bits.append(bit)

    def __len__(self) -> int:
        return len(self.bits)

    def to_bytes(self) -> bytes:
        """The bits so far, zero-padded to whole bytes."""
        return self.bits.tobytes()


class BitReader:
    """Read unsigned fields of fixed width from a bit string."""

    __slots__ = ("bits", "pos", "_raw")

    def __init__(self, data: bytes | bitarray) -> None:
        if isinstance(data, bitarray):
            self.bits = data
            endian = data.endian() if callable(data.endian) else data.endian  # a method before bitarray 3.4
            self._raw = data.tobytes() if endian == "big" else None
        else:
            self.bits = bitarray(endian="big")
            self.bits.frombytes(data)
            self._raw = bytes(data)
        self.pos = 0

    @property
    def remaining(self) -> int:
        """Number of bits not yet read."""
        return len(self.bits) - self.pos

    def read(self, width: int) -> int:
        """Read ``width`` bits as an unsigned integer.

        :raises InvalidDataError: if fewer than ``width`` bits remain.
        """
        pos = self.pos
        end = pos + width
        if end > len(self.bits):
            raise InvalidDataError(f"truncated data: needed {width} bits at bit {pos}, {self.remaining} left")
        raw = self._raw
        if raw is None or width <= 0:
            value = ba2int(self.bits[pos:end])
        else:  # the bytes covering the field, as one integer, shifted and masked
            value = int.from_bytes(raw[pos >> 3:(end + 7) >> 3], "big") >> (-end & 7) & ((1 << width) - 1)
        self.pos = end
        return value

    def read_bit(self) -> int:
        """Read one bit; past the end raises :class:`InvalidDataError`."""
        if self.pos >= len(self.bits):
            raise InvalidDataError(f"truncated data: needed 1 bit at bit {self.pos}")
        bit = self.bits[self.pos]
        self.pos += 1
        return bit

    def finish(self) -> None:
        """Check that only zero padding (fewer than 8 bits) is left.

        :raises InvalidDataError: on trailing data or non-zero padding.
        """
        if self.remaining >= 8:
            raise InvalidDataError(f"{self.remaining} bits of trailing data after the last ply")
        if self.bits[self.pos:].any():
            raise InvalidDataError("non-zero padding after the last ply")
