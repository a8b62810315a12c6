"""``POST /v1/jobs`` and ``GET /v1/jobs/{id}``: a whole archive to a Parquet dataset (docs/dataset.md), run by the
service on the configured Dask scheduler (``PLYBITS_DASK_SCHEDULER``) or a local cluster.

Inputs and output are paths under ``PLYBITS_DATA_ROOT`` (unset: jobs are disabled), each resolved to a real local
path inside the root before anything opens it (:func:`resolve`). Each job runs in a process of its own, at a lower
priority, never beside the event loop; at most ``Settings.max_jobs`` run at once (one more is a 503 with
``Retry-After``), and a job's processes die with the service. The service keeps no job state of its own: a job's id
names its output directory, and its state is read from the files the job writes there (``_job.json`` and the
dataset's manifest), so any replica answers for any job. A job whose service died is resumed by posting it again
(finished partitions are kept).
"""

from __future__ import annotations

import base64
import binascii
import json
import multiprocessing
import os
import re
import threading
import time
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from app.errors import MAX_DETAIL_CHARS, PROBLEM_BASE, clipped, problem_body, problem_response
from app.models import Text
from app.orphans import die_with_parent
from app.settings import Settings
from app.work import OverloadedError
from plybits import records, registry
from plybits.errors import PlybitsError

router = APIRouter(prefix="/v1/jobs", tags=["jobs"])

DATA_ROOT = "PLYBITS_DATA_ROOT"
SCHEDULER = "PLYBITS_DASK_SCHEDULER"
STATE = "_job.json"
JOB_NICENESS = 19
"""How much lower a job's processes' scheduling priority is than the event loop's: the lowest there is (a job is
batch work; the worker processes, which answer requests, are at 10)."""
RETRY_AFTER_SECONDS = 30
"""What a client refused because every job slot is taken is told to wait."""
MAX_PATH_BYTES = 1024
"""Longest input or output path, in UTF-8 bytes."""
MAX_NAME_BYTES = 255
"""Longest name of one directory or file in a path (the usual file system's NAME_MAX)."""
MAX_DEPTH = 32
"""Most names in one path."""
_URL_LIKE = re.compile(r"::|^[A-Za-z][A-Za-z0-9+.\-]*:")


class JobRequest(BaseModel):
    """A dataset job: inputs and output relative to the data root."""

    inputs: list[Text] = Field(min_length=1, max_length=10_000)
    output: Text
    game: Text = "chess"
    scheme: Text | None = None
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


