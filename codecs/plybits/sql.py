"""SQL over an archive (:mod:`plybits.archive`): a DuckDB connection whose view ``games`` is the dataset, one row
per game, with scalar functions that replay each row's mainline in the compiled core.

    con = plybits.sql.connect("out/")
    con.sql("select game_id, ply_count(body) from games where reaches(body, 'rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/"
            "2N5/PPP2PPP/R1BQKB1R w KQkq -')")

Functions of the ``body`` column (the moves): ``uci``, ``san``, ``ply_count``, ``fen_at``, ``reaches``,
``matches_subfen``, ``first_moves``; functions of the whole row (``games``, the row as a struct: the record
section is read with the tag columns as its context): ``clocks``, ``evals``, ``to_pgn``. Each is registered as an
Arrow function: DuckDB hands it a column of rows at a time, and each row is one replay of the compiled core
(``ply_count`` and ``first_moves`` read no more than they need). For games other than chess, ``uci`` and ``san``
write the game's machine and human notations (:data:`NOTATIONS`) and the position strings are the game's own.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
from duckdb import func
import pyarrow as pa
import pyarrow.parquet as pq

from plybits import archive
from plybits.chess import squares as chess_squares
from plybits.errors import InvalidDataError, InvalidPositionError
from plybits.game import Position
from plybits.openings import FIRST_PLIES, first_moves
from plybits.registry import AnyScheme, get_game

NOTATIONS: dict[str, tuple[str, str]] = {"chess": ("uci", "san"), "xiangqi": ("iccs", "wxf")}
"""The notations ``uci(x)`` and ``san(x)`` write, by game; any other game writes its default notation for both."""
KEY_FIELDS = 4
"""``reaches`` compares at most the first four fields of a position string (chess: placement, side to move,
castling, en passant; the move counters are not compared)."""


# --- the one adapter: a row's binary column and the dataset's metadata to a replay ---------------------------


@dataclass
class Mainline:
    """A row's mainline, ready to replay: its scheme, start and payload."""

    scheme: AnyScheme
    start: Position[Any]
    payload: bytes
    plies: int
    version: int

    def replay(self, observe: Callable[[Any, Any], None] | None = None) -> Position[Any]:
        """Play the moves (each checked legal) from a copy of the start, ``observe(position, move)`` seeing each
        before it is played; the final position. An exception ``observe`` raises stops the replay."""
        final = self.start.copy()
        self.scheme.decode(final, self.payload, self.plies, self.version, observe)
        return final

    def texts(self, notation: str) -> list[str]:
        """The moves written in ``notation``."""
        return self.scheme.decode_texts(self.start.copy(), self.payload, self.plies, self.version, notation)[1]


def mainline(body: bytes, meta: archive.Meta) -> Mainline:
    """The mainline of an archive row's ``body`` (the one place that knows the row format).

    :raises InvalidDataError: if ``body`` is malformed.
    """
    parts = archive.read_body(body, meta)
    start = _STARTS.get((meta.game, parts.start))
    if start is None:
        if len(_STARTS) > 1000:
            _STARTS.clear()
        start = _STARTS[meta.game, parts.start] = get_game(meta.game).position(parts.start)
    return Mainline(meta.coder(), start, parts.payload, parts.plies, meta.scheme_version)


_STARTS: dict[tuple[str, str | None], Position[Any]] = {}
"""Start positions set up, by game and stored start (setting up a chess start costs about a ply's replay); a
:class:`Mainline` only copies its start."""


def record_notes(row: dict[str, Any], meta: archive.Meta) -> list[list[str]]:
    """The comment texts of each mainline move of a whole row (one list a ply)."""
    game = archive.game_of(row, meta)
    return [[c.text for c in step.comments] for step in game.notes.steps] or [[] for _ in game.moves]


# --- what each function computes, for one row ----------------------------------------------------------------


class _Stop(Exception):
    """Ends a replay early (the answer is known)."""


def fen_at(line: Mainline, ply: int) -> str | None:
    """The position string after ``ply`` moves (0: the start; negative counts from the end, -1 the final
    position); ``None`` when the game is shorter."""
    index = ply if ply >= 0 else line.plies + 1 + ply
    if not 0 <= index <= line.plies:
        return None
    if index == line.plies:
        return line.replay().fen()
    seen: list[str] = []

    def observe(position: Any, move: Any) -> None:
        if len(seen) == index:
            seen.append(position.fen())
            raise _Stop
        seen.append("")

    try:
        line.replay(observe)
    except _Stop:
        pass
    return seen[index]


class Target:
    """A position string to find: the position it sets up, and the fields compared (at most :data:`KEY_FIELDS`)."""

    def __init__(self, game: str, text: str) -> None:
        fields = text.split()
        if not fields:
            raise InvalidPositionError(f"empty position string {text!r}")
        position = get_game(game).position(" ".join(fields))
        self.cells = position.cells
        self.count = min(len(fields), KEY_FIELDS)
        self.key = position.fen().split()[: self.count]

    def matches(self, position: Any) -> bool:
        return bool(position.cells == self.cells) and position.fen().split()[: self.count] == self.key


