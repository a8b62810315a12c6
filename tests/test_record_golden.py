"""Full-fidelity containers of every record-section version decode the same forever: each golden container,
pinned when its version was the one written, decodes to the record it was made from (python-chess reads the
same game, the tags are those written), and the record section's first byte names its version."""

from __future__ import annotations

import io

import chess.pgn
import pytest

import plybits
from plybits import pgntext
from plybits.container import unpack
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "records"

GOLDEN_V1 = [
    ("chesscom", (
        "5042010201043bd901019159877e2f8c8c52268a8402198253ac7c318de0108ccbe1bd40343dadf42f8e305f8373fc93da00"
        "ff1b61f4cd56a46b94905f97d31234630e8b2223ae1dcad4f863b143ae0dcd05f71ff5a9faf540b44d42f8c7b042c3a4f131"
        "bc978d0052a8c85aabe71f4d11a624da0cc35220437397cac4cff4e725ae14e4b8a7d18b499bb944c3ffebdf939f955c46e6"
        "579a6839a2216e0c3edd14d69e92e0b128c823a5deff0bb0d9dee6604357a78b7fedde67ec03c075eb9cc969fad166c76b8e"
        "50a1b1504b4387b33703df3708381f68a0d15842acf4652c779edd602204b798d4298496f4f22a564dddc091bb7b1de3d0aa"
        "66dcb73b"
    )),
    ("lichess", (
        "504201020104115d01a11fd9e60741ad348224ccd3348595f0af8b39afa22a4daf86bfae112bd8a700b44ac4b1fdab11c1d2"
        "9b1762cdaeed4d982166d40fe5c590f9b44ec47aefa0c4aceee63edb04e28cae3913138a1c908b290a3116af6696b09a2a36"
        "a99d6ff92503c36d7ce7611a"
    )),
    ("nested", (
        "50420102010403250125684bdf97a8b0056fdacfa48aee2790af68c9106c1e59bfba244e3065cb13cb73e82a30dc901ab548"
    )),
]
"""Section version 1 (``chess/rank``), pinned before version 2 was written: (fixture, container hex)."""


def _game(text: str) -> str:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    return str(game)


@pytest.mark.parametrize("name, blob", GOLDEN_V1)
def test_version_1_containers_decode_to_the_record_they_were_made_from(name: str, blob: str) -> None:
    data = bytes.fromhex(blob)
    record = unpack(data, max_plies=1000).record
    assert record is not None and record[0] == 1
    source = (FIXTURES / f"v1_{name}.pgn").read_text(encoding="utf-8")
    decoded = plybits.decode(data, format="record")
    assert decoded.record is not None
    assert _game(decoded.record) == _game(source)
    assert decoded.tags == pgntext.read(source, kind="PGN").tags
