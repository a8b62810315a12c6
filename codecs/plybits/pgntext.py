"""PGN-like record text shared by the games: the one reader, the one multi-record splitter, and the writer's parts.

Chess PGN, xiangqi PGN, APGN and the Entropy record are one grammar: ``[Name "value"]`` tag lines,
then movetext of move tokens, move numbers (``1.``, ``1...``), comments (``{...}`` and ``;`` to the end
of the line), NAGs (``$n``, ``!``/``?`` marks), variations (``( ... )``) and a result. :func:`read`
reads it, comments, NAGs and variations into a :class:`~plybits.annotations.Notes` tree (a game then reads
the tags it knows and the move tokens in its own notations);
:func:`split_records` and :func:`cut_records` cut a multi-record file into records, as python-chess's
``read_game`` does. Writing (:func:`movetext`) numbers the moves of the first mover as ``1.``, a second
mover's move as ``1...`` where it opens a line or follows a comment or variation, writes each move's NAGs,
comments and variations after it as python-chess's exporter does, and wraps the movetext at a fixed width.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

from mypy_extensions import i64

from plybits.annotations import MAX_DEPTH, MAX_NAG, Comment, Line, Notes, Step
from plybits.compiled import is_compiled
from plybits.errors import InvalidRecordError, LimitExceededError

RESULTS: Final = ("1-0", "0-1", "1/2-1/2", "*")
"""The result tokens of movetext."""
TAG: Final = re.compile(r'\[\s*([A-Za-z0-9_][A-Za-z0-9_+#=:-]*)\s+"((?:[^"\\]|\\.)*)"\s*\]')
"""A ``[Name "value"]`` tag pair: group 1 the name, group 2 the value still escaped."""
LOOSE_TAG: Final = re.compile(r'\[\s*([A-Za-z0-9_][A-Za-z0-9_+#=:-]*)\s+"(.*)"\s*\]')
"""A tag pair whose value holds unescaped quotes, as files in the wild write them (``[Event ""Cup" 2002"]``)."""
TOKEN: Final = re.compile(
    r"""
    (\{[^}]*\}?)                # 1 comment (to the end of the text when unclosed)
    |(;[^\n]*)                  # 2 rest-of-line comment
    |(\$[0-9]+)                 # 3 NAG
    |(\()                       # 4 variation start
    |(\))                       # 5 variation end
    |(1-0|0-1|1/2-1/2|\*)(?=[\s(){};]|$)    # 6 result
    |([0-9]+\.+|(?!0000(?:\s|$))[0-9]+(?=\s|$))    # 7 move number
    |(\.+)                      # 8 stray dots ("1. ... e5")
    |([!?]+)(?=[\s(){};$]|$)    # 9 stand-alone annotation
    |([^\s(){};$]+)             # 10 move
    |(\})                       # 11 stray closing brace
    """,
    re.VERBOSE,
)
"""One token of movetext; the group that matched says its kind."""
_SUFFIX: Final = re.compile(r"[!?]+$")


def escape(value: str) -> str:
    """A tag value with backslashes and double quotes escaped."""
    return value.replace("\\", "\\\\").replace('"', '\\"')


def unescape(value: str) -> str:
    """A tag value with ``\\"`` and ``\\\\`` unescaped (any other backslash kept as it is)."""
    if "\\" not in value:
        return value
    return re.sub(r'\\([\\"])', r"\1", value)


def tag_line(name: str, value: str) -> str:
    """The tag pair ``[name "value"]``, the value escaped (no newline)."""
    return f'[{name} "{escape(value)}"]'


def result_token(value: str | None) -> str:
    """``value`` when it is a result token, else ``*``."""
    return value if value in RESULTS else "*"


