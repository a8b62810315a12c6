"""The record section of a full-fidelity container: a record's tags and everything beside its mainline moves
(comments, NAGs, variations, the result token), range-coded with adaptive binary models.

The layout is documented in docs/format.md: a version byte, then one range-coded stream
(:mod:`plybits.rangecoder`) of binary decisions. Every model starts afresh in each section (from the priors of
:mod:`plybits.recorddictionary`), so a section needs nothing but its container's game to be read.

Comments are split into the commands that are numbers (``[%clk]``, ``[%emt]``, ``[%eval]``, only where
writing the number back gives the exact text) and a skeleton, the rest of the text, which a small cache
of the skeletons seen earlier codes in a fraction of a bit. A clock is predicted from its side's last
clock plus the increment of the ``TimeControl`` tag; an evaluation from the last one. Variations are coded
with the container's own scheme from the position where they branch.

Reading and writing share one description of the layout (:class:`_Section`, its models and value coders):
each is given the value to write (a writer codes it and returns it) or a placeholder (a reader returns what
it decodes); only the walk over steps and lines has a writer's and a reader's side. The binary coding itself
(adaptive bits, numbers, text) is :mod:`plybits.recordcoder`, compiled.

Every record has exactly one section. Where a record could be coded in two ways (a typed tag value as text, a
date in full that is the last one, a comment's commands as text, ...), the reader checks each choice as it
decodes it against the one a writer makes for the value it decoded, and the range decoder demands the bytes a
writer writes for the decisions read: so a section is read only if writing what it holds gives it back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from plybits import recorddictionary as dictionary
from plybits.annotations import Comment, Line, Notes, Step
from plybits.container import MAX_TAGS
from plybits.deadline import check as check_deadline
from plybits.errors import DeadlineExceededError, InvalidDataError, InvalidRecordError, LimitExceededError, PlybitsError
from plybits.game import Position
from plybits.recordcoder import (
    MAX_NUMBER_BITS, MAX_TEXT, Bits, Coder, Number, Reader, Signed, Text, Tree, Writer, byte_tree, from_utf8, utf8,
)
from plybits.registry import AnyScheme

SECTION_VERSION = 1
"""The layout version written as the section's first byte (it names the dictionary version too)."""
MAX_COUNT = 1 << 16
"""Most comments or NAGs a step may hold, or variations a step may branch into."""
MAX_DEPTH = 64
"""Deepest nesting of variations (a variation of the mainline is at depth 1)."""
MAX_SKELETON_PARTS = 256
"""Most parts (texts and commands) of one comment's skeleton: a comment with more is kept as one text."""
SKELETON_CACHE = 64
"""Skeletons the cache remembers (the most recently used)."""
MAX_CLOCK_MS = 1000 * 3600 * 1000
"""Clocks and elapsed times of 1,000 hours or more stay text."""
MAX_EVAL = 100_000
"""Evaluations of more than 100,000 pawns, or mates in more than 100,000, are not read (written, they stay text)."""

YEAR_ORIGIN = 2025
"""Dates are coded as years before this one."""

TOPICS = ("tags", "clock", "eval", "comment", "nag", "variation", "structure")
"""What :func:`section_costs` accounts bits to."""


_WORDED_RE = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
"""A run of letters: what a dictionary word is (an apostrophe inside, as in ``King's``, included)."""
_WORD_INDEX = {word: i for i, word in enumerate(dictionary.WORDS)}
_PIECE_END, _PIECE_WORD, _PIECE_BYTE = range(3)
_WORD_PIECE = 256
"""A word's piece (:func:`_pieces`) is this plus its index; a byte's is the byte."""
_WORD_BYTES = tuple(word.encode("utf-8") for word in dictionary.WORDS)


class _Words:
    """Text as pieces: a word of the dictionary (by index) or a UTF-8 byte (a :class:`Text`'s tree), until an end.

    A word is coded as a word exactly where a whole run of letters (apostrophes within it included) is one."""

    __slots__ = ("piece", "index", "text")

    def __init__(self, text: Text, piece: Tree | None = None, index: Number | None = None) -> None:
        self.piece = Tree(2, 3) if piece is None else piece
        self.index = Number() if index is None else index
        self.text = text

    def copy(self) -> _Words:
        return _Words(self.text, self.piece.copy(), self.index.copy())

    def code(self, c: Coder, text: str = "", what: str = "text") -> str:
        """:raises InvalidDataError: (reading) on pieces a writer would not code for the text they make."""
        raw = utf8(text, what) if c.writing else b""
        pieces = _pieces(text) if c.writing else []
        decoded: list[int] = []
        out = bytearray()
        previous = 0
        for i in range(len(raw) + 1 if c.writing else MAX_TEXT + 1):
            piece = pieces[i] if i < len(pieces) else -1
            kind = _PIECE_END if piece < 0 else _PIECE_BYTE if piece < _WORD_PIECE else _PIECE_WORD
            value = piece - _WORD_PIECE if piece >= _WORD_PIECE else max(piece, 0)
            kind = self.piece.code(c, kind, previous)
            if kind == _PIECE_END:
                break
            if kind > _PIECE_BYTE or i == MAX_TEXT:
                raise InvalidDataError(f"{what}: piece of kind {kind} or more than {MAX_TEXT} pieces")
            if kind == _PIECE_WORD:
                value = self.index.at_most(c, len(dictionary.WORDS) - 1, "word", value)
                out += _WORD_BYTES[value]
                decoded.append(_WORD_PIECE + value)
            else:
                value = self.text.byte(c, value)
                out.append(value)
                decoded.append(value)
            previous = kind
        if c.writing and out == raw:  # as a writer codes it (a coder may code other pieces than it is given)
            return text
        text = from_utf8(bytes(out), what)
        if not c.writing and (len(out) > MAX_TEXT or _pieces(text) != decoded):
            raise InvalidDataError(f"{what} {text!r} is not coded in the pieces a writer codes it in")
        return text


def _pieces(text: str) -> list[int]:
    """How :class:`_Words` codes ``text``: its pieces, each a UTF-8 byte or :data:`_WORD_PIECE` plus a word's index."""
    pieces: list[int] = []
    pos = 0
    for match in _WORDED_RE.finditer(text):
        index = _WORD_INDEX.get(match.group(), -1)
        if index >= 0:
            start = match.start()
            if start > pos:
                pieces.extend(text[pos:start].encode("utf-8"))
            pieces.append(_WORD_PIECE + index)
            pos = match.end()
    pieces.extend(text[pos:].encode("utf-8"))
    return pieces


# ---------------------------------------------------------------------------------------------------- values

