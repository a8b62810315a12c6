"""Benchmark of ``plybits dataset encode`` (issue 15): games/s on a local Dask cluster of 1 and 2 workers, against
the single-process ``plybits encode`` and python-chess reading the same PGN; peak RSS per worker; output size.

    .venv/bin/python -m bench.dataset --games 100000 [--write]

The input is the shared chess collections repeated with varied tags (each copy's Event and Round differ, so no
two games are equal) until ``--games``, written as PGN and as ``.pgn.zst``; the dataset is made from the
``.pgn.zst`` (a stream read once by the client), the single-process runs read the plain PGN.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import zstandard

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "chess"
SOURCES = ("twic0920.pgn", "carlsen_otb.pgn")


def build_input(directory: Path, games: int) -> tuple[Path, Path, int]:
    """``(plain PGN, .pgn.zst, games)``: the shared files repeated with varied Event/Round tags."""
    texts = [(SHARED / name).read_text(encoding="utf-8") for name in SOURCES]
    parts = [g for text in texts for g in re.split(r"\n\n(?=\[Event )", text.strip()) if g.strip()]
    plain = directory / "games.pgn"
    count = 0
    copy = 0
    with open(plain, "w", encoding="utf-8") as out:
        while count < games:
            copy += 1
            for game in parts:
                if count >= games:
                    break
                varied = re.sub(r'\[Event "([^"]*)"\]', lambda m: f'[Event "{m.group(1)} #{copy}"]', game, count=1)
                varied = re.sub(r'\[Round "([^"]*)"\]', lambda m: f'[Round "{m.group(1)}.{copy}"]', varied, count=1)
                out.write(varied + "\n\n")
                count += 1
    packed = directory / "games.pgn.zst"
    with open(plain, "rb") as src, open(packed, "wb") as dst:
        zstandard.ZstdCompressor(level=3).copy_stream(src, dst)
    return plain, packed, count


def run_dataset(packed: Path, out: Path, workers: int, partition_bytes: int, scheme: str) -> dict[str, Any]:
    from dask.distributed import Client, LocalCluster

    from app import dataset

    shutil.rmtree(out, ignore_errors=True)
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        cpu_before = client.run(_cpu_seconds)
        began, client_began = time.monotonic(), _cpu_seconds()
        dataset.encode_dataset(dataset.Options([str(packed)], str(out), "chess", scheme, partition_bytes),
                               client=client)
        seconds, client_cpu = time.monotonic() - began, _cpu_seconds() - client_began
        cpu = client.run(_cpu_seconds)
        rss = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    summary = dataset.info(str(out))
    return {"seconds": seconds, "games": summary["games"], "errors": summary["errors"], "bytes": summary["bytes"],
            "rss_mb": max(rss.values()) / 1024, "client_cpu": client_cpu,
            "worker_cpu": sum(cpu.values()) - sum(cpu_before.values())}


def _cpu_seconds() -> float:
    """CPU seconds (user and system) this process has used."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_single(packed: Path, scheme: str) -> float:
    """Seconds of the command ``plybits encode games.pgn.zst -o /dev/null`` in this process (the dataset's input,
    output discarded; exit status 0: every game encoded)."""
    from app.cli import main as plybits

    began = time.monotonic()
    status = plybits(["encode", str(packed), "-o", os.devnull, "--game", "chess", "--scheme", scheme, "-q"])
    if status != 0:
        raise RuntimeError(f"plybits encode exited with {status}")
    return time.monotonic() - began


