"""Xiangqi move notations: ICCS (``h2e2``), WXF (``C2=5``) and Chinese (``炮二平五``).

Writing follows one convention per notation (see docs/xiangqi.md):

* ICCS: lower case, no dash (``h2e2``), as UCCI engines and the data files write it.
* WXF: as Fairy-Stockfish writes it: piece letter ``K A E H R C P``, the file
  counted from the mover's right, ``+``/``-``/``=`` and the file or the number
  of ranks; two pieces of a kind on one file are told apart by ``+``/``-``
  after the letter (``R+=6``) when the other could make the same step, three or
  more (or two on each of two files) by their place from the front and the file
  instead of the letter (``27=8``).
* Chinese: the names 帅仕相马车炮兵 / 将士象马车炮卒, red's files and steps in
  Chinese numerals, black's in full-width Arabic digits (``马８进７``), as
  cchess and xqbase write them; 前/中/后 for several pieces of a kind on a file.

Reading accepts more: ``H2-E2``; WXF ``C2.5``, ``+C=5``, ``N``/``B`` for
horse/elephant; Chinese traditional characters (``傌俥炮進後``…), ASCII,
full-width or Chinese digits for either side. A move is read by matching what
the text says against every legal move, so a move that the text names
unambiguously is accepted even where the writer would add more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from plybits.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from plybits.xiangqi.board import (
    ADVISOR,
    BLACK,
    CANNON,
    CHARIOT,
    ELEPHANT,
    FILE_OF,
    HORSE,
    KING,
    RANK_OF,
    RED,
    SOLDIER,
    Board,
    Move,
    square,
)

NOTATIONS: Final = ("iccs", "wxf", "chinese")

WXF_LETTERS: Final = {KING: "K", ADVISOR: "A", ELEPHANT: "E", HORSE: "H", CHARIOT: "R", CANNON: "C", SOLDIER: "P"}
_WXF_KINDS: Final = {"K": KING, "A": ADVISOR, "E": ELEPHANT, "B": ELEPHANT, "H": HORSE, "N": HORSE,
                     "R": CHARIOT, "C": CANNON, "P": SOLDIER}

CHINESE_NAMES: Final = {
    RED: {KING: "帅", ADVISOR: "仕", ELEPHANT: "相", HORSE: "马", CHARIOT: "车", CANNON: "炮", SOLDIER: "兵"},
    BLACK: {KING: "将", ADVISOR: "士", ELEPHANT: "象", HORSE: "马", CHARIOT: "车", CANNON: "炮", SOLDIER: "卒"},
}
CHINESE_NUMERALS: Final = "一二三四五六七八九"
FULLWIDTH_DIGITS: Final = "１２３４５６７８９"
_NAME_KINDS: Final = {
    "帅": KING, "帥": KING, "将": KING, "將": KING,
    "仕": ADVISOR, "士": ADVISOR,
    "相": ELEPHANT, "象": ELEPHANT,
    "马": HORSE, "馬": HORSE, "傌": HORSE, "码": HORSE, "碼": HORSE,
    "车": CHARIOT, "車": CHARIOT, "俥": CHARIOT, "砗": CHARIOT, "硨": CHARIOT,
    "炮": CANNON, "砲": CANNON, "包": CANNON,
    "兵": SOLDIER, "卒": SOLDIER,
}
_OPS: Final = {"进": "+", "進": "+", "退": "-", "平": "="}
_CHINESE_OP_TEXT: Final = {"+": "进", "-": "退", "=": "平"}
_FRONT_BACK: Final = {"前": "front", "后": "rear", "後": "rear", "中": "middle"}


def _digit(ch: str) -> int | None:
    """1..9 from an ASCII, full-width or Chinese digit; ``None`` otherwise."""
    if "1" <= ch <= "9":
        return ord(ch) - ord("0")
    if ch in FULLWIDTH_DIGITS:
        return FULLWIDTH_DIGITS.index(ch) + 1
    if ch in CHINESE_NUMERALS:
        return CHINESE_NUMERALS.index(ch) + 1
    return None


def _numeral(color: int, n: int) -> str:
    return CHINESE_NUMERALS[n - 1] if color == RED else FULLWIDTH_DIGITS[n - 1]


def file_number(color: int, file: int) -> int:
    """A file as its side counts it: 1..9 from that side's right."""
    return 9 - file if color == RED else file + 1


