"""The dataset job's inputs (issue 24 items 1 and 7, issue 26 item 7): rows equal the lines (NDJSON) or the games
(record files) of the input, whatever the partitions; a stream is cut in one pass; a stream chunk's bytes never
travel inside the task graph. Real Dask processes (a local cluster) run the jobs."""

from __future__ import annotations

import base64
import json
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import dataset, partitions
from app.cli import main
from plybits import archive
from plybits import records as verbs

GAME = '[Event "G{n}"]\n[White "A"]\n\n1. e4 e5 2. Nf3 Nc6 {a comment\n[Event "inside it"]\nover lines} 3. Bb5 a6 *\n'
ILLEGAL = '[Event "bad"]\n\n1. e4 e4 *\n'
BARE = "1. d4 d5 2. c4 *\n"


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """A local Dask cluster of two worker processes and its client, shared by the module's jobs."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as c:
        yield c


def _dataset(path: Path, client: Any, partition_bytes: int, out: Path | None = None) -> list[dict[str, Any]]:
    """The rows of a ``chess/0x88`` dataset of ``path``, each with its standalone container (``None`` for an
    error row) under ``"container"``."""
    out = out or Path(tempfile.mkdtemp(prefix="ds-", dir=path.parent))
    opts = dataset.Options([str(path)], str(out), "chess", "0x88", partition_bytes)
    dataset.encode_dataset(opts, client=client)
    rows: list[dict[str, Any]] = []
    for file in dataset.dataset_files(str(out)):
        table = pq.read_table(file)
        meta = archive.Meta.from_schema(table.schema)
        rows += [{**row, "container": None if row["body"] is None else archive.container_of(row, meta)}
                 for row in table.to_pylist()]
    return rows


def _cli_answers(path: Path, out: Path) -> list[dict[str, Any]]:
    """``plybits encode --game chess --scheme 0x88``'s answers of ``path`` (the dataset job's defaults, which it
    gives every line without them), one a line (or game), in order."""
    main(["encode", str(path), "--game", "chess", "--scheme", "0x88", "-o", str(out), "-q"])
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def _line_offsets(data: bytes) -> list[int]:
    """The offset of every non-blank line (as ``bytes.strip`` sees blank) of ``data``."""
    offsets, at = [], 0
    for line in data.split(b"\n"):
        if line.strip():
            offsets.append(at)
        at += len(line) + 1
    return offsets


def _same_as_cli(rows: list[dict[str, Any]], answers: list[dict[str, Any]], problems: bool = True) -> None:
    """Each row is what ``plybits encode`` answers its line or game; a dataset holds one game and scheme, so a
    line ``plybits encode`` answers as another game is an error row saying so."""
    assert len(rows) == len(answers)
    for row, answer in zip(rows, answers, strict=True):
        if "result" in answer and (answer["result"]["game"], answer["result"]["scheme"]) != ("chess", "0x88"):
            assert row["container"] is None and "belongs in a dataset of its own" in json.loads(row["error"])["detail"]
        elif "result" in answer:
            assert row["error"] is None, row["error"]
            assert base64.urlsafe_b64encode(row["container"]).rstrip(b"=").decode() == answer["result"]["data"]
        else:
            assert row["container"] is None
            if problems:
                assert json.loads(row["error"]) == answer["error"]


def _write(path: Path, data: bytes, compressed: bool) -> Path:
    if compressed:
        path = path.with_name(path.name + ".zst")
        data = zstandard.ZstdCompressor().compress(data)
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("compressed", [False, True])
def test_an_ndjson_line_longer_than_a_game_is_one_row(tmp_path: Path, client: Any, compressed: bool) -> None:
    """Issue 24.1: a line over :data:`MAX_GAME_BYTES` (and over many partitions) was read again from a later
    partition's start, its tail a game of its own and every later line renumbered. Rows equal lines: the long
    one is one error row, as ``plybits encode`` answers it, and the request after it keeps its own offset."""
    request = b'{"moves": ["e4", "e5"]}'
    data = b"x" * (partitions.MAX_GAME_BYTES + (3 << 20)) + b"\n" + request + b"\n\n" + request + b"\n"
    path = _write(tmp_path / "long.ndjson", data, compressed)
    rows = _dataset(path, client, 1 << 20)
    assert [r["offset"] for r in rows] == _line_offsets(data)
    long, after, last = rows
    assert "more than" in json.loads(long["error"])["detail"]
    assert after["error"] is None and archive.ply_count(after["body"]) == 2 == archive.ply_count(last["body"])
    _same_as_cli(rows, _cli_answers(path, tmp_path / "cli.ndjson"), problems=False)


LINES = st.one_of(
    st.binary(max_size=40),
    st.sampled_from([b"", b" \t", b"\r", b'{"moves": ["e4", "e5"]}', b'{"moves": ["e4", "e4"]}',
                     b'{"record": "1. d4 d5 *"}\r', b'{"game": "xiangqi", "moves": ["h2e2"]}', b"[1, 2]", b"{",
                     b'{"moves": ["\xff"]}']),
    st.integers(1, 600).map(lambda n: b'{"moves": [], "tags": {"Long": "' + b"y" * n + b'"}}'),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(lines=st.lists(LINES, max_size=25), end=st.sampled_from([b"", b"\n"]), compressed=st.booleans(),
       partition_bytes=st.integers(16, 300))
def test_any_ndjson_file_has_one_row_per_line_in_order(tmp_path: Path, client: Any, lines: list[bytes], end: bytes,
                                                        compressed: bool, partition_bytes: int) -> None:
    """Issue 24's property: lines of any length (longer than a partition, too) and any bytes: one row per
    non-blank line, in order, at its offset, and each row what ``plybits encode`` answers that line."""
    data = b"\n".join(line.replace(b"\n", b" ") for line in lines) + end
    work = Path(tempfile.mkdtemp(dir=tmp_path))
    path = _write(work / "in.ndjson", data, compressed)
    rows = _dataset(path, client, partition_bytes)
    assert [r["offset"] for r in rows] == _line_offsets(data)
    assert [r["number"] for r in rows] == list(range(1, len(rows) + 1))
    _same_as_cli(rows, _cli_answers(path, work / "cli.ndjson"))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(games=st.lists(st.sampled_from([GAME, ILLEGAL, BARE, "\n", GAME.replace("\n\n", "\n\n\n")]), max_size=12),
       compressed=st.booleans(), partition_bytes=st.integers(30, 400))
def test_any_multi_game_file_has_the_games_plybits_encode_reads(tmp_path: Path, client: Any, games: list[str],
                                                                compressed: bool, partition_bytes: int) -> None:
    """Issue 24's property: the dataset's games equal ``plybits encode``'s, game for game, for any partitions."""
    text = "".join(g.replace("{n}", str(i)) for i, g in enumerate(games)).encode()
    work = Path(tempfile.mkdtemp(dir=tmp_path))
    path = _write(work / "in.pgn", text, compressed)
    rows = _dataset(path, client, partition_bytes)
    _same_as_cli(rows, _cli_answers(path, work / "cli.ndjson"))


