"""Whole archives to a Parquet dataset and back on Dask (issue 15): rows = games read, errors as rows, byte ranges
and compressed streams cut at game boundaries, resumable, exact on a real multi-process cluster."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from app import dataset, partitions
from app.cli import main
from plybits import archive
from plybits import records as verbs
from plybits.errors import PlybitsError
from plybits.streams import split_lines, split_stream
from tests.conftest import QUICK, ROOT, shared_data

GAME_1 = '[Event "One"]\n[White "Ann"]\n[Black "Bob"]\n[WhiteElo "2100"]\n[BlackElo "?"]\n[Result "1-0"]\n\n' \
         '1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n'
GAME_2_BAD = '[Event "Two"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n'
GAME_3 = '[Event "Thr\xe9e"]\n[Site "L\xe9on"]\n[Result "*"]\n\n1. d4 d5 2. c4 *\n'
SOURCE = (GAME_1 + "\n" + GAME_2_BAD + "\n").encode("utf-8") + (GAME_3 + "\n").encode("latin-1")
"""Three games: a mate, one with an illegal king move at ply 2 (0-based), one with a non-UTF-8 (Latin-1) line."""


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """A local Dask cluster of one worker process, shared by the tests that do not test the cluster itself."""
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def _rows(out: Path) -> list[dict[str, Any]]:
    files = dataset.dataset_files(str(out))
    rows: list[dict[str, Any]] = pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()
    return rows


def _meta(out: Path) -> archive.Meta:
    return archive.Meta.from_schema(pq.read_schema(dataset.dataset_files(str(out))[0]))


def _encode(inputs: list[Path], out: Path, scheduler: str, game: str = "chess", partition_bytes: int = 1 << 20,
            scheme: str | None = None) -> dict[str, Any]:
    opts = dataset.Options([str(p) for p in inputs], str(out), game, scheme or verbs.seed_scheme(game),
                           partition_bytes, scheduler=scheduler)
    return dataset.encode_dataset(opts)


def test_games_table_has_a_row_per_game_and_errors_as_rows() -> None:
    pieces = dataset.pieces(dataset._lines(io.BytesIO(SOURCE), 0, None), cuts=True)
    table = dataset.games_table("chess", "0x88", "mem", pieces, first_number=7)
    meta = archive.Meta.from_schema(table.schema)
    assert table.schema == meta.schema() and (meta.game, meta.scheme) == ("chess", "0x88")
    rows = table.to_pylist()
    assert [r["number"] for r in rows] == [7, 8, 9]
    assert [r["offset"] for r in rows] == [0, SOURCE.index(b'[Event "Two"]'), SOURCE.index(b'[Event "Thr')]
    one, two, three = rows
    assert (one["event"], one["white"], one["white_elo"], one["black_elo"]) == ("One", "Ann", 2100, None)
    assert '[BlackElo "?"]' in archive.record_of(one, meta)  # not an integer: kept in the body, nothing lost
    assert archive.ply_count(one["body"]) == 7 and one["error"] is None
    start, moves = archive.moves_of(one["body"], meta)
    assert verbs.write_moves(start, moves) == ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]
    assert archive.container_of(one, meta) == verbs.encode("chess", "0x88", record=GAME_1).data
    problem = json.loads(two["error"])
    assert problem["ply"] == 2 and problem["move"] == "Ke3" and problem["status"] == 422
    assert two["body"] is None and two["event"] == "Two"
    assert (three["event"], three["site"]) == ("Thr\xe9e", "L\xe9on")
    assert verbs.decode(archive.container_of(three, meta)).tags["Event"] == "Thr\xe9e"


def test_byte_ranges_start_at_game_boundaries_and_cover_the_file(tmp_path: Path) -> None:
    path = tmp_path / "g.pgn"
    path.write_bytes(SOURCE * 5)
    ranges = dataset.byte_ranges(str(path), "chess", 100)
    starts = [s for s, _ in ranges]
    assert starts[0] == 0 and ranges[-1][1] == len(SOURCE * 5)
    assert all(e == s for (_, e), (s, _) in zip(ranges, ranges[1:], strict=False))
    data = SOURCE * 5
    games = [i for i in range(len(data)) if data.startswith(b"[Event ", i)]
    assert len(games) == 15
    assert starts == sorted({min(g for g in games if g >= at) for at in range(0, games[-1] + 1, 100)})


def test_encode_errors_truncated_zst_and_resume(tmp_path: Path, scheduler: str) -> None:
    plain = tmp_path / "g.pgn"
    plain.write_bytes(SOURCE * 20)
    whole = zstandard.ZstdCompressor().compress(SOURCE * 20)
    (tmp_path / "g.pgn.zst").write_bytes(whole)
    (tmp_path / "cut.pgn.zst").write_bytes(whole[: len(whole) * 2 // 3])

    out = tmp_path / "plain"
    manifest = _encode([plain], out, scheduler, partition_bytes=300)
    rows = _rows(out)
    assert len(rows) == 60 and [r["number"] for r in rows] == list(range(1, 61))
    assert sum(r["error"] is not None for r in rows) == 20 and len(manifest["partitions"]) > 5

    # The same games read from a compressed stream: the same rows, byte for byte.
    zst = tmp_path / "zst"
    _encode([tmp_path / "g.pgn.zst"], zst, scheduler, partition_bytes=300)
    strip = ["source"]
    assert pa.Table.from_pylist(_rows(zst)).drop_columns(strip).equals(
        pa.Table.from_pylist(rows).drop_columns(strip))

    # A truncated stream: every game before the cut as before, then one error row naming the cut.
    cut = tmp_path / "cut"
    _encode([tmp_path / "cut.pgn.zst"], cut, scheduler, partition_bytes=300)
    cut_rows = _rows(cut)
    assert 0 < len(cut_rows) < 60
    assert [r["body"] for r in cut_rows[:-1]] == [r["body"] for r in rows[: len(cut_rows) - 1]]
    assert "truncated" in json.loads(cut_rows[-1]["error"])["detail"]

    # Resume: a partition lost (the command killed before it finished) is redone, the others are not touched
    # (the job's parts wait in the staging directory, as a killed job leaves them).
    staging = out / dataset.STAGING
    staging.mkdir()
    files = sorted(out.glob("part-*.parquet"))
    for f in files:
        f.rename(staging / f.name)
    files = sorted(staging.glob("part-*.parquet"))
    before = {f.name: (f.stat().st_ino, f.stat().st_mtime_ns) for f in files}
    lost = files[2]
    lost_bytes = lost.read_bytes()
    lost.unlink()
    (staging / ".part-0000-000002.deadbeef.tmp").write_bytes(b"half a file")
    kept = json.loads((out / dataset.MANIFEST).read_text())
    kept["complete"] = False
    del kept["partitions"][files[3].stem]  # written, but the client was killed before it heard so: kept as it is
    (out / dataset.MANIFEST).write_text(json.dumps(kept))
    with pytest.raises(Exception, match="not complete"):
        dataset.dataset_files(str(out))
    assert dataset.info(str(out))["complete"] is False
    _encode([Path(os.path.relpath(plain))], out, scheduler, partition_bytes=300)  # the same input spelled otherwise
    summary = dataset.info(str(out))
    assert (summary["complete"], summary["scheme"], summary["fidelity"], summary["games"]) == (True, "0x88", "full", 60)
    after = {f.name: (f.stat().st_ino, f.stat().st_mtime_ns) for f in sorted(out.glob("part-*.parquet"))}
    assert after.keys() == before.keys() and not staging.exists()
    assert {k for k in after if after[k] != before[k]} == {lost.name}
    assert (out / lost.name).read_bytes() == lost_bytes
    assert _rows(out) == rows

    # Other settings into the same directory are refused, not mixed.
    with pytest.raises(Exception, match="other inputs or settings"):
        _encode([plain], out, scheduler, partition_bytes=301)


def _check_round_trip(source: Path, game: str, out: Path) -> int:
    """Every game of ``source`` is a row; each row's container is byte for byte the full-fidelity container
    ``plybits encode`` makes of the record (its tags, comments, clocks, NAGs and variations), its record the one
    ``plybits decode`` writes, and a game the project's reader refuses is an error row; returns the number of games."""
    with open(source, "rb") as f:
        texts = (raw.decode("utf-8", "replace").removeprefix("\ufeff").rstrip("\r") if raw is not None else None
                 for raw in split_lines(iter(lambda: f.read(1 << 16), b""), 1 << 24))
        records = list(split_stream(game, texts, max_chars=1 << 24))
    rows = _rows(out)
    meta = _meta(out)
    assert len(rows) == len(records)
    assert [r["number"] for r in rows] == list(range(1, len(rows) + 1))
    step = 7 if QUICK and len(rows) > 100 else 1
    for row, record in list(zip(rows, records, strict=True))[::step]:
        try:
            if isinstance(record, Exception):
                raise record
            expected = verbs.encode(game, meta.scheme, record=record)
        except PlybitsError:
            assert row["error"] is not None and row["body"] is None
            continue
        assert row["error"] is None, row["error"]
        assert archive.container_of(row, meta) == expected.data
        assert archive.record_of(row, meta) == verbs.decode(expected.data, format="record").record
    return len(rows)