@dataclass(frozen=True)
class Described:
    """What the notations say about a move: the piece, where it stands among its kind, and the step."""

    kind: int
    color: int
    file: int
    """From-file, counted from the mover's right (1..9)."""
    index: int
    """0-based place among the mover's pieces of this kind on this file, front first."""
    count: int
    """How many of the mover's pieces of this kind stand on this file."""
    multi: bool
    """Whether two or more files each hold two or more of these pieces."""
    op: str
    """``+`` forward, ``-`` backward, ``=`` along the rank."""
    dest: int
    """Ranks moved (a move along the file) or the to-file counted from the mover's right: the last number
    of both WXF and Chinese (advisors, elephants and horses always change file)."""


def _op_dest(color: int, frm: int, to: int) -> tuple[str, int]:
    """The direction sign and the last number of a move by ``color``."""
    f, r, tf, tr = FILE_OF[frm], RANK_OF[frm], FILE_OF[to], RANK_OF[to]
    ahead = (tr - r) if color == RED else (r - tr)
    op = "=" if ahead == 0 else ("+" if ahead > 0 else "-")
    return op, (abs(tr - r) if tf == f else file_number(color, tf))


def describe(board: Board, move: Move) -> Described:
    """The notation-relevant facts of ``move`` (a move of the side to move)."""
    cells = board.cells
    frm, to = move.from_square, move.to_square
    piece = cells[frm]
    kind, color = piece & 7, piece & BLACK
    f, r = FILE_OF[frm], RANK_OF[frm]
    tf, tr = FILE_OF[to], RANK_OF[to]
    ranks = [RANK_OF[i] for i in (square(f, rr) for rr in range(10)) if cells[i] == piece]
    ahead = sum(1 for rr in ranks if (rr > r if color == RED else rr < r))
    files_with_pairs = 0
    for ff in range(9):
        n = 0
        for rr in range(10):
            if cells[square(ff, rr)] == piece:
                n += 1
        if n >= 2:
            files_with_pairs += 1
    forward_steps = (tr - r) if color == RED else (r - tr)
    op = "=" if tr == r else ("+" if forward_steps > 0 else "-")
    dest = abs(tr - r) if tf == f else file_number(color, tf)
    return Described(kind, color, file_number(color, f), ahead, len(ranks), files_with_pairs >= 2, op, dest)


# ---- ICCS ------------------------------------------------------------------------------------------------

_ICCS = re.compile(r"^[a-iA-I][0-9]-?[a-iA-I][0-9]$")


def write_iccs(board: Board, move: Move) -> str:
    """``h2e2``."""
    return move.iccs()


_ICCS_MOVES: Final[dict[str, Move]] = {}
"""Moves by their ICCS text as :func:`write_iccs` writes it, kept as :func:`parse_iccs` reads them (at most one
entry a move): the text of a move read before skips the syntax checks."""


def parse_iccs(board: Board, text: str) -> Move:
    """The legal move written ``h2e2`` or ``H2-E2``.

    :raises InvalidMoveError: on bad syntax; :raises IllegalMoveError: if not legal here.
    """
    move = _ICCS_MOVES.get(text)
    if move is None:
        if not _ICCS.match(text.strip()):
            raise InvalidMoveError(f"not an ICCS move: {text!r}")
        move = Move.from_iccs(text)
        if move.iccs() == text:
            _ICCS_MOVES[text] = move
    if not board.is_legal(move):
        raise IllegalMoveError(f"illegal move {text!r}")
    return move


# ---- WXF -------------------------------------------------------------------------------------------------