def annotated_words(
    moves: Sequence[str], notes: Notes[str] | None = None, *, number: int = 1, second_first: bool = False,
    numbers: bool = True, spell: Callable[[str], str] | None = None,
) -> list[str]:
    """The movetext words of ``moves`` and their ``notes`` (no result), in python-chess's exporter's order.

    Each move is preceded by its number (``N.`` before a first-mover move; ``N...`` before a second-mover
    move that starts a line or follows a comment or a variation) unless ``numbers`` is false, and followed by
    its NAGs (``$n``), its comments (``{text}`` exactly as read, ``;text`` ending its line) and its
    variations in parentheses, numbered from the ply they branch at. ``spell`` rewrites each move token.

    :raises InvalidRecordError: for a comment that its delimiters cannot hold (a ``}`` in a ``{...}``
        comment, a line break in a ``;`` one), which no record read could give.
    """
    words: list[str] = []
    offset = 1 if second_first else 0

    def comment(item: Comment) -> str:
        if ("\n" if item.line else "}") in item.text:
            raise InvalidRecordError(f"comment {item.text[:40]!r} cannot be written: it would end early")
        return f";{item.text}" if item.line else f"{{{item.text}}}"

    def line(tokens: Sequence[str], steps: Sequence[Step[str]], comments: Sequence[Comment], ply: int) -> None:
        words.extend(comment(item) for item in comments)
        force = True
        for index, token in enumerate(tokens):
            half = ply + index + offset
            if numbers:
                if half % 2 == 0:
                    words.append(f"{number + half // 2}.")
                elif force:
                    words.append(f"{number + half // 2}...")
            words.append(spell(token) if spell is not None else token)
            force = False
            if index < len(steps):
                step = steps[index]
                words.extend(f"${nag}" for nag in step.nags)
                words.extend(comment(item) for item in step.comments)
                force = bool(step.comments)
                for variation in step.variations:
                    words.append("(")
                    line(variation.moves, variation.steps, variation.comments, ply + index)
                    words.append(")")
                    force = True

    if notes is None:
        line(moves, (), (), 0)
    else:
        line(moves, notes.steps, notes.comments, 0)
    return words


def wrap(words: Iterable[str], width: int) -> list[str]:
    """The words joined by spaces into lines of at most ``width`` characters (a longer word stands alone); a
    ``;`` comment word ends its line."""
    lines: list[str] = []
    line: list[str] = []  # the words of the line, whose text is of ``size`` characters
    size = 0
    for word in words:
        if not size:
            line = [word]
            size = len(word)
        elif size + 1 + len(word) > width:
            lines.append(" ".join(line))
            line = [word]
            size = len(word)
        else:
            line.append(word)
            size += 1 + len(word)
        if word[:1] == ";":
            lines.append(" ".join(line))
            line = []
            size = 0
    if size or not lines:
        lines.append(" ".join(line))
    return lines


def movetext(
    moves: Sequence[str], result: str | None, *, width: int, number: int = 1, second_first: bool = False,
    notes: Notes[str] | None = None, numbers: bool = True, spell: Callable[[str], str] | None = None,
) -> str:
    """Numbered moves with their ``notes`` (:func:`annotated_words`) and the result (none when ``None``),
    wrapped at ``width`` columns, lines joined by newlines (none at the end)."""
    words = annotated_words(moves, notes, number=number, second_first=second_first, numbers=numbers, spell=spell)
    if result is not None:
        words.append(result)
    return "\n".join(wrap(words, width))


def closing(notes: Notes[str] | None, tag: str | None) -> str | None:
    """The token closing a movetext: the one the record's movetext had (none if it had none), or for bare moves
    (``notes`` is ``None``) the ``Result`` tag's (``*`` when it is not a result token)."""
    return result_token(tag) if notes is None else notes.result


NAG_MARKS: Final = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
"""The NAG of each ``!``/``?`` mark; a longer run of marks is read two characters at a time, as python-chess does."""
_MARKS: Final = re.compile(r"[!?]{1,2}")


def nags_of(marks: str) -> list[int]:
    """The NAGs a run of ``!``/``?`` marks writes (``"!!?"`` is ``!!`` then ``?``)."""
    return [NAG_MARKS[mark] for mark in _MARKS.findall(marks)]