COLLECTIONS = [
    ("chess", "chess/twic0920.pgn"), ("chess", "chess/clocks/lichess_db_standard_rated_2021-10_first999.pgn"),
    ("chess", "chess/clocks/lichess_pnmadelaine_2024-03-30.pgn"),
    *[("chess", f"chess/edge/{name}") for name in (
        "anastasian-lewis.pgn", "antichess-programfox.pgn", "chessbase-empty-line.pgn", "cutechess-fischerrandom.pgn",
        "kasparov-deep-blue-1997.pgn", "knightvuillaume-jannlee-zh-lichess.pgn", "molinari-bordais-1979.pgn",
        "nepomniachtchi-liren-game1.pgn", "stockfish-learning.pgn", "uci-moves.pgn", "utf8-bom.pgn")],
    ("xiangqi", "xiangqi/Hu_Ronghua_1391_UCI_games.pgn"), ("xiangqi", "xiangqi/Liu_Dahua_1125_UCI_games.pgn"),
    ("abalone", "abalone/migs-2016-2017.train.apgn"),
]
"""Every collection in ../shared/data (carlsen_otb.pgn goes through the command, against python-chess)."""


@pytest.mark.parametrize(("game", "path"), COLLECTIONS)
def test_round_trip_of_the_shared_collections(tmp_path: Path, scheduler: str, game: str, path: str) -> None:
    source = shared_data(*path.split("/"))
    out = tmp_path / "out"
    _encode([source], out, scheduler, game=game, partition_bytes=400_000)
    assert _check_round_trip(source, game, out) >= 1


