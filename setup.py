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
    # One shared library holds the compiled code; naming its group inside the package puts it beside the
    # modules (plybits/native__mypyc.*.so), where an installed wheel and an editable install both find it.
    return mypycify(paths, opt_level="3", group_name="plybits.native", target_dir=os.path.join("build", "mypyc"))


setup(ext_modules=compiled_extensions())
