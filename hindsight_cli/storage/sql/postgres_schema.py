"""The PostgreSQL ledger's schema, version by version (1 and 2 match the DuckDB ledger's; 3, keyword
statistics per agent kept by triggers, is this backend's own)."""

from __future__ import annotations

from .common import integer

SCHEMA_VERSION = 5


def _maintained(table: str, inserted: str, deleted: str, updated: str | None = None) -> list[str]:
    """Statement-level triggers (COPY fires them too) that run ``inserted``/``deleted``/``updated``
    over the rows each statement added (``added``) or removed (``removed``) in ``table``."""
    statements = []
    events = [
        ("insert", "INSERT", "NEW TABLE AS added", inserted),
        ("delete", "DELETE", "OLD TABLE AS removed", deleted),
    ]
    if updated:
        events.append(("update", "UPDATE", "OLD TABLE AS removed NEW TABLE AS added", updated))
    for name, event, transition, body in events:
        statements += [
            f"""CREATE FUNCTION {table}_{name}_stats() RETURNS trigger LANGUAGE plpgsql
                SET search_path FROM CURRENT AS $$ BEGIN {body}; RETURN NULL; END $$""",
            f"""CREATE TRIGGER {table}_{name}_stats AFTER {event} ON {table} REFERENCING {transition}
                FOR EACH STATEMENT EXECUTE FUNCTION {table}_{name}_stats()""",
        ]
    return statements


def steps(dim: int) -> dict[int, list[str]]:
    """The schema, version by version; a store at version N gets every step above N, in order."""
    return {
        1: _tables(dim),
        2: ["ALTER TABLE memories ADD COLUMN supersedes text"],
        3: _keyword_statistics(),
        4: _keys_per_agent(),
        5: chunks_table(dim),
    }


def chunks_table(dim: int) -> list[str]:
    """A long memory's further windows' vectors (core/chunks.py); searched exactly, they are few."""
    return [
        f"CREATE TABLE IF NOT EXISTS chunks (id text NOT NULL, part integer NOT NULL, "
        f"embedding vector({integer(dim)}))",
        "CREATE INDEX IF NOT EXISTS chunks_id ON chunks (id)",
    ]


def _keys_per_agent() -> list[str]:
    """Idempotency keys unique per agent (see the DuckDB ledger's ``SPLIT_KEYS``); the keyword
    statistics are recounted, since a derived memory may have moved to another agent."""
    return [
        """UPDATE memories m SET agent_id = s.agent FROM (
               SELECT d.id, min(src.agent_id) AS agent, count(DISTINCT src.agent_id) AS agents
               FROM memories d CROSS JOIN LATERAL unnest(d.source_ids) AS u(sid) JOIN memories src ON src.id = u.sid
               WHERE d.trigger IN ('summary', 'summary_part', 'consolidate') GROUP BY d.id) s
           WHERE m.id = s.id AND s.agents = 1 AND m.agent_id <> s.agent""",
        """UPDATE memories SET idempotency_key = idempotency_key || '#' || seq::text WHERE id IN (
               SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY agent_id, idempotency_key ORDER BY seq, id)
                               AS n FROM memories) x WHERE n > 1)""",
        "DELETE FROM keyword_stats",
        """INSERT INTO keyword_stats SELECT t.term, m.agent_id, count(*), max(t.tf)
            FROM terms t JOIN memories m ON m.id = t.id GROUP BY 1, 2""",
        "DELETE FROM corpus",
        "INSERT INTO corpus SELECT agent_id, count(*), coalesce(sum(doc_len), 0) FROM memories "
        "GROUP BY 1",
        "CREATE UNIQUE INDEX memories_agent_key ON memories (agent_id, idempotency_key)",
    ]