_ID62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ID62_INDEX = {char: i for i, char in enumerate(_ID62)}
_ID_RE = re.compile(r"[0-9A-Za-z]{1,64}")
_DECIMAL_RE = re.compile(r"0|[1-9][0-9]{0,11}")
_DATE_RE = re.compile(r"(?:[0-9]{4}|\?\?\?\?)\.(?:0[1-9]|1[0-2]|\?\?)\.(?:0[1-9]|[12][0-9]|3[01]|\?\?)")
"""A date a writer codes as one: a year (or ``????``), a month 01 to 12 and a day 01 to 31 (or ``??``)."""
_TIME_RE = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})")
_SIGNED_RE = re.compile(r"\+0|[+-][1-9][0-9]{0,5}")
"""A rating change as lichess writes it: ``+6``, ``-6``, ``+0``."""
_TIME_CONTROL_RE = re.compile(r"([1-9][0-9]{0,6})\+(0|[1-9][0-9]{0,5})")
_ECO_RE = re.compile(r"[A-E][0-9]{2}")
_CLOCK_RE = re.compile(r"([0-9]{1,4}):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]{1,3}))?")
_PAWNS_RE = re.compile(r"-?([0-9]{1,4})\.([0-9]{1,2})")
_MATE_RE = re.compile(r"#-?[1-9][0-9]{0,4}")
_COMMAND_RE = re.compile(r"\[%(clk|emt|eval) ([^\[\]]*)\]")

_NAME_INDEX = {name: i for i, name in enumerate(dictionary.TAG_NAMES)}
_REST_NONE, _REST_DECIMAL, _REST_ID, _REST_TEXT = range(4)


def _decimal(text: str) -> int | None:
    """``text`` as a number if it is written as :func:`str` writes it (ASCII digits, no leading zero)."""
    return int(text) if _DECIMAL_RE.fullmatch(text) else None


def _clock_value(text: str) -> tuple[int, int] | None:
    """``(milliseconds, fraction digits)`` of ``H:MM:SS[.f]`` if :func:`_clock_text` writes it back exactly."""
    match = _CLOCK_RE.fullmatch(text)
    if match is None:
        return None
    h, m, s, fraction = match.groups()
    digits = len(fraction) if fraction else 0
    ms = ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + (int(fraction) * 10 ** (3 - digits) if fraction else 0)
    if ms >= MAX_CLOCK_MS or _clock_text(ms, digits) != text:
        return None
    return ms, digits