@dataclass
class RecordText:
    """A record as the grammar reads it: tags, mainline move tokens as written, annotations, result."""

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str | None = None
    """The result token of the movetext, if it has one."""
    notes: Notes[str] = field(default_factory=Notes)
    """Comments, NAGs and variations beside :attr:`moves` (one step per move, or none when no move has a note),
    and the result token."""
    dropped: dict[str, int] = field(default_factory=dict)
    """``comments``, ``nags`` and ``variations`` of the mainline counted (a key only when there was one): what a
    move list cannot carry."""
    faults: list[InvalidRecordError] = field(default_factory=list)
    """What :attr:`notes` could not keep as written, each located at its (mainline) ply (an unclosed comment read to the end,
    a stray ``}``, a NAG or variation before any move, a result inside a variation): a full-fidelity encode
    refuses the record for the first of them."""


def read(text: str, *, kind: str, lenient: bool = False) -> RecordText:
    """A PGN-like record (or a bare move list): its tag section, then its movetext.

    The tag section is the ``[Name "value"]`` lines at the head (blank lines and ``%`` escape lines
    between them skipped; a leading BOM dropped); values are unescaped (``\\"``, ``\\\\``). In the
    movetext, move numbers are skipped; comments, NAGs (glued ``!``/``?`` marks included) and variations
    go to :attr:`RecordText.notes` where python-chess's reader puts them: a comment before the first move of
    the game or of a variation is that line's, any other follows the move before it; a NAG follows the move
    before it; a variation is an alternative to the move before it (to a variation's first move: a sibling of
    that variation). Those of the mainline are also counted
    in :attr:`RecordText.dropped` (each top-level variation once, with everything nested in it).
    ``lenient`` reads as python-chess does: an unclosed comment runs to the end, a stray ``}`` is skipped
    (each noted in :attr:`RecordText.faults`).

    :raises InvalidRecordError: on a malformed tag line (``kind`` names the format in the message),
        unbalanced parentheses or braces, or a move after the result.
    """
    tags, start = _tags(text, kind)
    movetext = text[start:]
    if "%" in movetext:  # "%" escape lines are not movetext
        movetext = "\n".join(line for line in movetext.split("\n") if not line.startswith("%"))
    record = RecordText(tags=tags)
    if not _plain_movetext(movetext, record):
        _movetext(movetext, record, lenient)
    return record


_PLAIN_TAG: Final = re.compile(r'\[([A-Za-z0-9_][A-Za-z0-9_+#=:-]*) "([^"\\\r\n]*)"\]\n')
"""A tag line as writers write it (one space, nothing escaped, no white space around): :data:`TAG` reads it alike."""
_PLAIN_TAGS: Final = re.compile(f"(?:{_PLAIN_TAG.pattern})+")
"""A run of :data:`_PLAIN_TAG` lines (read at once)."""


def _tags(text: str, kind: str) -> tuple[dict[str, str], int]:
    """The tags at the head of ``text`` and where its movetext starts."""
    tags: dict[str, str] = {}
    pos = 1 if text.startswith("\ufeff") else 0
    length = len(text)
    number = 0
    while pos < length:
        end = _plain_tag_line(text, pos, tags) if _COMPILED else 0
        if end:
            number += 1
            pos = end
            continue
        plain = _PLAIN_TAGS.match(text, pos)
        if plain is not None:
            lines = _PLAIN_TAG.findall(text, pos, plain.end())
            tags.update(lines)
            number += len(lines)
            pos = plain.end()
            continue
        end = text.find("\n", pos)
        end = length if end < 0 else end + 1
        line = text[pos:end].strip()
        number += 1
        if line and not line.startswith("%"):
            if not line.startswith("["):
                break
            match = TAG.fullmatch(line) or LOOSE_TAG.fullmatch(line)
            if match is None:
                raise InvalidRecordError(
                    f"malformed tag line {number}: unreadable {kind} tag {line[:80]!r}, expected [Name \"value\"]")
            tags[match.group(1)] = unescape(match.group(2))
        pos = end
    return tags, pos


