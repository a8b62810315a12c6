"""The forms of the record section's values (:mod:`plybits.recordsection`): which texts a writer codes as
numbers (dates, times, ratings, clocks, evaluations, identifiers after a prefix), how each is written back, the
dictionary's words as pieces of text, and the order in which known tag names are ranked.

Each form is exact: a value is coded in its typed form only where writing the form back gives the same text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from librt.strings import BytesWriter
from librt.vecs import vec
from mypy_extensions import i64
from plybits import recorddictionary as dictionary
from plybits.errors import InvalidDataError
from plybits.packed import int_array
from plybits.recordcoder import MAX_TEXT, PURE, Coder, Number, Text, Tree, from_utf8, text_length, utf8

MAX_CLOCK_MS: Final = 1000 * 3600 * 1000
"""Clocks and elapsed times of 1,000 hours or more stay text."""
MAX_EVAL: Final = 100_000
"""Evaluations of more than 100,000 pawns, or mates in more than 100,000, are not read (written, they stay text)."""
_MINUTES_SECONDS: Final = tuple(f":{s // 60:02d}:{s % 60:02d}" for s in range(3600))
"""``:MM:SS`` of each second of an hour: a clock after its hours, written by table (a format spec costs thousands of
instructions compiled, and four joins more than one)."""
POWERS_OF_TEN: Final[tuple[int, ...]] = (1, 10, 100, 1000)
"""``10 ** k`` by table (a power is a generic call compiled)."""


WORDED_RE: Final = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
"""A run of letters: what a dictionary word is (an apostrophe inside, as in ``King's``, included)."""
WORDED_SPLIT: Final = re.compile(f"({WORDED_RE.pattern})")
""":data:`WORDED_RE` as one group: :func:`re.Pattern.split` gives the text between runs and the runs in turn."""
ASCII_WORDED_SPLIT: Final = re.compile(r"([A-Za-z]+(?:'[A-Za-z]+)*)")
""":data:`WORDED_SPLIT` for an ASCII text, whose letters are ``[A-Za-z]`` (a class of Unicode categories is read
character by character, a class of bytes by one look-up)."""
WORD_INDEX: Final = {word: i for i, word in enumerate(dictionary.WORDS)}
PIECE_END: Final = 0
PIECE_WORD: Final = 1
PIECE_BYTE: Final = 2
WORD_PIECE: Final = 256
"""A word's piece (:func:`word_pieces`) is this plus its index; a byte's is the byte."""
WORD_BYTES: Final = tuple(word.encode("utf-8") for word in dictionary.WORDS)
_LAST_WORD: Final = len(dictionary.WORDS) - 1
"""The index of the dictionary's last word (a compiled access to a module's attribute is a lookup each time)."""
_NO_PIECES: Final[list[int]] = []
"""A reader's pieces given: none (never changed)."""


class Words:
    """Text as pieces: a word of the dictionary (by index) or a UTF-8 byte (a :class:`Text`'s tree), until an end.

    A word is coded as a word exactly where a whole run of letters (apostrophes within it included) is one."""

    __slots__ = ("piece", "index", "text")

    def __init__(self, text: Text, piece: Tree | None = None, index: Number | None = None) -> None:
        self.piece = Tree(2, 3) if piece is None else piece
        self.index = Number() if index is None else index
        self.text = text

    def copy(self) -> Words:
        return Words(self.text, self.piece.copy(), self.index.copy())

    def code(self, c: Coder, text: str = "", what: str = "text") -> str:
        """:raises InvalidDataError: (reading) on pieces a writer would not code for the text they make."""
        writing = c.writing
        raw = utf8(text, what) if writing else b""
        pieces = word_pieces(text) if writing else _NO_PIECES
        count = len(pieces)
        decoded: list[int] = []
        out = BytesWriter()  # native appends compiled (a bytearray's append is a call by name)
        kinds = self.piece.bits  # the kind's tree and a byte's, coded straight (a Tree's or Text's call each saved)
        tree = self.text.tree
        previous = 0
        for i in range(len(raw) + 1 if writing else MAX_TEXT + 1):
            piece = pieces[i] if i < count else -1
            kind = PIECE_END if piece < 0 else PIECE_BYTE if piece < WORD_PIECE else PIECE_WORD
            kind = c.tree(kinds, previous << 2, 2, kind)
            if kind == PIECE_END:
                break
            if kind > PIECE_BYTE or i == MAX_TEXT:
                raise InvalidDataError(f"{what}: piece of kind {kind} or more than {MAX_TEXT} pieces")
            if kind == PIECE_WORD:
                value = self.index.at_most(c, _LAST_WORD, "word", piece - WORD_PIECE if piece >= WORD_PIECE else 0)
                out.write(WORD_BYTES[value])
                decoded.append(WORD_PIECE + value)
            else:
                value = c.tree(tree, 0, 8, piece if 0 <= piece < WORD_PIECE else 0)
                out.append(value)
                decoded.append(value)
            previous = kind
        made = out.getvalue()
        if writing and made == raw:  # as a writer codes it (a coder may code other pieces than it is given)
            return text
        text = from_utf8(made, what)
        if not writing and (len(made) > MAX_TEXT or word_pieces(text) != decoded):
            raise InvalidDataError(f"{what} {text!r} is not coded in the pieces a writer codes it in")
        return text


BYTE_CLASSES: Final = 6
"""The classes of the byte before that :class:`ClassedText` codes a byte under: none (the start), a small letter, a
capital, a digit, ``_`` or ``-``, any other."""
_BYTE_CLASS: Final = bytes(1 if 0x61 <= b <= 0x7A else 2 if 0x41 <= b <= 0x5A else 3 if 0x30 <= b <= 0x39
                    else 4 if b in (0x5F, 0x2D) else 5 for b in range(256))


class ClassedText:
    """UTF-8 text (version 3's player names): its byte length (a :class:`Number`), then each byte through a bit tree
    of its own for the class of the byte before it (:data:`BYTE_CLASSES`): a user name's letters run in cases, its
    digits come in runs at the end."""

    __slots__ = ("length", "trees")

    def __init__(self, length: Number | None = None, trees: Tree | None = None) -> None:
        self.length = Number() if length is None else length
        self.trees = Tree(8, BYTE_CLASSES) if trees is None else trees

    def copy(self) -> ClassedText:
        return ClassedText(self.length.copy(), self.trees.copy())

    def code(self, c: Coder, text: str = "", what: str = "text") -> str:
        """:raises InvalidRecordError, LimitExceededError: (writing) as :func:`utf8`."""
        raw, n = text_length(c, self.length, text, what)
        writing = c.writing
        out = BytesWriter()  # native appends compiled (a bytearray's item is set through a generic call)
        trees = self.trees.bits  # each byte down the tree of its class, straight (no Tree.code call a byte)
        previous = 0
        for i in range(n):
            byte = c.tree(trees, previous << 8, 8, raw[i] if writing else 0)
            out.append(byte)
            previous = _BYTE_CLASS[byte]
        made = out.getvalue()
        if writing and made == raw:
            return text
        return from_utf8(made, what)


def word_pieces(text: str) -> list[int]:
    """How :class:`Words` codes ``text``: its pieces, each a UTF-8 byte or :data:`WORD_PIECE` plus a word's index.

    Compiled, an ASCII text is scanned byte by byte (:func:`_scanned_pieces`); interpreted, or a text that is not
    ASCII, is split at its runs of letters in one regex call (:func:`_split_pieces`), which a loop over characters
    costs more than there (tests/test_record_fastpaths.py holds both to the runs of :data:`WORDED_RE`)."""
    if PURE or not text.isascii():
        return _split_pieces(text)
    return _scanned_pieces(text)


def _split_pieces(text: str) -> list[int]:
    """:func:`word_pieces`, the text split at its runs of letters in one call (:data:`WORDED_SPLIT`: the runs at the
    odd indices), not match by match (a match's methods are calls by name compiled)."""
    parts = (ASCII_WORDED_SPLIT if text.isascii() else WORDED_SPLIT).split(text)
    pieces: list[int] = []
    start = 0  # where the text since the last word coded as one begins
    pos = len(parts[0])  # where run i begins
    for i in range(1, len(parts), 2):
        word = parts[i]
        index = WORD_INDEX.get(word, -1)
        if index >= 0:
            if pos > start:
                pieces.extend(text[start:pos].encode("utf-8"))
            pieces.append(WORD_PIECE + index)
            start = pos + len(word)
        pos += len(word) + len(parts[i + 1])
    if len(text) > start:
        pieces.extend(text[start:].encode("utf-8"))
    return pieces


_LETTER: Final = bytes(1 if 0x41 <= byte <= 0x5A or 0x61 <= byte <= 0x7A else 0 for byte in range(256))
"""1 for the bytes of ASCII letters (``[A-Za-z]``), else 0."""


def _scanned_pieces(text: str) -> list[int]:
    """:func:`word_pieces` of an ASCII text, its runs of letters (:data:`ASCII_WORDED_SPLIT`: letters, an apostrophe
    between two letters) found byte by byte (compiled, a regex split and its list of parts cost several times more)."""
    raw = text.encode("ascii")
    size = len(raw)
    pieces: list[int] = []
    start = 0  # where the text since the last word coded as one begins
    i = 0
    while i < size:
        if not _LETTER[raw[i]]:
            i += 1
            continue
        end = i + 1  # the run's end: past its letters and each apostrophe followed by a letter
        while end < size:
            if _LETTER[raw[end]]:
                end += 1
            elif raw[end] == 0x27 and end + 1 < size and _LETTER[raw[end + 1]]:
                end += 2
            else:
                break
        index = WORD_INDEX.get(text[i:end], -1)
        if index >= 0:
            pieces.extend(raw[start:i])
            pieces.append(WORD_PIECE + index)
            start = end
        i = end
    pieces.extend(raw[start:])
    return pieces


# ---------------------------------------------------------------------------------------------------- values

ID62: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
ID62_INDEX: Final = {char: i for i, char in enumerate(ID62)}
ID_RE: Final = re.compile(r"[0-9A-Za-z]{1,64}")
DECIMAL_RE: Final = re.compile(r"0|[1-9][0-9]{0,11}")
DATE_RE: Final = re.compile(r"(?:[0-9]{4}|\?\?\?\?)\.(?:0[1-9]|1[0-2]|\?\?)\.(?:0[1-9]|[12][0-9]|3[01]|\?\?)")
"""A date a writer codes as one: a year (or ``????``), a month 01 to 12 and a day 01 to 31 (or ``??``)."""
TIME_RE: Final = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})")
SIGNED_RE: Final = re.compile(r"\+0|[+-][1-9][0-9]{0,5}")
"""A rating change as lichess writes it: ``+6``, ``-6``, ``+0``."""
TIME_CONTROL_RE: Final = re.compile(r"([1-9][0-9]{0,6})\+(0|[1-9][0-9]{0,5})")
ECO_RE: Final = re.compile(r"[A-E][0-9]{2}")
CLOCK_RE: Final = re.compile(r"([0-9]{1,4}):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]{1,3}))?")
PAWNS_RE: Final = re.compile(r"-?([0-9]{1,4})\.([0-9]{1,2})")
MATE_RE: Final = re.compile(r"#-?[1-9][0-9]{0,4}")
COMMAND_RE: Final = re.compile(r"\[%(clk|emt|eval) ([^\[\]]*)\]")

