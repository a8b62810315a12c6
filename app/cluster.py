"""The Dask cluster a dataset job or a query runs on: an existing one, or a local one that dies with this process."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def cluster(workers: int | None, scheduler: str | None) -> Iterator[Any]:
    """A Dask client of ``scheduler``, else of a new local cluster of ``workers`` processes (default one a core),
    one thread each, that die with this process (:mod:`app.orphans`: dask's own watch needs the interpreter, which
    a worker busy in a long call may not give up). No dashboard; the scheduler's HTTP endpoints on a free port (its
    default, 8787, warns when another has it)."""
    from dask.distributed import Client, LocalCluster

    if scheduler:
        with Client(scheduler) as client:
            yield client
        return
    with LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                      dashboard_address=None, preload=["app.orphans"],
                      scheduler_kwargs={"dashboard_address": ":0"}) as local, Client(local) as client:
        yield client
