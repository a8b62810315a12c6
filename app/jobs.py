"""``POST /v1/jobs`` and ``GET /v1/jobs/{id}``: a whole archive to a Parquet dataset (docs/dataset.md), run by the
service on the configured Dask scheduler (``PLYBITS_DASK_SCHEDULER``) or a local cluster.

Inputs and output are paths under ``PLYBITS_DATA_ROOT`` (unset: jobs are disabled); a path outside it is refused.
The service keeps no job state of its own: a job's id names its output directory, and its state is read from the
files the job writes there (``_job.json`` and the dataset's manifest), so any replica answers for any job. A job
whose service died is resumed by posting it again (finished partitions are kept).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.errors import PROBLEM_BASE, problem_body, problem_response
from plybits import records, registry
from plybits.errors import PlybitsError

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])

DATA_ROOT = "PLYBITS_DATA_ROOT"
SCHEDULER = "PLYBITS_DASK_SCHEDULER"
STATE = "_job.json"
_running: set[str] = set()
_lock = threading.Lock()


class JobRequest(BaseModel):
    """A dataset job: inputs and output relative to the data root."""

    inputs: list[str] = Field(min_length=1, max_length=10_000)
    output: str
    game: str = "chess"
    scheme: str | None = None
    partition_bytes: int | None = Field(None, ge=1 << 16, le=1 << 30, description="default: 32 MB")


class JobStatus(BaseModel):
    """A job's state and progress."""

    id: str
    output: str
    state: Literal["running", "done", "failed"]
    partitions: int
    games: int
    errors: int
    detail: str | None = None


def _problem(status: int, kind: str, title: str, detail: str) -> JSONResponse:
    return problem_response({"type": PROBLEM_BASE + kind, "title": title, "status": status, "detail": detail})


def _root() -> Path | None:
    raw = os.environ.get(DATA_ROOT)
    return Path(raw).resolve() if raw else None


def _inside(root: Path, relative: str) -> Path | None:
    """``relative`` resolved under ``root``, or ``None`` if it leads outside."""
    path = (root / relative).resolve()
    return path if path == root or root in path.parents else None


def job_id(relative_output: str) -> str:
    return base64.urlsafe_b64encode(relative_output.encode("utf-8")).rstrip(b"=").decode("ascii")


def _write_state(out: Path, state: str, detail: str | None = None) -> None:
    temp = out / f".{STATE}.{os.getpid()}.{threading.get_ident()}.tmp"
    temp.write_text(json.dumps({"state": state, "detail": detail, "updated": time.time()}), encoding="utf-8")
    os.replace(temp, out / STATE)


def _run(opts: Any, key: str) -> None:
    from app import dataset

    out = Path(opts.out)
    try:
        dataset.encode_dataset(opts)
        _write_state(out, "done")
    except PlybitsError as err:
        _write_state(out, "failed", str(err))
    except Exception as err:  # the job fails, the service does not
        _write_state(out, "failed", f"{type(err).__name__}: {err}")
    finally:
        with _lock:
            _running.discard(key)


@router.post("", status_code=202, response_model=JobStatus, responses={403: {}, 404: {}, 422: {}})
def post_job(body: JobRequest) -> Any:
    """Start (or resume) a dataset job; answered at once with its id."""
    from app import dataset  # pyarrow is loaded by the first job, not by every service process

    root = _root()
    if root is None:
        return _problem(404, "jobs-disabled", "Jobs are disabled", f"set {DATA_ROOT} to enable jobs")
    paths = [_inside(root, p) for p in [*body.inputs, body.output]]
    if any(p is None for p in paths):
        return _problem(403, "outside-data-root", "Path outside the data root",
                        f"every input and the output must be under {DATA_ROOT}")
    inputs = [p for p in paths[:-1] if p is not None]
    out = paths[-1]
    assert out is not None
    missing = [str(p.relative_to(root)) for p in inputs if not p.is_file()]
    if missing:
        return _problem(422, "invalid-request", "Invalid request", f"no such input: {', '.join(missing)}")
    try:
        scheme = body.scheme or records.seed_scheme(body.game)
        registry.get_scheme(body.game, scheme)
    except PlybitsError as err:
        return problem_response(problem_body(err))
    relative = str(out.relative_to(root))
    opts = dataset.Options([str(p) for p in inputs], str(out), body.game, scheme,
                           body.partition_bytes or dataset.PARTITION_BYTES,
                           scheduler=os.environ.get(SCHEDULER) or None)
    out.mkdir(parents=True, exist_ok=True)
    with _lock:
        start = relative not in _running
        _running.add(relative)
    if start:
        _write_state(out, "running")
        threading.Thread(target=_run, args=(opts, relative), name=f"plybits-job-{relative}", daemon=True).start()
    return JSONResponse(status_of(root, relative).model_dump(), status_code=202)


def status_of(root: Path, relative: str) -> JobStatus:
    from app import dataset

    out = root / relative
    state = json.loads((out / STATE).read_text(encoding="utf-8"))
    partitions = games = errors = 0
    if (out / dataset.MANIFEST).exists():
        summary = dataset.info(str(out))
        partitions, games, errors = summary["partitions"], summary["games"], summary["errors"]
    return JobStatus(id=job_id(relative), output=relative, state=state["state"], partitions=partitions, games=games,
                     errors=errors, detail=state["detail"])


@router.get("/{job}", response_model=JobStatus, responses={404: {}})
def get_job(job: str) -> Any:
    """A job's state (running, done, failed) and progress (partitions written, games, error rows)."""
    root = _root()
    if root is None:
        return _problem(404, "jobs-disabled", "Jobs are disabled", f"set {DATA_ROOT} to enable jobs")
    try:
        relative = base64.urlsafe_b64decode(job + "=" * (-len(job) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        relative = ""
    out = _inside(root, relative) if relative else None
    if out is None or not (out / STATE).is_file():
        return _problem(404, "no-such-job", "No such job", f"no job {job!r}")
    return status_of(root, relative)
