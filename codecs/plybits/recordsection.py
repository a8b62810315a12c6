"""The record section of a full-fidelity container: a record's tags and everything beside its mainline moves
(comments, NAGs, variations, the result token), range-coded with adaptive binary models.

The layout is documented byte by byte in docs/format.md: a version byte, then one range-coded stream
(:mod:`plybits.rangecoder`). Every model starts afresh in each section, so a section needs nothing but
its container's game to be read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plybits.annotations import Comment, Line, Notes, Step
from plybits.errors import InvalidDataError, InvalidRecordError, LimitExceededError
from plybits.game import Position
from plybits.rangecoder import RangeDecoder, RangeEncoder
from plybits.registry import AnyScheme

SECTION_VERSION = 1
"""The layout version written as the section's first byte."""
PROB_BITS = 12
PROB_ONE = 1 << PROB_BITS
"""An adaptive bit's probability of 0 is ``p / PROB_ONE``."""
ADAPT_SHIFT = 4
"""Each coded bit moves its probability ``1 / 2^ADAPT_SHIFT`` of the way towards what was seen."""
DECISIONS_PER_BYTE = 2048
"""Most binary decisions a section may hold per byte of its length (about 1 / 0.0053 bits, the cheapest
decision, times 8, with room): more is not data :func:`write_section` made, and reading stops there."""
MAX_NUMBER_BITS = 32
"""Numbers in a section are below ``2^32 - 1``."""
MAX_TAGS = 256
MAX_TEXT = 1 << 16
"""Longest text (tag name, tag value, comment) in UTF-8 bytes, as the container's strings."""
MAX_COUNT = 1 << 16
"""Most comments or NAGs a step may hold, or variations a step may branch into."""
MAX_DEPTH = 64
"""Deepest nesting of variations (a variation of the mainline is at depth 1)."""
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
"""Result tokens coded by index; another token is coded as text."""


def _half() -> int:
    return PROB_ONE >> 1


class _Bits:
    """A bank of adaptive binary contexts (probabilities of 0, in ``PROB_BITS`` bits)."""

    __slots__ = ("p",)

    def __init__(self, size: int) -> None:
        self.p = [_half()] * size


class _Writer:
    """Codes decisions into a range-coded stream."""

    __slots__ = ("enc",)

    def __init__(self) -> None:
        self.enc = RangeEncoder()

    def bit(self, bits: _Bits, ctx: int, bit: int) -> None:
        p = bits.p[ctx]
        if bit:
            self.enc.encode(p, PROB_ONE - p, PROB_ONE)
            bits.p[ctx] = p - (p >> ADAPT_SHIFT)
        else:
            self.enc.encode(0, p, PROB_ONE)
            bits.p[ctx] = p + ((PROB_ONE - p) >> ADAPT_SHIFT)

    def uniform(self, value: int, n: int) -> None:
        """``value`` in ``range(n)``, each equally likely (``n`` at most 65,536)."""
        self.enc.encode(value, 1, n)

    def finish(self) -> bytes:
        return self.enc.finish()


