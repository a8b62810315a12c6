"""Pictures and pages: ``GET /v1/render`` (a board as SVG), ``POST /v1/replay``, the playground (``GET /``) and
the API docs pages (``GET /docs``, Swagger UI; ``GET /redoc``, ReDoc).

The playground's other files and the docs pages' scripts and style sheet are served under ``/static``
(:class:`PlaygroundFiles`, mounted in ``app/main.py``): nothing is loaded from a CDN, so every page works offline.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import FileResponse, HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import Scope

from app.models import GameStatus, MoveError, Text
from app.routes import PROBLEMS, problem_responses
from app.service import move_error, settings_of
from plybits import records, svg

STATIC = Path(__file__).resolve().parent / "static"
"""The playground's files."""
DOCS_ASSETS = ("fastapi_offline", "static")
"""The package folder (of the ``fastapi-offline`` distribution) that holds Swagger UI's and ReDoc's bundles:
``swagger-ui-bundle.js``, ``swagger-ui.css``, ``redoc.standalone.js``."""
MEDIA_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
               ".css": "text/css; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml",
               ".png": "image/png"}


class PlaygroundFiles(StaticFiles):
    """:data:`STATIC`, then :data:`DOCS_ASSETS`, each file with its suffix's media type in :data:`MEDIA_TYPES`
    (whatever the host's ``mime.types`` says)."""

    def __init__(self) -> None:
        super().__init__(directory=STATIC, packages=[DOCS_ASSETS])

    def file_response(
        self, full_path: PathLike, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        media_type = MEDIA_TYPES.get(Path(full_path).suffix)
        if media_type is not None and "content-type" in response.headers:
            response.headers["content-type"] = media_type
        return response

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
    result = records.validate(body.game, moves=body.moves, record=body.record, notation=body.notation,
                              start=body.start, max_plies=settings_of(request).max_plies)
    steps = records.walk(result.replay, (None, svg.renderer(body.game).LAST_NOTATION))
    return ReplayResponse(
        start=steps.start,
        moves=[text for text, _ in steps.moves],
        positions=steps.positions,
        last=[cells if svg.names_cells(cells) else "" for _, cells in steps.moves],  # a null move highlights nothing
        status=GameStatus(**result.status) if result.error is None else None,
        error=move_error(result.error) if result.error is not None else None,
    )


@router.get("/", include_in_schema=False)
def playground() -> FileResponse:
    """The playground page."""
    return FileResponse(STATIC / "index.html", media_type=MEDIA_TYPES[".html"])


@router.get("/docs", include_in_schema=False)
def swagger_ui(request: Request) -> HTMLResponse:
    """Swagger UI on the OpenAPI document, its bundle and style sheet served from here."""
    root = request.scope.get("root_path", "").rstrip("/")
    return get_swagger_ui_html(
        openapi_url=root + request.app.openapi_url, title=f"{request.app.title} - Swagger UI",
        swagger_js_url=f"{root}/static/swagger-ui-bundle.js", swagger_css_url=f"{root}/static/swagger-ui.css",
        swagger_favicon_url=f"{root}/favicon.ico", oauth2_redirect_url=f"{root}/docs/oauth2-redirect",
        swagger_ui_parameters={"validatorUrl": None})  # no validity badge fetched from validator.swagger.io


@router.get("/docs/oauth2-redirect", include_in_schema=False)
def swagger_ui_redirect() -> HTMLResponse:
    """Swagger UI's OAuth2 redirect page (as FastAPI's own /docs has it)."""
    return get_swagger_ui_oauth2_redirect_html()


@router.get("/redoc", include_in_schema=False)
def redoc(request: Request) -> HTMLResponse:
    """ReDoc on the OpenAPI document, its bundle served from here and no web fonts."""
    root = request.scope.get("root_path", "").rstrip("/")
    return get_redoc_html(openapi_url=root + request.app.openapi_url, title=f"{request.app.title} - ReDoc",
                          redoc_js_url=f"{root}/static/redoc.standalone.js", redoc_favicon_url=f"{root}/favicon.ico",
                          with_google_fonts=False)


@router.get("/favicon.ico", include_in_schema=False)
def favicon() -> FileResponse:
    """The icon browsers ask for on their own (an SVG, as the page's ``<link rel="icon">`` names it too)."""
    return FileResponse(STATIC / "favicon.svg", media_type=MEDIA_TYPES[".svg"],
                        headers={"cache-control": "public, max-age=86400"})