def reaches(line: Mainline, target: Target) -> bool:
    """Whether some position of the mainline (the start, after each move) is ``target``; stops at the first."""
    def observe(position: Any, move: Any) -> None:
        if position.cells == cells and target.matches(position):
            raise _Stop

    cells = target.cells
    try:
        final = line.replay(observe)
    except _Stop:
        return True
    return target.matches(final)


_RUN = re.compile(r"[0-9]+|.")


def _grid(placement: str) -> list[str]:
    """A placement field with its runs of empty squares written out as dots, row by row."""
    return ["".join("." * int(t) if t.isdigit() else t for t in _RUN.findall(row)) for row in placement.split("/")]


class Pattern:
    """A placement (a position string's first field) whose pieces a position must have, other squares free."""

    def __init__(self, game: str, placement: str) -> None:
        shape = [len(row) for row in _grid(get_game(game).position(None).fen().split()[0])]
        grid = _grid(placement.strip())
        if [len(row) for row in grid] != shape:
            raise InvalidPositionError(f"placement {placement!r} does not have the board's rows "
                                       f"({'/'.join(map(str, shape))} squares)")
        self.pieces = [(r, c, p) for r, row in enumerate(grid) for c, p in enumerate(row) if p != "."]
        self.cells = _chess_cells(self.pieces, placement) if game == "chess" else None
        """Chess: the pieces as ``(cell, piece code)`` of the board's cells, compared without a position string."""

    def matches(self, position: Any) -> bool:
        if self.cells is not None:
            cells = position.cells
            return all(cells[i] == code for i, code in self.cells)
        grid = _grid(position.fen().split(" ", 1)[0])
        return all(grid[r][c] == p for r, c, p in self.pieces)


def _chess_cells(pieces: list[tuple[int, int, str]], placement: str) -> list[tuple[int, int]]:
    """A chess placement's pieces as ``(cell, piece code)`` (rows from the 8th rank down, as FEN writes them)."""
    wrong = sorted({p for _, _, p in pieces if p not in chess_squares.PIECE_OF_SYMBOL})
    if wrong:
        raise InvalidPositionError(f"placement {placement!r} has no piece {''.join(wrong)!r}")
    return [(chess_squares.square(c, 7 - r), chess_squares.PIECE_OF_SYMBOL[p]) for r, c, p in pieces]


def matches_subfen(line: Mainline, pattern: Pattern) -> bool:
    """Whether some position of the mainline has at least ``pattern``'s pieces on their squares."""
    def observe(position: Any, move: Any) -> None:
        if pattern.matches(position):
            raise _Stop

    try:
        final = line.replay(observe)
    except _Stop:
        return True
    return pattern.matches(final)


def opening(line: Mainline, plies: int = FIRST_PLIES) -> str:
    """The first ``plies`` moves (:func:`plybits.openings.first_moves`), decoding no further."""
    moves: list[Any] = []

    def observe(position: Any, move: Any) -> None:
        if len(moves) == plies:
            raise _Stop
        moves.append(move)

    try:
        line.replay(observe)
    except _Stop:
        pass
    return first_moves(line.start, moves, plies)


_CLOCK = re.compile(r"\[%clk ([0-9]+):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,2}))?\]")
_EVAL = re.compile(r"\[%eval ([^\[\]]*)\]")


def clocks(notes: list[list[str]]) -> list[int | None]:
    """Each ply's ``[%clk]`` in centiseconds, ``None`` where it has none."""
    out: list[int | None] = []
    for texts in notes:
        match = next((m for m in map(_CLOCK.search, texts) if m), None)
        if match is None:
            out.append(None)
            continue
        hours, minutes, seconds, fraction = match.groups()
        out.append(((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 100 + int((fraction or "0").ljust(2, "0")))
    return out


def evals(notes: list[list[str]]) -> list[str | None]:
    """Each ply's ``[%eval]`` as written (``0.24``, ``#-3``), ``None`` where it has none."""
    return [next((m[1] for m in map(_EVAL.search, texts) if m), None) for texts in notes]


# --- DuckDB ----------------------------------------------------------------------------------------------------


def part_files(path: str | Sequence[str]) -> list[str]:
    """The Parquet files of a dataset directory in game order (part files are named in source order), a file, or
    the files given.

    :raises InvalidDataError: if there is none.
    """
    if not isinstance(path, str):
        files = list(path)
    elif os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(glob.escape(path), "*.parquet")))
    else:
        files = [path]
    if not files:
        raise InvalidDataError(f"no Parquet files in {path!r}")
    return files


def dataset_meta(files: Sequence[str]) -> archive.Meta:
    """The :class:`~plybits.archive.Meta` every file shares.

    :raises InvalidDataError: if a file is not an archive, or the files are of different games or schemes.
    """
    metas = {archive.Meta.from_schema(pq.read_schema(f)) for f in files}
    if len(metas) != 1:
        raise InvalidDataError(f"the files hold different archives: {sorted(map(repr, metas))}")
    return metas.pop()


