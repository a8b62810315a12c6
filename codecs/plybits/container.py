"""The self-describing container around a payload (byte layout in docs/format.md).

    magic "PB" | version | codec id | scheme version | flags | plies (uvarint)
    | [start: uvarint length + UTF-8] | [tags: uvarint count + (key, value) strings]
    | [record section: uvarint length + bytes] | payload bytes | CRC-32 (big-endian) of everything before it
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Final

from plybits.errors import InvalidDataError, InvalidRecordError, LimitExceededError

MAGIC: Final = b"PB"
VERSION: Final = 1
FLAG_START: Final = 0x01
FLAG_TAGS: Final = 0x02
FLAG_RECORD: Final = 0x04
"""A record section follows (a full-fidelity container): tags and annotations, :mod:`plybits.recordsection`."""
FLAG_TAGS_ONLY: Final = 0x08
"""With :data:`FLAG_RECORD`: the record section holds the tags alone (a moves-fidelity container)."""
KNOWN_FLAGS: Final = FLAG_START | FLAG_TAGS | FLAG_RECORD | FLAG_TAGS_ONLY
MAX_STRING: Final = 1 << 16
"""Longest start or tag string a container may hold, in bytes."""
MAX_TAGS: Final = 256


@dataclass(init=False)
class Container:
    """The decoded fields of a container."""

    codec_id: int
    scheme_version: int
    plies: int
    payload: bytes
    start: str | None
    tags: dict[str, str]
    """The plain tag section (flag ``02``, which encode no longer writes); empty when tags live in :attr:`record`."""
    record: bytes | None
    """The record section (:mod:`plybits.recordsection`): a full-fidelity container's, or the tags of a moves-fidelity
    one (:attr:`tags_only`); else ``None``."""
    tags_only: bool
    """:attr:`record` holds the tags alone, no annotations (a moves-fidelity container, flag ``08``)."""

    def __init__(self, codec_id: int, scheme_version: int, plies: int, payload: bytes, start: str | None = None,
                 tags: dict[str, str] | None = None, record: bytes | None = None, tags_only: bool = False) -> None:
        # written out, not the dataclass's own: that one is made by exec, so it runs interpreted in the compiled build
        self.codec_id = codec_id
        self.scheme_version = scheme_version
        self.plies = plies
        self.payload = payload
        self.start = start
        self.tags = {} if tags is None else tags
        self.record = record
        self.tags_only = tags_only

    def __reduce__(self) -> tuple[type[Container], tuple[int, int, int, bytes, str | None, dict[str, str], bytes | None,
                                                          bool]]:
        """Pickled as its fields (the service hands containers to its worker processes): compiled, a class that
        writes its ``__init__`` out is made through it, so the fields are its arguments."""
        return Container, (self.codec_id, self.scheme_version, self.plies, self.payload, self.start, self.tags,
                           self.record, self.tags_only)


_ONE_BYTE: Final = [bytes((value,)) for value in range(0x80)]


def write_uvarint(value: int) -> bytes:
    """LEB128: seven bits a byte, least significant group first, high bit = more."""
    if value < 0x80:
        if value < 0:
            raise ValueError(f"uvarint of negative value {value!r}")
        return _ONE_BYTE[value]  # the commonest: a length or count under 128, one byte
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def read_uvarint(data: bytes | bytearray, pos: int, what: str) -> tuple[int, int] | None:
    """The LEB128 number at ``data[pos:]`` in its one shortest spelling, and the position after it; ``None`` when
    ``data`` ends inside it.

    :raises InvalidDataError: on a trailing zero group or more than 10 bytes (naming ``what``).
    """
    value = shift = 0
    for at in range(pos, min(pos + 10, len(data))):
        byte = data[at]
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            if byte == 0 and shift:
                raise InvalidDataError(f"{what}: overlong variable-length integer (ends with a zero group)")
            return value, at + 1
        shift += 7
    if len(data) - pos >= 10:
        raise InvalidDataError(f"{what}: variable-length integer longer than 10 bytes")
    return None


def _write_string(text: str, what: str) -> bytes:
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise InvalidRecordError(
            f"{what} {text!r} holds a lone surrogate at {err.start}: not text that UTF-8 can store"
        ) from None
    if len(raw) > MAX_STRING:
        raise LimitExceededError(f"{what} of {len(raw)} bytes is longer than the container allows ({MAX_STRING})")
    return write_uvarint(len(raw)) + raw


def pack(container: Container) -> bytes:
    """Serialize a container, CRC included.

    :raises ValueError: if it has both plain tags and a record section (whose tags live in the section), or is
        :attr:`~Container.tags_only` without a record section.
    """
    if container.record is not None and container.tags:
        raise ValueError("a container with a record section keeps its tags in the section, not in the tag section")
    if container.tags_only and container.record is None:
        raise ValueError("a tags-only container needs the record section that holds its tags")
    flags = (FLAG_START if container.start is not None else 0) | (FLAG_TAGS if container.tags else 0)
    flags |= FLAG_RECORD if container.record is not None else 0
    flags |= FLAG_TAGS_ONLY if container.tags_only else 0
    # the parts joined once (compiled, a bytearray grown by += and copied out cost twice as much for a short game)
    parts = [MAGIC, bytes((VERSION, container.codec_id, container.scheme_version, flags)),
             write_uvarint(container.plies)]
    if container.start is not None:
        parts.append(_write_string(container.start, "start position"))
    if container.tags:
        if len(container.tags) > MAX_TAGS:
            raise LimitExceededError(f"{len(container.tags)} tags, at most {MAX_TAGS} allowed")
        parts.append(write_uvarint(len(container.tags)))
        for key, value in container.tags.items():
            parts.append(_write_string(key, "tag name"))
            parts.append(_write_string(value, f"tag {key!r} value"))
    if container.record is not None:
        parts.append(write_uvarint(len(container.record)))
        parts.append(container.record)
    parts.append(container.payload)
    body = b"".join(parts)
    return body + zlib.crc32(body).to_bytes(4, "big")


class _Cursor:
    """Reads the header fields of a container body (CRC already checked)."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.pos = 0

    def byte(self, what: str) -> int:
        if self.pos >= len(self.body):
            raise InvalidDataError(f"truncated container: missing {what}")
        value = self.body[self.pos]
        self.pos += 1
        return value

    def uvarint(self, what: str) -> int:
        """A LEB128 number in its one shortest spelling (no trailing zero groups)."""
        pos = self.pos
        if pos < len(self.body):
            byte = self.body[pos]
            if byte < 0x80:  # one byte, the commonest (a ply count or length under 128): no tuple made
                self.pos = pos + 1
                return byte
        read = read_uvarint(self.body, self.pos, what)
        if read is None:
            raise InvalidDataError(f"truncated container: missing {what}")
        value, self.pos = read
        return value

    def blob(self, what: str, limit: int) -> bytes:
        """A uvarint length (at most ``limit``) and that many bytes."""
        length = self.uvarint(f"{what} length")
        if length > limit or self.pos + length > len(self.body):
            raise InvalidDataError(f"{what}: length {length} runs past the end of the container")
        raw = self.body[self.pos:self.pos + length]
        self.pos += length
        return raw

    def string(self, what: str, subject: object = None) -> str:
        """A UTF-8 string (:meth:`blob`); ``what``, a :meth:`str.format` pattern filled with ``subject``, names it
        in an error (and is filled only then: a string of fewer than 128 bytes, all there, is read at once)."""
        body = self.body
        pos = self.pos
        if pos < len(body):
            size = body[pos]
            end = pos + 1 + size
            if size < 0x80 and end <= len(body):
                try:
                    text = body[pos + 1:end].decode("utf-8")
                except UnicodeDecodeError:
                    pass
                else:
                    self.pos = end
                    return text
        what = what.format(subject)
        raw = self.blob(what, MAX_STRING)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InvalidDataError(f"{what} is not valid UTF-8: {err}") from None


