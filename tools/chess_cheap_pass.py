"""What a staged chess model's cheap pass would cost, compiled (docs/rank.md, "A chess model made for speed: staged
coding, measured"): a prototype, never shipped, written as :func:`plybits.chess.rank._scores` is (i64 locals, the
same tables) but reading only what needs no attack map (the origin's row of piece-square, phase and rank weights, the
capture by victim x mover, the promotion), two ways to pick the cheap top K from its scores, and the origin-first
design's origin scores (:func:`origin_scores`: bit tests of each origin's targets). :func:`main` runs them beside model
2's ``_scores`` on the same positions, for callgrind to count each function's instructions (``origin_scores_*``:
inclusive, one a set).

Compile it on its own beside the compiled build (``make compile`` first) and count (PLIES: the plies of one pass,
printed; a one-pass run subtracted from a two-pass run, as bench.verb_instructions):

    cp tools/chess_cheap_pass.py DIR && cd DIR && MYPYPATH=ROOT/codecs ROOT/.venv/bin/mypyc chess_cheap_pass.py
    PYTHONPATH=ROOT/codecs:ROOT:DIR PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=OUT.P \\
        ROOT/.venv/bin/python -c "import chess_cheap_pass; chess_cheap_pass.main(PGN, 30, P, 8)"
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.chess.board import Board
from plybits.chess.rank import _LEVELS, _NO_ROW, _Tables
from plybits.chess.squares import BIT_OF, BLACK, SIZE, SQUARES
from plybits.packed import int_array, zeros


def cheap_scores(tables: _Tables, board: Board, codes: vec[i64], n: i64, phase: i64) -> vec[i64]:
    """The cheap score of each of the first ``n`` ``codes`` (up to ``END_CODE``; the null move's left 0)."""
    b: vec[i64] = board.cells
    colour: i64 = board.turn
    row_base: i64 = (phase * 16) * SIZE
    rows = tables.rows
    captures = tables.captures
    promo = tables.promotion
    out = zeros(n)
    origin: i64 = -1
    row = _NO_ROW
    captures_at: i64 = 0
    i: i64 = -1
    for code in codes:
        i += 1
        f: i64 = code >> 11
        t: i64 = code >> 3 & 255
        if f != origin:
            if f <= 0:
                if f < 0:
                    break
                continue
            origin = f
            p: i64 = b[f]
            row = rows[row_base + p * SIZE + f]
            if len(row) == 0:
                row = tables.row(phase, p, f)
            captures_at = (p & 7) * _LEVELS
        score: i64 = row[t]
        q: i64 = b[t]
        if q:
            if q & BLACK == colour:
                score = tables.castle_h[phase] if t > f else tables.castle_a[phase]
            else:
                score += captures[(q & 7) * (7 * _LEVELS) + captures_at]
        promotion: i64 = code & 7
        if promotion:
            score += promo[promotion]
        out[i] = score
    return out


def top_sorted(scores: vec[i64], n: i64, k: i64, best: vec[i64], at: vec[i64]) -> i64:
    """The indices of the ``k`` highest of the first ``n`` ``scores`` into ``at`` (best first, ties by index), kept
    sorted as they come (insertion); how many."""
    filled: i64 = 0
    kth: i64 = 0
    i: i64
    j: i64
    for i in range(n):
        score: i64 = scores[i]
        if filled < k or score > kth:
            if filled < k:
                filled += 1
            j = filled - 1
            while j > 0 and best[j - 1] < score:
                best[j] = best[j - 1]
                at[j] = at[j - 1]
                j -= 1
            best[j] = score
            at[j] = i
            kth = best[filled - 1]
    return filled


def top_slots(scores: vec[i64], n: i64, k: i64, best: vec[i64], at: vec[i64]) -> i64:
    """:func:`top_sorted`'s set, unsorted: ``k`` slots, the lowest (of equal ones the latest) replaced when a higher
    score comes, its slot found again by a scan of the ``k``; how many."""
    i: i64
    j: i64
    low: i64 = 0  # the lowest score kept, and its slot
    low_at: i64 = 0
    filled: i64 = 0
    for i in range(n):
        score: i64 = scores[i]
        if filled < k:
            best[filled] = score
            at[filled] = i
            filled += 1
            if filled < k:
                continue
        elif score > low:
            best[low_at] = score
            at[low_at] = i
        else:
            continue
        low = best[0]
        low_at = 0
        for j in range(1, k):  # the lowest, of equal ones the latest move (ties go by index, as top_sorted's)
            if best[j] < low or best[j] == low and at[j] > at[low_at]:
                low = best[j]
                low_at = j
    return filled


ORIGIN_TESTS: Final = {"any": 11, "any+safety": 48, "counted+reach": 62}
"""The bit tests an origin's score makes under each origin set of :mod:`tools.chess_staged` (docs/rank.md)."""


def origin_masks(b: vec[i64], attacks: vec[i64], colour: i64, tests: i64, masks: vec[i64]) -> None:
    """``tests`` masks for each of the 7 kinds into ``masks`` from the position's map: the squares of each map entry
    class (the enemy's rank x our count x a capture there), the enemy's men by kind, then repeated (stand-ins for the
    other kinds of id: the tests cost the same whatever they hold)."""
    classes = zeros(24)
    bit_of = BIT_OF  # a local: another module's final is a module attribute read a use
    s: i64
    for s in SQUARES:
        entry: i64 = attacks[s]
        p: i64 = b[s]
        c: i64 = (entry >> 4 & 7) % 3 * 6 + (entry >> 2 & 3) * 2 + (1 if p != 0 and p & BLACK != colour else 0)
        classes[c] |= bit_of[s]
        if p != 0 and p & BLACK != colour:
            classes[18 + (p & 7) - 1] |= bit_of[s]
    kind: i64
    j: i64
    for kind in range(7):
        for j in range(tests):
            masks[kind * tests + j] = classes[(j + kind) % 24]


def origin_scores(codes: vec[i64], n: i64, b: vec[i64], tests: i64, masks: vec[i64], weights: vec[i64],
                  out: vec[i64]) -> i64:
    """Each origin's score from its targets (the bitboard of its moves' targets, gathered here from the codes: a
    generator that makes them could hand them over) tested against its kind's ``tests`` masks, a weight added at
    each hit; how many origins."""
    bit_of = BIT_OF  # a local: another module's final is a module attribute read a use
    origin: i64 = -1
    targets: i64 = 0
    kind: i64 = 0
    at: i64 = -1
    i: i64
    j: i64
    for i in range(n + 1):
        code: i64 = -1  # past the last move: ends the last origin (an if, not a conditional expression: no boxing)
        if i < n:
            code = codes[i]
        f: i64 = code >> 11
        if f != origin:
            if at >= 0:  # the origin just ended: its tests
                score: i64 = weights[kind * tests]
                base: i64 = kind * tests
                for j in range(tests):
                    if targets & masks[base + j] != 0:
                        score += weights[base + j]
                out[at] = score
            if f <= 0:
                break
            origin = f
            at += 1
            kind = b[f] & 7
            targets = 0
        targets |= bit_of[code >> 3 & 255]
    return at + 1


def main(path: str, count: int, passes: int, k: int) -> int:
    """Model 2's ``_scores``, :func:`cheap_scores`, both selections and each origin set's :func:`origin_scores` on every
    position of the first ``count`` games of the PGN file ``path``, a warm-up pass and then ``passes``; the plies of
    one pass."""
    import sys
    from pathlib import Path

    from plybits.chess import rank
    from plybits.chess.board import map_buffer, reused_codes
    from plybits.chess.rankmodel2 import MODEL_2
    from plybits.records import read_record
    from plybits.registry import get_game

    game = get_game("chess")
    chunks = list(game.split_records(Path(path).read_text(encoding="utf-8", errors="replace")))[:count]
    games = [read_record("chess", record=c) for c in chunks]
    tables = MODEL_2.tables()
    best = int_array([0] * 64)
    at = int_array([0] * 64)
    out = int_array([0] * 64)
    weights = int_array([(i * 37) % 61 - 30 for i in range(7 * 64)])
    # one scoring function a set, so that callgrind tells their costs apart
    named = (("any", origin_scores_any), ("any+safety", origin_scores_safety), ("counted+reach", origin_scores_reach))
    per_set = [(ORIGIN_TESTS[name], int_array([0] * (7 * 64)), fn) for name, fn in named]
    plies = 0
    for done in range(passes + 1):
        for record in games:
            board = game.position(record.start)
            history: list[object] = []
            for move in record.moves:
                men = board.men
                attacks, material = rank._attack_maps(board.cells, board.turn, men[0] | men[1], map_buffer(board),
                                                      board.material)
                codes, n = reused_codes(board, attacks, rank._RANK_UNIT)
                codes[n] = 0
                n += 1
                if n < len(codes):
                    codes[n] = rank.END_CODE
                phase, _ = rank._position_terms(board, attacks, material)
                rank._scores(tables, board, codes, n, history, attacks, material)  # type: ignore[arg-type]
                scores = cheap_scores(tables, board, codes, n, phase)
                top_sorted(scores, n - 1, k, best, at)
                top_slots(scores, n - 1, k, best, at)
                for tests, masks, fn in per_set:
                    origin_masks(board.cells, attacks, board.turn, tests, masks)
                    fn(codes, n - 1, board.cells, tests, masks, weights, out)
                if done == 1:
                    plies += 1
                board.push(move)
                history.append(move)
    print(f"{plies} plies a pass", file=sys.stderr)
    return plies


def origin_scores_any(codes: vec[i64], n: i64, b: vec[i64], tests: i64, masks: vec[i64], weights: vec[i64],
                      out: vec[i64]) -> i64:
    """:func:`origin_scores` for the ``any`` set (a name of its own for callgrind)."""
    return origin_scores(codes, n, b, tests, masks, weights, out)


def origin_scores_safety(codes: vec[i64], n: i64, b: vec[i64], tests: i64, masks: vec[i64], weights: vec[i64],
                         out: vec[i64]) -> i64:
    """:func:`origin_scores` for the ``any+safety`` set."""
    return origin_scores(codes, n, b, tests, masks, weights, out)


def origin_scores_reach(codes: vec[i64], n: i64, b: vec[i64], tests: i64, masks: vec[i64], weights: vec[i64],
                        out: vec[i64]) -> i64:
    """:func:`origin_scores` for the ``counted+reach`` set."""
    return origin_scores(codes, n, b, tests, masks, weights, out)
