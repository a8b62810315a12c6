"""Arrays of machine integers for the hot per-ply loops of the compiled build.

:func:`int_array` makes a librt ``vec[i64]`` where this module runs compiled: mypyc reads and writes its items as
plain C integers, with no int object to check, box or free. In pure Python it returns the list itself, which
CPython indexes about four times faster than a vec (whose ``[i]`` makes an int object). Callers only index and
slice such an array (``ZEROS[:]`` copies a template), which both types do alike (docs/architecture.md, "What makes
compiled code fast").
"""

from __future__ import annotations

import sys
from typing import Final, cast

from librt.vecs import vec
from mypy_extensions import i64

from plybits.compiled import is_compiled

PACKED: Final = is_compiled(sys.modules[__name__])
"""Whether this module runs compiled, where :func:`int_array` makes packed arrays (in a sound build every module of
:data:`~plybits.compiled.MODULES` is loaded alike)."""


def int_array(items: list[int]) -> vec[i64]:
    """``items`` as an array for hot code: a ``vec[i64]`` compiled, ``items`` itself in pure Python.

    :raises OverflowError: compiled, if an item does not fit in 64 bits.
    """
    return vec[i64](items) if PACKED else cast("vec[i64]", items)


_ZEROS: Final = int_array([0] * 256)


def zeros(n: int) -> vec[i64]:
    """An :func:`int_array` of ``n`` zeros: up to 256, a slice of a zeroed template (compiled, one memory copy, where
    building one from a list costs about 75 instructions an item)."""
    return _ZEROS[:n] if n <= len(_ZEROS) else int_array([0] * n)


def int_list(array: vec[i64]) -> list[int]:
    """The items of an :func:`int_array` as a new list."""
    n = len(array)
    items = [0] * n
    for i in range(n):
        items[i] = array[i]
    return items