def test_cutting_a_stream_reads_each_line_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 24.7: where no game starts after a cut point, each wait for more text read the whole window again
    (0.8 s of CPU for 2 MB, 10.8 s for 8 MB). The cutting reads each line of the stream once: counted as the lines
    it turns into text, not timed."""
    line = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O\n"
    data = ('[Event "one long game"]\n\n' + line * 25_000).encode()  # ~2 MB, no game after the first
    path = tmp_path / "one.pgn.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(data))
    module = sys.modules[partitions.stream_chunks.__module__]
    real = module.line_text
    calls = 0

    def counted(raw: bytes, first: bool = False) -> str:
        nonlocal calls
        calls += 1
        return real(raw, first)

    monkeypatch.setattr(module, "line_text", counted)
    chunks = list(partitions.stream_chunks(str(path), "chess", 64 << 10))
    assert len(chunks) == 1
    assert calls <= 2 * data.count(b"\n") + 10


def test_a_stream_chunk_s_bytes_never_travel_in_the_task_graph(tmp_path: Path, client: Any) -> None:
    """Issue 26.7: a partition of a stream over ~10 MB made Dask warn "Sending large graph" (twice): its bytes
    travelled inside the graph, through the scheduler. They are scattered to a worker: no task carries them."""
    line = b'{"moves": ["e4", "e5"], "tags": {"Pad": "' + b"z" * 900 + b'"}}\n'
    data = line * 11_000  # ~10.3 MB, one partition
    path = tmp_path / "big.ndjson.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(data))
    submitted: list[Any] = []
    real = client.submit

    def submit(func: Any, *args: Any, **kwargs: Any) -> Any:
        submitted.extend(args)
        return real(func, *args, **kwargs)

    client.submit = submit
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rows = _dataset(path, client, 12 << 20)
    finally:
        del client.submit
    assert len(rows) == 11_000 and all(r["error"] is None for r in rows[::997])
    assert not [w for w in caught if "large graph" in str(w.message)]
    parts = [a for a in submitted if isinstance(a, partitions.Partition)]
    assert parts and all(p.data is None for p in parts)
    assert not [a for a in submitted if isinstance(a, bytes | bytearray) and len(a) > 1024]


def test_held_lines_count_what_a_chunk_left_out() -> None:
    """A chunk's lines at their stream offsets: a line cut short, and whole lines left out, counted."""
    data = b"ab\ncut" + b"de\n"
    assert list(partitions.held_lines(data, 10, ((6, 100),))) == [(10, b"ab\n"), (13, b"cut"), (116, b"de\n")]
    assert list(partitions.held_lines(b"ab\n", 0, ((3, 50),))) == [(0, b"ab\n")]
    assert list(partitions.held_lines(b"ab\ncd\n", 0, ((3, 50),))) == [(0, b"ab\n"), (53, b"cd\n")]


def test_a_verbs_default_is_the_dataset_s() -> None:
    assert verbs.seed_scheme("chess") == "0x88"