def _tables(dim: int) -> list[str]:
    return [
        "CREATE TABLE meta (key text PRIMARY KEY, value text)",
        "CREATE SEQUENCE change_seq",
        f"""CREATE TABLE memories (
                id text PRIMARY KEY, content text NOT NULL, type text NOT NULL, agent_id text NOT NULL,
                task_id text, step integer, trigger text, outcome text NOT NULL, resolution text,
                importance double precision NOT NULL, confidence double precision NOT NULL, tags text[] NOT NULL,
                metadata text NOT NULL, env text NOT NULL, source text NOT NULL, created_at timestamp NOT NULL,
                event_at timestamp NOT NULL, valid_until timestamp, expires_at timestamp, status text NOT NULL,
                superseded_by text, source_ids text[] NOT NULL, version integer NOT NULL, content_hash text NOT NULL,
                idempotency_key text NOT NULL, seen_count integer NOT NULL, last_seen_at timestamp,
                updated_at timestamp, seq bigint NOT NULL, doc_len integer NOT NULL, embedding vector({integer(dim)}))""",
        "CREATE INDEX memories_key ON memories (idempotency_key)",
        "CREATE INDEX memories_agent ON memories (agent_id, status)",
        "CREATE INDEX memories_seq ON memories (seq)",
        "CREATE INDEX memories_sources ON memories USING gin (source_ids)",
        "CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)",
        "CREATE TABLE terms (id text NOT NULL, term text NOT NULL, tf integer NOT NULL)",
        "CREATE INDEX terms_term ON terms (term)",
        "CREATE INDEX terms_id ON terms (id)",
        """CREATE TABLE audit (seq bigserial PRIMARY KEY, "at" timestamp NOT NULL, action text NOT NULL,
                ids text[] NOT NULL, reason text, actor text)""",
        "CREATE INDEX audit_ids ON audit USING gin (ids)",
    ]


def _keyword_statistics() -> list[str]:
    """BM25's statistics per agent (``keyword``): each term's document frequency and largest tf, the
    number of memories and their total length, kept by triggers in the writing transaction."""
    return [
        # postings read from the index alone: a term's (id, tf) and a memory's (term, tf)
        "DROP INDEX terms_term",
        "CREATE INDEX terms_term ON terms (term) INCLUDE (id, tf)",
        "DROP INDEX terms_id",
        "CREATE INDEX terms_id ON terms (id) INCLUDE (term, tf)",
        """CREATE TABLE keyword_stats (term text NOT NULL, agent_id text NOT NULL, df bigint NOT NULL,
                max_tf integer NOT NULL, PRIMARY KEY (term, agent_id))""",
        """INSERT INTO keyword_stats SELECT t.term, m.agent_id, count(*), max(t.tf)
                FROM terms t JOIN memories m ON m.id = t.id GROUP BY 1, 2""",
        "CREATE TABLE corpus (agent_id text PRIMARY KEY, docs bigint NOT NULL, total_len bigint "
        "NOT NULL)",
        "INSERT INTO corpus SELECT agent_id, count(*), coalesce(sum(doc_len), 0) FROM memories "
        "GROUP BY 1",
        # (a memory's terms are written after it and deleted before it, so it is there to join)
        *_maintained(
            "terms",
            inserted="""INSERT INTO keyword_stats AS s SELECT a.term, m.agent_id, count(*), max(a.tf)
                        FROM added a JOIN memories m ON m.id = a.id GROUP BY 1, 2
                    ON CONFLICT (term, agent_id)
                        DO UPDATE SET df = s.df + excluded.df, max_tf = greatest(s.max_tf, excluded.max_tf)""",
            # a term no memory holds any more leaves no trace (a hard-forgotten word included)
            deleted="""UPDATE keyword_stats s SET df = s.df - r.n
                        FROM (SELECT r.term, m.agent_id, count(*) AS n FROM removed r JOIN memories m ON m.id = r.id
                              GROUP BY 1, 2) r
                        WHERE s.term = r.term AND s.agent_id = r.agent_id;
                    DELETE FROM keyword_stats s USING (SELECT DISTINCT term FROM removed) r
                        WHERE s.term = r.term AND s.df <= 0""",
        ),
        *_maintained(
            "memories",
            inserted="""INSERT INTO corpus AS c SELECT agent_id, count(*), coalesce(sum(doc_len), 0) FROM added GROUP BY 1
                    ON CONFLICT (agent_id) DO UPDATE SET docs = c.docs + excluded.docs, total_len = c.total_len + excluded.total_len""",
            deleted="""UPDATE corpus c SET docs = c.docs - r.docs, total_len = c.total_len - r.total_len
                        FROM (SELECT agent_id, count(*) AS docs, sum(doc_len) AS total_len FROM removed GROUP BY 1) r
                        WHERE c.agent_id = r.agent_id;
                    DELETE FROM corpus c USING (SELECT DISTINCT agent_id FROM removed) r
                        WHERE c.agent_id = r.agent_id AND c.docs <= 0""",
            updated="""UPDATE corpus c SET total_len = c.total_len + d.change
                    FROM (SELECT agent_id, sum(change) AS change FROM (SELECT agent_id, doc_len AS change FROM added
                          UNION ALL SELECT agent_id, -doc_len FROM removed) x GROUP BY 1) d
                    WHERE c.agent_id = d.agent_id AND d.change <> 0""",
        ),
    ]
