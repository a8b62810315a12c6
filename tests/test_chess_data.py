"""The differential suite: the games in ../shared/data/chess against python-chess, ply by ply.

Every file (edge/ included) is split as python-chess reads it (the same number of games). For a fixed, seeded
sample of each file's games (:data:`SHARE`; every game with ``PLYBITS_FULL=1``, fewer with ``PLYBITS_QUICK=1``):
our PGN reading gives python-chess's mainline; at every ply our SAN reading, our SAN and UCI writing (also as decode
writes them, by ``play_text``) and our full legal-move list equal python-chess's; the final FEN is equal; chess/0x88 encode -> decode returns the game, in
the library and through the HTTP API. Every variant game (Antichess, Crazyhouse) must be refused.
"""

from __future__ import annotations

import io
from pathlib import Path

import chess
import chess.pgn
import pytest

import plybits
from plybits.chess import GAME, X88
from plybits.chess.squares import FILE_OF, RANK_OF, SQUARES
from plybits.chess.notation import play_text
from plybits.chess.notation import san as write_san
from plybits.chess.notation import uci as write_uci
from plybits.errors import InvalidRecordError
from tests.conftest import FULL, QUICK, sample, shared_data

pytestmark = pytest.mark.data

VARIANTS_REFUSED = {"antichess", "crazyhouse"}
SHARE = 1 / 20 if QUICK else 1 / 4
"""The share of each file's games checked ply by ply (at least one a file; all with ``PLYBITS_FULL=1``)."""


def pgn_files() -> list[Path]:
    root = shared_data("chess")
    return sorted(root.rglob("*.pgn"))


def games_of(path: Path) -> list[tuple[str, chess.pgn.Game]]:
    """Our split of the file, zipped with python-chess's reading of the same file."""
    text = path.read_text(encoding="utf-8-sig", errors="strict")
    ours = list(GAME.split_records(text))
    theirs = []
    with io.StringIO(text) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            theirs.append(game)
    assert len(ours) == len(theirs), f"{path.name}: we split {len(ours)} games, python-chess reads {len(theirs)}"
    return list(zip(ours, theirs))


SQUARE64 = {sq: RANK_OF[sq] * 8 + FILE_OF[sq] for sq in SQUARES}  # our mailbox index -> python-chess square


def castled(position, f: int, t: int) -> int:
    """The to-square python-chess uses: the king's two-step for standard castling, else ``t``."""
    if not position.chess960 and position.is_castling((f, t, 0)):
        return t - FILE_OF[t] + (6 if t > f else 2)
    return t


def _fen(board: chess.Board) -> str:
    return board.shredder_fen() if board.chess960 else board.fen()


def check_game(text: str, game: chess.pgn.Game, where: str) -> tuple[list[str], str | None, int]:
    """Replay one game with both libraries; returns the UCI moves, our start and the SAN plies compared."""
    assert not game.errors, f"{where}: python-chess could not read it: {game.errors}"
    record = GAME.parse_record(text)
    board = game.board()
    position = GAME.position(record.start)
    assert position.chess960 == board.chess960, where
    assert position.fen() == _fen(board), where
    expected = list(game.mainline_moves())
    assert len(record.moves) == len(expected), f"{where}: {len(record.moves)} tokens, python-chess {len(expected)} moves"
    ucis = []
    for ply, (token, theirs) in enumerate(zip(record.moves, expected)):
        at = f"{where} ply {ply} {token!r}"
        if theirs:  # not the null move: the legal-move sets, as (from, to, promotion) in python-chess's numbering
            ours_legal = {(SQUARE64[f], SQUARE64[castled(position, f, t)], p) for f, t, p in position.legal_moves()}
            assert ours_legal == {(m.from_square, m.to_square, m.promotion or 0) for m in board.legal_moves}, at
        move = position.parse_move(token, "san")
        theirs_uci = board.uci(theirs)
        assert write_uci(position, move) == theirs_uci, at
        if theirs:
            assert write_san(position, move) == board.san(theirs), at
        ucis.append(theirs_uci)
        # what decode writes: the move written and played at once, the check mark read after it
        played = {notation: position.copy() for notation in ("san", "uci")}
        assert play_text(played["san"], move, "san") == board.san(theirs), at
        assert play_text(played["uci"], move, "uci") == theirs_uci, at
        position.push(move)
        board.push(theirs)
        assert played["san"].fen() == played["uci"].fen() == position.fen(), at
    assert position.fen() == _fen(board), where
    assert position.is_check() == board.is_check(), where
    return ucis, record.start, len(ucis)


def test_every_game_equals_python_chess(client, capsys):
    files = pgn_files()
    games = plies = refused = read = 0
    api_batch: list[tuple[str, list[str], str | None]] = []
    for path in files:
        split = games_of(path)
        read += len(split)
        chosen = {id(pair) for pair in sample(split, SHARE, path.name)}
        for index, (text, game) in enumerate(split):
            where = f"{path.relative_to(path.parents[1])} game {index}"
            variant = game.headers.get("Variant", "")
            if variant.lower() in VARIANTS_REFUSED:
                with pytest.raises(InvalidRecordError, match=variant):
                    GAME.parse_record(text)
                refused += 1
                continue
            if id(split[index]) not in chosen:
                continue
            ucis, start, n = check_game(text, game, where)
            games += 1
            plies += n
            # chess/0x88 in the library: encode -> decode gives the same moves
            replay = plybits.read_record("chess", moves=ucis, notation="uci", start=start)
            bits = X88.encode(replay.start_position.copy(), replay.moves)
            assert len(bits) == 16 * n
            decoded = X88.decode(replay.start_position.copy(), bits.tobytes(), n, 0)
            assert decoded == replay.moves, where
            api_batch.append((where, ucis, start))
    # ... and through the HTTP API
    for where, ucis, start in api_batch:
        body = {"game": "chess", "scheme": "0x88", "moves": ucis, "notation": "uci"}
        if start is not None:
            body["start"] = start
        encoded = client.post("/v1/encode", json=body)
        assert encoded.status_code == 200, (where, encoded.text)
        decoded = client.post("/v1/decode", json={"data": encoded.json()["data"], "notation": "uci"})
        assert decoded.status_code == 200, (where, decoded.text)
        assert decoded.json()["moves"] == ucis, where
        assert decoded.json()["start"] == start, where
    with capsys.disabled():
        print(f"\nchess data: {len(files)} files, {read} games split alike; {games} of them (a seeded sample), "
              f"{plies} plies equal python-chess "
              f"(SAN read and written, UCI, legal-move sets, final FEN; 0x88 round trip in the library and the API); "
              f"{refused} variant games refused")
    assert refused == 3  # 2 Antichess + 1 Crazyhouse in edge/
    assert read >= 4030 and games >= (read - refused if FULL else len(files))
