"""The priors of record-section version 2's clock models (``plybits.recordmodels.CLOCK_PRIORS``,
``CLOCK_MANTISSA_PRIORS``, ``PRECISION_PRIORS``), measured on
one lichess file and one chess.com file of the shared clock files (the other two are left out, to measure on).

Run: ``.venv/bin/python -m bench.clock_priors``; prints the tables as Python. Each mainline clock after a side's
first is put in its context (``plybits.recordmodels.pace_context``) with the time spent as the coder codes it;
the tables are each context's probability (64ths) of a time that runs down (the sign), of each bit length of
the time spent given at least that one (the unary), and of each of the first two bits below the leading one
(by length, shared by the contexts), as the section's ``Signed`` model codes them; and the fraction digits'
bit tree by the digits of the last two clocks.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict

from plybits import records
from plybits.recordmodels import FinalPosition, State, next_pace, pace_context
from plybits.recordsection import BARE_TIME_CONTROL_RE, TIME_CONTROL_RE, _command_value, COMMAND_RE
from plybits.registry import get_game

from bench.report import ROOT

DATA = ROOT.parent / "shared" / "data"
TRAINING = ("chess/clocks/lichess_db_standard_rated_2021-10_first999.pgn",
            "chess/chesscom/chesscom_pnmadelaine_2021-11_to_2024-03.pgn")
"""The files the priors are measured on."""
MIN_SEEN = 10


def clocks(text: str) -> tuple[int | None, int, list[tuple[int, int] | None]]:
    """A record's base and increment in ms and its mainline clocks ``(ms, digits)`` by ply."""
    replay = records.read_record("chess", record=text, variations=True)
    control = replay.tags.get("TimeControl", "")
    base, increment = None, 0
    if match := TIME_CONTROL_RE.fullmatch(control):
        base, increment = int(match[1]) * 1000, int(match[2]) * 1000
    elif BARE_TIME_CONTROL_RE.fullmatch(control):
        base = int(control) * 1000
    found: list[tuple[int, int] | None] = []
    for step in replay.notes.steps if replay.notes else []:
        value = None
        for comment in step.comments:
            for match in COMMAND_RE.finditer(comment.text):
                if match.group(1) == "clk":
                    value = value or _command_value(match)
        found.append(value)
    return base, increment, found


def measure() -> tuple[Counter[int], Counter[int], dict[int, Counter[int]], Counter[tuple[int, int]], Counter[tuple[int, int]]]:
    """Per context: the clocks, those that run up, the bit lengths; per (length, depth): mantissa bits, zeros."""
    total: Counter[int] = Counter()
    up: Counter[int] = Counter()
    lengths: dict[int, Counter[int]] = defaultdict(Counter)
    seen: Counter[tuple[int, int]] = Counter()
    zeros: Counter[tuple[int, int]] = Counter()
    for path in TRAINING:
        for text in get_game("chess").split_records((DATA / path).read_text(encoding="utf-8-sig")):
            base, increment, found = clocks(text)
            s = State(FinalPosition.__new__(FinalPosition), 0, 2)
            for ply, value in enumerate(found):
                if value is None:
                    continue
                ms, digits = value
                unit = 10 ** (3 - digits)
                side = ply & 1
                last = s.clock[side]
                if last is None:
                    other = s.clock[1 - side]
                    prediction, ctx = (base if base is not None else other if other is not None else 0), 0
                else:
                    prediction, ctx = last + increment, pace_context(s, side)
                ctx += 16 if digits else 0
                spent = prediction // unit - ms // unit
                magnitude = -1 - spent if spent < 0 else spent
                total[ctx] += 1
                up[ctx] += spent < 0
                length = (magnitude + 1).bit_length() - 1
                lengths[ctx][length] += 1
                for depth in range(min(length, 2)):
                    seen[length, depth] += 1
                    zeros[length, depth] += 1 - (((magnitude + 1) >> (length - 1 - depth)) & 1)
                s.clock[side] = ms
                s.last_spent[side] = abs(spent) * unit
                s.pace[side] = next_pace(s.pace[side], abs(spent) * unit)
    return total, up, lengths, seen, zeros


def precision_priors() -> list[tuple[int, int]]:
    """The priors of the fraction digits' tree by the last two clocks' digits: (node index, 64ths of a 0)."""
    seen: dict[int, Counter[int]] = defaultdict(Counter)
    for path in TRAINING:
        for text in get_game("chess").split_records((DATA / path).read_text(encoding="utf-8-sig")):
            last, before = 4, 4
            for value in clocks(text)[2]:
                if value is not None:
                    seen[last * 5 + before][value[1]] += 1
                    last, before = value[1], last
    priors = []
    for ctx, digits in sorted(seen.items()):
        total = sum(digits.values())
        high_zero = digits[0] + digits[1]
        if total < 2 * MIN_SEEN:
            continue
        priors.append(((ctx << 2) + 1, sixty_fourths((high_zero + 0.5) / (total + 1))))
        if high_zero >= MIN_SEEN:
            priors.append(((ctx << 2) + 2, sixty_fourths((digits[0] + 0.5) / (high_zero + 1))))
        if total - high_zero >= MIN_SEEN:
            priors.append(((ctx << 2) + 3, sixty_fourths((digits[2] + 0.5) / (total - high_zero + 1))))
    return priors


def sixty_fourths(p: float) -> int:
    return min(max(round(p * 64), 1), 63)


def main() -> None:
    total, up, lengths, seen, zeros = measure()
    rows = []
    for ctx in range(32):
        if total[ctx] < 2 * MIN_SEEN:
            rows.append("    (56, ()),")
            continue
        sign = sixty_fourths(1 - (up[ctx] + 1) / (total[ctx] + 2))
        unary = []
        for j in range(40):
            reach = sum(n for length, n in lengths[ctx].items() if length >= j)
            if reach < MIN_SEEN:
                break
            unary.append(sixty_fourths((lengths[ctx][j] + 0.5) / (reach + 1)))
        rows.append(f"    ({sign}, ({', '.join(map(str, unary))}{',' if len(unary) == 1 else ''})),")
    mantissa = []
    for (length, depth), n in sorted(seen.items()):
        if n >= 2 * MIN_SEEN:  # the index Number gives the bit at depth `depth` below a leading one at `length`
            mantissa.append(f"({length * 3 - 1 - (length - 1 - depth)}, {sixty_fourths(zeros[length, depth] / n)})")
    print("CLOCK_PRIORS = (\n" + "\n".join(rows) + "\n)")
    print("CLOCK_MANTISSA_PRIORS = (" + ", ".join(mantissa) + ")")
    print("PRECISION_PRIORS = (" + ", ".join(f"({i}, {z})" for i, z in precision_priors()) + ")")


if __name__ == "__main__":
    sys.exit(main())
