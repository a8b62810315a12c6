"""Full-fidelity containers of every record-section version decode the same forever: each golden container,
pinned when its version was the one written, decodes to the record it was made from (python-chess reads the
same game, the tags are those written), and the record section's first byte names its version."""

from __future__ import annotations

import io

import chess.pgn
import pytest

import plybits
from plybits import pgntext, records
from plybits.chess.rank import canonical_moves
from plybits.container import unpack
from plybits.rank import RankScheme
from plybits.recordsection import write_section
from plybits.registry import get_scheme
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


GOLDEN_V2 = [
    ("v1_chesscom", (
        "5042010201043b77029159877e2f8c8c52268a8402198253ac7c318dcf19347ea34e5c40db7c3cc93210bcf2d79c3d4013ab"
        "1c19280f3c297947eabbec6bf90601d6eebcdc285589188e004a2cb084eb40565463f004dc77fe638eec64236b2b7cc74124"
        "d978798f7cd4aa6da51a15644013f5b3b7e8505fadcfa562a8576fdd602204b798d4298496f4f22a564dddc091bb7b1de3d0"
        "aa38d81615"
    )),
    ("v1_lichess", (
        "504201020104115c02a11fd9e60741ad348224ccd3348595f0af8b39afa22a4daf86bfae112bd8a700b44ac4b1fdab11c1d2"
        "9b1762cdaeed4d9820d1cf0c34f1932cef59da42cd5a172751190c3a7eaa904f06bbb3ccba28592041dfa3b9b576149966ad"
        "9d6ff92503c36d7c8d8f2c"
    )),
    ("v1_nested", (
        "50420102010403250225684bdf97a8b0056fdacfa48aee2790af68c9106c1e59bfba2454999cbc90ba947d783adca41bd335"
    )),
    ("v2_underived", (
        "5042010201043bab01029159877e2f8c8c52268a8402198253ac7c318dcc29a274ed81a0d1b5cc0dd19c13df35cf292a87f6"
        "63549650043dce85753a79634d5495dde3dea37b265f8d3518f244ca95f99eaa6e682a88f5c802d8fe03b7c0752ac084115c"
        "e03c39afd56f3e6e17795dd38a273e09c0fe287beb3dc68906699e212f53172fb11e939ca92eea76f709b7dfa69ec7d65331"
        "b74d199a253cef708123046222e07c56001c227ba5dc8d31ac817eba9313dd602204b798d4298496f4f22a564dddc091bb7b"
        "1de3d0aa5efcddd1"
    )),
]
"""Section version 2 (``chess/rank``): (fixture, container hex); ``v2_underived`` is the chess.com game with a
``CurrentPosition``, ``Termination`` and ``StartTime`` that the game and its tags do not give."""


GOLDEN_V3 = [
    ("v1_chesscom", (
        "5042010201043b6b035a503bea40b6a6ef7646c9edb3165bc7730e3e3b41b1709eebcb23af2ebe2eaf1c0fee995bf7bc3514"
        "906ececeb488503363dcc52c711bdd9eea55a316643f0e9a1afe1eb35e42e4c70d8c417723178503bc5884ed0accc0b7b37c"
        "ba9e7050ccecfe093641d8db9f06e4dd602204b798d4298496f4f22a564dddc091bb7b1de3d0aa4736690f"
    )),
    ("v1_lichess", (
        "504201020104114b03b2764f1d9b258a6f06234198f868f32b8e27fd4c0a922b7c056b1042ce7c910edc045c28ac4a55b38d"
        "fdeda92d2631ad8fa2cf09e356593b3fe7f0eb84d8943df2c90be4f25eecd0be059d6ff92503c36d8ce9863b"
    )),
    ("v1_nested", (
        "504201020104032903124485a09e8839885d1079e4c450a995fc252bec618538396135fbcfff34e190878098f0400fc7c1dc"
        "2731c434"
    )),
    ("v2_underived", (
        "5042010201043b9f01035a503bea40b6a6ef7646c9edb3165bc5b1c78f52a9dd00eb79acaed16045a881f0a66600e0900982"
        "87b21db776c7f779dcc20c063d407d1bf54e6a8c6d4d3e60811d98a39a69987573a6cacf2582bb72a9407d69d7c384c74ff0"
        "de2edcb4b54f9f96df62fe4844210c166ad736775c5ef3b268dad24f17173720ec51bc7b64e2d57cacb333177ac4d97feae4"
        "1f035274ed9add470de9fd09f41e3e59085bdd602204b798d4298496f4f22a564dddc091bb7b1de3d0aa1b35d6c4"
    )),
]
"""Section version 3 (``chess/rank``), the fixtures of versions 1 and 2 as version 3 writes them: (fixture, container
hex), under chess rank model 1 (what encode wrote before model 2)."""


