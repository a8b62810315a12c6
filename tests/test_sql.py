"""SQL over an archive (issue 26): each function of plybits.sql against python-chess (chess) or the project's own
replay (xiangqi, Abalone) on every game of a shared file; the CLI's formats; a query on a real ``dask scheduler``
and two ``dask worker`` processes gives the rows of a local one."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from app import query as app_query
from app.cli import main
from plybits import archive, sql
from plybits import records as verbs
from plybits.errors import InvalidPositionError
from plybits.registry import get_game
from tests.conftest import shared_data

LICHESS = ("chess", "clocks", "lichess_db_standard_rated_2021-10_first999.pgn")
Lichess = tuple[Path, list[Any], list[list[Any]]]
"""The archive of the lichess file, python-chess's games and each game's boards."""


def build(out: Path, game: str, source: Path, scheme: str = "rank", limit: int | None = None, parts: int = 2,
          broken: bool = True) -> list[str]:
    """An archive of ``source``'s games in ``parts`` part files (plus an error row, body null, in the first when
    ``broken``), as plybits.archive writes one; the records, in order."""
    meta = archive.Meta.of(game, scheme)
    records = list(get_game(game).split_records(source.read_text(encoding="utf-8")))[:limit]
    rows = [{"source": str(source), "number": n, "offset": 0, **archive.row_of(meta, record=r), "error": None}
            for n, r in enumerate(records, 1)]
    if broken:
        rows.insert(1, {"source": str(source), "number": 0, "offset": 0, "error": '{"title": "illegal move"}'})
    out.mkdir()
    size = -(-len(rows) // parts)
    for k in range(parts):
        archive.write_file(archive.table(rows[k * size:(k + 1) * size], meta), str(out / f"part-0000-{k:06d}.parquet"))
    return records


@pytest.fixture(scope="module")
def lichess(tmp_path_factory: pytest.TempPathFactory) -> Lichess:
    """The 999 lichess games with clocks and evaluations as a ``rank`` archive, python-chess's reading of each,
    and its boards of each mainline (the start and after each move)."""
    import chess.pgn

    source = shared_data(*LICHESS)
    out = tmp_path_factory.mktemp("sql") / "lichess"
    build(out, "chess", source)
    games, boards = [], []
    with open(source, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
            board = game.board()
            boards.append([board.copy(stack=False)])
            for move in game.mainline_moves():
                board.push(move)
                boards[-1].append(board.copy(stack=False))
    return out, games, boards


def key(board: Any) -> str:
    return " ".join(board.fen().split()[:4])


def rows(con: Any, text: str) -> list[tuple[Any, ...]]:
    result: list[tuple[Any, ...]] = con.execute(text).fetchall()
    return result


@pytest.mark.data
def test_moves_and_ply_counts_of_every_game_match_python_chess(lichess: Lichess) -> None:
    out, games, _ = lichess
    con = sql.connect(str(out))
    got = rows(con, "select number, uci(body), san(body), ply_count(body), fen_at(body, -1) from games")
    assert got[1] == (0, None, None, None, None)  # the error row: every function null
    got = [r for r in got if r[0]]
    assert [r[0] for r in got] == list(range(1, len(games) + 1))  # game order, over two part files
    for (_, uci, san, plies, final), game in zip(got, games, strict=True):
        board = game.board()
        sans = []
        for move in game.mainline_moves():
            sans.append(board.san(move))
            board.push(move)
        assert uci == [m.uci() for m in game.mainline_moves()]
        assert san == sans and plies == len(sans) and final == board.fen()


@pytest.mark.data
def test_fen_at_every_ply_of_a_sample(lichess: Lichess) -> None:
    out, games, played = lichess
    con = sql.connect(str(out))
    for number in random.Random(26).sample(range(1, len(games) + 1), 12):
        boards = played[number - 1]
        plies = list(range(-len(boards) - 1, len(boards) + 1))
        got = rows(con, f"select p, fen_at(body, p::INTEGER) from games, unnest({plies}) as t(p) "
                        f"where number = {number} order by p")
        expected = {p: boards[p].fen() if -len(boards) <= p < len(boards) else None for p in plies}
        assert dict(got) == expected


@pytest.mark.data
def test_reaches_is_true_at_every_visited_position_and_false_at_others(lichess: Lichess) -> None:
    out, games, played = lichess
    con = sql.connect(str(out))
    rng = random.Random(9)
    visited = [{key(b) for b in bs} for bs in played]
    # every position of a sample of games, and positions of other games it never reaches
    for number in rng.sample(range(1, len(games) + 1), 8):
        own = sorted(visited[number - 1])
        others = [k for g in rng.sample(visited, 40) for k in sorted(g)[:3] if k not in visited[number - 1]][:40]
        targets = [(k, True) for k in own] + [(k, False) for k in others]
        listed = ", ".join(f"'{k}'" for k, _ in targets)
        got = rows(con, f"select t.fen, reaches(body, t.fen) from games, unnest([{listed}]) t(fen) "
                        f"where number = {number}")
        assert sorted(got) == sorted(targets)
    # one target over every game: the games python-chess says visit it
    for target in ("rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",  # 1.e4 c5 2.Nf3
                   sorted(visited[41])[len(visited[41]) // 2]):
        want = [n for n, v in enumerate(visited, 1) if " ".join(target.split()[:4]) in v]
        got = [r[0] for r in rows(con, f"select number from games where reaches(body, '{target}')")]
        assert got == want and want


def test_reaches_compares_the_fields_given_and_normalises_en_passant(tmp_path: Path) -> None:
    source = tmp_path / "g.pgn"
    source.write_text('[Result "*"]\n\n1. e4 d5 2. e5 f5 3. Nf3 *\n\n[Result "*"]\n\n1. d4 *\n')
    build(tmp_path / "a", "chess", source, scheme="0x88", parts=1, broken=False)
    con = sql.connect(str(tmp_path / "a"))
    after_f5 = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"  # e5xf6 is legal: f6 is written
    after_nf3 = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 3"
    assert rows(con, f"select reaches(body, '{after_f5}') from games") == [(True,), (False,)]
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"  # no capture on e3: read as '-'
    assert rows(con, f"select reaches(body, '{after_e4}') from games") == [(True,), (False,)]
    assert rows(con, f"select reaches(body, '{after_nf3.split()[0]}') from games") == [(True,), (False,)]
    assert rows(con, f"select reaches(body, '{after_nf3.split()[0]} w') from games") == [(False,), (False,)]
    with pytest.raises(Exception, match="8 ranks"):
        con.execute("select reaches(body, 'rnbqkbnr/8 w') from games").fetchall()
    with pytest.raises(InvalidPositionError, match="board's rows"):
        sql.Pattern("chess", "8/8/8")
    with pytest.raises(InvalidPositionError, match="no piece 'x'"):
        sql.Pattern("chess", "8/8/8/8/8/8/8/x7")


@pytest.mark.data
def test_matches_subfen_against_python_chess_piece_maps(lichess: Lichess) -> None:
    import chess

    out, _, boards = lichess
    con = sql.connect(str(out))
    rng = random.Random(4)
    patterns = [{chess.E4: chess.Piece.from_symbol("P"), chess.E5: chess.Piece.from_symbol("p")}]
    for _ in range(3):  # some pieces of a position some game reaches
        board = rng.choice([b for b in boards if len(b) > 20])[rng.randrange(10, 20)]
        squares = rng.sample(sorted(board.piece_map()), 4)
        patterns.append({s: board.piece_map()[s] for s in squares})
    for pattern in patterns:
        placement = chess.Board(None)
        for square, piece in pattern.items():
            placement.set_piece_at(square, piece)
        want = [n for n, bs in enumerate(boards, 1) if any(all(b.piece_at(s) == p for s, p in pattern.items())
                                                               for b in bs)]
        query = f"select number from games where matches_subfen(body, '{placement.board_fen()}')"
        got = [r[0] for r in rows(con, query)]
        assert got == want and want


@pytest.mark.data
def test_clocks_evals_and_records_of_every_game_match_python_chess(lichess: Lichess) -> None:
    import chess.pgn

    out, games, _ = lichess
    con = sql.connect(str(out))
    got = rows(con, "select clocks(games), evals(games), to_pgn(games) from games where error is null")
    evaluated = 0
    for (clocks, evals, text), game in zip(got, games, strict=True):
        nodes = list(game.mainline())
        assert clocks == [None if n.clock() is None else round(n.clock() * 100) for n in nodes]
        for written, node in zip(evals, nodes, strict=True):
            score = node.eval()
            assert (written is None) == (score is None)
            if score is not None:
                evaluated += 1
                white = score.white()
                assert f"[%eval {written}]" in node.comment  # as written
                if white.is_mate():
                    assert written == f"#{white.mate()}"
                else:
                    assert round(float(written) * 100) == white.score()
        again = chess.pgn.read_game(io.StringIO(text))
        assert str(again) == str(game)  # tags in order, moves, comments, NAGs: the same game
    assert evaluated == 5796  # PROVENANCE.md's count of [%eval] moves


OTHER = [("xiangqi", ("xiangqi", "Hu_Ronghua_1391_UCI_games.pgn")),
         ("abalone", ("abalone", "migs-2016-2017.train.apgn"))]


def _grid(placement: str) -> list[str]:
    return [re.sub(r"[0-9]+", lambda m: "." * int(m[0]), row) for row in placement.split("/")]


@pytest.mark.data
@pytest.mark.parametrize(("game", "path"), OTHER)
def test_other_games_against_the_projects_own_replay(tmp_path: Path, game: str, path: tuple[str, str]) -> None:
    """uci/san in the game's notations, fen_at, reaches and matches_subfen against :func:`plybits.records.walk`."""
    records = build(tmp_path / "a", game, shared_data(*path), limit=60, broken=False)
    machine, human = sql.NOTATIONS.get(game, (get_game(game).notations[0],) * 2)
    walks = [verbs.walk(verbs.read_record(game, record=r), (machine, human)) for r in records]
    con = sql.connect(str(tmp_path / "a"))
    got = rows(con, "select uci(body), san(body), ply_count(body), fen_at(body, 0), fen_at(body, -1) from games")
    for (uci, san, plies, start, final), walk in zip(got, walks, strict=True):
        assert uci == [m[0] for m in walk.moves] and san == [m[1] for m in walk.moves]
        assert (plies, start, final) == (len(walk.moves), walk.start, ([walk.start] + walk.positions)[-1])
    rng = random.Random(3)
    number = rng.randrange(len(walks)) + 1
    fens = [walks[number - 1].start, *walks[number - 1].positions]
    assert rows(con, f"select list(fen_at(body, p::INTEGER) order by p) from games, range({len(fens)}) t(p) "
                     f"where number = {number}")[0][0] == fens
    keys = [{" ".join(f.split()[:4]) for f in [w.start, *w.positions]} for w in walks]
    for target in rng.sample(sorted(set().union(*keys)), 5):
        want = [n for n, k in enumerate(keys, 1) if target in k]
        assert [r[0] for r in rows(con, f"select number from games where reaches(body, '{target}')")] == want
    grids = [[_grid(f.split()[0]) for f in [w.start, *w.positions]] for w in walks]
    for _ in range(3):
        grid = rng.choice(rng.choice(grids)[1:])
        pieces = rng.sample([(r, c, p) for r, row in enumerate(grid) for c, p in enumerate(row) if p != "."], 3)
        pattern = [["."] * len(row) for row in grid]
        for r, c, p in pieces:
            pattern[r][c] = p
        placement = "/".join(re.sub(r"\.+", lambda m: str(len(m[0])), "".join(row)) for row in pattern)
        want = [n for n, gs in enumerate(grids, 1) if any(all(g[r][c] == p for r, c, p in pieces) for g in gs)]
        got = [r[0] for r in rows(con, f"select number from games where matches_subfen(body, '{placement}')")]
        assert got == want and want


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 120 lichess games in three part files (an error row among them)."""
    out = tmp_path_factory.mktemp("sql") / "small"
    build(out, "chess", shared_data(*LICHESS), limit=120, parts=3)
    return out


QUERY = ("select number, game_id, ply_count(body) as plies, first_moves(body) as opening from games "
         "where reaches(body, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -')")


@pytest.mark.data
def test_cli_writes_csv_json_and_parquet(small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = sql.query(str(small), QUERY).to_pylist()
    assert len(expected) > 5 and sum(r["opening"].startswith("e4 e5 ") for r in expected) > 5  # or transposed
    assert main(["dataset", "query", str(small), QUERY]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "number,game_id,plies,opening" and len(lines) == len(expected) + 1
    assert lines[1] == ",".join(str(expected[0][k]) for k in ("number", "game_id", "plies", "opening"))
    assert main(["dataset", "query", str(small), QUERY, "--format", "json", "-o", str(tmp_path / "r.json")]) == 0
    assert [json.loads(line) for line in (tmp_path / "r.json").read_text().splitlines()] == expected
    assert main(["dataset", "query", str(small), QUERY, "--format", "parquet", "-o", str(tmp_path / "r.parquet")]) == 0
    assert pq.read_table(tmp_path / "r.parquet").to_pylist() == expected
    assert main(["dataset", "query", str(small), "select nope from games"]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["dataset", "query", str(tmp_path), "select 1"]) == 2  # r.parquet is there, not an archive
    assert "not a plybits archive" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["dataset", "query", str(tmp_path / "empty"), "select 1"]) == 2
    assert "no Parquet files" in capsys.readouterr().err
    (tmp_path / "kept.pgn").write_text("precious")
    assert main(["dataset", "decode", str(tmp_path / "empty"), "-o", str(tmp_path / "kept.pgn"), "--where", "true"]) == 2
    assert "no Parquet files" in capsys.readouterr().err and (tmp_path / "kept.pgn").read_text() == "precious"


@pytest.mark.data
def test_first_moves_are_a_filter_without_decoding(small: Path) -> None:
    con = sql.connect(str(small))
    sicilian = rows(con, "select number from games where starts_with_moves(first_moves, 'e4 c5')")
    by_san = rows(con, "select number from games where san(body)[1:2] = ['e4', 'c5']")
    assert sicilian == by_san and sicilian
    assert rows(con, "select count(*) from games where first_moves <> first_moves(body)") == [(0,)]
    assert rows(con, "select starts_with_moves('e4 e5 Nf3', 'e4 e'), starts_with_moves('e4 e5', 'e4 e5 ')") == \
        [(False, True)]


@pytest.fixture()
def dask_cluster() -> Iterator[str]:
    """A real ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1 (stopped after the test)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dask = str(Path(sys.executable).with_name("dask"))
    address = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen([dask, "worker", address, "--nworkers", "1", "--nthreads", "1",
                                           "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        from dask.distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for proc in reversed(procs):
            proc.kill()
        for proc in procs:
            proc.wait(timeout=30)


@pytest.mark.data
@pytest.mark.slow
def test_a_query_on_a_real_cluster_gives_the_local_rows(small: Path, dask_cluster: str, tmp_path: Path) -> None:
    """The dataset of ``dataset encode`` on the cluster, then queried there and here."""
    source = tmp_path / "g.pgn"
    records = list(get_game("chess").split_records(shared_data(*LICHESS).read_text(encoding="utf-8")))[:120]
    source.write_text("\n\n".join(records) + "\n")
    encoded = tmp_path / "encoded"
    assert main(["dataset", "encode", str(source), "-o", str(encoded), "--scheduler", dask_cluster,
                 "--partition-bytes", "60000", "-q"]) == 0
    assert len(sql.part_files(str(encoded))) > 2
    assert app_query.run(str(encoded), QUERY).to_pylist() == app_query.run(str(small), QUERY).to_pylist()
    local = app_query.run(str(small), QUERY)
    on_cluster = app_query.run(str(small), QUERY, scheduler=dask_cluster)
    assert on_cluster.to_pylist() == local.to_pylist() and local.num_rows > 5
    count = app_query.run(str(small), "select count(*) as n from games where ply_count(body) > 60",
                          scheduler=dask_cluster, combine="select sum(n) as n from rows")
    assert count.to_pylist() == sql.query(str(small), "select count(*) as n from games where ply_count(body) > 60"
                                          ).to_pylist()
    assert main(["dataset", "query", str(small), QUERY, "--scheduler", dask_cluster, "--format", "parquet",
                 "-o", str(tmp_path / "r.parquet")]) == 0
    assert pq.read_table(tmp_path / "r.parquet").to_pylist() == local.to_pylist()
    from dask.distributed import Client

    where = "reaches(body, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -')"
    with Client(dask_cluster) as client:
        parts = list(app_query.records(str(small), where, client))
    texts = [t for part, _ in parts for t in part]
    meta = sql.dataset_meta(sql.part_files(str(small)))
    picked = sql.query(str(small), f"select * from games where {where}").to_pylist()
    assert texts == [archive.record_of(r, meta) for r in picked] and len(texts) == local.num_rows
    assert sum(errors for _, errors in parts) == 1  # the error row, counted
    # dataset decode --where on the cluster: the records of those games, and all of them without a condition
    out = tmp_path / "picked.pgn"
    assert main(["dataset", "decode", str(encoded), "-o", str(out), "--where", where,
                 "--scheduler", dask_cluster]) == 0
    assert out.read_text(encoding="utf-8") == "".join(t.rstrip("\n") + "\n\n" for t in texts)
    assert main(["dataset", "decode", str(encoded), "-o", str(tmp_path / "all.pgn"), "--scheduler", dask_cluster]) == 0
    assert main(["dataset", "decode", str(encoded), "-o", str(tmp_path / "here.pgn")]) == 0
    assert (tmp_path / "all.pgn").read_text(encoding="utf-8") == (tmp_path / "here.pgn").read_text(encoding="utf-8")