def connect(path: str | Sequence[str], database: str = ":memory:") -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the view ``games`` over the archive at ``path`` (:func:`part_files`) and the
    functions of this module registered for its game.

    :raises InvalidDataError: if ``path`` holds no archive.
    """
    files = part_files(path)
    meta = dataset_meta(files)
    con = duckdb.connect(database)
    view(con, files)
    register(con, meta, con.sql("select games from games limit 0").types[0])
    return con


def connect_table(table: pa.Table, meta: archive.Meta) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection whose view ``games`` is ``table`` (rows of ``meta``'s archive already read, e.g. by
    :func:`plybits.archive.read_file`, which checks every page's CRC), with the functions of this module."""
    con = duckdb.connect()
    con.register("archive_rows", table)
    con.execute("create view games as select * from archive_rows")
    register(con, meta, con.sql("select games from games limit 0").types[0])
    return con


def view(con: duckdb.DuckDBPyConnection, files: Sequence[str]) -> None:
    """(Re)define ``con``'s view ``games`` over ``files``, in their order (a connection reused for another part of
    the same archive keeps its functions)."""
    listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    con.execute(f"create or replace view games as select * from read_parquet([{listed}])")


def query(path: str | Sequence[str], sql: str) -> pa.Table:
    """The result of ``sql`` over :func:`connect`'s view ``games`` of ``path``, as an Arrow table."""
    with connect(path) as con:
        result: pa.Table = con.sql(sql).to_arrow_table()
        return result


def _arrow(each: Callable[..., Any], result: pa.DataType, arity: int) -> Callable[..., pa.Array]:
    """A DuckDB Arrow function of ``arity`` arguments calling ``each`` per row (``None`` for a row with a null
    argument)."""
    def call(*columns: Any) -> pa.Array:
        rows = zip(*(c.to_pylist() for c in columns), strict=True)
        return pa.array([None if None in row else each(*row) for row in rows], type=result)

    if arity == 1:  # DuckDB reads the arity from the signature
        return lambda a: call(a)
    return lambda a, b: call(a, b)


def _cached(make: Callable[[str], Any]) -> Callable[[str], Any]:
    """``make`` remembered by its argument (a query passes the same position string on every row)."""
    made: dict[str, Any] = {}
    return lambda text: made[text] if text in made else made.setdefault(text, make(text))


def register(con: duckdb.DuckDBPyConnection, meta: archive.Meta, row: Any) -> None:
    """Register the functions over ``meta``'s rows on ``con``; ``row`` is the DuckDB type of a whole row."""
    game = meta.game
    machine, human = NOTATIONS.get(game, (get_game(game).notations[0],) * 2)
    target = _cached(lambda text: Target(game, text))
    pattern = _cached(lambda text: Pattern(game, text))

    def line(body: bytes) -> Mainline:
        return mainline(body, meta)

    def notes(value: dict[str, Any]) -> list[list[str]]:
        return record_notes(value, meta)

    text, texts, blob = pa.string(), pa.list_(pa.string()), duckdb.sqltype("BLOB")
    functions: Iterable[tuple[str, Callable[..., Any], list[Any], pa.DataType, str]] = [
        ("uci", lambda b: line(b).texts(machine), [blob], texts, "VARCHAR[]"),
        ("san", lambda b: line(b).texts(human), [blob], texts, "VARCHAR[]"),
        ("ply_count", archive.ply_count, [blob], pa.int32(), "INTEGER"),
        ("fen_at", lambda b, p: fen_at(line(b), p), [blob, "INTEGER"], text, "VARCHAR"),
        ("reaches", lambda b, f: reaches(line(b), target(f)), [blob, "VARCHAR"], pa.bool_(), "BOOLEAN"),
        ("matches_subfen", lambda b, f: matches_subfen(line(b), pattern(f)), [blob, "VARCHAR"], pa.bool_(),
         "BOOLEAN"),
        ("first_moves", lambda b: opening(line(b), meta.opening_plies), [blob], text, "VARCHAR"),
        ("clocks", lambda r: clocks(notes(r)), [row], pa.list_(pa.int32()), "INTEGER[]"),
        ("evals", lambda r: evals(notes(r)), [row], texts, "VARCHAR[]"),
        ("to_pgn", lambda r: archive.record_of(r, meta), [row], text, "VARCHAR"),
    ]
    for name, each, parameters, result, sql_type in functions:
        con.create_function(name, _arrow(each, result, len(parameters)), parameters, sql_type,
                            type=func.PythonUDFType.ARROW, null_handling=func.FunctionNullHandling.SPECIAL)
    con.execute("create macro starts_with_moves(line, prefix) as starts_with(line || ' ', trim(prefix) || ' ')")


__all__ = ["KEY_FIELDS", "NOTATIONS", "Mainline", "Pattern", "Target", "clocks", "connect", "connect_table",
           "dataset_meta",
           "evals", "fen_at", "mainline", "matches_subfen", "opening", "part_files", "query", "reaches",
           "record_notes", "register", "view"]