NAME_INDEX: Final = {name: i for i, name in enumerate(dictionary.TAG_NAMES)}
REST_NONE: Final = 0
REST_DECIMAL: Final = 1
REST_ID: Final = 2
REST_TEXT: Final = 3


# The forms of typed values, checked by string methods (the regexes above say what each is; a regex's match is a
# generic call compiled, and tests/test_record_fastpaths.py holds each check to its regex on every text): an ASCII
# text is all digits (``[0-9]``) exactly when str.isdigit says so, and all letters and digits (``[0-9A-Za-z]``)
# exactly when str.isalnum does (a strip of a set of characters costs hundreds of instructions, these tens).
_MONTHS: Final = frozenset(["??", *(f"{month:02d}" for month in range(1, 13))])
_DAYS: Final = frozenset(["??", *(f"{day:02d}" for day in range(1, 32))])
ECO_CODES: Final = frozenset(f"{letter}{number:02d}" for letter in "ABCDE" for number in range(100))
""":data:`ECO_RE`'s codes."""


def positive_text(text: str, most: int) -> bool:
    """Whether ``text`` is a number above 0 as :func:`str` writes it, of at most ``most`` digits (``[1-9][0-9]*``)."""
    return 0 < len(text) <= most and text[0] != "0" and text.isascii() and text.isdigit()