def test_round_trip_of_entropy_games(tmp_path: Path, scheduler: str) -> None:
    """New Entropy has no shared collection: the project's lossless fixture record and games of random legal moves
    (the project's own rules), every one back exactly, with the game's ``rank`` scheme."""
    import random

    chooser = random.Random(26)
    texts = ['[Event "Club"]\n\n{ chaos first } Rd4 {placed} Gc3 $1 ( Ga1 ) *\n']
    for index in range(12):
        moves: list[str] = []
        for _ in range(chooser.randrange(0, 30)):
            legal = verbs.legal_moves("entropy", moves=moves)[1]
            if not legal:
                break
            moves.append(chooser.choice(legal))
        texts.append(f'[Event "Random {index}"]\n[Round "{index}"]\n\n' + " ".join(moves) + " *\n")
    source = tmp_path / "entropy.txt"
    source.write_text("\n".join(texts), encoding="utf-8")
    _encode([source], tmp_path / "out", scheduler, game="entropy", scheme="rank")
    assert _check_round_trip(source, "entropy", tmp_path / "out") == len(texts)


def test_cli_round_trip_against_python_chess(tmp_path: Path) -> None:
    """``plybits dataset encode`` with its defaults (``rank``, full fidelity) on its local cluster, then ``decode``:
    python-chess reads the same game from the output as from the source: tags in order, moves, every comment,
    clock, evaluation, NAG and variation (lichess games with clocks and analysis, annotated games)."""
    import chess.pgn

    lichess = shared_data("chess", "clocks", "lichess_db_standard_rated_2021-10_first999.pgn").read_text("utf-8")
    analysed = [t for t in lichess.split("\n\n[Event ") if "%eval" in t][:8]
    text = "\n\n[Event ".join(lichess.split("\n\n[Event ")[:60] + analysed) + "\n\n"
    for name in ("kasparov-deep-blue-1997.pgn", "nepomniachtchi-liren-game1.pgn"):
        text += shared_data("chess", "edge", name).read_text("utf-8").strip() + "\n\n"
    source, out, back = tmp_path / "in.pgn", tmp_path / "out", tmp_path / "back.pgn"
    source.write_text(text, encoding="utf-8")
    assert main(["dataset", "encode", str(source), "-o", str(out), "--workers", "1", "-q"]) == 0
    assert dataset.info(str(out))["scheme"] == "rank"
    assert main(["dataset", "decode", str(out), "-o", str(back)]) == 0
    exporter = {"headers": True, "variations": True, "comments": True}
    with open(source, encoding="utf-8") as a, open(back, encoding="utf-8") as b:
        count = notes = 0
        while (theirs := chess.pgn.read_game(a)) is not None:
            ours = chess.pgn.read_game(b)
            assert ours is not None
            assert list(ours.headers.items()) == list(theirs.headers.items())
            assert ours.accept(chess.pgn.StringExporter(**exporter)) == theirs.accept(
                chess.pgn.StringExporter(**exporter))
            notes += sum(bool(n.comment or n.nags or n.variations[1:]) for n in theirs.mainline())
            count += 1
        assert chess.pgn.read_game(b) is None and count > 60 and notes > 1000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def twic_reference(tmp_path_factory: pytest.TempPathFactory, scheduler: str) -> tuple[Path, list[dict[str, Any]]]:
    """The shared twic0920.pgn and its dataset's rows, made in one go (60 KB partitions)."""
    source = shared_data("chess", "twic0920.pgn")
    reference = tmp_path_factory.mktemp("reference")
    _encode([source], reference, scheduler, partition_bytes=60_000)
    return source, _rows(reference)


