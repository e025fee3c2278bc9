"""The SQL ledgers: DuckDB (a file in the store directory) and PostgreSQL + pgvector (a shared
database), siblings over one SQL session (``common``) that renders the core's conditions with bound
parameters."""