def decimal_value(text: str) -> int | None:
    """``text`` as a number if it is written as :func:`str` writes it (ASCII digits, no leading zero):
    :data:`DECIMAL_RE`."""
    return int(text) if text == "0" or positive_text(text, 12) else None


def is_date(text: str) -> bool:
    """Whether ``text`` is a date a writer codes as one (:data:`DATE_RE`)."""
    return (len(text) == 10 and text[4] == "." and text[7] == "." and text[5:7] in _MONTHS and text[8:] in _DAYS
            and (text[:4] == "????" or text[:4].isascii() and text[:4].isdigit()))


def is_signed(text: str) -> bool:
    """Whether ``text`` is a rating change as lichess writes it (:data:`SIGNED_RE`)."""
    return text == "+0" or (text[:1] == "+" or text[:1] == "-") and positive_text(text[1:], 6)


def time_control(text: str) -> tuple[int, int] | None:
    """The base and increment of a time control written ``base+increment`` (:data:`TIME_CONTROL_RE`), else ``None``."""
    base, plus, increment = text.partition("+")
    if plus and positive_text(base, 7) and (increment == "0" or positive_text(increment, 6)):
        return int(base), int(increment)
    return None


def is_identifier(text: str) -> bool:
    """Whether ``text`` is 1 to 64 ASCII letters and digits (:data:`ID_RE`)."""
    return 0 < len(text) <= 64 and text.isascii() and text.isalnum()