def write_wxf(board: Board, move: Move) -> str:
    """WXF as Fairy-Stockfish writes it (``C2=5``, ``R+=6``, ``27=8``)."""
    d = describe(board, move)
    if d.count >= (2 if d.multi else 3):
        return f"{d.index + 1}{d.file}{d.op}{d.dest}"
    letter = WXF_LETTERS[d.kind]
    where = str(d.file)
    if d.count == 2 and not d.multi and _other_could_step(board, move):
        where = "+" if d.index == 0 else "-"
    return f"{letter}{where}{d.op}{d.dest}"


def _other_could_step(board: Board, move: Move) -> bool:
    """Whether the other piece of the tandem, shifted by the same step, lands inside its kind's region."""
    cells = board.cells
    frm, to = move.from_square, move.to_square
    piece = cells[frm]
    f, r = FILE_OF[frm], RANK_OF[frm]
    other = next(rr for rr in range(10) if rr != r and cells[square(f, rr)] == piece)
    of, orank = f + FILE_OF[to] - f, other + RANK_OF[to] - r
    if not (0 <= of <= 8 and 0 <= orank <= 9):
        return False
    kind, color = piece & 7, piece & BLACK
    if kind in (KING, ADVISOR):
        return 3 <= of <= 5 and (orank <= 2 if color == RED else orank >= 7)
    if kind == ELEPHANT:
        return orank <= 4 if color == RED else orank >= 5
    return True


_WXF = re.compile(
    r"^(?:(?P<letter>[KAEBHNRCP])(?P<where>[1-9+\-])|(?P<tandem>[+\-])(?P<letter2>[KAEBHNRCP])"
    r"|(?P<index>[1-5])(?P<file>[1-9]))(?P<op>[+\-=.])(?P<dest>[1-9])$"
)


def parse_wxf(board: Board, text: str) -> Move:
    """The legal move written in WXF.

    :raises InvalidMoveError: on bad syntax; :raises IllegalMoveError: if no legal move fits;
        :raises AmbiguousMoveError: if several do.
    """
    m = _WXF.match(text.strip().upper())
    if not m:
        raise InvalidMoveError(f"not a WXF move: {text!r}")
    kind = _WXF_KINDS[m["letter"] or m["letter2"]] if (m["letter"] or m["letter2"]) else None
    file = index = None
    tandem = m["tandem"]
    where = m["where"]
    if where in ("+", "-"):
        tandem = where
    elif where:
        file = int(where)
    if m["index"]:
        index, file = int(m["index"]) - 1, int(m["file"])
    op = "=" if m["op"] == "." else m["op"]
    return _match(board, text, kind, file, index, tandem, op, int(m["dest"]))


# ---- Chinese ---------------------------------------------------------------------------------------------

def write_chinese(board: Board, move: Move) -> str:
    """Chinese notation, e.g. ``炮二平五`` (red) or ``马８进７`` (black)."""
    d = describe(board, move)
    name = CHINESE_NAMES[d.color][d.kind]
    if d.count >= 2 and d.kind not in (ADVISOR, ELEPHANT):
        if d.count == 2:
            place = "前后"[d.index]
        elif d.count == 3:
            place = "前中后"[d.index]
        else:
            place = "前" if d.index == 0 else "后" if d.index == d.count - 1 else _numeral(d.color, d.index + 1)
        head = place + (_numeral(d.color, d.file) if d.multi else name)
    else:
        head = name + _numeral(d.color, d.file)
    return head + _CHINESE_OP_TEXT[d.op] + _numeral(d.color, d.dest)