def _clock_text(ms: int, digits: int) -> str:
    seconds, fraction = divmod(ms, 1000)
    text = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{fraction // 10 ** (3 - digits):0{digits}d}" if digits else text


def _eval_value(text: str) -> tuple[bool, int, int] | None:
    """``(mate, value, fraction digits)`` of ``[-]P.pp`` (value in hundredths) or ``#[-]N``, if written back exactly."""
    if _MATE_RE.fullmatch(text):
        return True, int(text[1:]), 0
    match = _PAWNS_RE.fullmatch(text)
    if match is None:
        return None
    digits = len(match.group(2))
    value = (int(match.group(1)) * 100 + int(match.group(2)) * 10 ** (2 - digits)) * (-1 if text[0] == "-" else 1)
    if abs(value) > MAX_EVAL * 100 or _eval_text(False, value, digits) != text:
        return None
    return False, value, digits


def _eval_text(mate: bool, value: int, digits: int) -> str:
    if mate:
        return f"#{value}"
    sign = "-" if value < 0 else ""
    units = abs(value) // 10 ** (2 - digits)
    return f"{sign}{units // 10 ** digits}.{units % 10 ** digits:0{digits}d}"


_SUCCESSOR_INDICES = {last: tuple(_NAME_INDEX[name] for name in names) for last, names in dictionary.SUCCESSORS.items()}
""":data:`recorddictionary.SUCCESSORS` as indices in :data:`recorddictionary.TAG_NAMES`."""


def _unused_successors(used: list[int], last: str) -> int:
    """How many of :data:`recorddictionary.SUCCESSORS` of ``last`` are unused (``used`` is 0 for them)."""
    count = 0
    for index in _SUCCESSOR_INDICES.get(last, ()):
        if not used[index]:
            count += 1
    return count


def _walk_names(used: list[int], last: str, index: int, rank: int) -> tuple[int, int]:
    """The known tag name ``index`` with its rank, or the one of rank ``rank`` with its index (the other argument
    is -1), among the unused names (indices in :data:`recorddictionary.TAG_NAMES` that ``used`` holds 0 for) in the
    order their rank codes them after ``last``: the unused ones of :data:`recorddictionary.SUCCESSORS`, in its
    order, then the others in ``TAG_NAMES`` order from the one after ``last`` on, then from the start; ``(-1, -1)``
    if there is none."""
    successors = _SUCCESSOR_INDICES.get(last, ())
    found = found_rank = -1
    n = 0
    for j in successors:
        if not used[j]:
            if found < 0 and (j == index or n == rank):
                found, found_rank = j, n
            used[j] = 2  # listed: passed over among the others
            n += 1
    count = len(used)
    after = _NAME_INDEX.get(last, -1) + 1
    for step in range(count if found < 0 else 0):
        j = after + step
        if j >= count:
            j -= count
        if not used[j]:
            if j == index or n == rank:
                found, found_rank = j, n
                break
            n += 1
    for j in successors:
        if used[j] == 2:
            used[j] = 0
    return found, found_rank


def _prefix_buckets(prefixes: Sequence[str]) -> dict[str, list[tuple[str, int]]]:
    """``prefixes`` by their first character (the empty one under ``""``), each bucket's prefixes with their index,
    longest first and the first of the longest before the others of its length."""
    buckets: dict[str, list[tuple[str, int]]] = {}
    for i, prefix in enumerate(prefixes):
        buckets.setdefault(prefix[:1], []).append((prefix, i))
    for bucket in buckets.values():
        bucket.sort(key=lambda entry: (-len(entry[0]), entry[1]))
    return buckets


_PREFIX_BUCKETS = {name: _prefix_buckets(prefixes) for name, prefixes in dictionary.PREFIXES.items()}
""":func:`_prefix_buckets` of each tag's :data:`recorddictionary.PREFIXES`."""


def _prefix_index(name: str, value: str) -> int:
    """The index of the longest of tag ``name``'s prefixes that ``value`` starts with (the first of the longest).

    Only the prefixes that begin with ``value``'s first character can be longer than the empty one.

    :raises ValueError: if it starts with none (every tag's prefixes hold the empty one).
    """
    buckets = _PREFIX_BUCKETS[name]
    for prefix, index in buckets.get(value[:1], ()) if value else ():
        if value.startswith(prefix):
            return index
    empty = buckets.get("")
    if empty is None:
        raise ValueError(f"{value!r} starts with none of the prefixes")
    return empty[0][1]


def _rest_kind(rest: str) -> int:
    """How the rest of a value after its prefix is coded."""
    if not rest:
        return _REST_NONE
    if _decimal(rest) is not None:
        return _REST_DECIMAL
    if _ID_RE.fullmatch(rest):
        return _REST_ID
    return _REST_TEXT


_TYPED_KINDS = (dictionary.DATE, dictionary.TIME, dictionary.ELO, dictionary.RATING_DIFF, dictionary.TIME_CONTROL,
                dictionary.ECO, dictionary.RESULT, dictionary.FINAL_FEN, dictionary.PLY_COUNT, dictionary.PREFIXED)
"""The typed tag values, in the order of their contexts of the ``typed`` flag (:meth:`_Section.typed_value`)."""
_KIND_TEXT, _KIND_WORDED = -1, -2


def _kind_of(name: str) -> int:
    """How tag ``name``'s value is coded: :data:`_KIND_TEXT`, :data:`_KIND_WORDED` or the index of a typed kind."""
    kind = dictionary.TAG_KINDS.get(name, dictionary.PREFIXED if name in dictionary.PREFIXES else dictionary.TEXT)
    return _KIND_TEXT if kind == dictionary.TEXT else _KIND_WORDED if kind == dictionary.WORDED else _TYPED_KINDS.index(kind)


_TAG_KIND = {name: _kind_of(name) for name in (*dictionary.TAG_KINDS, *dictionary.PREFIXES)}
""":func:`_kind_of` of every tag name whose value is not text."""
_VALUE_WHAT = {name: f"tag {name!r} value" for name in dictionary.TAG_NAMES}
_PREFIX_WHAT = {name: f"tag {name!r} prefix" for name in dictionary.PREFIXES}


def _value_what(name: str) -> str:
    """What a tag value is called in errors (made once for the known names)."""
    what = _VALUE_WHAT.get(name)
    return f"tag {name!r} value" if what is None else what


class _Priors:
    """Every adaptive model of the record section at its priors, which say what is usual: built once
    (:func:`_priors`), copied by each section's :class:`_Models`."""

    def __init__(self) -> None:
        self.flags = Bits(64)
        self.count = Number(8)
        self.text = Text(byte_tree(dictionary.byte_weights()))
        self.comment_text = Text(byte_tree(dictionary.byte_weights()))
        self.words = _Words(self.text)
        self.tag_name = Number(2)
        self.typed = Bits(16)
        self.small = Number(16)
        self.signed = Signed(16)
        self.rest = Tree(2, 3)
        self.prefix = Number()
        self.ids = Number()
        self.nag = Tree(8)
        self.skeleton_index = Number(2)
        self.part = Tree(2, 4)
        self.precision = Tree(2, 5)
        self.clock = Signed(32, shared=True)
        self.emt = Number(13)
        self.eval = Signed(14)
        self.mate = Signed(2)
        self.plies = Number()
        self.size = Number()
        flags = self.flags
        for ctx, zero in _FLAG_PRIORS:
            flags.prior(ctx, zero)
        for ctx in range(16):
            self.typed.prior(ctx, 60)
        # what follows a prefix: after none, text; after a URL's "/", an identifier; after a whole value, nothing
        for node, zero in ((1, 8), (3, 8), (4 + 1, 8), (4 + 3, 56), (8 + 1, 60), (8 + 2, 60)):
            self.rest.bits.prior(node, zero)
        self.tag_name.unary.prior(MAX_NUMBER_BITS, 56)  # the first successor
        for j, zero in enumerate((8, 8, 16, 40)):  # a tag's text (a name, say) is of 7 to 14 bytes
            self.text.length.unary.prior(j, zero)
        count = self.count  # a step has as many comments as the one before (none: context 0, one: context 1)
        count.unary.prior(0, 60, 4)
        for ctx in (1, 2, 3):
            count.unary.prior(ctx * MAX_NUMBER_BITS, 4, 4)
            count.unary.prior(ctx * MAX_NUMBER_BITS + 1, 60, 4)
            count.mantissa.prior((ctx * MAX_NUMBER_BITS + 1) * 2, 60, 4)
        for ctx in range(32):  # a clock: time spent near the same side's last (its bit length is the context)
            self.clock.sign.prior(ctx, 56)
            last = (ctx & 15) - 1
            for j in range(MAX_NUMBER_BITS):
                self.clock.magnitude.unary.prior(ctx * MAX_NUMBER_BITS + j,
                       32 if last < 0 else 13 if j < last - 1 else 32 if j <= last else 48, 1)


_PRIORS: list[_Priors] = []


def _priors() -> _Priors:
    """The models at their priors, built when first asked for."""
    if not _PRIORS:
        _PRIORS.append(_Priors())
    return _PRIORS[0]


class _Models:
    """Every adaptive model of one section, fresh for each: a copy of its prior (:class:`_Priors`), made on its
    first use (a section of tags only copies none of the comment models)."""

    def __init__(self) -> None:
        self.priors = _priors()
        self._flags_copy: Bits | None = None
        self._count_copy: Number | None = None
        self._text_copy: Text | None = None
        self._comment_text_copy: Text | None = None
        self._words_copy: _Words | None = None
        self._tag_name_copy: Number | None = None
        self._typed_copy: Bits | None = None
        self._small_copy: Number | None = None
        self._signed_copy: Signed | None = None
        self._rest_copy: Tree | None = None
        self._prefix_copy: Number | None = None
        self._ids_copy: Number | None = None
        self._nag_copy: Tree | None = None
        self._skeleton_index_copy: Number | None = None
        self._part_copy: Tree | None = None
        self._precision_copy: Tree | None = None
        self._clock_copy: Signed | None = None
        self._emt_copy: Number | None = None
        self._eval_copy: Signed | None = None
        self._mate_copy: Signed | None = None
        self._plies_copy: Number | None = None
        self._size_copy: Number | None = None

    @property
    def flags(self) -> Bits:
        model = self._flags_copy
        if model is None:
            model = self._flags_copy = self.priors.flags.copy()
        return model

    @property
    def count(self) -> Number:
        model = self._count_copy
        if model is None:
            model = self._count_copy = self.priors.count.copy()
        return model

    @property
    def text(self) -> Text:
        model = self._text_copy
        if model is None:
            model = self._text_copy = self.priors.text.copy()
        return model

    @property
    def comment_text(self) -> Text:
        model = self._comment_text_copy
        if model is None:
            model = self._comment_text_copy = self.priors.comment_text.copy()
        return model

    @property
    def words(self) -> _Words:
        model = self._words_copy
        if model is None:
            model = self._words_copy = self.priors.words.copy()
            model.text = self.text  # a word's bytes are coded with the section's own text model
        return model

    @property
    def tag_name(self) -> Number:
        model = self._tag_name_copy
        if model is None:
            model = self._tag_name_copy = self.priors.tag_name.copy()
        return model

    @property
    def typed(self) -> Bits:
        model = self._typed_copy
        if model is None:
            model = self._typed_copy = self.priors.typed.copy()
        return model

    @property
    def small(self) -> Number:
        model = self._small_copy
        if model is None:
            model = self._small_copy = self.priors.small.copy()
        return model

    @property
    def signed(self) -> Signed:
        model = self._signed_copy
        if model is None:
            model = self._signed_copy = self.priors.signed.copy()
        return model

    @property
    def rest(self) -> Tree:
        model = self._rest_copy
        if model is None:
            model = self._rest_copy = self.priors.rest.copy()
        return model

    @property
    def prefix(self) -> Number:
        model = self._prefix_copy
        if model is None:
            model = self._prefix_copy = self.priors.prefix.copy()
        return model

    @property
    def ids(self) -> Number:
        model = self._ids_copy
        if model is None:
            model = self._ids_copy = self.priors.ids.copy()
        return model

    @property
    def nag(self) -> Tree:
        model = self._nag_copy
        if model is None:
            model = self._nag_copy = self.priors.nag.copy()
        return model

    @property
    def skeleton_index(self) -> Number:
        model = self._skeleton_index_copy
        if model is None:
            model = self._skeleton_index_copy = self.priors.skeleton_index.copy()
        return model

    @property
    def part(self) -> Tree:
        model = self._part_copy
        if model is None:
            model = self._part_copy = self.priors.part.copy()
        return model

    @property
    def precision(self) -> Tree:
        model = self._precision_copy
        if model is None:
            model = self._precision_copy = self.priors.precision.copy()
        return model

    @property
    def clock(self) -> Signed:
        model = self._clock_copy
        if model is None:
            model = self._clock_copy = self.priors.clock.copy()
        return model

    @property
    def emt(self) -> Number:
        model = self._emt_copy
        if model is None:
            model = self._emt_copy = self.priors.emt.copy()
        return model

    @property
    def eval(self) -> Signed:
        model = self._eval_copy
        if model is None:
            model = self._eval_copy = self.priors.eval.copy()
        return model

    @property
    def mate(self) -> Signed:
        model = self._mate_copy
        if model is None:
            model = self._mate_copy = self.priors.mate.copy()
        return model

    @property
    def plies(self) -> Number:
        model = self._plies_copy
        if model is None:
            model = self._plies_copy = self.priors.plies.copy()
        return model

    @property
    def size(self) -> Number:
        model = self._size_copy
        if model is None:
            model = self._size_copy = self.priors.size.copy()
        return model


_F_MORE_TAGS, _F_DATE_SAME, _F_COMMON_TC, _F_RESULT_SAME, _F_LINE_COMMENT = 0, 1, 3, 4, 5
_F_STEPS = 6  # +1 in a variation
_F_EVAL_MATE = 8  # +1 after a mate
_F_EVAL_SHORT = 10  # +1 when the last one was short
_F_NAGS = 12  # +0..7: the swing of the step's evaluation
_F_NAG_BIG = 20
_F_VARIATIONS = 21
_F_EVAL_PART = 22
_F_DATE_UNKNOWN_YEAR = 23
_F_NAME_OTHER = 24
_F_ID_NOT_8 = 25
"""Whether an identifier (after a prefix) is not of 8 characters, as lichess's game and tournament ids are."""
_FLAG_PRIORS = ((_F_MORE_TAGS, 4), (_F_DATE_SAME, 8), (_F_COMMON_TC, 56), (_F_RESULT_SAME, 60), (_F_LINE_COMMENT, 60),
                (_F_NAGS, 60), (_F_NAG_BIG, 62), (_F_VARIATIONS, 62), (_F_EVAL_MATE, 60), (_F_EVAL_MATE + 1, 8),
                (_F_DATE_UNKNOWN_YEAR, 60), (_F_NAME_OTHER, 60), (_F_ID_NOT_8, 56))
"""The flags whose first probability of a 0 is not one half: (flag, 64ths)."""


class _State:
    """What the coder predicts from: the tags, the clocks and evaluations so far, the skeletons seen."""

    def __init__(self, final: _Final, plies: int) -> None:
        self.final = final
        self.plies = plies
        self.tags: dict[str, str] = {}
        self.last_date: str | None = None
        self.base_ms: int | None = None
        self.increment_ms = 0
        self.clock: list[int | None] = [None, None]
        self.spent = [0, 0]
        self.emt = [0, 0]
        self.precision = 4
        self.eval_mate = False
        self.eval_value = 0
        self.eval_swing = 0
        self.eval_short = 0
        self.step_swing = -1
        """The change of the evaluation in the comments of the step being coded (-1: none)."""
        self.skeletons: list[tuple[str | int, ...]] = list(dictionary.SKELETONS)

    def nag_context(self) -> int:
        """The flag telling whether a step has NAGs: by how far its evaluation moved (none, or its bit length / 2)."""
        swing = self.step_swing
        return _F_NAGS + (0 if swing < 0 else 1 + min(swing.bit_length() // 2, 6))


class _Section:
    """The layout of a section, for a writer and a reader alike."""

    def __init__(self, c: Coder, scheme: AnyScheme, state: _State) -> None:
        self.c = c
        self.m = _Models()
        self.scheme = scheme
        self.s = state

    # ------------------------------------------------------------------------------------------------ tags

    def tags(self, tags: dict[str, str]) -> dict[str, str]:
        c, m = self.c, self.m
        c.topic = "tags"
        names = list(tags) if c.writing else []
        if len(names) > MAX_TAGS:
            raise LimitExceededError(f"{len(names)} tags, at most {MAX_TAGS} allowed")
        used = [0] * len(dictionary.TAG_NAMES)
        last = ""
        out: dict[str, str] = {}
        for i in range(MAX_TAGS + 1):
            if not c.bit(m.flags, _F_MORE_TAGS, int(i < len(names))):
                break
            if i == MAX_TAGS:
                raise InvalidDataError(f"more than {MAX_TAGS} tags")
            name = last = self.tag_name(names[i] if c.writing else "", used, last)
            if name in out:
                raise InvalidDataError(f"tag {name!r} appears twice")
            out[name] = self.s.tags[name] = self.tag_value(name, tags[name] if c.writing else "")
        return out

    def tag_name(self, name: str, used: list[int], last: str) -> str:
        """A tag name: a bit for a known unused one (``used`` is 1 for the others), then its rank among the unused
        known names in the order :data:`recorddictionary.SUCCESSORS` predicts after ``last`` (:func:`_walk_names`);
        else its text."""
        c, m = self.c, self.m
        index = _NAME_INDEX.get(name, -1) if c.writing else -1
        if c.bit(m.flags, _F_NAME_OTHER, int(c.writing and (index < 0 or used[index]))):
            name = m.text.code(c, name, "tag name")
            index = _NAME_INDEX.get(name, -1)
            if index >= 0 and not used[index]:
                raise InvalidDataError(f"known tag name {name!r} coded as text")
            return name
        successors = _unused_successors(used, last)
        rank = _walk_names(used, last, index, -1)[1] if c.writing else 0
        rank = m.tag_name.at_most(c, used.count(0) - 1, "tag name rank", rank, int(successors > 0))
        index = _walk_names(used, last, -1, rank)[0] if not c.writing else index
        used[index] = 1
        return dictionary.TAG_NAMES[index]

    def tag_value(self, name: str, value: str) -> str:
        """:raises InvalidDataError: (reading) on a value coded as text that has a type, or the other way round."""
        c, m = self.c, self.m
        kind = _TAG_KIND.get(name, _KIND_TEXT)
        what = _value_what(name)
        if kind == _KIND_TEXT:
            return m.text.code(c, value, what)
        if kind == _KIND_WORDED:
            return m.words.code(c, value, what)
        typed = not c.writing or self.typed_value(kind, value, True, name) is not None
        if c.bit(m.typed, kind, int(not typed)):
            value = m.text.code(c, value, what)
            typed = False
        else:
            value = self.typed_value(kind, value, False, name) or ""
            typed = True
        if not c.writing and (self.typed_value(kind, value, True, name) is not None) != typed:
            raise InvalidDataError(f"tag {name!r} value {value!r} coded {'with' if typed else 'without'} its type")
        return value

    def typed_value(self, kind: int, value: str, check: bool, name: str) -> str | None:
        """The value coder of typed kind ``kind`` (:data:`_TYPED_KINDS`): it checks (``check``) or codes ``value``."""
        if kind == 0:
            return self.value_date(value, check, name)
        if kind == 1:
            return self.value_time(value, check, name)
        if kind == 2:
            return self.value_elo(value, check, name)
        if kind == 3:
            return self.value_diff(value, check, name)
        if kind == 4:
            return self.value_timecontrol(value, check, name)
        if kind == 5:
            return self.value_eco(value, check, name)
        if kind == 6:
            return self.value_result(value, check, name)
        if kind == 7:
            return self.value_final_fen(value, check, name)
        if kind == 8:
            return self.value_ply_count(value, check, name)
        return self.value_prefixed(value, check, name)

    def value_date(self, value: str, check: bool = False, name: str = "") -> str | None:
        c, m = self.c, self.m
        if check:
            return value if _DATE_RE.fullmatch(value) else None
        last = self.s.last_date
        if last is not None and c.bit(m.flags, _F_DATE_SAME, int(value == last)):
            return last
        parts = value.split(".") if c.writing else ["????", "??", "??"]
        year = 0
        if not c.bit(m.flags, _F_DATE_UNKNOWN_YEAR, int(parts[0] == "????")):
            year = 1 + YEAR_ORIGIN - m.signed.code(c, YEAR_ORIGIN - int(parts[0]) if parts[0] != "????" else 0, 2)
            if not 0 < year <= 10_000:
                raise InvalidDataError(f"year {year - 1} of a date")
        month = c.uniform(13, 0 if parts[1] == "??" else int(parts[1]))
        day = c.uniform(32, 0 if parts[2] == "??" else int(parts[2]))
        text = ".".join(["????" if year == 0 else f"{year - 1:04d}", "??" if month == 0 else f"{month:02d}",
                         "??" if day == 0 else f"{day:02d}"])
        if text == last:
            raise InvalidDataError(f"date {text} is the last date but coded in full")
        self.s.last_date = text
        return text

    def value_time(self, value: str, check: bool = False, name: str = "") -> str | None:
        c = self.c
        match = _TIME_RE.fullmatch(value)
        if check:
            return value if match and int(match.group(1)) < 24 and int(match.group(2)) < 60 and int(
                match.group(3)) < 60 else None
        h, mi, s = [int(g) for g in match.groups()] if match else [0, 0, 0]
        h, mi, s = c.uniform(24, h), c.uniform(60, mi), c.uniform(60, s)
        return f"{h:02d}:{mi:02d}:{s:02d}"

    def value_elo(self, value: str, check: bool = False, name: str = "") -> str | None:
        c, m = self.c, self.m
        number = _decimal(value)
        if check:
            return value if number is not None and number < 4096 else None
        other = _decimal(self.s.tags.get("WhiteElo" if name == "BlackElo" else "BlackElo", "x"))
        if other is not None and other < 4096:
            elo = other + m.signed.code(c, (number or 0) - other, 0)
        else:
            elo = c.uniform(4096, number or 0)
        if not 0 <= elo < 4096:
            raise InvalidDataError(f"Elo {elo}")
        return str(elo)

    def value_diff(self, value: str, check: bool = False, name: str = "") -> str | None:
        c, m = self.c, self.m
        if check:
            return value if _SIGNED_RE.fullmatch(value) else None
        other = self.s.tags.get("WhiteRatingDiff" if name == "BlackRatingDiff" else "BlackRatingDiff", "x")
        prediction = -int(other) if _SIGNED_RE.fullmatch(other) else 0
        diff = prediction + m.signed.code(c, int(value) - prediction if c.writing else 0, 1)
        return f"{diff:+d}"

    def value_timecontrol(self, value: str, check: bool = False, name: str = "") -> str | None:
        c, m = self.c, self.m
        if check:
            return value if _TIME_CONTROL_RE.fullmatch(value) else None
        common = dictionary.TIME_CONTROLS
        if c.bit(m.flags, _F_COMMON_TC, int(value not in common)):
            base, increment = [int(n) for n in value.split("+")] if c.writing else [0, 0]
            base = m.small.code(c, base - 1, 1) + 1
            increment = m.small.code(c, increment, 2)
            text = f"{base}+{increment}"
            if text in common:
                raise InvalidDataError(f"time control {text} is common but coded in full")
        else:
            text = common[c.uniform(len(common), common.index(value) if c.writing else 0)]
        base, increment = [int(n) for n in text.split("+")]
        self.s.base_ms, self.s.increment_ms = base * 1000, increment * 1000
        return text

    def value_eco(self, value: str, check: bool = False, name: str = "") -> str | None:
        if check:
            return value if _ECO_RE.fullmatch(value) else None
        code = self.c.uniform(500, ("ABCDE".index(value[0]) * 100 + int(value[1:])) if self.c.writing else 0)
        return f"{'ABCDE'[code // 100]}{code % 100:02d}"

    def value_result(self, value: str, check: bool = False, name: str = "") -> str | None:
        results = dictionary.RESULTS
        if check:
            return value if value in results else None
        return results[self.c.uniform(len(results), results.index(value) if self.c.writing else 0)]

    def value_final_fen(self, value: str, check: bool = False, name: str = "") -> str | None:
        if check:
            return value if value == self.s.final.fen() else None
        return self.s.final.fen()

    def value_ply_count(self, value: str, check: bool = False, name: str = "") -> str | None:
        if check:
            return value if value == str(self.s.plies) else None
        return str(self.s.plies)

    def value_prefixed(self, value: str, check: bool = False, name: str = "") -> str | None:
        c, m = self.c, self.m
        if check:
            return value
        prefixes = dictionary.PREFIXES[name]
        index = m.prefix.at_most(c, len(prefixes) - 1, _PREFIX_WHAT[name],
                                 _prefix_index(name, value) if c.writing else 0)
        prefix = prefixes[index]
        rest = value[len(prefix):]
        kind = m.rest.code(c, _rest_kind(rest) if c.writing else _REST_TEXT,
                           0 if not prefix else 1 if prefix.endswith("/") else 2)
        if kind == _REST_NONE:
            rest = ""
        elif kind == _REST_DECIMAL:
            rest = str(m.small.code(c, int(rest) if c.writing else 0, 3))
        elif kind == _REST_ID:
            if c.bit(m.flags, _F_ID_NOT_8, int(len(rest) != 8)):
                length = m.ids.at_most(c, 63, "identifier length", len(rest) - 1) + 1
                if length == 8:
                    raise InvalidDataError("an identifier of 8 characters coded by its length")
            else:
                length = 8
            rest = "".join(_ID62[c.uniform(62, _ID62_INDEX[rest[i]] if c.writing else 0)] for i in range(length))
        else:
            rest = m.text.code(c, rest, _value_what(name))
        if not c.writing and (_prefix_index(name, prefix + rest) != index or _rest_kind(rest) != kind):
            raise InvalidDataError(f"tag {name!r} value {prefix + rest!r} not coded by its longest prefix and kind")
        return prefix + rest

    # ------------------------------------------------------------------------------------------- comments

    def comments(self, comments: Sequence[Comment], ply: int, ctx: int) -> list[Comment]:
        c, m = self.c, self.m
        c.topic = "structure"
        count = m.count.at_most(c, MAX_COUNT, "comment count", len(comments), ctx)
        return [self.comment(comments[i] if c.writing else Comment(""), ply) for i in range(count)]

    def comment(self, comment: Comment, ply: int) -> Comment:
        c, m, s = self.c, self.m, self.s
        c.topic = "comment"
        line = bool(c.bit(m.flags, _F_LINE_COMMENT, int(comment.line)))
        skeleton: tuple[str | int, ...] = ()
        values: list[Any] = []
        if c.writing:
            skeleton, values = _split_comment(comment.text)
        cache = s.skeletons
        index = cache.index(skeleton) if skeleton in cache else len(cache)
        index = m.skeleton_index.at_most(c, len(cache), "skeleton index", index, 0)
        if index == len(cache):
            skeleton = self.skeleton(skeleton)
            if skeleton in cache:
                raise InvalidDataError("a skeleton coded afresh is in the cache")
            if len(cache) == SKELETON_CACHE:
                cache.pop()
        else:
            skeleton = cache.pop(index)
        cache.insert(0, skeleton)
        text = []
        command = 0
        for part in skeleton:
            if isinstance(part, str):
                text.append(part)
                continue
            value = values[command] if c.writing else None
            command += 1
            if part == dictionary.CLK:
                text.append(f"[%clk {self.clock(value, ply)}]")
            elif part == dictionary.EMT:
                text.append(f"[%emt {self.emt(value, ply)}]")
            else:
                text.append(f"[%eval {self.eval(value)}]")
            c.topic = "comment"
        joined = "".join(text)
        if not c.writing and not _split_as(skeleton, joined):
            raise InvalidDataError(f"comment {joined!r} is not coded by the skeleton a writer splits it into")
        return Comment(joined, line)

    def skeleton(self, skeleton: tuple[str | int, ...]) -> tuple[str | int, ...]:
        """A skeleton coded part by part: 0 ends it, 1 is text, 2 a clock, 3 an elapsed time or evaluation."""
        c, m = self.c, self.m
        parts: list[str | int] = []
        previous = 0
        for i in range(MAX_SKELETON_PARTS + 1):
            part = skeleton[i] if c.writing and i < len(skeleton) else None
            kind = 0 if part is None and c.writing else 1 if isinstance(part, str) else 2 if part == dictionary.CLK else 3
            kind = m.part.code(c, kind, previous)
            if kind == 0:
                break
            if i == MAX_SKELETON_PARTS:
                raise InvalidDataError(f"a comment skeleton of more than {MAX_SKELETON_PARTS} parts")
            if kind == 1:
                parts.append(m.comment_text.code(c, part if isinstance(part, str) else "", "comment"))
            elif kind == 2:
                parts.append(dictionary.CLK)
            else:
                parts.append(dictionary.EVAL if c.bit(m.flags, _F_EVAL_PART, int(part == dictionary.EVAL))
                             else dictionary.EMT)
            previous = kind
        return tuple(parts)

    def clock(self, value: tuple[int, int] | None, ply: int) -> str:
        c, m, s = self.c, self.m, self.s
        c.topic = "clock"
        ms, digits = value if value is not None else (0, 0)
        digits = m.precision.code(c, digits, s.precision)
        s.precision = digits
        unit = 10 ** (3 - digits)
        side = ply & 1
        last = s.clock[side]
        if last is None:
            other = s.clock[1 - side]
            prediction = s.base_ms if s.base_ms is not None else other if other is not None else 0
            ctx = 0
        else:
            prediction = last + s.increment_ms
            ctx = 1 + min(((s.spent[side] * 3 + s.spent[1 - side]) // 4).bit_length(), 14)
        ctx += 16 if digits else 0
        spent = m.clock.code(c, prediction // unit - ms // unit, ctx)
        clock = (prediction // unit - spent) * unit
        if not 0 <= clock < MAX_CLOCK_MS:
            raise InvalidDataError(f"clock of {clock} ms")
        s.clock[side] = clock
        s.spent[side] = abs(spent) * unit // 1000
        return _clock_text(clock, digits)

    def emt(self, value: tuple[int, int] | None, ply: int) -> str:
        c, m, s = self.c, self.m, self.s
        c.topic = "clock"
        ms, digits = value if value is not None else (0, 0)
        digits = m.precision.code(c, digits, 4)
        unit = 10 ** (3 - digits)
        side = ply & 1
        elapsed = m.emt.code(c, ms // unit, min(s.emt[side].bit_length(), 12)) * unit
        if elapsed >= MAX_CLOCK_MS:
            raise InvalidDataError(f"elapsed time of {elapsed} ms")
        s.emt[side] = elapsed // 1000
        return _clock_text(elapsed, digits)

    def eval(self, value: tuple[bool, int, int] | None) -> str:
        c, m, s = self.c, self.m, self.s
        c.topic = "eval"
        mate, number, digits = value if value is not None else (False, 0, 2)
        mate = bool(c.bit(m.flags, _F_EVAL_MATE + int(s.eval_mate), int(mate)))
        if mate:
            prediction = s.eval_value if s.eval_mate else 0
            number = prediction + m.mate.code(c, number - prediction, int(s.eval_mate))
            if number == 0 or abs(number) > MAX_EVAL:
                raise InvalidDataError(f"mate in {number}")
            s.eval_mate, s.eval_value = True, number
            return self.eval_checked(True, number, 0)
        prediction = 0 if s.eval_mate else s.eval_value
        delta = m.eval.code(c, number - prediction, min(((abs(prediction) + s.eval_swing) // 2).bit_length(), 13))
        number = prediction + delta
        if abs(number) > MAX_EVAL * 100:
            raise InvalidDataError(f"evaluation of {number} centipawns")
        if number % 10 == 0:
            short = c.bit(m.flags, _F_EVAL_SHORT + s.eval_short, int(digits == 1))
            digits = 1 if short else 2
            s.eval_short = short
        else:
            digits = 2
        s.eval_mate, s.eval_value, s.eval_swing = False, number, abs(delta)
        s.step_swing = abs(delta)
        return self.eval_checked(False, number, digits)

    def eval_checked(self, mate: bool, number: int, digits: int) -> str:
        """The text of an evaluation, checked (reading) to be one a writer codes as a number."""
        text = _eval_text(mate, number, digits)
        if not self.c.writing and _eval_value(text) != (mate, number, digits):
            raise InvalidDataError(f"evaluation {text!r} coded as a number")
        return text

    # ------------------------------------------------------------------------------------- steps and lines

    def result(self, result: str | None) -> str | None:
        c = self.c
        c.topic = "tags"
        tag = self.s.tags.get("Result")
        if c.bit(self.m.flags, _F_RESULT_SAME, int(result != tag)):
            choices: list[str | None] = [None, *dictionary.RESULTS]
            index = c.uniform(len(choices) + 1, choices.index(result) if result in choices else len(choices))
            result = choices[index] if index < len(choices) else self.m.text.code(c, result or "", "result")
            if result == tag or (index == len(choices) and result in choices):
                raise InvalidDataError(f"result {result!r} not coded as a writer codes it")
            return result
        return tag


def _command_value(match: re.Match[str]) -> Any:
    """The value of a comment command (:data:`_COMMAND_RE`), or ``None`` if it stays text."""
    if dictionary.COMMANDS[match.group(1)] == dictionary.EVAL:
        return _eval_value(match.group(2))
    return _clock_value(match.group(2))


def _split_as(skeleton: tuple[str | int, ...], text: str) -> bool:
    """Whether :func:`_split_comment` splits ``text`` (made of ``skeleton``'s parts, each command written back
    from its value) into ``skeleton``: of one text part, as it splits it; else with text parts that are not
    empty, never two in a row, and hold no command that is a number (a command's value written back is read
    back the same: :meth:`_Section.clock`, :meth:`_Section.eval_checked`)."""
    if len(skeleton) == 1 and isinstance(skeleton[0], str):
        return _split_comment(text)[0] == skeleton
    after_text = False
    for part in skeleton:
        if isinstance(part, str):
            if not part or after_text or ("[%" in part and any(
                    _command_value(match) is not None for match in _COMMAND_RE.finditer(part))):
                return False
            after_text = True
        else:
            after_text = False
    return True


def _comment_parts(text: str) -> tuple[tuple[str | int, ...], list[Any]]:
    """A comment's skeleton (literal texts and commands) and the value of each command, in order."""
    parts: list[str | int] = []
    values: list[Any] = []
    pos = 0
    for match in _COMMAND_RE.finditer(text):
        command = dictionary.COMMANDS[match.group(1)]
        value = _command_value(match)
        if value is None:
            continue
        if match.start() > pos:
            parts.append(text[pos:match.start()])
        parts.append(command)
        values.append(value)
        pos = match.end()
    if pos < len(text):
        parts.append(text[pos:])
    if len(parts) > MAX_SKELETON_PARTS:
        return (text,), []
    return tuple(parts), values


_split_comment: Callable[[str], tuple[tuple[str | int, ...], list[Any]]] = _comment_parts
"""How the writer splits a comment, and the reader's check (:func:`_split_as`) with it: :func:`_comment_parts`,
through a variable (not a ``def``), which the compiled module looks up at each call as Python does, so that a
test can stand another splitter in for it in either build."""


class _NotesWriter(_Section):
    def steps(self, start: Position[Any], moves: Sequence[Any], steps: Sequence[Step[Any]], ply: int,
              depth: int) -> None:
        """The steps of a line whose ``moves`` are played from ``start`` (not changed)."""
        c = self.c
        if steps and len(steps) != len(moves):
            raise InvalidRecordError(
                f"{'a variation' if depth else 'the mainline'} has {len(steps)} annotation steps for {len(moves)} moves")
        c.topic = "structure"
        c.bit(self.m.flags, _F_STEPS + min(depth, 1), int(bool(steps)))
        previous = 0
        cursor = _Cursor(start, moves)
        for i, step in enumerate(steps):
            check_deadline(ply + i)
            self.step(cursor, i, step, ply + i, depth, previous)
            previous = min(len(step.comments), 3)

    def step(self, cursor: _Cursor, index: int, step: Step[Any], ply: int, depth: int, previous: int) -> None:
        c, m = self.c, self.m
        if len(step.nags) > MAX_COUNT or len(step.comments) > MAX_COUNT or len(step.variations) > MAX_COUNT:
            raise LimitExceededError(f"a step holds more than {MAX_COUNT} NAGs, comments or variations")
        self.s.step_swing = -1
        self.comments(step.comments, ply, previous)
        c.topic = "nag"
        if c.bit(m.flags, self.s.nag_context(), int(bool(step.nags))):
            m.count.code(c, len(step.nags) - 1, 4)
            for nag in step.nags:
                if c.bit(m.flags, _F_NAG_BIG, int(not 0 <= nag < 256)):
                    m.small.code(c, nag - 256, 4)
                else:
                    m.nag.code(c, nag)
        c.topic = "variation"
        if c.bit(m.flags, _F_VARIATIONS, int(bool(step.variations))):
            m.count.code(c, len(step.variations) - 1, 5)
            branch = cursor.at(index)
            for line in step.variations:
                self.line(branch, line, ply, depth + 1)

    def line(self, position: Position[Any], line: Line[Any], ply: int, depth: int) -> None:
        c, m = self.c, self.m
        if depth > MAX_DEPTH:
            raise LimitExceededError(f"variations nested deeper than {MAX_DEPTH}")
        c.topic = "variation"
        payload = self.scheme.encode(position.copy(), line.moves).tobytes()
        m.plies.code(c, len(line.moves))
        m.size.code(c, len(payload))
        for byte in payload:
            c.uniform(256, byte)
        self.comments(line.comments, ply, 6)
        self.steps(position, line.moves, line.steps, ply, depth)


class _NotesReader(_Section):
    def __init__(self, c: Reader, scheme: AnyScheme, state: _State, max_plies: int, version: int) -> None:
        super().__init__(c, scheme, state)
        self.r = c
        self.plies_left = max_plies
        """Variation plies the section may still hold."""
        self.version = version

    def steps(self, position: Position[Any], moves: Sequence[Any], ply: int, depth: int) -> list[Step[Any]]:
        self.c.topic = "structure"
        if not self.c.bit(self.m.flags, _F_STEPS + min(depth, 1)):
            return []
        if not moves:
            raise InvalidDataError("annotation steps for a line without moves")
        steps = []
        previous = 0
        cursor = _Cursor(position, moves)
        for i in range(len(moves)):
            check_deadline(ply + i)
            step = self.step(cursor, i, ply + i, depth, previous)
            steps.append(step)
            previous = min(len(step.comments), 3)
        return steps

    def step(self, cursor: _Cursor, index: int, ply: int, depth: int, previous: int) -> Step[Any]:
        c, m = self.c, self.m
        self.s.step_swing = -1
        step: Step[Any] = Step(comments=self.comments((), ply, previous))
        if c.bit(m.flags, self.s.nag_context()):
            count = m.count.at_most(c, MAX_COUNT - 1, "NAG count", 0, 4) + 1
            for _ in range(count):
                big = c.bit(m.flags, _F_NAG_BIG)
                step.nags.append(m.small.code(c, 0, 4) + 256 if big else m.nag.code(c))
        if c.bit(m.flags, _F_VARIATIONS):
            count = m.count.at_most(c, MAX_COUNT - 1, "variation count", 0, 5) + 1
            branch = cursor.at(index)
            step.variations = [self.line(branch, ply, depth + 1) for _ in range(count)]
        return step

    def line(self, position: Position[Any], ply: int, depth: int) -> Line[Any]:
        c, m = self.c, self.m
        if depth > MAX_DEPTH:
            raise InvalidDataError(f"variations nested deeper than {MAX_DEPTH}")
        plies = m.plies.at_most(c, self.plies_left, "variation plies (beyond the ply limit)")
        self.plies_left -= plies
        size = m.size.at_most(c, self.r.size, "variation payload size")
        payload = bytes([c.uniform(256) for _ in range(size)])
        try:
            moves = self.scheme.decode(position.copy(), payload, plies, self.version)
        except InvalidDataError as err:
            raise InvalidDataError(f"a variation at ply {ply}: {err}") from None
        if self.scheme.encode(position.copy(), moves).tobytes() != payload:
            raise InvalidDataError(f"a variation at ply {ply} is not coded as the scheme codes its moves")
        line: Line[Any] = Line(moves=moves, comments=self.comments((), ply, 6))
        line.steps = self.steps(position, moves, ply, depth)
        return line


class _Final:
    """The final position's string, worked out only when a tag asks for it (``CurrentPosition``)."""

    def __init__(self, start: Position[Any], moves: Sequence[Any], final: Position[Any] | None) -> None:
        self.start, self.moves, self.final = start, moves, final
        self.text: str | None = None

    def fen(self) -> str:
        if self.text is None:
            if self.final is None:
                self.final = self.start.copy()
                for move in self.moves:
                    self.final.push(move)
            self.text = self.final.fen()
        return self.text


class _Cursor:
    """A line's moves played on a copy of its start only as far as a variation needs a position."""

    def __init__(self, start: Position[Any], moves: Sequence[Any]) -> None:
        self.start, self.moves, self.played = start, moves, 0
        self.position: Position[Any] | None = None
        """The copy of the start the moves are played on, made when a variation first needs it."""

    def at(self, index: int) -> Position[Any]:
        """The position before ``moves[index]``."""
        if self.position is None:
            self.position = self.start.copy()
        position, moves = self.position, self.moves
        for played in range(self.played, index):
            position.push(moves[played])
        self.played = max(self.played, index)
        return position


def _known(state: _State, context: dict[str, str] | None) -> _State:
    """``state`` predicting from ``context``: tags kept outside the section (a dataset's columns), as if it had read
    them (``Result`` for the result token, ``TimeControl`` for the clocks, a date for the next, an Elo for the other)."""
    for name, value in (context or {}).items():
        state.tags[name] = value
        kind = _TAG_KIND.get(name, _KIND_TEXT)
        if kind == _TYPED_KINDS.index(dictionary.TIME_CONTROL) and (match := _TIME_CONTROL_RE.fullmatch(value)):
            state.base_ms, state.increment_ms = int(match[1]) * 1000, int(match[2]) * 1000
        elif kind == _TYPED_KINDS.index(dictionary.DATE) and _DATE_RE.fullmatch(value):
            state.last_date = value
    return state


def _write(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], notes: Notes[Any], tags: dict[str, str],
    costs: dict[str, float] | None = None, final: _Final | None = None, context: dict[str, str] | None = None,
) -> bytes:
    final = final if final is not None else _Final(start, moves, None)
    coder = Writer(costs)
    writer = _NotesWriter(coder, scheme, _known(_State(final, len(moves)), context))
    writer.tags(tags)
    writer.result(notes.result)
    writer.comments(notes.comments, -1, 7)
    writer.steps(start, moves, notes.steps, 0, 0)
    return bytes([SECTION_VERSION]) + coder.finish()


def write_section(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], notes: Notes[Any], tags: dict[str, str], *,
    final: Position[Any] | None = None, context: dict[str, str] | None = None,
) -> bytes:
    """The record section of a full-fidelity container: the tags and everything in ``notes``.

    ``moves`` are the mainline (legal, played from ``start``, which is not changed; ``final``, when given, the
    position after them, which spares replaying them); variations are coded with ``scheme`` from the position
    where they branch. ``context``: tags the record has that are kept elsewhere (an archive's typed columns,
    :mod:`plybits.archive`): not written, but predicted from as if they were; the reader must be given the same.

    :raises InvalidRecordError: if ``notes`` does not fit ``moves`` (a step count that is neither 0 nor the
        number of moves) or holds text that UTF-8 cannot store.
    :raises LimitExceededError: if a text, count, number or nesting is over the section's limits.
    """
    return _write(scheme, start, moves, notes, tags, final=_Final(start, moves, final), context=context)


def section_costs(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], notes: Notes[Any], tags: dict[str, str],
    context: dict[str, str] | None = None,
) -> tuple[bytes, dict[str, float]]:
    """:func:`write_section`'s section and where its bits go: bits by :data:`TOPICS` (for benchmarks)."""
    costs: dict[str, float] = {}
    return _write(scheme, start, moves, notes, tags, costs, context=context), costs


def read_section(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], data: bytes, *, max_plies: int,
    version: int | None = None, final: Position[Any] | None = None, context: dict[str, str] | None = None,
) -> tuple[Notes[Any], dict[str, str]]:
    """The notes and tags of a record section that :func:`write_section` made for ``moves`` played from ``start``
    (not changed; ``final``, when given, the position after them); ``version`` is the container's scheme version
    (default: ``scheme.version``), under which its variations are decoded, and at most ``max_plies`` variation
    plies are read; ``context``: the tags :func:`write_section` was given as context (they are not returned).

    :raises InvalidDataError: on anything that is not a section :func:`write_section` made.
    """
    if not data:
        raise InvalidDataError("empty record section")
    if data[0] != SECTION_VERSION:
        raise InvalidDataError(f"record section version {data[0]} is not supported (this build reads {SECTION_VERSION})")
    after = _Final(start, moves, final)
    reader = _NotesReader(Reader(data[1:]), scheme, _known(_State(after, len(moves)), context), max_plies,
                          scheme.version if version is None else version)
    try:
        tags = reader.tags({})
        notes: Notes[Any] = Notes(result=reader.result(None))
        notes.comments = reader.comments((), -1, 7)
        notes.steps = reader.steps(start, moves, 0, 0)
        reader.r.finish()
    except InvalidDataError as err:
        raise InvalidDataError(f"record section: {err.reason}", ply=err.ply) from None
    except DeadlineExceededError:
        raise
    except PlybitsError as err:
        raise InvalidDataError(f"record section: {err.reason}") from None
    return notes, tags
