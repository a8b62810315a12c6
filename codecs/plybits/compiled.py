"""The compiled build: which modules mypyc compiles, which of them are loaded compiled, and the pure switch.

``setup.py`` compiles :data:`MODULES` to C extension modules when built with ``PLYBITS_COMPILE=1``
(``make compile``); the ``.py`` files stay beside them and are the one source. Setting ``PLYBITS_PURE=1``
before plybits is imported loads the ``.py`` files even where the extension modules are installed, so one
install runs either way (docs/architecture.md, "Compiled build"). This module imports nothing of plybits:
``setup.py`` reads :data:`MODULES` from it before the package is built.
"""

from __future__ import annotations

import importlib
import os
import shlex
import shutil
import sys
import sysconfig
import warnings
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import EXTENSION_SUFFIXES, SOURCE_SUFFIXES, FileFinder, ModuleSpec, SourceFileLoader
from types import ModuleType
from typing import Final

#: The hot core mypyc compiles: board, move generation, rank models, range coder and bit I/O.
MODULES: Final = (
    "plybits.mailbox",
    "plybits.packed",
    "plybits.bitio",
    "plybits.container",  # a container's header and tags are read on every decode
    "plybits.rangecoder",
    "plybits.recordcoder",
    "plybits.recordvalues",
    "plybits.recordmodels",
    "plybits.recordtags",
    "plybits.recordsection",  # a full-fidelity record's section is written and read on every encode and decode
    "plybits.pgntext",  # every record is cut, read and written by it
    "plybits.streams",  # and every line of a record file split and decoded by this
    "plybits.replay",  # every move list and record encoded, converted or checked is replayed by it
    "plybits.rank",
    "plybits.chess.squares",
    "plybits.chess.movegen",
    "plybits.chess.board",
    "plybits.chess.rank",
    "plybits.chess.rankmodel2",  # model 2 of chess rank, what encode writes
    "plybits.chess.x88",
    "plybits.chess.notation",
    "plybits.xiangqi.board",
    "plybits.openingbook",  # the rank models' opening books (xiangqi and chess model 2)
    "plybits.xiangqi.rankmodel2",
    "plybits.xiangqi.rank",
    "plybits.abalone.board",
    "plybits.abalone.notation",  # every Aba-Pro move encoded is read, and every one decoded written, by it
    "plybits.abalone.rank",
    "plybits.abalone.rankmodel2",
    "plybits.abalone.rankmodel3",  # model 3 of abalone rank (model 4's scorer too)
    "plybits.abalone.rankmodel5",  # model 5 of abalone rank, what encode writes
    "plybits.entropy.rank",  # compiled because its models and scheme subclass compiled ones
)

#: The environment variable that, set to ``1``, makes plybits load the pure-Python modules.
PURE_ENV: Final = "PLYBITS_PURE"


def source_paths() -> list[str]:
    """The ``.py`` files of :data:`MODULES`, relative to the project root (what ``setup.py`` compiles)."""
    return ["codecs/" + name.replace(".", "/") + ".py" for name in MODULES]


class _SourceFinder(MetaPathFinder):
    """Finds the ``.py`` file of each module in :data:`MODULES`, passing over its extension module."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in MODULES or path is None:
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(fullname, target)
            if spec is not None:
                return spec
        return None


_PURE_BECAUSE: list[str] = []
"""Why :func:`honour_pure_switch` loads the pure-Python modules (one reason), or empty."""


def pure_requested() -> bool:
    """Whether ``PLYBITS_PURE=1`` asks for the pure-Python modules."""
    return os.environ.get(PURE_ENV) == "1"


def stale_extensions(package_dir: str = os.path.dirname(os.path.abspath(__file__))) -> list[str]:
    """In a source checkout, the modules of :data:`MODULES` whose ``.py`` is newer than the extension beside it.

    ``package_dir`` is the ``plybits`` folder. An in-place build (``make compile``) goes stale when a
    compiled module is edited and not rebuilt: its extension would shadow the edit. An installed package
    (no ``setup.py`` two folders up) is never stale: its files are written in no particular order.
    """
    if not os.path.exists(os.path.join(package_dir, os.pardir, os.pardir, "setup.py")):
        return []
    stale = []
    for name in MODULES:
        stem = os.path.join(package_dir, *name.split(".")[1:])
        extensions = [stem + suffix for suffix in EXTENSION_SUFFIXES if os.path.exists(stem + suffix)]
        if extensions and os.path.getmtime(stem + ".py") > min(map(os.path.getmtime, extensions)):
            stale.append(name)
    return stale


def honour_pure_switch() -> None:
    """Load the pure-Python modules from now on if :func:`pure_requested`, or with a warning if an extension
    module is stale (all or none: compiled modules call each other's compiled code). Idempotent.

    Called by ``plybits/__init__.py`` before it imports any module of :data:`MODULES`.
    """
    if any(isinstance(f, _SourceFinder) for f in sys.meta_path):
        return
    if not pure_requested():
        stale = stale_extensions()
        if not stale:
            return
        because = f"stale extension modules: {', '.join(stale)} changed since compiled"
        warnings.warn(f"plybits: {because}: loading the pure-Python modules "
                      "(`make compile` rebuilds the extension modules, `make pure` removes them)", stacklevel=2)
    else:
        because = f"{PURE_ENV}=1 is set"
    _PURE_BECAUSE[:] = [because]
    sys.meta_path.insert(0, _SourceFinder())


def is_compiled(module: ModuleType) -> bool:
    """Whether ``module`` was loaded from a C extension module rather than its ``.py`` file."""
    return (module.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))


def compiled_modules() -> list[str]:
    """The modules of :data:`MODULES` that are loaded compiled (importing them): all or none in a sound build."""
    return [name for name in MODULES if is_compiled(importlib.import_module(name))]


def have_c_compiler() -> bool:
    """Whether this Python's C compiler and its headers (``Python.h``) are here: what mypyc needs to compile."""
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")[:1]
    headers = os.path.join(sysconfig.get_paths()["include"], "Python.h")
    return bool(compiler) and shutil.which(compiler[0]) is not None and os.path.exists(headers)


def build() -> tuple[str, str]:
    """The build in use, ``("compiled", how)``, ``("pure", why)`` or (a broken build) ``("mixed", what)``, in words
    a log or ``/healthz`` shows.

    Imports the modules of :data:`MODULES` (through :func:`compiled_modules`).
    """
    compiled = compiled_modules()
    if len(compiled) == len(MODULES):
        return "compiled", f"mypyc, all {len(MODULES)} modules of plybits.compiled.MODULES"
    if _PURE_BECAUSE:
        return "pure", _PURE_BECAUSE[0]
    if compiled:
        return "mixed", f"only {len(compiled)} of the {len(MODULES)} core modules are compiled (`make compile`)"
    if have_c_compiler():
        return "pure", "not compiled here: `make compile` builds the extension modules"
    return "pure", "no C compiler (or Python headers) to compile the core with"


def describe() -> str:
    """:func:`build` in one phrase: ``compiled build (mypyc, ...)`` or ``pure-Python build (why)``."""
    kind, why = build()
    return f"{'pure-Python' if kind == 'pure' else kind} build ({why})"


if __name__ == "__main__":  # `python codecs/plybits/compiled.py`: the sources; `... cc`: exit 0 with a C compiler
    if sys.argv[1:] == ["cc"]:
        sys.exit(not have_c_compiler())
    print(*source_paths())
