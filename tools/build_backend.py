"""The build backend (pyproject.toml ``[build-system]``): setuptools', less one notice of its editable installs.

At every editable install (``pip install -e .``, so every ``make serve`` and ``make test`` that installs) setuptools
says "Please be careful with folders in your working directory with the same name as your package as they may take
precedence during imports", and pip shows it as a warning. It is setuptools' information (its category is
``InformationOnly``), given because the two packages live in two folders (``app/``, ``codecs/plybits/``), and
here it is always true and harmless: those folders are the package being installed. This leaves that one notice
out; every other warning of every build still shows, and every hook is setuptools' own.
"""

from __future__ import annotations

import warnings
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 (every PEP 517 and PEP 660 hook, as setuptools has them)
from setuptools.warnings import InformationOnly

EDITABLE_NOTICE = "Editable installation"
"""How setuptools' notice begins (a ``warnings`` filter matches a message by its start)."""


def build_editable(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                   metadata_directory: str | None = None) -> str:
    """setuptools' ``build_editable``, its "same name as your package" notice left out."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=EDITABLE_NOTICE, category=InformationOnly)
        return build_meta.build_editable(wheel_directory, config_settings, metadata_directory)
