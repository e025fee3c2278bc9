"""The storage backends by name: the one list that config, ``init``, the CLI and ``doctor`` consult.

Adding a backend is one entry here and a class that implements ``storage.base.Ledger``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InvalidInput

if TYPE_CHECKING:
    from ..config import Config
    from .base import Ledger


@dataclass(frozen=True)
class Backend:
    name: str
    summary: str
    needs_url: bool
    open: Callable[[Path, Config], Ledger]


def _local(store: Path, config: Config) -> Ledger:
    from .. import paths
    from .sql.duckdb_ledger import DuckDBLedger

    return DuckDBLedger(store / paths.LEDGER_FILE, config.lock_timeout)


def _postgres(store: Path, config: Config) -> Ledger:
    from .. import paths
    from .sql.postgres_ledger import PostgresLedger

    if not config.database_url:
        raise InvalidInput(
            f"The store {store} uses the postgres backend but no database URL is set: set "
            f"{paths.ENV_DATABASE_URL}, or [storage] url in its config.toml."
        )
    return PostgresLedger(config.database_url, config.database_schema, config.lock_timeout, store)


BACKENDS: dict[str, Backend] = {
    "local": Backend("local", "DuckDB + LanceDB files in the store directory", False, _local),
    "postgres": Backend(
        "postgres", "a shared PostgreSQL + pgvector database (docs/team.md)", True, _postgres
    ),
}


def backend_name(config: Config) -> str:
    """The backend a config asks for: ``[storage] backend``, else postgres when a database URL is
    set."""
    if config.storage_backend:
        return config.storage_backend
    return "postgres" if config.database_url else "local"


def check_name(name: str, option: str = "[storage] backend") -> str:
    if name not in BACKENDS:
        raise InvalidInput(f"{option} must be {' or '.join(BACKENDS)}, not {name!r}.")
    return name


def open_ledger(store: Path, config: Config) -> Ledger:
    """The ledger a store's config asks for."""
    return BACKENDS[check_name(backend_name(config))].open(store, config)