def is_user_name(text: str) -> bool:
    """Whether ``text`` is a player's name as servers' user names are (:data:`plybits.recordtags.USER_NAME_RE`)."""
    return 0 < len(text) <= 64 and text.isascii() and (
        text.isalnum() or text.replace("_", "a").replace("-", "a").isalnum())


def clock_value(text: str) -> tuple[int, int] | None:
    """``(milliseconds, fraction digits)`` of ``H:MM:SS[.f]`` (:data:`CLOCK_RE`) if :func:`clock_text` writes it back
    exactly.

    Read by hand, not by the regex (a clock is read for every comment a writer splits): three ``:``-separated fields
    of ASCII digits and an optional fraction, whose lengths :data:`CLOCK_RE` allows; the ranges of minutes and seconds
    and the form of the hours are left to the check that :func:`clock_text` writes the text back."""
    first = text.find(":")
    second = first + 3
    size = len(text)
    if not 0 < first <= 4 or size < second + 3 or text[second] != ":":
        return None
    digits = 0
    if size > second + 3:
        digits = size - second - 4
        if text[second + 3] != "." or not 0 < digits <= 3:
            return None
    fields = text.replace(":", "").replace(".", "")  # the digits alone, if that is all the fields hold
    if len(fields) != size - 2 - (1 if digits else 0) or not (fields.isascii() and fields.isdigit()):
        return None
    h = int(text[:first])
    ms = ((h * 60 + int(text[first + 1:second])) * 60 + int(text[second + 1:second + 3])) * 1000
    if digits:
        ms += int(text[second + 4:]) * POWERS_OF_TEN[3 - digits]
    if ms >= MAX_CLOCK_MS or clock_text(ms, digits) != text:
        return None
    return ms, digits


