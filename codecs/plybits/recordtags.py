"""The tags of a record section (:mod:`plybits.recordsection`): each name ranked among the known ones the last
predicts, each value in its typed form where it has one (a date, a rating, a time control, a prefixed URL, ...),
else as text; a reader checks that each choice is the one a writer makes for the value it decoded."""

from __future__ import annotations

import re
from typing import Final

from librt.vecs import vec
from mypy_extensions import i64
from plybits import recorddictionary as dictionary
from plybits.container import MAX_TAGS
from plybits.errors import InvalidDataError, LimitExceededError
from plybits.packed import zeros
from plybits.recordcoder import Coder
from plybits.recordmodels import (
    ELO_HIGH_BITS, F_COMMON_TC, F_DATE_SAME, F_DATE_UNKNOWN_YEAR, F_DERIVED, F_ID_NOT_8, F_MORE_TAGS, F_MOVES_SUFFIX, F_NAME_OTHER,
    F_TC_BARE, F_USER_NAME, MOVES_SUFFIX_PLIES, State, moves_suffix, section_models,
)
from plybits.recordvalues import (
    ECO_CODES, ID62, ID62_INDEX, KIND_TEXT, KIND_WORDED, LAST_START, NAME_INDEX, PREFIX_WHAT, REST_DECIMAL, REST_ID,
    REST_NONE, REST_TEXT, TAG_KIND, TIME_RE, decimal_value, is_date, is_signed, is_user_name, last_key, positive_text,
    prefix_index, rest_kind, time_control, unused_successors, value_what, walk_names,
)
from plybits.registry import AnyScheme

