"""SAN and UCI, read and written, for :class:`~plybits.chess.board.Board`.

SAN reading follows python-chess's leniencies: ``0-0`` for ``O-O``, a missing or
extra ``x``, ``=`` optional before the promotion piece (``e8Q``), lower-case
promotion letters, over-specified moves (``Ng1f3``, ``e2e4``), and trailing
``+``, ``#``, ``!`` and ``?`` marks. The null move is ``--`` (also ``Z0``,
``0000``, ``@@@@``).
"""

from __future__ import annotations

import re
from typing import Any, Final, cast

from librt.vecs import vec
from mypy_extensions import i64

from plybits.chess.board import Board, checked_move, gives_check, has_legal_move, is_check, push
from plybits.chess.movegen import slide_bits
from plybits.chess.squares import (
    BIT_OF,
    BLACK,
    FILE_OF,
    KING,
    KING_STEPS,
    KNIGHT,
    KNIGHT_STEPS,
    NAMES,
    NULL_MOVE,
    PAWN,
    PROMOTION_LETTERS,
    PROMOTION_OF_LETTER,
    RANK_OF,
    ROOK,
    SIZE,
    SLIDER_STEPS,
    SQUARE_OF_NAME,
    SQUARES,
    STRIDE,
    A1,
    E,
    Move,
    N,
    W,
    _JUMP_BITS,
    castling_rook,
    castling_two_step,
    square,
)
from plybits.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, PlybitsError
from plybits.packed import PACKED, int_array
from plybits.replay import MovePlayer