class _Reader:
    """Decodes what :class:`_Writer` coded, refusing more decisions than the data's length allows."""

    __slots__ = ("dec", "budget")

    def __init__(self, data: bytes) -> None:
        self.dec = RangeDecoder(data)
        self.budget = DECISIONS_PER_BYTE * (len(data) + 8)

    def _spend(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise InvalidDataError("record section holds more decisions than its length allows")

    def bit(self, bits: _Bits, ctx: int) -> int:
        self._spend()
        p = bits.p[ctx]
        if self.dec.decode_target(PROB_ONE) < p:
            self.dec.consume(0, p)
            bits.p[ctx] = p + ((PROB_ONE - p) >> ADAPT_SHIFT)
            return 0
        self.dec.consume(p, PROB_ONE - p)
        bits.p[ctx] = p - (p >> ADAPT_SHIFT)
        return 1

    def uniform(self, n: int) -> int:
        self._spend()
        value = self.dec.decode_target(n)
        self.dec.consume(value, 1)
        return value

    def finish(self) -> None:
        self.dec.finish()


class _Number:
    """Adaptive Exp-Golomb for ``0 <= n < 2^MAX_NUMBER_BITS - 1``: the bit length of ``n + 1`` in unary,
    then the bits below its leading one, each with its own context."""

    __slots__ = ("unary", "mantissa")

    def __init__(self) -> None:
        self.unary = _Bits(MAX_NUMBER_BITS)
        self.mantissa = _Bits(MAX_NUMBER_BITS * MAX_NUMBER_BITS)

    def write(self, w: _Writer, n: int) -> None:
        v = n + 1
        k = v.bit_length() - 1
        if n < 0 or k >= MAX_NUMBER_BITS:
            raise LimitExceededError(f"number {n!r} is outside the record section's range")
        for i in range(k):
            w.bit(self.unary, i, 1)
        if k < MAX_NUMBER_BITS - 1:
            w.bit(self.unary, k, 0)
        for i in range(k - 1, -1, -1):
            w.bit(self.mantissa, k * MAX_NUMBER_BITS + i, (v >> i) & 1)

    def read(self, r: _Reader) -> int:
        k = 0
        while k < MAX_NUMBER_BITS - 1 and r.bit(self.unary, k):
            k += 1
        v = 1
        for i in range(k - 1, -1, -1):
            v = (v << 1) | r.bit(self.mantissa, k * MAX_NUMBER_BITS + i)
        return v - 1

    def read_at_most(self, r: _Reader, limit: int, what: str) -> int:
        n = self.read(r)
        if n > limit:
            raise InvalidDataError(f"{what} {n} is over the limit of {limit}")
        return n


class _Text:
    """UTF-8 text: its byte length (:class:`_Number`), then each byte through an adaptive bit tree."""

    __slots__ = ("length", "tree")

    def __init__(self) -> None:
        self.length = _Number()
        self.tree = _Bits(256)

    def write(self, w: _Writer, text: str, what: str) -> None:
        try:
            raw = text.encode("utf-8")
        except UnicodeEncodeError as err:
            raise InvalidRecordError(f"{what} {text!r} holds a lone surrogate at {err.start}: not UTF-8 text") from None
        if len(raw) > MAX_TEXT:
            raise LimitExceededError(f"{what} of {len(raw)} bytes is longer than a record section allows ({MAX_TEXT})")
        self.length.write(w, len(raw))
        for byte in raw:
            node = 1
            for i in range(7, -1, -1):
                bit = (byte >> i) & 1
                w.bit(self.tree, node, bit)
                node = (node << 1) | bit

    def read(self, r: _Reader, what: str) -> str:
        n = self.length.read_at_most(r, MAX_TEXT, f"{what} length")
        raw = bytearray()
        for _ in range(n):
            node = 1
            while node < 256:
                node = (node << 1) | r.bit(self.tree, node)
            raw.append(node - 256)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InvalidDataError(f"{what} is not UTF-8: {err}") from None


class _Models:
    """Every adaptive model of one section, fresh for each."""

    def __init__(self) -> None:
        self.flags = _Bits(16)
        self.count = _Number()
        self.nag = _Number()
        self.text = _Text()
        self.plies = _Number()
        self.size = _Number()


_F_STEPS, _F_LINE_COMMENT, _F_NAGS, _F_COMMENTS, _F_VARIATIONS, _F_RESULT, _F_RESULT_KNOWN = range(7)


class _SectionWriter:
    def __init__(self, scheme: AnyScheme) -> None:
        self.scheme = scheme
        self.w = _Writer()
        self.m = _Models()
        self.depth = 0

    def tags(self, tags: dict[str, str]) -> None:
        if len(tags) > MAX_TAGS:
            raise LimitExceededError(f"{len(tags)} tags, at most {MAX_TAGS} allowed")
        self.m.count.write(self.w, len(tags))
        for key, value in tags.items():
            self.m.text.write(self.w, key, "tag name")
            self.m.text.write(self.w, value, f"tag {key!r} value")

    def comments(self, comments: Sequence[Comment]) -> None:
        self.m.count.write(self.w, len(comments))
        for comment in comments:
            self.w.bit(self.m.flags, _F_LINE_COMMENT, int(comment.line))
            self.m.text.write(self.w, comment.text, "comment")

    def result(self, result: str | None) -> None:
        self.w.bit(self.m.flags, _F_RESULT, int(result is not None))
        if result is None:
            return
        known = result in RESULTS
        self.w.bit(self.m.flags, _F_RESULT_KNOWN, int(known))
        if known:
            self.w.uniform(RESULTS.index(result), len(RESULTS))
        else:
            self.m.text.write(self.w, result, "result")

    def steps(self, position: Position[Any], moves: Sequence[Any], steps: Sequence[Step[Any]], what: str) -> None:
        """The steps of a line whose ``moves`` are played from ``position`` (a copy this plays forward)."""
        if steps and len(steps) != len(moves):
            raise InvalidRecordError(f"{what} has {len(steps)} annotation steps for {len(moves)} moves")
        self.w.bit(self.m.flags, _F_STEPS, int(bool(steps)))
        for step, move in zip(steps, moves):
            self.step(position, step)
            position.push(move)

    def step(self, position: Position[Any], step: Step[Any]) -> None:
        if len(step.nags) > MAX_COUNT or len(step.comments) > MAX_COUNT or len(step.variations) > MAX_COUNT:
            raise LimitExceededError(f"a step holds more than {MAX_COUNT} NAGs, comments or variations")
        self.w.bit(self.m.flags, _F_NAGS, int(bool(step.nags)))
        if step.nags:
            self.m.count.write(self.w, len(step.nags) - 1)
            for nag in step.nags:
                self.m.nag.write(self.w, nag)
        self.w.bit(self.m.flags, _F_COMMENTS, int(bool(step.comments)))
        if step.comments:
            self.comments(step.comments)
        self.w.bit(self.m.flags, _F_VARIATIONS, int(bool(step.variations)))
        if step.variations:
            self.m.count.write(self.w, len(step.variations) - 1)
            for line in step.variations:
                self.line(position, line)

    def line(self, position: Position[Any], line: Line[Any]) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise LimitExceededError(f"variations nested deeper than {MAX_DEPTH}")
        payload = self.scheme.encode(position.copy(), line.moves).tobytes()
        self.m.plies.write(self.w, len(line.moves))
        self.m.size.write(self.w, len(payload))
        for byte in payload:
            self.w.uniform(byte, 256)
        self.comments(line.comments)
        self.steps(position.copy(), line.moves, line.steps, "a variation")
        self.depth -= 1


def write_section(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], notes: Notes[Any], tags: dict[str, str]
) -> bytes:
    """The record section of a full-fidelity container: the tags and everything in ``notes``.

    ``moves`` are the mainline (legal, played from ``start``, which is not changed); variations are coded
    with ``scheme`` from the position where they branch.

    :raises InvalidRecordError: if ``notes`` does not fit ``moves`` (a step count that is neither 0 nor the
        number of moves) or holds text that UTF-8 cannot store.
    :raises LimitExceededError: if a text, count or number is over the section's limits.
    """
    writer = _SectionWriter(scheme)
    writer.tags(tags)
    writer.comments(notes.comments)
    writer.result(notes.result)
    writer.steps(start.copy(), moves, notes.steps, "the mainline")
    return bytes([SECTION_VERSION]) + writer.w.finish()


