"""This tree's public verbs, compiled and pure Python, against an earlier revision's pure-Python build (and, with
``--base-compiled``, its compiled build).

Run (after ``make compile``): ``.venv/bin/python -m bench.speed --base REV [--base-compiled] [--games N] [--rounds R]
[--write]``; prints a markdown section (``--write`` also puts it into BENCHMARKS.md between the speed markers).

Three sides, each a fresh interpreter on the very same inputs (made once, by this tree, from real games): this
tree with its mypyc extension modules, this tree with ``PLYBITS_PURE=1``, and REV (checked out into a temporary
git worktree, pure Python). ``--base-compiled`` adds a fourth: REV with its own mypyc extension modules, built once
in that worktree as ``make compile`` builds them (a few minutes of both cores), so that a row gives this tree
compiled against REV compiled. Each times the public calls ``plybits.encode(game, scheme, record=...)`` of the
records (moves and tags only; the :data:`MOVES_ONLY` rows ``encode(game, scheme, moves=..., notation="uci")`` of the
games' UCI moves alone) and ``plybits.decode(data, notation=...)`` of the containers that side wrote (a
revision need not read a later one's model or record-section versions), with bench.timing's ``repeat`` (the collector on, ``gc.collect()`` before each pass, results
dropped; the median of three passes). The sides take turns as bench.timing's ``turns``, ``--rounds`` rounds, and
every figure is the median (min-max) of the rounds. Before anything is reported, the sides' decoded moves must be
equal, and the two builds of each revision must write every container byte for byte alike.

The same-bytes rows (``SAME_BYTES``) time every side on the same bytes, where the rows above let each revision write
its own model, in a worker process of their own (not after the other rows, whose models would grow the heap every
collection walks): each side decodes the containers REV's pure build wrote of the rank rows' games, and codes those
games under model 1 through the scheme (``encode_version(start, moves, 1)``, or ``encode`` in a revision that writes
model 1 only: a scheme-internal row, no public verb writes an older model), every side's payloads equal byte for byte.

The command-line rows run ``python -m plybits encode`` / ``decode`` of ``--cli-games`` chess games as one file
(``rank``, each record whole: the command's default fidelity), on each side of this tree, the whole process timed
(wall and CPU time); a run over an empty file is timed beside it, and games/s and games per CPU-second are taken over
the difference (the start-up left out), with the start-up given apart.

The batch rows POST the same games as one NDJSON batch to this tree's server (``plybits serve``, compiled, started
before the first round and warmed by one batch), encode then decode, and count games per CPU-second of the server
and its worker processes (the issue's "a core") and per second of wall time. A batch round runs right after the
compiled side's command-line runs of each round, so that both rows see the machine alike.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import ROOT, add_write_option, load_average, publish
from bench.timing import turns

DATA = ROOT.parent / "shared" / "data"
CASES = {
    # name: (game, collection, scheme, notation written by decode, games as a multiple of --games)
    "chess/rank": ("chess", "chess/twic0920.pgn", "rank", "uci", 1),
    "chess/rank to SAN": ("chess", "chess/twic0920.pgn", "rank", "san", 1),
    "chess/rank, moves only": ("chess", "chess/twic0920.pgn", "rank", "uci", 1),
    "chess/rank, moves only to SAN": ("chess", "chess/twic0920.pgn", "rank", "san", 1),
    "xiangqi/rank": ("xiangqi", "xiangqi/Hu_Ronghua_1391_UCI_games.pgn", "rank", None, 1),
    "abalone/rank": ("abalone", "abalone/migs-2016-2017.train.apgn", "rank", None, 1),
    "chess/0x88": ("chess", "chess/twic0920.pgn", "0x88", "uci", 4),
    "xiangqi/xq10": ("xiangqi", "xiangqi/Hu_Ronghua_1391_UCI_games.pgn", "xq10", None, 4),
    "abalone/abapro": ("abalone", "abalone/migs-2016-2017.train.apgn", "abapro", None, 4),
}
MOVES_ONLY = ("chess/rank, moves only", "chess/rank, moves only to SAN")
"""The cases whose games go in as their UCI moves alone (``encode(game, scheme, moves=..., notation="uci")``: no tags,
no record to read), the same work python-chess's ``push_uci`` replay and lichess's coder are given; the other rank rows
code whole records (moves and tags)."""
SAME_BYTES = ("chess/rank", "xiangqi/rank", "abalone/rank")
"""The rank cases whose games every side also decodes from the same containers, the base revision's own (its model:
model 1 for a revision before chess's and xiangqi's model 2), and codes into the same model 1 payloads."""
SIDES = ("compiled", "pure", "base")
BASE_COMPILED = "base compiled"
"""The fourth side of ``--base-compiled``: REV with its own extension modules."""

WORKER = r"""
import base64, inspect, json, sys
import plybits
from bench.timing import each, repeat
cases = json.load(sys.stdin)
# an earlier revision may predate `fidelity`: its records were then always coded as moves and tags
moves_only = {"fidelity": "moves"} if "fidelity" in inspect.signature(plybits.encode).parameters else {}
out = {}
for name, case in cases.items():
    game, scheme, notation = case["game"], case["scheme"], case["notation"]
    records = case["records"]
    if "containers" in case:  # the same bytes on every side: the base revision's containers, and model 1's payloads
        shared = [base64.b64decode(c) for c in case["containers"]]
        moves = [plybits.decode(b, notation=notation).moves for b in shared]
        decode = repeat(each(lambda b: plybits.decode(b, notation=notation), shared), 3)
        from plybits import registry
        rank, board = registry.get_scheme(game, scheme), registry.get_game(game)
        replays = [plybits.read_record(game, record=r) for r in records]
        starts = [(replay.start, replay.moves) for replay in replays]
        if hasattr(rank, "encode_version"):  # a later revision: model 1 asked for (its encode writes a later model)
            code = lambda s: rank.encode_version(board.position(s[0]), s[1], 1)
        else:  # a revision that writes model 1 only
            code = lambda s: rank.encode(board.position(s[0]), s[1])
        payloads = [code(s).tobytes() for s in starts]
        encode = repeat(each(code, starts), 3)
        out[name] = {"decode": sorted(decode)[1], "encode": sorted(encode)[1], "moves": moves,
                     "encoded": [base64.b64encode(p).decode() for p in payloads]}
        continue
    # each side decodes the containers it writes: a revision need not read a later one's model or section versions
    if "uci" in case:  # moves only: UCI strings in, as push_uci (and lichess's coder) take a game, no tags
        inputs = case["uci"]
        code = lambda m: plybits.encode(game, scheme, moves=m, notation="uci")
    else:
        inputs = records
        code = lambda r: plybits.encode(game, scheme, record=r, **moves_only)
    encoded = [code(i).data for i in inputs]
    moves = [plybits.decode(b, notation=notation).moves for b in encoded]
    decode = repeat(each(lambda b: plybits.decode(b, notation=notation), encoded), 3)
    encode = repeat(each(code, inputs), 3)
    out[name] = {"decode": sorted(decode)[1], "encode": sorted(encode)[1], "moves": moves,
                 "encoded": [base64.b64encode(e).decode() for e in encoded]}
    if game == "chess" and notation == "uci":  # the peer, in the same process right after: python-chess's replay
        import chess

        def replay(uci_moves):
            push = chess.Board().push_uci
            for move in uci_moves:
                push(move)

        out[name]["push_uci"] = sorted(repeat(each(replay, moves), 3))[1]
