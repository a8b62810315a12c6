"""The range coder: hand-derived vectors, every symbol of tiny and huge alphabets, a million random
symbols, adversarial frequencies, cost against the ideal, and refusal of corrupted or trailing data."""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from itertools import accumulate

import pytest
from librt.vecs import vec
from mypy_extensions import i64

from plybits.errors import InvalidDataError
from plybits.rangecoder import MASK, MAX_TOTAL, RangeDecoder, RangeEncoder
from plybits.recordcoder import PROB_MAX, PROB_MIN, PROB_ONE, Bits, Reader, Writer


def encode(symbols: list[int], freqs: list[int]) -> bytes:
    cum = [0, *accumulate(freqs)]
    total = cum[-1]
    enc = RangeEncoder()
    for s in symbols:
        enc.encode(cum[s], freqs[s], total)
    return enc.finish()


def decode(data: bytes, n: int, freqs: list[int]) -> list[int]:
    cum = [0, *accumulate(freqs)]
    total = cum[-1]
    dec = RangeDecoder(data)
    out = []
    for _ in range(n):
        t = dec.decode_target(total)
        s = bisect_right(cum, t) - 1
        dec.consume(cum[s], freqs[s])
        out.append(s)
    dec.finish()
    return out


# Vectors worked by hand from the definition in docs/rank.md (low = 0, range = 2^32 - 1 at the start;
# r = range // total; low += r * cum; range = r * freq; shift out the top byte while range < 2^24;
# finish with the fewest bytes naming a value in [low, low + range)).
HAND_VECTORS = [
    # no symbols: [0, 2^32-1) holds 0, written with no bytes
    ([], [1, 1], b""),
    # symbol 0 of {1,1}: [0, 0x7FFFFFFF) holds 0 -> no bytes
    ([0], [1, 1], b""),
    # symbol 1 of {1,1}: r = 0x7FFFFFFF, interval [0x7FFFFFFF, 0xFFFFFFFE) holds 0x80000000 -> 80
    ([1], [1, 1], b"\x80"),
    # symbol 2 of {1,1,1,1}: r = 0x3FFFFFFF, [0x7FFFFFFE, 0xBFFFFFFD) holds 0x80000000 -> 80
    ([2], [1, 1, 1, 1], b"\x80"),
    # symbol 1 of {1, 255}, total 256: r = 0x00FFFFFF, low = 0x00FFFFFF, range = 0xFEFFFF01 -> value 0x01000000 -> 01
    ([1], [1, 255], b"\x01"),
    # symbol 0 of {1, 65535}: r = 0xFFFF, range 0xFFFF < 2^24 -> two bytes 00 00 shifted out,
    # low = 0, range = 0xFFFF0000; finish writes nothing -> 00 00
    ([0], [1, MAX_TOTAL - 1], b"\x00\x00"),
    # symbol 1 of {1, 65535}: low = 0xFFFF, range = 0xFFFF * 0xFFFF = 0xFFFE0001 -> value 0x01000000 -> 01
    ([1], [1, MAX_TOTAL - 1], b"\x01"),
    # two symbols 1,1 of {1,1}: after the first low = 0x7FFFFFFF, range = 0x7FFFFFFF;
    # r = 0x3FFFFFFF, low = 0xBFFFFFFE, range = 0x3FFFFFFF -> [0xBFFFFFFE, 0xFFFFFFFD) holds 0xC0000000 -> C0
    ([1, 1], [1, 1], b"\xc0"),
]


@pytest.mark.parametrize("symbols,freqs,data", HAND_VECTORS)
def test_hand_worked_vectors(symbols, freqs, data):
    assert encode(symbols, freqs) == data
    assert decode(data, len(symbols), freqs) == symbols


class CountingEncoder(RangeEncoder):
    carries = 0

    def _carry(self) -> None:
        CountingEncoder.carries += 1
        super()._carry()


def test_carry_propagates_into_written_bytes():
    # uniform-ish symbols carry often (about one symbol in two for 256 equal frequencies)
    rng = random.Random(5)
    for freqs in ([3, 5], [1] * 256, [200, 1, 1, 55]):
        cum = [0, *accumulate(freqs)]
        symbols = [rng.randrange(len(freqs)) for _ in range(5000)]
        enc = CountingEncoder()
        CountingEncoder.carries = 0
        for s in symbols:
            enc.encode(cum[s], freqs[s], cum[-1])
        data = enc.finish()
        assert CountingEncoder.carries > 10
        assert data == encode(symbols, freqs)
        assert decode(data, len(symbols), freqs) == symbols


def test_carry_reaches_the_written_bytes_by_hand():
    enc = RangeEncoder()
    enc.low, enc.range, enc.out = 0xFFFFFFF0, 0x100, vec[i64]([0x12, 0xFF, 0xFF])
    enc._encode(1, 1, 2)  # r = 0x80, low = 0x1_0000_0070: the carry ripples through ff ff into 12
    assert list(enc.out[:3]) == [0x13, 0x00, 0x00]