class _SectionReader:
    def __init__(self, scheme: AnyScheme, data: bytes, max_plies: int, version: int) -> None:
        self.scheme = scheme
        self.r = _Reader(data)
        self.m = _Models()
        self.plies_left = max_plies
        """Variation plies the section may still hold."""
        self.version = version
        self.depth = 0

    def tags(self) -> dict[str, str]:
        count = self.m.count.read_at_most(self.r, MAX_TAGS, "tag count")
        tags: dict[str, str] = {}
        for _ in range(count):
            key = self.m.text.read(self.r, "tag name")
            if key in tags:
                raise InvalidDataError(f"tag {key!r} appears twice")
            tags[key] = self.m.text.read(self.r, f"tag {key!r} value")
        return tags

    def comments(self) -> list[Comment]:
        count = self.m.count.read_at_most(self.r, MAX_COUNT, "comment count")
        comments = []
        for _ in range(count):
            line = bool(self.r.bit(self.m.flags, _F_LINE_COMMENT))
            comments.append(Comment(self.m.text.read(self.r, "comment"), line))
        return comments

    def result(self) -> str | None:
        if not self.r.bit(self.m.flags, _F_RESULT):
            return None
        if self.r.bit(self.m.flags, _F_RESULT_KNOWN):
            return RESULTS[self.r.uniform(len(RESULTS))]
        result = self.m.text.read(self.r, "result")
        if result in RESULTS:
            raise InvalidDataError(f"result {result!r} coded as text")
        return result

    def steps(self, position: Position[Any], moves: Sequence[Any]) -> list[Step[Any]]:
        if not self.r.bit(self.m.flags, _F_STEPS):
            return []
        steps = []
        for move in moves:
            steps.append(self.step(position))
            position.push(move)
        return steps

    def step(self, position: Position[Any]) -> Step[Any]:
        step: Step[Any] = Step()
        if self.r.bit(self.m.flags, _F_NAGS):
            count = self.m.count.read_at_most(self.r, MAX_COUNT - 1, "NAG count") + 1
            step.nags = [self.m.nag.read(self.r) for _ in range(count)]
        if self.r.bit(self.m.flags, _F_COMMENTS):
            step.comments = self.comments()
            if not step.comments:
                raise InvalidDataError("a step's comments flag is set but it has none")
        if self.r.bit(self.m.flags, _F_VARIATIONS):
            count = self.m.count.read_at_most(self.r, MAX_COUNT - 1, "variation count") + 1
            step.variations = [self.line(position) for _ in range(count)]
        return step

    def line(self, position: Position[Any]) -> Line[Any]:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise InvalidDataError(f"variations nested deeper than {MAX_DEPTH}")
        plies = self.m.plies.read_at_most(self.r, self.plies_left, "variation plies (beyond the ply limit)")
        self.plies_left -= plies
        size = self.m.size.read_at_most(self.r, len(self.r.dec.data), "variation payload size")
        payload = bytes(self.r.uniform(256) for _ in range(size))
        moves = self.scheme.decode(position.copy(), payload, plies, self.version)
        line: Line[Any] = Line(moves=moves, comments=self.comments())
        line.steps = self.steps(position.copy(), moves)
        self.depth -= 1
        return line


def read_section(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], data: bytes, *, max_plies: int,
    version: int | None = None,
) -> tuple[Notes[Any], dict[str, str]]:
    """The notes and tags of a record section that :func:`write_section` made for ``moves`` played from ``start``
    (not changed); ``version`` is the scheme version of the container (default: ``scheme.version``), under
    which its variations are decoded, and at most ``max_plies`` variation plies are read.

    :raises InvalidDataError: on anything that is not a section :func:`write_section` made.
    """
    if not data:
        raise InvalidDataError("empty record section")
    if data[0] != SECTION_VERSION:
        raise InvalidDataError(f"record section version {data[0]} is not supported (this build reads {SECTION_VERSION})")
    reader = _SectionReader(scheme, data[1:], max_plies, scheme.version if version is None else version)
    try:
        tags = reader.tags()
        notes: Notes[Any] = Notes(comments=reader.comments(), result=reader.result())
        notes.steps = reader.steps(start.copy(), moves)
        reader.r.finish()
    except InvalidDataError as err:
        raise InvalidDataError(f"{err.reason}", ply=err.ply) from None
    return notes, tags