class RefusedPathError(Exception):
    """A job path that cannot be used, with the answer it gets."""

    def __init__(self, status: int, kind: str, title: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.kind, self.title, self.detail = status, kind, title, detail

    def response(self) -> JSONResponse:
        return _problem(self.status, self.kind, self.title, self.detail)


def _problem(status: int, kind: str, title: str, detail: str) -> JSONResponse:
    return problem_response({"type": PROBLEM_BASE + kind, "title": title, "status": status, "detail": detail})


def _invalid(what: str, reason: str) -> RefusedPathError:
    return RefusedPathError(422, "invalid-path", "Invalid path", f"{what}: {reason}")


def _root() -> Path | None:
    raw = os.environ.get(DATA_ROOT)
    return Path(raw).resolve() if raw else None


def resolve(root: Path, relative: str, what: str) -> Path:
    """``relative`` as the real local path it names under ``root`` (symbolic links followed), checked before
    anything opens it: a plain path of printable text within the length limits, no URL scheme and no fsspec
    ``::`` chain (the dataset code opens paths with fsspec), and inside ``root`` once every link is followed.

    :raises RefusedPathError: 422 naming ``what`` and the reason, or 403 for a path that leads outside the root.
    """
    if "\x00" in relative:
        raise _invalid(what, "holds a NUL character")
    try:
        encoded = relative.encode("utf-8")
    except UnicodeEncodeError as err:
        raise _invalid(what, f"holds a lone surrogate (U+{ord(relative[err.start]):04X})") from None
    if _URL_LIKE.search(relative):
        raise _invalid(what, "must be a local path under the data root, not a URL or an fsspec chain ('::')")
    if len(encoded) > MAX_PATH_BYTES:
        raise _invalid(what, f"is {len(encoded)} bytes long; the limit is {MAX_PATH_BYTES}")
    names = [n for n in relative.split("/") if n not in ("", ".")]
    if len(names) > MAX_DEPTH:
        raise _invalid(what, f"is {len(names)} names deep; the limit is {MAX_DEPTH}")
    for name in names:
        if len(name.encode("utf-8")) > MAX_NAME_BYTES:
            raise _invalid(what, f"holds a name of {len(name.encode('utf-8'))} bytes; the limit is {MAX_NAME_BYTES}")
    try:
        path = (root / relative).resolve()
    except (OSError, RuntimeError) as err:  # a link loop, a link target too long
        raise _invalid(what, f"cannot be resolved ({type(err).__name__})") from None
    if path != root and root not in path.parents:
        raise RefusedPathError(403, "outside-data-root", "Path outside the data root",
                               f"{what}: every input and the output must be under {DATA_ROOT}")
    if "::" in str(path):  # a directory's own name under the root
        raise _invalid(what, "leads through a name holding '::', which fsspec reads as a chain")
    return path


def _output(root: Path, relative: str) -> Path:
    """The output directory, made if need be, checked again once it exists (a link swapped in meanwhile)."""
    out = resolve(root, relative, "output")
    if out.exists() and not out.is_dir():
        raise _invalid("output", f"{relative!r} is an existing file, not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise _invalid("output", f"cannot be made a directory ({err.strerror})") from None
    again = resolve(root, relative, "output")
    if again != out or not again.is_dir():
        raise RefusedPathError(403, "outside-data-root", "Path outside the data root",
                               "output: changed while it was being made")
    return out


def job_id(relative_output: str) -> str:
    return base64.urlsafe_b64encode(relative_output.encode("utf-8")).rstrip(b"=").decode("ascii")


def _write_state(out: Path, state: str, detail: str | None = None, pid: int | None = None) -> None:
    temp = out / f".{STATE}.{os.getpid()}.{threading.get_ident()}.tmp"
    temp.write_text(json.dumps({"state": state, "detail": detail, "updated": time.time(), "pid": pid}),
                    encoding="utf-8")
    os.replace(temp, out / STATE)


def _read_state(out: Path) -> dict[str, Any]:
    state: dict[str, Any] = json.loads((out / STATE).read_text(encoding="utf-8"))
    return state


def without_root(text: str, root: Path) -> str:
    """``text`` with the data root's absolute path taken out (a job's paths are told relative to the root)."""
    return text.replace(f"{root}{os.sep}", "").replace(str(root), ".")


def run_job(options: dict[str, Any], out: str, root: str, parent: int) -> None:
    """A job process's work: encode the dataset (``options``: :class:`app.dataset.Options`'s fields), write the
    job's final state (its detail without the root's path).

    Runs in a process of its own (spawned), which dies with the service (``parent``) and runs at the lowest
    priority, as does the local Dask cluster it may start; pyarrow and dask are imported here, not in the service."""
    die_with_parent(parent)
    try:
        os.nice(JOB_NICENESS)
    except OSError:
        pass
    from app import dataset

    try:
        dataset.encode_dataset(dataset.Options(**options))
        _write_state(Path(out), "done")
    except PlybitsError as err:
        _write_state(Path(out), "failed", without_root(str(err), Path(root)))
    except Exception as err:  # the job fails, the service does not
        _write_state(Path(out), "failed", without_root(f"{type(err).__name__}: {err}", Path(root)))


class Jobs:
    """The dataset jobs running in this service process: at most ``settings.max_jobs``, each in its own process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._running: dict[str, BaseProcess | None] = {}
        self._lock = threading.Lock()
        self._closed = False

    def start(self, relative: str, opts: dict[str, Any], out: Path, root: Path) -> None:
        """Start the job writing ``out`` unless it runs already.

        :raises OverloadedError: if ``max_jobs`` other jobs are running.
        """
        with self._lock:
            if relative in self._running:
                return
            if len(self._running) >= self.settings.max_jobs:
                raise OverloadedError(f"{len(self._running)} dataset jobs are running, the most at once; retry "
                                      f"after {RETRY_AFTER_SECONDS} s", retry_after=RETRY_AFTER_SECONDS)
            self._running[relative] = None
        _write_state(out, "running")
        # The thread that starts the process waits for it: a child's death signal follows its starting thread.
        threading.Thread(target=self._supervise, args=(relative, opts, out, root), daemon=True,
                         name=f"plybits-job-{relative}").start()

    def _supervise(self, relative: str, opts: dict[str, Any], out: Path, root: Path) -> None:
        try:
            process = multiprocessing.get_context("spawn").Process(
                target=run_job, args=(opts, str(out), str(root), os.getpid()), name=f"plybits-job {relative}")
            with self._lock:
                if self._closed:
                    return
                process.start()
                self._running[relative] = process
            _write_state(out, "running", pid=process.pid)
            process.join()
            if _read_state(out)["state"] == "running":
                _write_state(out, "failed", f"the job's process ended with exit code {process.exitcode} before the "
                                            "job did; post the job again to resume it")
        except Exception as err:  # the job fails, the service does not
            _write_state(out, "failed", without_root(f"{type(err).__name__}: {err}", root))
        finally:
            with self._lock:
                self._running.pop(relative, None)

    def close(self) -> None:
        """Stop every running job (its finished partitions are kept: posting it again resumes it)."""
        with self._lock:
            self._closed = True
            processes = [p for p in self._running.values() if p is not None]
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=10)


def jobs_of(request: Request) -> Jobs:
    jobs: Jobs = request.app.state.jobs
    return jobs


@router.post("", status_code=202, response_model=JobStatus, responses={403: {}, 404: {}, 422: {}, 503: {}})
def post_job(body: JobRequest, request: Request) -> Any:
    """Start (or resume) a dataset job; answered at once with its id."""
    root = _root()
    if root is None:
        return _problem(404, "jobs-disabled", "Jobs are disabled", f"set {DATA_ROOT} to enable jobs")
    try:
        inputs = [resolve(root, p, f"inputs[{i}]") for i, p in enumerate(body.inputs)]
        resolve(root, body.output, "output")
        missing = [str(p.relative_to(root)) for p in inputs if not p.is_file()]
        if missing:
            return _problem(422, "invalid-request", "Invalid request",
                            clipped(f"no such input: {', '.join(missing)}", MAX_DETAIL_CHARS))
        scheme = body.scheme or records.seed_scheme(body.game)
        registry.get_scheme(body.game, scheme)
        out = _output(root, body.output)
    except RefusedPathError as refused:
        return refused.response()
    except PlybitsError as err:
        return problem_response(problem_body(err))
    relative = str(out.relative_to(root))
    settings = jobs_of(request).settings
    opts = {"inputs": [str(p) for p in inputs], "out": str(out), "game": body.game, "scheme": scheme,
            "workers": settings.job_workers or None, "scheduler": os.environ.get(SCHEDULER) or None,
            **({"partition_bytes": body.partition_bytes} if body.partition_bytes else {})}
    jobs_of(request).start(relative, opts, out, root)
    return JSONResponse(status_of(root, relative).model_dump(), status_code=202)


def status_of(root: Path, relative: str) -> JobStatus:
    from app import dataset

    out = root / relative
    state = _read_state(out)
    partitions = games = errors = 0
    if (out / dataset.MANIFEST).exists():
        summary = dataset.info(str(out))
        partitions, games, errors = summary["partitions"], summary["games"], summary["errors"]
    detail = state["detail"]
    return JobStatus(id=job_id(relative), output=relative, state=state["state"], partitions=partitions, games=games,
                     errors=errors, detail=None if detail is None else without_root(detail, root))


@router.get("/{job}", response_model=JobStatus, responses={404: {}})
def get_job(job: str) -> Any:
    """A job's state (running, done, failed) and progress (partitions written, games, error rows)."""
    root = _root()
    if root is None:
        return _problem(404, "jobs-disabled", "Jobs are disabled", f"set {DATA_ROOT} to enable jobs")
    no_such = _problem(404, "no-such-job", "No such job", f"no job {clipped(ascii(job))}")
    try:
        relative = base64.b64decode(job + "=" * (-len(job) % 4), altchars=b"-_", validate=True).decode("utf-8")
        out = resolve(root, relative, "job")
    except (binascii.Error, ValueError, RefusedPathError):
        return no_such
    if out == root or not (out / STATE).is_file():
        return no_such
    return status_of(root, str(out.relative_to(root)))
