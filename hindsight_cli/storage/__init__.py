"""Storage: the contract (``base``), the backends behind it (``registry``: the DuckDB ledger of a
local store, or PostgreSQL + pgvector for a team), the one row type and codec, and the LanceDB index
that mirrors a local ledger for long-lived processes (``index``, kept current by ``sync``)."""

from __future__ import annotations

from .registry import BACKENDS, open_ledger

__all__ = ["BACKENDS", "open_ledger"]
