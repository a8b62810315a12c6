"""The record-text reader's and writer's fast paths read and write exactly what their general definitions do, and
the record splitter stays lazy in either build."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from plybits import pgntext
from plybits.errors import InvalidRecordError
from plybits.streams import split_stream

_NAMES = ["Event", "Site", "White", "A", "x_1", "WhiteElo", "a+b#c=d:e-f", "_", "9"]
_VALUES = ["", "Cup 2002", "a\\\"b", "a\\\\b", '"quoted" inside', "tab\there", "é ü", "x" * 90, "\\", " "]


def _line_by_line_tags(text: str) -> dict[str, str]:
    """The tags at the head of ``text`` read one line at a time by the grammar's tag patterns (the reader's
    definition, here as the oracle for its fast path)."""
    tags: dict[str, str] = {}
    for line in text.split("\n"):
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        if not line.startswith("["):
            break
        match = pgntext.TAG.fullmatch(line) or pgntext.LOOSE_TAG.fullmatch(line)
        if match is None:
            raise InvalidRecordError("malformed")
        tags[match.group(1)] = pgntext.unescape(match.group(2))
    return tags


def _random_head(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randrange(0, 8)):
        name, value = rng.choice(_NAMES), rng.choice(_VALUES)
        lines.append(rng.choice([
            f'[{name} "{value}"]', f'[{name}  "{value}"]', f' [{name} "{value}"] ', f'[ {name} "{value}" ]',
            f'[{name} "{value}"]\r', "", "% escape", f'[{name}\t"{value}"]',
            f'[{name} "]', f'[{name} "{value}" "]', f'[{name}é "{value}"]', f'[{name} "{value}"]]', f'[{name} "{value}"] ',
        ]))
    return "\n".join(lines) + rng.choice(["\n\n1. e4 e5 *\n", "\n", "", "\n1. d4"])


def test_tag_lines_read_at_once_are_read_as_line_by_line() -> None:
    rng = random.Random(17)
    for _ in range(3000):
        text = _random_head(rng)
        try:
            expected = _line_by_line_tags(text)
        except InvalidRecordError:
            with pytest.raises(InvalidRecordError):
                pgntext.read(text, kind="PGN", lenient=True)
            continue
        assert pgntext.read(text, kind="PGN", lenient=True).tags == expected, text


def _wrap_by_concatenation(words: list[str], width: int) -> list[str]:
    """:func:`pgntext.wrap`'s definition: each word added to the line's text, which is pushed when full."""
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
        if word.startswith(";"):
            lines.append(line)
            line = ""
    if line or not lines:
        lines.append(line)
    return lines


def test_wrap_lays_out_words_as_concatenating_them_does() -> None:
    rng = random.Random(5)
    choices = ["", ";", ";c", "e4", "Nxf3+", "1.", "1...", "{a comment}", "(", ")", "$1", "1-0"]
    for _ in range(5000):
        words = [rng.choice(choices) if rng.random() < 0.9 else "x" * rng.randrange(0, 90)
                 for _ in range(rng.randrange(0, 40))]
        width = rng.randrange(1, 90)
        assert pgntext.wrap(words, width) == _wrap_by_concatenation(words, width), (words, width)


def test_split_stream_hands_out_each_record_before_reading_the_next() -> None:
    """Lines without their newline go through a generator, never read whole: the first record comes out while the
    input is still being read (a list would read it to the end, here into the error)."""
    def lines() -> Iterator[str]:
        yield '[Event "one"]'
        yield ""
        yield "1. e4 e5 *"
        yield ""
        yield '[Event "two"]'
        raise RuntimeError("read past the second record's first line")

    records = split_stream("chess", lines())
    first = next(records)
    assert isinstance(first, str) and re.match(r'\[Event "one"\]\n\n1\. e4 e5 \*\n', first)
    with pytest.raises(RuntimeError):
        list(records)


_WORDS = ["e4", "Nf3", "exd5", "O-O", "Qxe7+", "e8=Q#", "12.", "3...", "999.", "1000.", "0.", "12..", "7.Nf3", "9...e5", "1-0", "0-1", "1/2-1/2", "*",
          "0000", "0-0", "12", "...", "e41-0", "e4*", "Кf3", "1.-", "1e4", "--", "a", "Z0", "0000.", "\u0663.", "12345..."]


def _general_reading(movetext: str) -> tuple[object, ...]:
    """What the general (token by token) movetext reader makes of ``movetext``: the definition the fast paths keep."""
    record = pgntext.RecordText()
    try:
        pgntext._movetext(movetext, record, True)
    except InvalidRecordError as err:
        return ("refused", str(err))
    return record.moves, record.result, record.notes, record.dropped, [str(f) for f in record.faults]


def test_plain_movetext_is_read_as_token_by_token() -> None:
    rng = random.Random(29)
    fast = 0
    for _ in range(4000):
        words = [rng.choice(_WORDS[:8] if rng.random() < 0.7 else _WORDS) for _ in range(rng.randrange(0, 9))]
        movetext = "".join(word + rng.choice([" ", "\n", "  ", "\t", " \r\n"]) for word in words)
        movetext = rng.choice(["", " ", "\n"]) + movetext[:len(movetext) - rng.randrange(0, 2)]
        fast += bool(words) and all(word[0] not in "0123456789.*" or word in pgntext._MOVE_NUMBERS for word in words)
        try:
            read = pgntext.read("[Event \"x\"]\n\n" + movetext, kind="PGN", lenient=True)
        except InvalidRecordError as err:
            assert _general_reading(movetext) == ("refused", str(err)), movetext
            continue
        got = (read.moves, read.result, read.notes, read.dropped, [str(f) for f in read.faults])
        assert got == _general_reading(movetext), movetext
    assert fast > 1000  # many are read by the plain path's lookups alone


def test_a_move_number_alone_is_told_by_its_characters_codes() -> None:
    """_number_alone (the compiled plain path's test, read from the characters' codes) against its definition: ASCII
    digits then dots or none, not the null move 0000."""
    for word in [*_WORDS, "1", "1.", "999...", "0000..", "00000", "1.2", ".1", "1.e4", "12a", "\u0663", "1\u0663.", ""]:
        assert pgntext._number_alone(word) == (re.fullmatch(r"[0-9]+\.*", word) is not None and word != "0000"), word
