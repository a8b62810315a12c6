"""The record section's hand-written readers (no regex on the usual path) give what the regexes give, on every text."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from plybits import recordsection, recordvalues
from plybits.packed import zeros
from plybits.recordtags import BARE_TIME_CONTROL_RE, USER_NAME_RE
from plybits.recordvalues import (
    CLOCK_RE, DATE_RE, DECIMAL_RE, ECO_CODES, ECO_RE, ID_RE, MAX_CLOCK_MS, POWERS_OF_TEN, SIGNED_RE, TIME_CONTROL_RE,
    WORD_INDEX, WORD_PIECE, WORDED_RE, clock_text, clock_value, decimal_value, is_date, is_identifier, is_signed,
    is_user_name, positive_text, time_control, word_pieces,
)


def regex_clock_value(text: str) -> tuple[int, int] | None:
    """What a clock's value is by its definition: :data:`CLOCK_RE`, then :func:`clock_text` writing it back."""
    match = CLOCK_RE.fullmatch(text)
    if match is None:
        return None
    h, m, s, fraction = match.groups()
    digits = len(fraction) if fraction else 0
    ms = ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + (int(fraction) * POWERS_OF_TEN[3 - digits] if fraction else 0)
    if ms >= MAX_CLOCK_MS or clock_text(ms, digits) != text:
        return None
    return ms, digits


CLOCK_CASES = [
    "0:10:00", "1:30:00", "0:00:00", "0:09:57.3", "0:00:01.25", "0:00:01.250", "12:00:00", "999:59:59.999",
    "1000:00:00", "0999:00:00", "00:10:00", "0:60:00", "0:10:60", "0:1:00", "0:10:0", "0:10:00.", "0:10:00.1234",
    "0:10:00:00", "0:10.00:00", ":10:00", "12345:00:00", "0:1٣:00", "0:10:0٣", "٣:10:00", "0:10:00 ", " 0:10:00",
    "0:10:00.x", "+0:10:00", "-0:10:00", "0:10:00.-1", "", ":", "::", "0::00", "1e3:00:00", "0_1:00:00", "0:1_:00",
]


@pytest.mark.parametrize("text", CLOCK_CASES)
def test_clock_value_reads_what_its_regex_reads(text: str) -> None:
    assert clock_value(text) == regex_clock_value(text)


def test_clock_value_reads_what_its_regex_reads_on_random_texts() -> None:
    rng = random.Random(25)
    alphabet = "0123456789::.. x٣_-"
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 13)))
        assert clock_value(text) == regex_clock_value(text), text
    for _ in range(5_000):  # near the usual form
        text = f"{rng.randint(0, 1200)}:{rng.randint(0, 70):02d}:{rng.randint(0, 70):02d}"
        if rng.random() < 0.5:
            text += "." + str(rng.randint(0, 999)).zfill(rng.randint(1, 4))
        assert clock_value(text) == regex_clock_value(text), text


PIECES = [" ", "[%clk ", "[%eval ", "[%emt ", "[%clk  ", "[%clkx ", "[% clk ", "[%", "0:10:00", "0:09:57.3", "1.25",
          "#-3", "-0.40", "]", "[", "x", "\n", "text", "[%clk 0:10:00]", "[%eval 0.25]", "[%emt 0:00:03]"]


def test_comment_parts_split_as_the_regex_splits() -> None:
    rng = random.Random(11)
    texts = [" [%clk 0:10:00] ", "[%clk 0:10:00]", " [%clk 0:10:00]", "[%clk 0:10:00] ", "", " ", "no command",
             "[%eval 0.25] [%clk 0:10:00]", "[%clk 0:10:00", "[%clk 0:10:00]]", "[%clk [0:10:00]", "[%clk]", "[%clk ]",
             "[%eval #-3]", "[%emt 0:00:03.5] after", "before [%eval -0.40]", "[%clk 0:70:00]", "a ] [%clk 0:10:00]"]
    texts += ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6))) for _ in range(20_000)]
    for text in texts:
        assert recordsection._comment_parts(text) == recordsection._commands_parts(text), text


def test_clock_text_writes_hours_minutes_seconds_and_the_fraction() -> None:
    for ms in (0, 1, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, 36_000_000 + 61_234, MAX_CLOCK_MS - 1):
        seconds, fraction = divmod(ms, 1000)
        whole = f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        assert clock_text(ms, 0) == whole
        for digits in (1, 2, 3):
            assert clock_text(ms, digits) == f"{whole}.{fraction // 10 ** (3 - digits):0{digits}d}"


def regex_time_control(text: str) -> tuple[int, int] | None:
    match = TIME_CONTROL_RE.fullmatch(text)
    return (int(match[1]), int(match[2])) if match else None


