"""Builds plybits; with ``PLYBITS_COMPILE=1`` also compiles its hot core to C extension modules with mypyc.

Everything else about the package is in pyproject.toml. The compiled modules are those of
``plybits.compiled.MODULES``; their ``.py`` files ship beside them and stay the one source (docs/architecture.md,
"Compiled build"). Without ``PLYBITS_COMPILE=1`` the build is pure Python and needs no C compiler.
"""

from __future__ import annotations

import os
import runpy

from setuptools import Extension, setup


def compiled_extensions() -> list[Extension]:
    """The mypyc extension modules when ``PLYBITS_COMPILE=1``, else none."""
    if os.environ.get("PLYBITS_COMPILE") != "1":
        return []
    from mypyc.build import mypycify

    here = os.path.dirname(os.path.abspath(__file__))
    paths = runpy.run_path(os.path.join(here, "codecs", "plybits", "compiled.py"))["source_paths"]()
    # separate=True: each module is its own extension (plybits/chess/board.*.so beside board__mypyc.*.so), found
    # where its .py is, by an installed wheel and an editable install alike; one shared library would sit
    # outside the package, where an editable install's finder does not look (and give the modules a wrong
    # __file__ when put inside it). The cost measured no more than noise; compiling takes ~40 % longer.
    # mypyc keeps its own incremental cache under build/mypyc (a mypy option given with the paths), apart from the
    # .mypy_cache of `mypy --strict` (tests/test_types.py), whose entries it would otherwise read back.
    cache = "--cache-dir=" + os.path.join("build", "mypyc", "cache")
    return mypycify([cache, *paths], opt_level="3", separate=True, target_dir=os.path.join("build", "mypyc"))


setup(ext_modules=compiled_extensions())
