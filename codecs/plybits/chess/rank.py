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
from typing import Any, ClassVar, cast

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
    moves = sorted(board.legal_moves(), key=_key)
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


_ATTACK_TABLE: list[Any] = [None] * (16 * SIZE)
"""_ATTACK_TABLE[piece * SIZE + sq]: (jump targets, slider rays) of that piece standing on sq."""
for _sq in SQUARES:
    for _colour in (WHITE, BLACK):
        _ATTACK_TABLE[(_colour | PAWN) * SIZE + _sq] = (_jumps(_sq, (11, 13) if _colour == WHITE else (-11, -13)), ())
        _ATTACK_TABLE[(_colour | KNIGHT) * SIZE + _sq] = (_jumps(_sq, KNIGHT_STEPS), ())
        _ATTACK_TABLE[(_colour | KING) * SIZE + _sq] = (_jumps(_sq, KING_STEPS), ())
        _ATTACK_TABLE[(_colour | BISHOP) * SIZE + _sq] = ((), _rays(_sq, DIAGONAL))
        _ATTACK_TABLE[(_colour | ROOK) * SIZE + _sq] = ((), _rays(_sq, ORTHOGONAL))
        _ATTACK_TABLE[(_colour | QUEEN) * SIZE + _sq] = ((), _rays(_sq, KING_STEPS))
_PIECE_ATTACK_VALUE = [ATTACK_VALUE[p & 7] for p in range(16)]
_MATERIAL = [VALUE[p & 7] if p & 7 != PAWN else 0 for p in range(16)]


