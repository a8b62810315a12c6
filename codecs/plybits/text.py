"""The rule for client text that plybits reads as positions, numbers and moves: ASCII only.

``str.isdigit`` and ``int`` accept every Unicode digit (``int('٩') == 9``, ``'²'.isdigit()``) and
``int`` also takes signs, underscores and spaces; case mapping turns look-alikes into letters
(``'\\u212a'.lower() == 'k'``). Parsers check their text here first, so such input is refused with
an error naming it rather than misread or crashed on.
"""

from __future__ import annotations

from plybits.errors import PlybitsError


def ascii_text(text: object, what: str, error: type[PlybitsError]) -> str:
    """``text`` itself if it is a string of ASCII characters only.

    :raises error: naming ``what`` and ``text`` (and the first bad character) otherwise.
    """
    if not isinstance(text, str):
        raise error(f"{what} must be text, not {text!r}")
    if not text.isascii():
        bad = next(ch for ch in text if not ch.isascii())
        raise error(f"{what} {text!r} holds {bad!r} (U+{ord(bad):04X}); only ASCII characters are allowed")
    return text


def decimal(text: str) -> int | None:
    """The value of ``text`` if it is one to nine ASCII digits ``0-9`` (no sign, space or ``_``), else ``None``."""
    if 0 < len(text) <= 9 and text.isascii() and text.isdigit():
        return int(text)
    return None
