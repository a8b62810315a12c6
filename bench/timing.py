"""The one timing loop every benchmark uses: sides alternated and repeated, the collector handled alike, spreads.

How a comparison is timed (:func:`alternate`):

- Each side is one callable doing one pass over the work, the public call of its library on every item; the
  pass drops each call's result at once (:func:`each`), so neither side's pass leaves a growing heap behind
  for the collector to walk during the other side's turn.
- Garbage collection stays ON for both sides (it is part of what a caller pays), and ``gc.collect()`` runs
  before every timed pass, so each pass starts from the same clean heap whoever ran before it.
- The sides take turns, ``repeats`` rounds; the order reverses every round (A B, B A, A B, ...) so neither
  side always runs first or last. A ratio is taken within a round (both sides seconds apart, under the same
  load), and the table gives its median and its min-max over the rounds.

Where a peer has a large fixed cost a call, :func:`fit_cost` separates it from the cost a ply: time the same
games cut to several lengths, and fit ``seconds a call = a + b * plies a call`` per side and per round.

Results go into ``bench/results/NAME.json`` under a label (``pure`` or ``compiled``, the build of plybits the
run imported: :func:`build`), so that one bench run with each build fills both columns of the same table.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.report import ROOT, add_write_option, publish

RESULTS = Path(__file__).resolve().parent / "results"
LABELS = ("pure", "compiled")
CORE_MODULES = ("plybits.bitio", "plybits.rangecoder", "plybits.rank", "plybits.mailbox", "plybits.chess.board")
POLICY = (
    "each side's pass calls the public verb on every item and drops each result at once; the collector is on for "
    "both sides and `gc.collect()` runs before every timed pass; the sides alternate, their order reversed every "
    "round; a ratio is taken within a round, and the figures are the median (min-max) over the rounds"
)


def each(call: Callable[[Any], object], items: Iterable[Any]) -> Callable[[], None]:
    """One pass: ``call(item)`` for every item, each result dropped at once."""
    items = list(items)

    def run() -> None:
        for item in items:
            call(item)

    return run


def turns(names: Sequence[str], repeats: int) -> Iterator[str]:
    """The sides' turns over ``repeats`` rounds: all of ``names`` each round, the order reversed every round."""
    for round_ in range(repeats):
        yield from (names if round_ % 2 == 0 else names[::-1])


def alternate(sides: Mapping[str, Callable[[], object]], repeats: int) -> dict[str, list[float]]:
    """Seconds of one pass of each side in each of ``repeats`` rounds (see the module's docstring)."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    clock = time.perf_counter
    for name in turns(list(sides), repeats):
        run = sides[name]
        gc.collect()
        started = clock()
        run()
        times[name].append(clock() - started)
    return times


def repeat(run: Callable[[], object], repeats: int) -> list[float]:
    """Seconds of each of ``repeats`` passes of ``run`` alone (a bench with one side), timed as :func:`alternate`."""
    return alternate({"run": run}, repeats)["run"]


@dataclass
class Spread:
    """The median and the extremes of a set of figures."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        return cls(statistics.median(values), min(values), max(values))


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Least-squares ``(a, b)`` of ``y = a + b * x``."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return my - b * mx, b


def fit_cost(seconds: Mapping[int, list[float]], calls: Mapping[int, int], plies: Mapping[int, int]) -> tuple[list[float], list[float]]:
    """Per round, ``(seconds a call, seconds a ply)`` fitted over groups of calls of different lengths.

    ``seconds[g]`` are the rounds' timings of group ``g`` (``calls[g]`` calls over ``plies[g]`` plies in all).
    """
    groups = list(seconds)
    rounds = len(seconds[groups[0]])
    per_call: list[float] = []
    per_ply: list[float] = []
    for r in range(rounds):
        a, b = fit_line([plies[g] / calls[g] for g in groups], [seconds[g][r] / calls[g] for g in groups])
        per_call.append(a)
        per_ply.append(b)
    return per_call, per_ply


@dataclass
class Row:
    """One line of a comparison table, as measured in one run.

    ``ours`` and ``peer`` are figures per round in ``unit``; ``ratios`` are per round, how many times plybits is
    ahead (its rate over the peer's, or the peer's cost over its own when ``lower_is_better``).
    """

    task: str
    unit: str
    ours: list[float]
    peer: list[float] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    lower_is_better: bool = False


def rates_row(task: str, unit: str, amount: float, ours: list[float], peer: list[float] | None = None) -> Row:
    """A row of rates (``amount`` units a pass) from the rounds' seconds of each side."""
    if peer is None:
        return Row(task, unit, [amount / t for t in ours])
    return Row(task, unit, [amount / t for t in ours], [amount / t for t in peer], [p / o for o, p in zip(ours, peer)])


def cost_row(task: str, unit: str, ours: list[float], peer: list[float]) -> Row:
    """A row of costs (lower is better), e.g. microseconds a call, from the rounds' figures of each side."""
    return Row(task, unit, ours, peer, [p / o if o > 0 else float("nan") for o, p in zip(ours, peer)], True)


def build() -> str:
    """``compiled`` if the core modules of the imported plybits are extension modules, else ``pure``."""
    for name in CORE_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if not str(getattr(module, "__file__", "")).endswith(".py"):
            return "compiled"
    return "pure"