_COMPILED: Final = is_compiled(sys.modules[__name__])
"""Whether this module runs compiled: :func:`_tags` then reads the common tag line by :func:`_plain_tag_line` (string
methods in C, where the two regex passes over the tag lines cost more); interpreted, the regexes are cheaper."""


def _plain_tag_line(text: str, pos: int, tags: dict[str, str]) -> int:
    """Where the line at ``pos`` ends (after its ``\\n``) when it is a :data:`_PLAIN_TAG` line with an ASCII
    letter-and-digit name (the common one), read into ``tags`` by string methods (no regex; compiled only, see
    :data:`_COMPILED`); else 0, nothing read."""
    if text[pos:pos + 1] != "[":
        return 0
    end = text.find("\n", pos)
    if end < 0:
        return 0
    space = text.find(' "', pos, end)
    if space < 0 or space + 1 >= end - 2 or text[end - 2:end] != '"]':  # two quotes, the value between them
        return 0
    name = text[pos + 1:space]
    value = text[space + 2:end - 2]
    if not (name.isascii() and name.isalnum()) or '"' in value or "\\" in value or "\r" in value:
        return 0
    tags[name] = value
    return end + 1


_NOTED: Final = "{}();$!?"
"""The characters that only a comment, NAG, mark or variation holds (or a stray one): movetext without any is plain."""
_NUMBERED: Final = re.compile(r"[0-9]+(?:\.+([A-Za-z].*))?|[0-9]+\.*")
"""A word of plain movetext that starts with a digit: a move number, alone (``12.``, ``12...``, ``12``) or glued to
its move (``1.e4``, group 1)."""


_MOVE_NUMBERS: Final = frozenset(f"{n}{dots}" for n in range(1, 1000) for dots in (".", "..."))
"""The commonest such words, move numbers alone (``12.``, ``12...``): skipped at one lookup each (pure Python)."""


def _number_alone(word: str) -> bool:
    """Whether ``word`` is a move number alone: ASCII digits, then dots or none (``12.``, ``12...``, ``12``), not the
    null move ``0000``; read from the characters' codes (compiled, in place: no hash of the word, new from the split,
    as the :data:`_MOVE_NUMBERS` lookup takes; pure Python's lookup is cheaper than this loop: it does not call it)."""
    size: i64 = len(word)
    i: i64 = 0
    while i < size:
        c: i64 = ord(word[i])
        if c < 48 or c > 57:
            break
        i += 1
    if i == 0:
        return False
    while i < size and ord(word[i]) == 46:
        i += 1
    return i == size and word != "0000"


def _plain_movetext(movetext: str, record: RecordText) -> bool:
    """Read movetext of moves, move numbers and a result only (the common case) exactly as :func:`_movetext`
    reads it, word by word instead of token by token; ``False``, with nothing read, for any other movetext.

    Without :data:`_NOTED` characters, a word is one move token unless it starts as a move number, a result or
    stray dots do (a digit, ``*``, ``.``: told by the first character's code): those words are read here when they
    are a result, a move number or a number glued to a move starting with a letter, and any other sends the movetext
    to the general reader.

    :raises InvalidRecordError: on a move after the result.
    """
    for mark in _NOTED:  # a substring search a character (memchr), where a regex's search is a step of sre a character
        if mark in movetext:
            return False
    moves: list[str] = []
    result = None
    for word in movetext.split():
        first = ord(word[0])  # compiled, the character's code read in place (no string made, no set lookup)
        if first < 58 and (first >= 48 or first == 46 or first == 42):  # a digit, "." or "*": a number or result
            if _number_alone(word) if _COMPILED else word in _MOVE_NUMBERS:
                continue
            if word in RESULTS:
                result = word
                continue
            digits = word.rstrip(".")
            if digits.isascii() and digits.isdigit() and word != "0000":  # a move number alone: "12.", "12..."
                continue
            number = _NUMBERED.fullmatch(word)
            if number is None:
                return False
            if number.group(1) is not None:
                word = number.group(1)
            elif word != "0000":  # a null move in UCI, not a move number
                continue
        if result is not None:
            raise InvalidRecordError(f"move {word!r} after the result {result!r}: one game per record")
        moves.append(word)
    record.moves += moves
    record.result = result
    record.notes = Notes(result=result)
    return True