def _wait_for_a_partition(out: Path, job: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while not list((out / dataset.STAGING).glob("part-*.parquet")):
        assert time.monotonic() < deadline and job.poll() is None, "no partition written"
        time.sleep(0.05)


def test_killed_command_resumes_exactly(tmp_path: Path, twic_reference: tuple[Path, list[dict[str, Any]]]) -> None:
    """The whole command (client and its local cluster) killed mid-job, then run again: the dataset is exact and
    complete, and the partitions written before the kill are kept as they were."""
    source, reference = twic_reference
    out = tmp_path / "out"
    command = [sys.executable, "-m", "app.cli", "dataset", "encode", str(source), "-o", str(out), "--workers", "1",
               "--partition-bytes", "60000", "--scheme", "0x88", "-q"]
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}"}
    job = subprocess.Popen(command, env=env, start_new_session=True)
    try:
        _wait_for_a_partition(out, job)
    finally:
        os.killpg(job.pid, signal.SIGKILL)
        job.wait(timeout=30)
    kept = {f.name: f.stat().st_mtime_ns for f in (out / dataset.STAGING).glob("part-*.parquet")}
    assert kept and len(kept) < 30
    # Nothing a reader of the directory or of DIR/*.parquet sees, and decode refuses it without touching -o.
    import pyarrow.dataset as ds

    assert not list(out.glob("*.parquet")) and ds.dataset(str(out), format="parquet").count_rows() == 0
    (tmp_path / "old.pgn").write_text("keep me")
    assert main(["dataset", "decode", str(out), "-o", str(tmp_path / "old.pgn")]) == 2
    assert (tmp_path / "old.pgn").read_text() == "keep me"
    assert subprocess.run(command, env=env, timeout=180).returncode == 0
    assert {f.name: f.stat().st_mtime_ns for f in out.glob("part-*.parquet") if f.name in kept} == kept
    assert _rows(out) == reference


