"""The ranking pipeline (DESIGN §5.3–5.5), pure: candidates and their rows in, hits in rank order
out.

score every candidate with the signals → order → hold untrusted instruction-like text back → with
``--troubleshoot``, fixed failures first → diversify with MMR → fit the token budget.
``Store.search``, ``hindsight eval``, the hooks and the tuning script all rank through ``rank`` and
``result``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING

from ..config import Ranking
from ..lessons.signatures import exception_class, near, words
from ..models import Explanation, Hit, SearchResult
from ..poisoning import QUARANTINE_TAG, trust_label
from ..storage import codec
from ..storage.rows import MemoryRow, keyword_text
from ..text import terms
from .budget import fit_budget, fit_listed
from .columns import Columns, Rows
from .neighbours import beside, places, step_of
from .query import SearchQuery, keyword_terms
from .relevance import Candidate, diversity_scores, relevance_column, relevances_and_base
from .signals import Context, Found, Scores, env_mismatches, explain, score, time_note
from .summaries import one_of_each, ranges_after_facts, summary_of

if TYPE_CHECKING:
    from ..storage.rows import Vector


@dataclass
class Ranked:
    row: MemoryRow
    score: float
    explain: Explanation
    matched: list[str]
    # how well it matches on its own (the relevance signal, before any prior), its cosine when
    # the vector search found it, and whether it is the query's own error fixed before
    relevance: float = 0.0
    cosine: float | None = None
    same_error: bool = False
    # for a block: the candidates one step before and after it in its task ("before", "next"),
    # built when asked for (only an admitted hit's are)
    neighbours: Callable[[], list[tuple[str, Ranked]]] = lambda: []


def mmr(
    order: Sequence[str],
    scores: Mapping[str, float],
    vectors: Mapping[str, Vector],
    lam: float,
    k: int,
) -> list[str]:
    """Maximal marginal relevance: trade a little score for not repeating what is already picked."""
    if not order or k <= 0:
        return []
    import numpy as np

    dim = next((len(v) for v in vectors.values()), 0)
    none = np.zeros(dim, np.float32)
    # one array built from the rows' vectors at once (np.stack of each converted took 3x as long)
    matrix = (
        np.array([vectors.get(m, none) for m in order], dtype=np.float32)
        if dim
        else np.zeros((len(order), 1), np.float32)
    )
    # unit vectors: cosine; a memory without a vector is never redundant. Only the picked rows'
    # similarities are needed (k x n dot products, not the n x n matrix): a product that small never
    # waits for a second BLAS thread on a busy machine (a 150 x 150 matrix did: 0.1 ms became 26)
    relevance_ = np.array([scores[m] for m in order]) / (max(scores[m] for m in order) or 1.0)
    redundancy = np.zeros(len(order))
    chosen = np.zeros(len(order), dtype=bool)
    picked: list[int] = []
    wanted = min(k, len(order))
    while True:
        value = np.where(chosen, -np.inf, lam * relevance_ - (1 - lam) * redundancy)
        # ties keep the score order
        best = int(np.argmax(value))
        picked.append(best)
        if len(picked) == wanted:
            break
        chosen[best] = True
        redundancy = np.maximum(redundancy, matrix @ matrix[best])
    return [order[i] for i in picked]


def is_fixed_failure(row: MemoryRow) -> bool:
    return row.outcome == "failure" and bool(row.resolution)


def split_fixes(
    order: Sequence[str], rows: Mapping[str, MemoryRow], evidence: Mapping[str, float], share: float
) -> tuple[list[str], list[str]]:
    """For troubleshooting: the failures that have a fix and are at least ``share`` as relevant as
    the most relevant candidate (so an unrelated fix never jumps the queue), and the rest, each in
    order."""
    best = max(evidence.values(), default=0.0)
    fixes = [m for m in order if is_fixed_failure(rows[m]) and evidence[m] >= share * best]
    chosen = set(fixes)
    return fixes, [m for m in order if m not in chosen]


def _meta(row: MemoryRow, name: str) -> str | None:
    value = (row.metadata or {}).get(name)
    return value if isinstance(value, str) and value else None


def same_error(
    order: Sequence[str], rows: Mapping[str, MemoryRow], ctx: Context
) -> tuple[list[str], list[str]]:
    """For a troubleshooting query that shows an error: the fixed failures of a known kind
    (lessons) of the same signature; then those whose signature the query shows in other words
    (every informative word of it in the query: a clipped output, a test runner's summary line);
    then those of the same exception class; each tier with the query's command family first, then
    the kinds fixed in most sessions, then by score, ahead of every other candidate whatever its
    words; each writer's lessons in turn (``_in_turn``). The rest in order."""
    if not ctx.query or not ctx.fixes_first:
        return [], list(order)
    wanted_class = exception_class(ctx.signature)
    query_words = words(ctx.query)
    tier: dict[str, int] = {}
    for mid in order:
        row = rows[mid]
        signature = _meta(row, "signature")
        if not (is_fixed_failure(row) and signature):
            continue
        if signature == ctx.signature:
            tier[mid] = 0
        elif near(signature, query_words):
            tier[mid] = 1
        elif wanted_class and exception_class(signature) == wanted_class:
            tier[mid] = 2
    kinds = Counter((_meta(rows[m], "family"), _meta(rows[m], "signature")) for m in tier)
    position = {m: i for i, m in enumerate(order)}
    first = sorted(
        tier,
        key=lambda m: (
            tier[m],
            ctx.family is not None and _meta(rows[m], "family") != ctx.family,
            -kinds[(_meta(rows[m], "family"), _meta(rows[m], "signature"))],
            position[m],
        ),
    )
    return _in_turn(first, rows), [m for m in order if m not in tier]


def _in_turn(ordered: Sequence[str], rows: Mapping[str, MemoryRow]) -> list[str]:
    """``ordered`` with each writer's (an agent and a trust label, as a block groups lessons:
    ``budget.lesson_kind``) first lesson before any writer's second, and so on, each round in
    ``ordered``'s order. The kinds come first by how many of their lessons the candidates hold, and
    the search keeps the first few: token principal alice's lessons of the owner's error under
    kinds of her own (six, in two kinds) took every place, and the owner's own fix, or bob's, left
    the hits and the block (review BR2)."""
    taken: Counter[tuple[str, str]] = Counter()
    turn: dict[str, int] = {}
    for mid in ordered:
        row = rows[mid]
        writer = (row.agent_id, trust_label(row.source) or "")
        turn[mid] = taken[writer]
        taken[writer] += 1
    return sorted(ordered, key=turn.__getitem__)


def _scored(
    rows: Mapping[str, MemoryRow],
    candidates: Mapping[str, Candidate],
    ctx: Context,
    weights: Ranking,
    lists: int,
    columns: Callable[[Sequence[str]], Columns | None] | None = None,
) -> tuple[Scores, dict[str, float]]:
    """Every kept candidate's scores, and every candidate's relevance before it inherits any.
    ``columns``: the kept rows' columns from their source, when it holds them."""
    best_keyword = max((c.keyword_score or 0.0 for c in candidates.values()), default=0.0)
    rel, base = relevances_and_base(rows, candidates, weights, lists, best_keyword)
    drop = weights.env_mismatch == "drop" and ctx.env
    kept = [m for m, row in rows.items() if not (drop and env_mismatches(row, ctx.env))]
    found = Rows([rows[m] for m in kept], columns(kept) if columns is not None else None)
    return score(found, [rel[m] for m in kept], ctx, weights), base


def _evidence(
    order: Sequence[str], candidates: Mapping[str, Candidate], weights: Ranking, lists: int
) -> dict[str, float]:
    """For troubleshooting: each candidate's evidence itself (cosine, BM25 relative to the best),
    which does not stretch small differences the way list-normalised fusion does on a handful of
    candidates."""
    plain = replace(weights, fusion="weighted")
    best_keyword = max((c.keyword_score or 0.0 for c in candidates.values()), default=0.0)
    found = [candidates[m] for m in order]
    return dict(zip(order, relevance_column(found, plain, lists, best_keyword).tolist()))


class _Hits:
    """Builds the ``Ranked`` of any scored candidate: its explanation, with the memories beside it
    that pass it relevance (``neighbours.beside``)."""

    def __init__(
        self,
        rows: Mapping[str, MemoryRow],
        candidates: Mapping[str, Candidate],
        ctx: Context,
        weights: Ranking,
        lists: int,
        scored: tuple[Scores, dict[str, float]],
    ) -> None:
        import numpy as np

        from ..storage.hot_columns import top

        self.rows, self.candidates, self.ctx = rows, candidates, ctx
        self.weights, self.lists = weights, lists
        # every candidate's relevance before any inheritance (``neighbours.beside``)
        table, self.base = scored
        self.found = Found(table)
        ids = [row.id for row in table.rows]
        self.scores = dict(zip(ids, table.final.tolist()))
        # every candidate by score, equal ones by id
        self.order = [mid for mid, _ in top(ids, np.arange(len(ids)), table.final, len(ids))]
        self.at = places(rows)
        self.built: dict[str, Ranked] = {}

    def ranked(self, mid: str, score: float, same_error: bool = False) -> Ranked:
        row, candidate = self.rows[mid], self.candidates[mid]
        why = explain(self.found[mid], candidate, time_note(row, self.ctx))
        if found_beside := beside(row, self.at, self.base, self.weights):
            why["beside"] = found_beside
        out = Ranked(
            row,
            score,
            why,
            candidate.matched,
            self.found[mid].values["relevance"],
            candidate.vector_score if candidate.vector_rank else None,
            same_error,
        )
        self.built[mid] = out
        return out

    def neighbours(self, row: MemoryRow, rank_of: Mapping[str, int]) -> list[tuple[str, Ranked]]:
        """The scored candidates one step before and after ``row`` in its task."""
        out = []
        for side, offset in (("before", -1), ("next", 1)):
            place = step_of(row, offset)
            mid = self.at.get(place) if place is not None else None
            if mid is None or mid == row.id or mid not in self.scores:
                continue
            other = self.built.get(mid)
            if other is None:
                other = self.ranked(mid, self.scores[mid])
                other.explain["score_rank"] = rank_of[mid]
            out.append((side, other))
        return out


def _held_back(order: Sequence[str], rows: Mapping[str, MemoryRow], found: Found) -> list[str]:
    """The quarantined candidates (instruction-like text from untrusted sources), each noted."""
    quarantined = [m for m in order if QUARANTINE_TAG in (rows[m].tags or [])]
    for mid in quarantined:
        quarantine = (rows[mid].metadata or {}).get("quarantine")
        reason = (
            quarantine.get("reason", "untrusted") if isinstance(quarantine, dict) else "untrusted"
        )
        found[mid].notes.append(f"quarantined: {reason}; ranked after trusted memories")
    return quarantined


def rank(
    rows: Mapping[str, MemoryRow],
    candidates: Mapping[str, Candidate],
    ctx: Context,
    weights: Ranking,
    k: int,
    lists: int,
    neighbours: bool = False,
    columns: Callable[[Sequence[str]], Columns | None] | None = None,
) -> list[Ranked]:
    """The top ``k`` candidates, in the order an agent should read them. With ``neighbours`` (a
    block's search, ``SearchQuery.groups_neighbours``), each carries the candidates one step
    before and after it in its task (``Ranked.neighbours``). ``columns``: the rows' columns from
    their source (``Source.columns``), when it holds them."""
    scored = _scored(rows, candidates, ctx, weights, lists, columns)
    hits = _Hits(rows, candidates, ctx, weights, lists, scored)
    # every candidate's score at once; the explanation of the few shown is built when asked for
    scores, found = hits.scores, hits.found
    order = hits.order
    rank_of = {m: i for i, m in enumerate(order, 1)}
    vectors = {m: vector for m in order if (vector := rows[m].embedding) is not None}
    # instruction-like text from untrusted sources ranks after everything else
    quarantined = _held_back(order, rows, found)
    if quarantined:
        held_back = set(quarantined)
        order = [m for m in order if m not in held_back]
    known_ids: set[str] = set()
    if ctx.fixes_first:
        # the same error fixed before, by its signature, before anything read by its words
        known, order = same_error(order, rows, ctx)
        known = known[:k]
        known_ids = set(known)
        for mid in known:
            found[mid].notes.append("troubleshoot: the same error, fixed before, ranked first")
        # gate on the evidence itself, not on the fused relevance
        evidence = _evidence(order, candidates, weights, lists)
        fixes, rest = split_fixes(order, rows, evidence, weights.troubleshoot_share)
        # a lesson (one failure and its fix) before a memory of a whole exchange that had one
        lessons = [m for m in fixes if _meta(rows[m], "signature")]
        others = [m for m in fixes if not _meta(rows[m], "signature")]
        groups = [known]
        for group in (lessons, others, rest):
            groups.append(
                mmr(group, scores, vectors, weights.mmr_lambda, k - sum(map(len, groups)))
            )
        for mid in groups[1] + groups[2]:
            found[mid].notes.append("troubleshoot: a failure with a fix, ranked first")
    else:
        groups = [mmr(order, scores, vectors, weights.mmr_lambda, k)]
    groups.append(mmr(quarantined, scores, vectors, weights.mmr_lambda, k - sum(map(len, groups))))
    shown = diversity_scores(groups, scores, vectors, weights.mmr_lambda)
    out = []
    for position, mid in enumerate([mid for group in groups for mid in group], 1):
        hit = hits.ranked(mid, shown[mid], mid in known_ids)
        hit.explain["mmr_position"] = position
        hit.explain["score_rank"] = rank_of[mid]
        # the MMR penalty, 0 or less
        hit.explain["diversity"] = round(shown[mid] - scores[mid], 4)
        out.append(hit)
    if neighbours:
        for hit in out:
            hit.neighbours = partial(hits.neighbours, hit.row, rank_of)
    return out


def grouped(
    admitted: Sequence[Ranked], min_score: float | None = None
) -> tuple[list[Ranked], dict[int, list[tuple[int, str]]]]:
    """A block's hits with their neighbours: each neighbour (the step before or after an admitted
    hit in its task, not admitted on its own) right after the first admitted hit it sits beside,
    grouped with it by position, the best-scored first (``budget.fit_budget`` keeps those that fit
    with the hit). A neighbour is never admitted on its own: it inherits its hit's place. Neither a
    quarantined memory nor a lesson (one compact line) is grouped; a neighbour under ``min_score``,
    or one that repeats a summary in the block (``summaries.one_of_each``), stays out."""
    placed = {r.row.id for r in admitted}
    # only a summary repeats what another memory says (one_of_each, which is slow to ask)
    summaries = any(summary_of(r.row) is not None for r in admitted)
    out: list[Ranked] = []
    groups: dict[int, list[tuple[int, str]]] = {}
    for hit in admitted:
        at = len(out)
        out.append(hit)
        if not _groups(hit.row):
            continue
        for side, other in hit.neighbours():
            if (
                other.row.id in placed
                or not _groups(other.row)
                or (min_score is not None and other.score < min_score)
                or (
                    (summaries or summary_of(other.row) is not None)
                    and len(one_of_each([*out, other], _row)) <= len(out)
                )
            ):
                continue
            summaries = summaries or summary_of(other.row) is not None
            placed.add(other.row.id)
            groups.setdefault(at, []).append((len(out), side))
            out.append(other)
        # the most valuable first, for a budget too tight for all (shown in the block's order)
        groups.get(at, []).sort(key=lambda member: -out[member[0]].score)
    return out, groups


def _groups(row: MemoryRow) -> bool:
    """Whether a memory may be grouped with the one beside it in a block."""
    lesson = is_fixed_failure(row) and _meta(row, "signature") is not None
    return not lesson and QUARANTINE_TAG not in (row.tags or [])


def above_floor(query: SearchQuery, ranked: Sequence[Ranked], weights: Ranking) -> list[Ranked]:
    """The hits worth an agent's attention (the relevance floor, docs/storage.md).

    Relative: each at least ``min_relevance`` of the best hit's relevance, which no prior (source,
    confidence, importance, recency, a summary's standing) enters, so a prior may reorder close hits
    but never lifts an unrelated one in. Absolute: its meaning or its words must carry it, a cosine
    of ``min_vector_only`` or ``min_keyword_only`` of the query's words (bare one- and two-digit
    numbers and stopwords are no words); so a hit found by the vector search alone needs the cosine,
    one found by its words alone the words, and a store without a matching memory gives nothing.
    With the English-only model and a query in another language the cosine says nothing, so the
    words decide. And each at least ``query.min_score``. The query's own error fixed before
    (``--troubleshoot``) is matched by its signature and always passes."""
    best = max((r.relevance for r in ranked), default=0.0)
    wanted = set(keyword_terms(query.text, derived=False))
    # the cosine counts where the vector search takes candidates (``query.vector_floor``)
    meaning = query.mode != "keyword" and weights.min_vector_similarity <= 1.0
    out = []
    for r in ranked:
        if query.min_score is not None and r.score < query.min_score:
            continue
        if r.same_error:
            out.append(r)
            continue
        if r.relevance < weights.min_relevance * best:
            continue
        by_meaning = meaning and (r.cosine or 0.0) >= weights.min_vector_only
        by_words = (
            query.mode != "vector"
            and bool(wanted)
            and len(wanted & set(terms(keyword_text(r.row))))
            >= weights.min_keyword_only * len(wanted)
        )
        if by_meaning or by_words:
            out.append(r)
    return out


def _row(ranked: Ranked) -> MemoryRow:
    return ranked.row


def _in_order(ranked: Sequence[Ranked]) -> list[Ranked]:
    """The scores a reader sees fall in rank order: a hit moved down (a time-range summary) shows
    at most the score of the hit above it."""
    out: list[Ranked] = []
    for r in ranked:
        if out and r.score > out[-1].score:
            r = replace(r, score=out[-1].score)
            r.explain = {**r.explain, "notes": [*r.explain.get("notes", []), _AFTER_FACTS]}
        out.append(r)
    return out


_AFTER_FACTS = "a summary of a time range: ranked after the precise memories"


def result(
    query: SearchQuery,
    ranked: Sequence[Ranked],
    weights: Ranking | None = None,
    store: str | None = None,
) -> SearchResult:
    """The hits that fit the query's budget (with their ids, ``listed``), with the context block:
    the one place a search's budget is fitted. A time-range summary comes after the precise hits
    (``summaries.ranges_after_facts``). A block (a budget), a troubleshooting search and a
    ``min_score`` hold a summary or the memories it covers, whichever ranks higher
    (``summaries.one_of_each``), and only the hits above the relevance floor (``above_floor``;
    ``weights``: the ranking's floors); a plain hit list (``--json`` without them, the evaluations)
    is every hit ranked. Such a block, but for troubleshooting, holds each hit's neighbours
    grouped with it (``grouped``). ``store``: the store's origin when it is unknown
    (``trust_label``)."""
    ranked = ranges_after_facts(ranked, _row)
    floored = weights is not None and (
        query.budget is not None or query.min_score is not None or query.troubleshoot
    )
    if floored:
        assert weights is not None
        ranked = above_floor(query, one_of_each(ranked, _row), weights)
    ranked = _in_order(ranked)
    groups: dict[int, list[tuple[int, str]]] = {}
    if floored and query.groups_neighbours:
        ranked, groups = grouped(ranked, query.min_score)
    memories = [codec.to_memory(r.row) for r in ranked]
    budget = query.budget
    kept, context, tokens = (
        fit_listed(memories, budget, store, groups)
        if query.listed and budget is not None
        else fit_budget(memories, budget, store, groups)
    )
    hits = [Hit(memories[i], ranked[i].score, ranked[i].matched, ranked[i].explain) for i in kept]
    return SearchResult(query.text, hits, context, tokens, budget, len(ranked) - len(kept))
