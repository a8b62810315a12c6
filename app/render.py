"""Pictures and the playground: ``GET /v1/render`` (a board as SVG), ``POST /v1/replay``, ``GET /``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import FileResponse, Response
from pydantic import BaseModel, ConfigDict, Field

import plybits
from app.models import GameStatus, MoveError, Text
from app.routes import PROBLEMS, problem_responses
from plybits import registry, svg
from plybits.errors import PlybitsError

STATIC = Path(__file__).resolve().parent / "static"
MEDIA_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
               ".css": "text/css; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml",
               ".png": "image/png"}

RENDER_PROBLEMS = problem_responses((422, "invalid game, position, last move or size"))

router = APIRouter()


class SvgResponse(Response):
    media_type = "image/svg+xml"


@router.get(
    "/v1/render",
    response_class=SvgResponse,
    responses={200: {"content": {"image/svg+xml": {}}, "description": "the board as SVG"}, **RENDER_PROBLEMS},
    tags=["render"],
)
def render(
    game: Annotated[str, Query(description="game name, as in /v1/codecs", examples=["chess"])],
    position: Annotated[str | None, Query(
        description="position string (as /v1/moves and final_position give) or a start name; "
                    "the game's default start when omitted", max_length=512)] = None,
    last: Annotated[str | None, Query(
        description="cells of the last move to highlight, named as the game names them: "
                    "e2e4, h2e2, e6e8f6, Rd4d7", max_length=64)] = None,
    flip: Annotated[bool, Query(description="turn the board by 180 degrees (second player at the bottom)")] = False,
    size: Annotated[int | None, Query(
        description=f"pixel width ({svg.MIN_SIZE}..{svg.MAX_SIZE}); the picture scales from its viewBox")] = None,
) -> Response:
    """The position drawn as SVG."""
    return SvgResponse(svg.render(game, position, last=last, flip=flip, size=size),
                       headers={"Cache-Control": "public, max-age=3600"})


class ReplayRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: Text = Field(examples=["chess"])
    moves: list[Text] | None = Field(None, examples=[["e4", "e5", "Nf3"]])
    record: Text | None = Field(None, description="a whole record (PGN, xqbase PGN, APGN, token list)")
    notation: Text | None = Field(None, description="notation of the moves; any of the game's when omitted")
    start: Text | None = None


class ReplayResponse(BaseModel):
    start: str = Field(description="the start position string")
    moves: list[str] = Field(description="the moves read, in the game's default notation")
    positions: list[str] = Field(description="the position after each move")
    last: list[str] = Field(description="each move written with its cells, for /v1/render's last=")
    status: GameStatus | None = Field(None, description="the state after the last move read")
    error: MoveError | None = Field(None, description="the first bad ply; the lists stop before it")


@router.post("/v1/replay", response_model=ReplayResponse, response_model_exclude_none=True, responses=PROBLEMS,
             tags=["render"])
def replay(body: ReplayRequest, request: Request) -> ReplayResponse:
    """Every position of a game, move by move, for drawing it (stops at the first bad ply)."""
    max_plies = request.app.state.settings.max_plies
    error: MoveError | None = None
    try:
        read = plybits.read_record(body.game, moves=body.moves, record=body.record, notation=body.notation,
                                   start=body.start, max_plies=max_plies)
        start, played, final = read.start_position, read.moves, read.final
    except PlybitsError as err:
        if err.ply is None:
            raise
        error = MoveError(ply=err.ply, move=err.move, reason=err.reason)
        # The moves before the bad ply are good: read them again to show the board up to it.
        good = plybits.read_record(body.game, moves=_tokens(body)[: err.ply], notation=body.notation,
                                   start=_start(body), max_plies=max_plies)
        start, played, final = good.start_position, good.moves, good.final
    cells = svg.renderer(body.game).LAST_NOTATION
    position = start.copy()
    moves, positions, last = [], [], []
    for move in played:
        moves.append(position.move_text(move))
        text = position.move_text(move, cells)
        last.append(text if svg.names_cells(text) else "")  # a null move highlights nothing
        position.push(move)
        positions.append(position.fen())
    status = None if error else GameStatus(**final.status())
    return ReplayResponse(start=start.fen(), moves=moves, positions=positions, last=last, status=status, error=error)


def _tokens(body: ReplayRequest) -> list[str]:
    if body.moves is not None:
        return list(body.moves)
    return registry.get_game(body.game).parse_record(body.record or "").moves


def _start(body: ReplayRequest) -> str | None:
    if body.start is not None or body.record is None:
        return body.start
    return registry.get_game(body.game).parse_record(body.record).start


@router.get("/", include_in_schema=False)
def playground() -> FileResponse:
    """The playground page."""
    return FileResponse(STATIC / "index.html", media_type=MEDIA_TYPES[".html"])


@router.get("/static/{name}", include_in_schema=False)
def static(name: str) -> FileResponse:
    """A file of the playground (only files directly in app/static)."""
    path = STATIC / name
    if "/" in name or name.startswith(".") or path.suffix not in MEDIA_TYPES or not path.is_file():
        raise HTTPException(status_code=404, detail=f"no static file {name!r}")
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix])
