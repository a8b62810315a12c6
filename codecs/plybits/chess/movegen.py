"""The chess rules on bare cells (a board's ``cells``, an :func:`~plybits.packed.int_array`): attack, check and
pin tests, and the walks the move generator of :mod:`plybits.chess.board` adds moves with (slides, king steps,
castling, pawn moves), each writing move codes (:data:`~plybits.chess.squares.CODE_FROM`) into an array.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from plybits.chess.squares import (
    A1,
    BISHOP,
    BIT_OF,
    BLACK,
    CODE_FROM,
    E,
    EMPTY,
    FILE_A,
    FILE_OF,
    KING,
    KNIGHT,
    KNIGHT_JUMP,
    LINE,
    LOWEST_BIT,
    N,
    PAWN,
    PAWN_CAPTURES,
    QUEEN,
    ROOK,
    S,
    SIZE,
    STRIDE,
    W,
    WHITE,
    _FILE_INDEX,
    _JUMP_BITS,
    _KING_STEP_ARRAY,
    _KING_STEPS_ABOVE,
    _KING_STEPS_ALONG,
    _KING_STEPS_BELOW,
    _KNIGHT_JUMPS,
    _KNIGHT_TARGETS,
    _KNIGHT_TARGETS_AT,
    _RAYS,
    _RAY_OF_STEP,
    _LINE_INDEX,
    _SLIDE_FILE_AT,
    _SLIDE_LINES_AT,
    _SLIDE_TABLE,
    move,
    _SLIDER_STEPS_OF,
    _SLIDERS_ALONG,
    square,
)
from plybits.mailbox import OFF


def _attacked(b: vec[i64], sq: int, by: int) -> bool:
    """Whether any piece of colour ``by`` attacks ``sq`` on the cells ``b``."""
    # i64 locals: compiled, plain C arithmetic (docs/architecture.md, "What makes compiled code fast")
    s: i64 = sq
    colour: i64 = by
    p: i64
    if colour == WHITE:
        p = b[s + S + W]
        if p == PAWN:
            return True
        p = b[s + S + E]
        if p == PAWN:
            return True
    else:
        p = b[s + N + W]
        if p == BLACK | PAWN:
            return True
        p = b[s + N + E]
        if p == BLACK | PAWN:
            return True
    knight: i64 = colour | KNIGHT
    for jump in _KNIGHT_JUMPS:  # the border of 2 keeps every jump inside the cells
        p = b[s + jump]
        if p == knight:
            return True
    king: i64 = colour | KING
    for step in _KING_STEP_ARRAY:
        d: i64 = step
        t: i64 = s + d
        p = b[t]
        if p == king:
            return True
        while p == 0:
            t += d
            p = b[t]
        # the first piece along d attacks sq if it is ours and a slider along d (OFF is of no colour or kind)
        if p & BLACK == colour and p != OFF:
            along: i64 = _SLIDERS_ALONG[SIZE + d]
            if along >> (p & 7) & 1:
                return True
    return False


def _checks_after(b: vec[i64], f: i64, t: i64, p: i64, k: i64) -> bool:
    """Whether the king on ``k`` is in check after its opponent's piece ``p`` moved from ``f`` to ``t``.

    For a plain move (not castling, en passant or a promotion) from a legal position, with ``f`` already
    emptied (``t`` may or may not hold ``p`` yet): the king was not in check before, so only ``p`` itself
    or a line opened through ``f`` can give check.
    """
    return _piece_attacks(b, p, t, k) or _discovers(b, k, f, t, p & BLACK)


def _piece_attacks(b: vec[i64], p: i64, t: i64, k: i64) -> bool:
    """Whether the piece ``p`` standing on ``t`` attacks ``k`` with the cells ``b`` as they are between them (a
    king's attacks not counted: what a move to ``t`` can check with)."""
    kind: i64 = p & 7
    d: i64 = k - t
    if kind == PAWN:
        return d == (N + E if p < BLACK else S + E) or d == (N + W if p < BLACK else S + W)
    if kind == KNIGHT:
        return KNIGHT_JUMP[SIZE + d]
    if kind == KING:
        return False
    step: i64 = LINE[t * SIZE + k]
    if step == 0 or not _SLIDERS_ALONG[SIZE + step] >> kind & 1:
        return False
    s: i64 = t + step
    while s != k:
        q: i64 = b[s]
        if q != 0:
            return False
        s += step
    return True


def _discovers(b: vec[i64], k: i64, f: i64, t: i64, colour: i64) -> bool:
    """Whether a piece leaving ``f`` for ``t`` (``f`` already emptied) opens a line from a slider of ``colour``
    through ``f`` onto the king on ``k``: a discovered check, or a pin broken."""
    step: i64 = LINE[k * SIZE + f]
    if step and LINE[k * SIZE + t] != step:  # ``f`` emptied off the line ``t`` lies on
        s = k + step
        q = b[s]
        while q == 0:
            s += step
            q = b[s]
        if q != OFF and q & BLACK == colour and _SLIDERS_ALONG[SIZE + step] >> (q & 7) & 1:
            return True
    return False


def slide_bits(s: i64, occupied: i64, kind: i64) -> i64:
    """The squares a slider of ``kind`` on ``s`` attacks, each ray up to and with its first man of ``occupied``, as a
    bitboard (:data:`~plybits.chess.squares.BIT_OF`).

    No square is walked (kindergarten bitboards): the men of each line through ``s`` are gathered into a 6-bit index
    (a rank's by a shift, a file's and a diagonal's by a multiplication, whose carries out of 64 bits do not matter),
    and the line's reach is looked up in :data:`~plybits.chess.squares._SLIDE_TABLE`. Pure Python may hold a result
    with h8 as its 64 bits unsigned: only its bits are read.
    """
    table = _SLIDE_TABLE
    at: i64 = _SLIDE_LINES_AT + s * 4
    bit: i64 = table[at]
    file: i64 = bit & 7
    reach: i64 = file * 64  # the rows of the slider's file
    mask: i64
    attacks: i64 = 0
    if kind != BISHOP:
        attacks = table[reach + (occupied >> ((bit & 56) + 1) & 63)] & table[at + 1]
        inner: i64 = (occupied >> file & FILE_A) * _FILE_INDEX >> 58 & 63  # the file's men, ranks 2-7
        attacks |= table[_SLIDE_FILE_AT + (bit >> 3) * 64 + inner] << file
    if kind != ROOK:
        mask = table[at + 2]
        attacks |= table[reach + ((occupied & mask) * _LINE_INDEX >> 58 & 63)] & mask
        mask = table[at + 3]
        attacks |= table[reach + ((occupied & mask) * _LINE_INDEX >> 58 & 63)] & mask
    return attacks


_NOT_FILE_A: Final = -0x0101010101010102
"""The squares off the a-file, as a bitboard (:data:`~plybits.chess.squares.FILE_A`'s complement, in 64 bits; a
literal: compiled, a C constant, where one of 63 bits is an object read)."""


def pawn_bits(ours: i64, theirs: i64, colour: i64) -> tuple[i64, i64, i64]:
    """(the low and the high bit plane of the count of ``ours`` pawns' attacks on each square (at most 2), the squares
    ``theirs`` attack) of bitboards (:data:`~plybits.chess.squares.BIT_OF`) of the side ``colour``'s pawns and the
    other's: each side's two sets of captures, towards the a-file (the a-file's pawns left out first) and towards the
    h-file (those that came round onto the a-file left out after)."""
    a_side: i64
    h_side: i64
    if colour == WHITE:
        a_side = (ours & _NOT_FILE_A) << 7
        h_side = ours << 9 & _NOT_FILE_A
        theirs = (theirs & _NOT_FILE_A) >> 9 | theirs >> 7 & _NOT_FILE_A
    else:
        a_side = (ours & _NOT_FILE_A) >> 9
        h_side = ours >> 7 & _NOT_FILE_A
        theirs = (theirs & _NOT_FILE_A) << 7 | theirs << 9 & _NOT_FILE_A
    return a_side ^ h_side, a_side & h_side, theirs


def _answer_bits(k: i64, checks: i64, checker: i64, check_step: i64) -> i64:
    """The squares a move other than the king's may go to with the king on ``k`` in ``checks`` checks (the last from
    ``checker``, along ``check_step``: :func:`_king_lines`), as a bitboard: every square (-1) out of check, the checker
    and the squares between for one check, none for two."""
    if checks == 0:
        return -1
    if checks >= 2:
        return 0
    if check_step == 0:  # a knight or pawn: only taking it answers
        return BIT_OF[checker]
    ray: i64 = _RAY_OF_STEP[SIZE + check_step]
    return _RAYS[k * 8 + ray] & ~_RAYS[checker * 8 + ray]  # from the king's neighbour to the checker, with it


def _ep_legal(b: vec[i64], s: int, t: int, us: int, k: int) -> bool:
    """Whether the en passant capture ``s`` -> ``t`` by ``us`` leaves its king on ``k`` safe."""
    captured = t - (N if us == WHITE else S)
    pawn = b[s]
    taken = b[captured]
    b[s] = EMPTY
    b[captured] = EMPTY
    b[t] = pawn
    safe = not _attacked(b, k, us ^ BLACK)
    b[t] = EMPTY
    b[captured] = taken
    b[s] = pawn
    return safe


def _castling_legal(b: vec[i64], k: int, r: int, us: int) -> bool:
    """Whether ``us``'s king on ``k`` may castle with its rook on ``r`` (rights and check already known)."""
    them = us ^ BLACK
    rank_base = k - FILE_OF[k]
    a_side = r < k
    kt = rank_base + (2 if a_side else 6)
    rt = rank_base + (3 if a_side else 5)
    for sq in range(min(k, kt), max(k, kt) + 1):
        if sq != k and sq != r and b[sq]:
            return False
    for sq in range(min(r, rt), max(r, rt) + 1):
        if sq != k and sq != r and b[sq]:
            return False
    king = b[k]
    rook = b[r]
    b[k] = EMPTY
    step = 1 if kt > k else -1
    safe = True
    for sq in range(k, kt, step):
        if _attacked(b, sq, them):
            safe = False
            break
    if safe:
        b[r] = EMPTY
        old = b[rt]
        b[rt] = rook
        safe = not _attacked(b, kt, them)
        b[rt] = old
        b[r] = rook
    b[k] = king
    return safe


def _evades(t: int, k: int, checker: int, step: int) -> bool:
    """Whether a non-king move to ``t`` answers the one check on the king on ``k``, from ``checker`` along
    ``step`` (0 for a knight or pawn): it takes the checker or steps between."""
    return t == checker or (step != 0 and LINE[k * SIZE + t] == step and LINE[t * SIZE + checker] == step)


def _add_pawn_move(codes: vec[i64], n: i64, s: i64, t: i64, promotes: bool) -> i64:
    """Add the pawn move ``s`` -> ``t`` at ``codes[n]``: the four promotions (knight, bishop, rook, queen) if it
    ``promotes``; the new count."""
    key: i64 = (s * CODE_FROM + t) * 8
    if promotes:
        codes[n] = key + KNIGHT
        codes[n + 1] = key + BISHOP
        codes[n + 2] = key + ROOK
        codes[n + 3] = key + QUEEN
        return n + 4
    codes[n] = key
    return n + 1


def _add_pawn_moves(
    codes: vec[i64], n: i64, b: vec[i64], s: i64, us: i64, k: i64, pin: i64, checks: i64, checker: i64,
    check_step: i64, first: bool, promotes: bool, ep: i64,
) -> i64:
    """Add from ``codes[n]`` the moves of ``us``'s pawn on ``s`` walked on the cells (pure Python's way), pinned along
    ``pin`` (0: not), in ``checks`` checks on the king on ``k`` (:func:`_king_lines`; 0: none) only those that answer
    them; ``first``: it stands on its starting rank, ``promotes``: before the last; ``ep``: the en passant square (0:
    none); the new count."""
    them: i64 = us ^ BLACK
    forward: i64 = N if us == WHITE else S
    base: i64 = s * CODE_FROM
    # targets ascending: (black's double step), capture towards a, push, capture towards h, (white's double step)
    t: i64 = s + forward
    along = pin == 0 or pin == forward or pin == -forward
    push = along and b[t] == 0
    double = push and first and b[t + forward] == 0 \
        and (checks == 0 or _evades(t + forward, k, checker, check_step))
    if push and checks:
        push = _evades(t, k, checker, check_step)
    if double and us == BLACK:
        codes[n] = (base + t + forward) * 8
        n += 1
    d = forward + W
    c: i64 = t + W
    if c == ep:
        if _ep_legal(b, s, ep, us, k):
            codes[n] = (base + ep) * 8
            n += 1
    else:
        q: i64 = b[c]
        if q != 0 and q ^ them < 8 and (pin == 0 or pin == d or pin == -d) \
                and (checks == 0 or _evades(c, k, checker, check_step)):
            n = _add_pawn_move(codes, n, s, c, promotes)
    if push and not promotes:
        codes[n] = (base + t) * 8
        n += 1
    elif push:
        n = _add_pawn_move(codes, n, s, t, promotes)
    d = forward + E
    c = t + E
    if c == ep:
        if _ep_legal(b, s, ep, us, k):
            codes[n] = (base + ep) * 8
            n += 1
    else:
        q = b[c]
        if q != 0 and q ^ them < 8 and (pin == 0 or pin == d or pin == -d) \
                and (checks == 0 or _evades(c, k, checker, check_step)):
            n = _add_pawn_move(codes, n, s, c, promotes)
    if double and us == WHITE:
        codes[n] = (base + t + forward) * 8
        n += 1
    return n


def _add_slides(
    codes: vec[i64], n: i64, b: vec[i64], s: i64, kind: i64, pin: i64, them: i64, checks: i64, k: i64, checker: i64,
    check_step: i64,
) -> i64:
    """Add from ``codes[n]`` the moves of the slider of ``kind`` on ``s`` (pinned along ``pin``, 0 if not), in check
    (``checks``) only those that answer it (on the king on ``k``: :func:`_king_lines`), walked ray by ray and then put
    in target order; the new count."""
    base: i64 = s * CODE_FROM
    first: i64 = n
    t: i64
    q: i64
    for step in _SLIDER_STEPS_OF[kind]:
        d: i64 = step
        if pin != 0 and pin != d and pin != -d:
            continue
        t = s + d
        q = b[t]
        while q == 0:
            if checks == 0 or _evades(t, k, checker, check_step):
                codes[n] = (base + t) * 8
                n += 1
            t += d
            q = b[t]
        if q ^ them < 8 and (checks == 0 or _evades(t, k, checker, check_step)):  # an enemy man (not OFF)
            codes[n] = (base + t) * 8
            n += 1
    if n - first > 1:
        ordered = sorted(codes[first:n])
        for i in range(n - first):
            codes[first + i] = ordered[i]
    return n


def _add_castling(
    codes: vec[i64], n: i64, b: vec[i64], k: i64, king: i64, rook: i64, attacks: vec[i64], attacked: i64,
) -> i64:
    """Add at ``codes[n]`` castling of ``king`` (lifted off ``k``: put back for the test, lifted again) with ``rook``
    if legal, its side not in check; the new count. ``attacks``, ``attacked``: the opponent's attack map (as
    :func:`~plybits.chess.board.legal_moves` takes it; ``attacked`` 0: none), read for a king on the e-file and a
    rook in a corner."""
    if attacked != 0 and FILE_OF[k] == 4 and (FILE_OF[rook] == 0 or FILE_OF[rook] == 7):
        if _castling_mapped(b, k, rook, attacks, attacked):
            codes[n] = (k * CODE_FROM + rook) * 8
            n += 1
        return n
    b[k] = king
    if _castling_legal(b, k, rook, king & BLACK):
        codes[n] = (k * CODE_FROM + rook) * 8
        n += 1
    b[k] = EMPTY
    return n


def _castling_bit(b: vec[i64], k: i64, r: i64, attacks: vec[i64], attacked: i64) -> i64:
    """The bit (:data:`~plybits.chess.squares.BIT_OF`) of the rook on ``r`` if the king on ``k`` (on its square) may
    castle with it, its side not in check, else 0: read from the opponent's attack map (``attacks``, ``attacked``, as
    :func:`_add_castling` takes them) for a king on the e-file and a rook in a corner, else tried on the cells."""
    if FILE_OF[k] == 4 and (FILE_OF[r] == 0 or FILE_OF[r] == 7):
        if _castling_mapped(b, k, r, attacks, attacked):
            return BIT_OF[r]
    elif _castling_legal(b, k, r, b[k] & BLACK):
        return BIT_OF[r]
    return 0


def _castling_mapped(b: vec[i64], k: i64, r: i64, attacks: vec[i64], attacked: i64) -> bool:
    """:func:`_castling_legal` for a king on the e-file (lifted off ``k``) and its rook on ``r`` in a corner of its
    rank, read from the opponent's attack map: the squares between them empty, and those the king crosses and lands
    on not attacked. The map shows the king's path as it is once it moves: its side not in check, no enemy slider's
    line runs through the king's square; the rook leaving the corner opens no line onto that path (nothing lies
    beyond the corner), and on its new square it blocks none (a line through it onto the path would run on
    through the king's square)."""
    step: i64 = 1 if r > k else -1
    kt: i64 = k + 2 * step
    sq: i64 = k + step
    while sq != r:
        if b[sq] != 0:
            return False
        sq += step
    sq = k + step
    while True:
        if attacks[sq] >= attacked:
            return False
        if sq == kt:
            return True
        sq += step


def _add_king_steps(
    codes: vec[i64], n: i64, b: vec[i64], k: i64, steps: vec[i64], them: i64, attacks: vec[i64], attacked: i64,
    hidden_a: i64, hidden_b: i64,
) -> i64:
    """Add from ``codes[n]`` the king's (lifted off ``k``) steps along ``steps`` to squares empty or held by ``them``
    and not attacked by them (read from ``attacks`` and the ``hidden`` cells when ``attacked`` is not 0); the new
    count."""
    base: i64 = k * CODE_FROM
    t: i64
    q: i64
    a: i64
    for d in steps:
        t = k + d
        q = b[t]
        if q == 0 or q ^ them < 8:
            if attacked:
                a = attacks[t]
                if a >= attacked or t == hidden_a or t == hidden_b:
                    continue
            elif _attacked(b, t, them):
                continue
            codes[n] = (base + t) * 8
            n += 1
    return n


def _add_knight_moves(
    codes: vec[i64], n: i64, b: vec[i64], s: i64, them: i64, checks: i64, k: i64, checker: i64, check_step: i64,
) -> i64:
    """Add from ``codes[n]`` the moves of the (unpinned) knight on ``s`` in target order: to an empty square or one of
    ``them``, and in check (``checks``, :func:`_king_lines`) only those that answer it; the new count."""
    base: i64 = s * CODE_FROM
    targets = _KNIGHT_TARGETS
    j: i64
    for j in range(_KNIGHT_TARGETS_AT[s], _KNIGHT_TARGETS_AT[s + 1]):
        target: i64 = targets[j]
        q: i64 = b[target]
        if (q == 0 or q ^ them < 8) and (checks == 0 or _evades(target, k, checker, check_step)):
            codes[n] = (base + target) * 8
            n += 1
    return n


def _king_lines(
    b: vec[i64], k: i64, us: i64, theirs: i64, checked: bool = True,
) -> tuple[i64, i64, i64, i64, i64, i64]:
    """What the lines through the king of ``us`` on ``k`` hold (``theirs``: the opponent's men, a bitboard): (how
    many pieces give check, the (last) checker's square, the step from the king towards a sliding checker (0 for a
    knight or pawn), the cells behind the king from the first and the second sliding checker (0: none), which it
    would still be attacked on once it steps there, the pinned men as a bitboard (:data:`~plybits.chess.squares.BIT_OF`; each one's line: ``LINE[k * SIZE + s]``)).

    ``checked`` false: the king is known not to be in check (no pawn or knight looked for)."""
    pinned: i64 = 0
    checks: i64 = 0
    checker: i64 = 0
    check_step: i64 = 0  # from the king towards a sliding checker; 0 for a knight or pawn
    # the cells behind the king from each sliding checker: attacked through the king's square once it steps
    hidden_a: i64 = 0
    hidden_b: i64 = 0
    them: i64 = us ^ BLACK
    queen: i64 = them | QUEEN
    steps = _KING_STEP_ARRAY
    ray_bits = _RAYS  # a local: compiled, the module's array is not read and checked again each ray
    rays: i64 = k * 8
    i: i64
    for i in range(8):
        if ray_bits[rays + i] & theirs == 0:  # no enemy man on the line: no check, no pin
            continue
        d: i64 = steps[i]
        slider: i64 = them | (ROOK if d == N or d == S or d == E or d == W else BISHOP)
        t: i64 = k + d
        p: i64 = b[t]
        while p == 0:
            t += d
            p = b[t]
        if p == slider or p == queen:
            checks += 1
            checker = t
            check_step = d
            if hidden_a == 0:
                hidden_a = k - d
            else:
                hidden_b = k - d
        elif p != OFF and p & BLACK == us:
            own: i64 = t
            t += d
            p = b[t]
            while p == 0:
                t += d
                p = b[t]
            if p == slider or p == queen:
                pinned |= BIT_OF[own]
    if not checked:
        return checks, checker, check_step, hidden_a, hidden_b, pinned
    pawn: i64 = them | PAWN
    for step in PAWN_CAPTURES[us >> 3]:  # where the enemy pawns that attack the king stand
        p = b[k + step]
        if p == pawn:
            checks += 1
            checker = k + step
            check_step = 0
    knight: i64 = them | KNIGHT
    for jump in _KNIGHT_JUMPS:  # the border of 2 keeps every jump inside the cells
        p = b[k + jump]
        if p == knight:
            checks += 1
            checker = k + jump
            check_step = 0
    return checks, checker, check_step, hidden_a, hidden_b, pinned


def _add_king_walk(
    codes: vec[i64], n: i64, b: vec[i64], k: i64, rooks: i64, attacks: vec[i64], attacked: i64, hidden_a: i64,
    hidden_b: i64,
) -> i64:
    """Add from ``codes[n]`` the legal moves of the king on ``k``, walked on the cells, in target order: the rank below,
    castling towards a, the steps along its rank, castling towards h, the rank above; the new count. ``rooks``: the
    squares of its rooks that may castle, a bitboard (0 in check); the rest as :func:`_generate_bits` takes them."""
    king: i64 = b[k]
    them: i64 = (king & BLACK) ^ BLACK
    a_rook: i64 = 0
    h_rook: i64 = 0
    row: i64 = rooks & 255 if king < BLACK else rooks >> 56 & 255  # its own back rank's
    while row != 0:
        r: i64 = k - FILE_OF[k] + LOWEST_BIT[row]
        row &= row - 1
        if r < k:
            a_rook = r
        else:
            h_rook = r
    b[k] = EMPTY  # lifted, so that it does not hide the squares behind it from a slider
    try:
        n = _add_king_steps(codes, n, b, k, _KING_STEPS_BELOW, them, attacks, attacked, hidden_a, hidden_b)
        if a_rook:
            n = _add_castling(codes, n, b, k, king, a_rook, attacks, attacked)
        n = _add_king_steps(codes, n, b, k, _KING_STEPS_ALONG, them, attacks, attacked, hidden_a, hidden_b)
        if h_rook:
            n = _add_castling(codes, n, b, k, king, h_rook, attacks, attacked)
        n = _add_king_steps(codes, n, b, k, _KING_STEPS_ABOVE, them, attacks, attacked, hidden_a, hidden_b)
    finally:  # put back even when ``codes`` is full (legal_codes then tries a longer one)
        b[k] = king
    return n


def _castling_targets(b: vec[i64], k: i64, rooks: i64, attacks: vec[i64], attacked: i64) -> i64:
    """The squares of those of ``rooks`` (a bitboard) the king on ``k`` may castle with (:func:`_castling_bit`), as a
    bitboard: castling's targets as :func:`_generate_bits` adds them (king takes rook)."""
    targets: i64 = 0
    row: i64 = rooks & 255 if b[k] < BLACK else rooks >> 56 & 255  # its own back rank's
    while row != 0:
        targets |= _castling_bit(b, k, k - FILE_OF[k] + LOWEST_BIT[row], attacks, attacked)
        row &= row - 1
    return targets


def _add_promotions(codes: vec[i64], n: i64, s: i64, targets: i64) -> i64:
    """Add from ``codes[n]`` the four promotions (knight, bishop, rook, queen) of the pawn on ``s`` to each square of
    ``targets`` (a bitboard of the last rank, which it stands before), ascending; the new count."""
    row: i64 = targets & 255 if targets & 255 != 0 else targets >> 56 & 255
    first: i64 = (s * CODE_FROM + (A1 if targets & 255 != 0 else A1 + 7 * STRIDE)) * 8
    while row != 0:
        key: i64 = first + LOWEST_BIT[row] * 8
        row &= row - 1
        codes[n] = key + KNIGHT
        codes[n + 1] = key + BISHOP
        codes[n + 2] = key + ROOK
        codes[n + 3] = key + QUEEN
        n += 4
    return n


def _generate_bits(
    codes: vec[i64], b: vec[i64], us: i64, k: i64, men: i64, theirs: i64, ep: i64, rooks: i64, checked: bool,
    attacks: vec[i64], attacked: i64,
) -> i64:
    """:func:`~plybits.chess.board._generate` from bitboards (compiled code's way) for ``us``, its king on ``k``, its
    men and ``theirs`` (bitboards), the en passant square ``ep`` (0: none), the rooks that may castle (``rooks``, a
    bitboard), whether it may be in check (``checked``) and the map (as
    :func:`~plybits.chess.board.legal_moves` takes it). Each man's targets are a bitboard, masked by the squares that
    answer a check and its pin's line: a pawn's pushes and captures (en passant tried on the cells), a knight's jumps,
    a slider's attacks (read beside the map when it is the board's buffer, else :func:`slide_bits`); the king's from
    the map or walked."""
    checks, checker, check_step, hidden_a, hidden_b, pinned = _king_lines(
        b, k, us, theirs, checked and (attacked == 0 or attacks[k] >= attacked))  # else no pawn, knight looked for
    kept = attacked != 0 and len(attacks) == 2 * SIZE
    if checks >= 2 and not kept:  # only the king moves (with the map: the loop below, no other man allowed a square)
        return _add_king_walk(codes, 0, b, k, 0, attacks, attacked, hidden_a, hidden_b)
    if checks != 0:
        rooks = 0
    occupied: i64 = men | theirs
    allowed: i64 = ~men & _answer_bits(k, checks, checker, check_step)
    start_rank: i64 = 1 if us == WHITE else 6
    before_last: i64 = 6 if us == WHITE else 1
    jumps = _JUMP_BITS
    bit_of = BIT_OF
    lowest = LOWEST_BIT
    n: i64 = 0
    s: i64
    rank: i64  # of ``s``: counted, not read from RANK_OF (a list: an int object a read)
    for rank in range(8):  # the side's men rank by rank, each rank's by file (a1..h8): no empty square read
        row: i64 = men >> (rank * 8) & 255
        while row != 0:
            s = A1 + rank * STRIDE + lowest[row]
            row &= row - 1
            p: i64 = b[s]
            kind: i64 = p & 7
            mask: i64 = allowed
            if pinned != 0 and pinned & bit_of[s] != 0:  # its line from the king out to the pinner, with it
                mask &= _RAYS[k * 8 + _RAY_OF_STEP[SIZE + LINE[k * SIZE + s]]]
            a: i64
            if kind == PAWN:
                a = jumps[p * SIZE + s]
                e: i64 = 0  # en passant: played on the cells, whatever the masks
                if ep != 0 and a & bit_of[ep] != 0 and _ep_legal(b, s, ep, us, k):
                    e = bit_of[ep]
                # the push a rank up (white) or down, onto an empty square; the double step from there likewise
                push: i64 = (bit_of[s] << 8 if us == WHITE else bit_of[s] >> 8) & ~occupied
                if rank == start_rank:
                    push |= (push << 8 if us == WHITE else push >> 8) & ~occupied
                a = (a & theirs | push) & mask | e
                if rank == before_last:
                    n = _add_promotions(codes, n, s, a)
                    continue
            elif kind == KNIGHT:  # a pinned knight never stays on its line: its pin's mask leaves it no square
                a = jumps[p * SIZE + s] & mask
            elif kind == KING:
                if not kept:
                    n = _add_king_walk(codes, n, b, k, rooks, attacks, attacked, hidden_a, hidden_b)
                    continue
                # its steps onto none of our men, none the opponent attacks (beside the map) nor the cells a sliding
                # checker attacks through it; castling as the rook's square
                a = jumps[p * SIZE + s] & ~men & ~attacks[SIZE] & ~bit_of[hidden_a] & ~bit_of[hidden_b]
                if rooks != 0:
                    a |= _castling_targets(b, k, rooks, attacks, attacked)
            else:
                a = (attacks[SIZE + s] if kept else slide_bits(s, occupied, kind)) & mask
            # a move to each square of ``a``, ascending: a rank at a time, its byte's bits by LOWEST_BIT (no call a man)
            first: i64 = (s * CODE_FROM + A1) * 8
            if a & 0xFFFFFFFF == 0:
                a = a >> 32 & 0xFFFFFFFF
                first += 4 * STRIDE * 8
            while a != 0:
                bits: i64 = a & 255
                while bits != 0:
                    codes[n] = first + lowest[bits] * 8
                    n += 1
                    bits &= bits - 1
                a = a >> 8 & 0xFFFFFFFFFFFFFF
                first += STRIDE * 8
    return n