GOLDEN_V3_MODEL_2 = [
    ("v1_chesscom", (
        "5042010202043b6b035a503bea40b6a6ef7646c9edb3165bc7730e3e3b41b1709eebcb23af2ebe2eaf1c0fee995bf7bc3514"
        "906ececeb488503363dcc52c711bdd9eea55a316643f0e9a1afe1eb35e42e4c70d8c417723178503bc5884ed0accc0b7b37c"
        "ba9e7050ccecfe093641d8db9f06e4d95d8321a9665ae2864a4999f4a131790f0035302cac0637cbfb86"
    )),
    ("v1_lichess", (
        "504201020204114b03b2764f1d9b258a6f06234198f868f32b8e27fd4c0a922b7c056b1042ce7c910edc045c28ac4a55b38d"
        "fdeda92d2631ad8fa2cf09e356593b3fe7f0eb84d8943df2c90be4f25eecd0be052f602178926abc9474bb"
    )),
    ("v1_nested", (
        "504201020204032803124485a09e8839885d1079e4c450a995fc252bec61853582ce9c6c536e26f411f64b30fca7248eac5e"
        "9f34e2"
    )),
    ("v2_underived", (
        "5042010202043b9f01035a503bea40b6a6ef7646c9edb3165bc5b1c78f52a9dd00eb79acaed16045a881f0a66600e0900982"
        "87b21db776c7f779dcc20c063d407d1bf54e6a8c6d4d3e60811d98a39a69987573a6cacf2582bb72a9407d69d7c384c74ff0"
        "de2edcb4b54f9f96df62fe4844210c166ad736775c5ef3b268dad24f17173720ec51bc7b64e2d57cacb333177ac4d97feae4"
        "1f035274ed9add470de9fd09f41e3e59085bd95d8321a9665ae2864a4999f4a131790f0035302cac06f1d854cf"
    )),
]
"""What encode writes for GOLDEN_V3's fixtures since chess rank model 2 (scheme-version byte 2, variations coded
under model 2); GOLDEN_V3's model-1 containers keep decoding."""


def _game(text: str) -> str:
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    return str(game)


@pytest.mark.parametrize("version, name, blob", [(1, f"v1_{name}", blob) for name, blob in GOLDEN_V1]
                         + [(2, name, blob) for name, blob in GOLDEN_V2]
                         + [(3, name, blob) for name, blob in GOLDEN_V3 + GOLDEN_V3_MODEL_2])
def test_golden_containers_decode_to_the_record_they_were_made_from(version: int, name: str, blob: str) -> None:
    data = bytes.fromhex(blob)
    record = unpack(data, max_plies=1000).record
    assert record is not None and record[0] == version
    source = (FIXTURES / f"{name}.pgn").read_text(encoding="utf-8")
    decoded = plybits.decode(data, format="record")
    assert decoded.record is not None
    assert _game(decoded.record) == _game(source)
    assert decoded.tags == pgntext.read(source, kind="PGN").tags


