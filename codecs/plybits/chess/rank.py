"""``chess/rank`` (codec 0x02): each ply's index among the legal moves, range-coded under a learned model.

Canonical order: the legal moves sorted by ``(from, to, promotion)`` with squares numbered
a1 = 0 ... h8 = 63 and promotion 0 none, 2 knight, 3 bishop, 4 rook, 5 queen (castling is
king-takes-rook); then the null move (PGN ``--``), which every model gives frequency 1.

- Model 0: uniform over that list.
- Model 1: a log-linear model over the move features of :meth:`LinearChessModel.scores` (piece-square
  tables, captures by victim and attacker, safety of the target square, checks, promotions,
  recaptures, the opponent's last move, the piece that just moved, castling, game phase), with
  integer weights learned by ``tools/train_chess.py`` and shipped in ``rank_model_v1.json``.

Feature ids are part of model 1's format: never change them; a new feature set is a new model.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from typing import Any, ClassVar, cast, final

from plybits.chess.board import (
    BISHOP,
    BLACK,
    DIAGONAL,
    FILE_OF,
    KING,
    KING_STEPS,
    KNIGHT,
    KNIGHT_STEPS,
    LINE,
    NULL_MOVE,
    ORTHOGONAL,
    PAWN,
    QUEEN,
    RANK_OF,
    ROOK,
    SIZE,
    SLIDES_ALONG,
    SQUARES,
    WHITE,
    _ON_BOARD,
    Board,
    Move,
    move,
)
from plybits.mailbox import OFF
from plybits.rank import LinearModel, RankScheme, UniformModel, softmax_frequencies

SQUARE64 = [-1] * SIZE
"""a1 = 0 ... h8 = 63 of each mailbox index."""
for _sq in SQUARES:
    SQUARE64[_sq] = FILE_OF[_sq] + 8 * RANK_OF[_sq]
RELATIVE = ([-1] * SIZE, [-1] * SIZE)
"""RELATIVE[side][sq]: the square as seen by ``side`` (black's board flipped rank-wise), 0..63."""
for _sq in SQUARES:
    RELATIVE[0][_sq] = FILE_OF[_sq] + 8 * RANK_OF[_sq]
    RELATIVE[1][_sq] = FILE_OF[_sq] + 8 * (7 - RANK_OF[_sq])
PROMOTION_ORDER = {0: 0, KNIGHT: 2, BISHOP: 3, ROOK: 4, QUEEN: 5}


def move_key(move: Move) -> int:
    """The canonical sort key of a legal move: (from, to, promotion) as one integer."""
    return (SQUARE64[move[0]] * 64 + SQUARE64[move[1]]) * 8 + PROMOTION_ORDER[move[2]]


_KEYS: dict[Move, int] = {}
"""The sort key of every move object there is (moves are interned by :func:`plybits.chess.board.move`)."""
for _a in SQUARES:
    for _b in SQUARES:
        if _a != _b:
            _KEYS[move(_a, _b)] = move_key(move(_a, _b))
            if abs(RANK_OF[_a] - RANK_OF[_b]) == 1 and RANK_OF[_b] in (0, 7) and abs(FILE_OF[_a] - FILE_OF[_b]) <= 1:
                for _promotion in (KNIGHT, BISHOP, ROOK, QUEEN):
                    _KEYS[move(_a, _b, _promotion)] = move_key(move(_a, _b, _promotion))
_key = _KEYS.__getitem__


def canonical_moves(board: Board) -> list[Move]:
    """The legal moves in canonical order, then the null move."""
    moves = board.legal_moves()
    moves.sort(key=_key)
    moves.append(NULL_MOVE)
    return moves


# ---------------------------------------------------------------- model 1 features (frozen)

VALUE = (0, 1, 3, 3, 5, 9, 0, 0)
"""Piece values by kind, for the attack maps (king 0 there: it never defends or attacks as a trade)."""
ATTACK_VALUE = (0, 1, 3, 3, 5, 9, 20, 0)

_next = 0


def _block(size: int) -> int:
    global _next
    start = _next
    _next += size
    return start


F_TO = _block(7 * 64)  # kind x relative to-square
F_FROM = _block(7 * 64)  # kind x relative from-square
F_CAPTURE = _block(7 * 7)  # victim kind x mover kind
F_SAFETY = _block(2 * 3 * 3 * 7)  # capture? x attacked by (none, lower-or-equal... see _safety) x defended x kind
F_FROM_THREAT = _block(3 * 7)  # from-square threat (none, attacked, attacked by a lower piece) x kind
F_CHECK = _block(7)  # gives a direct check, by kind
F_PROMOTION = _block(7)  # promotion kind
F_CASTLE = _block(2)  # castling towards h, towards a
F_RECAPTURE = _block(7)  # captures on the square the opponent just captured on, by kind
F_TAKES_LAST = _block(7)  # captures the piece that just moved, by kind
F_SAME_PIECE = _block(7)  # moves again the piece this side moved last, by kind
F_PHASE = _block(4 * 7)  # material phase x kind
F_EVASION = _block(7)  # side to move is in check, by kind
F_SLIDE = _block(7 * 8)  # kind x distance (sliders)
F_KING_ZONE = _block(7)  # lands next to the enemy king, by kind
F_LOSES_CASTLING = _block(1)  # a king or rook move that gives up castling rights
F_PAWN_DOUBLE = _block(1)
F_EN_PASSANT = _block(1)
F_NULL = _block(1)
F_HANGING_VICTIM = _block(7)  # captures an undefended piece, by victim kind
N_FEATURES = _next


def _rays(s: int, steps: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    rays = []
    for d in steps:
        ray = []
        t = s + d
        while RELATIVE[0][t] >= 0:
            ray.append(t)
            t += d
        if ray:
            rays.append(tuple(ray))
    return tuple(rays)


def _jumps(s: int, steps: Sequence[int]) -> tuple[int, ...]:
    return tuple(s + d for d in steps if RELATIVE[0][s + d] >= 0)


_JUMPS: list[tuple[int, ...]] = [()] * (16 * SIZE)
"""_JUMPS[piece * SIZE + sq]: the squares that piece (pawn, knight or king) standing on sq attacks."""
_RAYS: list[tuple[tuple[int, ...], ...]] = [()] * (16 * SIZE)
"""_RAYS[piece * SIZE + sq]: the rays (nearest square first) of that slider standing on sq."""
for _sq in SQUARES:
    for _colour in (WHITE, BLACK):
        _JUMPS[(_colour | PAWN) * SIZE + _sq] = _jumps(_sq, (11, 13) if _colour == WHITE else (-11, -13))
        _JUMPS[(_colour | KNIGHT) * SIZE + _sq] = _jumps(_sq, KNIGHT_STEPS)
        _JUMPS[(_colour | KING) * SIZE + _sq] = _jumps(_sq, KING_STEPS)
        _RAYS[(_colour | BISHOP) * SIZE + _sq] = _rays(_sq, DIAGONAL)
        _RAYS[(_colour | ROOK) * SIZE + _sq] = _rays(_sq, ORTHOGONAL)
        _RAYS[(_colour | QUEEN) * SIZE + _sq] = _rays(_sq, KING_STEPS)
_MATERIAL = [VALUE[p & 7] if p & 7 != PAWN else 0 for p in range(16)]
_THREAT_LEVELS = sorted(set(ATTACK_VALUE[PAWN:KING + 1]))
"""The distinct attack values (1, 3, 5, 9, 20): an attack map stores a value's level (1..5), 0 for none."""
_LEVEL = [_THREAT_LEVELS.index(ATTACK_VALUE[p & 7]) + 1 if PAWN <= p & 7 <= KING else 0 for p in range(16)]
"""_LEVEL[piece]: the level of its attack value; levels order as the values do."""
_OWN_SLOTS = 17
"""A square holds at most 16 of one side's attacks (each piece attacks it once at most): counts 0..16."""


def _attack_maps(b: list[Any], us: int) -> tuple[bytearray, bytearray, int]:
    """(the level of the enemy's cheapest attacker of each square times :data:`_OWN_SLOTS` (0: not attacked),
    the count of our attacks on each square, the material of both sides' pieces other than pawns and kings)."""
    material = 0
    cheapest = bytearray(SIZE)
    own = bytearray(SIZE)
    jumps_of = _JUMPS
    rays_of = _RAYS
    level_of = _LEVEL
    by_level: list[list[int]] = [[], [], [], [], [], []]
    for s in compress(SQUARES, _ON_BOARD(b)):
        p = b[s]
        material += _MATERIAL[p]
        key = p * SIZE + s
        if p & BLACK == us:
            for t in jumps_of[key]:
                own[t] += 1
            for ray in rays_of[key]:
                for t in ray:
                    own[t] += 1
                    if b[t]:
                        break
        else:
            by_level[level_of[p]].append(key)
    # dearest attackers first, so that the last value written on a square is its cheapest attacker's
    for level in range(5, 0, -1):
        value = level * _OWN_SLOTS
        for key in by_level[level]:
            for t in jumps_of[key]:
                cheapest[t] = value
            for ray in rays_of[key]:
                for t in ray:
                    cheapest[t] = value
                    if b[t]:
                        break
    return cheapest, own, material


def _check_squares(b: list[Any], king: int, us: int) -> bytearray:
    """CHECKS[kind * SIZE + sq] style table for this position, flattened: whether a piece of ``us`` of
    that kind standing on sq would attack ``king`` (blockers as they stand now)."""
    checks = bytearray(8 * SIZE)
    for t in _JUMPS[(us ^ BLACK | KNIGHT) * SIZE + king]:
        checks[KNIGHT * SIZE + t] = 1
    # a pawn of ours checks from where an enemy pawn on the king's square would capture
    for t in _JUMPS[(us ^ BLACK | PAWN) * SIZE + king]:
        checks[PAWN * SIZE + t] = 1
    for kind in (BISHOP, ROOK):
        base = kind * SIZE
        for ray in _RAYS[kind * SIZE + king]:
            for t in ray:
                checks[base + t] = 1
                checks[QUEEN * SIZE + t] = 1
                if b[t]:
                    break
    return checks


def _own_rights(castling: frozenset[int], us: int) -> bool:
    back = 0 if us == WHITE else 7
    return any(RANK_OF[r] == back for r in castling)


def move_features(board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[list[int]]:
    """Model 1's active feature ids of each move in ``moves`` (legal here, null move allowed), as training
    fits them: read back from :meth:`LinearChessModel.scores`, their one definition."""
    return MODEL.features(board, moves, history)


NULL_SCORE = -(1 << 20)
"""The null move's score in :meth:`LinearChessModel.ranked`, whatever its weight: far below every move, so
its frequency is 1."""

_NEAR: list[bytes] = [bytes(SIZE)] * SIZE
"""_NEAR[king][sq]: whether sq touches a king standing on ``king``."""
for _sq in SQUARES:
    _NEAR[_sq] = bytes(1 if _sq - _t in KING_STEPS else 0 for _t in range(SIZE))
_SLIDE_LENGTH = [0] * (SIZE * SIZE)
"""_SLIDE_LENGTH[f * SIZE + t]: how many steps apart f and t are along their line (0: not on one)."""
for _f in SQUARES:
    for _t in SQUARES:
        if LINE[_f * SIZE + _t]:
            _SLIDE_LENGTH[_f * SIZE + _t] = (_t - _f) // LINE[_f * SIZE + _t]


@final
class _Tables:
    """What :meth:`LinearChessModel.scores` derives from the weights: the weights of each feature group laid
    out by the indices the scorer has at hand, so that a move's score is a few list look-ups."""

    __slots__ = ("w", "rows", "safety", "from_threat", "capture", "hanging", "recapture", "takes_last",
                 "promotion", "kind_weights")

    def __init__(self, w: list[int]) -> None:
        self.w = w
        self.rows: list[list[int] | None] = [None] * (4 * 16 * SIZE)
        """rows[(phase * 16 + piece) * SIZE + from][to]: the weights of the features that depend on the piece,
        its squares and the phase only (to- and from-square, phase, pawn double step or slide length)."""
        levels = 6 * _OWN_SLOTS
        self.safety = [0] * (7 * 2 * levels)
        """safety[(kind * 2 + capture) * 6 * 17 + cheapest level * 17 + own attacks]: the ``F_SAFETY`` weight."""
        self.from_threat = [0] * (7 * levels)
        """from_threat[kind * 6 * 17 + cheapest level * 17]: the ``F_FROM_THREAT`` weight (0 when not attacked)."""
        for kind in range(1, 7):
            for level in range(6):
                cheapest = _THREAT_LEVELS[level - 1] if level else 0
                attacked = 0 if not level else 1 if cheapest < ATTACK_VALUE[kind] else 2
                if level:
                    threat = 1 if cheapest >= ATTACK_VALUE[kind] else 2
                    self.from_threat[kind * levels + level * _OWN_SLOTS] = w[F_FROM_THREAT + threat * 7 + kind]
                for capture in (0, 1):
                    for count in range(_OWN_SLOTS):
                        defenders = count - (0 if kind == PAWN and not capture else 1)
                        feature = F_SAFETY + ((capture * 3 + attacked) * 3 + (2 if defenders > 1 else defenders)) * 7
                        self.safety[(kind * 2 + capture) * levels + level * _OWN_SLOTS + count] = w[feature + kind]
        self.capture = w[F_CAPTURE:F_CAPTURE + 7 * 7]
        self.hanging = w[F_HANGING_VICTIM:F_HANGING_VICTIM + 7]
        self.recapture = w[F_RECAPTURE:F_RECAPTURE + 7]
        self.takes_last = w[F_TAKES_LAST:F_TAKES_LAST + 7]
        self.promotion = w[F_PROMOTION:F_PROMOTION + 7]
        self.kind_weights = [w[F_CHECK:F_CHECK + 7], w[F_KING_ZONE:F_KING_ZONE + 7], w[F_SAME_PIECE:F_SAME_PIECE + 7],
                             w[F_EVASION:F_EVASION + 7]]
        """By kind: the weights of a check, of landing next to the enemy king, of moving the same piece again, of
        moving in check."""

    def row(self, phase: int, piece: int, f: int) -> list[int]:
        """``rows[(phase * 16 + piece) * SIZE + f]``, made on first use."""
        w = self.w
        kind = piece & 7
        rel = RELATIVE[piece >> 3]
        fixed = w[F_FROM + kind * 64 + rel[f]] + w[F_PHASE + phase * 7 + kind]
        to_base = F_TO + kind * 64
        row = [0] * SIZE
        for t in SQUARES:
            if t == f:
                continue
            score = fixed + w[to_base + rel[t]]
            if kind == PAWN:
                if abs(t - f) > 13:
                    score += w[F_PAWN_DOUBLE]
            elif kind != KNIGHT and kind != KING and LINE[f * SIZE + t]:
                score += w[F_SLIDE + kind * 8 + _SLIDE_LENGTH[f * SIZE + t]]
            row[t] = score
        self.rows[(phase * 16 + piece) * SIZE + f] = row
        return row


class LinearChessModel(LinearModel):
    """Model 1: log-linear with the shipped integer weights; :meth:`scores` defines the features."""

    def __init__(self, filename: str, version: int, description: str = "") -> None:
        super().__init__(filename, version, description, package="plybits.chess", n_features=N_FEATURES,
                         canonical=canonical_moves, features=None)

    def ranked(self, position: Board, history: Sequence[Move]) -> tuple[list[Move], list[int] | None]:
        """The legal moves and the null move (last, at :data:`NULL_SCORE`) with their frequencies."""
        moves = self.canonical(position)
        scores = self.scores(position, moves, history)
        scores[-1] = NULL_SCORE
        return moves, softmax_frequencies(scores)

    def scores(self, board: Board, moves: Sequence[Move], history: Sequence[Move]) -> list[int]:
        """Each move's score: the sum of the weights of its features, which are (ids by block, ``kind``
        the mover's, squares relative to the side to move):

        - null move: ``F_NULL`` only; castling (king takes own rook): ``F_CASTLE`` by side and
          ``F_PHASE`` for a king; any other move: ``F_TO``/``F_FROM`` by kind and square and ``F_PHASE``;
        - a capture (en passant: also ``F_EN_PASSANT``): ``F_CAPTURE`` by victim and mover,
          ``F_HANGING_VICTIM`` if the target is not attacked, ``F_RECAPTURE``/``F_TAKES_LAST`` on the
          square the opponent just moved to;
        - ``F_SAFETY`` (capture?, attacked by a cheaper or other piece or not, defenders 0/1/2+);
          ``F_FROM_THREAT`` if the origin is attacked; ``F_PROMOTION``; ``F_SAME_PIECE``;
          ``F_EVASION`` in check; ``F_PAWN_DOUBLE`` or ``F_SLIDE`` by distance;
          ``F_LOSES_CASTLING``; ``F_KING_ZONE`` next to the enemy king; ``F_CHECK`` direct check.

        The weights come laid out in :class:`_Tables`; what depends on the origin square is summed once for
        all the moves from it.
        """
        tables = self.derived("tables", _Tables)
        w = tables.w
        rows = tables.rows
        safety = tables.safety
        capture_w = tables.capture
        b = board.cells
        us = board.turn
        them = us ^ BLACK
        side = us >> 3
        cheapest, own_count, material = _attack_maps(b, us)
        enemy_king = board.kings[them >> 3]
        last = history[-1] if history else NULL_MOVE
        mine = history[-2] if len(history) >= 2 else NULL_MOVE
        last_to = last[1] if last[0] else -1
        my_last_to = mine[1] if mine[0] else -1
        last_capture = False
        if last_to >= 0 and board.halfmove_clock == 0:
            last_capture = FILE_OF[last[0]] != FILE_OF[last_to] if (b[last_to] & 7 == PAWN or last[2]) else True
        phase = 0 if material >= 56 else 1 if material >= 40 else 2 if material >= 20 else 3
        in_check = cheapest[board.kings[side]] != 0
        checks = _check_squares(b, enemy_king, us)
        castling = board.castling
        own_rights = _own_rights(castling, us)
        ep = board.ep or -1
        row_base = phase * 16 * SIZE
        check_w, zone_w, same_w, evasion_w = tables.kind_weights
        promotion_w = tables.promotion
        levels = 6 * _OWN_SLOTS
        near_king = _NEAR[enemy_king]
        castle_h = w[F_CASTLE] + w[F_PHASE + phase * 7 + KING]
        castle_a = w[F_CASTLE + 1] + w[F_PHASE + phase * 7 + KING]
        out: list[int] = []
        append = out.append
        origin = -1
        # what depends on the origin square only (set when it changes)
        row: list[int] = []
        fixed = kind = quiet_safety = capture_safety = pawn_ep = check_base = check = zone = 0
        for m in moves:
            f, t, promotion = m
            if f != origin:
                if not f:
                    append(w[F_NULL])
                    continue
                origin = f
                p = b[f]
                kind = p & 7
                found = rows[row_base + p * SIZE + f]
                row = tables.row(phase, p, f) if found is None else found
                fixed = tables.from_threat[kind * levels + cheapest[f]]
                if f == my_last_to:
                    fixed += same_w[kind]
                if in_check:
                    fixed += evasion_w[kind]
                if kind == KING:
                    if own_rights:
                        fixed += w[F_LOSES_CASTLING]
                elif kind == ROOK and f in castling:
                    fixed += w[F_LOSES_CASTLING]
                quiet_safety = kind * 2 * levels
                capture_safety = quiet_safety + levels
                pawn_ep = ep if kind == PAWN else -1
                check_base = kind * SIZE
                check = check_w[kind]
                zone = zone_w[kind]
            q = b[t]
            score = row[t] + fixed
            if q:
                if q & BLACK == us:  # castling: the king takes its own rook
                    append(castle_h if t > f else castle_a)
                    continue
                victim = q & 7
                score += capture_w[victim * 7 + kind]
                if not cheapest[t]:
                    score += tables.hanging[victim]
                if t == last_to:
                    score += tables.recapture[kind] if last_capture else tables.takes_last[kind]
                score += safety[capture_safety + cheapest[t] + own_count[t]]
            elif t == pawn_ep:
                score += w[F_EN_PASSANT] + capture_w[PAWN * 7 + PAWN]
                if not cheapest[t]:
                    score += tables.hanging[PAWN]
                score += safety[capture_safety + cheapest[t] + own_count[t]]
            else:
                score += safety[quiet_safety + cheapest[t] + own_count[t]]
            if near_king[t]:
                score += zone
            if promotion:
                score += promotion_w[promotion]
                if checks[promotion * SIZE + t]:
                    score += check_w[promotion]
            elif checks[check_base + t]:
                score += check
            append(score)
        return out


class ChessRankScheme(RankScheme[Board, Move]):
    """Chess moves range-coded by rank under a learned move model."""

    game: ClassVar[str] = "chess"
    codec_id: ClassVar[int] = 0x02
    version: ClassVar[int] = 1
    readable_versions: ClassVar[tuple[int, ...]] = (0, 1)
    description: ClassVar[str] = (
        "each move's index among the legal moves (sorted by from, to, promotion), "
        "range-coded under a learned log-linear move model"
    )
    models = {
        0: UniformModel(canonical_moves),
        1: LinearChessModel(
            "rank_model_v1.json", 1, "log-linear move model learned from master games (tools/train_chess.py)"
        ),
    }


MODEL = cast(LinearChessModel, ChessRankScheme.models[1])
"""Model 1, whose scorer defines :func:`move_features`."""


RANK = ChessRankScheme()