def test_real_cluster_survives_a_worker_killed_mid_job(tmp_path: Path,
                                                       twic_reference: tuple[Path, list[dict[str, Any]]]) -> None:
    """``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1; the job goes through ``--scheduler``; one
    worker is killed once the first partition is written: the dataset is still exact and complete."""
    source, reference = twic_reference
    dask = str(Path(sys.executable).with_name("dask"))
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}"}
    address = f"tcp://127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    started: list[subprocess.Popen[bytes]] = []

    def start(*args: str, quiet: bool = True) -> subprocess.Popen[bytes]:
        sink = subprocess.DEVNULL if quiet else None
        proc = subprocess.Popen(args, env=env, stdout=sink, stderr=sink, start_new_session=True)
        started.append(proc)
        return proc

    try:
        start(dask, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard")
        workers = [start(dask, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                         "--host", "127.0.0.1") for _ in range(2)]
        out = tmp_path / "out"
        job = start(sys.executable, "-m", "app.cli", "dataset", "encode", str(source), "-o", str(out),
                    "--scheduler", address, "--partition-bytes", "60000", "--scheme", "0x88", "-q", quiet=False)
        _wait_for_a_partition(out, job)
        os.killpg(workers[0].pid, signal.SIGKILL)
        assert job.wait(timeout=180) == 0
        assert len(list(out.glob("part-*.parquet"))) > 10
        assert _rows(out) == reference
    finally:
        for proc in reversed(started):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)


def test_compose_runs_scheduler_workers_and_service_from_one_image() -> None:
    """compose.yaml, checked statically (no Docker engine here): one image, workers pointed at the scheduler."""
    import tomllib

    import yaml

    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    assert {"scheduler", "worker", "service"} <= services.keys()
    assert {s["image"] for s in services.values()} == {"plybits"} and all(s["build"] == "." for s in services.values())
    assert services["scheduler"]["command"][:2] == ["dask", "scheduler"]
    port = services["scheduler"]["command"][services["scheduler"]["command"].index("--port") + 1]
    assert services["worker"]["command"][:3] == ["dask", "worker", f"tcp://scheduler:{port}"]
    assert "replicas" not in services["worker"].get("deploy", {})  # scaled with --scale worker=N
    assert "command" not in services["service"]  # the image's own: plybits serve, with the service's settings
    assert services["service"]["environment"]["PLYBITS_DASK_SCHEDULER"] == f"tcp://scheduler:{port}"
    volumes = {v for s in services.values() for v in s["volumes"]}
    assert volumes == {"./data:/data"}
    # The image installs the package with its runtime dependencies, which bring the `dask` command.
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert any(d.startswith("dask[distributed]") for d in deps)
    assert "['project']['dependencies']" in dockerfile and "-r runtime-requirements.txt" in dockerfile


