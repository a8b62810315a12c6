"""The record section's coder (:mod:`plybits.recordcoder`): its inline adaptation is :func:`adapted`'s, its one-call
byte strings are its trees' bytes, and in pure Python its loops code and read what the compiled build's do."""

from __future__ import annotations

import random
from typing import Any

import pytest

from plybits import recordcoder
from plybits.errors import InvalidDataError
from plybits.recordcoder import (
    MAX_NUMBER_BITS, PROB_MAX, PROB_MIN, Bits, Coder, Number, Reader, Writer, adapted, byte_tree,
)


def decisions(seed: int, count: int) -> list[tuple[str, int, int]]:
    """A random mix of trees (a width and a symbol), runs (a most and a length), byte strings (a length) and uniform
    values (a count and a value)."""
    rng = random.Random(seed)
    out: list[tuple[str, int, int]] = []
    for _ in range(count):
        kind = rng.choice(("tree", "run", "bytes", "uniform"))
        if kind == "tree":
            width = rng.randrange(1, 9)
            out.append((kind, width, rng.randrange(1 << width)))
        elif kind == "run":
            most = rng.randrange(1, 12)
            out.append((kind, most, rng.randrange(most + 1)))
        elif kind == "uniform":
            n = rng.choice([1, 2, 13, 62, 500, 65536])
            out.append((kind, n, rng.randrange(n)))
        else:
            out.append((kind, rng.randrange(0, 40), rng.randrange(1 << 30)))
    return out


def banks(seed: int) -> tuple[Bits, Bits]:
    """A bank of 512 contexts at random probabilities and counts (from the extremes to even), and a byte tree."""
    rng = random.Random(seed)
    bits = Bits(512)
    for ctx in range(512):
        bits.set(ctx, rng.choice([PROB_MIN, PROB_MAX, 2048, rng.randrange(PROB_MIN, PROB_MAX + 1)]), rng.randrange(31))
    weights = [rng.choice([1, 1, 5, 100]) for _ in range(256)]
    return bits, byte_tree(weights)


def text_of(n: int, seed: int) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.choice(b"etaoin shrdlu,ETAOIN\xc3\xa9") for _ in range(n))


def write(coder: Writer, plan: list[tuple[str, int, int]], bits: Bits, tree: Bits) -> bytes:
    for kind, a, b in plan:
        if kind == "tree":
            coder.tree(bits, 7, a, b)
        elif kind == "run":
            coder.run(bits, 300, b, a)
        elif kind == "uniform":
            coder.uniform(a, b)
        else:
            coder.byte_string(tree, a, text_of(a, b))
    return coder.finish()


def read(coder: Reader, plan: list[tuple[str, int, int]], bits: Bits, tree: Bits) -> list[Any]:
    out: list[Any] = []
    for kind, a, _ in plan:
        if kind == "tree":
            out.append(coder.tree(bits, 7, a))
        elif kind == "run":
            out.append(coder.run(bits, 300, 0, a))
        elif kind == "uniform":
            out.append(coder.uniform(a))
        else:
            out.append(coder.byte_string(tree, a))
    coder.finish()
    return out


def expected(plan: list[tuple[str, int, int]]) -> list[Any]:
    return [b if kind != "bytes" else text_of(a, b) for kind, a, b in plan]


def test_the_loops_adapt_each_context_as_adapted_says() -> None:
    """Every context a writer's and a reader's loops coded under ends as :func:`adapted` takes it, decision by
    decision (a bank coded through :class:`Coder`'s one-decision loops, by :func:`adapted` itself, agrees)."""
    plan = decisions(1, 400)
    bits, tree = banks(2)
    by_hand = [bits.copy(), tree.copy()]
    written = [bits.copy(), tree.copy()]
    data = write(Writer(), plan, *written)
    for kind, a, b in plan:  # the decisions, replayed through adapted()
        if kind == "tree":
            node = 1
            for i in range(a - 1, -1, -1):
                bit = (b >> i) & 1
                by_hand[0].state[7 + node] = adapted(by_hand[0].state[7 + node], bit)
                node = node << 1 | bit
        elif kind == "run":
            for i in range(min(b + 1, a)):
                by_hand[0].state[300 + i] = adapted(by_hand[0].state[300 + i], int(i < b))
        elif kind == "bytes":
            for byte in text_of(a, b):
                node = 1
                for i in range(7, -1, -1):
                    bit = (byte >> i) & 1
                    by_hand[1].state[node] = adapted(by_hand[1].state[node], bit)
                    node = node << 1 | bit
    assert list(written[0].state) == list(by_hand[0].state)
    assert list(written[1].state) == list(by_hand[1].state)
    read_banks = [bits.copy(), tree.copy()]
    assert read(Reader(data), plan, *read_banks) == expected(plan)
    assert list(read_banks[0].state) == list(by_hand[0].state) and list(read_banks[1].state) == list(by_hand[1].state)


