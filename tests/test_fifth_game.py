"""A fifth game needs one folder and one line in the registry (docs/architecture.md): here a whole game,
tic-tac-toe, is defined in this file alone, registered, and run through the library's verbs, the HTTP API and
the batch endpoint without any other file knowing it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, ClassVar, Self, cast

import pytest
from fastapi.testclient import TestClient

import plybits
from app.main import create_app
from app.settings import Settings
from plybits import container, registry, svg
from plybits.bitio import BitReader, BitWriter
from plybits.errors import IllegalMoveError, InvalidDataError, InvalidMoveError, InvalidPositionError, PlybitsError
from plybits.game import Game, MoveScheme, Speaks, notation_of
from plybits.records import write_moves

NAMES = [f + r for r in "123" for f in "abc"]
"""Cell names by number: a1 b1 c1 a2 ... c3."""
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
CODEC_ID = 0x41
"""Unused by the four games (docs/format.md's table)."""


class Board:
    """A tic-tac-toe position: nine cells ``"x"``, ``"o"`` or ``"."``, and the side to move. A move is a cell number."""

    def __init__(self, start: str = ".../.../... x") -> None:
        rows, _, side = start.partition(" ")
        cells = rows.replace("/", "")
        if len(cells) != 9 or set(cells) - set("xo.") or side not in ("x", "o"):
            raise InvalidPositionError(f"not a tic-tac-toe position: {start!r}")
        self.cells = list(cells)
        self.turn = side

    def copy(self) -> Self:
        other = self.__class__.__new__(self.__class__)
        other.cells, other.turn = self.cells.copy(), self.turn
        return other

    def winner(self) -> str | None:
        for a, b, c in LINES:
            if self.cells[a] != "." and self.cells[a] == self.cells[b] == self.cells[c]:
                return self.cells[a]
        return None

    def legal_moves(self) -> list[int]:
        if self.winner() is not None:
            return []
        return [n for n, cell in enumerate(self.cells) if cell == "."]

    def push(self, move: int) -> None:
        self.cells[move] = self.turn
        self.turn = "o" if self.turn == "x" else "x"


class Cells:
    """The notation (what a game's ``notation.py`` holds): cells named ``a1``..``c3``."""

    @staticmethod
    def parse_move(board: Board, text: str, notation: str | None = None) -> int:
        if text not in NAMES:
            raise InvalidMoveError(f"not a cell: {text!r}")
        move = NAMES.index(text)
        if move not in board.legal_moves():
            raise IllegalMoveError(f"{text} is taken or the game is over")
        return move

    @staticmethod
    def move_text(board: Board, move: int, notation: str | None = None) -> str:
        return NAMES[move]


class Position(Board, Speaks[int]):
    """The board speaking :class:`plybits.game.Position` through its notation."""

    notation_module = Cells()

    def fen(self) -> str:
        rows = "".join(self.cells)
        return f"{rows[0:3]}/{rows[3:6]}/{rows[6:9]} {self.turn}"

    def status(self) -> dict[str, Any]:
        winner = self.winner()
        if winner is not None:
            return {"status": "won", "winner": winner}
        return {"status": "ongoing" if "." in self.cells else "draw"}

    def occupied(self) -> list[tuple[int, int, str]]:
        return [(n % 3, n // 3, cell) for n, cell in enumerate(self.cells) if cell != "."]


class TicTacToe(Game[Position]):
    name: ClassVar[str] = "tictactoe"
    notations: ClassVar[tuple[str, ...]] = ("cells",)
    starts: ClassVar[tuple[str, ...]] = ("empty",)
    seed_scheme: ClassVar[str] = "t4"

    def position(self, start: str | None = None) -> Position:
        return Position() if start in (None, "empty") else Position(start)


class T4Scheme(MoveScheme[Board, int]):
    """4 bits a ply: the cell number."""

    game = "tictactoe"
    name: ClassVar[str] = "t4"
    codec_id = CODEC_ID
    bits_per_ply: ClassVar[float | None] = 4.0

    def write_move(self, writer: BitWriter, position: Board, move: int) -> None:
        writer.write(move, 4)

    def read_move(self, reader: BitReader, position: Board) -> int:
        move = reader.read(4)
        if move not in position.legal_moves():
            raise InvalidDataError(f"cell {move} is not a legal move")
        return move


GAME = TicTacToe()
T4 = T4Scheme()
MOVES = ["b2", "a1", "c1", "a3", "a2", "c2", "b1", "b3", "c3"]
"""A drawn game."""
WON = ["a1", "b1", "a2", "b2", "a3"]


@pytest.fixture
def tictactoe() -> Iterator[None]:
    """The game registered for one test, and forgotten after it (other tests see the four games only)."""
    registry.games()  # the four games first, as the service would have them
    registry.register(GAME, T4)
    try:
        yield
    finally:
        registry.unregister_game(GAME.name)


@pytest.fixture
def api() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(access_log=False))) as client:
        yield client


def test_the_verbs(tictactoe: None) -> None:
    encoded = plybits.encode("tictactoe", "t4", moves=MOVES)
    assert plybits.records.peek(encoded.data) == ("tictactoe", "t4", len(MOVES))
    assert encoded.payload_bits == 4 * len(MOVES) and encoded.final_position == "oxx/xxo/oox o"
    decoded = plybits.decode(encoded.data)
    assert (decoded.game, decoded.scheme, decoded.moves, decoded.final_position) == (
        "tictactoe", "t4", MOVES, "oxx/xxo/oox o")
    replay = plybits.read_record("tictactoe", moves=WON)
    assert replay.final.status() == {"status": "won", "winner": "x"}
    assert plybits.convert("tictactoe", moves=MOVES, to_notation="cells") == MOVES
    position, legal = plybits.legal_moves("tictactoe", moves=MOVES[:7])
    assert (position, legal) == ("oxx/xxo/o.. o", ["b3", "c3"])
    assert plybits.records.seed_scheme("tictactoe") == "t4"
    with pytest.raises(PlybitsError) as err:
        plybits.encode("tictactoe", "t4", moves=["a1", "a1"])
    assert err.value.ply == 1
    twice_a1 = container.pack(container.Container(codec_id=CODEC_ID, scheme_version=0, plies=2, payload=b"\x00"))
    with pytest.raises(InvalidDataError) as bad:
        plybits.decode(twice_a1)
    assert bad.value.ply == 1


def test_the_game_is_gone_after_its_test() -> None:
    assert "tictactoe" not in [g.name for g in registry.games()]
    assert "t4" not in [s.name for s in registry.schemes()]


def test_the_api(tictactoe: None, api: TestClient) -> None:
    assert {"game": "tictactoe", "scheme": "t4"}.items() <= next(
        c for c in api.get("/v1/codecs").json() if c["game"] == "tictactoe").items()
    r = api.post("/v1/encode", json={"game": "tictactoe", "scheme": "t4", "moves": MOVES})
    assert r.status_code == 200, r.text
    data = r.json()["data"]
    assert data == plybits.records.b64url(plybits.encode("tictactoe", "t4", moves=MOVES).data)
    r = api.post("/v1/decode", json={"data": data})
    assert r.status_code == 200 and r.json()["moves"] == MOVES
    r = api.post("/v1/validate", json={"game": "tictactoe", "moves": WON})
    assert r.json()["valid"] is True and r.json()["status"]["winner"] == "x"
    r = api.post("/v1/validate", json={"game": "tictactoe", "moves": ["a1", "a1"]})
    assert r.json()["valid"] is False and r.json()["error"]["ply"] == 1
    r = api.post("/v1/convert", json={"game": "tictactoe", "moves": MOVES, "to_notation": "cells"})
    assert r.status_code == 200 and r.json()["moves"] == MOVES
    r = api.post("/v1/moves", json={"game": "tictactoe", "moves": MOVES[:7]})
    assert r.json() == {"position": "oxx/xxo/o.. o", "legal": ["b3", "c3"]}
    r = api.post("/v1/encode", json={"game": "tictactoe", "scheme": "t4", "moves": ["z9"]})
    assert r.status_code == 422


def test_the_batch_endpoint(tictactoe: None, api: TestClient) -> None:
    lines = [{"game": "tictactoe", "scheme": "t4", "moves": MOVES}, {"game": "tictactoe", "scheme": "t4", "moves": ["a1", "a1"]}]
    r = api.post("/v1/batch/encode", content="\n".join(map(json.dumps, lines)) + "\n",
                 headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 200
    out = [json.loads(line) for line in r.text.splitlines() if line]
    assert out[0]["result"]["data"] == plybits.records.b64url(plybits.encode("tictactoe", "t4", moves=MOVES).data)
    assert out[1]["error"]["ply"] == 1


def test_no_drawing_is_a_clear_error(tictactoe: None) -> None:
    with pytest.raises(PlybitsError, match="no board drawing"):
        svg.render("tictactoe", None)


class SelfSpoken(Board):
    """A position that reads and writes its moves by its own methods (no :class:`Speaks` notation module)."""

    def parse_move(self, text: str, notation: str | None = None) -> int:
        return Cells.parse_move(self, text, notation)

    def move_text(self, move: int, notation: str | None = None) -> str:
        return "cell " + Cells.move_text(self, move, notation)

    fen = Position.fen
    status = Position.status
    occupied = Position.occupied


def test_hot_loops_speak_through_the_notation_module_or_the_position() -> None:
    spoken = Position()
    assert notation_of(spoken) is cast(object, Position.notation_module)
    assert notation_of(spoken).parse_move(spoken, "b2") == 4
    own = SelfSpoken()
    assert notation_of(own).parse_move(own, "b2") == 4
    assert notation_of(own).move_text(own, 4) == "cell b2"
    with pytest.raises(IllegalMoveError):
        own.push(4)
        notation_of(own).parse_move(own, "b2")
    assert write_moves(SelfSpoken(), [0, 4]) == ["cell a1", "cell b2"]