def add_options(parser: argparse.ArgumentParser, name: str, repeats: int) -> None:
    """The options every bench takes: ``--repeats``, ``--quick``, ``--label`` and ``--write``."""
    parser.add_argument("--repeats", type=int, default=repeats, help="rounds of the alternated sides")
    parser.add_argument("--quick", action="store_true", help="a smoke test: a few games, 2 rounds, nothing written")
    parser.add_argument("--label", choices=LABELS, default=None,
                        help="the column the run fills (default: the build imported, see bench.timing.build)")
    add_write_option(parser, name)


def arguments(argv: list[str] | None, doc: str | None, name: str, repeats: int,
              options: list[tuple[str, int, str | None]], quick: dict[str, int]) -> argparse.Namespace:
    """A bench's command line: its own integer ``options`` (flag, default, help) and :func:`add_options`'; with
    ``--quick`` (a smoke test) the ``quick`` values in their place."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    for flag, default, text in options:
        parser.add_argument(flag, type=int, default=default, help=text)
    add_options(parser, name, repeats)
    args = parser.parse_args(argv)
    if args.quick:
        for key, value in quick.items():
            setattr(args, key, value)
    return args


def label_of(args: argparse.Namespace) -> str:
    """The run's label: ``--label`` if given (it must agree with the build imported), else the build."""
    found = build()
    if args.label is not None and args.label != found:
        raise SystemExit(f"--label {args.label}, but the plybits imported is the {found} build")
    return str(args.label or found)


def command(module: str, args: argparse.Namespace, options: str) -> str:
    """The command line that reproduces a run (``--write`` and the label included)."""
    text = f".venv/bin/python -m bench.{module} {options}".rstrip()
    return f"{text} --repeats {args.repeats} --label {label_of(args)} --write"


def fmt(value: float) -> str:
    """A figure with the precision its size deserves."""
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def spread_text(values: Sequence[float], suffix: str = "") -> str:
    """``median (min-max)`` of ``values``, or a dash for none."""
    if not values:
        return "-"
    s = Spread.of(values)
    return f"{fmt(s.median)}{suffix} ({fmt(s.low)}-{fmt(s.high)})"


def load_results(name: str) -> dict[str, Any]:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def table(runs: Mapping[str, Mapping[str, Any]], peer: str | None) -> list[str]:
    """The table of a section from its runs by label (rows in the order of the latest run); without a ``peer``,
    only plybits' columns."""
    labels = [label for label in LABELS if label in runs]
    latest = runs[labels[-1]]
    if peer is None:
        lines = ["| task | unit | plybits, pure Python | plybits, compiled | compiled / pure Python |",
                 "|---|---|---:|---:|---:|"]
    else:
        lines = [
            f"| task | unit | plybits, pure Python | plybits, compiled | {peer} | plybits / {peer}, pure | "
            f"plybits / {peer}, compiled | compiled / pure Python |",
            "|---|---|---:|---:|---:|---:|---:|---:|",
        ]
    for key in latest["rows"]:
        rows = {label: Row(**runs[label]["rows"][key]) for label in labels if key in runs[label]["rows"]}
        any_row = next(iter(rows.values()))
        cells = [spread_text(rows[label].ours) if label in rows else "not measured" for label in LABELS]
        if peer is not None:
            cells.append(spread_text(rows.get("pure", any_row).peer))
            for label in LABELS:
                cells.append(spread_text(rows[label].ratios, "x") if label in rows else "not measured")
        if "pure" in rows and "compiled" in rows:
            pure, compiled = (statistics.median(rows[k].ours) for k in ("pure", "compiled"))
            cells.append(f"{(pure / compiled if any_row.lower_is_better else compiled / pure):.2f}x")
        else:
            cells.append("not measured")
        lines.append(f"| {any_row.task} | {any_row.unit} | " + " | ".join(cells) + " |")
    return lines


def commands(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """The command of each label's run, and "not measured" for a label without one."""
    parts = []
    for label in LABELS:
        if label in runs:
            parts.append(f"{label}: `{runs[label]['command']}` ({runs[label]['context']})")
        else:
            parts.append(f"{label}: not measured")
    return "Commands — " + "; ".join(parts) + "."


def report(name: str, args: argparse.Namespace, rows: list[Row], *, heading: str, command_line: str, context: str,
           peer: str | None, before: Sequence[str] = (), after: Sequence[str] = ()) -> None:
    """Print the section (and with ``--write`` store this run under its label and put the section into
    BENCHMARKS.md): heading, the commands, ``before``, the table of every stored label, ``after``."""
    label = label_of(args)
    this = {"command": command_line, "context": context, "rows": {row.task: asdict(row) for row in rows}}
    runs = load_results(name) if args.write and not args.quick else {}
    runs[label] = this
    if args.write and not args.quick:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"{name}.json").write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    section = "\n".join([
        heading, "", commands(runs), "", *before, *([""] if before else []),
        *table(runs, peer), *([""] if after else []), *after,
    ])
    publish(name, section, args.write and not args.quick)


__all__ = ["ROOT", "POLICY", "Row", "Spread", "add_options", "alternate", "build", "command", "cost_row", "each",
           "fit_cost", "fit_line", "label_of", "rates_row", "repeat", "report", "spread_text", "turns"]
