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


def test_encoding_the_worked_example_gives_the_golden_bytes():
    _require_chess()
    assert plybits.encode("chess", "0x88", moves=["e4", "e5", "Nf3"]).data == E4_E5_NF3
    assert plybits.encode("chess", "0x88", moves=["e4", "e5", "Nf3"], tags={"Result": "1-0"}).data == (
        E4_E5_NF3_WITH_RESULT
    )
