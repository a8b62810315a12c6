"""plybits: board-game records as compact bit streams.

The verbs live in :mod:`plybits.records`; games and schemes register themselves in
:mod:`plybits.registry`; the shared pieces are :mod:`plybits.mailbox`,
:mod:`plybits.bitio`, :mod:`plybits.container` (and the range coder for ``rank``).
"""

from plybits.compiled import honour_pure_switch

honour_pure_switch()  # before any compiled module is imported: PLYBITS_PURE=1 loads the .py files

from plybits.records import Decoded, Encoded, convert, decode, encode, legal_moves, read_record

__all__ = ["Decoded", "Encoded", "convert", "decode", "encode", "legal_moves", "read_record"]
__version__ = "0.1.0"