# the plybits modules loaded from extension modules (a revision from before the compiled build has none)
compiled = sorted(name for name, module in sys.modules.items()
                  if name.split(".")[0] == "plybits" and not str(getattr(module, "__file__", ".py")).endswith(".py"))
json.dump({"compiled": compiled, "out": out}, sys.stdout)
"""


BASE_CONTAINERS = r"""
import base64, inspect, json, sys
import plybits
cases = json.load(sys.stdin)
moves_only = {"fidelity": "moves"} if "fidelity" in inspect.signature(plybits.encode).parameters else {}
json.dump({name: [base64.b64encode(plybits.encode(case["game"], case["scheme"], record=r, **moves_only).data).decode()
                  for r in case["records"]] for name, case in cases.items()}, sys.stdout)
"""
"""The base revision's containers of the :data:`SAME_BYTES` cases' records (base64), written by its pure build."""


def same_bytes_name(case: str, base: str) -> str:
    """The row of ``case``'s games decoded from ``base``'s containers."""
    return f"{case}, {base}'s containers"


def verb_label(name: str, verb: str) -> str:
    """The verb column of a row: the public call timed, or, for a same-bytes encode, the scheme's own model 1 call
    (no public verb writes an older model)."""
    if verb == "encode" and "'s containers" in name:
        return "scheme-internal: model 1 `encode` (no public verb writes it)"
    return f"`plybits.{verb}`"


def first_records(game: str, path: str, scheme: str, count: int) -> tuple[list[str], list[bytes]]:
    """The first ``count`` records of a real collection (``path`` under :data:`DATA`) that encode, and their
    containers (moves and tags only)."""
    import plybits
    from plybits import registry

    text = (DATA / path).read_text(encoding="utf-8", errors="replace")
    records: list[str] = []
    blobs: list[bytes] = []
    for record in registry.get_game(game).split_records(text):
        try:
            blobs.append(plybits.encode(game, scheme, record=record, fidelity="moves").data)
        except plybits.errors.PlybitsError:
            continue
        records.append(record)
        if len(blobs) == count:
            break
    return records, blobs


def uci_moves(blobs: list[bytes]) -> list[list[str]]:
    """The UCI moves of each container (decoded by this tree)."""
    import plybits

    return [plybits.decode(blob, notation="uci").moves for blob in blobs]


def run_worker(pythonpath: str, payload: str, env: dict[str, str], code: str = WORKER) -> Any:
    """What the worker ``code`` prints, run in a fresh interpreter on ``pythonpath`` (``env`` added to this one's)."""
    done = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": pythonpath, **env}, cwd=ROOT, check=True)
    return json.loads(done.stdout)


def side_setting(side: str, base: Path) -> tuple[str, dict[str, str]]:
    """The ``PYTHONPATH`` and environment of a side (this tree's bench package is always importable)."""
    if side in ("base", BASE_COMPILED):
        return f"{base / 'codecs'}{os.pathsep}{ROOT}", {"PLYBITS_PURE": "1" if side == "base" else "0"}
    return f"{ROOT / 'codecs'}{os.pathsep}{ROOT}", {"PLYBITS_PURE": "1" if side == "pure" else "0"}


def compile_base(base: Path) -> None:
    """Build REV's mypyc extension modules in place in its worktree ``base``, as its ``make compile`` does (with this
    interpreter, whose mypy ``make compile`` installed).

    :raises SystemExit: if REV has no compiled build or this interpreter has no mypy.
    """
    if not (base / "codecs" / "plybits" / "compiled.py").exists():
        raise SystemExit("--base-compiled: the base revision predates the compiled build (no plybits/compiled.py)")
    try:
        import mypyc  # noqa: F401  (only that it is there)
    except ImportError:
        raise SystemExit("--base-compiled needs mypy in this venv: run `make compile` first") from None
    print(f"bench.speed: compiling the base revision's extension modules in {base} (a few minutes)", file=sys.stderr)
    done = subprocess.run([sys.executable, "setup.py", "--quiet", "build_ext", "--inplace", "--parallel", "2",
                           "--build-lib", "build/mypyc/lib", "--build-temp", "build/mypyc/temp"],
                          env={**os.environ, "PLYBITS_COMPILE": "1"}, cwd=base, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"--base-compiled: compiling the base revision failed:\n{done.stderr[-2000:]}")
    for extension in (base / "codecs").rglob("*.so"):  # newer than every .py: not taken for stale
        extension.touch()


def loaded_as_expected(side: str, compiled: list[str]) -> bool:
    """Whether a side's worker loaded compiled modules exactly when the side is a compiled one."""
    return (side in ("compiled", BASE_COMPILED)) == bool(compiled)


def children_cpu_seconds() -> float:
    """CPU seconds (user and system) used so far by the ended child processes that were waited for."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def cli_seconds(side: str, base: Path, verb: str, path: Path, scheme: str) -> tuple[float, float]:
    """Seconds of one ``python -m plybits`` run of ``verb`` over the file ``path``, output discarded: (wall, CPU)."""
    pythonpath, env = side_setting(side, base)
    args = [sys.executable, "-m", "plybits", verb, str(path), "-o", os.devnull, "-q"]
    if verb == "encode":
        args += ["--scheme", scheme, "--to", "base64url"]
    cpu = children_cpu_seconds()
    started = time.perf_counter()
    subprocess.run(args, env={**os.environ, "PYTHONPATH": pythonpath, **env}, cwd=ROOT, check=True,
                   capture_output=True)
    return time.perf_counter() - started, children_cpu_seconds() - cpu


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds used so far by the process ``pid`` and every live process under it: the sum over their threads
    of /proc's scheduler run time (nanoseconds; the clock-tick counters in ``stat`` are 10 ms coarse, which a short
    batch can fall under entirely)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as handle:
                    parents[int(entry)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except OSError:  # ended meanwhile
                continue
    family = {pid}
    grown = True
    while grown:
        grown = False
        for child, parent in parents.items():
            if parent in family and child not in family:
                family.add(child)
                grown = True
    nanoseconds = 0
    for member in family:
        try:
            for task in os.listdir(f"/proc/{member}/task"):
                with open(f"/proc/{member}/task/{task}/schedstat", encoding="ascii") as handle:
                    nanoseconds += int(handle.read().split()[0])
        except OSError:  # ended meanwhile
            continue
    return nanoseconds / 1e9


def batch_run(port: int, server_pid: int, op: str, body: bytes, games: int) -> tuple[float, float, list[dict[str, Any]]]:
    """One ``POST /v1/batch/{op}`` of ``body`` (``games`` NDJSON lines): (games per CPU-second of the server and its
    worker processes, games per wall second, the answers, each checked a result)."""
    import httpx

    cpu = tree_cpu_seconds(server_pid)
    started = time.perf_counter()
    response = httpx.post(f"http://127.0.0.1:{port}/v1/batch/{op}", content=body, timeout=600,
                          headers={"content-type": "application/x-ndjson"})
    wall = time.perf_counter() - started
    cpu = tree_cpu_seconds(server_pid) - cpu
    answers = [json.loads(line) for line in response.content.splitlines()]
    if response.status_code != 200 or len(answers) != games or any("result" not in a for a in answers):
        raise SystemExit(f"batch {op}: {response.status_code}, {len(answers)} answers of {games}, not all results")
    if cpu <= 0:
        raise SystemExit(f"batch {op}: no CPU time recorded for the server's processes (is /proc readable?)")
    return games / cpu, games / wall, answers


def batch_round(port: int, server_pid: int, records: list[str]) -> dict[str, tuple[float, float]]:
    """(games per CPU-second, games per wall second) of one batch encoding ``records`` (chess, ``rank``, whole
    records) on the server at ``port``, and of one decoding the containers it answered."""
    encode_body = "".join(json.dumps({"game": "chess", "scheme": "rank", "record": r}) + "\n" for r in records).encode()
    per_cpu, per_wall, answers = batch_run(port, server_pid, "encode", encode_body, len(records))
    rates = {"encode": (per_cpu, per_wall)}
    decode_body = "".join(json.dumps({"data": a["result"]["data"]}) + "\n" for a in answers).encode()
    per_cpu, per_wall, _ = batch_run(port, server_pid, "decode", decode_body, len(records))
    rates["decode"] = (per_cpu, per_wall)
    return rates


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f} ({min(values):,.0f}-{max(values):,.0f})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the earlier revision (a git commit-ish)")
    parser.add_argument("--base-compiled", action="store_true",
                        help="also time the base revision compiled (its extension modules built once, as `make compile`)")
    parser.add_argument("--games", type=int, default=100, help="games of each collection for rank (4x for seed schemes)")
    parser.add_argument("--cli-games", type=int, default=1000, help="chess games of the command-line rows (enough that the start-up, about 0.7 s, is under half of a compiled run)")
    parser.add_argument("--rounds", type=int, default=5, help="alternations of the sides")
    parser.add_argument("--quick", action="store_true", help="a smoke test: 4 games, 2 rounds, nothing written")
    add_write_option(parser, "speed")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.cli_games, args.rounds, args.write = 4, 8, 2, False
    if not DATA.is_dir():
        raise SystemExit(f"{DATA} is absent: the real collections are needed")
    inputs = {name: first_records(game, path, scheme, args.games * times)
              for name, (game, path, scheme, _, times) in CASES.items()}
    cases: dict[str, dict[str, Any]] = {
        name: {"game": CASES[name][0], "scheme": CASES[name][2], "notation": CASES[name][3], "records": records}
        for name, (records, _) in inputs.items()}
    for name in MOVES_ONLY:
        cases[name]["uci"] = uci_moves(inputs[name][1])
    same = {same_bytes_name(case, args.base): case for case in SAME_BYTES}
    names = [*CASES, *same]
    sides = [*SIDES, BASE_COMPILED] if args.base_compiled else list(SIDES)
    load_start = load_average()
    seconds: dict[str, dict[str, dict[str, list[float]]]] = {
        name: {verb: {side: [] for side in sides} for verb in ("decode", "encode")} for name in names}
    cli_records = first_records("chess", CASES["chess/rank"][1], "rank", args.cli_games)[0]
    cli: dict[str, dict[str, list[float]]] = {verb: {side: [] for side in SIDES[:2]}
                                              for verb in ("encode", "decode", "encode0", "decode0")}
    cli_cpu: dict[str, dict[str, list[float]]] = {verb: {side: [] for side in SIDES[:2]} for verb in cli}
    batch: dict[str, list[tuple[float, float]]] = {"encode": [], "decode": []}
    first: dict[str, dict[str, Any]] = {}
    written: dict[tuple[str, str], list[str]] = {}
    peer: dict[str, list[float]] = {}  # seconds of python-chess's push_uci replay, in the compiled side's processes
    from bench.load import free_port, start_server, stop_server

    port = free_port()
    server: subprocess.Popen[bytes] | None = None
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        pgn = Path(tmp) / "games.pgn"
        pgn.write_text("\n\n".join(cli_records) + "\n", encoding="utf-8")
        ranked = Path(tmp) / "games.ndjson"
        empty = Path(tmp) / "empty.ndjson"
        empty.write_text("", encoding="utf-8")
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(base), args.base], check=True)
        try:
            if args.base_compiled:
                compile_base(base)
            base_path, base_env = side_setting("base", base)
            written_by_base = run_worker(base_path, json.dumps({case: cases[case] for case in SAME_BYTES}), base_env,
                                         BASE_CONTAINERS)
            payload = json.dumps(cases)
            # in a process of their own: not after the other rows, whose models (this tree's opening books) would
            # grow the heap every collection walks
            same_payload = json.dumps({name: {**cases[case], "containers": written_by_base[case]}
                                       for name, case in same.items()})
            server = start_server(port)  # this tree's server, as it runs (compiled)
            batch_round(port, server.pid, cli_records)  # warm: the worker processes start
            subprocess.run([sys.executable, "-m", "plybits", "encode", str(pgn), "--scheme", "rank", "-o", str(ranked),
                            "-q"],
                           env={**os.environ, "PYTHONPATH": str(ROOT / "codecs")}, cwd=ROOT, check=True)
            for side in turns(sides, args.rounds):
                pythonpath, env = side_setting(side, base)
                answers = [run_worker(pythonpath, payload, env), run_worker(pythonpath, same_payload, env)]
                if not all(loaded_as_expected(side, answer["compiled"]) for answer in answers):
                    raise SystemExit(f"the {side} side loaded compiled modules {answers[0]['compiled']}: "
                                     "run `make compile` first")
                result = {**answers[0]["out"], **answers[1]["out"]}
                for name in names:
                    for verb in ("decode", "encode"):
                        seconds[name][verb][side].append(float(result[name][verb]))
                    if side == "compiled" and "push_uci" in result[name]:
                        peer.setdefault(name, []).append(float(result[name]["push_uci"]))
                    kept = first.setdefault(name, result[name])
                    if result[name]["moves"] != kept["moves"]:
                        raise SystemExit(f"{name}: the {side} side's moves differ from another side's")
                    # the same-bytes rows' model 1 payloads are alike on every side, both revisions
                    revision = "all" if name in same else "base" if side in ("base", BASE_COMPILED) else "tree"
                    if result[name]["encoded"] != written.setdefault((revision, name), result[name]["encoded"]):
                        raise SystemExit(f"{name}: the {side} side's containers differ from its revision's other build's")
                if side in SIDES[:2]:
                    for verb, path in (("encode", pgn), ("decode", ranked)):
                        for what, run in ((verb, path), (verb + "0", empty)):
                            wall, cpu = cli_seconds(side, base, verb, run, "rank")
                            cli[what][side].append(wall)
                            cli_cpu[what][side].append(cpu)
                if side == "compiled":  # the batch round right after the command's runs on the same games
                    for op, rates in batch_round(port, server.pid, cli_records).items():
                        batch[op].append(rates)
        finally:
            if server is not None:
                stop_server(server)
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    for name, case in same.items():
        if first[name]["moves"] != first[case]["moves"]:
            raise SystemExit(f"{name}: the moves differ from those of the containers each side wrote of the same games")
    rows = []
    for name in names:
        plies = sum(len(m) for m in first[name]["moves"])
        games = len(first[name]["moves"])
        for verb in ("decode", "encode"):
            rate = {side: [plies / t for t in ts] for side, ts in seconds[name][verb].items()}
            med = {side: statistics.median(r) for side, r in rate.items()}
            row = (f"| {name} | {verb_label(name, verb)} | {games:,} | {plies:,} | {spread(rate['compiled'])} | "
                   f"{spread(rate['pure'])} | {spread(rate['base'])} | {med['compiled'] / med['base']:.2f}x | "
                   f"{med['pure'] / med['base']:.2f}x |")
            if args.base_compiled:
                # a ratio within each round: both compiled sides timed seconds apart, under the same load
                ratios = [b / c for c, b in zip(seconds[name][verb]["compiled"], seconds[name][verb][BASE_COMPILED])]
                row += (f" {spread(rate[BASE_COMPILED])} | "
                        f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |")
            rows.append(row)
    peer_rows = []
    for name, peer_seconds in peer.items():
        plies = sum(len(m) for m in first[name]["moves"])
        for case, verb in ((name, "encode"), (name, "decode"), (f"{name} to SAN", "decode")):
            if case not in seconds:
                continue
            # a ratio within each round: the verb and the peer timed seconds apart in one process
            ratios = [t / ours for t, ours in zip(peer_seconds, seconds[case][verb]["compiled"])]
            rate = [plies / t for t in seconds[case][verb]["compiled"]]
            peer_rows.append(f"| {case} | `plybits.{verb}` | {spread(rate)} | {spread([plies / t for t in peer_seconds])} "
                             f"| {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |")
    games = len(cli_records)
    cli_rows = []
    for verb in ("encode", "decode"):
        rates = {side: [games / (t - t0) for t, t0 in zip(cli[verb][side], cli[verb + "0"][side])] for side in SIDES[:2]}
        # a tiny run (--quick) can use no more CPU than the empty one: such a round has no figure
        per_cpu = [games / (c - c0) for c, c0 in zip(cli_cpu[verb]["compiled"], cli_cpu[verb + "0"]["compiled"])
                   if c > c0]
        start = {side: [1000 * t0 for t0 in cli[verb + "0"][side]] for side in SIDES[:2]}
        cli_rows.append(f"| `plybits {verb}` of {games} chess games (`rank`) | {spread(rates['compiled'])} | "
                        f"{spread(per_cpu) if per_cpu else '-'} | {spread(rates['pure'])} | "
                        f"{spread(start['compiled'])} | "
                        f"{spread(start['pure'])} |")
    batch_rows = [f"| `POST /v1/batch/{op}` of {games} chess games (`rank`) | {spread([c for c, _ in batch[op]])} | "
                  f"{spread([w for _, w in batch[op]])} |" for op in ("encode", "decode")]
    both = " and compiled" if args.base_compiled else ""
    section = "\n".join([
        f"## Speed: this tree against the pure-Python{both} build of an earlier revision",
        "",
        f"Command: `.venv/bin/python -m bench.speed --base {args.base}{' --base-compiled' if args.base_compiled else ''} "
        f"--games {args.games} --cli-games "
        f"{args.cli_games} --rounds {args.rounds} --write` (this tree at {head}, compiled and pure Python, against {args.base}"
        f"{' pure Python and compiled' if args.base_compiled else ''}; load average "
        f"{load_start:.1f} at the start and {load_average():.1f} at the end, 2 cores). Each side is a fresh process "
        "on the same inputs, the sides alternated; each figure is the median (min-max) over the rounds of a side's "
        f"median of 3 passes. All {len(sides)} sides decode the same moves and encode the same container bytes (checked)."
        f" The rows \"…, {args.base}'s containers\" time the same bytes on every side, in a process of their own: "
        f"each side decodes the containers {args.base}'s pure build wrote of the rank rows' games (its model; the "
        "moves checked equal to the rank rows'), "
        f"and codes the same games under model 1 by the scheme's own call (`encode_version(start, moves, 1)`, or a "
        f"revision's `encode` where it writes model 1 only; no public verb writes an older model), the payloads "
        f"checked equal byte for byte on all sides."
        + (f" `{args.base}` compiled: its own extension modules, built as its `make compile` builds them; "
           f"compiled / {args.base} compiled is taken within each round, median (min-max)." if args.base_compiled else ""),
        "",
        "| case | verb | games | plies | plies/s, compiled | plies/s, pure Python | plies/s, "
        f"{args.base} | compiled / {args.base} | pure / {args.base} |"
        + (f" plies/s, {args.base} compiled | compiled / {args.base} compiled |" if args.base_compiled else ""),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if args.base_compiled else ""),
        *rows,
        "",
        "Against python-chess (issue 25's yardstick): in each round's compiled process, right after the verbs, "
        "`chess.Board()` and `push_uci` of each of the same games' UCI moves (median of 3 passes); the ratio is taken "
        "within each round, median (min-max). The `chess/rank` rows code whole records (moves and tags: TWIC's 17 "
        "tags a game, which `push_uci` does not read); the moves-only row codes the UCI moves alone, the input "
        "`push_uci` replays and lichess's coder codes:",
        "",
        "| case | verb | plies/s, compiled | plies/s, python-chess `push_uci` | compiled / `push_uci` |",
        "|---|---|---:|---:|---:|",
        *peer_rows,
        "",
        "The command line (`rank`, whole records: its default), one process a run, games/s and games per CPU-second "
        "after its start-up (a run over an empty file, timed beside it), median (min-max) of the rounds:",
        "",
        "| run | games/s, compiled | games per CPU-second, compiled | games/s, pure Python | start-up ms, compiled "
        "| start-up ms, pure Python |",
        "|---|---:|---:|---:|---:|---:|",
        *cli_rows,
        "",
        "The batch API (compiled): one `plybits serve` process (as `make serve` runs it) and its worker processes; one "
        "NDJSON batch of the same games a round (encode: `rank`, whole records; decode: the containers it answered), "
        "right after the compiled command's runs of that round, after one batch to warm up; games per CPU-second of "
        "the server and all its processes (/proc), and per second of wall time, median (min-max) of the rounds:",
        "",
        "| run | games per CPU-second | games/s, wall |",
        "|---|---:|---:|",
        *batch_rows,
    ])
    publish("speed", section, args.write)


if __name__ == "__main__":
    main()