def test_jobs_endpoints(tmp_path: Path, scheduler: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``POST /v1/jobs`` under ``PLYBITS_DATA_ROOT`` runs a dataset job on the configured scheduler; paths outside
    the root are refused; ``GET /v1/jobs/{id}`` gives its state and progress."""
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.settings import Settings

    root = tmp_path / "root"
    (root / "in").mkdir(parents=True)
    (root / "in" / "g.pgn").write_bytes(SOURCE * 20)
    (tmp_path / "secret.pgn").write_bytes(SOURCE)
    job = {"inputs": ["in/g.pgn"], "output": "out/g", "partition_bytes": 1 << 16}
    with TestClient(create_app(Settings(access_log=False))) as http:
        monkeypatch.delenv("PLYBITS_DATA_ROOT", raising=False)
        assert http.post("/v1/jobs", json=job).status_code == 404
        monkeypatch.setenv("PLYBITS_DATA_ROOT", str(root))
        monkeypatch.setenv("PLYBITS_DASK_SCHEDULER", scheduler)
        for bad in ({**job, "inputs": ["../secret.pgn"]}, {**job, "output": "/tmp/elsewhere"}):
            answer = http.post("/v1/jobs", json=bad)
            assert answer.status_code == 403 and answer.headers["content-type"] == "application/problem+json"
        assert http.post("/v1/jobs", json={**job, "inputs": ["in/none.pgn"]}).status_code == 422
        assert http.post("/v1/jobs", json={**job, "game": "go"}).status_code == 422
        started = http.post("/v1/jobs", json=job)
        assert started.status_code == 202, started.text
        deadline = time.monotonic() + 60
        while (status := http.get(f"/v1/jobs/{started.json()['id']}").json())["state"] == "running":
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert status["state"] == "done", status
        assert (status["games"], status["errors"], status["output"]) == (60, 20, "out/g")
        assert http.get("/v1/jobs/bm9uZQ").status_code == 404
    assert len(_rows(root / "out" / "g")) == 60


def test_cli_refuses_a_missing_input_or_dataset_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                                ) -> None:
    assert main(["dataset", "encode", str(tmp_path / "none.pgn"), "-o", str(tmp_path / "out"), "-q"]) == 2
    assert "no such input file" in capsys.readouterr().err and not (tmp_path / "out").exists()
    assert main(["dataset", "info", str(tmp_path)]) == 2
    assert "is not a plybits dataset" in capsys.readouterr().err


def test_a_failed_partition_task_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dask.distributed import Client, LocalCluster

    def boom(*args: Any) -> dict[str, Any]:
        raise MemoryError("worker out of memory")

    monkeypatch.setattr(dataset, "write_partition", boom)
    path = tmp_path / "g.pgn"
    path.write_bytes(SOURCE)
    opts = dataset.Options([str(path)], str(tmp_path / "out"), "chess", "0x88")
    with LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster, Client(cluster) as client:
        with pytest.raises(dataset.PartitionFailed, match="part-0000-000000.*MemoryError.*run the command again"):
            dataset.encode_dataset(opts, client=client)
    assert not dataset.read_manifest(str(tmp_path / "out")).get("complete")


def test_an_elo_in_other_digits_is_kept_as_written_not_read_as_a_number() -> None:
    """The typed Elo columns take ASCII digits only (plybits.text.decimal): ``'٢١٠٠'`` would be 2100 to ``int``."""
    text = GAME_1.replace('[WhiteElo "2100"]', '[WhiteElo "\u0662\u0661\u0660\u0660"]').encode()
    table = dataset.games_table("chess", "0x88", "mem", dataset.pieces(dataset._lines(io.BytesIO(text), 0, None),
                                                                      cuts=True))
    row = table.to_pylist()[0]
    assert row["white_elo"] is None
    assert '[WhiteElo "\u0662\u0661\u0660\u0660"]' in archive.record_of(row, archive.Meta.from_schema(table.schema))


NDJSON_LINES = [
    b'{"moves": ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"], "tags": {"White": "Ann", "WhiteElo": "2100"}}',
    b'{"record": "[Event \\"R\\"]\\n\\n1. d4 d5 *"}',
    b"",  # a blank line: no game
    b"not json",
    b'{"moves": ["e4", "e4"]}',
    b'{"moves": ["caf\xe9"]}',  # not UTF-8
    b'{"game": "xiangqi", "scheme": "rank", "moves": ["h2e2"]}',  # its own game and scheme
    b'{"moves": [], "colour": "red"}',  # a field the request model does not have
]


def test_ndjson_lines_are_games_read_as_batch_lines(tmp_path: Path, scheduler: str) -> None:
    """An NDJSON input (plain or compressed) is one encode request a line, read as the batch endpoints read it: a
    row per non-blank line at its byte offset, a bad line (not JSON, not UTF-8, refused by the model, an illegal
    move) an error row; byte ranges and stream chunks are cut at line ends."""
    text = b"\n".join(NDJSON_LINES * 30) + b"\n"
    (tmp_path / "r.ndjson").write_bytes(text)
    (tmp_path / "r.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(text))
    _encode([tmp_path / "r.ndjson"], tmp_path / "plain", scheduler, partition_bytes=500)
    rows = _rows(tmp_path / "plain")
    assert len(dataset.read_manifest(str(tmp_path / "plain"))["partitions"]) > 5
    offsets = [i for i in range(len(text)) if (i == 0 or text[i - 1] == 0x0A) and text[i] != 0x0A]
    assert [r["offset"] for r in rows] == offsets and [r["number"] for r in rows] == list(range(1, 211))
    meta = _meta(tmp_path / "plain")
    mate, record, not_json, illegal, latin, xiangqi, extra = rows[:7]
    assert (mate["white"], mate["white_elo"], archive.ply_count(mate["body"]), mate["error"]) == ("Ann", 2100, 7, None)
    assert verbs.decode(archive.container_of(mate, meta)).tags == {"White": "Ann", "WhiteElo": "2100"}
    assert (record["event"], archive.ply_count(record["body"])) == ("R", 2)
    assert "not JSON" in json.loads(not_json["error"])["detail"]
    assert json.loads(illegal["error"])["ply"] == 1
    assert "not UTF-8" in json.loads(latin["error"])["detail"]
    assert "belongs in a dataset of its own" in json.loads(xiangqi["error"])["detail"]  # one game a dataset
    assert json.loads(extra["error"])["status"] == 422 and extra["body"] is None
    assert [r["error"] is None for r in rows] == [True, True, False, False, False, False, False] * 30
    _encode([tmp_path / "r.jsonl.zst"], tmp_path / "zst", scheduler, partition_bytes=500)
    assert len(dataset.read_manifest(str(tmp_path / "zst"))["partitions"]) > 5
    assert [{**r, "source": ""} for r in _rows(tmp_path / "zst")] == [{**r, "source": ""} for r in rows]


COMMENTED = '[Event "C"]\n[Result "*"]\n\n1. e4 {a comment over lines,\nwhose next line is not a move\n' \
            '[Event "not a game: inside the comment"]\n} e5 2. Nf3 *\n\n'


def test_a_cut_guessed_inside_a_comment_is_merged_away(tmp_path: Path, scheduler: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a partition begins is guessed by the record splitter's rule reading a little text before the cut point;
    a guess inside a ``{...}`` comment (one that opened before that text) is caught by the partition before it,
    which read everything from its own start, and the two partitions become one: the rows are still exact."""
    monkeypatch.setattr(partitions, "BACK_BYTES", 4)  # the guess sees almost nothing before the cut point
    data = ((GAME_1 + "\n" + COMMENTED) * 8).encode()
    (tmp_path / "c.pgn").write_bytes(data)
    (tmp_path / "c.pgn.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    fake = data.index(b'[Event "not a game')
    at = data.index(b"whose next line")
    assert fake in {s for s, _ in dataset.byte_ranges(str(tmp_path / "c.pgn"), "chess", at)}  # a wrong guess
    whole = tmp_path / "whole"
    _encode([tmp_path / "c.pgn"], whole, scheduler, partition_bytes=1 << 20)
    reference = _rows(whole)
    assert len(reference) == 16 and all(r["error"] is None for r in reference)
    for name in ("c.pgn", "c.pgn.zst"):
        for size in (at, 97, 250):
            out = tmp_path / f"{name}-{size}"
            _encode([tmp_path / name], out, scheduler, partition_bytes=size)
            assert [{**r, "source": ""} for r in _rows(out)] == [{**r, "source": ""} for r in reference]
            offsets = {p["start"] for p in dataset.read_manifest(str(out))["partitions"].values()}
            assert fake not in offsets and len(offsets) > 1


def test_a_truncated_gzip_keeps_the_games_before_the_cut(tmp_path: Path, scheduler: str) -> None:
    """A ``.gz`` cut in half: the games of the text it still gives are rows as in the whole file, then one error
    row for the game the cut ends inside (the decompressor's own error raises with the last block it read)."""
    import gzip

    data = shared_data("chess", "twic0920.pgn").read_bytes()
    packed = gzip.compress(data)
    (tmp_path / "cut.pgn.gz").write_bytes(packed[: len(packed) // 2])
    (tmp_path / "whole.pgn").write_bytes(data)
    _encode([tmp_path / "whole.pgn"], tmp_path / "whole", scheduler, partition_bytes=200_000)
    _encode([tmp_path / "cut.pgn.gz"], tmp_path / "cut", scheduler, partition_bytes=200_000)
    whole, cut = _rows(tmp_path / "whole"), _rows(tmp_path / "cut")
    assert len(whole) // 3 < len(cut) < len(whole)
    assert [r["body"] for r in cut[:-1]] == [r["body"] for r in whole[: len(cut) - 1]]
    assert "truncated" in json.loads(cut[-1]["error"])["detail"] and cut[-1]["offset"] == whole[len(cut) - 1]["offset"]


def test_cli_help_shows_each_option_and_its_default(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["dataset", "encode", "--help"], ["dataset", "decode", "--help"]):
        with pytest.raises(SystemExit):
            main(command)
    text = " ".join(capsys.readouterr().out.split())
    for shown in ("--game", "(default: chess)", "--partition-bytes", "(default: 33,554,432)", "--max-plies",
                  "(default: 20,000)", "--fidelity", "(default: full)", "--notation", "(default: -, standard output)"):
        assert shown in text


def test_cli_encode_reports_games_as_they_go_without_a_port_warning(tmp_path: Path) -> None:
    """The encode command on its own local cluster, with Dask's default dashboard port taken: no warning about
    it, progress lines that count games read before any partition is written, and ``decode`` of a missing dataset
    leaves an existing ``-o`` file as it was."""
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))
        taken.listen()
    except OSError:
        pass  # another process has it: as good
    try:
        source = tmp_path / "g.pgn"
        data = shared_data("chess", "twic0920.pgn").read_bytes()
        source.write_bytes(data[:data.index(b"\n[Event ", 400_000) + 1])
        env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'codecs'}", "PLYBITS_PROGRESS_SECONDS": "0"}
        done = subprocess.run([sys.executable, "-m", "app.cli", "dataset", "encode", str(source), "-o",
                               str(tmp_path / "out"), "--workers", "1", "--scheme", "0x88"], env=env,
                              capture_output=True, text=True, timeout=180)
    finally:
        taken.close()
    assert done.returncode == 0, done.stderr
    assert "in use" not in done.stderr and "dashboard" not in done.stderr.lower()
    early = [line for line in done.stderr.splitlines() if "games read" in line and "partitions 0 written" in line]
    assert early, done.stderr
    (tmp_path / "old.pgn").write_text("keep me")
    assert main(["dataset", "decode", str(tmp_path / "none"), "-o", str(tmp_path / "old.pgn")]) == 2
    assert (tmp_path / "old.pgn").read_text() == "keep me"