FORM_CHECKS: list[tuple[str, Callable[[str], Any], Callable[[str], Any]]] = [
    # (name, the string-method check, what its regex says)
    ("decimal", decimal_value, lambda t: int(t) if DECIMAL_RE.fullmatch(t) else None),
    ("date", is_date, lambda t: DATE_RE.fullmatch(t) is not None),
    ("signed", is_signed, lambda t: SIGNED_RE.fullmatch(t) is not None),
    ("time control", time_control, regex_time_control),
    ("bare time control", lambda t: positive_text(t, 7), lambda t: BARE_TIME_CONTROL_RE.fullmatch(t) is not None),
    ("eco", lambda t: t in ECO_CODES, lambda t: ECO_RE.fullmatch(t) is not None),
    ("identifier", is_identifier, lambda t: ID_RE.fullmatch(t) is not None),
    ("user name", is_user_name, lambda t: USER_NAME_RE.fullmatch(t) is not None),
]
FORM_CASES = [
    "", "0", "00", "01", "1", "9", "10", "123456789012", "1234567890123", "+0", "-0", "+00", "+6", "-6", "+123456",
    "+1234567", "+-1", "6", "++6", "2012.06.20", "????.??.??", "2012.??.??", "2012.13.01", "2012.00.01", "2012.12.32",
    "2012.12.00", "2012.12.31", "2012.02.30", "201.06.20", "20120.06.20", "2012-06-20", "2012.6.20", "٣٣٣٣.06.20",
    "2012.06.2٣", "?012.06.20", "180+0", "180+2", "180+02", "0+0", "1234567+123456", "12345678+0", "1+1234567", "180",
    "180+", "+180", "180+0+0", "-", "1e3", "1_000", " 1", "1 ", "A00", "E99", "F00", "a00", "A0", "A000", "B٣٣",
    "abcDEF123", "x" * 64, "x" * 65, "abc_def", "abc-def", "_", "-", "a b", "ünïcode", "DrNykterstein", "user.name",
    "\n", "0\n", "12\n", "\u00b2", "1\u00b2",
]


@pytest.mark.parametrize(("name", "check", "by_regex"), FORM_CHECKS, ids=[form[0] for form in FORM_CHECKS])
def test_value_forms_are_checked_as_their_regexes_say(name: str, check: Callable[[str], Any],
                                                     by_regex: Callable[[str], Any]) -> None:
    rng = random.Random(name)
    alphabet = "0123456789+-.?:_ abzAEFZ٣\u00b2é\n"
    texts = FORM_CASES + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(20_000)]
    texts += [f"{rng.randint(0, 2100):04d}.{rng.randint(0, 13):02d}.{rng.randint(0, 32):02d}" for _ in range(2_000)]
    texts += [f"{rng.choice('+-')}{rng.randint(0, 10 ** 7)}" for _ in range(2_000)]
    texts += [f"{rng.randint(0, 10 ** 8)}+{rng.randint(0, 10 ** 7)}" for _ in range(2_000)]
    for text in texts:
        assert check(text) == by_regex(text), text


def regex_word_pieces(text: str) -> list[int]:
    """What a worded text's pieces are by their definition: each run of :data:`WORDED_RE`, match by match, a word's
    piece where the dictionary holds it, and the UTF-8 bytes of the text between."""
    pieces: list[int] = []
    pos = 0
    for match in WORDED_RE.finditer(text):
        index = WORD_INDEX.get(match.group(), -1)
        if index >= 0:
            pieces.extend(text[pos:match.start()].encode("utf-8"))
            pieces.append(WORD_PIECE + index)
            pos = match.end()
    pieces.extend(text[pos:].encode("utf-8"))
    return pieces


WORDED_CASES = [
    "", "Sicilian", "accelerated fianchetto, Maroczy bind, 6.Be3", "King's Indian", "King's", "'King", "King'", "Kings'x",
    "Queen's Gambit Declined", "sicilian", "Sicilian2", "2Sicilian", "Sicilian_Defense", "Caro-Kann", "Ruy Lopez",
    "Ünïcode Sicilian", "Sicilian²", "²Sicilian", "Sicilian Sicilian", " Sicilian ", "x'y'z Sicilian",
    "https://www.chess.com/openings/Sicilian-Defense-Open-2...d6-3.d4", "Réti Opening", "Grünfeld", "٣Sicilian",
]


def test_word_pieces_split_as_the_regex_matches() -> None:
    """:func:`word_pieces` splits at the runs of letters in one call; the pieces are the match-by-match ones."""
    rng = random.Random(28)
    words = [word for word in WORD_INDEX if rng.random() < 0.05] + ["King's", "x", "Zz", "é"]
    alphabet = [*words, " ", "'", "-", ".", ",", "2", "٣", "_", "\u00b2", "é", "a", "Q", "ß", "\n"]
    texts = WORDED_CASES + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(20_000)]
    for text in texts:
        expected = regex_word_pieces(text)
        assert word_pieces(text) == expected, text
        assert recordvalues._split_pieces(text) == expected, text
        if text.isascii():  # the compiled build's scan, in either build
            assert recordvalues._scanned_pieces(text) == expected, text


def test_tag_names_walk_in_the_order_their_rank_codes_them() -> None:
    """:func:`recordvalues.walk_names` (machine integers compiled) finds a name's rank, and the name of a rank, in the
    order of its definition: the unused successors of the last name, then the other unused names from the one after
    it on, round to the start; the used marks are given back unchanged, and unused_successors counts the first part."""
    from plybits.recorddictionary import TAG_NAMES
    from plybits.recordvalues import LAST_OTHER, LAST_START, SUCCESSOR_INDICES, unused_successors, walk_names

    rng = random.Random(59)
    size = len(TAG_NAMES)
    for _ in range(3000):
        used = zeros(size)
        for j in rng.sample(range(size), rng.randint(0, size)):
            used[j] = 1
        last = rng.choice([*range(size), LAST_START, LAST_OTHER])
        name = TAG_NAMES[last] if last < LAST_START else "" if last == LAST_START else "Other"
        successors = [j for j in SUCCESSOR_INDICES.get(name, ()) if not used[j]] if last != LAST_OTHER else []
        after = last + 1 if last < LAST_START else 0
        others = [j % size for j in range(after, after + size) if not used[j % size] and j % size not in successors]
        order = successors + others
        before = list(used)
        assert unused_successors(used, last) == len(successors)
        for rank, index in enumerate(order):
            assert walk_names(used, last, index, -1) == (index, rank)
            assert walk_names(used, last, -1, rank) == (index, rank)
        assert walk_names(used, last, -1, len(order)) == (-1, -1)
        assert list(used) == before