def parse_chinese(board: Board, text: str) -> Move:
    """The legal move written in Chinese notation (simplified or traditional, any digit style).

    :raises InvalidMoveError: on bad syntax; :raises IllegalMoveError: if no legal move fits;
        :raises AmbiguousMoveError: if several do.
    """
    t = text.strip()
    if len(t) != 4:
        raise InvalidMoveError(f"not a Chinese-notation move: {text!r}")
    a, b, c, e = t[0], t[1], t[2], t[3]
    op = _OPS.get(c)
    dest = _digit(e)
    if op is None or dest is None:
        raise InvalidMoveError(f"not a Chinese-notation move: {text!r}")
    kind = file = index = None
    tandem: str | None = None
    if a in _NAME_KINDS:
        kind, file = _NAME_KINDS[a], _digit(b)
        if file is None:
            raise InvalidMoveError(f"not a Chinese-notation move: {text!r}")
    else:
        if a in _FRONT_BACK:
            tandem = _FRONT_BACK[a]
        elif _digit(a) is not None and 2 <= (_digit(a) or 0) <= 5:
            index = (_digit(a) or 0) - 1
        else:
            raise InvalidMoveError(f"not a Chinese-notation move: {text!r}")
        if b in _NAME_KINDS:
            kind = _NAME_KINDS[b]
        elif _digit(b) is not None:
            file = _digit(b)
        else:
            raise InvalidMoveError(f"not a Chinese-notation move: {text!r}")
    return _match(board, text, kind, file, index, tandem, op, dest)


# ---- matching --------------------------------------------------------------------------------------------

def _match(
    board: Board,
    text: str,
    kind: int | None,
    file: int | None,
    index: int | None,
    tandem: str | None,
    op: str,
    dest: int,
) -> Move:
    """The one legal move with these facts."""
    found = []
    color = board.turn
    for move in board.legal_moves():
        frm, to = move.from_square, move.to_square
        if kind is not None and board.cells[frm] & 7 != kind:
            continue
        if file is not None and file_number(color, FILE_OF[frm]) != file:
            continue
        if _op_dest(color, frm, to) != (op, dest):
            continue
        d = describe(board, move)
        if index is not None and (d.count < 2 or d.index != index):
            continue
        if tandem is not None:
            if d.count < 2:
                continue
            if tandem in ("+", "front") and d.index != 0:
                continue
            if tandem in ("-", "rear") and d.index != d.count - 1:
                continue
            if tandem == "middle" and (d.count != 3 or d.index != 1):
                continue
        found.append(move)
    if not found:
        raise IllegalMoveError(f"no legal move matches {text!r}")
    if len(found) > 1:
        raise AmbiguousMoveError(f"{text!r} matches {len(found)} legal moves: {', '.join(m.iccs() for m in found)}")
    return found[0]


# ---- any notation ----------------------------------------------------------------------------------------

def detect(text: str) -> str:
    """Which notation ``text`` is written in (by its characters alone)."""
    t = text.strip()
    if not t.isascii():
        return "chinese"
    if _ICCS.match(t):
        return "iccs"
    return "wxf"


_PARSERS: Final = {"iccs": parse_iccs, "wxf": parse_wxf, "chinese": parse_chinese}
_WRITERS: Final = {"iccs": write_iccs, "wxf": write_wxf, "chinese": write_chinese}


def parse_move(board: Board, text: str, notation: str | None = None) -> Move:
    """The legal move ``text`` in ``notation`` (one of :data:`NOTATIONS`, as the verbs checked; ``None``: told
    from the text).

    :raises InvalidMoveError: on bad syntax; :raises IllegalMoveError: if not legal;
        :raises AmbiguousMoveError: if it names several legal moves.
    """
    if not isinstance(text, str) or len(text) > 16:
        raise InvalidMoveError(f"not a xiangqi move: {text!r}")
    if notation is None:
        notation = "iccs" if text in _ICCS_MOVES else detect(text)
    return _PARSERS[notation](board, text)


def move_text(board: Board, move: Move, notation: str | None = None) -> str:
    """``move`` (legal on ``board``) written in ``notation`` (one of :data:`NOTATIONS`, as the verbs checked;
    ICCS when ``None``)."""
    if not notation or notation == "iccs":
        return move.iccs()  # the notation of every decoded move unless told otherwise: no look-up
    return _WRITERS[notation](board, move)
