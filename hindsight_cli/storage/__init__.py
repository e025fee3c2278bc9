"""Storage adapters: the ledger (source of truth: DuckDB locally, or PostgreSQL + pgvector for a team)
and the LanceDB index (derived, local stores only)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Config
    from .ledger import Ledger

BACKENDS = ("local", "postgres")


def open_ledger(store: Path, config: "Config") -> "Ledger":
    """The ledger a store's config asks for: ``[storage] backend`` (``local`` unless a database URL is
    configured or in ``HINDSIGHT_DATABASE_URL``)."""
    from .. import paths
    from ..errors import InvalidInput

    if config.storage_backend == "postgres" or (not config.storage_backend and config.database_url):
        if not config.database_url:
            raise InvalidInput(f"The store {store} uses the postgres backend but no database URL is set: set "
                               f"{paths.ENV_DATABASE_URL}, or [storage] url in its config.toml.")
        from .postgres import PostgresLedger

        return PostgresLedger(config.database_url, config.database_schema, config.lock_timeout, store)
    from .ledger import Ledger

    return Ledger(store / paths.LEDGER_FILE, config.lock_timeout)
