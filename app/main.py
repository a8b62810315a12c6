"""The ASGI application: ``uvicorn app.main:app``."""

from __future__ import annotations

from fastapi import FastAPI

import plybits
from app import errors
from app.routes import router
from app.settings import Settings
from plybits import registry


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the service with ``settings`` (read from the environment when omitted)."""
    application = FastAPI(
        title="plybits",
        version=plybits.__version__,
        description="Board-game records as compact bit streams: encode, decode, validate, convert.",
    )
    application.state.settings = settings or Settings.from_env()
    registry.games()  # import every game package once, at start-up
    errors.install(application)

    @application.get("/healthz", tags=["health"])
    def healthz() -> dict[str, str]:
        """Liveness: the process answers."""
        return {"status": "ok"}

    application.include_router(router)
    return application


app = create_app()
