"""plybits: board-game records as compact bit streams.

The verbs live in :mod:`plybits.records`; games and schemes register themselves in
:mod:`plybits.registry`; the shared pieces are :mod:`plybits.mailbox`,
:mod:`plybits.bitio`, :mod:`plybits.container` (and the range coder for ``rank``).
"""

from plybits.records import Decoded, Encoded, convert, decode, encode, legal_moves, read_record

__all__ = ["Decoded", "Encoded", "convert", "decode", "encode", "legal_moves", "read_record"]
__version__ = "0.1.0"