def _attack_maps(b: list[Any], us: int) -> tuple[bytearray, bytearray, bytearray, int]:
    """(whether the enemy attacks each square, the value of its cheapest attacker there (0: none), count of
    our attacks, the material of both sides' pieces other than pawns and kings)."""
    material = 0
    cheapest = bytearray(SIZE)
    own = bytearray(SIZE)
    table = _ATTACK_TABLE
    enemy_pieces: list[tuple[int, int]] = []
    for s in SQUARES:
        p = b[s]
        if not p:
            continue
        material += _MATERIAL[p]
        if p & BLACK == us:
            jumps, rays = table[p * SIZE + s]
            for t in jumps:
                own[t] += 1
            for ray in rays:
                for t in ray:
                    own[t] += 1
                    if b[t]:
                        break
        else:
            enemy_pieces.append((_ORDER[p], p * SIZE + s))
    # dearest attackers first, so that the last value written on a square is its cheapest attacker's
    enemy_pieces.sort()
    values = _PIECE_ATTACK_VALUE
    for _, key in enemy_pieces:
        value = values[key // SIZE]
        jumps, rays = table[key]
        for t in jumps:
            cheapest[t] = value
        for ray in rays:
            for t in ray:
                cheapest[t] = value
                if b[t]:
                    break
    return cheapest, cheapest, own, material


_ORDER = [-_PIECE_ATTACK_VALUE[p] for p in range(16)]


def _check_squares(b: list[Any], king: int, us: int) -> bytearray:
    """CHECKS[kind * SIZE + sq] style table for this position, flattened: whether a piece of ``us`` of
    that kind standing on sq would attack ``king`` (blockers as they stand now)."""
    checks = bytearray(8 * SIZE)
    for t in _ATTACK_TABLE[(us ^ BLACK | KNIGHT) * SIZE + king][0]:
        checks[KNIGHT * SIZE + t] = 1
    # a pawn of ours checks from where an enemy pawn on the king's square would capture
    for t in _ATTACK_TABLE[(us ^ BLACK | PAWN) * SIZE + king][0]:
        checks[PAWN * SIZE + t] = 1
    for kind, rays in ((BISHOP, _ATTACK_TABLE[BISHOP * SIZE + king][1]), (ROOK, _ATTACK_TABLE[ROOK * SIZE + king][1])):
        for ray in rays:
            for t in ray:
                checks[kind * SIZE + t] = 1
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

        The parts that depend on the move, the piece and the phase only are cached.
        """
        w = self.weights
        b = board.cells
        us = board.turn
        them = us ^ BLACK
        side = us >> 3
        rel = RELATIVE[side]
        enemy_count, enemy_cheapest, own_count, material = _attack_maps(b, us)
        enemy_king = board.kings[them >> 3]
        last = history[-1] if history else NULL_MOVE
        mine = history[-2] if len(history) >= 2 else NULL_MOVE
        last_to = last[1] if last[0] else -1
        my_last_to = mine[1] if mine[0] else -1
        last_capture = False
        if last_to >= 0 and board.halfmove_clock == 0:
            last_capture = FILE_OF[last[0]] != FILE_OF[last_to] if (b[last_to] & 7 == PAWN or last[2]) else True
        phase = 0 if material >= 56 else 1 if material >= 40 else 2 if material >= 20 else 3
        evasion = F_EVASION if enemy_count[board.kings[side]] else -1
        checks = _check_squares(b, enemy_king, us)
        castling = board.castling
        own_rights = _own_rights(castling, us)
        ep = board.ep
        statics = self._static
        phase_base = phase * 16
        own_rook = us | ROOK
        attack_value = ATTACK_VALUE
        near_king = _NEAR[SIZE - enemy_king:]
        out: list[int] = []
        append = out.append
        for m in moves:
            f, t, promotion = m
            if not f:
                append(w[F_NULL])
                continue
            p = b[f]
            kind = p & 7
            q = b[t]
            if kind == KING and q == own_rook:
                append(w[F_CASTLE + (0 if t > f else 1)] + w[F_PHASE + phase * 7 + KING])
                continue
            static = statics[phase_base + p]
            score = static.get(m)
            if score is None:
                score = static[m] = self._static_score(m, kind, rel, phase)
            capture = 0
            if q:
                capture = 1
                victim = q & 7
                score += w[F_CAPTURE + victim * 7 + kind]
                if not enemy_count[t]:
                    score += w[F_HANGING_VICTIM + victim]
                if t == last_to:
                    score += w[F_RECAPTURE + kind] if last_capture else w[F_TAKES_LAST + kind]
            elif t == ep and kind == PAWN and ep:
                capture = 1
                score += w[F_EN_PASSANT] + w[F_CAPTURE + PAWN * 7 + PAWN]
                if not enemy_count[t]:
                    score += w[F_HANGING_VICTIM + PAWN]
            if enemy_count[t]:
                attacked = 1 if enemy_cheapest[t] < attack_value[kind] else 2
            else:
                attacked = 0
            defenders = own_count[t] - (0 if kind == PAWN and not capture else 1)
            score += w[F_SAFETY + ((capture * 3 + attacked) * 3 + (2 if defenders > 1 else defenders)) * 7 + kind]
            if enemy_count[f]:
                score += w[F_FROM_THREAT + (1 if enemy_cheapest[f] >= attack_value[kind] else 2) * 7 + kind]
            if f == my_last_to:
                score += w[F_SAME_PIECE + kind]
            if evasion >= 0:
                score += w[F_EVASION + kind]
            if kind == KING:
                if own_rights:
                    score += w[F_LOSES_CASTLING]
            elif kind == ROOK and f in castling:
                score += w[F_LOSES_CASTLING]
            if near_king[t]:
                score += w[F_KING_ZONE + kind]
            if checks[(promotion or kind) * SIZE + t]:
                score += w[F_CHECK + (promotion or kind)]
            append(score)
        return out

    def _static_score(self, m: Move, kind: int, rel: list[int], phase: int) -> int:
        """The weights of the features that depend on the move, the piece and the phase only."""
        f, t, promotion = m
        w = self.weights
        score = w[F_TO + kind * 64 + rel[t]] + w[F_FROM + kind * 64 + rel[f]] + w[F_PHASE + phase * 7 + kind]
        if promotion:
            score += w[F_PROMOTION + promotion]
        if kind == PAWN:
            if abs(t - f) > 13:
                score += w[F_PAWN_DOUBLE]
        elif kind != KNIGHT and kind != KING:
            score += w[F_SLIDE + kind * 8 + (t - f) // LINE[f * SIZE + t]]
        return score

    @property
    def _static(self) -> list[dict[Move, int]]:
        """The cached :meth:`_static_score` of each move, by phase and piece."""
        static: list[dict[Move, int]] | None = self.cache.get("static")
        if static is None:
            static = self.cache["static"] = [{} for _ in range(4 * 16)]
        return static


_NEAR = [False] * (2 * SIZE)
"""_NEAR[SIZE + d]: whether a square at offset ``d`` from the enemy king touches it."""
for _step in KING_STEPS:
    _NEAR[SIZE + _step] = True


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
