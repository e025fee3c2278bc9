"""Storage adapters: the DuckDB ledger (source of truth) and the LanceDB index (derived)."""