@pytest.mark.parametrize("size", [1, 2, 3, 255, 256, 1000, MAX_TOTAL])
def test_every_symbol_of_an_alphabet_round_trips(size):
    freqs = [1] * size
    symbols = list(range(size))
    data = encode(symbols, freqs)
    assert decode(data, size, freqs) == symbols
    # each symbol alone, too (the first and last matter most)
    for s in {0, 1 % size, size // 2, size - 1}:
        assert decode(encode([s], freqs), 1, freqs) == [s]


def test_a_million_random_symbols_round_trip():
    rng = random.Random(2026)
    alphabets = [[rng.randrange(1, 50) for _ in range(rng.randrange(1, 40))] for _ in range(20)]
    plan = []
    for _ in range(1_000_000):
        freqs = alphabets[rng.randrange(20)]
        plan.append((freqs, rng.randrange(len(freqs))))
    cums = {id(f): [0, *accumulate(f)] for f in alphabets}
    enc = RangeEncoder()
    for freqs, s in plan:
        cum = cums[id(freqs)]
        enc.encode(cum[s], freqs[s], cum[-1])
    data = enc.finish()
    dec = RangeDecoder(data)
    for freqs, s in plan:
        cum = cums[id(freqs)]
        t = dec.decode_target(cum[-1])
        got = bisect_right(cum, t) - 1
        assert got == s
        dec.consume(cum[got], freqs[got])
    dec.finish()


@pytest.mark.parametrize(
    "freqs",
    [
        [1, MAX_TOTAL - 1],
        [MAX_TOTAL - 1, 1],
        [MAX_TOTAL // 2 - 1, 1, MAX_TOTAL // 2],
        [1] * 100 + [MAX_TOTAL - 200] + [1] * 100,
        [MAX_TOTAL],
    ],
)
def test_adversarial_skewed_frequencies(freqs):
    rng = random.Random(len(freqs))
    n = len(freqs)
    # the rare symbols often, the common one rarely: the worst case for precision
    symbols = [rng.randrange(n) for _ in range(3000)] + [freqs.index(min(freqs))] * 500
    data = encode(symbols, freqs)
    assert decode(data, len(symbols), freqs) == symbols
    ideal = -sum(math.log2(freqs[s] / sum(freqs)) for s in symbols)
    assert len(data) * 8 <= ideal * 1.001 + 0.006 * len(symbols) + 40


def test_cost_is_within_a_small_bound_of_the_ideal():
    rng = random.Random(7)
    freqs = [rng.randrange(1, 1000) for _ in range(60)]
    total = sum(freqs)
    symbols = rng.choices(range(60), weights=freqs, k=50_000)
    data = encode(symbols, freqs)
    ideal = -sum(math.log2(freqs[s] / total) for s in symbols)
    # range // total loses at most log2(1 + total / 2^24) bits a symbol; the finish at most 32 bits
    bound = ideal + len(symbols) * math.log2(1 + total / 2**24) + 32
    assert ideal <= len(data) * 8 <= bound + 8


def test_forced_symbols_cost_nothing():
    assert encode([0] * 10_000, [1]) == b""
    assert decode(b"", 10_000, [1]) == [0] * 10_000


def test_trailing_bytes_are_refused():
    data = encode([1, 0, 1, 1], [3, 5])
    with pytest.raises(InvalidDataError, match="trailing"):
        decode(data + b"\x00", 4, [3, 5])
    with pytest.raises(InvalidDataError, match="trailing|canonical"):
        decode(data + b"\x01\x02", 4, [3, 5])


def test_non_canonical_bytes_are_refused():
    # 0x80 and 0x81 both lie in symbol 1's interval of {1,1}; only 0x80 is what the encoder writes
    assert decode(b"\x80", 1, [1, 1]) == [1]
    with pytest.raises(InvalidDataError, match="canonical"):
        decode(b"\x81", 1, [1, 1])


def test_corrupted_data_never_loops_or_crashes():
    rng = random.Random(11)
    freqs = [5, 1, 1, 30, 2]
    for _ in range(300):
        blob = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 12)))
        try:
            decode(blob, 50, freqs)
        except InvalidDataError:
            pass


def test_reading_far_past_the_end_is_truncation():
    # a symbol of frequency 1 in 65536 needs 16 bits each time: 10 of them need 20 bytes, none given
    dec = RangeDecoder(b"")
    with pytest.raises(InvalidDataError, match="truncated"):
        for _ in range(10):
            dec.decode_target(MAX_TOTAL)
            dec.consume(0, 1)


def test_a_target_outside_the_total_is_invalid_data():
    dec = RangeDecoder(b"\xff\xff\xff\xff")  # value 0xFFFFFFFF is outside [0, 2^32 - 1)
    with pytest.raises(InvalidDataError, match="outside"):
        dec.decode_target(2)


@pytest.mark.parametrize("args", [(0, 1, 0), (0, 1, MAX_TOTAL + 1), (0, 0, 4), (3, 2, 4), (-1, 1, 4)])
def test_inconsistent_frequencies_are_a_programming_error(args):
    with pytest.raises(ValueError):
        RangeEncoder().encode(*args)


