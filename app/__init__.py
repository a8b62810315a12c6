"""The plybits HTTP service: routes translate HTTP to :mod:`plybits` calls and back."""
