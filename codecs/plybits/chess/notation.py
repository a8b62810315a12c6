"""SAN and UCI, read and written, for :class:`~plybits.chess.board.Board`.

SAN reading follows python-chess's leniencies: ``0-0`` for ``O-O``, a missing or
extra ``x``, ``=`` optional before the promotion piece (``e8Q``), lower-case
promotion letters, over-specified moves (``Ng1f3``, ``e2e4``), and trailing
``+``, ``#``, ``!`` and ``?`` marks. The null move is ``--`` (also ``Z0``,
``0000``, ``@@@@``).
"""

from __future__ import annotations

import re

from plybits.chess.board import (
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
    SLIDER_STEPS,
    SQUARE_OF_NAME,
    Board,
    E,
    Move,
    N,
    W,
    castling_rook,
    castling_two_step,
)
from plybits.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, PlybitsError

SAN_REGEX = re.compile(r"^([NBKRQ])?([a-h])?([1-8])?[\-x]?([a-h][1-8])(=?[nbrqkNBRQK])?\Z")
UCI_REGEX = re.compile(r"^([a-h][1-8])([a-h][1-8])([qrbn]?)\Z")
NULL_TOKENS = frozenset(("--", "Z0", "0000", "@@@@"))
KINGSIDE = frozenset(("O-O", "0-0"))
QUEENSIDE = frozenset(("O-O-O", "0-0-0"))
PIECE_LETTERS = " PNBRQK"
_KIND_OF_LETTER = {"N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}
_FILE_INDEX = {letter: index for index, letter in enumerate("abcdefgh")}


def _illegal(board: Board, text: str, why: str = "no legal move matches") -> IllegalMoveError:
    return IllegalMoveError(f"illegal move {text!r} in {board.fen()}: {why}")


def parse_san(board: Board, text: str) -> Move:
    """The legal move (or the null move) that ``text`` writes in SAN.

    :raises InvalidMoveError: on bad syntax; :raises IllegalMoveError: if no legal move matches;
    :raises AmbiguousMoveError: if several do.
    """
    san = text.rstrip("+#!?")
    # the commonest shapes (e4, Nf3, exd5, Nxe5) read without the regex; anything else goes through it
    size = len(san)
    piece = from_file = from_rank = promo = None
    if size == 2 and san in SQUARE_OF_NAME:
        target = san
    elif size == 3 and san[0] in _KIND_OF_LETTER and san[1:] in SQUARE_OF_NAME:
        piece, target = san[0], san[1:]
    elif size == 4 and san[1] == "x" and san[2:] in SQUARE_OF_NAME and (san[0] in _KIND_OF_LETTER or san[0] in _FILE_INDEX):
        target = san[2:]
        if san[0] in _KIND_OF_LETTER:
            piece = san[0]
        else:
            from_file = san[0]
    else:
        if san in KINGSIDE or san in QUEENSIDE:
            return _castle(board, text, san in KINGSIDE)
        match = SAN_REGEX.match(san)
        if not match:
            if san in NULL_TOKENS:
                return NULL_MOVE
            raise InvalidMoveError(f"invalid san: {text!r}")
        piece, from_file, from_rank, target, promo = match.groups()
    to_sq = SQUARE_OF_NAME[target]
    promotion = 0
    if promo:
        letter = promo[-1].lower()
        if letter == "k":
            raise _illegal(board, text, "a pawn cannot promote to a king")
        promotion = PROMOTION_OF_LETTER[letter]
    b = board.cells
    us = board.turn
    if not piece and from_file and from_rank:
        # fully specified (long algebraic, any piece, castling included): as UCI
        from_sq = SQUARE_OF_NAME[from_file + from_rank]
        if not promotion and b[from_sq] == us | PAWN and RANK_OF[to_sq] in (0, 7):
            raise _illegal(board, text, "missing promotion piece type")
        return _find(board, from_sq, to_sq, promotion, text)
    if piece:
        kind = _KIND_OF_LETTER[piece]
    else:
        kind = PAWN
        if not from_file:  # a pawn capture must name its file
            from_file = target[0]
        if not promotion and RANK_OF[to_sq] in (0, 7):
            raise _illegal(board, text, "missing promotion piece type")
    target_piece = b[to_sq]
    if target_piece and target_piece & BLACK == us:
        raise _illegal(board, text, f"{target} holds a piece of the side to move")
    candidates = _origins(board, kind, to_sq)
    if from_file:
        file_index = _FILE_INDEX[from_file]
        candidates = [f for f in candidates if FILE_OF[f] == file_index]
    if from_rank:
        rank_index = int(from_rank) - 1
        candidates = [f for f in candidates if RANK_OF[f] == rank_index]
    checked = board.checked_move
    if len(candidates) == 1:  # the usual case: one piece of that kind can reach the square
        try:
            return checked(candidates[0], to_sq, promotion)
        except IllegalMoveError:
            raise _illegal(board, text) from None
    found = None
    for f in candidates:
        try:
            m = checked(f, to_sq, promotion)
        except IllegalMoveError:
            continue
        if found is not None:
            raise AmbiguousMoveError(f"ambiguous san: {text!r} in {board.fen()}")
        found = m
    if found is None:
        raise _illegal(board, text)
    return found


def _castle(board: Board, text: str, kingside: bool) -> Move:
    """The castling move on the king's side (``kingside``) or the queen's side, if it is legal here."""
    us = board.turn
    k = board.kings[us >> 3]
    back_rank = 0 if us == 0 else 7
    rook = us | ROOK
    b = board.cells
    for r in board.castling:  # at most one castling rook a side
        if RANK_OF[r] == back_rank and b[r] == rook and (r > k) == kingside:
            try:
                return board.checked_move(k, r)
            except IllegalMoveError:
                break
    raise _illegal(board, text, "castling is not legal here")


def _legal(board: Board, f: int, t: int) -> bool:
    try:
        board.checked_move(f, t)
    except IllegalMoveError:
        return False
    return True


def _origins(board: Board, kind: int, to_sq: int) -> list[int]:
    """Squares holding a piece of ``kind`` of the side to move that might move to ``to_sq`` (legality unchecked)."""
    b = board.cells
    us = board.turn
    piece = us | kind
    if kind == PAWN:
        back = -N if us == 0 else N
        out = [s for s in (to_sq + back + E, to_sq + back + W) if b[s] == piece and (b[to_sq] or to_sq == board.ep)]
        one = to_sq + back
        if b[one] == piece:
            out.append(one)
        elif b[one] == 0 and b[one + back] == piece:
            out.append(one + back)
        return out
    if kind == KNIGHT:
        return [to_sq + d for d in KNIGHT_STEPS if b[to_sq + d] == piece]
    if kind == KING:
        return [to_sq + d for d in KING_STEPS if b[to_sq + d] == piece]
    out = []
    for d in SLIDER_STEPS[kind]:
        t = to_sq + d
        p = b[t]
        while p == 0:
            t += d
            p = b[t]
        if p == piece:
            out.append(t)
    return out


def _find(board: Board, from_sq: int, to_sq: int, promotion: int, text: str) -> Move:
    """The legal move from/to/promotion, reading a standard-chess king two-step (or king-takes-rook) as castling."""
    b = board.cells
    us = board.turn
    p = b[from_sq]
    rook = castling_rook(from_sq, to_sq) if not board.chess960 and p == us | KING else -1
    if rook >= 0 and RANK_OF[from_sq] == (0 if us == 0 else 7):
        to_sq = rook
        if b[to_sq] != us | ROOK or to_sq not in board.castling:
            raise _illegal(board, text, "castling is not legal here")
    try:
        return board.checked_move(from_sq, to_sq, promotion)
    except IllegalMoveError as err:
        raise _illegal(board, text, err.reason) from None


def parse_uci(board: Board, text: str) -> Move:
    """The legal move (or the null move ``0000``) that ``text`` writes in UCI.

    Castling is ``e1g1`` in standard chess (``e1h1`` is accepted too) and king-takes-rook in Chess960.

    :raises InvalidMoveError: on bad syntax; :raises IllegalMoveError: if it is not legal here.
    """
    if text == "0000":
        return NULL_MOVE
    match = UCI_REGEX.match(text)
    if not match:
        raise InvalidMoveError(f"invalid uci: {text!r}")
    from_sq = SQUARE_OF_NAME[match.group(1)]
    to_sq = SQUARE_OF_NAME[match.group(2)]
    promotion = PROMOTION_OF_LETTER[match.group(3)] if match.group(3) else 0
    return _find(board, from_sq, to_sq, promotion, text)


def uci(board: Board, m: Move) -> str:
    """``m`` (legal here) in UCI: castling as ``e1g1`` in standard chess, king-takes-rook in Chess960."""
    f, t, promotion = m
    if not f:
        return "0000"
    if promotion:
        return NAMES[f] + NAMES[t] + PROMOTION_LETTERS[promotion]
    if not board.chess960:
        b = board.cells
        p = b[f]
        if p & 7 == KING and b[t] == (p & BLACK) | ROOK:
            return NAMES[f] + NAMES[castling_two_step(f, t)]
    return NAMES[f] + NAMES[t]


def san(board: Board, m: Move) -> str:
    """``m`` (legal here) in SAN, with the least disambiguation needed and a ``+`` or ``#`` mark."""
    f, t, promotion = m
    if not f:
        return "--"
    b = board.cells
    p = b[f]
    kind = p & 7
    if kind == KING and b[t] == (p & BLACK) | ROOK:
        text = "O-O" if t > f else "O-O-O"
    elif kind == PAWN:
        text = NAMES[f][0] + "x" + NAMES[t] if FILE_OF[f] != FILE_OF[t] else NAMES[t]
        if promotion:
            text += "=" + PROMOTION_LETTERS[promotion].upper()
    else:
        rivals = [o for o in _origins(board, kind, t) if o != f and _legal(board, o, t)]
        text = PIECE_LETTERS[kind]
        if rivals:
            if all(FILE_OF[r] != FILE_OF[f] for r in rivals):
                text += NAMES[f][0]
            elif all(RANK_OF[r] != RANK_OF[f] for r in rivals):
                text += NAMES[f][1]
            else:
                text += NAMES[f]
        if b[t]:
            text += "x"
        text += NAMES[t]
    if board.gives_check(m):  # only a check needs the position after it, to tell mate
        after = board.copy(history=False)
        after.push(m)
        text += "#" if not after.legal_moves() else "+"
    return text


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
    if UCI_REGEX.match(text):
        try:
            return parse_uci(board, text)
        except PlybitsError:
            pass
    return parse_san(board, text)


def move_text(board: Board, m: Move, notation: str | None = None) -> str:
    """``m`` written in ``notation`` ("san", the default, or "uci", as the verbs checked)."""
    if notation == "uci":
        return uci(board, m)
    assert notation in (None, "san"), notation
    return san(board, m)


__all__ = ["move_text", "parse_move", "parse_san", "parse_uci", "san", "uci"]
