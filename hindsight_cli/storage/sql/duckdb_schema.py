"""The local ledger's schema: its tables, and the steps that bring an older file up to date.

``postgres_schema`` is its counterpart for a shared database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .common import integer, one

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

# 2: memories.supersedes (the back link of superseded_by); 3: keys unique per agent; 4: chunks
SCHEMA_VERSION = 4
TABLES = ("meta", "memories", "terms", "audit", "chunks")


def quiet(conn: DuckDBPyConnection) -> None:
    """No progress bar on this connection (every DuckDB connection hindsight opens: the process's
    database, each cursor of it, a rewrite's copy). DuckDB draws one on the process's stdout, past
    Python's ``sys.stdout``, for any query that runs longer than two seconds (a loaded machine, a
    large ledger, a hard forget's copy), and it is on for every connection by default: it went
    into the JSON of ``--json`` (a replay's report no longer parsed) and into whatever a command
    prints. It is a setting of each connection (a cursor is one), not of the database."""
    conn.execute("SET enable_progress_bar = false")


def schema(dim: int, start: int = 1) -> list[str]:
    return [
        "CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
        f"CREATE SEQUENCE IF NOT EXISTS change_seq START {integer(start)}",
        f"""CREATE TABLE IF NOT EXISTS memories (
            id VARCHAR PRIMARY KEY, content VARCHAR NOT NULL, type VARCHAR NOT NULL, agent_id VARCHAR NOT NULL,
            task_id VARCHAR, step INTEGER, trigger VARCHAR, outcome VARCHAR NOT NULL, resolution VARCHAR,
            importance DOUBLE NOT NULL, confidence DOUBLE NOT NULL, tags VARCHAR[] NOT NULL, metadata VARCHAR NOT NULL,
            env VARCHAR NOT NULL, source VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL, event_at TIMESTAMP NOT NULL,
            valid_until TIMESTAMP, expires_at TIMESTAMP, status VARCHAR NOT NULL, superseded_by VARCHAR,
            source_ids VARCHAR[] NOT NULL, version INTEGER NOT NULL, content_hash VARCHAR NOT NULL,
            idempotency_key VARCHAR NOT NULL, seen_count INTEGER NOT NULL, last_seen_at TIMESTAMP,
            updated_at TIMESTAMP, seq BIGINT NOT NULL, doc_len INTEGER NOT NULL, embedding FLOAT[{integer(dim)}],
            supersedes VARCHAR)""",
        "CREATE INDEX IF NOT EXISTS memories_key ON memories (idempotency_key)",
        "CREATE UNIQUE INDEX IF NOT EXISTS memories_agent_key ON memories (agent_id, "
        "idempotency_key)",
        "CREATE TABLE IF NOT EXISTS terms (id VARCHAR NOT NULL, term VARCHAR NOT NULL, tf "
        "INTEGER NOT NULL)",
        "CREATE INDEX IF NOT EXISTS terms_term ON terms (term)",
        """CREATE TABLE IF NOT EXISTS audit ("at" TIMESTAMP NOT NULL, action VARCHAR NOT NULL, ids VARCHAR[] NOT NULL,
            reason VARCHAR, actor VARCHAR)""",
        *chunks_schema(dim),
    ]


def chunks_schema(dim: int) -> list[str]:
    """A long memory's further windows' vectors (core/chunks.py); its first is
    ``memories.embedding``."""
    return [
        f"CREATE TABLE IF NOT EXISTS chunks (id VARCHAR NOT NULL, part INTEGER NOT NULL, "
        f"embedding FLOAT[{integer(dim)}])",
        "CREATE INDEX IF NOT EXISTS chunks_id ON chunks (id)",
    ]


#: Schema 3: idempotency keys are unique per agent, not per store. Before, a key claimed by one
#: agent shadowed every other agent's: a summary another agent planted a row for was written into
#: that row. Such a derived memory goes to the one agent whose memories it was built from; any rows
#: that share an agent and key (from unserialised writes of old versions) keep distinct keys, so the
#: unique index can hold.
SPLIT_KEYS = [
    """UPDATE memories SET agent_id = s.agent FROM (
           SELECT m.id, min(src.agent_id) AS agent, count(DISTINCT src.agent_id) AS agents
           FROM memories m, unnest(m.source_ids) AS u(sid) JOIN memories src ON src.id = u.sid
           WHERE m.trigger IN ('summary', 'summary_part', 'consolidate') GROUP BY m.id) s
       WHERE memories.id = s.id AND s.agents = 1 AND memories.agent_id <> s.agent""",
    """UPDATE memories SET idempotency_key = idempotency_key || '#' || CAST(seq AS VARCHAR) WHERE id IN (
           SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY agent_id, idempotency_key ORDER BY seq, id) AS n
                           FROM memories) WHERE n > 1)""",
]


def migrate(conn: DuckDBPyConnection) -> None:
    """Apply every schema step newer than the store's version.

    Two transactions, since DuckDB builds no index over uncommitted updates: the changes, then the
    indexes and the new version. Each step is idempotent, so a crash between them only means the
    next open runs the migration again."""
    conn.execute("BEGIN TRANSACTION")
    version = int(one(conn.execute("SELECT value FROM meta WHERE key = 'schema_version'"))[0])
    # DuckDB can neither alter nor update a table's indexed columns while an index is on them
    conn.execute("DROP INDEX IF EXISTS memories_key")
    conn.execute("DROP INDEX IF EXISTS memories_agent_key")
    if version < 2:
        conn.execute("ALTER TABLE memories ADD COLUMN supersedes VARCHAR")
    if version < 3:
        for statement in SPLIT_KEYS:
            conn.execute(statement)
    # long memories stored before keep one vector until `hindsight reindex` chunks them
    if version < 4:
        dim = int(one(conn.execute("SELECT value FROM meta WHERE key = 'embedding_dim'"))[0])
        for statement in chunks_schema(dim):
            conn.execute(statement)
    conn.execute("COMMIT")
    conn.execute("BEGIN TRANSACTION")
    conn.execute("CREATE INDEX memories_key ON memories (idempotency_key)")
    conn.execute("CREATE UNIQUE INDEX memories_agent_key ON memories (agent_id, idempotency_key)")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION)])
    conn.execute("COMMIT")