def read_header(data: bytes) -> tuple[int, int, int]:
    """The codec id, ply count and record section size (0: none) a container's header states, read without
    checking its CRC, its strings or anything after (to route work before :func:`unpack` checks it all).

    :raises InvalidDataError: on a wrong magic or a header cut short.
    """
    if data[:2] != MAGIC:
        raise InvalidDataError(f"not a plybits container: magic {data[:2]!r}, expected {MAGIC!r}")
    cursor = _Cursor(data)
    cursor.pos = len(MAGIC)
    cursor.byte("version")
    codec_id = cursor.byte("codec id")
    cursor.byte("scheme version")
    flags = cursor.byte("flags")
    plies = cursor.uvarint("ply count")
    strings = (1 if flags & FLAG_START else 0) + (2 * cursor.uvarint("tag count") if flags & FLAG_TAGS else 0)
    for _ in range(strings):
        cursor.pos += cursor.uvarint("string length")
    return codec_id, plies, cursor.uvarint("record section length") if flags & FLAG_RECORD else 0


def unpack(data: bytes, max_plies: int) -> Container:
    """Parse and verify a container.

    The record section, if any, is returned as bytes, unread (:func:`plybits.recordsection.read_section`).

    :raises InvalidDataError: on a wrong magic or version, a CRC mismatch, or malformed fields.
    :raises LimitExceededError: if it claims more than ``max_plies`` plies.
    """
    if len(data) < len(MAGIC) + 4 + 4:
        raise InvalidDataError(f"container of {len(data)} bytes is too short")
    if data[:2] != MAGIC:
        raise InvalidDataError(f"not a plybits container: magic {data[:2]!r}, expected {MAGIC!r}")
    body = data[:-4]
    if zlib.crc32(body).to_bytes(4, "big") != data[-4:]:  # compared as bytes: int.from_bytes is a method call
        raise InvalidDataError("CRC-32 mismatch: the data is corrupted or truncated")
    cursor = _Cursor(body)
    cursor.pos = len(MAGIC)
    version = cursor.byte("version")
    if version != VERSION:
        raise InvalidDataError(f"container version {version} is not supported (this build reads {VERSION})")
    codec_id = cursor.byte("codec id")
    scheme_version = cursor.byte("scheme version")
    flags = cursor.byte("flags")
    if flags & ~KNOWN_FLAGS:
        raise InvalidDataError(f"unknown flag bits 0x{flags & ~KNOWN_FLAGS:02x}")
    if flags & FLAG_TAGS and flags & FLAG_RECORD:
        raise InvalidDataError("flags 0x02 and 0x04 together: a container with a record section has no tag section")
    if flags & FLAG_TAGS_ONLY and not flags & FLAG_RECORD:
        raise InvalidDataError("flag 0x08 without 0x04: no record section to hold the tags")
    plies = cursor.uvarint("ply count")
    if plies > max_plies:
        raise LimitExceededError(f"container claims {plies} plies, more than the limit of {max_plies}")
    start = cursor.string("start position") if flags & FLAG_START else None
    tags: dict[str, str] = {}
    if flags & FLAG_TAGS:
        count = cursor.uvarint("tag count")
        if count == 0 or count > MAX_TAGS:
            raise InvalidDataError(f"tag count {count} out of range 1..{MAX_TAGS}")
        for i in range(count):
            key = cursor.string("tag {} name", i)
            if key in tags:
                raise InvalidDataError(f"tag {key!r} appears twice")
            tags[key] = cursor.string("tag {!r} value", key)
    record = cursor.blob("record section", len(body)) if flags & FLAG_RECORD else None
    return Container(codec_id, scheme_version, plies, body[cursor.pos:], start, tags, record,
                     bool(flags & FLAG_TAGS_ONLY))
