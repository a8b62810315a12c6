"""Fidelity ``moves`` codes its tags as ``full`` does (a record section of tags alone, container flag 0c), so a
moves-only container is never larger than the full one of the same game; old plain-tag containers still read."""

from __future__ import annotations

import pytest
from conftest import SHARED_DATA, sample, shared_data

import plybits
from plybits import container
from plybits.errors import InvalidDataError, PlybitsError
from plybits.recordsection import write_section
from plybits.records import read_record
from plybits.registry import get_game, get_scheme

ANNOTATED = '[Event "x"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 {a comment} e5 $1 (1... c5) 2. Nf3 1-0\n'


def test_a_moves_container_keeps_the_tags_coded_and_reports_what_it_drops() -> None:
    moves = plybits.encode("chess", "rank", record=ANNOTATED, fidelity="moves")
    full = plybits.encode("chess", "rank", record=ANNOTATED)
    box = container.unpack(moves.data, max_plies=10)
    assert (box.tags, box.tags_only, box.record is not None) == ({}, True, True)
    assert moves.dropped == {"comments": 1, "nags": 1, "variations": 1} and full.dropped == {}
    decoded = plybits.decode(moves.data, format="record")
    assert decoded.tags == plybits.decode(full.data).tags == {"Event": "x", "White": "A", "Black": "B", "Result": "1-0"}
    assert decoded.record is not None and decoded.record.endswith("\n1. e4 e5 2. Nf3 1-0\n")
    assert len(moves.data) < len(full.data)


def test_a_game_without_tags_has_no_section() -> None:
    box = container.unpack(plybits.encode("chess", "rank", moves=["e4"]).data, max_plies=10)
    assert (box.record, box.tags_only, box.tags) == (None, False, {})


def test_flag_08_needs_a_record_section_and_a_tags_only_section_holds_tags_alone() -> None:
    data = bytearray(plybits.encode("chess", "0x88", moves=["e4"]).data[:-4])
    data[5] = container.FLAG_TAGS_ONLY
    with pytest.raises(InvalidDataError, match="0x08 without 0x04"):
        container.unpack(bytes(data) + container.zlib.crc32(data).to_bytes(4, "big"), max_plies=10)
    full = container.unpack(plybits.encode("chess", "0x88", record=ANNOTATED).data, max_plies=10)
    full.tags_only = True  # a full section (comments, a NAG, a variation) passed off as a tags-only one: from
    with pytest.raises(InvalidDataError, match="trailing data"):  # version 3 the section ends after its tags
        plybits.decode(container.pack(full))
    old = container.unpack(plybits.encode("chess", "0x88", record=ANNOTATED).data, max_plies=10)
    assert old.record is not None
    scheme = get_scheme("chess", "0x88")
    replay = read_record("chess", record=ANNOTATED, variations=True)
    assert replay.notes is not None
    old.record = write_section(scheme, replay.start_position, replay.moves, replay.notes, replay.tags, version=2)
    old.tags_only = True  # the same under version 2, whose tags-only sections code the rest as a full one does
    with pytest.raises(InvalidDataError, match="moves-fidelity record section holds something besides tags"):
        plybits.decode(container.pack(old))
    no_result = plybits.encode("chess", "0x88", record=ANNOTATED.replace("1-0\n", "*\n").replace("\n[Result", "\n[R"))
    box = container.unpack(no_result.data, max_plies=10)
    box.tags_only = True  # result token "*" while the tags hold no Result: not what encode writes (version 3: a
    with pytest.raises(InvalidDataError, match="trailing data"):  # tags-only section codes no result token)
        plybits.decode(container.pack(box))


FOLDERS = (".", "clocks", "chesscom", "edge")
"""The shared chess collections' folders (``.``: the files directly in ``chess/``)."""


def test_the_folders_cover_every_shared_chess_file() -> None:
    folder = shared_data("chess").resolve()
    assert set(folder.rglob("*.pgn")) == {path for name in FOLDERS for path in (folder / name).glob("*.pgn")}


@pytest.mark.parametrize("name", FOLDERS)
def test_moves_is_never_larger_than_full_on_the_shared_chess_files(name: str) -> None:
    files = sorted(shared_data("chess", name).resolve().glob("*.pgn"))
    assert files, f"no PGN file in {SHARED_DATA / 'chess' / name}"
    compared = 0
    for path in files:
        records = list(get_game("chess").split_records(path.read_text(encoding="utf-8-sig", errors="replace")))
        for index, text in enumerate(sample(records, 0.05, f"fidelity-sizes {path.name}", least=min(len(records), 12))):
            try:
                full = plybits.encode("chess", "rank", record=text)
            except PlybitsError:
                continue  # a variant or a record full fidelity refuses: nothing to compare
            moves = plybits.encode("chess", "rank", record=text, fidelity="moves")
            where = f"{path.name} sample {index}"
            assert len(moves.data) <= len(full.data), f"{where}: moves {len(moves.data)} B > full {len(full.data)} B"
            decoded = plybits.decode(moves.data)
            assert decoded.tags == plybits.decode(full.data).tags == moves.tags, where
            assert decoded.moves == plybits.decode(full.data).moves, where
            compared += 1
    assert compared >= 10


def test_moves_is_never_larger_than_full_for_the_shortest_clocked_games() -> None:
    """A clocked game of one or two plies codes little besides its tags at full fidelity, so a tags-only section
    that coded other decisions than a full one begins with could come out a byte longer (two lichess games did
    under section version 3 before a tags-only section held the tags alone)."""
    path = shared_data("chess", "clocks").resolve() / "lichess_db_standard_rated_2021-10_first999.pgn"
    records = get_game("chess").split_records(path.read_text(encoding="utf-8-sig"))
    short = [text for text in records if "2. " not in text.split("\n\n", 1)[1] and "%clk" in text]
    assert len(short) >= 2
    for text in short:
        full = plybits.encode("chess", "rank", record=text)
        moves = plybits.encode("chess", "rank", record=text, fidelity="moves")
        assert len(moves.data) <= len(full.data), text[:200]
        assert plybits.decode(moves.data).tags == plybits.decode(full.data).tags
