"""Child processes that die with their parent: the service's worker processes and job processes, and the worker
processes of a dataset job's local Dask cluster.

On Linux a child asks the kernel for ``SIGKILL`` when its parent ends (``prctl(PR_SET_PDEATHSIG)``), so that a
parent killed with ``kill -9`` leaves no worker running or writing. The signal comes when the *thread* that
started the child ends: children are started from threads that outlive them (the event loop's, or a thread that
waits for the child). Elsewhere (no ``prctl``) this does nothing.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Any

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal the calling process gets when its parent ends (linux/prctl.h)."""


def die_with_parent(parent: int | None = None) -> bool:
    """Have the kernel kill this process when its parent ends; exit at once if ``parent`` (the pid the parent had)
    has already ended. Returns whether the request was made (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        return False
    if os.getppid() != (parent if parent is not None else os.getppid()) or os.getppid() == 1:
        os._exit(1)  # the parent ended before the request was made: nobody is left to ask for this work
    return True


def dask_setup(worker: Any) -> None:
    """Dask's preload hook (``preload=["app.orphans"]``): a worker process of a local cluster dies with the process
    that started the cluster."""
    die_with_parent()