def _last_step(line: Line[str]) -> Step[str]:
    """The step of ``line``'s last move; made when the move has none yet (with empty steps for the moves before
    it without one: steps are made only for a line with notes)."""
    steps = line.steps
    while len(steps) < len(line.moves):
        steps.append(Step())
    return steps[-1]


def _close(line: Line[str]) -> None:
    """Give every move of ``line`` its step when any has one (a line without notes keeps none)."""
    if line.steps:
        _last_step(line)


def _movetext(movetext: str, record: RecordText, lenient: bool) -> None:
    """Read ``movetext`` token by token into ``record`` (:func:`read`'s general reader)."""
    reader = _MovetextReader(record, lenient)
    for match in TOKEN.finditer(movetext):
        reader.token(match)
    reader.finish()


class _MovetextReader:
    """The state of :func:`_movetext`: the lines open (the mainline, then each open variation, each with the line
    whose last step holds it), the depth of variations skipped, the mainline's notes counted, the result."""

    def __init__(self, record: RecordText, lenient: bool) -> None:
        self.record = record
        self.lenient = lenient
        self.main: Line[str] = Line(moves=record.moves)
        self.lines = [self.main]
        """The mainline, then each open variation."""
        self.owners: list[Line[str]] = [self.main]
        """For each open variation (from index 1), the line whose last step holds it (the mainline for itself)."""
        self.skip = 0
        """Depth inside variations that are not kept (they vary no move, or nest too deep): counted, not read."""
        self.comments = self.nags = self.variations = 0
        self.result: str | None = None

    def fault(self, what: str) -> None:
        """Note what the tree does not keep as written, located at the mainline's last ply."""
        lines = self.lines
        where = f" (in a variation {len(lines) - 1} deep, after its move {len(lines[-1].moves)})" if len(lines) > 1 else ""
        self.record.faults.append(InvalidRecordError(f"{what}{where}", ply=max(len(self.main.moves) - 1, 0)))

    def note(self, comment: Comment) -> None:
        line = self.lines[-1]
        if line.moves:
            _last_step(line).comments.append(comment)
        else:
            line.comments.append(comment)

    def nag(self, values: list[int]) -> None:
        line = self.lines[-1]
        if line.moves:
            _last_step(line).nags.extend(values)
        else:
            self.fault(f"NAG {values} before the first move of its line is not kept")

    def token(self, match: re.Match[str]) -> None:
        """Read one :data:`TOKEN`."""
        kind = match.lastindex
        if kind == 10:
            if not self.skip:
                self.move(match.group(10))
        elif kind == 4:
            self.open()
        elif kind == 5:
            self.close(match.start())
        elif kind == 1 and not match.group(1).endswith("}"):
            if not self.lenient:
                raise InvalidRecordError(
                    f"unterminated comment at character {match.start()}: unclosed comment {match.group(1)[:40]!r}"
                    " (unbalanced brace)")
            self.fault(f"unclosed comment {match.group(1)[:40]!r} (unbalanced brace)")
            if not self.skip:
                self.comments += len(self.lines) == 1
                self.note(Comment(match.group(1)[1:]))
        elif kind == 11:
            if not self.lenient:
                raise InvalidRecordError(f"unbalanced brace: '}}' at character {match.start()} closes no comment")
            self.fault(f"'}}' at character {match.start()} closes no comment")
        elif self.skip:
            return
        elif kind == 1 or kind == 2:
            self.comments += len(self.lines) == 1
            self.note(Comment(match.group(1)[1:-1]) if kind == 1 else Comment(match.group(2)[1:], line=True))
        elif kind == 3:
            self.nags += len(self.lines) == 1
            self.numbered_nag(match.group(3)[1:])
        elif kind == 9:
            self.nags += len(self.lines) == 1
            self.nag(nags_of(match.group(9)))
        elif kind == 6:
            if len(self.lines) == 1:
                self.result = match.group(6)
            else:
                self.fault(f"result {match.group(6)!r} inside a variation is not kept")

    def move(self, token: str) -> None:
        """A move token, with any ``!``/``?`` marks glued to it (its NAGs)."""
        lines = self.lines
        if self.result is not None and len(lines) == 1:
            raise InvalidRecordError(f"move {token!r} after the result {self.result!r}: one game per record")
        suffix = _SUFFIX.search(token) if token[-1] in "!?" else None
        marks: list[int] = []
        if suffix:
            if len(lines) == 1:
                self.nags += 1
            marks = nags_of(suffix.group())
            token = token[: suffix.start()]
            if not token:
                self.nag(marks)
                return
        line = lines[-1]
        line.moves.append(token)
        if marks:
            _last_step(line).nags += marks

    def numbered_nag(self, digits: str) -> None:
        """A ``$n`` NAG (``digits`` is ``n``): kept up to :data:`~plybits.annotations.MAX_NAG`."""
        significant = digits.lstrip("0")
        if len(significant) > len(str(MAX_NAG)) or int(significant or "0") > MAX_NAG:
            self.fault(f"NAG of {len(digits)} digits is over the limit of {MAX_NAG}: not kept")
            return
        self.nag([int(digits)])

    def open(self) -> None:
        """A ``(``: a variation of the last move (of a variation's first move: a sibling of that variation, as
        python-chess reads it), not kept when it varies no move or nests deeper than
        :data:`~plybits.annotations.MAX_DEPTH`."""
        lines = self.lines
        if len(lines) == 1 and not self.skip:
            self.variations += 1
        if self.skip:
            self.skip += 1
        elif not lines[-1].moves:
            self.fault("a variation before the first move of its line varies no move: not kept")
            self.skip += 1
        elif len(lines) > MAX_DEPTH and len(lines[-1].moves) > 1:
            self.fault(f"variations nested deeper than {MAX_DEPTH} (the limit) are not kept")
            self.skip += 1
        else:
            variation: Line[str] = Line()
            owner = self.owners[-1] if len(lines) > 1 and len(lines[-1].moves) == 1 else lines[-1]
            _last_step(owner).variations.append(variation)
            lines.append(variation)
            self.owners.append(owner)

    def close(self, at: int) -> None:
        """A ``)`` at character ``at``."""
        if self.skip:
            self.skip -= 1
        elif len(self.lines) == 1:
            raise InvalidRecordError(f"unbalanced ')' at character {at}")
        else:
            _close(self.lines.pop())
            self.owners.pop()

    def finish(self) -> None:
        """End the movetext: every variation closed, the notes and counts in the record."""
        record = self.record
        if len(self.lines) > 1 or self.skip:
            raise InvalidRecordError("unterminated variation '(': a '(' is never closed")
        main = self.main
        _close(main)
        record.result = self.result
        record.notes = Notes(steps=main.steps, comments=main.comments, result=self.result)
        for name, count in (("comments", self.comments), ("nags", self.nags), ("variations", self.variations)):
            if count:
                record.dropped[name] = count


