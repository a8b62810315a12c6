"""APGN, the Abalone Portable Game Notation: a PGN-like tag header, then numbered move text and a result.

The format of ocj94/Abalassembly's ``APGN.en.md``::

    [Event "MIGS 29813"]
    [Black "abbelgriebsch"]
    [White "budgie"]
    [Variant "belgian"]
    [Result "0-1"]
    [Notation "Aba-Pro"]

    1. i9h8 i6h6 2. i8h7 a5b5 0-1

``Variant`` names the layout (``standard``, ``belgian``, ``german_daisy``); a ``Position``
tag (rows ``i`` to ``a``, optional ``-<n>b<n>w`` ejected suffix, side to move) takes
precedence over it. Result tokens: ``1-0`` black wins, ``0-1`` white wins,
``1/2-1/2`` draw, ``*`` unknown. Comments in braces are dropped and counted. A plain
whitespace-separated move list is read too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from plybits.abalone.board import LAYOUTS, WHITE, Board
from plybits.errors import InvalidPositionError, InvalidRecordError, UnsupportedError
from plybits.game import Record
from plybits.pgntext import RESULTS, TAG, result_token, tag_line, unescape_any
from plybits.pgntext import movetext as write_movetext

VARIANTS: Final[dict[str, str]] = {"standard": "standard", "belgian": "belgian-daisy", "german_daisy": "german-daisy"}
"""APGN ``Variant`` names this build has layouts for, and our start names."""
OTHER_VARIANTS: Final = frozenset(
    "dutch_daisy swiss_daisy alien alliances accelium atomouche centrifugeuse corners domination duel "
    "fujiyama snakes_variant star the_clearing the_wall".split()
)
"""APGN variants we know the names of but have no layout for (give a ``Position`` tag)."""
TAG_ORDER: Final = (
    "Event", "Date", "Black", "White", "Variant", "Result", "Notation",
    "SetUp", "Position", "Termination", "Plies", "Source", "BlackElo", "WhiteElo", "TimeControl", "Annotator",
)
_MANDATORY: Final = {"Event": "?", "Date": "????.??.??", "Black": "?", "White": "?", "Result": "*", "Notation": "Aba-Pro"}

_MOVE_NUMBER: Final = re.compile(r"^[0-9]+\.(?:\.\.)?")
_COMMENT: Final = re.compile(r"\{[^}]*\}")


def split_records(text: str) -> Iterator[str]:
    """The games of a multi-game APGN text, one text each, lazily."""
    lines: list[str] = []
    in_moves = False
    start = 0
    length = len(text)
    while start < length:
        end = text.find("\n", start)
        if end < 0:
            end = length
        line = text[start:end]
        start = end + 1
        stripped = line.strip()
        if stripped.startswith("[") and in_moves:
            if any(part.strip() for part in lines):
                yield "\n".join(lines) + "\n"
            lines, in_moves = [], False
        elif stripped and not stripped.startswith("["):
            in_moves = True
        lines.append(line)
    if any(part.strip() for part in lines):
        yield "\n".join(lines) + "\n"


def parse_record(text: str) -> Record:
    """Read one APGN game (or a plain move list).

    :raises InvalidRecordError: on an unreadable header, an unknown variant, a result that
        disagrees with the ``Result`` tag, or text after the result.
    :raises UnsupportedError: for a Nacre record or a variant without a layout here.
    """
    tags: dict[str, str] = {}
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("[") and not body:
            match = TAG.fullmatch(stripped)
            if match is None:
                raise InvalidRecordError(f"line {number}: unreadable APGN tag {stripped[:80]!r}")
            tags[match.group(1)] = unescape_any(match.group(2))
        elif stripped:
            body.append(stripped)
    movetext = " ".join(body)
    comments = len(_COMMENT.findall(movetext))
    movetext = _COMMENT.sub(" ", movetext)
    if "{" in movetext or "}" in movetext:
        raise InvalidRecordError("unbalanced brace in APGN move text")
    moves: list[str] = []
    result: str | None = None
    for token in movetext.split():
        if result is not None:
            raise InvalidRecordError(f"text {token!r} after the result {result!r}: one game per record")
        numbered = _MOVE_NUMBER.match(token)
        if numbered:
            token = token[numbered.end():]
            if not token:
                continue
        if token in RESULTS:
            result = token
            continue
        moves.append(token)
    tag_result = tags.get("Result")
    if result is not None and tag_result is not None and result != tag_result:
        raise InvalidRecordError(f"result {result!r} in the move text disagrees with the Result tag {tag_result!r}")
    notation = tags.get("Notation")
    if notation is not None and notation.lower().replace("-", "") != "abapro":
        raise UnsupportedError(f"APGN notation {notation!r} is not supported; only Aba-Pro")
    return Record(moves=moves, start=_start(tags), tags=tags, dropped={"comments": comments} if comments else {})


def _start(tags: dict[str, str]) -> str | None:
    position = tags.get("Position")
    if position is not None:
        try:
            Board.from_fen(position)
        except InvalidPositionError as err:
            raise InvalidRecordError(f"APGN Position tag: {err.reason}") from None
        return position
    variant = tags.get("Variant")
    if variant is None:
        return None
    key = variant.strip().lower()
    if key in VARIANTS:
        name = VARIANTS[key]
        return None if name == "standard" else name
    if key == "custom":
        raise InvalidRecordError("APGN Variant 'custom' needs a Position tag")
    if key in OTHER_VARIANTS:
        raise UnsupportedError(f"APGN variant {variant!r} has no layout here; give a Position tag")
    raise InvalidRecordError(f"unknown APGN variant {variant!r}")


def write_record(record: Record) -> str:
    """``record`` (moves already in Aba-Pro) as an APGN game: the tags in APGN order, then numbered moves."""
    tags = dict(record.tags)
    start = record.start
    layout_names = {v: k for k, v in VARIANTS.items()}
    if start is None or start in layout_names:
        tags["Variant"] = layout_names[start or "standard"]
        tags.pop("SetUp", None)
        tags.pop("Position", None)
        board = Board(start or "standard")
    else:
        board = Board.from_fen(start)
        tags["Variant"] = _variant_of(board)
        if tags["Variant"] == "custom":
            tags["SetUp"] = "1"
        tags["Position"] = board.fen()
    for key, value in _MANDATORY.items():
        tags.setdefault(key, value)
    ordered = [k for k in TAG_ORDER if k in tags] + [k for k in tags if k not in TAG_ORDER]
    header = "\n".join(tag_line(k, tags[k]) for k in ordered)
    body = write_movetext(record.moves, result_token(tags["Result"]), width=79, number=board.fullmove, second_first=board.turn == WHITE)
    return header + "\n\n" + body + "\n"


def _variant_of(board: Board) -> str:
    for apgn, name in VARIANTS.items():
        layout = Board(LAYOUTS[name])
        if board.cells == layout.cells:
            return apgn
    return "custom"
