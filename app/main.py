"""The ASGI application: ``uvicorn app.main:app``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

import plybits
from app import batch, errors, jobs, observe, render
from app.headers import SecurityHeadersMiddleware
from app.limits import BodyLimitMiddleware
from app.routes import router
from app.settings import Settings
from app.work import Workers
from plybits import compiled, registry


@asynccontextmanager
async def lifespan(application: FastAPI) -> AsyncIterator[None]:
    """Start the worker processes before the first request; stop them, and any running job, at shut-down."""
    workers: Workers = application.state.workers
    logging.getLogger("uvicorn.error").info("plybits %s: %s", plybits.__version__, compiled.describe())
    await workers.start()
    try:
        yield
    finally:
        application.state.jobs.close()
        workers.close()


def create_app(settings: Settings | None = None) -> FastAPI:
    """Build the service with ``settings`` (read from the environment when omitted)."""
    settings = settings or Settings.from_env()
    application = FastAPI(
        title="plybits",
        version=plybits.__version__,
        description="Board-game records as compact bit streams: encode, decode, validate, convert.",
        lifespan=lifespan,
        docs_url=None,  # /docs and /redoc are app.render's: their scripts served from here, not a CDN
        redoc_url=None,
    )
    application.state.settings = settings
    # The worker processes start with the app (or at first use), app.service and app.batchcore imported:
    # their functions are the work (single requests, and heavy batch lines).
    application.state.workers = Workers(settings, preload=("app.service", "app.batchcore"))
    application.state.jobs = jobs.Jobs(settings)
    registry.games()  # import every game package once, at start-up
    observe.BUILD.labels(*compiled.build()).set(1)
    errors.install(application)
    if settings.access_log:
        observe.configure_access_log()
    # The last added is the outermost: the access log sees the limit's 413 too, and every answer gets the headers.
    application.add_middleware(BodyLimitMiddleware, settings=settings)
    application.add_middleware(observe.ObserveMiddleware, log=settings.access_log)
    application.add_middleware(SecurityHeadersMiddleware)

    @application.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        """Liveness: the process answers."""
        kind, why = compiled.build()
        return {"status": "ok", "build": kind, "build_detail": why}

    application.include_router(router)
    application.include_router(batch.router)
    application.include_router(observe.router)
    application.include_router(render.router)
    application.include_router(jobs.router)
    application.mount("/static", render.PlaygroundFiles(), name="static")
    return application


app = create_app()
