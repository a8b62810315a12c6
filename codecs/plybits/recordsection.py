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

Reading and writing share one description of the layout (:class:`_Section`, its models and value coders; the
tags are :mod:`plybits.recordtags`, the models :mod:`plybits.recordmodels`, the values' forms
:mod:`plybits.recordvalues`):
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
from plybits.annotations import MAX_DEPTH, Comment, Line, Notes, Step
from plybits.deadline import check as check_deadline
from plybits.errors import DeadlineExceededError, InvalidDataError, InvalidRecordError, LimitExceededError, PlybitsError
from plybits.game import Position
from plybits.recordcoder import Reader, Writer
from plybits.recordmodels import (
    F_EVAL_MATE, F_EVAL_PART, F_EVAL_SHORT, F_LINE_COMMENT, F_NAG_BIG, F_RESULT_SAME, F_STEPS, F_VARIATIONS,
    FinalPosition, State, next_pace, pace_context, release_models,
)
from plybits.recordtags import TagCoder
from plybits.recordvalues import (
    COMMAND_RE, KIND_TEXT, MAX_CLOCK_MS, MAX_EVAL, POWERS_OF_TEN, TAG_KIND, TYPED_KINDS, clock_text, clock_value,
    eval_text, eval_value, is_date, positive_text, time_control,
)
from plybits.registry import AnyScheme

SECTION_VERSION = 3
"""The layout version written as the section's first byte (it names the dictionary version too)."""
READABLE_VERSIONS = (1, 2, 3)
"""The layout versions read (version 2 is version 1 with tags derived from the game, time controls without an
increment and worded opening URLs; version 3 is version 2 with measured priors and tag values predicted from the
game and the tags before them: docs/format.md)."""
MAX_COUNT = 1 << 16
"""Most comments or NAGs a step may hold, or variations a step may branch into."""
MAX_SKELETON_PARTS = 256
"""Most parts (texts and commands) of one comment's skeleton: a comment with more is kept as one text."""
SKELETON_CACHE = 64
"""Skeletons the cache remembers (the most recently used)."""

TOPICS = ("tags", "clock", "eval", "comment", "nag", "variation", "structure")
"""What :func:`section_costs` accounts bits to."""