SAN_REGEX = re.compile(r"^([NBKRQ])?([a-h])?([1-8])?[\-x]?([a-h][1-8])(=?[nbrqkNBRQK])?\Z")
UCI_REGEX = re.compile(r"^([a-h][1-8])([a-h][1-8])([qrbn]?)\Z")
NULL_TOKENS = frozenset(("--", "Z0", "0000", "@@@@"))
KINGSIDE = frozenset(("O-O", "0-0"))
QUEENSIDE = frozenset(("O-O-O", "0-0-0"))
PIECE_LETTERS = " PNBRQK"
_KIND_OF_LETTER: Final[dict[str, int]] = {"N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}
_FILE_INDEX: Final[dict[str, int]] = {letter: index for index, letter in enumerate("abcdefgh")}


def _texts(prefix: list[str], infix: str) -> list[str]:
    """``prefix[i] + infix + NAMES[t]`` at ``i * SIZE + t``, for every ``i`` and square ``t`` (else empty)."""
    out = [""] * (len(prefix) * SIZE)
    for i in range(len(prefix)):
        for t in SQUARES:
            out[i * SIZE + t] = prefix[i] + infix + NAMES[t]
    return out


# SAN's commonest words written once, not joined a move (joining strings costs more than a compiled move's rest):
# a piece's move and capture by kind and target, a pawn's capture by origin file and target
_PIECE_TO: Final = _texts(list(PIECE_LETTERS), "")
_PIECE_TAKES: Final = _texts(list(PIECE_LETTERS), "x")
_PAWN_TAKES: Final = _texts(list("abcdefgh"), "x")
_PROMOTION_SUFFIX: Final = ["=" + PROMOTION_LETTERS[p].upper() if p in PROMOTION_LETTERS else "" for p in range(8)]
# and UCI's: the two squares of a move by origin and target (a promotion adds its letter)
_UCI_SQUARES: Final = [NAMES[f] + NAMES[t] if NAMES[f] and NAMES[t] else "" for f in range(SIZE) for t in range(SIZE)]

# What a SAN token says, before any position is looked at, packed in one int (:func:`_san_syntax`): the piece
# letter's kind (0: none), the origin file and rank given (each + 1, 0: not given), the promotion kind asked
# (0: none; KING is asked too, and refused later) and the target square; castling and the null move as negatives.
_FILE_SHIFT: Final = 3
_RANK_SHIFT: Final = 7
_PROMOTION_SHIFT: Final = 11
_TARGET_SHIFT: Final = 14
_KINGSIDE_CODE: Final = -1
_QUEENSIDE_CODE: Final = -2
_NULL_CODE: Final = -3
SAN_CACHE_SIZE: Final = 4096
"""How many distinct SAN tokens, and UCI tokens, keep their read syntax (a game repeats its tokens; the store
stays bounded)."""
_SAN_SYNTAX: Final[dict[str, int]] = {}
_UCI_SYNTAX: Final[dict[str, int]] = {}
"""A UCI token's squares and promotion: from | to << 8 | promotion << 16."""
_READ_AS_SAN: Final[dict[str, int]] = {}
"""The SAN syntax of tokens that :func:`parse_move` reads as SAN when no notation is named (not UCI-like)."""


def _illegal(board: Board, text: str, why: str = "no legal move matches") -> IllegalMoveError:
    return IllegalMoveError(f"illegal move {text!r} in {board.fen()}: {why}")


def _read_san_syntax(text: str) -> int:
    """The packed syntax of the SAN token ``text`` (see :data:`_SAN_SYNTAX`).

    :raises InvalidMoveError: on bad syntax.
    """
    san = text.rstrip("+#!?")
    # the commonest shapes (e4, Nf3, exd5, Nxe5) read without the regex; anything else goes through it
    size = len(san)
    letter = ""
    from_file = -1
    from_rank = -1
    promotion = 0
    if size == 2 and san in SQUARE_OF_NAME:
        target = san
    elif size == 3 and san[0] in _KIND_OF_LETTER and san[1:] in SQUARE_OF_NAME:
        letter, target = san[0], san[1:]
    elif size == 4 and san[1] == "x" and san[2:] in SQUARE_OF_NAME and (san[0] in _KIND_OF_LETTER or san[0] in _FILE_INDEX):
        target = san[2:]
        if san[0] in _KIND_OF_LETTER:
            letter = san[0]
        else:
            from_file = _FILE_INDEX[san[0]]
    else:
        if san in KINGSIDE:
            return _KINGSIDE_CODE
        if san in QUEENSIDE:
            return _QUEENSIDE_CODE
        match = SAN_REGEX.match(san)
        if not match:
            if san in NULL_TOKENS:
                return _NULL_CODE
            raise InvalidMoveError(f"invalid san: {text!r}")
        given_letter, given_file, given_rank, target, promo = match.groups()
        letter = given_letter or ""
        if given_file:
            from_file = _FILE_INDEX[given_file]
        if given_rank:
            from_rank = int(given_rank) - 1
        if promo:
            promotion_letter = promo[-1].lower()
            promotion = KING if promotion_letter == "k" else PROMOTION_OF_LETTER[promotion_letter]
    kind = _KIND_OF_LETTER[letter] if letter else 0
    return (kind | (from_file + 1) << _FILE_SHIFT | (from_rank + 1) << _RANK_SHIFT
            | promotion << _PROMOTION_SHIFT | SQUARE_OF_NAME[target] << _TARGET_SHIFT)


_KIND_OF_CODE: Final = int_array([_KIND_OF_LETTER.get(chr(c), 0) for c in range(128)])
"""A piece letter's kind by the letter's character code (0: no piece letter), for :func:`_plain_san`."""


def _plain_san(text: str) -> i64:
    """:func:`_read_san_syntax` of a token of the commonest shapes (``e4``, ``Nf3``, ``exd5``, ``Nxe5``, each bare or
    with one ``+`` or ``#``), read from its characters' codes; 0 for any other token (then the caches and the full
    reader tell). Compiled, a code is read in place: no string made and none hashed, where the caches' lookup hashes
    each token, new from the movetext's split (pure Python's lookup is cheaper than this: it does not call it). Its
    integers are i64 and its choices statements (a conditional expression mixing i64 and int boxes compiled)."""
    size: i64 = len(text)
    if size < 2 or size > 5:
        return 0
    last: i64 = ord(text[size - 1])
    if last == 43 or last == 35:  # "+" or "#"
        size -= 1
    if size < 2 or size > 4:
        return 0
    rank: i64 = ord(text[size - 1])
    file: i64 = ord(text[size - 2])
    if rank < 49 or rank > 56 or file < 97 or file > 104:  # "1" .. "8", "a" .. "h"
        return 0
    code: i64 = (A1 + (rank - 49) * STRIDE + file - 97) << _TARGET_SHIFT
    if size == 2:
        return code
    first: i64 = ord(text[0])
    if first >= 128:
        return 0
    kind: i64 = _KIND_OF_CODE[first]
    if size == 3:
        if kind:
            return code | kind
        return 0
    if ord(text[1]) != 120:  # "x"
        return 0
    if kind:
        return code | kind
    if 97 <= first <= 104:  # a pawn's capture: its file
        return code | (first - 96) << _FILE_SHIFT
    return 0


def _san_syntax(text: str) -> int:
    """:func:`_read_san_syntax`, kept for the next time ``text`` comes."""
    code = _SAN_SYNTAX.get(text, 0)
    return code if code else _keep(_SAN_SYNTAX, text, _read_san_syntax(text))


def _keep(kept: dict[str, int], text: str, code: int) -> int:
    """``code``, kept in ``kept`` as the syntax of ``text`` while it holds fewer than :data:`SAN_CACHE_SIZE`."""
    if len(kept) < SAN_CACHE_SIZE:
        kept[text] = code
    return code


def parse_san(board: Board, text: str) -> Move:
    """The legal move (or the null move) that ``text`` writes in SAN.

    :raises InvalidMoveError: on bad syntax; :raises IllegalMoveError: if no legal move matches;
    :raises AmbiguousMoveError: if several do.
    """
    code = _san_syntax(text)
    if code < 0:
        if code == _NULL_CODE:
            return NULL_MOVE
        return _castle(board, text, code == _KINGSIDE_CODE)
    letter = code & 7
    from_file = (code >> _FILE_SHIFT & 15) - 1
    from_rank = (code >> _RANK_SHIFT & 15) - 1
    promotion = code >> _PROMOTION_SHIFT & 7
    to_sq = code >> _TARGET_SHIFT
    if promotion == KING:
        raise _illegal(board, text, "a pawn cannot promote to a king")
    b: vec[i64] = board.cells
    us = board.turn
    last_rank = RANK_OF[to_sq] == 0 or RANK_OF[to_sq] == 7
    if letter == 0 and from_file >= 0 and from_rank >= 0:
        # fully specified (long algebraic, any piece, castling included): as UCI
        from_sq = square(from_file, from_rank)
        if not promotion and b[from_sq] == us | PAWN and last_rank:
            raise _illegal(board, text, "missing promotion piece type")
        return _find(board, from_sq, to_sq, promotion, text)
    if letter:
        kind = letter
    else:
        kind = PAWN
        if from_file < 0:  # a pawn capture must name its file
            from_file = FILE_OF[to_sq]
        if not promotion and last_rank:
            raise _illegal(board, text, "missing promotion piece type")
    target_piece = b[to_sq]
    if target_piece and target_piece & BLACK == us:
        raise _illegal(board, text, f"{NAMES[to_sq]} holds a piece of the side to move")
    found: Move | None = None
    for f in _candidates(board, kind, to_sq, from_file, from_rank):
        try:
            m = checked_move(board, f, to_sq, promotion)
        except IllegalMoveError:
            continue
        if found is not None:
            raise AmbiguousMoveError(f"ambiguous san: {text!r} in {board.fen()}")
        found = m
    if found is None:
        raise _illegal(board, text)
    return found


def san_index(board: Board, text: str, notation: str | None, codes: vec[i64], n: int) -> int:
    """The index among the first ``n`` of ``codes`` (the legal moves' :func:`~plybits.chess.squares.move_code`, as
    the ``rank`` model lists them) of the move that :func:`parse_move` reads ``text`` in ``notation`` as, found
    there without checking a move again (castling and the null move too, as their codes); -1 where
    :func:`parse_move` must tell: a token it would read as UCI, long algebraic, bad syntax, no match or several
    (its move, or its error). A UCI token (``notation`` "uci", or ``None`` and the token looks like UCI, as
    :func:`parse_move` tries it first) is looked up by :func:`_uci_index`."""
    if notation == "uci" or (notation is None and _may_be_uci(text) and UCI_REGEX.match(text)):
        return _uci_index(board, text, codes, n)
    code: i64 = 0  # an i64: compiled, the fields below are C shifts and masks, not tagged-int calls
    if PACKED:
        code = _plain_san(text)
    if not code:
        code = (_SAN_SYNTAX if notation is not None else _READ_AS_SAN).get(text, 0)
    if not code:
        try:
            code = _san_syntax(text)
        except InvalidMoveError:
            return -1
        if notation is None:
            _keep(_READ_AS_SAN, text, code)
    if code < 0:
        if code == _NULL_CODE:
            return _code_index(codes, n, 0)
        r = _castling_rook(board, code == _KINGSIDE_CODE)
        return _code_index(codes, n, (board.kings[board.turn >> 3] << 8 | r) << 3) if r >= 0 else -1
    kind: i64 = code & 7
    from_file: i64 = (code >> _FILE_SHIFT & 15) - 1
    from_rank: i64 = (code >> _RANK_SHIFT & 15) - 1
    promotion: i64 = code >> _PROMOTION_SHIFT & 7
    to_sq: i64 = code >> _TARGET_SHIFT
    if kind == 0:
        if from_file >= 0 and from_rank >= 0:  # long algebraic: parse_san reads it as UCI
            return -1
        kind = PAWN
        if from_file < 0:  # a pawn capture must name its file
            from_file = FILE_OF[to_sq]
    target = board.cells[to_sq]
    if target and target & BLACK == board.turn:  # parse_san's error (a king-takes-rook castling code is no SAN move)
        return -1
    if PACKED:
        return _matching_index(board, codes, n, kind, to_sq, promotion, from_file, from_rank)
    # pure Python: parse_san's candidates, each looked up among the codes by the list's own search (a loop over the
    # codes costs a bytecode a code there); a code is (from * 256 + to) * 8 + promotion (legal_codes)
    found = -1
    for f in _candidates(board, kind, to_sq, from_file, from_rank):
        i = _code_index(codes, n, (f << 8 | to_sq) << 3 | promotion)
        if i < 0:
            continue
        if found >= 0:  # ambiguous: parse_san's error
            return -1
        found = i
    return found


def _matching_index(
    board: Board, codes: vec[i64], n: int, kind: i64, to_sq: i64, promotion: i64, from_file: i64, from_rank: i64,
) -> int:
    """The index among the first ``n`` of ``codes`` of the one legal move of a piece of ``kind`` to ``to_sq`` with
    ``promotion`` from ``from_file`` and ``from_rank`` (-1: any; a pawn's file is always given), or -1 (none, or
    several: ambiguous): :func:`san_index`'s compiled search, one pass over the codes in C integers (where the
    candidates' walk built a list of squares and looked each up among the codes)."""
    tail: i64 = to_sq << 3 | promotion
    b: vec[i64] = board.cells
    found: i64 = -1
    count: i64 = n
    i: i64
    for i in range(count):
        code: i64 = codes[i]
        if code & 2047 == tail:
            f: i64 = code >> 11
            if (b[f] & 7 == kind and (from_file < 0 or FILE_OF[f] == from_file)
                    and (from_rank < 0 or RANK_OF[f] == from_rank)):
                if kind == PAWN or kind == KING:  # the one move there can be: a second pawn is behind the first
                    return i
                if found >= 0:
                    return -1
                found = i
    return found


def _uci_index(board: Board, text: str, codes: vec[i64], n: int) -> int:
    """:func:`san_index` of a UCI token: the index among the codes of the move :func:`parse_uci` reads (a standard-chess
    king two-step, or king-takes-rook, as castling: :func:`_find`'s reading), or -1 where it must tell (the null move,
    bad syntax, a move not among them)."""
    code = _UCI_SYNTAX.get(text, 0)
    if not code:
        if not UCI_REGEX.match(text):
            return -1
        code = _keep(_UCI_SYNTAX, text, _read_uci_syntax(text))
    from_sq = code & 255
    to_sq = code >> 8 & 255
    rook = _uci_castling_rook(board, from_sq, to_sq)
    if rook >= 0:
        to_sq = rook
    return _code_index(codes, n, (from_sq << 8 | to_sq) << 3 | code >> 16)


def _code_index(codes: vec[i64], n: int, code: int) -> int:
    """The index of ``code`` among the first ``n`` of ``codes``, or -1: a loop of C integers compiled, the list's
    own search in pure Python (whose loop would cost a bytecode an item)."""
    if not PACKED:
        try:
            return cast("list[int]", codes).index(code, 0, n)
        except ValueError:
            return -1
    wanted: i64 = code
    count: i64 = n
    i: i64
    for i in range(count):
        if codes[i] == wanted:
            return i
    return -1


def _candidates(board: Board, kind: int, to_sq: int, from_file: int, from_rank: int) -> list[int]:
    """The squares holding a piece of ``kind`` of the side to move that might move to ``to_sq`` (legality unchecked)
    on ``from_file`` and ``from_rank`` (-1: any): where a SAN move may come from."""
    origins: list[int] = []
    if kind == PAWN:
        _pawn_origins(board, to_sq, origins)
    else:
        _piece_origins(board, kind, to_sq, origins)
    return [f for f in origins if (from_file < 0 or FILE_OF[f] == from_file)
            and (from_rank < 0 or RANK_OF[f] == from_rank)]


def _castle(board: Board, text: str, kingside: bool) -> Move:
    """The castling move on the king's side (``kingside``) or the queen's side, if it is legal here."""
    r = _castling_rook(board, kingside)
    if r >= 0:
        try:
            return checked_move(board, board.kings[board.turn >> 3], r)
        except IllegalMoveError:
            pass
    raise _illegal(board, text, "castling is not legal here")


def _castling_rook(board: Board, kingside: bool) -> int:
    """The square of the side to move's castling rook on the king's side (``kingside``) or the queen's side
    (castling is the king's move onto it); -1: none."""
    us = board.turn
    k = board.kings[us >> 3]
    back_rank = 0 if us == 0 else 7
    rook = us | ROOK
    b = board.cells
    for r in board.castling:  # at most one castling rook a side
        if RANK_OF[r] == back_rank and b[r] == rook and (r > k) == kingside:
            return r
    return -1


def _legal(board: Board, f: int, t: int) -> bool:
    try:
        checked_move(board, f, t)
    except IllegalMoveError:
        return False
    return True


_JUMPS: Final = [int_array(list(KNIGHT_STEPS) if kind == KNIGHT else list(KING_STEPS) if kind == KING
                            else list(SLIDER_STEPS.get(kind, ()))) for kind in range(8)]
"""The steps of a piece of each kind (a knight's and a king's jumps, a slider's directions) as
:func:`~plybits.packed.int_array`: compiled, :func:`_piece_origins` walks them as C integers (where a tuple's items are
int objects, and a dictionary lookup found a slider's)."""


def _pawn_origins(board: Board, to_sq: int, out: list[int]) -> None:
    """The squares holding a pawn of the side to move that might move to ``to_sq`` (legality unchecked), appended
    to ``out``."""
    b: vec[i64] = board.cells
    us: i64 = board.turn
    piece: i64 = us | PAWN
    target: i64 = to_sq  # the walks below in C integers, not int objects
    back: i64 = -N if us == 0 else N
    one = target + back
    if b[target] or to_sq == board.ep:
        if b[one + E] == piece:
            out.append(one + E)
        if b[one + W] == piece:
            out.append(one + W)
    if b[one] == piece:
        out.append(one)
    elif b[one] == 0 and b[one + back] == piece:
        out.append(one + back)


def _piece_origins(board: Board, kind: int, to_sq: int, out: list[int] | None) -> int:
    """How many squares hold a piece of ``kind`` (not a pawn) of the side to move that might move to ``to_sq``
    (legality unchecked), each appended to ``out`` unless it is ``None`` (a count without a list)."""
    b: vec[i64] = board.cells
    piece: i64 = board.turn | kind
    target: i64 = to_sq  # the walks below in C integers, not int objects
    seen: i64 = 0
    steps = _JUMPS[kind]
    if kind == KNIGHT or kind == KING:
        for step in steps:
            s: i64 = target + step
            if b[s] == piece:
                seen += 1
                if out is not None:
                    out.append(s)
        return seen
    for step in steps:
        d: i64 = step
        t: i64 = target + d
        p = b[t]
        while p == 0:
            t += d
            p = b[t]
        if p == piece:
            seen += 1
            if out is not None:
                out.append(t)
    return seen


def _uci_castling_rook(board: Board, from_sq: int, to_sq: int) -> int:
    """The rook's cell of the castling a UCI move from/to writes: a standard-chess king's two-step (or king-takes-rook)
    from its back rank (:func:`~plybits.chess.squares.castling_rook`); -1 for any other move."""
    us = board.turn
    if board.chess960 or board.cells[from_sq] != us | KING or RANK_OF[from_sq] != (0 if us == 0 else 7):
        return -1
    return castling_rook(from_sq, to_sq)


def _find(board: Board, from_sq: int, to_sq: int, promotion: int, text: str) -> Move:
    """The legal move from/to/promotion, reading a standard-chess king two-step (or king-takes-rook) as castling
    (:func:`_uci_castling_rook`)."""
    rook = _uci_castling_rook(board, from_sq, to_sq)
    if rook >= 0:
        to_sq = rook
        us = board.turn
        if board.cells[to_sq] != us | ROOK or to_sq not in board.castling:
            raise _illegal(board, text, "castling is not legal here")
    try:
        return checked_move(board, from_sq, to_sq, promotion)
    except IllegalMoveError as err:
        raise _illegal(board, text, err.reason) from None


def parse_uci(board: Board, text: str) -> Move:
    """The legal move (or the null move ``0000``) that ``text`` writes in UCI.

    Castling is ``e1g1`` in standard chess (``e1h1`` is accepted too) and king-takes-rook in Chess960.

    :raises InvalidMoveError: on bad syntax; :raises IllegalMoveError: if it is not legal here.
    """
    if text == "0000":
        return NULL_MOVE
    code = _UCI_SYNTAX.get(text, 0)
    if not code:
        code = _keep(_UCI_SYNTAX, text, _read_uci_syntax(text))
    return _find(board, code & 255, code >> 8 & 255, code >> 16, text)


def _read_uci_syntax(text: str) -> int:
    """The squares and promotion of the UCI token ``text``, packed (see :data:`_UCI_SYNTAX`).

    :raises InvalidMoveError: on bad syntax.
    """
    match = UCI_REGEX.match(text)
    if not match:
        raise InvalidMoveError(f"invalid uci: {text!r}")
    promotion = PROMOTION_OF_LETTER[match.group(3)] if match.group(3) else 0
    return SQUARE_OF_NAME[match.group(1)] | SQUARE_OF_NAME[match.group(2)] << 8 | promotion << 16


def uci(board: Board, m: Move) -> str:
    """``m`` (legal here) in UCI: castling as ``e1g1`` in standard chess, king-takes-rook in Chess960."""
    f, t, promotion = m
    if not f:
        return "0000"
    if promotion:
        return _UCI_SQUARES[f * SIZE + t] + PROMOTION_LETTERS[promotion]
    if not board.chess960:
        b = board.cells
        p = b[f]
        if p & 7 == KING and b[t] == (p & BLACK) | ROOK:
            return _UCI_SQUARES[f * SIZE + castling_two_step(f, t)]
    return _UCI_SQUARES[f * SIZE + t]


def san(board: Board, m: Move) -> str:
    """``m`` (legal here) in SAN, with the least disambiguation needed and a ``+`` or ``#`` mark."""
    if not m[0]:
        return "--"
    text = _san_stem(board, m)
    if gives_check(board, m):  # only a check needs the position after it, to tell mate
        after = board.copy(history=False)
        push(after, m)
        text += "+" if has_legal_move(after) else "#"
    return text


_UCI: Final = "uci"
_SAN: Final = "san"


def play_text(board: Board, m: Move, notation: str | None = None) -> str:
    """``m`` (legal here) written in ``notation`` (as :func:`move_text` writes it), then played on ``board``: what a
    replay that writes each move calls (:meth:`~plybits.rank.RankScheme.decode_texts`). A SAN check mark is read
    from the position the move is played to anyway (no copy of the board, no look at the check before it)."""
    # each notation found by its (interned) string's identity first: compared, two different strings' bytes are read
    if notation is _UCI or (notation is not _SAN and notation is not None and notation != "san"):
        if notation != "uci":
            raise AssertionError(notation)
        text = uci(board, m)
        push(board, m)
        return text
    if not m[0]:
        push(board, m)
        return "--"
    text = _san_stem(board, m)
    push(board, m)
    if is_check(board):
        text += "+" if has_legal_move(board) else "#"
    return text


class _Player(MovePlayer):
    """Chess's :class:`~plybits.replay.MovePlayer`: :func:`~plybits.chess.board.push` and :func:`play_text`, called
    natively by the compiled replays."""

    # the base's signatures (Any): compiled, an override of other types would be reached through a glue method
    def push(self, position: Any, move: Any) -> None:
        push(position, move)

    def play_text(self, position: Any, move: Any, notation: str | None) -> str:
        return play_text(position, move, notation)


PLAYER: Final = _Player()
"""What the replays play and write this module's moves with (:func:`plybits.replay.player_of`)."""


def _san_stem(board: Board, m: Move) -> str:
    """``m`` (legal here, not the null move) in SAN without its check mark."""
    f, t, promotion = m
    b: vec[i64] = board.cells
    p = b[f]
    kind = p & 7
    if kind == KING and b[t] == (p & BLACK) | ROOK:
        text = "O-O" if t > f else "O-O-O"
    elif kind == PAWN:
        text = _PAWN_TAKES[FILE_OF[f] * SIZE + t] if FILE_OF[f] != FILE_OF[t] else NAMES[t]
        if promotion:
            text += _PROMOTION_SUFFIX[promotion]
    else:
        # one king: never a rival; no other piece that might reach t (most moves): none either (compiled, found on
        # bitboards; pure Python counts without a list)
        rivals = (_rivals(board, kind, f, t) if kind != KING and (_other_reaches(board, kind, f, t) if PACKED
                                                                 else _piece_origins(board, kind, t, None) > 1)
                  else 0)
        if rivals:
            text = PIECE_LETTERS[kind]
            if not rivals & _SAME_FILE:
                text += NAMES[f][0]
            elif not rivals & _SAME_RANK:
                text += NAMES[f][1]
            else:
                text += NAMES[f]
            text += "x" + NAMES[t] if b[t] else NAMES[t]
        else:
            text = _PIECE_TAKES[kind * SIZE + t] if b[t] else _PIECE_TO[kind * SIZE + t]
    return text


_DE_BRUIJN: Final = 0x03F79D71B4CB0A89
_SQUARE_OF_BIT: Final = int_array([0] * 64)
"""_SQUARE_OF_BIT[(bit * _DE_BRUIJN) >> 58 & 63]: the square of a bitboard's one ``bit`` (:data:`BIT_OF`), found by a
multiplication (whose carries out of 64 bits do not matter) and a look-up."""
for _s in SQUARES:
    _SQUARE_OF_BIT[(BIT_OF[_s] * _DE_BRUIJN) >> 58 & 63] = _s


def _other_reaches(board: Board, kind: i64, f: i64, t: i64) -> bool:
    """Whether a piece of ``kind`` (a knight or a slider) of the side to move other than the one on ``f`` might move to
    ``t`` (legality unchecked), as :func:`_piece_origins` counts more than one, found without walking a ray: the men
    of the side to move that a piece of ``kind`` on ``t`` would reach (a jump table's, or
    :func:`~plybits.chess.movegen.slide_bits`), each looked at. Compiled only: its bitboards' ``&`` and ``-`` are not
    specialised in pure Python."""
    men: vec[i64] = board.men
    us: i64 = board.turn
    piece: i64 = us | kind
    reach: i64 = _JUMP_BITS[piece * SIZE + t] if kind == KNIGHT else slide_bits(t, men[0] | men[1], kind)
    others: i64 = reach & men[us >> 3] & ~BIT_OF[f]
    b: vec[i64] = board.cells
    while others:
        bit: i64 = others & -others
        if b[_SQUARE_OF_BIT[(bit * _DE_BRUIJN) >> 58 & 63]] == piece:
            return True
        others ^= bit
    return False


_RIVAL: Final = 1
_SAME_FILE: Final = 2
_SAME_RANK: Final = 4


def _rivals(board: Board, kind: int, f: int, t: int) -> int:
    """What SAN must tell apart for the move of the piece of ``kind`` (not a pawn) from ``f`` to ``t``: 0 when no
    other piece of the side to move has a legal move of that kind to ``t``; else :data:`_RIVAL`, with
    :data:`_SAME_FILE` when a rival stands on ``f``'s file and :data:`_SAME_RANK` when one stands on its rank.
    The squares of :func:`_piece_origins`, each checked legal."""
    origins: list[int] = []
    _piece_origins(board, kind, t, origins)
    found = 0
    for o in origins:
        if o != f and _legal(board, o, t):
            found |= _RIVAL
            if FILE_OF[o] == FILE_OF[f]:
                found |= _SAME_FILE
            if RANK_OF[o] == RANK_OF[f]:
                found |= _SAME_RANK
    return found


def parse_move(board: Board, text: str, notation: str | None = None) -> Move:
    """``text`` in ``notation`` ("san" or "uci", as the verbs checked); ``None`` tries UCI when it looks like UCI,
    else SAN.

    :raises InvalidMoveError: on bad syntax; :raises IllegalMoveError: if illegal.
    """
    if notation == "san":
        return parse_san(board, text)
    if notation == "uci":
        return parse_uci(board, text)
    assert notation is None, notation
    if _may_be_uci(text) and UCI_REGEX.match(text):
        try:
            return parse_uci(board, text)
        except PlybitsError:
            pass
    return parse_san(board, text)


def _may_be_uci(text: str) -> bool:
    """Whether ``text`` has the length and the rank digit second that every UCI move has (most SAN moves have
    not: ``e4``, ``Nf3``, ``exd5``), so that only such tokens are matched against :data:`UCI_REGEX`."""
    return 4 <= len(text) <= 5 and "1" <= text[1] <= "8"


def move_text(board: Board, m: Move, notation: str | None = None) -> str:
    """``m`` written in ``notation`` ("san", the default, or "uci", as the verbs checked)."""
    if notation == "uci":
        return uci(board, m)
    assert notation in (None, "san"), notation
    return san(board, m)


__all__ = ["move_text", "parse_move", "parse_san", "parse_uci", "play_text", "san", "san_index", "uci"]
