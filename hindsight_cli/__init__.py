"""hindsight: local-first memory for LLM agents.

The Python API is the one the CLI and the MCP server use::

    from hindsight_cli import open_store

    store = open_store()                       # the store `hindsight where` names
    store.record("weather API returned 401: token expired", outcome="failure",
                 resolution="refreshed the token, retried")
    for hit in store.search("why did the weather API fail").hits:
        print(hit.score, hit.memory.content)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    EmbeddingMismatch,
    EmbeddingUnavailable,
    HindsightError,
    InvalidInput,
    MemoryNotFound,
    StoreBusy,
    StoreNotFound,
)
from .models import Filters, Hit, ImportResult, Memory, SearchResult, WriteResult

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .store import Store, open_store


def __getattr__(name: str) -> Any:
    # Store pulls in the storage adapters; keep `import hindsight_cli` light until it is used.
    if name in ("Store", "open_store"):
        from . import store

        return getattr(store, name)
    raise AttributeError(name)


__all__ = [
    "EmbeddingMismatch",
    "EmbeddingUnavailable",
    "Filters",
    "HindsightError",
    "Hit",
    "ImportResult",
    "InvalidInput",
    "Memory",
    "MemoryNotFound",
    "SearchResult",
    "Store",
    "StoreBusy",
    "StoreNotFound",
    "WriteResult",
    "__version__",
    "open_store",
]
