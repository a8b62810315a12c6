import zlib

import pytest

from plybits.container import Container, pack, unpack, write_uvarint
from plybits.errors import InvalidDataError, LimitExceededError


def sample() -> Container:
    return Container(codec_id=0x01, scheme_version=0, plies=3, payload=bytes.fromhex("143464440625"),
                     start="8/P7/8/8/8/8/8/k6K w - - 0 1", tags={"White": "Ann", "Result": "1-0"})


def test_layout_is_magic_version_codec_flags_plies_then_crc():
    blob = pack(Container(codec_id=0x01, scheme_version=0, plies=3, payload=b"\x14\x34\x64\x44\x06\x25"))
    body = b"PB" + bytes([1, 0x01, 0, 0, 3]) + bytes.fromhex("143464440625")
    assert blob == body + zlib.crc32(body).to_bytes(4, "big")


def test_round_trip_with_start_and_tags():
    assert unpack(pack(sample()), max_plies=100) == sample()


@pytest.mark.parametrize("value,encoded", [(0, "00"), (127, "7f"), (128, "8001"), (300, "ac02"), (16384, "808001")])
def test_uvarint_is_leb128(value, encoded):
    assert write_uvarint(value).hex() == encoded


def test_every_single_bit_flip_is_caught():
    blob = pack(sample())
    for bit in range(len(blob) * 8):
        corrupted = bytearray(blob)
        corrupted[bit // 8] ^= 0x80 >> (bit % 8)
        with pytest.raises(InvalidDataError):
            unpack(bytes(corrupted), max_plies=100)


def test_every_truncation_is_caught():
    blob = pack(sample())
    for length in range(len(blob)):
        with pytest.raises(InvalidDataError):
            unpack(blob[:length], max_plies=100)


def test_a_huge_ply_claim_is_refused_before_decoding():
    blob = pack(Container(codec_id=1, scheme_version=0, plies=10**12, payload=b""))
    with pytest.raises(LimitExceededError, match="1000000000000 plies"):
        unpack(blob, max_plies=20_000)


def _with_crc(body: bytes) -> bytes:
    return body + zlib.crc32(body).to_bytes(4, "big")


@pytest.mark.parametrize(
    "body,message",
    [
        (b"XX\x01\x01\x00\x00\x00", "magic"),
        (b"PB\x02\x01\x00\x00\x00", "version 2"),
        (b"PB\x01\x01\x00\x80\x00", "flag"),
        (b"PB\x01\x01\x00\x01\x00\x05ab", "runs past"),
        (b"PB\x01\x01\x00\x00" + b"\xff" * 11, "longer than 10 bytes"),
        (b"PB\x01\x01\x00\x02\x00\x00", "tag count 0"),
        (b"PB\x01\x01\x00\x01\x00\x02\xff\xfe", "UTF-8"),
    ],
)
def test_malformed_headers_are_named(body, message):
    with pytest.raises(InvalidDataError, match=message):
        unpack(_with_crc(body), max_plies=100)


def test_peek_reads_game_scheme_and_plies_without_decoding():
    from plybits import registry
    from plybits.errors import UnknownCodecError
    from plybits.records import peek

    for scheme in registry.schemes():
        blob = pack(Container(codec_id=scheme.codec_id, scheme_version=scheme.version, plies=7, payload=b"\xff"))
        # the payload is junk for every scheme: peek reads only the checked header
        assert peek(blob) == (scheme.game, scheme.name, 7)
    blob = pack(sample())
    with pytest.raises(InvalidDataError, match="CRC"):
        peek(blob[:-1] + bytes([blob[-1] ^ 1]))
    with pytest.raises(LimitExceededError):
        peek(pack(sample()), max_plies=2)
    with pytest.raises(UnknownCodecError):
        peek(pack(Container(codec_id=0x7F, scheme_version=0, plies=1, payload=b"")))


# ---------------------------------------------------------------- one game, one container, one text form


def _sealed(body: bytes) -> bytes:
    return body + zlib.crc32(body).to_bytes(4, "big")


@pytest.mark.parametrize("field,body", [
    ("ply count", b"PB" + bytes([1, 0x01, 0, 0]) + bytes.fromhex("8380 00") + bytes(6)),  # 3 in three bytes
    ("ply count", b"PB" + bytes([1, 0x01, 0, 0]) + bytes.fromhex("8300") + bytes(6)),  # 3 in two bytes
    ("start position length", b"PB" + bytes([1, 0x01, 0, 1, 0]) + bytes.fromhex("8100") + b"a"),
    ("tag count", b"PB" + bytes([1, 0x01, 0, 2, 0]) + bytes.fromhex("8100") + b"\x01a\x01b"),
    ("tag 0 name length", b"PB" + bytes([1, 0x01, 0, 2, 0, 1]) + bytes.fromhex("8100") + b"a\x01b"),
])
def test_an_overlong_uvarint_is_refused(field, body):
    """LEB128 allows padding a number with 0x80 groups; the container has one spelling of each number."""
    with pytest.raises(InvalidDataError, match=f"{field}.*(overlong|more bytes than)"):
        unpack(_sealed(body), max_plies=100)


def test_the_shortest_uvarints_still_read():
    for plies in (0, 1, 127, 128, 300, 16384):
        container = Container(codec_id=0x01, scheme_version=0, plies=plies, payload=b"")
        assert unpack(pack(container), max_plies=20_000).plies == plies


@pytest.mark.parametrize("start", [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",  # the default start, which is never stored
    "standard",
    "8/P7/8/8/8/8/8/k6K w - -",  # fields left off
    "8/P7/8/8/8/8/8/k6K  w - - 0 1",  # two spaces
    "8/P7/8/8/8/8/8/k6K w - - 0 01",
])
def test_a_stored_start_in_another_spelling_is_refused(start):
    """Encode stores the start in one form (none for the default, else a name or the position's FEN);
    any other spelling of it would be a second container for the same game."""
    import plybits

    canonical = "8/P7/8/8/8/8/8/k6K w - - 0 1"
    good = plybits.encode("chess", "0x88", moves=["a8=Q"], start=canonical).data
    assert unpack(good, max_plies=10).start == canonical
    assert plybits.decode(good).moves == ["a8=Q+"]
    box = unpack(good, max_plies=10)
    box.start = start
    if start in ("standard", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"):
        box.payload, box.plies = bytes.fromhex("1434"), 1  # e2e4
    with pytest.raises(InvalidDataError, match="start"):
        plybits.decode(pack(box))


def test_a_container_is_made_by_its_own_init_not_the_dataclass_one():
    """A container is made by the ``__init__`` container.py writes out: the one ``dataclass`` makes is compiled by
    ``exec`` at import (``co_filename`` ``<string>``), so it ran interpreted in the compiled build, twice a game
    (encode packs one, decode unpacks one). Compiled, the written one is native (no code object at all)."""
    code = getattr(Container.__init__, "__code__", None)
    assert code is None or code.co_filename.endswith("container.py")
    box = Container(1, 0, 2, b"\x01")
    assert (box.start, box.tags, box.record, box.tags_only) == (None, {}, None, False)
    assert box == Container(codec_id=1, scheme_version=0, plies=2, payload=b"\x01", tags={})
    assert box.tags is not Container(1, 0, 2, b"").tags  # each its own dictionary


def test_a_container_pickles_as_its_fields():
    """The service hands containers to its worker processes by pickle: a container comes back equal, in either build
    (compiled, a class with its own ``__init__`` is made through it: it failed on one without ``__reduce__``)."""
    import pickle

    for box in (sample(), Container(2, 1, 0, b"", record=b"\x03", tags_only=True)):
        assert pickle.loads(pickle.dumps(box)) == box
