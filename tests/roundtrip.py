"""The one round-trip check every codec's tests use: decode(encode(x)) == x, the exact bits, and the size."""

from __future__ import annotations

from collections.abc import Sequence

import plybits
from plybits import container


def assert_roundtrip(
    game: str,
    scheme: str,
    moves: Sequence[str],
    *,
    notation: str | None = None,
    start: str | None = None,
    payload_hex: str | None = None,
    payload_bits: int | None = None,
    tags: dict[str, str] | None = None,
) -> plybits.Encoded:
    """Encode, check the payload and size when given, decode, and check the same game comes back."""
    encoded = plybits.encode(game, scheme, moves=moves, notation=notation, start=start, tags=tags)
    if payload_hex is not None:
        assert encoded.payload.hex() == payload_hex
    if payload_bits is not None:
        assert encoded.payload_bits == payload_bits
    assert len(encoded.payload) == (encoded.payload_bits + 7) // 8
    box = container.unpack(encoded.data, max_plies=plybits.records.DEFAULT_MAX_PLIES)
    assert box.payload == encoded.payload
    assert box.plies == len(moves)
    decoded = plybits.decode(encoded.data, notation=notation)
    assert (decoded.game, decoded.scheme, decoded.plies) == (game, scheme, len(moves))
    if notation is not None:
        assert decoded.moves == list(moves)
    else:  # moves come back in the default notation: compare by re-encoding them
        again = plybits.encode(game, scheme, moves=decoded.moves, start=decoded.start, tags=tags)
        assert again.data == encoded.data
    assert decoded.final_position == encoded.final_position
    assert decoded.tags == (tags or {})
    return encoded


CHESS960_TAGS = """[Event "Golden 960"]
[White "A"]
[Black "B"]
[Result "*"]
[Variant "Chess960"]
[SetUp "1"]
[FEN "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1"]

"""
"""The tag section of the golden Chess960 record (tests/test_chess_codec.py) and its lossless cousin."""


def assert_encode_of_plain_tag_vector(new: bytes, old: bytes) -> None:
    """``new``, what encode now writes for the game of ``old``, a golden container with plain tags (flag 02, which
    encode no longer writes): the same codec, scheme version, plies, start and payload bytes (the move coding is
    pinned by the vector), its tags in a tags-only record section (flags 0c), no larger; both decode the same."""
    from plybits import container, decode

    was, now = container.unpack(old, max_plies=20_000), container.unpack(new, max_plies=20_000)
    assert was.tags and was.record is None and not now.tags and now.tags_only and now.record is not None
    assert (now.codec_id, now.scheme_version, now.plies, now.start, now.payload) == (
        was.codec_id, was.scheme_version, was.plies, was.start, was.payload)
    assert len(new) <= len(old)
    before, after = decode(old), decode(new)
    assert (after.moves, after.tags, after.start, after.final_position) == (
        before.moves, before.tags, before.start, before.final_position)