@pytest.mark.parametrize("name, blob", GOLDEN_V3_MODEL_2)
def test_encoding_gives_the_version_3_golden_bytes(name: str, blob: str) -> None:
    source = (FIXTURES / f"{name}.pgn").read_text(encoding="utf-8")
    assert plybits.encode("chess", "rank", record=source).data.hex() == blob


@pytest.mark.parametrize("version, name, blob", [(1, f"v1_{name}", blob) for name, blob in GOLDEN_V1]
                         + [(2, name, blob) for name, blob in GOLDEN_V2])
def test_older_sections_are_still_written_the_same(version: int, name: str, blob: str) -> None:
    """Versions 1 and 2, no longer what encode writes, still give their golden sections byte for byte."""
    source = (FIXTURES / f"{name}.pgn").read_text(encoding="utf-8")
    box = unpack(bytes.fromhex(blob), max_plies=1000)
    rank = get_scheme("chess", "rank")
    scheme = RankScheme("chess", rank.codec_id, rank.description, canonical_moves, rank.model(1))  # variations: model 1
    replay = records.read_record("chess", record=source, variations=True)
    assert replay.notes is not None and box.record is not None
    assert write_section(scheme, replay.start_position, replay.moves, replay.notes, replay.tags,
                         version=version) == box.record


# ------------------------------------------------------------------------ version 2: tags derived from the game

CHESSCOM = (FIXTURES / "v1_chesscom.pgn").read_text(encoding="utf-8")
URL = "https://www.chess.com/openings/"


def _with_tag(text: str, name: str, value: str) -> str:
    head, body = text.split("\n\n", 1)
    lines = [line for line in head.split("\n") if not line.startswith(f"[{name} ")]
    return "\n".join([*lines, pgntext.tag_line(name, value)]) + "\n\n" + body


def _section_bytes(text: str) -> int:
    record = unpack(plybits.encode("chess", "rank", record=text).data, max_plies=1000).record
    assert record is not None
    return len(record)


@pytest.mark.parametrize("name, derived, others", [
    ("CurrentPosition", "rn4R1/8/p7/8/3B3k/3K4/PP3P2/7R b - -",
     ["rn4R1/8/p7/8/3B3k/3K4/PP3P2/7R b - - 0 34", "rn4R1/8/p7/8/3B3k/3K4/PP3P2/7R b - -  ", "", "start"]),
    ("StartTime", "21:58:25", ["21:58:26", "9:58:25", "", "21:58:25 "]),
    ("Termination", "pnmadelaine won by checkmate",
     ["Luislo007 won by checkmate", "pnmadelaine won by checkmate!", "Game drawn by agreement", "Normal", "",
      "{winner} won by checkmate"]),
    ("TimeControl", "600", ["600+0", "600+5", "0600", "1/172800", "600+", "-"]),
    ("ECOUrl", f"{URL}Center-Game-Accepted-Kieseritzky-Variation-3...c5-4.Bc4",
     [f"{URL}Center-Game-Accepted-Kieseritzky-Variation-3...c6-4.Bc4", f"{URL}Center-Game-4.Bc4",
      f"{URL}Center-Game-3...c5-4.Bc4-", f"{URL}3...c5-4.Bc4", f"{URL}-3...c5-4.Bc4", f"{URL}Center-Game-1.e4-e5-2.d4",
      f"{URL}x-2...exd4-3.Nf3-c5-4.Bc4", f"{URL}Game-30.Rh1", f"{URL}Center-Game-3...c5-4.Bc4+", "Center-Game-4.Bc4"]),
    ("Link", "https://www.chess.com/game/live/29629221643",
     ["https://www.chess.com/game/live/029629221643", "https://www.chess.com/game/live/0",
      "https://www.chess.com/game/live/999999999999", "https://www.chess.com/game/live/1000000000000"]),
])
def test_a_tag_the_game_gives_costs_least_and_any_other_value_comes_back_as_written(
        name: str, derived: str, others: list[str]) -> None:
    assert _section_bytes(_with_tag(CHESSCOM, name, derived)) <= _section_bytes(_with_tag(CHESSCOM, name, others[0]))
    for value in [derived, *others]:
        text = _with_tag(CHESSCOM, name, value)
        data = plybits.encode("chess", "rank", record=text).data
        decoded = plybits.decode(data, format="record")
        assert decoded.tags == pgntext.read(text, kind="PGN").tags, value
        assert decoded.record is not None and _game(decoded.record) == _game(text), value
        assert plybits.encode("chess", "rank", record=decoded.record).data == data, value


