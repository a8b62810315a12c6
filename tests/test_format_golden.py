"""Golden containers from docs/format.md: released bytes must decode the same forever."""

import base64

import pytest

import plybits
from plybits.container import unpack

# Written by hand from the byte table in docs/format.md (not produced by the encoder).
E4_E5_NF3 = bytes.fromhex("50420101000003143464440625d76d9ebd")
E4_E5_NF3_WITH_RESULT = bytes.fromhex("504201010002030106526573756c7403312d301434644406253e8361e1")


def test_the_worked_example_matches_its_base64url_form():
    assert base64.urlsafe_b64encode(E4_E5_NF3).rstrip(b"=") == b"UEIBAQAAAxQ0ZEQGJddtnr0"


def test_container_fields_of_the_worked_example():
    box = unpack(E4_E5_NF3_WITH_RESULT, max_plies=10)
    assert (box.codec_id, box.scheme_version, box.plies, box.start) == (0x01, 0, 3, None)
    assert box.tags == {"Result": "1-0"}
    assert box.payload == bytes.fromhex("143464440625")


def _require_chess():
    from plybits import registry

    if "chess" not in [g.name for g in registry.games()]:
        pytest.fail("the chess package is not registered")


@pytest.mark.parametrize("blob,tags", [(E4_E5_NF3, {}), (E4_E5_NF3_WITH_RESULT, {"Result": "1-0"})])
def test_golden_chess_blobs_decode_to_the_same_game(blob, tags):
    _require_chess()
    decoded = plybits.decode(blob, notation="san")
    assert decoded.moves == ["e4", "e5", "Nf3"]
    assert decoded.tags == tags
    assert (decoded.game, decoded.scheme, decoded.start) == ("chess", "0x88", None)


# The header, section length and payload by hand from docs/format.md's byte table: flags 0c (a record section holding
# the tags alone), the section 03 bytes long: 02 its version, then e9 f8, the range coder's bytes for the one tag
# (pinned as encode first wrote them; the test reads them back as the tag).
E4_E5_NF3_WITH_CODED_RESULT = bytes.fromhex("50420101000c030302e9f81434644406258e9a7e80")


def test_encoding_the_worked_example_gives_the_golden_bytes():
    _require_chess()
    assert plybits.encode("chess", "0x88", moves=["e4", "e5", "Nf3"]).data == E4_E5_NF3


# The same with record-section version 3 (what encode writes now): 03 bytes, 03 its version, then the coder's bytes
# for the tag alone (a version-3 tags-only section codes no result token, comments or steps).
E4_E5_NF3_WITH_V3_RESULT = bytes.fromhex("50420101000c030303fd0d1434644406255756406c")


def test_tags_are_now_written_coded_and_the_plain_tag_vector_still_reads_the_same():
    """Encode no longer writes flag 02 (plain tags): a moves-fidelity container codes its tags as a full one does;
    the version-2 coded vector reads the same as the version-3 one encode writes now."""
    _require_chess()
    new = plybits.encode("chess", "0x88", moves=["e4", "e5", "Nf3"], tags={"Result": "1-0"}).data
    assert new == E4_E5_NF3_WITH_V3_RESULT and len(new) < len(E4_E5_NF3_WITH_RESULT)
    box = unpack(new, max_plies=10)
    assert (box.tags, box.record, box.tags_only) == ({}, bytes.fromhex("03fd0d"), True)
    assert unpack(E4_E5_NF3_WITH_CODED_RESULT, max_plies=10).record == bytes.fromhex("02e9f8")
    old, v2, coded = (plybits.decode(blob) for blob in (E4_E5_NF3_WITH_RESULT, E4_E5_NF3_WITH_CODED_RESULT, new))
    assert (old.moves, old.tags) == (v2.moves, v2.tags) == (coded.moves, coded.tags) == (
        ["e4", "e5", "Nf3"], {"Result": "1-0"})
