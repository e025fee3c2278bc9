"""The errors hindsight raises; every message says what to do next."""

from __future__ import annotations


class HindsightError(Exception):
    """A failure the user can act on; faces print it as one line (CLI exit code 1)."""

    exit_code = 1


class StoreNotFound(HindsightError):
    """No store exists at the resolved location."""


class MemoryNotFound(HindsightError):
    """No memory has the given id."""


class InvalidInput(HindsightError):
    """Input was refused whole; nothing was written."""


class StoreBusy(HindsightError):
    """Another process held the ledger for longer than the lock timeout."""


class EmbeddingUnavailable(HindsightError):
    """The embedding model could not be loaded."""


class EmbeddingMismatch(HindsightError):
    """The store was indexed with another embedding model or dimension."""


class UnsafeLocation(HindsightError):
    """A store, config or token file that other local users own, can write or can swap; refused before
    anything was read from it or written to it."""
