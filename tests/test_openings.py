"""The archive's ``first_moves`` column: the first 6 plies in SAN (8 in archives written before, which say so by
not naming ``opening_plies``), as python-chess writes them, and the SQL function that answers the same."""

from __future__ import annotations

import dataclasses
import json

import chess
import pyarrow as pa

from plybits import archive, sql
from plybits.openings import FIRST_PLIES

NAJDORF = "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be2 e5 *\n"
SHORT = "1. d4 d5 *\n"


def peer_san(moves: list[str], plies: int) -> str:
    """The first ``plies`` of the SAN ``moves`` as python-chess writes them, space-separated."""
    board, out = chess.Board(), []
    for text in moves[:plies]:
        move = board.parse_san(text)
        out.append(board.san(move))
        board.push(move)
    return " ".join(out)


def test_first_moves_are_the_first_six_plies_in_san() -> None:
    meta = archive.Meta.of("chess", "rank")
    assert FIRST_PLIES == meta.opening_plies == 6
    line = NAJDORF.replace("*", "").split()
    moves = [m for m in line if not m[0].isdigit()]
    assert archive.row_of(meta, record=NAJDORF)["first_moves"] == peer_san(moves, 6) == "e4 c5 Nf3 d6 d4 cxd4"
    assert archive.row_of(meta, record=SHORT)["first_moves"] == "d4 d5"


def test_an_archive_that_names_no_opening_plies_kept_eight_and_sql_answers_eight() -> None:
    new = archive.Meta.of("chess", "rank")
    fields = {k: v for k, v in dataclasses.asdict(new).items() if k != "opening_plies"}
    old_schema = archive.schema("chess").with_metadata({archive.META_KEY: json.dumps(fields).encode()})
    old = archive.Meta.from_schema(old_schema)
    assert old.opening_plies == 8 and dataclasses.replace(old, opening_plies=6) == new
    rows = [{"source": "s", "offset": 0, "number": n, **archive.row_of(old, record=text)}
            for n, text in enumerate([NAJDORF, SHORT], 1)]
    assert rows[0]["first_moves"] == "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6"
    con = sql.connect_table(archive.table(rows, old), old)
    assert con.sql("select count(*) from games where first_moves <> first_moves(body)").fetchall() == [(0,)]
    assert con.sql("select number from games where starts_with_moves(first_moves, 'e4 c5 Nf3 d6 d4 cxd4 Nxd4')"
                   ).fetchall() == [(1,)]


def test_the_column_is_plain_not_a_dictionary(tmp_path) -> None:
    import pyarrow.parquet as pq

    meta = archive.Meta.of("chess", "rank")
    rows = [{"source": "s", "offset": 0, "number": n, **archive.row_of(meta, record=text)}
            for n, text in enumerate([NAJDORF, SHORT] * 3)]
    archive.write_file(archive.table(rows, meta), str(tmp_path / "a.parquet"))
    chunk = pq.ParquetFile(tmp_path / "a.parquet").metadata.row_group(0)
    names = [chunk.column(i).path_in_schema for i in range(chunk.num_columns)]
    encodings = chunk.column(names.index("first_moves")).encodings
    assert "PLAIN_DICTIONARY" not in encodings and "RLE_DICTIONARY" not in encodings
    assert pa.types.is_string(archive.read_file(str(tmp_path / "a.parquet")).schema.field("first_moves").type)