class _Section(TagCoder):
    """The layout of a section, for a writer and a reader alike: the tags (:class:`TagCoder`), then the rest."""

    # ------------------------------------------------------------------------------------------- comments

    def comments(self, comments: Sequence[Comment], ply: int, ctx: int) -> list[Comment]:
        c, m = self.c, self.m
        c.topic = "structure"
        count = m.count.at_most(c, MAX_COUNT, "comment count", len(comments), ctx)
        return [self.comment(comments[i] if c.writing else Comment(""), ply) for i in range(count)]

    def comment(self, comment: Comment, ply: int) -> Comment:
        c, m, s = self.c, self.m, self.s
        c.topic = "comment"
        line = bool(c.bit(m.flags, F_LINE_COMMENT, int(comment.line)))
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
                parts.append(dictionary.EVAL if c.bit(m.flags, F_EVAL_PART, int(part == dictionary.EVAL))
                             else dictionary.EMT)
            previous = kind
        return tuple(parts)

    def clock(self, value: tuple[int, int] | None, ply: int) -> str:
        c, m, s = self.c, self.m, self.s
        c.topic = "clock"
        ms, digits = value if value is not None else (0, 0)
        if s.version >= 2:  # by the last two clocks' digits (chess.com writes no .0)
            digits = m.pace_precision.code(c, digits, s.precision * 5 + s.precision_before)
            s.precision_before = s.precision
        else:
            digits = m.precision.code(c, digits, s.precision)
        s.precision = digits
        unit = POWERS_OF_TEN[3 - digits]
        side = ply & 1
        last = s.clock[side]
        if last is None:
            other = s.clock[1 - side]
            prediction = s.base_ms if s.base_ms is not None else other if other is not None else 0
            ctx = 0
        elif s.version >= 2:
            prediction = last + s.increment_ms
            ctx = pace_context(s, side)
        else:
            prediction = last + s.increment_ms
            ctx = 1 + min(((s.spent[side] * 3 + s.spent[1 - side]) // 4).bit_length(), 14)
        ctx += 16 if digits else 0
        model = m.pace_clock if s.version >= 2 else m.clock
        spent = model.code(c, prediction // unit - ms // unit, ctx)
        clock = (prediction // unit - spent) * unit
        if not 0 <= clock < MAX_CLOCK_MS:
            raise InvalidDataError(f"clock of {clock} ms")
        s.clock[side] = clock
        s.spent[side] = abs(spent) * unit // 1000
        s.last_spent[side] = abs(spent) * unit
        s.pace[side] = next_pace(s.pace[side], abs(spent) * unit)
        return clock_text(clock, digits)

    def emt(self, value: tuple[int, int] | None, ply: int) -> str:
        c, m, s = self.c, self.m, self.s
        c.topic = "clock"
        ms, digits = value if value is not None else (0, 0)
        digits = m.precision.code(c, digits, 4)
        unit = POWERS_OF_TEN[3 - digits]
        side = ply & 1
        elapsed = m.emt.code(c, ms // unit, min(s.emt[side].bit_length(), 12)) * unit
        if elapsed >= MAX_CLOCK_MS:
            raise InvalidDataError(f"elapsed time of {elapsed} ms")
        s.emt[side] = elapsed // 1000
        return clock_text(elapsed, digits)

    def eval(self, value: tuple[bool, int, int] | None) -> str:
        c, m, s = self.c, self.m, self.s
        c.topic = "eval"
        mate, number, digits = value if value is not None else (False, 0, 2)
        mate = bool(c.bit(m.flags, F_EVAL_MATE + int(s.eval_mate), int(mate)))
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
            short = c.bit(m.flags, F_EVAL_SHORT + s.eval_short, int(digits == 1))
            digits = 1 if short else 2
            s.eval_short = short
        else:
            digits = 2
        s.eval_mate, s.eval_value, s.eval_swing = False, number, abs(delta)
        s.step_swing = abs(delta)
        return self.eval_checked(False, number, digits)

    def eval_checked(self, mate: bool, number: int, digits: int) -> str:
        """The text of an evaluation, checked (reading) to be one a writer codes as a number."""
        text = eval_text(mate, number, digits)
        if not self.c.writing and eval_value(text) != (mate, number, digits):
            raise InvalidDataError(f"evaluation {text!r} coded as a number")
        return text

    # ------------------------------------------------------------------------------------- steps and lines

    def result(self, result: str | None) -> str | None:
        c = self.c
        c.topic = "tags"
        tag = self.s.tags.get("Result")
        if c.bit(self.m.flags, F_RESULT_SAME, int(result != tag)):
            choices: list[str | None] = [None, *dictionary.RESULTS]
            index = c.uniform(len(choices) + 1, choices.index(result) if result in choices else len(choices))
            result = choices[index] if index < len(choices) else self.m.text.code(c, result or "", "result")
            if result == tag or (index == len(choices) and result in choices):
                raise InvalidDataError(f"result {result!r} not coded as a writer codes it")
            return result
        return tag


def _command_value(match: re.Match[str]) -> Any:
    """The value of a comment command (:data:`COMMAND_RE`), or ``None`` if it stays text."""
    return _value_of(dictionary.COMMANDS[match.group(1)], match.group(2))


def _value_of(command: int, text: str) -> Any:
    """The value of the text of a ``command`` (:data:`recorddictionary.COMMANDS`), or ``None`` if it stays text."""
    return eval_value(text) if command == dictionary.EVAL else clock_value(text)


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
                    _command_value(match) is not None for match in COMMAND_RE.finditer(part))):
                return False
            after_text = True
        else:
            after_text = False
    return True


def _comment_parts(text: str) -> tuple[tuple[str | int, ...], list[Any]]:
    """A comment's skeleton (literal texts and commands) and the value of each command, in order: of a comment with
    one ``[%`` at the most (``{ [%clk 0:10:00] }``, the usual one), as :func:`_commands_parts` splits it, read
    without the regex."""
    start = text.find("[%")
    if start < 0:
        return ((text,) if text else ()), []
    if text.find("[%", start + 2) >= 0:
        return _commands_parts(text)
    # the one place COMMAND_RE can match: "[%", a command's name, a space, then no bracket up to the first "]"
    space = text.find(" ", start)
    end = text.find("]", start) + 1
    command = dictionary.COMMANDS.get(text[start + 2:space], 0) if 0 < space < end else 0
    value = _value_of(command, text[space + 1:end - 1]) if command and "[" not in text[space:end] else None
    if value is None:
        return (text,), []
    if start:
        return ((text[:start], command, text[end:]) if end < len(text) else (text[:start], command)), [value]
    return ((command, text[end:]) if end < len(text) else (command,)), [value]


def _commands_parts(text: str) -> tuple[tuple[str | int, ...], list[Any]]:
    """A comment's skeleton (literal texts and commands) and the value of each command, in order, by
    :data:`COMMAND_RE`."""
    parts: list[str | int] = []
    values: list[Any] = []
    pos = 0
    for match in COMMAND_RE.finditer(text):
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
        c.bit(self.m.flags, F_STEPS + min(depth, 1), int(bool(steps)))
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
                if c.bit(m.flags, F_NAG_BIG, int(not 0 <= nag < 256)):
                    m.small.code(c, nag - 256, 4)
                else:
                    m.nag.code(c, nag)
        c.topic = "variation"
        if c.bit(m.flags, F_VARIATIONS, int(bool(step.variations))):
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
    def __init__(self, c: Reader, scheme: AnyScheme, state: State, max_plies: int, version: int) -> None:
        super().__init__(c, scheme, state)
        self.r = c
        self.plies_left = max_plies
        """Variation plies the section may still hold."""
        self.version = version

    def steps(self, position: Position[Any], moves: Sequence[Any], ply: int, depth: int) -> list[Step[Any]]:
        self.c.topic = "structure"
        if not self.c.bit(self.m.flags, F_STEPS + min(depth, 1)):
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
                big = c.bit(m.flags, F_NAG_BIG)
                step.nags.append(m.small.code(c, 0, 4) + 256 if big else m.nag.code(c))
        if c.bit(m.flags, F_VARIATIONS):
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
        if self.scheme.encode_version(position.copy(), moves, self.version).tobytes() != payload:  # canonical
            raise InvalidDataError(f"a variation at ply {ply} is not coded as the scheme codes its moves")
        line: Line[Any] = Line(moves=moves, comments=self.comments((), ply, 6))
        line.steps = self.steps(position, moves, ply, depth)
        return line



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


def _known(state: State, context: dict[str, str] | None) -> State:
    """``state`` predicting from ``context``: tags kept outside the section (a dataset's columns), as if it had read
    them (``Result`` for the result token, ``TimeControl`` for the clocks, a date for the next, an Elo for the other)."""
    for name, value in (context or {}).items():
        state.tags[name] = value
        kind = TAG_KIND.get(name, KIND_TEXT)
        if kind == TYPED_KINDS.index(dictionary.TIME_CONTROL):
            if control := time_control(value):
                state.base_ms, state.increment_ms = control[0] * 1000, control[1] * 1000
            elif state.version >= 2 and positive_text(value, 7):
                state.base_ms, state.increment_ms = int(value) * 1000, 0
        elif kind == TYPED_KINDS.index(dictionary.DATE) and is_date(value):
            state.last_date = value
    return state


def _write(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], notes: Notes[Any], tags: dict[str, str],
    costs: dict[str, float] | None = None, final: FinalPosition | None = None, version: int = SECTION_VERSION,
    context: dict[str, str] | None = None, tags_only: bool = False,
) -> bytes:
    if version not in READABLE_VERSIONS:
        raise ValueError(f"record section version {version} is not one this build writes")
    final = final if final is not None else FinalPosition(start, moves, None)
    coder = Writer(costs)
    writer = _NotesWriter(coder, scheme, _known(State(final, len(moves), version), context))
    writer.tags(tags)
    if tags_only and version >= 3:  # the rest is known: no annotations, the Result tag as the result token
        if notes.comments or notes.steps or notes.result != tags.get("Result"):
            raise ValueError("a tags-only section is written for notes of the Result tag alone")
        release_models(writer.m)
        return bytes([version]) + coder.finish()
    writer.result(notes.result)
    writer.comments(notes.comments, -1, 7)
    writer.steps(start, moves, notes.steps, 0, 0)
    release_models(writer.m)
    return bytes([version]) + coder.finish()


def write_section(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], notes: Notes[Any], tags: dict[str, str], *,
    final: Position[Any] | None = None, version: int = SECTION_VERSION, context: dict[str, str] | None = None,
    tags_only: bool = False,
) -> bytes:
    """The record section of a full-fidelity container: the tags and everything in ``notes``, in layout ``version``
    (one of :data:`READABLE_VERSIONS`; an older one only to show that its sections are still written the same).
    ``tags_only``: the section of a moves-fidelity container, whose ``notes`` are the ``Result`` tag's token alone;
    from version 3 it codes the tags alone, so that its decisions begin every full section of the game's.

    ``moves`` are the mainline (legal, played from ``start``, which is not changed; ``final``, when given, the
    position after them, which spares replaying them); variations are coded with ``scheme`` from the position
    where they branch. ``context``: tags the record has that are kept elsewhere (an archive's typed columns,
    :mod:`plybits.archive`): not written, but predicted from as if they were; the reader must be given the same.

    :raises InvalidRecordError: if ``notes`` does not fit ``moves`` (a step count that is neither 0 nor the
        number of moves) or holds text that UTF-8 cannot store.
    :raises LimitExceededError: if a text, count, number or nesting is over the section's limits.
    """
    return _write(scheme, start, moves, notes, tags, final=FinalPosition(start, moves, final), version=version,
                  context=context, tags_only=tags_only)


def section_costs(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], notes: Notes[Any], tags: dict[str, str], *,
    version: int = SECTION_VERSION, context: dict[str, str] | None = None,
) -> tuple[bytes, dict[str, float]]:
    """:func:`write_section`'s section and where its bits go: bits by :data:`TOPICS` (for benchmarks)."""
    costs: dict[str, float] = {}
    return _write(scheme, start, moves, notes, tags, costs, version=version, context=context), costs