def test_the_chess_com_tags_the_game_gives_take_a_few_bits_not_their_text() -> None:
    derived = _section_bytes(CHESSCOM)
    for name, value, text_bytes in (("CurrentPosition", "rn4R1/8/p7/8/3B3k/3K4/PP3P2/7R w - -", 20),
                                    ("Termination", "Luislo007 won by checkmate", 10),
                                    ("StartTime", "21:58:26", 2)):  # a time in full: three uniform numbers
        assert _section_bytes(_with_tag(CHESSCOM, name, value)) >= derived + text_bytes, name


# ------------------------------------------------------- version 3: measured priors, values predicted from others

LICHESS = (FIXTURES / "v1_lichess.pgn").read_text(encoding="utf-8")


@pytest.mark.parametrize("name, values", [
    ("White", ["pnmadelaine", "Carlsen, Magnus", "HU RongHua", "", "a b", "x" * 65, "Ümit_99"]),
    ("ECO", ["A00", "E99", "C20", "Z99", "C2", "c20"]),
    ("WhiteRatingDiff", ["+0", "-700", "+5", "+05", "0"]),
    ("TimeControl", ["600+0", "17+3", "-", "180+2", "60"]),
    ("Result", ["1-0", "0-1", "1/2-1/2", "*", "2-0"]),
    ("Variant", ["Standard", "standard"]),
    ("WhiteElo", ["1500", "0", "4095", "4096", "01500"]),
])
def test_version_3_keeps_every_tag_value_as_written(name: str, values: list[str]) -> None:
    for value in values:
        text = _with_tag(LICHESS, name, value)
        data = plybits.encode("chess", "rank", record=text).data
        record = unpack(data, max_plies=1000).record
        assert record is not None and record[0] == 3
        decoded = plybits.decode(data, format="record")
        assert decoded.tags == pgntext.read(text, kind="PGN").tags, value
        assert decoded.record is not None and _game(decoded.record) == _game(text), value
        assert plybits.encode("chess", "rank", record=decoded.record).data == data, value


@pytest.mark.parametrize("name", ["v1_chesscom", "v1_lichess"])
def test_version_3_sections_of_online_games_are_smaller_than_version_2s(name: str) -> None:
    source = (FIXTURES / f"{name}.pgn").read_text(encoding="utf-8")
    scheme = get_scheme("chess", "rank")
    replay = records.read_record("chess", record=source, variations=True)
    assert replay.notes is not None
    sizes = [len(write_section(scheme, replay.start_position, replay.moves, replay.notes, replay.tags,
                               version=version)) for version in (2, 3)]
    assert sizes[1] < sizes[0]


XIANGQI_MODEL_1_VARIATION = "504201120104040f0224efc03a3b6259e8de005c9252bed477780975ff"
"""A xiangqi full record with a side variation, as encode wrote it while model 1 was the newest xiangqi model
(``1. h2e2 h9g7 2. h0g2 (2. b0c2 b9c7) i9h9 *``)."""


def test_a_variation_is_checked_against_the_model_its_container_names() -> None:
    rank = get_scheme("xiangqi", "rank")
    data = bytes.fromhex(XIANGQI_MODEL_1_VARIATION)
    assert data[4] == 1 < rank.version  # a container of an older model than encode writes today
    decoded = plybits.decode(data, format="record")
    assert decoded.moves == ["h2e2", "h9g7", "h0g2", "i9h9"]
    assert decoded.record is not None and "( 2. B0-C2 B9-C7 )" in decoded.record
