"""Search (DESIGN §5): choose the candidate source, gather, rank, fit the budget.

A long-lived process searches its in-memory index (the ledger's answers, kept current from the
ledger's change sequence) unless it outgrew ``[search] hot_index_mb``; then, like a cold process,
the ledger answers (exactly), or, for big local stores and long-lived processes, the LanceDB index:
without opening the ledger while it matches the ledger's latest change, else after a catch-up sync
done in short ledger reads of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from ..config import Ranking
from ..errors import StoreBusy
from ..lessons.signatures import of_query
from ..models import SearchResult
from ..search.candidates import (
    HotSource,
    IndexSource,
    LedgerSource,
    Source,
    add_same_error,
    gather,
)
from ..search.pipeline import Ranked, rank, result
from ..search.query import SearchQuery, keyword_terms, vector_floor
from ..search.signals import Context, is_troubleshooting
from ..storage.base import Reader
from . import embedding_jobs, injections, jobs
from .runtime import Runtime
from .scope import Scope

if TYPE_CHECKING:
    from ..storage.rows import Vectors


# seconds a search waits for another process's index update before asking the ledger
_INDEX_WAIT = 0.5


def _engine(rt: Runtime, session: Reader, requested: str | None) -> str:
    if rt.mirror is None:
        # the database searches its own vector (HNSW) and keyword indexes
        return "ledger"
    engine = requested or rt.config.search_engine
    if engine == "auto":
        engine = rt.profile.default_engine
    if engine != "auto":
        return engine
    active = session.count([("status", "in", ["active"])])
    return "index" if active > rt.config.ann_threshold else "ledger"


def reads_index(rt: Runtime) -> bool:
    """Whether this process's searches of the store read the LanceDB index (a long-lived process,
    the ``index`` engine configured, or ``auto`` past ``ann_threshold``): only then does a big
    import bring it up to date before it returns; otherwise the first search that reads it catches
    it up."""
    if rt.mirror is None:
        return False
    with rt.ledger.read() as session:
        return _engine(rt, session, None) == "index"


def _index_is_current(rt: Runtime, requested: str | None) -> bool:
    """A long-lived process's index that matches the ledger's latest change needs no ledger read."""
    if (
        not rt.profile.index_reads
        or rt.mirror is None
        or (requested or rt.config.search_engine) == "ledger"
    ):
        return False
    return rt.mirror.current()


def _standing(rt: Runtime, now: datetime, weights: Ranking) -> dict[str, float] | None:
    """Each judged memory's standing from the injection record's verdicts, when the ranking
    weighs it."""
    if not weights.use_factor:
        return None
    return injections.standing(injections.verdicts(rt.path), now, weights.use_half_life)


def _context(
    query: SearchQuery, now: datetime, standing: dict[str, float] | None = None
) -> tuple[Context, str | None]:
    """What the ranking knows of the present, and the query's error line when troubleshooting
    (what went wrong, read from the error itself: its signature)."""
    family, signature, error_line = (
        of_query(query.text) if query.troubleshoot else (None, None, None)
    )
    ctx = Context(
        now=now,
        task_id=query.current_task,
        env=dict(query.env),
        troubleshooting=query.troubleshoot or is_troubleshooting(query.text),
        fixes_first=query.troubleshoot,
        query=query.text,
        family=family,
        signature=signature,
        standing=standing or {},
    )
    # what the query alone decides, before a search takes the in-memory index's lock
    return ctx.settle(), error_line


def _in_memory(
    rt: Runtime, mode: str, ranked: Callable[[Source, int], list[Ranked]]
) -> tuple[list[Ranked] | None, bool]:
    """The hits this process's in-memory index gives, ranked under its lock (a write of this
    process, another thread, must not refresh it mid-search); None when it holds no index. The
    budget is fitted after, with the lock released, so no other search (another agent's, on a
    shared server) waits for that part of this one, whose cost grows with the hits. Second:
    whether another thread is loading it for the first time (the MCP server's warm-up): the
    ledger answers meanwhile (exactly what it will); a loaded index being brought up to date is
    waited for."""
    hot = rt.hot
    assert hot is not None
    if not hot.lock.acquire(blocking=hot.index is not None or hot.full):
        return None, True
    try:
        held = hot.synced_index()
        if held is None:
            return None, False
        dim = rt.check_meta(hot.meta) if mode != "keyword" else held.dim
        return ranked(HotSource(held), dim), False
    finally:
        hot.lock.release()


def search(rt: Runtime, query: SearchQuery, scope: Scope) -> SearchResult:
    query = query.checked()
    rt.require()
    assert query.filters is not None and query.k is not None
    k = query.k
    filters = scope.filters(query.filters)
    weights = replace(
        rt.config.ranking,
        min_vector_similarity=vector_floor(
            query.text, rt.model, rt.config.ranking.min_vector_similarity, query.mode
        ),
    )
    now = query.now or rt.now()
    ctx, error_line = _context(query, now, _standing(rt, now, weights))
    # A pool that grew with k (it was 4k) let a -k 50 search reorder the first hits of a -k 25 one:
    # up to ``candidates`` hits the pool is the same whatever k, so asking for more hits only adds
    # hits after them; beyond it, the pool is k.
    limit = max(weights.candidates, k)
    where = filters.conditions(now)
    words = keyword_terms(query.text, weights.derived_forms)
    job = _query_vector(rt, query, scope)

    def ranked(source: Source, dim: int) -> list[Ranked]:
        """The candidates ``source`` gives, ranked: what reads the source (an in-memory index, held
        under its lock meanwhile); fitting the budget (``answer``) reads none."""
        vector = (
            (lambda: embedding_jobs.checked(rt, job(), dim)[0].tolist())
            if job is not None
            else None
        )
        rows, candidates = gather(
            source, words, vector, where, limit, weights, query.mode, not query.troubleshoot
        )
        if ctx.signature and error_line:
            error_words = keyword_terms(error_line, weights.derived_forms)
            add_same_error(
                source, error_words, where, weights, ctx.signature, rows, candidates, query.text
            )
        return rank(
            rows, candidates, ctx, weights, k, query.lists, query.groups_neighbours, source.columns
        )

    answer = partial(result, query, weights=weights, store=rt.origin)
    hot, engine = rt.hot, query.engine
    if hot is not None and (engine or rt.config.search_engine) == "auto":
        hits, loading = _in_memory(rt, query.mode, ranked)
        if hits is not None:
            return answer(hits)
        if loading:
            engine = "ledger"
    mirror = rt.mirror
    if mirror is not None and _index_is_current(rt, engine):
        index = mirror.index()
        return answer(ranked(IndexSource(index), index.dim))
    with rt.ledger.read() as session:
        dim = (
            rt.check_model(session)
            if query.mode != "keyword"
            else int(session.meta()["embedding_dim"])
        )
        on_ledger = _engine(rt, session, engine) != "index"
        hits = ranked(LedgerSource(session, filters.agent_ids), dim) if on_ledger else None
    if hits is not None:
        return answer(hits)
    assert mirror is not None
    # Catch the index up with short ledger reads of its own, then search it without holding the
    # ledger: a DuckDB reader, even read-only, locks every writing process out. While another
    # process rewrites the index (a hard forget's scrub takes seconds), the ledger answers instead:
    # exact, and current.
    try:
        mirror.sync(dim=dim, wait=_INDEX_WAIT)
    except StoreBusy:
        with rt.ledger.read() as session:
            return answer(ranked(LedgerSource(session, filters.agent_ids), dim))
    return answer(ranked(IndexSource(mirror.index(dim)), dim))


def _query_vector(rt: Runtime, query: SearchQuery, scope: Scope) -> Callable[[], Vectors] | None:
    """What gives the query's vector (None: a keyword search): embedded beside the index's own
    work, unless the in-memory index answers."""
    if query.mode == "keyword":
        return None
    beside = rt.hot is None or rt.hot.index is None
    job = embedding_jobs.start_query(rt, query.text, beside=beside, asker=scope)
    if beside or not rt.model_is_known():
        return job
    # The query's vector, made before the in-memory index's lock (as what its text decides,
    # ``ctx.settle``): every search of the process waits for that lock, and a 64 KB query held it
    # 0.2 s for its embedding alone, another agent's searches queued behind each of hers (review
    # AM). It depends on the query alone (a model known without loading it: a hub model is loaded
    # only once the store's model check passed).
    made = job()
    return lambda: made


def warm_up(rt: Runtime) -> None:
    """Load the model in a thread while the search index is brought up to date: each takes long, and
    onnxruntime and DuckDB release the interpreter while they work."""
    from .lifecycle import expire_if_due

    model = jobs.beside(lambda: rt.embedder.embed(["warm up"]))
    if rt.exists:
        # the approval, its ledger's key read once here rather than at the first search
        rt.approved()
        expire_if_due(rt)
        if rt.hot is None or rt.hot.synced_index() is None:
            if rt.mirror is not None:
                rt.mirror.sync()
    model.result()


def load_in_memory(rt: Runtime) -> None:
    """Load the in-memory index, with the model beside it, and nothing else of the warm-up (no
    write, no LanceDB sync): a search that arrives meanwhile from another thread asks the ledger
    instead."""
    if rt.exists and rt.hot is not None:
        model = jobs.beside(lambda: rt.embedder.embed(["warm up"]))
        rt.hot.synced_index()
        model.result()