def read_section(
    scheme: AnyScheme, start: Position[Any], moves: Sequence[Any], data: bytes, *, max_plies: int,
    version: int | None = None, final: Position[Any] | None = None, context: dict[str, str] | None = None,
    tags_only: bool = False,
) -> tuple[Notes[Any], dict[str, str]]:
    """The notes and tags of a record section that :func:`write_section` made for ``moves`` played from ``start``
    (not changed; ``final``, when given, the position after them); ``version`` is the container's scheme version
    (default: ``scheme.version``), under which its variations are decoded, and at most ``max_plies`` variation
    plies are read; ``context``: the tags :func:`write_section` was given as context (they are not returned);
    ``tags_only``: a moves-fidelity container's section (from version 3 it holds the tags alone).

    :raises InvalidDataError: on anything that is not a section :func:`write_section` made.
    """
    if not data:
        raise InvalidDataError("empty record section")
    if data[0] not in READABLE_VERSIONS:
        raise InvalidDataError(
            f"record section version {data[0]} is not supported (this build reads {', '.join(map(str, READABLE_VERSIONS))})")
    after = FinalPosition(start, moves, final)
    reader = _NotesReader(Reader(data[1:]), scheme, _known(State(after, len(moves), data[0]), context), max_plies,
                          scheme.version if version is None else version)
    try:
        tags = reader.tags({})
        if tags_only and data[0] >= 3:
            reader.r.finish()
            release_models(reader.m)
            return Notes(result=tags.get("Result")), tags
        notes: Notes[Any] = Notes(result=reader.result(None))
        notes.comments = reader.comments((), -1, 7)
        notes.steps = reader.steps(start, moves, 0, 0)
        reader.r.finish()
        release_models(reader.m)
    except InvalidDataError as err:
        raise InvalidDataError(f"record section: {err.reason}", ply=err.ply) from None
    except DeadlineExceededError:
        raise
    except PlybitsError as err:
        raise InvalidDataError(f"record section: {err.reason}") from None
    return notes, tags

