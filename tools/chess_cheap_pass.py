"""What a staged chess model's cheap pass would cost, compiled (docs/rank.md, "A chess model made for speed: staged
coding, measured"): a prototype, never shipped, written as :func:`plybits.chess.rank._scores` is (i64 locals, the
same tables) but reading only what needs no attack map (the origin's row of piece-square, phase and rank weights, the
capture by victim x mover, the promotion), and two ways to pick the cheap top K from its scores. :func:`main` runs it
beside model 2's ``_scores`` on the same positions, for callgrind to count each function's own instructions.

Compile it on its own beside the compiled build (``make compile`` first) and count (PLIES: the plies of one pass,
printed; a one-pass run subtracted from a two-pass run, as bench.verb_instructions):

    cp tools/chess_cheap_pass.py DIR && cd DIR && MYPYPATH=ROOT/codecs ROOT/.venv/bin/mypyc chess_cheap_pass.py
    PYTHONPATH=ROOT/codecs:ROOT:DIR PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=OUT.P \\
        ROOT/.venv/bin/python -c "import chess_cheap_pass; chess_cheap_pass.main(PGN, 30, P, 8)"
"""

from __future__ import annotations

from librt.vecs import vec
from mypy_extensions import i64

from plybits.chess.board import Board
from plybits.chess.rank import _LEVELS, _NO_ROW, _Tables
from plybits.chess.squares import BLACK, SIZE
from plybits.packed import zeros


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


def main(path: str, count: int, passes: int, k: int) -> int:
    """Model 2's ``_scores``, :func:`cheap_scores` and both selections on every position of the first ``count``
    games of the PGN file ``path``, a warm-up pass and then ``passes``; the plies of one pass."""
    import sys
    from pathlib import Path

    from plybits.chess import rank
    from plybits.chess.board import map_buffer, reused_codes
    from plybits.chess.rankmodel2 import MODEL_2
    from plybits.packed import int_array
    from plybits.records import read_record
    from plybits.registry import get_game

    game = get_game("chess")
    chunks = list(game.split_records(Path(path).read_text(encoding="utf-8", errors="replace")))[:count]
    games = [read_record("chess", record=c) for c in chunks]
    tables = MODEL_2.tables()
    best = int_array([0] * 64)
    at = int_array([0] * 64)
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
                if done == 1:
                    plies += 1
                board.push(move)
                history.append(move)
    print(f"{plies} plies a pass", file=sys.stderr)
    return plies