class ByDecision(Coder):
    """A writer through :class:`Coder`'s loops: each decision a :meth:`Writer.bit` (as a test's changed writer codes)."""

    def __init__(self) -> None:
        super().__init__(True)
        self.writer = Writer()

    def bit(self, bits: Bits, ctx: int, bit: int = 0) -> int:
        return self.writer.bit(bits, ctx, bit)

    def uniform(self, n: int, value: int = 0) -> int:
        return self.writer.uniform(n, value)

    def finish(self) -> bytes:
        return self.writer.finish()


def test_byte_strings_and_loops_code_the_bytes_of_one_decision_at_a_time() -> None:
    for seed in range(5):
        plan = decisions(seed, 300)
        bits, tree = banks(seed)
        in_loops = write(Writer(), plan, bits.copy(), tree.copy())
        one_by_one = write(ByDecision(), plan, bits.copy(), tree.copy())  # type: ignore[arg-type]
        assert in_loops == one_by_one
        assert read(Reader(in_loops), plan, bits.copy(), tree.copy()) == expected(plan)


@pytest.mark.skipif(not recordcoder.PURE, reason="the compiled build's loops are the shaped ones (tests/test_compiled.py)")
def test_pure_loops_code_and_read_what_the_compiled_builds_loops_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """Interpreted, :class:`Writer` and :class:`Reader` code by loops of their own (:data:`recordcoder.PURE`): the
    methods they stand in for (:data:`recordcoder.SHAPED`, the ones compiled) write the same bytes, read the same
    values and leave every context in the same state."""
    runs = []
    for shaped in (False, True):
        if shaped:
            for name, method in recordcoder.SHAPED.items():
                cls, attribute = name.split(".")
                monkeypatch.setattr(getattr(recordcoder, cls), attribute, method)
        outcome = []
        for seed in range(4):
            plan = decisions(seed + 10, 300)
            bits, tree = banks(seed)
            written = [bits.copy(), tree.copy()]
            data = write(Writer(), plan, *written)
            read_banks = [bits.copy(), tree.copy()]
            values = read(Reader(data), plan, *read_banks)
            outcome.append((data, values, [list(b.state) for b in written + read_banks],
                            [sorted(b.touched[:b.touched_count]) for b in written + read_banks]))
        runs.append(outcome)
    assert runs[0] == runs[1]
    assert runs[0][0][1] == expected(decisions(10, 300))


@pytest.mark.parametrize("cut", [1, 3, 7])
def test_a_byte_string_past_the_data_is_refused_where_the_decisions_run_out(cut: int) -> None:
    """A reader's byte string longer than its data allows stops at the decision past the budget, as byte by byte."""
    _, tree = banks(3)
    writer = Writer()
    writer.byte_string(tree.copy(), 5, b"abcde")
    data = writer.finish()[:cut]
    with pytest.raises(InvalidDataError):
        Reader(data).byte_string(tree.copy(), 1000)


def plain_number(c: Coder, number: Number, n: int, ctx: int) -> None:
    """Exp-Golomb by its definition: the bit length of n + 1 less one in unary under ``ctx``'s contexts, then the bits
    below its leading one from the top, the first two adaptive (by length and depth), the others uniform."""
    k = (n + 1).bit_length() - 1
    base = ctx * MAX_NUMBER_BITS
    c.run(number.unary, base, k, MAX_NUMBER_BITS - 1)
    at = ((0 if number.shared else base) + k) * 2 + k - 1
    for i in range(k - 1, -1, -1):
        bit = ((n + 1) >> i) & 1
        if i >= k - 2:
            c.bit(number.mantissa, at - i, bit)
        else:
            c.uniform(2, bit)


def test_numbers_code_the_decisions_of_their_definition_and_read_back() -> None:
    """:meth:`Number.code` (machine integers compiled) writes what its plain definition writes, up to 2^40 - 2, and a
    reader reads each number back."""
    rng = random.Random(40)
    values = [0, 1, 2, 3, 6, 7, 2 ** 31 - 2, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40 - 2]
    values += [rng.randrange(1 << rng.randint(1, 40)) - 1 for _ in range(400)]
    values = [value for value in values if 0 <= value <= 2 ** 40 - 2]
    for shared in (False, True):
        prior = Number(3, shared=shared)
        writer, plain = Writer(), Writer()
        written, planned = prior.copy(), prior.copy()
        for i, value in enumerate(values):
            assert written.code(writer, value, i % 3) == value
            plain_number(plain, planned, value, i % 3)
        data = writer.finish()
        assert data == plain.finish()
        reader, read = Reader(data), prior.copy()
        assert [read.code(reader, 0, i % 3) for i in range(len(values))] == values
