"""An archive's row format: one game a row of an Arrow table (a Parquet dataset), the record stored once.

A row holds the tags people filter on in typed columns (:data:`COLUMNS`: lichess's ``Site`` as a game id,
``UTCDate`` + ``UTCTime`` as one timestamp, Elos and rating diffs as small integers, ``TimeControl`` as its
initial seconds and increment, ...), ``tag_order`` (the record's tag names in their order, dictionary-encoded:
a few distinct values a file) and ``body``, one binary value with everything else::

    uvarint (plies << 3 | flags)          flags: 1 a start follows, 2 a record section follows, 4 notes kept
    [start: uvarint length + UTF-8]       (flag 1) the start, as a container stores it
    [section: uvarint length + bytes]     (flag 2) the record section (plybits.recordsection) without its version
                                          byte, written with the column tags as its context (not in it)
    payload                               the scheme's move bits, as in a container

What every row of a dataset shares (the game, scheme and its version, the record section's version, this
format's version) is in the table's schema metadata (:class:`Meta`), not in the rows. Integrity: a container's
CRC-32 per game is replaced by Parquet's CRC-32 of every page (:data:`PARQUET_OPTIONS`, checked when plybits
reads a file): it detects the same corruption for 4 bytes a page instead of 4 bytes a game, and
:func:`container_of` adds a CRC again when a row leaves the dataset as a container.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pyarrow as pa

from plybits import container
from plybits.annotations import Notes
from plybits.errors import InvalidDataError, LimitExceededError, UnknownCodecError
from plybits.game import Position, Record
from plybits.openings import FIRST_PLIES, first_moves
from plybits.records import DEFAULT_MAX_PLIES, FIDELITIES, check_notation, decode, read_record, tags_section
from plybits.recordsection import SECTION_VERSION, read_section, write_section
from plybits.registry import AnyScheme, get_game, get_scheme

FORMAT_VERSION = 1
"""The row format's version (:data:`META_KEY`'s ``format``)."""
META_KEY = b"plybits.archive"
"""The schema metadata key holding :class:`Meta` as JSON."""
FLAG_START, FLAG_SECTION, FLAG_NOTES = 1, 2, 4
_FLAG_BITS = 3

# --- typed columns ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """How tags become typed columns: ``tags`` (all present) typed by ``to_columns`` (``None``: not of this type,
    they stay in the record section) and written back exactly by ``to_tags``."""

    tags: tuple[str, ...]
    fields: tuple[pa.Field, ...]
    to_columns: Callable[[Sequence[str]], tuple[Any, ...] | None]
    to_tags: Callable[[Sequence[Any]], tuple[str, ...]]


def _text(tag: str, name: str | None = None) -> Column:
    return Column((tag,), (pa.field(name or _snake(tag), pa.string()),), lambda v: (v[0],), lambda c: (c[0],))


def _snake(tag: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", tag).lower()


_DECIMAL = re.compile(r"0|[1-9][0-9]{0,4}")
_SIGNED = re.compile(r"[+-](?:0|[1-9][0-9]{0,4})")


def _int16(tag: str) -> Column:
    def typed(v: Sequence[str]) -> tuple[Any, ...] | None:
        return (int(v[0]),) if _DECIMAL.fullmatch(v[0]) and int(v[0]) < 1 << 15 else None

    return Column((tag,), (pa.field(_snake(tag), pa.int16()),), typed, lambda c: (str(c[0]),))


def _signed16(tag: str) -> Column:
    def typed(v: Sequence[str]) -> tuple[Any, ...] | None:
        ok = _SIGNED.fullmatch(v[0]) and f"{int(v[0]):+d}" == v[0] and abs(int(v[0])) < 1 << 15
        return (int(v[0]),) if ok else None

    return Column((tag,), (pa.field(_snake(tag), pa.int16()),), typed, lambda c: (f"{c[0]:+d}",))


_LICHESS = re.compile(r"https://lichess\.org/([0-9A-Za-z]{8})")


def _lichess_id(v: Sequence[str]) -> tuple[Any, ...] | None:
    match = _LICHESS.fullmatch(v[0])
    return (match[1],) if match else None


_UTC = re.compile(r"([0-9]{4})\.([0-9]{2})\.([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})")


def _timestamp(v: Sequence[str]) -> tuple[Any, ...] | None:
    match = _UTC.fullmatch(f"{v[0]} {v[1]}")
    if not match or match[1] < "1000":
        return None
    try:
        year, month, day, hour, minute, second = map(int, match.groups())
        return (datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc),)
    except ValueError:
        return None


def _utc_tags(c: Sequence[Any]) -> tuple[str, ...]:
    when: datetime = c[0]
    return when.strftime("%Y.%m.%d"), when.strftime("%H:%M:%S")


_TIME_CONTROL = re.compile(r"([1-9][0-9]{0,6})\+(0|[1-9][0-9]{0,5})")


def _time_control(v: Sequence[str]) -> tuple[Any, ...] | None:
    match = _TIME_CONTROL.fullmatch(v[0])
    return (int(match[1]), int(match[2])) if match else None


_COMMON = (_text("Event"), _text("Site"), _text("Date"), _text("Round"))
COLUMNS: dict[str, tuple[Column, ...]] = {
    "chess": (
        _text("Event"),
        Column(("Site",), (pa.field("game_id", pa.string()),), _lichess_id, lambda c: (f"https://lichess.org/{c[0]}",)),
        _text("Site"), _text("Date"), _text("Round"), _text("White"), _text("Black"), _text("Result"),
        Column(("UTCDate", "UTCTime"), (pa.field("played_at", pa.timestamp("ms", tz="UTC")),), _timestamp, _utc_tags),
        _int16("WhiteElo"), _int16("BlackElo"), _signed16("WhiteRatingDiff"), _signed16("BlackRatingDiff"),
        _text("WhiteTitle"), _text("BlackTitle"),
        Column(("TimeControl",), (pa.field("tc_initial", pa.int32()), pa.field("tc_increment", pa.int32())),
               _time_control, lambda c: (f"{c[0]}+{c[1]}",)),
        _text("ECO", "eco"), _text("Opening"), _text("Termination"), _text("Variant"),
    ),
    "xiangqi": (*_COMMON, _text("Red"), _text("Black"), _text("RedTeam"), _text("BlackTeam"), _text("Result"),
                _text("ECO", "eco"), _text("Opening"), _text("Termination"), _text("Variant")),
    "abalone": (*_COMMON, _text("White"), _text("Black"), _text("Result"), _text("Termination"), _text("Variant")),
    "entropy": (*_COMMON, _text("Result")),
}
"""Each game's typed columns, tried in order: a tag goes to the first that types it (a lichess ``Site`` to
``game_id``, any other to ``site``); a game not listed gets Event, Site, Date, Round and Result (as New Entropy,
whose records have no other usual tags)."""

ROW_FIELDS = (pa.field("source", pa.string(), nullable=False), pa.field("number", pa.int64(), nullable=False),
              pa.field("offset", pa.int64(), nullable=False))
"""Where each game came from: its source, 1-based number there, and the byte offset of its first line."""


def columns(game: str) -> tuple[Column, ...]:
    """The typed columns of ``game``'s archives."""
    return COLUMNS.get(game, (*_COMMON, _text("Result")))


