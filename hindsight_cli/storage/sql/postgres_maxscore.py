"""BM25 on Postgres by MaxScore: exact top-k without reading every posting of the query's common
words.

The statistics (memories, their average length, each term's document frequency) are kept per agent
by triggers (schema 3) and summed over ``agents``, the agents the search is scoped to (all of them
when it is not), so an agent's words weigh as in a store of its own, as the DuckDB ledger weighs
them within its filters. Terms are taken rarest first (by the most one posting of theirs can add);
only memories holding one of the terms taken so far are scored (with every query term), and once the
``limit``-th best of them beats what the remaining terms could add together, no other memory can
enter the list. A query of common words only ends up reading their postings, like the single
statement of the DuckDB ledger.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .common import Connection, one

# k1 + 1, k1, b and the average length arrive as the parameters of q's CTE ``p``.
_BM25 = "sum(q.idf * t.tf * p.k1p / (t.tf + p.k1 * (1 - p.b + p.b * m.doc_len / p.avgdl)))"


def _weights(
    conn: Connection, unique: list[str], limit_agents: Sequence[str] | None, k1: float, b: float
) -> tuple[float, list[tuple[float, str, float, int]]]:
    """The average length and, per term: (bound, term, idf, df), rarest first."""
    scope, scoped = ("agent_id = ANY(?)", [list(limit_agents)]) if limit_agents else ("TRUE", [])
    docs, total_len = one(
        conn.execute(
            f"SELECT coalesce(sum(docs), 0)::bigint, coalesce(sum(total_len), 0)::bigint "
            f"FROM corpus WHERE {scope}",
            scoped,
        )
    )
    if not docs:
        return 1.0, []
    avgdl = max(total_len / docs, 1.0)
    weighted = []
    for term, df, max_tf in conn.execute(
        f"SELECT term, sum(df)::bigint, max(max_tf) FROM keyword_stats WHERE term = ANY(?) AND "
        f"{scope} "
        "GROUP BY term",
        [unique, *scoped],
    ).fetchall():
        idf = math.log(1 + (docs - df + 0.5) / (df + 0.5))
        # tf at most max_tf in a memory at least tf terms long
        weighted.append(
            (idf * (k1 + 1) / (1 + k1 * (1 - b) / max_tf + k1 * b / avgdl), term, idf, df)
        )
    weighted.sort(key=lambda w: (-w[0], w[1]))
    return avgdl, weighted


def maxscore(
    conn: Connection,
    unique: list[str],
    where: str,
    params: list[object],
    limit: int,
    k1: float,
    b: float,
    agents: Sequence[str] | None,
) -> list[tuple[str, float]]:
    avgdl, weighted = _weights(conn, unique, agents, k1, b)
    if not weighted:
        return []
    names, idfs = [w[1] for w in weighted], [w[2] for w in weighted]
    constants = [k1 + 1, k1, b, avgdl]
    taken, postings = 0, 0
    while True:
        # take terms until the postings to read have doubled (at least one more term)
        goal = max(2 * postings, 1)
        while taken < len(weighted) and (taken == 0 or postings < goal):
            postings += weighted[taken][3]
            taken += 1
        rest = sum(w[0] for w in weighted[taken:])
        # every term taken: one pass over their postings
        if not rest:
            return [
                (r[0], float(r[1]))
                for r in conn.execute(
                    f"""WITH p AS (SELECT ?::float8 AS k1p, ?::float8 AS k1, ?::float8 AS b, ?::float8 AS avgdl)
                    SELECT t.id, {_BM25} AS score
                    FROM unnest(?::text[], ?::float8[]) AS q(term, idf) JOIN terms t ON t.term = q.term
                    JOIN memories m ON m.id = t.id CROSS JOIN p WHERE {where}
                    GROUP BY t.id ORDER BY score DESC, t.id LIMIT ?""",
                    [*constants, names, idfs, *params, int(limit)],
                ).fetchall()
            ]
        rows = conn.execute(
            f"""WITH held AS (SELECT DISTINCT id FROM terms WHERE term = ANY(?::text[])),
                     chosen AS (SELECT m.id, m.doc_len FROM held JOIN memories m ON m.id = held.id WHERE {where}),
                     p AS (SELECT ?::float8 AS k1p, ?::float8 AS k1, ?::float8 AS b, ?::float8 AS avgdl)
                SELECT m.id, {_BM25} AS score
                FROM chosen m JOIN terms t ON t.id = m.id JOIN unnest(?::text[], ?::float8[]) AS q(term, idf)
                    ON q.term = t.term CROSS JOIN p
                GROUP BY m.id ORDER BY score DESC, m.id LIMIT ?""",
            [names[:taken], *params, *constants, names, idfs, int(limit)],
        ).fetchall()
        if len(rows) == limit and float(rows[-1][1]) > rest * (1 + 1e-9):
            return [(r[0], float(r[1])) for r in rows]