@dataclass(frozen=True)
class LongLine:
    """In place of a line of a record file over the line limit: its first bytes (enough to tell a tag line)."""

    head: bytes

    def is_tag(self) -> bool:
        """Whether the line starts a tag pair (``[`` after any white space and BOM)."""
        return self.head.lstrip(b" \t\r").removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r").startswith(b"[")


def split_records(text: str) -> Iterator[str]:
    """The records of a multi-record text, lazily, each the exact slice of ``text`` it was read from.

    Where python-chess's ``read_game`` ends a game, a record ends: at a blank line after movetext, or at
    a tag line after movetext; never inside a ``{...}`` comment. Blank lines go with the record before them.
    """
    lines = io.StringIO(text[1:] if text.startswith("\ufeff") else text, newline="\n")  # lines end at "\n" only
    for record in cut_records(lines, max_chars=None):
        if isinstance(record, str):  # without a limit, nothing else comes
            yield record


class RecordCuts:
    """Where the records of a multi-record file begin, read line by line: after movetext, at a blank line's next
    non-blank line or at a tag line; never inside a ``{...}`` comment (where python-chess's ``read_game`` ends a
    game)."""

    __slots__ = ("ended", "in_comment", "in_moves")

    def __init__(self) -> None:
        self.in_moves = False  # movetext seen in this record
        self.ended = False  # a blank line after the movetext: the next non-blank line starts a new record
        self.in_comment = False

    def starts_record(self, line: str | LongLine | None) -> bool:
        """Whether ``line`` (with its ``\\n``; a :class:`LongLine` or ``None`` for one over the line limit, read
        as movetext when its head is unknown) begins a new record; ``line`` is then read into the new one."""
        in_comment = self.in_comment
        if isinstance(line, str):  # the usual line (~30 a game), its state read and written once
            stripped = line.strip()
            blank = not stripped
            tag = stripped[:1] == "["
            new = not in_comment and ((self.ended and not blank) or (self.in_moves and tag))
            in_moves = self.in_moves and not new
            if new:
                self.ended = False
            if in_moves and not in_comment and blank:
                self.ended = True
            elif not blank and not tag and stripped[:1] != "%":
                in_moves = True
            self.in_moves = in_moves
            if in_moves and (in_comment or "{" in line or "}" in line):
                self.in_comment = comment_open_after(line, in_comment)
            return new
        tag = line is not None and line.is_tag()
        new = not in_comment and (self.ended or (self.in_moves and tag))
        if new:
            self.in_moves = self.ended = False
        if not tag and not in_comment:
            self.in_moves = True
        return new


def cut_records(lines: Iterable[str | LongLine | None], *, max_chars: int | None) -> Iterator[str | LimitExceededError]:
    """The records of a multi-record file given line by line (each line with its ``\\n``), lazily.

    Cut as :func:`split_records` cuts. A line given as a :class:`LongLine` (or ``None``, a line over the
    limit whose head is unknown: read as movetext) is not held: its record is answered by a
    :class:`LimitExceededError`, as is a record of more than ``max_chars`` characters; its neighbours are
    read as usual. Braces inside an over-long line are not seen.
    """
    piece: list[str] = []
    size = 0
    problem: str | None = None
    cuts = RecordCuts()

    def record() -> Iterator[str | LimitExceededError]:
        if problem is not None:
            yield LimitExceededError(problem)
        elif piece:
            text = "".join(piece)
            if not text.isspace():
                yield text

    for line in lines:
        if cuts.starts_record(line):
            yield from record()
            piece, size, problem = [], 0, None
        if not isinstance(line, str):
            problem = "a line of this record is longer than the line limit"
            continue
        if problem is not None:
            continue
        size += len(line)
        if max_chars is not None and size > max_chars:
            problem = f"record of more than {max_chars} characters is over the limit"
            piece = []
            continue
        piece.append(line)
    yield from record()


def comment_open_after(line: str, in_comment: bool) -> bool:
    """Whether a ``{...}`` comment is still open at the end of ``line``, given whether one was open at its start.

    PGN comments do not nest, and a ``;`` outside one comments out the rest of the line.
    """
    pos = 0
    while True:
        if in_comment:
            end = line.find("}", pos)
            if end < 0:
                return True
            in_comment, pos = False, end + 1
        else:
            semi, brace = line.find(";", pos), line.find("{", pos)
            if brace < 0 or 0 <= semi < brace:
                return False
            in_comment, pos = True, brace + 1
