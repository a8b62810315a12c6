"""The record section's hand-written readers (no regex on the usual path) give what the regexes give, on every text."""

from __future__ import annotations

import random

import pytest

from plybits import recordsection
from plybits.recordvalues import CLOCK_RE, MAX_CLOCK_MS, POWERS_OF_TEN, clock_text, clock_value


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
