"""Bit I/O on :mod:`bitarray`, most significant bit first; the only bit packing in plybits."""

from __future__ import annotations

from bitarray import bitarray
from bitarray.util import ba2int, int2ba

from plybits.errors import InvalidDataError


class BitWriter:
    """Append unsigned fields of fixed width to a growing bit string."""

    __slots__ = ("bits",)

    def __init__(self) -> None:
        self.bits = bitarray(endian="big")

    def write(self, value: int, width: int) -> None:
        """Append ``value`` as ``width`` bits.

        :raises ValueError: if ``value`` does not fit in ``width`` bits.
        """
        if not 0 <= value < (1 << width):
            raise ValueError(f"value {value!r} does not fit in {width} bits")
        self.bits.extend(int2ba(value, width, endian="big"))

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

    __slots__ = ("bits", "pos")

    def __init__(self, data: bytes | bitarray) -> None:
        if isinstance(data, bitarray):
            self.bits = data
        else:
            self.bits = bitarray(endian="big")
            self.bits.frombytes(data)
        self.pos = 0

    @property
    def remaining(self) -> int:
        """Number of bits not yet read."""
        return len(self.bits) - self.pos

    def read(self, width: int) -> int:
        """Read ``width`` bits as an unsigned integer.

        :raises InvalidDataError: if fewer than ``width`` bits remain.
        """
        end = self.pos + width
        if end > len(self.bits):
            raise InvalidDataError(f"truncated data: needed {width} bits at bit {self.pos}, {self.remaining} left")
        value = ba2int(self.bits[self.pos:end])
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
