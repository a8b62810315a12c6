"""PGN read (tags and mainline) and write.

What a move list cannot carry is dropped and counted in :attr:`Record.dropped`:
``comments`` (``{...}`` and ``; ...`` in the mainline), ``nags`` (``$n`` and the
``!``/``?`` marks, whether standing alone or glued to a move) and ``variations``
(each top-level ``( ... )``, counted once with everything nested inside it).
A record whose ``Variant`` tag names anything but standard chess or Chess960 is
refused with :class:`~plybits.errors.InvalidRecordError`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from plybits.errors import InvalidRecordError
from plybits.game import Record
from plybits.pgntext import comment_open_after, movetext, result_token, tag_line, unescape

TAG_REGEX = re.compile(r'^\[\s*([A-Za-z0-9][A-Za-z0-9_+#=:-]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
TOKEN_REGEX = re.compile(
    r"""
    (\{[^}]*\}?)                # 1 comment (may run to the end when unclosed)
    |(;[^\n]*)                  # 2 rest-of-line comment
    |(\$[0-9]+)                  # 3 NAG
    |(\()                       # 4 variation start
    |(\))                       # 5 variation end
    |(1-0|0-1|1/2-1/2|\*)(?=[\s(){};]|$)   # 6 result
    |([0-9]+\.+|(?!0000(?:\s|$))[0-9]+(?=\s|$))   # 7 move number
    |(\.+)                      # 8 stray dots ("1. ... e5")
    |([!?]+)(?=[\s(){};$]|$)    # 9 stand-alone annotation
    |([^\s(){};$]+)             # 10 move
    """,
    re.VERBOSE,
)
SUFFIX_REGEX = re.compile(r"[!?]+$")
STANDARD_VARIANTS = frozenset(("", "standard", "chess", "classical", "normal", "illegal", "from position"))
CHESS960_VARIANTS = frozenset(("chess960", "chess 960", "fischerandom", "fischerrandom", "fischer random", "960"))
SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
MAX_TAG_LINES = 10_000


def split_tags(text: str) -> tuple[dict[str, str], str]:
    """The tag pairs at the head of a PGN and the movetext after them (a BOM, CRLF and one blank line between tags allowed)."""
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    tags: dict[str, str] = {}
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith("%")):
        i += 1
    blank_run = 0
    while i < len(lines):
        line = lines[i].strip()
        if not line:
            # a blank line inside the tag block is allowed when more tags follow
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and lines[j].lstrip().startswith("[") and TAG_REGEX.match(lines[j].strip()) and blank_run == 0 and tags:
                blank_run += 1
                i = j
                continue
            break
        if line.startswith("%"):
            i += 1
            continue
        if not line.startswith("["):
            break
        match = TAG_REGEX.match(line)
        if not match:
            raise InvalidRecordError(f"malformed PGN tag line {line[:80]!r}")
        tags[match.group(1)] = unescape(match.group(2))
        blank_run = 0
        i += 1
    return tags, "\n".join(lines[i:])


def variant_of(tags: dict[str, str]) -> bool:
    """Whether the tags declare Chess960 (``False`` for standard chess).

    :raises InvalidRecordError: for any other variant.
    """
    variant = tags.get("Variant", "").strip()
    if variant.lower() in STANDARD_VARIANTS:
        return False
    if variant.lower() in CHESS960_VARIANTS:
        return True
    raise InvalidRecordError(f"variant {variant!r} is not supported: only standard chess and Chess960")


def parse_movetext(movetext: str) -> tuple[list[str], dict[str, int], str | None]:
    """The mainline move tokens, the dropped counts and the result token of PGN movetext.

    :raises InvalidRecordError: on unbalanced parentheses.
    """
    moves: list[str] = []
    comments = nags = variations = 0
    depth = 0
    result = None
    for match in TOKEN_REGEX.finditer(movetext):
        kind = match.lastindex
        if kind == 4:
            if depth == 0:
                variations += 1
            depth += 1
        elif kind == 5:
            if depth == 0:
                raise InvalidRecordError("unbalanced ')' in PGN movetext")
            depth -= 1
        elif depth:
            continue
        elif kind == 10:
            token = match.group(10)
            if result is not None:
                raise InvalidRecordError(f"move {token!r} after the result {result!r}")
            suffix = SUFFIX_REGEX.search(token)
            if suffix:
                nags += 1
                token = token[: suffix.start()]
                if not token:
                    continue
            moves.append(token)
        elif kind == 1 or kind == 2:
            comments += 1
        elif kind == 3 or kind == 9:
            nags += 1
        elif kind == 6:
            result = match.group(6)
    if depth:
        raise InvalidRecordError("unclosed '(' in PGN movetext")
    return moves, {"comments": comments, "nags": nags, "variations": variations}, result


def read_pgn(text: str) -> tuple[Record, bool]:
    """A PGN (or a bare move list) as a :class:`Record` and whether it declares Chess960.

    :raises InvalidRecordError: on malformed tags, parentheses, or a non-standard variant.
    """
    tags, movetext = split_tags(text)
    chess960 = variant_of(tags)
    if "%" in movetext:  # "%" escape lines are not movetext
        movetext = "\n".join(line for line in movetext.split("\n") if not line.startswith("%"))
    moves, dropped, _ = parse_movetext(movetext)
    start = tags.get("FEN") if tags.get("SetUp", "1") != "0" else None
    return Record(moves=moves, start=start, tags=tags, dropped=dropped), chess960


def split_records(text: str) -> Iterator[str]:
    """The games of a multi-game PGN, one text each, lazily (a new game starts at a tag line after movetext)."""
    text = text.lstrip("\ufeff")
    current: list[str] = []
    in_moves = False
    in_comment = False
    start = 0
    length = len(text)
    while start < length:
        end = text.find("\n", start)
        end = length if end < 0 else end + 1
        line = text[start:end]
        start = end
        stripped = line.strip()
        if not in_comment and in_moves and stripped.startswith("["):
            if any(s.strip() for s in current):
                yield "".join(current)
            current = []
            in_moves = False
        current.append(line)
        if stripped and not stripped.startswith("[") and not stripped.startswith("%"):
            in_moves = True
        if in_moves:
            in_comment = comment_open_after(line, in_comment)
    if any(s.strip() for s in current):
        yield "".join(current)


def write_pgn(record: Record, *, chess960: bool = False, first_turn_black: bool = False, first_number: int = 1) -> str:
    """A PGN of the record: the seven tags first, then the others, then the movetext wrapped at 80 columns."""
    tags = dict(record.tags)
    for name in SEVEN_TAGS:
        tags.setdefault(name, "*" if name == "Result" else "?")
    if record.start is not None:
        tags["SetUp"] = "1"
        tags["FEN"] = record.start
    if chess960:
        tags["Variant"] = "Chess960"
    ordered = [n for n in SEVEN_TAGS] + [n for n in tags if n not in SEVEN_TAGS]
    head = "".join(tag_line(name, tags[name]) + "\n" for name in ordered)
    body = movetext(record.moves, result_token(tags["Result"]), width=79, number=first_number, second_first=first_turn_black)
    return head + "\n" + body + "\n"
