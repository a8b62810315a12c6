"""The archive's row format (plybits.archive, issue 26): a row is the record stored once, and gives it back exactly."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from plybits import archive
from plybits import records as verbs
from plybits.errors import InvalidDataError
from plybits.registry import get_game
from tests.conftest import shared_data


def _lichess() -> Path:
    """The lichess games with clocks (the calling test skips, saying why, where ../shared is absent)."""
    return shared_data("chess", "clocks", "lichess_db_standard_rated_2021-10_first999.pgn")


def _games(path: Path, game: str = "chess") -> list[str]:
    return list(get_game(game).split_records(path.read_text(encoding="utf-8")))


def _sample() -> list[tuple[str, str]]:
    """Lichess games (clocks; some with evaluations and NAGs), annotated games with variations, a Chess960 start,
    and games of the other three games."""
    lichess = _games(_lichess())
    analysed = [g for g in lichess if "%eval" in g][:3]
    chess = [*lichess[:6], *analysed, *[g for name in ("kasparov-deep-blue-1997.pgn", "cutechess-fischerrandom.pgn")
                                        for g in _games(shared_data("chess", "edge", name))[:2]]]
    xiangqi = _games(shared_data("xiangqi", "Hu_Ronghua_1391_UCI_games.pgn"), "xiangqi")[:3]
    abalone = _games(shared_data("abalone", "migs-2016-2017.train.apgn"), "abalone")[:3]
    entropy = ['[Event "Club"]\n\n{ chaos first } Rd4 {placed} Gc3 $1 ( Ga1 ) *\n']
    return [("chess", g) for g in chess] + [("xiangqi", g) for g in xiangqi] + [("abalone", g) for g in abalone] + [
        ("entropy", g) for g in entropy]


@pytest.mark.parametrize("scheme", ["rank", "seed"])
def test_a_row_gives_back_the_container_and_the_record_exactly(scheme: str) -> None:
    for game, text in _sample():
        name = verbs.seed_scheme(game) if scheme == "seed" else scheme
        meta = archive.Meta.of(game, name)
        row = archive.row_of(meta, record=text)
        expected = verbs.encode(game, name, record=text)
        assert archive.container_of(row, meta) == expected.data
        assert archive.record_of(row, meta) == verbs.decode(expected.data, format="record").record
        start, moves = archive.moves_of(row["body"], meta)
        assert archive.ply_count(row["body"]) == len(moves) == expected.plies
        assert verbs.write_moves(start, moves) == verbs.decode(expected.data).moves


def test_moves_fidelity_and_request_tags_as_encode_keeps_them() -> None:
    meta = archive.Meta.of("chess", "rank")
    text = _games(_lichess())[0]
    row = archive.row_of(meta, record=text, fidelity="moves", tags={"Annotator": "me", "White": "Other"})
    expected = verbs.encode("chess", "rank", record=text, fidelity="moves", tags={"Annotator": "me", "White": "Other"})
    assert archive.container_of(row, meta) == expected.data and row["white"] == "Other"
    bare = archive.row_of(meta, moves=["e4", "e5"])
    assert archive.container_of(bare, meta) == verbs.encode("chess", "rank", moves=["e4", "e5"]).data
    assert archive.read_body(bare["body"], meta).section is None  # no tags, no notes: no section at all


def test_lichess_tags_become_typed_columns_each_stored_once() -> None:
    meta = archive.Meta.of("chess", "rank")
    row = archive.row_of(meta, record=_games(_lichess())[0])
    assert row["game_id"] == "NRafdioG" and "site" not in row
    assert row["played_at"] == datetime(2021, 10, 1, 0, 0, 14, tzinfo=timezone.utc)
    assert row["date"] is None  # the Date equals the UTCDate: stored once, in played_at
    assert (row["white_elo"], row["black_elo"], row["white_rating_diff"], row["black_rating_diff"]) == (1703, 1698, 6, -6)
    assert (row["tc_initial"], row["tc_increment"], row["eco"], row["result"]) == (60, 0, "B50", "1-0")
    assert json.loads(row["tag_order"])[:3] == ["Event", "Site", "Date"]
    body = archive.read_body(row["body"], meta)
    assert body.section is not None and b"NRafdioG" not in row["body"] and b"Sicilian" not in row["body"]


@pytest.mark.parametrize(("tag", "value"), [("WhiteElo", "?"), ("WhiteElo", "02100"), ("TimeControl", "-"),
                                            ("WhiteRatingDiff", "-0"), ("Site", "https://lichess.org/short"),
                                            ("UTCTime", "25:00:00")])
def test_a_value_a_column_cannot_give_back_stays_in_the_body(tag: str, value: str) -> None:
    text = _games(_lichess())[0]
    old = text.split(f'[{tag} "', 1)[1].split('"', 1)[0]
    text = text.replace(f'[{tag} "{old}"]', f'[{tag} "{value}"]')
    meta = archive.Meta.of("chess", "0x88")
    row = archive.row_of(meta, record=text)
    assert f'[{tag} "{value}"]' in archive.record_of(row, meta)
    assert archive.container_of(row, meta) == verbs.encode("chess", "0x88", record=text).data


def test_tags_that_do_not_fit_together_are_invalid_data() -> None:
    meta = archive.Meta.of("chess", "0x88")
    row = archive.row_of(meta, record=_games(_lichess())[0])
    with pytest.raises(InvalidDataError, match="neither in a column"):
        archive.record_of({**row, "white": None}, meta)
    with pytest.raises(InvalidDataError):
        archive.record_of({**row, "body": row["body"][:5]}, meta)
    with pytest.raises(InvalidDataError, match="without a record section"):
        archive.read_body(bytes([2 << 3 | archive.FLAG_NOTES]), meta)


def test_files_carry_the_metadata_and_a_crc_on_every_page(tmp_path: Path) -> None:
    meta = archive.Meta.of("chess", "rank")
    rows = [{"source": "s", "number": i + 1, "offset": 0, **archive.row_of(meta, record=g)}
            for i, g in enumerate(_games(_lichess())[:20])]
    path = tmp_path / "a.parquet"
    archive.write_file(archive.table(rows, meta), str(path))
    back = archive.read_file(str(path))
    assert archive.Meta.from_schema(pq.read_schema(path)) == meta
    assert [archive.record_of(r, meta) for r in back.to_pylist()] == [archive.record_of(r, meta) for r in rows]
    data = bytearray(path.read_bytes())
    body = pq.ParquetFile(path).metadata.row_group(0).column(back.schema.get_field_index("body"))
    data[body.data_page_offset + 40] ^= 0x01  # a bit of the body column's first page, past its header
    path.write_bytes(bytes(data))
    with pytest.raises(OSError, match="(?i)crc|checksum"):
        archive.read_file(str(path))


def test_metadata_of_another_format_is_refused() -> None:
    meta = archive.Meta.of("chess", "rank")
    schema = meta.schema()
    raw = json.loads(schema.metadata[archive.META_KEY])
    with pytest.raises(InvalidDataError, match="format 2"):
        archive.Meta.from_schema(schema.with_metadata({archive.META_KEY: json.dumps({**raw, "format": 2})}))
    with pytest.raises(InvalidDataError, match="not a plybits archive"):
        archive.Meta.from_schema(schema.with_metadata({}))