def schema(game: str) -> pa.Schema:
    """The Arrow schema of ``game``'s archives (without :class:`Meta`: see :meth:`Meta.schema`)."""
    typed: dict[str, pa.Field] = {}
    for column in columns(game):
        for field in column.fields:
            typed.setdefault(field.name, field)
    return pa.schema([*ROW_FIELDS, *typed.values(), pa.field("first_moves", pa.string()),  # plybits.openings
                      pa.field("tag_order", pa.string()), pa.field("body", pa.binary()),
                      pa.field("error", pa.string())])


# --- dataset-level metadata ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Meta:
    """What every row of an archive shares, kept once in its schema metadata."""

    game: str
    scheme: str
    scheme_version: int
    codec_id: int
    section_version: int = SECTION_VERSION
    format: int = FORMAT_VERSION
    fidelity: str = "full"
    opening_plies: int = FIRST_PLIES
    """The plies of the ``first_moves`` column (:mod:`plybits.openings`; 8 in archives that do not name it)."""

    @classmethod
    def of(cls, game: str, scheme: str, fidelity: str = "full") -> Meta:
        """The metadata of a new archive of ``game`` coded with ``scheme`` (its current version)."""
        coder = get_scheme(game, scheme)
        return cls(game, coder.name, coder.version, coder.codec_id, fidelity=fidelity)

    def schema(self) -> pa.Schema:
        """:func:`schema` of the game, with this metadata."""
        return schema(self.game).with_metadata({META_KEY: json.dumps(self.__dict__, sort_keys=True).encode()})

    @classmethod
    def from_schema(cls, arrow_schema: pa.Schema) -> Meta:
        """The metadata of an archive's schema (a Parquet file's, a table's).

        :raises InvalidDataError: if it has none, or of a format this build does not read.
        """
        raw = (arrow_schema.metadata or {}).get(META_KEY)
        if raw is None:
            raise InvalidDataError("not a plybits archive: no plybits.archive schema metadata")
        try:
            meta = cls(**{"opening_plies": 8, **json.loads(raw)})
        except (TypeError, ValueError) as err:
            raise InvalidDataError(f"unreadable plybits.archive schema metadata: {err}") from None
        if meta.format != FORMAT_VERSION:
            raise InvalidDataError(f"archive format {meta.format} is not supported (this build reads {FORMAT_VERSION})")
        return meta

    def coder(self) -> AnyScheme:
        """The scheme, checked able to read this archive's version."""
        scheme = get_scheme(self.game, self.scheme)
        if self.scheme_version not in scheme.readable_versions or scheme.codec_id != self.codec_id:
            raise InvalidDataError(f"{self.game}/{self.scheme} version {self.scheme_version} is not readable by "
                                   "this build")
        return scheme


