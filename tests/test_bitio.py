import pytest
from bitarray import bitarray

from plybits.bitio import BitReader, BitWriter
from plybits.errors import InvalidDataError


def test_fields_are_written_most_significant_bit_first():
    writer = BitWriter()
    writer.write(0b101, 3)
    writer.write(1, 1)
    writer.write(0xAB, 8)
    assert writer.bits == bitarray("1011" "10101011")
    assert writer.to_bytes() == bytes([0b10111010, 0b10110000])


def test_reader_reads_back_what_writer_wrote():
    writer = BitWriter()
    fields = [(0, 1), (1, 1), (5, 5), (16, 5), (0x3FF, 10), (0, 16), (0xFFFF, 16)]
    for value, width in fields:
        writer.write(value, width)
    reader = BitReader(writer.to_bytes())
    assert [reader.read(width) for _, width in fields] == [value for value, _ in fields]
    reader.finish()


@pytest.mark.parametrize("value,width", [(-1, 3), (8, 3), (1, 0)])
def test_writer_refuses_values_that_do_not_fit(value, width):
    with pytest.raises(ValueError, match=repr(value)):
        BitWriter().write(value, width)


def test_reading_past_the_end_is_invalid_data():
    reader = BitReader(b"\xff")
    assert reader.read(5) == 0b11111
    with pytest.raises(InvalidDataError, match="truncated"):
        reader.read(4)


def test_finish_refuses_trailing_bytes_and_nonzero_padding():
    reader = BitReader(b"\x00\x00")
    reader.read(4)
    with pytest.raises(InvalidDataError, match="trailing"):
        reader.finish()
    reader = BitReader(b"\x01")
    reader.read(4)
    with pytest.raises(InvalidDataError, match="padding"):
        reader.finish()