def clock_text(ms: int, digits: int) -> str:
    """``H:MM:SS`` and, with ``digits`` (1 to 3), that many digits of the fraction of a second."""
    seconds, fraction = divmod(ms, 1000)
    text = str(seconds // 3600) + _MINUTES_SECONDS[seconds % 3600]
    return text + "." + str(fraction // POWERS_OF_TEN[3 - digits]).zfill(digits) if digits else text


def eval_value(text: str) -> tuple[bool, int, int] | None:
    """``(mate, value, fraction digits)`` of ``[-]P.pp`` (value in hundredths) or ``#[-]N``, if written back exactly."""
    if MATE_RE.fullmatch(text):
        return True, int(text[1:]), 0
    match = PAWNS_RE.fullmatch(text)
    if match is None:
        return None
    digits = len(match.group(2))
    value = (int(match.group(1)) * 100 + int(match.group(2)) * POWERS_OF_TEN[2 - digits]) * (-1 if text[0] == "-" else 1)
    if abs(value) > MAX_EVAL * 100 or eval_text(False, value, digits) != text:
        return None
    return False, value, digits


def eval_text(mate: bool, value: int, digits: int) -> str:
    if mate:
        return f"#{value}"
    units = abs(value) // POWERS_OF_TEN[2 - digits]
    whole, part = divmod(units, POWERS_OF_TEN[digits])
    return ("-" if value < 0 else "") + str(whole) + "." + str(part).zfill(digits)


SUCCESSOR_INDICES: Final = {last: tuple(NAME_INDEX[name] for name in names) for last, names in dictionary.SUCCESSORS.items()}
""":data:`recorddictionary.SUCCESSORS` as indices in :data:`recorddictionary.TAG_NAMES`."""
LAST_START: Final = len(dictionary.TAG_NAMES)
"""The tag name before the first (the empty one) as :func:`last_key` gives it."""
LAST_OTHER: Final = LAST_START + 1
"""A tag name the dictionary does not hold as :func:`last_key` gives it."""
_SUCCESSORS_OF: Final[list[vec[i64]]] = [int_array(list(successors)) for successors in (
    *(SUCCESSOR_INDICES.get(name, ()) for name in dictionary.TAG_NAMES), SUCCESSOR_INDICES.get("", ()), ())]
""":data:`SUCCESSOR_INDICES` by :func:`last_key` (a tuple's item, not a dictionary's lookup by text)."""


def last_key(name: str) -> int:
    """The key :func:`walk_names` takes for the tag name coded last: its index in :data:`recorddictionary.TAG_NAMES`,
    else :data:`LAST_START` for the empty name (before the first tag) or :data:`LAST_OTHER` for any other."""
    return NAME_INDEX.get(name, LAST_START if not name else LAST_OTHER)


def unused_successors(used: vec[i64], last: int) -> int:
    """How many of :data:`recorddictionary.SUCCESSORS` of the name of key ``last`` (:func:`last_key`) are unused
    (``used`` is 0 for them)."""
    count: i64 = 0
    for index in _SUCCESSORS_OF[last]:  # machine integers compiled (a tuple's items were objects to unbox)
        if not used[index]:
            count += 1
    return count


def walk_names(used: vec[i64], last: int, index: int, rank: int) -> tuple[int, int]:
    """The known tag name ``index`` with its rank, or the one of rank ``rank`` with its index (the other argument
    is -1), among the unused names (indices in :data:`recorddictionary.TAG_NAMES` that ``used`` holds 0 for) in the
    order their rank codes them after the name of key ``last`` (:func:`last_key`): the unused ones of
    :data:`recorddictionary.SUCCESSORS`, in its order, then the others in ``TAG_NAMES`` order from the one after
    ``last`` on (from the start after a name it does not hold), then from the start; ``(-1, -1)`` if there is none."""
    successors = _SUCCESSORS_OF[last]
    wanted: i64 = index
    wanted_rank: i64 = rank
    found: i64 = -1
    found_rank: i64 = -1
    n: i64 = 0
    for j in successors:
        if not used[j]:
            if found < 0 and (j == wanted or n == wanted_rank):
                found = j
                found_rank = n
            used[j] = 2  # listed: passed over among the others
            n += 1
    count: i64 = len(used)
    after: i64 = 0
    if last < LAST_START:
        after = last + 1
    step: i64 = 0
    while found < 0 and step < count:
        j = after + step
        if j >= count:
            j -= count
        if not used[j]:
            if j == wanted or n == wanted_rank:
                found = j
                found_rank = n
            n += 1
        step += 1
    for j in successors:
        if used[j] == 2:
            used[j] = 0
    return found, found_rank


def prefix_buckets(prefixes: Sequence[str]) -> dict[str, list[tuple[str, int]]]:
    """``prefixes`` by their first character (the empty one under ``""``), each bucket's prefixes with their index,
    longest first and the first of the longest before the others of its length."""
    buckets: dict[str, list[tuple[str, int]]] = {}
    for i, prefix in enumerate(prefixes):
        buckets.setdefault(prefix[:1], []).append((prefix, i))
    for bucket in buckets.values():
        bucket.sort(key=lambda entry: (-len(entry[0]), entry[1]))
    return buckets


PREFIX_BUCKETS: Final = {name: prefix_buckets(prefixes) for name, prefixes in dictionary.PREFIXES.items()}
""":func:`prefix_buckets` of each tag's :data:`recorddictionary.PREFIXES`."""


def prefix_index(name: str, value: str) -> int:
    """The index of the longest of tag ``name``'s prefixes that ``value`` starts with (the first of the longest).

    Only the prefixes that begin with ``value``'s first character can be longer than the empty one.

    :raises ValueError: if it starts with none (every tag's prefixes hold the empty one).
    """
    buckets = PREFIX_BUCKETS[name]
    for prefix, index in buckets.get(value[:1], ()) if value else ():
        if value.startswith(prefix):
            return index
    empty = buckets.get("")
    if empty is None:
        raise ValueError(f"{value!r} starts with none of the prefixes")
    return empty[0][1]


def rest_kind(rest: str) -> int:
    """How the rest of a value after its prefix is coded."""
    if not rest:
        return REST_NONE
    if decimal_value(rest) is not None:
        return REST_DECIMAL
    if is_identifier(rest):
        return REST_ID
    return REST_TEXT


TYPED_KINDS: Final[tuple[str, ...]] = (dictionary.DATE, dictionary.TIME, dictionary.ELO, dictionary.RATING_DIFF, dictionary.TIME_CONTROL,
                dictionary.ECO, dictionary.RESULT, dictionary.FINAL_FEN, dictionary.PLY_COUNT, dictionary.PREFIXED)
"""The typed tag values, in the order of their contexts of the ``typed`` flag (:meth:`_Section.typed_value`)."""
KIND_TEXT: Final = -1
KIND_WORDED: Final = -2


def kind_of(name: str) -> int:
    """How tag ``name``'s value is coded: :data:`KIND_TEXT`, :data:`KIND_WORDED` or the index of a typed kind."""
    kind = dictionary.TAG_KINDS.get(name, dictionary.PREFIXED if name in dictionary.PREFIXES else dictionary.TEXT)
    return KIND_TEXT if kind == dictionary.TEXT else KIND_WORDED if kind == dictionary.WORDED else TYPED_KINDS.index(kind)


TAG_KIND: Final = {name: kind_of(name) for name in (*dictionary.TAG_KINDS, *dictionary.PREFIXES)}
""":func:`kind_of` of every tag name whose value is not text."""
VALUE_WHAT: Final = {name: f"tag {name!r} value" for name in dictionary.TAG_NAMES}
PREFIX_WHAT: Final = {name: f"tag {name!r} prefix" for name in dictionary.PREFIXES}


def value_what(name: str) -> str:
    """What a tag value is called in errors (made once for the known names)."""
    what = VALUE_WHAT.get(name)
    return f"tag {name!r} value" if what is None else what

