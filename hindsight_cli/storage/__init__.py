"""Storage: the contract (``base``), the backends behind it (``registry``: the DuckDB ledger of a
local store, or PostgreSQL + pgvector for a team), the one row type and codec, the LanceDB index
that mirrors a local ledger for long-lived processes (``index``, kept current by ``sync``), and the
hooks' spool (``spool``: the events recording hooks append and the store ingests).

Importing this package runs nothing: a recording hook loads ``spool`` with the standard library
alone, and the registry is loaded when one of its names is first used.
"""

from __future__ import annotations

# not typing's: the recording hooks never import typing
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .registry import BACKENDS, open_ledger

__all__ = ["BACKENDS", "open_ledger"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from . import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