def run_python_chess(plain: Path) -> tuple[float, int]:
    import chess.pgn

    began = time.monotonic()
    n = 0
    with open(plain, encoding="utf-8") as f:
        while chess.pgn.read_game(f) is not None:
            n += 1
    return time.monotonic() - began, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--partition-bytes", type=int, default=2 << 20)
    parser.add_argument("--scheme", default="rank", help="the scheme (the dataset's default: rank)")
    parser.add_argument("--write", action="store_true", help="put the results in BENCHMARKS.md")
    args = parser.parse_args()
    began = time.monotonic()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        plain, packed, games = build_input(directory, args.games)
        one = run_dataset(packed, directory / "out1", 1, args.partition_bytes, args.scheme)
        two = run_dataset(packed, directory / "out2", 2, args.partition_bytes, args.scheme)
        single_s, single_n = run_single(packed, args.scheme), games
        peer_s, peer_n = run_python_chess(plain)
        sizes = (plain.stat().st_size, packed.stat().st_size)
        if one["games"] != games or two["games"] != games:
            raise RuntimeError(f"the datasets hold {one['games']} and {two['games']} rows, not {games}")
    load_after = os.getloadavg()
    rows = [
        ("plybits dataset encode, 1 worker", one["games"], one["seconds"], f"{one['rss_mb']:.0f}"),
        ("plybits dataset encode, 2 workers", two["games"], two["seconds"], f"{two['rss_mb']:.0f}"),
        ("plybits encode (the .pgn.zst), one process", single_n, single_s, ""),
        ("python-chess read_game (the PGN), one process", peer_n, peer_s, ""),
    ]
    lines = [
        "## Whole archives on Dask (`plybits dataset encode`)",
        "",
        f"Command: `.venv/bin/python -m bench.dataset --games {args.games} --partition-bytes {args.partition_bytes} "
        f"--scheme {args.scheme}` — {games:,} chess games (the shared "
        f"chess files repeated with varied Event/Round tags), {sizes[0]:,} bytes of PGN, {sizes[1]:,} bytes as "
        "`.pgn.zst` (the input of the dataset and of `plybits encode`; python-chess reads the plain PGN). "
        "LocalCluster on this 2-core machine.",
        "",
        "| run | games | seconds | games/s | peak RSS per worker (MB) |",
        "|---|---:|---:|---:|---:|",
        *[f"| {name} | {n:,} | {s:.1f} | {n / s:,.0f} | {rss} |" for name, n, s, rss in rows],
        "",
        "CPU seconds, which the other work on the machine does not change: "
        + "; ".join(f"{k} worker(s): {r['worker_cpu']:.1f} s in the workers ({r['games'] / r['worker_cpu']:,.0f} "
                    f"games a worker CPU second), {r['client_cpu']:.1f} s in the client and scheduler"
                    for k, r in ((1, one), (2, two)))
        + ". The client's share is the serial part: with it, 2 workers on 2 idle cores could reach "
        f"{2 / (1 + two['client_cpu'] / two['worker_cpu']):.2f}x (2 / (1 + client CPU / worker CPU)).",
        "",
        f"Speed-up of 2 workers over 1: **{(two['games'] / two['seconds']) / (one['games'] / one['seconds']):.2f}x** "
        "(target >= 1.8x). Dataset size: "
        f"{two['bytes']:,} bytes of Parquet ({two['bytes'] / sizes[1]:.2f}x the `.pgn.zst`); errors: {two['errors']}.",
        "",
        whole_run(began, load_before, load_after),
    ]
    publish("dataset", lines, args.write)


def whole_run(began: float, load_before: tuple[float, ...], load_after: tuple[float, ...]) -> str:
    """The line that closes a benchmark's section: its seconds and the load around it."""
    return (f"Whole run: {time.monotonic() - began:.0f} s; load average (1, 5, 15 min) before "
            f"{' '.join(f'{x:.2f}' for x in load_before)}, after {' '.join(f'{x:.2f}' for x in load_after)} "
            f"({os.cpu_count()} cores).")


def publish(name: str, lines: list[str], write: bool) -> None:
    """Print a benchmark's section; with ``write``, also put it in BENCHMARKS.md (:func:`write_section_block`)."""
    text = "\n".join(lines)
    print(text)
    if write:
        write_section_block(name, text)
    sys.stdout.flush()


def write_section_block(name: str, text: str) -> None:
    """Put ``text`` in BENCHMARKS.md between the ``<!-- name:start -->`` and ``<!-- name:end -->`` marks (added at
    the end when missing)."""
    path = ROOT / "BENCHMARKS.md"
    old = path.read_text(encoding="utf-8")
    block = f"<!-- {name}:start -->\n{text}\n<!-- {name}:end -->"
    if f"<!-- {name}:start -->" in old:
        old = re.sub(rf"<!-- {name}:start -->.*<!-- {name}:end -->", lambda _: block, old, flags=re.S)
    else:
        old = old.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(old, encoding="utf-8")


if __name__ == "__main__":
    main()
