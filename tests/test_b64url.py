"""The container's text form is base64url without padding (SPEC §6; padding is accepted on input, as
the API documents): every other spelling of the same bytes is refused (issue 13 item 12)."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plybits.errors import InvalidDataError
from plybits.records import b64url, from_b64url

GOLDEN = "UEIBAQAAAxQ0ZEQGJddtnr0"  # docs/format.md's worked example
GOLDEN_BYTES = bytes.fromhex("504201010000031434644406 25d76d9ebd".replace(" ", ""))


def test_the_worked_example_reads_with_and_without_padding():
    assert from_b64url(GOLDEN) == GOLDEN_BYTES
    assert from_b64url(GOLDEN + "=") == GOLDEN_BYTES


@given(st.binary(max_size=64))
def test_every_blob_reads_back_from_its_text_form(data):
    text = b64url(data)
    assert from_b64url(text) == data
    assert from_b64url(base64.urlsafe_b64encode(data).decode()) == data


@pytest.mark.parametrize("text,why", [
    ("+/8", "standard alphabet"),
    ("UEIBAQAAAxQ0ZEQGJddtnr1", "unused bits"),  # last character's low bits not zero
    ("UEIBAQAAAxQ0ZEQGJddtnr0==", "padding"),  # one '=' too many
    ("UEIBAQAAAxQ0ZEQGJddtnr0A=", "padding"),
    ("UEI=BAQAAAxQ0ZEQGJddtnr0", "padding"),
    ("UEIBAQAAAxQ0ZEQGJddtnr0AA", "length"),  # 4n+1 characters
    ("UEIBAQAAAxQ0ZEQGJddtnr0\u0660", "base64url"),
    ("UEIBAQAAAxQ0ZEQGJddtnr0\ud800", "base64url"),
    ("UEIBAQAA AxQ0ZEQGJddtnr0", "base64url"),
])
def test_other_spellings_are_refused(text, why):
    with pytest.raises(InvalidDataError, match=why):
        from_b64url(text)


def test_standard_alphabet_of_a_real_container_is_refused():
    blob = bytes(range(248, 256)) + GOLDEN_BYTES  # holds 0xfb.. so its text has '-' and '_'
    url = b64url(blob)
    assert "-" in url or "_" in url
    standard = url.replace("-", "+").replace("_", "/")
    with pytest.raises(InvalidDataError, match="standard alphabet"):
        from_b64url(standard)


def _overlong_ply_count() -> str:
    import zlib

    body = b"PB" + bytes([1, 0x01, 0, 0]) + bytes.fromhex("838000") + bytes.fromhex("143464440625")
    return b64url(body + zlib.crc32(body).to_bytes(4, "big"))


def _standard_alphabet() -> str:
    """A valid container (the worked example with a tag) whose base64 has '+' or '/'."""
    from plybits.container import Container, pack

    for i in range(1000):
        blob = pack(Container(0x01, 0, 3, bytes.fromhex("143464440625"), tags={"Round": str(i)}))
        text = base64.b64encode(blob).decode().rstrip("=")
        if "+" in text or "/" in text:
            return text
    raise AssertionError("no such tag")


@pytest.mark.parametrize("data", [
    "UEIBAQAAAxQ0ZEQGJddtnr1",
    "placeholder: standard alphabet",
    "placeholder: overlong",
])
def test_decode_refuses_non_canonical_input_with_a_422(client, data):
    if data == "placeholder: overlong":
        data = _overlong_ply_count()
    elif data == "placeholder: standard alphabet":
        data = _standard_alphabet()
    assert client.post("/v1/decode", json={"data": GOLDEN}).status_code == 200
    answer = client.post("/v1/decode", json={"data": data})
    assert answer.status_code == 422, answer.text
    assert answer.json()["type"].endswith("/invalid-data")
    lines = client.post("/v1/batch/decode", content=f'{{"data": "{data}"}}\n{{"data": "{GOLDEN}"}}'.encode(),
                        headers={"content-type": "application/x-ndjson"}).text.splitlines()
    assert '"error"' in lines[0] and '"result"' in lines[1]
