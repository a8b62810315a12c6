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
``1/2-1/2`` draw, ``*`` unknown. Comments, NAGs and variations are read into :attr:`Record.notes`
(:func:`plybits.pgntext.read`). A plain whitespace-separated move list is read too.
"""

from __future__ import annotations

from typing import Final

from plybits import pgntext
from plybits.abalone.board import LAYOUTS, WHITE, Board
from plybits.errors import InvalidPositionError, InvalidRecordError, UnsupportedError
from plybits.game import Record
from plybits.pgntext import closing, split_records, tag_line
from plybits.pgntext import movetext as write_movetext

__all__ = ["parse_record", "split_records", "write_record"]

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


def parse_record(text: str) -> Record:
    """Read one APGN game (or a plain move list).

    :raises InvalidRecordError: on an unreadable header, an unknown variant, a result that
        disagrees with the ``Result`` tag, or text after the result.
    :raises UnsupportedError: for a Nacre record or a variant without a layout here.
    """
    read = pgntext.read(text, kind="APGN")
    tags = read.tags
    tag_result = tags.get("Result")
    if read.result is not None and tag_result is not None and read.result != tag_result:
        raise InvalidRecordError(
            f"result {read.result!r} in the move text disagrees with the Result tag {tag_result!r}")
    notation = tags.get("Notation")
    if notation is not None and notation.lower().replace("-", "") != "abapro":
        raise UnsupportedError(f"APGN notation {notation!r} is not supported; only Aba-Pro")
    return Record(moves=read.moves, start=_start(tags), tags=tags, dropped=read.dropped, notes=read.notes,
                  faults=read.faults)


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
    """``record`` (moves already in Aba-Pro) as an APGN game: tags, then numbered moves.

    Bare moves (``record.notes`` is ``None``) get the tags in APGN order, ``Variant``/``Position`` from the start
    and the mandatory tags where missing. An annotated record keeps its tags as they are, in their order (the
    start's tags set only when they do not give its start), and its comments, NAGs, variations and result token.
    """
    tags = dict(record.tags)
    start = record.start
    if record.notes is None or not _gives_start(tags, start):
        layout_names = {v: k for k, v in VARIANTS.items()}
        if start is None or start in layout_names:
            tags["Variant"] = layout_names[start or "standard"]
            tags.pop("SetUp", None)
            tags.pop("Position", None)
        else:
            tags["Variant"] = _variant_of(Board.from_fen(start))
            if tags["Variant"] == "custom":
                tags["SetUp"] = "1"
            tags["Position"] = Board.from_fen(start).fen()
    board = Board.from_fen(start) if start is not None and start not in VARIANTS.values() else Board(start or "standard")
    if record.notes is None:
        for key, value in _MANDATORY.items():
            tags.setdefault(key, value)
        ordered = [k for k in TAG_ORDER if k in tags] + [k for k in tags if k not in TAG_ORDER]
    else:
        ordered = list(tags)
    header = "\n".join(tag_line(k, tags[k]) for k in ordered)
    body = write_movetext(record.moves, closing(record.notes, tags.get("Result")), width=79, number=board.fullmove,
                          second_first=board.turn == WHITE, notes=record.notes)
    return header + "\n\n" + body + "\n" if header else body + "\n"


def _gives_start(tags: dict[str, str], start: str | None) -> bool:
    """Whether reading ``tags`` gives the position ``start`` (a layout name or a position string)."""
    try:
        given = _start(tags)
    except (InvalidRecordError, UnsupportedError):
        return False
    if given is None or start is None or given in VARIANTS.values() or start in VARIANTS.values():
        return given == start
    return Board.from_fen(given).fen() == Board.from_fen(start).fen()


def _variant_of(board: Board) -> str:
    for apgn, name in VARIANTS.items():
        layout = Board(LAYOUTS[name])
        if board.cells == layout.cells:
            return apgn
    return "custom"
