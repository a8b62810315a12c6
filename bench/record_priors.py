"""The measured priors of record-section version 3 (``plybits.recordpriors.PRIORS``): how often each context of the
section's models codes a 0, counted on public games that no benchmark target is measured on.

Run: ``.venv/bin/python -m bench.record_priors [--write]``; prints the table as Python (``--write`` puts it into
``codecs/plybits/recordpriors.py``). Each game of :data:`TRAINING` is written as a version-3 section by a coder that
counts its decisions instead of coding them (a writer's decisions follow from the record alone, not from the
priors); the player-name models are counted on each distinct name once (so no player who is in every game of a
file weighs more than any other). A context measured :data:`MIN_SEEN` times or more starts at
``(zeros + 1/2) / (count + 1)``, as seen ``min(count, SEEN_CAP)`` times; the others keep their version-2 priors,
as do the clocks (``python -m bench.clock_priors`` measured theirs on the same files).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from typing import Any

from plybits import records
from plybits.recordcoder import MAX_NUMBER_BITS, Bits, Coder
from plybits.recordmodels import F_STEPS, F_USER_NAME, ClassedText, FinalPosition, State, model_banks
from plybits.recordsection import _known, _NotesWriter
from plybits.recordtags import USER_NAME_RE
from plybits.registry import get_game, get_scheme

from bench.report import ROOT

DATA = ROOT.parent / "shared" / "data"
TRAINING = ("chess/clocks/lichess_db_standard_rated_2021-10_first999.pgn",
            "chess/chesscom/chesscom_pnmadelaine_2021-11_to_2024-03.pgn")
"""The files measured on (the clock priors' two; lichess_pnmadelaine and chesscom_kyle stay unseen)."""
KEPT = ("clock", "pace_clock", "pace_precision", "precision", "player", "text.", "comment_text")
"""Models whose priors are not measured from whole sections: the clocks (``bench.clock_priors``), the player
names (measured on distinct names) and the other texts (the files' few are not what texts usually are)."""
PERSONAL = ("eco", "eco_number", "elo", "signed", "result", "control")
"""Models of what one player's games share (an opening repertoire, a rating, a favourite time control): measured
on the many players of the lichess file only, not on the chess.com file of one player's games."""
MANY_PLAYERS = TRAINING[0]
UNMEASURED = {("flags", F_STEPS), ("flags", F_USER_NAME), ("signed.sign", 2),
              *(("signed.magnitude.unary", 2 * MAX_NUMBER_BITS + j) for j in range(MAX_NUMBER_BITS)),
              *(("signed.magnitude.mantissa", 4 * MAX_NUMBER_BITS + j) for j in range(2 * MAX_NUMBER_BITS))}
"""Contexts whose priors stay hand-set: whether a record is annotated and its players' names are user names (the
files measured on are all annotated online games), and the year of a date (theirs are a few recent years)."""
MIN_SEEN = 8
SEEN_CAP = 16
SURE = 16
"""The most sure a context used many times a section starts (in 4096ths of either value)."""
SURE_ONCE = 512
"""The most sure a context used :data:`MANY` times a section or fewer starts (a record unlike those measured on
then costs at most 3 bits more at it)."""
MANY = 4
PLAYERS = ("White", "Black")
TARGET = ROOT / "codecs" / "plybits" / "recordpriors.py"


class Counting(Coder):
    """A writer's coder that counts its decisions by context bank and context instead of coding them."""

    def __init__(self) -> None:
        super().__init__(True)
        self.seen: list[tuple[Bits, int, int]] = []

    def bit(self, bits: Bits, ctx: int, bit: int = 0) -> int:
        self.seen.append((bits, ctx, bit))
        return bit

    def uniform(self, n: int, value: int = 0) -> int:
        return value


Counts = dict[tuple[str, int], list[int]]
"""Per (bank path, context): the 0s, the 1s and the sections coding any."""


def tally(counts: Counts, coder: Counting, models: Any, skip: tuple[str, ...]) -> None:
    """Add ``coder``'s decisions to ``counts`` by the path of the bank of ``models`` they were coded in."""
    paths = {id(bits): path for path, bits in model_banks(models).items()}
    used = set()
    for bits, ctx, bit in coder.seen:
        path = paths[id(bits)]
        if not path.startswith(skip) and (path, ctx) not in UNMEASURED:
            counts.setdefault((path, ctx), [0, 0, 0])[bit] += 1
            used.add((path, ctx))
    for key in used:
        counts[key][2] += 1
    coder.seen.clear()


def measure() -> Counts:
    counts: Counts = {}
    scheme = get_scheme("chess", "rank")
    names: dict[str, None] = {}
    for path in TRAINING:
        for text in get_game("chess").split_records((DATA / path).read_text(encoding="utf-8-sig")):
            replay = records.read_record("chess", record=text, variations=True)
            assert replay.notes is not None
            coder = Counting()
            state = _known(State(FinalPosition(replay.start_position, replay.moves, None), len(replay.moves), 3), None)
            writer = _NotesWriter(coder, scheme, state)
            writer.tags(replay.tags)
            writer.result(replay.notes.result)
            writer.comments(replay.notes.comments, -1, 7)
            writer.steps(replay.start_position, replay.moves, replay.notes.steps, 0, 0)
            tally(counts, coder, writer.m, KEPT if path == MANY_PLAYERS else KEPT + PERSONAL)
            for tag in PLAYERS:
                if tag in replay.tags:
                    names.setdefault(replay.tags[tag])
    holder = type("Players", (), {})()
    for name in names:
        coder = Counting()
        holder.player = ClassedText()
        if USER_NAME_RE.fullmatch(name):
            holder.player.code(coder, name, "player")
        tally(counts, coder, holder, ())
    return counts


def table(counts: Counts) -> dict[str, list[tuple[int, int, int]]]:
    priors: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for (path, ctx), (zeros, ones, sections) in sorted(counts.items()):
        total = zeros + ones
        if total >= MIN_SEEN:
            p = round((zeros + 0.5) / (total + 1) * 4096)
            sure = SURE if total > MANY * sections else SURE_ONCE
            priors[path].append((ctx, min(max(p, sure), 4096 - sure), min(total, SEEN_CAP)))
    return priors


def source(priors: dict[str, list[tuple[int, int, int]]]) -> str:
    lines = ['"""Version 3\'s measured priors of the record section\'s models, by bank path and context: (context,',
             'probability of a 0 in 4096ths, as seen how often). Generated by ``python -m bench.record_priors``',
             f'(measured on {", ".join(TRAINING)}); released tables never change."""', "",
             "from __future__ import annotations", "",
             "PRIORS: dict[str, tuple[tuple[int, int, int], ...]] = {"]
    for path, entries in priors.items():
        lines.append(f"    {path!r}: (")
        row = "       "
        for entry in entries:
            item = f" ({entry[0]}, {entry[1]}, {entry[2]}),"
            if len(row) + len(item) > 118:
                lines.append(row)
                row = "       "
            row += item
        lines += [row, "    ),"]
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write the table into {TARGET.name}")
    args = parser.parse_args(argv)
    text = source(table(measure()))
    if args.write:
        TARGET.write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    sys.exit(main())