YEAR_ORIGIN: Final = 2025
"""Dates are coded as years before this one."""
DERIVED_INDEX: Final = {name: i for i, name in enumerate(dictionary.DERIVED)}
BARE_TIME_CONTROL_RE: Final = re.compile(r"[1-9][0-9]{0,6}")
"""A time control written without its increment (version 2): :func:`recordvalues.positive_text` of 7 digits."""
USER_NAME_RE: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A player's name as servers' user names are (version 3 codes it with the player-name model):
:func:`recordvalues.is_user_name`."""
PREFIX_CONTEXT: Final = {name: 1 + i for i, name in enumerate(dictionary.PREFIXES)}
"""Version 3 codes each tag's prefix, and the kind of the rest after it, under contexts of its own (version 2: the
prefix under 0, the rest's kind by the prefix's end alone)."""
EXPECTED_SCORE: Final[tuple[int, ...]] = (10, 13, 17, 23, 31, 40, 53, 70, 91, 118, 151, 192, 240, 297, 360, 429, 500, 571, 640, 703, 760, 808,
                  849, 882, 909, 930, 947, 960, 969, 977, 983, 987, 990)
"""The Elo expected score in thousandths, ``1000 / (1 + 10^(-d / 400))``, for a rating difference ``d`` of -800,
-750, ..., 800 (version 3's prediction of a rating change)."""
RATING_K: Final = 12
"""Version 3 predicts White's rating change as ``RATING_K`` times (its score - its expected score), as lichess's
Glicko-2 moves a settled rating (measured on lichess_db_standard_rated_2021-10_first999)."""
SCORES: Final = {"1-0": 2, "1/2-1/2": 1, "0-1": 0}
"""White's score in halves by the ``Result`` tag."""

_TWO_DIGITS: Final = tuple(f"{n:02d}" for n in range(100))
"""``00`` to ``99`` by table (a format spec costs hundreds of instructions compiled)."""

# the dictionary's tables by name (a compiled access to a module's attribute is a lookup each time)
_TAG_NAMES: Final = dictionary.TAG_NAMES
_PLAYERS: Final = dictionary.PLAYERS
_PREFIXES: Final = dictionary.PREFIXES
_TERMINATIONS: Final = dictionary.TERMINATIONS
_RESULTS: Final = dictionary.RESULTS
_TIME_CONTROLS: Final = dictionary.TIME_CONTROLS
_WORDED_PREFIXED: Final = dictionary.WORDED_PREFIXED
_SPEEDS: Final = dictionary.SPEEDS

# a known tag name's facts by its index in TAG_NAMES (a list's item, not a dictionary's lookup by text a tag)
_KIND_AT: Final[list[int]] = [TAG_KIND.get(name, KIND_TEXT) for name in _TAG_NAMES]
_WHAT_AT: Final[list[str]] = [value_what(name) for name in _TAG_NAMES]
_DERIVED_AT: Final[list[int]] = [DERIVED_INDEX.get(name, -1) for name in _TAG_NAMES]
_PLAYER_AT: Final[list[bool]] = [name in _PLAYERS for name in _TAG_NAMES]


class TagCoder:
    """The tag part of a section's layout, for a writer and a reader alike."""

    def __init__(self, c: Coder, scheme: AnyScheme, state: State) -> None:
        self.c = c
        self.m = section_models(state.version)
        self.scheme = scheme
        self.s = state
        self.unused = len(_TAG_NAMES)
        """How many known tag names are not yet used (what :meth:`tag_name` ranks a known one among)."""
        self.last = LAST_START
        """The :func:`recordvalues.last_key` of the tag name :meth:`tag_name` coded last."""

    # ------------------------------------------------------------------------------------------------ tags

    def tags(self, tags: dict[str, str]) -> dict[str, str]:
        c, m = self.c, self.m
        c.topic = "tags"
        names = list(tags) if c.writing else []
        if len(names) > MAX_TAGS:
            raise LimitExceededError(f"{len(names)} tags, at most {MAX_TAGS} allowed")
        used = zeros(len(_TAG_NAMES))  # machine integers compiled (walk_names reads and marks them)
        self.unused = len(used)
        last = LAST_START
        known = self.s.tags
        out: dict[str, str] = {} if known else known  # no tags kept elsewhere: the state's dictionary is the section's
        for i in range(MAX_TAGS + 1):
            if not c.bit(m.flags, F_MORE_TAGS, int(i < len(names))):
                break
            if i == MAX_TAGS:
                raise InvalidDataError(f"more than {MAX_TAGS} tags")
            name = self.tag_name(names[i] if c.writing else "", used, last)
            last = self.last
            if name in out:
                raise InvalidDataError(f"tag {name!r} appears twice")
            value = out[name] = self.tag_value(name, tags[name] if c.writing else "", last)
            if out is not known:
                known[name] = value
        return out

    def tag_name(self, name: str, used: vec[i64], last: int) -> str:
        """A tag name: a bit for a known unused one (``used`` is 1 for the others), then its rank among the unused
        known names in the order :data:`recorddictionary.SUCCESSORS` predicts after the name of key ``last``
        (:func:`walk_names`); else its text. Its key for the next is left in :attr:`last`."""
        c, m = self.c, self.m
        index = NAME_INDEX.get(name, -1) if c.writing else -1
        other = c.writing and (index < 0 or used[index] != 0)  # a bool (an i64 in it would make int() a generic call)
        if c.bit(m.flags, F_NAME_OTHER, int(other)):
            name = m.text.code(c, name, "tag name")
            index = NAME_INDEX.get(name, -1)
            if index >= 0 and not used[index]:
                raise InvalidDataError(f"known tag name {name!r} coded as text")
            self.last = last_key(name)
            return name
        successors = unused_successors(used, last)
        rank = walk_names(used, last, index, -1)[1] if c.writing else 0
        rank = m.tag_name.at_most(c, self.unused - 1, "tag name rank", rank, int(successors > 0))
        index = walk_names(used, last, -1, rank)[0] if not c.writing else index
        used[index] = 1
        self.unused -= 1
        self.last = index
        return _TAG_NAMES[index]

    def tag_value(self, name: str, value: str, key: int = -1) -> str:
        """A tag's value: from version 2, for a tag of :data:`recorddictionary.DERIVED` that has a derived value, a
        bit (1 = derived) and, among several, the index of the one it is; else as :meth:`coded_value` codes it.
        ``key`` is the name's :func:`recordvalues.last_key` where known (its facts then by index).

        :raises InvalidDataError: (reading) on a derived value coded otherwise, or a derivation that gives none.
        """
        known = 0 <= key < LAST_START
        if self.s.version < 2:
            index = -1
        else:
            index = _DERIVED_AT[key] if known else DERIVED_INDEX.get(name, -1)
        if index < 0:
            return self.coded_value(name, value, key)
        c = self.c
        derivations = self.derivations(name)
        if all(derived is None for derived in derivations):
            return self.coded_value(name, value, key)
        choice = derivations.index(value) if c.writing and value in derivations else -1
        if c.bit(self.m.flags, F_DERIVED + index, int(choice >= 0)):
            choice = c.uniform(len(derivations), choice) if len(derivations) > 1 else 0
            derived = derivations[choice]
            if derived is None or derivations.index(derived) != choice:
                raise InvalidDataError(f"tag {name!r}: derivation {choice} gives no value, or one coded before")
            return derived
        value = self.coded_value(name, value, key)
        if not c.writing and value in derivations:
            raise InvalidDataError(f"tag {name!r} value {value!r} is derived but coded in full")
        return value

    def derivations(self, name: str) -> list[str | None]:
        """The values tag ``name`` (of :data:`recorddictionary.DERIVED`) may be derived as, from the game and the tags
        coded before it; ``None`` where a derivation gives none."""
        tags = self.s.tags
        if name == "CurrentPosition":
            fields = self.s.final.fen().split(" ")
            return [" ".join(fields[:4]) if len(fields) == 6 else None]
        if name == "StartTime":
            return [tags.get("UTCTime")]
        result = tags.get("Result")
        winner = tags.get("White") if result == "1-0" else tags.get("Black") if result == "0-1" else None
        return [None if "{winner}" in text and winner is None else text.replace("{winner}", winner or "")
                for text in _TERMINATIONS]

    def coded_value(self, name: str, value: str, key: int = -1) -> str:
        """A tag's value by its kind: text, worded text, or a typed value (a bit, then the value in its form or as
        text); ``key`` as :meth:`tag_value` takes it.

        :raises InvalidDataError: (reading) on a value coded as text that has a type, or the other way round."""
        c, m = self.c, self.m
        if 0 <= key < LAST_START:
            kind, what, player = _KIND_AT[key], _WHAT_AT[key], _PLAYER_AT[key]
        else:
            kind, what, player = TAG_KIND.get(name, KIND_TEXT), value_what(name), name in _PLAYERS
        if kind == KIND_TEXT:
            if self.s.version >= 3 and player:  # a user name (a bit), or any other text
                if c.bit(m.flags, F_USER_NAME, int(not c.writing or is_user_name(value))):
                    value = m.player.code(c, value, what)
                    if not c.writing and not is_user_name(value):
                        raise InvalidDataError(f"{what} {value!r} coded as a user name")
                    return value
                value = m.text.code(c, value, what)
                if not c.writing and is_user_name(value):
                    raise InvalidDataError(f"{what} {value!r} is a user name but coded as text")
                return value
            return m.text.code(c, value, what)
        if kind == KIND_WORDED:
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
        """The value coder of typed kind ``kind`` (:data:`TYPED_KINDS`): it checks (``check``) or codes ``value``."""
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
            return value if is_date(value) else None
        last = self.s.last_date
        if last is not None and c.bit(m.flags, F_DATE_SAME, int(value == last)):
            return last
        parts = value.split(".") if c.writing else ["????", "??", "??"]
        year = 0
        if not c.bit(m.flags, F_DATE_UNKNOWN_YEAR, int(parts[0] == "????")):
            year = 1 + YEAR_ORIGIN - m.signed.code(c, YEAR_ORIGIN - int(parts[0]) if parts[0] != "????" else 0, 2)
            if not 0 < year <= 10_000:
                raise InvalidDataError(f"year {year - 1} of a date")
        month = c.uniform(13, 0 if parts[1] == "??" else int(parts[1]))
        day = c.uniform(32, 0 if parts[2] == "??" else int(parts[2]))
        text = ".".join(["????" if year == 0 else str(year - 1).zfill(4), "??" if month == 0 else _TWO_DIGITS[month],
                         "??" if day == 0 else _TWO_DIGITS[day]])
        if text == last:
            raise InvalidDataError(f"date {text} is the last date but coded in full")
        self.s.last_date = text
        return text

    def value_time(self, value: str, check: bool = False, name: str = "") -> str | None:
        c = self.c
        match = TIME_RE.fullmatch(value)
        if check:
            return value if match and int(match.group(1)) < 24 and int(match.group(2)) < 60 and int(
                match.group(3)) < 60 else None
        h, mi, s = [int(g) for g in match.groups()] if match else [0, 0, 0]
        h, mi, s = c.uniform(24, h), c.uniform(60, mi), c.uniform(60, s)
        return f"{h:02d}:{mi:02d}:{s:02d}"

    def value_elo(self, value: str, check: bool = False, name: str = "") -> str | None:
        c, m = self.c, self.m
        number = decimal_value(value)
        if check:
            return value if number is not None and number < 4096 else None
        other = decimal_value(self.s.tags.get("WhiteElo" if name == "BlackElo" else "BlackElo", "x"))
        if other is not None and other < 4096:
            elo = other + m.signed.code(c, (number or 0) - other, 0)
        elif self.s.version >= 3:  # the high bits by how usual they are, the low ones uniform
            low = 12 - ELO_HIGH_BITS
            elo = m.elo.code(c, (number or 0) >> low) << low
            elo += c.uniform(1 << low, (number or 0) & ((1 << low) - 1))
        else:
            elo = c.uniform(4096, number or 0)
        if not 0 <= elo < 4096:
            raise InvalidDataError(f"Elo {elo}")
        return str(elo)

    def value_diff(self, value: str, check: bool = False, name: str = "") -> str | None:
        c, m = self.c, self.m
        if check:
            return value if is_signed(value) else None
        other = self.s.tags.get("WhiteRatingDiff" if name == "BlackRatingDiff" else "BlackRatingDiff", "x")
        expected = None if is_signed(other) or self.s.version < 3 else self.expected_change(name)
        if expected is not None:  # version 3: from the Elos and the result
            prediction, group = expected, 3
        else:
            prediction, group = -int(other) if is_signed(other) else 0, 1
        diff = prediction + m.signed.code(c, int(value) - prediction if c.writing else 0, group)
        return f"{diff:+d}"

    def expected_change(self, name: str) -> int | None:
        """Version 3's prediction of a side's rating change from both Elos and the ``Result`` tag (``None`` without
        them): :data:`RATING_K` times its score less its expected score, rounded down."""
        tags = self.s.tags
        white, black = decimal_value(tags.get("WhiteElo", "x")), decimal_value(tags.get("BlackElo", "x"))
        score = SCORES.get(tags.get("Result", ""), -1)
        if white is None or black is None or score < 0:
            return None
        difference = min(max(white - black, -800), 800)
        expected = EXPECTED_SCORE[(difference + 825) // 50]
        change = (RATING_K * (500 * score - expected) + 500) // 1000
        return change if name == "WhiteRatingDiff" else -change

    def value_timecontrol(self, value: str, check: bool = False, name: str = "") -> str | None:
        c, m = self.c, self.m
        version = self.s.version
        if check:
            typed = time_control(value) is not None or (version >= 2 and positive_text(value, 7))
            return value if typed else None
        bare = version >= 2 and c.bit(m.flags, F_TC_BARE, int("+" not in value))
        if bare and c.writing:
            value += "+0"
        common = _TIME_CONTROLS
        if c.bit(m.flags, F_COMMON_TC, int(value not in common)):
            base, increment = [int(n) for n in value.split("+")] if c.writing else [0, 0]
            base = m.small.code(c, base - 1, 1) + 1
            increment = m.small.code(c, increment, 2)
            text = f"{base}+{increment}"
            if text in common:
                raise InvalidDataError(f"time control {text} is common but coded in full")
        elif version >= 3:  # by how usual it is at the speed the event names
            index = m.control.code(c, common.index(value) if c.writing else 0, self.event_speed())
            if index >= len(common):
                raise InvalidDataError(f"time control index {index} of {len(common)}")
            text = common[index]
        else:
            text = common[c.uniform(len(common), common.index(value) if c.writing else 0)]
        base, increment = [int(n) for n in text.split("+")]
        self.s.base_ms, self.s.increment_ms = base * 1000, increment * 1000
        if bare:
            if increment:
                raise InvalidDataError(f"time control {text} written without its increment")
            return str(base)
        return text

    def event_speed(self) -> int:
        """The context of version 3's time control: the first of :data:`recorddictionary.SPEEDS` the ``Event`` holds."""
        event = self.s.tags.get("Event", "")
        for word, context in _SPEEDS:
            if word in event:
                return context
        return 0

    def value_eco(self, value: str, check: bool = False, name: str = "") -> str | None:
        if check:
            return value if value in ECO_CODES else None
        if self.s.version >= 3:  # the letter, then the number, under the class of the game's first plies
            m = self.m
            start = self.s.final.eco_start()
            letter = m.eco.code(self.c, "ABCDE".index(value[0]) if self.c.writing else 0, start)
            if letter >= 5:
                raise InvalidDataError(f"ECO letter {letter}")
            number = m.eco_number.code(self.c, int(value[1:]) if self.c.writing else 0, start * 5 + letter)
            if number >= 100:
                raise InvalidDataError(f"ECO number {number}")
            return "ABCDE"[letter] + _TWO_DIGITS[number]
        code = self.c.uniform(500, ("ABCDE".index(value[0]) * 100 + int(value[1:])) if self.c.writing else 0)
        return "ABCDE"[code // 100] + _TWO_DIGITS[code % 100]

    def value_result(self, value: str, check: bool = False, name: str = "") -> str | None:
        results = _RESULTS
        if check:
            return value if value in results else None
        if self.s.version >= 3:
            return results[self.m.result.code(self.c, results.index(value) if self.c.writing else 0)]
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
        prefixes = _PREFIXES[name]
        index = m.prefix.at_most(c, len(prefixes) - 1, PREFIX_WHAT[name],
                                 prefix_index(name, value) if c.writing else 0,
                                 PREFIX_CONTEXT[name] if self.s.version >= 3 else 0)
        prefix = prefixes[index]
        rest = value[len(prefix):]
        after = 0 if not prefix else 1 if prefix.endswith("/") else 2
        kind = m.rest.code(c, rest_kind(rest) if c.writing else REST_TEXT,
                           3 * PREFIX_CONTEXT[name] + after if self.s.version >= 3 else after)
        if kind == REST_NONE:
            rest = ""
        elif kind == REST_DECIMAL:
            rest = self.rest_decimal(rest)
        elif kind == REST_ID:
            if c.bit(m.flags, F_ID_NOT_8, int(len(rest) != 8)):
                length = m.ids.at_most(c, 63, "identifier length", len(rest) - 1) + 1
                if length == 8:
                    raise InvalidDataError("an identifier of 8 characters coded by its length")
            else:
                length = 8
            rest = "".join(ID62[c.uniform(62, ID62_INDEX[rest[i]] if c.writing else 0)] for i in range(length))
        elif self.s.version >= 2 and name in _WORDED_PREFIXED:
            rest = self.rest_worded(rest, value_what(name))
        else:
            rest = m.text.code(c, rest, value_what(name))
        if not c.writing and (prefix_index(name, prefix + rest) != index or rest_kind(rest) != kind):
            raise InvalidDataError(f"tag {name!r} value {prefix + rest!r} not coded by its longest prefix and kind")
        return prefix + rest

    def rest_decimal(self, rest: str) -> str:
        """A decimal after a prefix: a number (version 1); from version 2 its count of digits less one (a number,
        group 5), then each digit uniform (the first of several uniform(9) from 1), as a game id is."""
        c, m = self.c, self.m
        if self.s.version < 2:
            return str(m.small.code(c, int(rest) if c.writing else 0, 3))
        digits = m.small.at_most(c, 11, "decimal digits", len(rest) - 1, 5) + 1
        given = [int(digit) for digit in rest] if c.writing else [0] * digits
        lead = c.uniform(10, given[0]) if digits == 1 else 1 + c.uniform(9, max(given[0] - 1, 0))
        return "".join([str(lead), *(str(c.uniform(10, given[i])) for i in range(1, digits))])

    def rest_worded(self, rest: str, what: str) -> str:
        """A text after a prefix as worded text (version 2), whose end may be moves of the game: a bit (flag 30),
        1 = it ends with ``-`` and the game's plies ``first`` to ``last`` as chess.com's opening URLs write them
        (:meth:`FinalPosition.moves_text`; ``last`` then ``last - first`` as numbers, group 6 and 7), the first such
        plies :func:`recordvalues.moves_suffix` finds; then the rest before them, worded.

        :raises InvalidDataError: (reading) on plies that are not the ones a writer finds in the text read."""
        c, m = self.c, self.m
        final = self.s.final
        found = moves_suffix(rest, final) if c.writing else None
        if not c.bit(m.flags, F_MOVES_SUFFIX, int(found is not None)):
            rest = m.words.code(c, rest, what)
            if not c.writing and moves_suffix(rest, final) is not None:
                raise InvalidDataError(f"{what} {rest!r} ends with the game's moves but is coded as text")
            return rest
        first, last = found if found is not None else (0, 0)
        last = m.small.at_most(c, MOVES_SUFFIX_PLIES - 1, "suffix ply", last, 6)
        first = last - m.small.at_most(c, last, "suffix plies", last - first, 7)
        suffix = final.moves_text(first, last)
        if suffix is None:
            raise InvalidDataError(f"{what}: plies {first} to {last} of the game are not all there")
        head = m.words.code(c, rest[: len(rest) - len(suffix) - 1] if c.writing else "", what)
        rest = f"{head}-{suffix}"
        if not c.writing and moves_suffix(rest, final) != (first, last):
            raise InvalidDataError(f"{what} {rest!r} is not coded with the moves a writer finds at its end")
        return rest