# --- a row from a record, and back ------------------------------------------------------------------------


def tag_columns(game: str, tags: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """``(columns, held, rest)``: the typed column values of ``tags``, the tags they hold, and the others in order."""
    values: dict[str, Any] = {}
    held: dict[str, str] = {}
    for column in columns(game):
        if any(t not in tags or t in held for t in column.tags) or any(f.name in values for f in column.fields):
            continue
        typed = column.to_columns([tags[t] for t in column.tags])
        if typed is not None:
            values.update(zip((f.name for f in column.fields), typed, strict=True))
            held.update((t, tags[t]) for t in column.tags)
    if values.get("date") is not None and held.get("Date") == held.get("UTCDate"):
        values["date"] = None  # the date of played_at (a lichess Date is its UTCDate): stored once
    return values, held, {k: v for k, v in tags.items() if k not in held}


def row_of(meta: Meta, *, record: str | None = None, moves: Sequence[str] | None = None,
           notation: str | None = None, start: str | None = None, tags: dict[str, str] | None = None,
           max_plies: int = DEFAULT_MAX_PLIES, fidelity: str | None = None) -> dict[str, Any]:
    """One game's row: its typed columns, ``tag_order`` and ``body`` (the arguments of
    :func:`plybits.records.encode`, the game and scheme :class:`Meta`'s).

    :raises PlybitsError: on any bad input, located by ply where it has one.
    """
    fidelity = fidelity or ("moves" if record is None else meta.fidelity)
    if fidelity not in FIDELITIES:
        raise UnknownCodecError(f"unknown fidelity {fidelity!r}; known: {', '.join(FIDELITIES)}")
    full = fidelity == "full"
    scheme = meta.coder()
    stepper = scheme.step_encoder()
    replay = read_record(meta.game, moves=moves, record=record, notation=notation, start=start, max_plies=max_plies,
                         observe=stepper.add, variations=full)
    payload = stepper.finish(replay.start_position).tobytes()
    all_tags = {**replay.tags, **(tags or {})}
    values, held, rest = tag_columns(meta.game, all_tags)
    notes: Notes[Any] = replay.notes if full and replay.notes is not None else Notes()
    flags = (FLAG_START if replay.start is not None else 0) | (FLAG_NOTES if full else 0)
    body = bytearray()
    if replay.start is not None:
        body += container._write_string(replay.start, "start position")
    if full or rest:
        flags |= FLAG_SECTION
        section = write_section(scheme, replay.start_position, replay.moves, notes, rest, final=replay.final,
                                version=meta.section_version, context=held)
        body += container.write_uvarint(len(section) - 1) + section[1:]
    head = container.write_uvarint(len(replay.moves) << _FLAG_BITS | flags)
    opening = first_moves(replay.start_position, replay.moves, meta.opening_plies)  # plybits.sql's opening filter
    return {**values, "first_moves": opening,
            "tag_order": json.dumps(list(all_tags), ensure_ascii=False), "body": bytes(head + body + payload)}


@dataclass
class Body:
    """The parts of a row's ``body``."""

    plies: int
    flags: int
    start: str | None
    section: bytes | None
    """The record section, its version byte put back."""
    payload: bytes


def read_body(body: bytes, meta: Meta, *, max_plies: int = DEFAULT_MAX_PLIES) -> Body:
    """The parts of ``body`` (not decoded).

    :raises InvalidDataError: if it is malformed; :raises LimitExceededError: if it claims over ``max_plies``.
    """
    cursor = container._Cursor(body)
    head = cursor.uvarint("body head")
    plies, flags = head >> _FLAG_BITS, head & (1 << _FLAG_BITS) - 1
    if plies > max_plies:
        raise LimitExceededError(f"row claims {plies} plies, more than the limit of {max_plies}")
    if flags & FLAG_NOTES and not flags & FLAG_SECTION:
        raise InvalidDataError("body flags: notes kept without a record section")
    start = cursor.string("start position") if flags & FLAG_START else None
    section = bytes([meta.section_version]) + cursor.blob("record section", len(body)) if flags & FLAG_SECTION else None
    return Body(plies, flags, start, section, body[cursor.pos:])


def ply_count(body: bytes) -> int:
    """The number of mainline plies in ``body``, read from its first bytes."""
    return container._Cursor(body).uvarint("body head") >> _FLAG_BITS


def moves_of(body: bytes, meta: Meta, *, max_plies: int = DEFAULT_MAX_PLIES) -> tuple[Position[Any], list[Any]]:
    """``(start, moves)``: the start position and the mainline's moves of ``body`` (each checked legal), read from
    its payload alone (the record section skipped). Play them on ``start.copy()`` for the positions.

    :raises InvalidDataError: on corrupt data.
    """
    parts = read_body(body, meta, max_plies=max_plies)
    start = _start(parts, meta)
    moves = meta.coder().decode(start.copy(), parts.payload, parts.plies, meta.scheme_version)
    return start, moves


def _start(parts: Body, meta: Meta) -> Position[Any]:
    game = get_game(meta.game)
    position: Position[Any] = game.position(parts.start)
    if parts.start is not None and game.canonical_start(parts.start, position) != parts.start:
        raise InvalidDataError(f"stored start {parts.start!r} is not in the one form encode stores")
    return position


def tags_of(row: Mapping[str, Any], meta: Meta, section_tags: Mapping[str, str]) -> dict[str, str]:
    """The record's tags in order: ``row``'s typed columns merged with ``section_tags`` by ``tag_order``.

    :raises InvalidDataError: if they do not fit together.
    """
    held = column_tags(row, meta)
    order = json.loads(row["tag_order"])
    rest = iter(section_tags.items())
    tags: dict[str, str] = {}
    for name in order:
        if name in held:
            tags[name] = held[name]
            continue
        key, value = next(rest, (None, ""))
        if key != name:
            raise InvalidDataError(f"tag {name!r} is neither in a column nor next in the record section")
        tags[name] = value
    if next(rest, None) is not None or len(tags) != len(order):
        raise InvalidDataError("the record section holds tags that tag_order does not list")
    return tags


@dataclass
class Game:
    """A row read whole: its start, mainline moves (played to ``final``), notes and every tag in order."""

    body: Body
    start: Position[Any]
    moves: list[Any]
    final: Position[Any]
    notes: Notes[Any]
    tags: dict[str, str]


def game_of(row: Mapping[str, Any], meta: Meta, *, max_plies: int = DEFAULT_MAX_PLIES) -> Game:
    """``row`` read whole (its moves decoded, its record section read with the column tags as context): clocks
    and evaluations are in ``notes.steps[ply].comments``.

    :raises InvalidDataError: on corrupt data.
    """
    scheme = meta.coder()
    parts = read_body(row["body"], meta, max_plies=max_plies)
    start = _start(parts, meta)
    final = start.copy()
    moves = scheme.decode(final, parts.payload, parts.plies, meta.scheme_version)
    notes: Notes[Any] = Notes()
    section_tags: dict[str, str] = {}
    if parts.section is not None:
        notes, section_tags = read_section(scheme, start, moves, parts.section, max_plies=max_plies,
                                           version=meta.scheme_version, final=final, context=column_tags(row, meta))
    return Game(parts, start, moves, final, notes, tags_of(row, meta, section_tags))


def container_of(row: Mapping[str, Any], meta: Meta, *, max_plies: int = DEFAULT_MAX_PLIES) -> bytes:
    """The standalone container of a row (what :func:`plybits.records.encode` makes of the record, byte for byte),
    for the ``plybits`` verbs.

    :raises InvalidDataError: on corrupt data.
    """
    game = game_of(row, meta, max_plies=max_plies)
    full = bool(game.body.flags & FLAG_NOTES)
    if full:
        section: bytes | None = write_section(meta.coder(), game.start, game.moves, game.notes, game.tags,
                                              final=game.final)
    else:
        section = tags_section(meta.coder(), game.start, game.moves, game.tags, game.final)
    return container.pack(container.Container(meta.codec_id, meta.scheme_version, game.body.plies,
                                              game.body.payload, game.body.start, record=section,
                                              tags_only=not full and section is not None))


def column_tags(row: Mapping[str, Any], meta: Meta) -> dict[str, str]:
    """The tags ``row``'s typed columns hold (a ``Date`` listed in ``tag_order`` with no ``date``: ``UTCDate``'s)."""
    held: dict[str, str] = {}
    for column in columns(meta.game):
        values = [row.get(f.name) for f in column.fields]
        if all(v is not None for v in values) and not any(t in held for t in column.tags):
            held.update(zip(column.tags, column.to_tags(values), strict=True))
    if "UTCDate" in held and "Date" not in held and "Date" in json.loads(row["tag_order"]):
        held["Date"] = held["UTCDate"]
    return held


def record_of(row: Mapping[str, Any], meta: Meta, *, notation: str | None = None,
              max_plies: int = DEFAULT_MAX_PLIES) -> str:
    """The record's text (PGN for chess) exactly as ``plybits decode --format record`` writes the row's container:
    every tag in order, comment, clock, evaluation, NAG and variation of a full-fidelity row. The moves are decoded
    and written in one replay; a record with variations goes through :func:`container_of` (they are written from
    the positions where they branch).

    :raises InvalidDataError: on corrupt data; :raises UnknownCodecError: on a notation not the game's.
    """
    scheme = meta.coder()
    game = get_game(meta.game)
    check_notation(game, notation)
    parts = read_body(row["body"], meta, max_plies=max_plies)
    start = _start(parts, meta)
    final = start.copy()
    moves, texts = scheme.decode_texts(final, parts.payload, parts.plies, meta.scheme_version, notation)
    notes: Notes[Any] | None = None
    section_tags: dict[str, str] = {}
    if parts.section is not None:
        notes, section_tags = read_section(scheme, start, moves, parts.section, max_plies=max_plies,
                                           version=meta.scheme_version, final=final, context=column_tags(row, meta))
    if notes is not None and any(step.variations for step in notes.steps):
        text = decode(container_of(row, meta, max_plies=max_plies), notation=notation, max_plies=max_plies,
                      format="record").record
        assert text is not None
        return text
    kept = notes if parts.flags & FLAG_NOTES else None  # no variations: the notes are the same in any notation
    return game.write_record(Record(moves=texts, start=parts.start, tags=tags_of(row, meta, section_tags),
                                    notes=kept), notation)


# --- tables and files ----------------------------------------------------------------------------------------


def table(rows: Sequence[Mapping[str, Any]], meta: Meta) -> pa.Table:
    """An Arrow table of ``rows`` (:data:`ROW_FIELDS`, :func:`row_of`'s columns, ``error``) with ``meta``."""
    return pa.Table.from_pylist(list(rows), schema=meta.schema())


def parquet_options(arrow_schema: pa.Schema) -> dict[str, Any]:
    """The ``pyarrow.parquet.write_table`` options of an archive file (the smallest measured, bench/dataset.py):
    zstd level 19, a CRC-32 on every page, statistics (min and max, for filters) on the numbers and times (a text
    column's would not skip a file: 1 byte a game on the lichess files), dictionaries for the columns of few distinct values (not ``first_moves``: 3.6 bytes a game with one, 3.5 without,
    bench/opening_column.py), delta coding for
    the game numbers, offsets and times, the Elos byte-split, the ``body`` and ``game_id`` lengths delta-coded."""
    plain = {"body", "game_id", "first_moves", "number", "offset", "played_at", "white", "black", "red", "white_elo", "black_elo",
             "white_rating_diff", "black_rating_diff"}
    encodings = {"number": "DELTA_BINARY_PACKED", "offset": "DELTA_BINARY_PACKED", "played_at": "DELTA_BINARY_PACKED",
                 "body": "DELTA_LENGTH_BYTE_ARRAY", "game_id": "DELTA_LENGTH_BYTE_ARRAY",
                 **{name: "BYTE_STREAM_SPLIT" for name in ("white_elo", "black_elo", "white_rating_diff",
                                                          "black_rating_diff")}}
    return {"compression": "zstd", "compression_level": 19, "write_page_checksum": True, "store_schema": False,
            "write_statistics": [f.name for f in arrow_schema
                                 if not (pa.types.is_string(f.type) or pa.types.is_binary(f.type))],
            "use_dictionary": [f.name for f in arrow_schema if f.name not in plain],
            "column_encoding": {k: v for k, v in encodings.items() if k in arrow_schema.names}}


def write_file(data: pa.Table, path: str) -> None:
    """Write an archive table to the Parquet file ``path`` (:func:`parquet_options`), its schema metadata as the
    file's key-value metadata (without pyarrow's copy of the whole Arrow schema: 1.5 KB a file)."""
    import pyarrow.parquet as pq

    with pq.ParquetWriter(path, data.schema, **parquet_options(data.schema)) as writer:
        writer.write_table(data, row_group_size=max(data.num_rows, 1))
        writer.add_key_value_metadata({k.decode(): v.decode() for k, v in (data.schema.metadata or {}).items()})


def read_file(path: str, columns: Sequence[str] | None = None) -> pa.Table:
    """An archive file read back, every page's CRC-32 checked (its :class:`Meta` in the table's schema).

    :raises InvalidDataError: if it is not an archive file.
    """
    import pyarrow.parquet as pq

    data: pa.Table = pq.read_table(path, columns=None if columns is None else list(columns),
                                   page_checksum_verification=True)
    Meta.from_schema(pq.read_schema(path))
    return data


__all__ = ["COLUMNS", "Body", "Column", "Game", "Meta", "column_tags", "columns", "container_of", "game_of",
           "moves_of", "ply_count", "read_body", "read_file", "record_of", "row_of", "schema", "table", "tag_columns",
           "tags_of", "write_file"]