def test_coder_state_stays_in_32_bits():
    rng = random.Random(3)
    enc = RangeEncoder()
    for _ in range(20_000):
        total = rng.randrange(1, MAX_TOTAL + 1)
        cum = rng.randrange(total)
        enc.encode(cum, rng.randrange(1, total - cum + 1), total)
        assert 0 <= enc.low <= MASK and (1 << 24) <= enc.range <= MASK


def _finish_outcomes(data: bytes, n: int, freqs: list[int]) -> tuple[str, str]:
    """How :meth:`RangeDecoder.finish` ends on ``data`` after ``n`` symbols, and how the byte-for-byte check it
    replaced ends (the encoder replayed on the decoded symbols, its bytes compared with the data): each ``"ok"`` or
    the error's message; ``("loop", message)`` when decoding the symbols already fails."""
    cum = [0, *accumulate(freqs)]
    total = cum[-1]
    dec = RangeDecoder(data)
    mirror = RangeEncoder()
    try:
        for _ in range(n):
            s = bisect_right(cum, dec.decode_target(total)) - 1
            dec.consume(cum[s], freqs[s])
            mirror.encode(cum[s], freqs[s], total)
    except InvalidDataError as err:
        return "loop", str(err)
    try:
        dec.finish()
        ours = "ok"
    except InvalidDataError as err:
        ours = str(err)
    expected = mirror.finish()
    if expected == data:
        replayed = "ok"
    elif len(data) > len(expected) and data.startswith(expected):
        replayed = f"{len(data) - len(expected)} bytes of trailing data after the last ply"
    else:
        replayed = "coded moves are not in canonical form (corrupted or trailing data)"
    return ours, replayed


def test_finish_refuses_exactly_what_the_replayed_encoder_would():
    # the decoder's finish reads the encoder's final state from its own (no encoder replayed a symbol): it must
    # accept and refuse exactly the streams that a byte comparison with the replayed encoder's output does
    rng = random.Random(2025)
    checked = 0
    for trial in range(1500):
        freqs = [rng.choice((1, 2, 3, 255, 4000, 65000 // 8)) for _ in range(rng.randrange(1, 9))]
        while sum(freqs) > MAX_TOTAL:
            freqs.pop()
        n = rng.randrange(0, 25)
        data = encode([rng.randrange(len(freqs)) for _ in range(n)], freqs)
        variants = [data, data + b"\x00", data + bytes([rng.randrange(256)]) * rng.randrange(1, 4), data[:-1],
                    data + b"\x00\x00\x00\x00\x00"]
        if data:
            at = rng.randrange(len(data))
            variants += [data[:at] + bytes([data[at] ^ (1 << rng.randrange(8))]) + data[at + 1:],
                         data[:-1] + bytes([(data[-1] + 1) % 256]), data[:-1] + bytes([(data[-1] - 1) % 256])]
        for variant in variants:
            ours, replayed = _finish_outcomes(variant, n, freqs)
            if ours != "loop":
                assert ours == replayed, (trial, freqs, n, data.hex(), variant.hex())
                checked += 1
    assert checked > 5000


def test_a_record_decision_by_shift_codes_and_reads_as_the_divided_one():
    """The record section's binary decisions (:class:`~plybits.recordcoder.Writer`/``Reader``, the range step inline,
    a shift for the division) write the bytes ``_encode`` of ``(0, p)`` or ``(p, 4096 - p)`` of 4096 writes, and read
    back what ``_target``/``_consume`` read."""
    rng = random.Random(25)
    decisions = [(rng.choice([PROB_MIN, PROB_MIN + 1, 100, 2048, 4000, PROB_MAX, rng.randrange(PROB_MIN, PROB_MAX + 1)]),
                  rng.randrange(2)) for _ in range(20_000)]
    bits = Bits(1)
    divided, writer = RangeEncoder(), Writer()
    for p, bit in decisions:
        divided._encode(p if bit else 0, PROB_ONE - p if bit else p, PROB_ONE)
        bits.set(0, p, 0)
        writer.bit(bits, 0, bit)
    data = divided.finish()
    assert writer.finish() == data
    reader, by_division = Reader(data), RangeDecoder(data)
    for p, bit in decisions:
        bits.set(0, p, 0)
        assert reader.bit(bits, 0) == bit
        target = by_division._target(PROB_ONE)
        by_division._consume(*((0, p) if target < p else (p, PROB_ONE - p)))
        by_shift = reader.dec
        assert (by_shift.code, by_shift.low, by_shift.range) == (by_division.code, by_division.low, by_division.range)


def test_a_record_decision_outside_its_total_is_invalid_data():
    with pytest.raises(InvalidDataError, match="outside the 4096 frequencies"):
        Reader(b"\xff\xff\xff\xff").bit(Bits(1), 0)  # code 2^32 - 1 is past r * 4096 = 2^32 - 4096
