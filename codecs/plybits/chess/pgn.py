"""PGN read (tags and mainline) and write.

Comments, NAGs, variations and the result token are read into :attr:`Record.notes`; for a move list,
what it cannot carry is counted in :attr:`Record.dropped`:
``comments`` (``{...}`` and ``; ...`` in the mainline), ``nags`` (``$n`` and the
``!``/``?`` marks, whether standing alone or glued to a move) and ``variations``
(each top-level ``( ... )``, counted once with everything nested inside it).
A record whose ``Variant`` tag names anything but standard chess or Chess960 is
refused with :class:`~plybits.errors.InvalidRecordError`.
"""

from __future__ import annotations

from plybits import pgntext
from plybits.errors import InvalidRecordError
from plybits.game import Record
from plybits.pgntext import closing, movetext, split_records, tag_line

__all__ = ["read_pgn", "split_records", "variant_of", "write_pgn"]

STANDARD_VARIANTS = frozenset(("", "standard", "chess", "classical", "normal", "illegal", "from position"))
CHESS960_VARIANTS = frozenset(("chess960", "chess 960", "fischerandom", "fischerrandom", "fischer random", "960"))
SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")


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


def read_pgn(text: str) -> tuple[Record, bool]:
    """A PGN (or a bare move list) as a :class:`Record` and whether it declares Chess960.

    :raises InvalidRecordError: on malformed tags, parentheses, or a non-standard variant.
    """
    read = pgntext.read(text, kind="PGN", lenient=True)
    tags = read.tags
    chess960 = variant_of(tags)
    dropped = {"comments": 0, "nags": 0, "variations": 0} | read.dropped
    start = tags.get("FEN") if tags.get("SetUp", "1") != "0" else None
    record = Record(moves=read.moves, start=start, tags=tags, dropped=dropped, notes=read.notes, faults=read.faults)
    return record, chess960


def write_pgn(record: Record, *, chess960: bool = False, first_turn_black: bool = False, first_number: int = 1) -> str:
    """A PGN of the record, laid out as python-chess's exporter lays it out: tags, a blank line, then the movetext
    wrapped at 80 columns.

    Bare moves (``record.notes`` is ``None``) get the seven tags first (``?`` or ``*`` where missing), then the
    others, ``SetUp``/``FEN`` for a start other than the standard one and the ``Result`` tag's token. An
    annotated record keeps its tags as they are, in their order (adding ``SetUp``/``FEN`` or ``Variant`` only
    when they do not give its start), and its comments, NAGs, variations and result token as read.
    """
    tags = dict(record.tags)
    if record.notes is None:
        for name in SEVEN_TAGS:
            tags.setdefault(name, "*" if name == "Result" else "?")
        if record.start is not None:
            tags["SetUp"] = "1"
            tags["FEN"] = record.start
        if chess960:
            tags["Variant"] = "Chess960"
        names = [*SEVEN_TAGS, *(n for n in tags if n not in SEVEN_TAGS)]
    else:
        if record.start is not None and ("FEN" not in tags or tags.get("SetUp") == "0"):
            tags["SetUp"] = "1"
            tags["FEN"] = record.start
        if chess960 and not _declares_chess960(tags):
            tags["Variant"] = "Chess960"
        names = list(tags)
    head = "".join(tag_line(name, tags[name]) + "\n" for name in names)
    body = movetext(record.moves, closing(record.notes, tags.get("Result")), width=79, number=first_number,
                    second_first=first_turn_black, notes=record.notes)
    return head + "\n" + body + "\n"


def _declares_chess960(tags: dict[str, str]) -> bool:
    try:
        return variant_of(tags)
    except InvalidRecordError:
        return False
