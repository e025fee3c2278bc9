"""The ranking computed as columns over the candidates gives every candidate the score, to the
last bit, that the arithmetic one candidate at a time gives (the rules as they read in
docs/storage.md, written out here plainly): so the hits, their order and their scores do not
depend on how many candidates were scored together. Pure functions over rows: no store, no model.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from hindsight_cli.config import Ranking
from hindsight_cli.search import pipeline, relevance, signals
from hindsight_cli.search.relevance import Candidate
from hindsight_cli.search.signals import Context
from hindsight_cli.storage.rows import MemoryRow

pytestmark = pytest.mark.no_store

NOW = datetime(2026, 6, 1, 12, 0)


def _rows(seed: int, count: int = 120) -> list[MemoryRow]:
    """Memories of every kind the signals tell apart, with equal values among them (ties)."""
    pick = random.Random(seed)
    rows = []
    for i in range(count):
        outcome = pick.choice(["success", "failure", "neutral", "unknown"])
        rows.append(
            MemoryRow(
                f"m{i:03d}",
                pick.choice(
                    [
                        "redis on 127.0.0.1:6379 refused the connection",
                        "pinned numpy==1.26.4 after the build broke",
                        "yesterday the deploy of api v2 timed out",
                        "the user prefers short answers",
                    ]
                ),
                type=pick.choice(["episodic", "semantic", "procedural", "working"]),
                agent_id=pick.choice(["a", "b"]),
                task_id=pick.choice([None, "t1", "t2", "t3"]),
                step=pick.choice([None, 1, 2, 3, 4, 5, 9]),
                outcome=outcome,
                resolution=pick.choice([None, "", "restarted it"]),
                importance=pick.choice([0.1, 0.5, 0.9, 1]),
                confidence=pick.choice([0.0, 0.4, 0.6, 0.9]),
                env=pick.choice([{}, {"tool_version": "v2"}, {"tool_version": "v3"}]),
                event_at=NOW - timedelta(seconds=pick.choice([0, 1, 3600, 86400 * 7, 10**7, -60])),
                valid_until=pick.choice([None, NOW - timedelta(days=1), NOW + timedelta(days=1)]),
                metadata=pick.choice([{}, {"event_time": "2026-05-31"}]),
            )
        )
    return rows


CONTEXTS = [
    Context(NOW),
    Context(NOW, task_id="t2", troubleshooting=True),
    Context(NOW, env={"tool_version": "v3"}, query="redis 127.0.0.1:5432 refused"),
    Context(NOW, query="what did we deploy yesterday", standing={"m001": 0.5, "m007": -1.0}),
    Context(NOW, query="numpy==2.1.0 build", task_id="t1"),
]


def _one_at_a_time(row: MemoryRow, rel: float, ctx: Context, weights: Ranking) -> float:
    """``final = Σ weight·signal × confidence factor × Π factor``, one memory at a time."""
    age = max(0.0, (ctx.now - row.event_at).total_seconds() / 86400)
    half_life = float(getattr(weights, f"half_life_{row.type}", weights.half_life_episodic))
    if row.outcome == "failure":
        outcome = 1.0 if row.resolution else 0.6 if ctx.troubleshooting else 0.1
    else:
        outcome = {"success": 0.8, "neutral": 0.5}.get(row.outcome, 0.5)
    plain = {
        "relevance": rel,
        "recency": math.exp(-math.log(2) * age / max(half_life, 1e-6)),
        "outcome": outcome,
        "importance": float(row.importance),
        "same_task": 1.0 if ctx.task_id and row.task_id == ctx.task_id else 0.0,
    }
    parts = [
        float(getattr(weights, s.weight))
        * (plain[s.name] if s.name in plain else s.value(row, rel, ctx, weights))
        for s in ctx.signals
    ]
    factor = 0.5 + 0.5 * float(row.confidence)
    for apply in signals.FACTORS:
        factor *= apply.value(row, ctx, weights)[0]
    return sum(parts) * factor


@pytest.mark.parametrize("ctx", CONTEXTS, ids=range(len(CONTEXTS)))
def test_every_candidates_score_is_its_score_alone(ctx: Context) -> None:
    weights = replace(Ranking(), use_factor=0.2)
    rows = _rows(7)
    rel = [random.Random(i).random() for i in range(len(rows))]
    table = signals.score(rows, rel, ctx, weights)
    assert table.final.tolist() == [
        _one_at_a_time(row, r, ctx, weights) for row, r in zip(rows, rel)
    ]
    for i in (0, 7, 55):
        alone = signals.scored(rows[i], ctx, weights, rel[i])
        assert table.scored(i) == alone
        assert alone.final == table.final[i]


def _candidates(rows: list[MemoryRow], seed: int) -> dict[str, Candidate]:
    pick = random.Random(seed)
    vector = [(r.id, pick.choice([0.2, 0.5, 0.5, 0.9, 1.0])) for r in rows if pick.random() < 0.7]
    vector.sort(key=lambda found: -found[1])
    keyword = [(r.id, pick.choice([1.0, 3.5, 12.0])) for r in rows if pick.random() < 0.5]
    keyword.sort(key=lambda found: -found[1])
    fused = relevance.fuse(vector, keyword)
    for row in rows:
        fused.setdefault(row.id, Candidate(row.id))
    return fused


def _raw(c: Candidate, weights: Ranking, lists: int, best: float) -> float:
    """The evidence itself: the cosine, BM25 relative to the best keyword hit."""
    vector = max(0.0, min(1.0, c.vector_score or 0.0))
    keyword = (c.keyword_score or 0.0) / best if best > 0 else 0.0
    if lists == 1:
        return vector if c.vector_rank else keyword
    return weights.vector_weight * vector + (1 - weights.vector_weight) * keyword


def _fused(c: Candidate, weights: Ranking, lists: int, best: float) -> float:
    if weights.fusion == "weighted":
        return _raw(c, weights, lists, best)
    if weights.fusion == "rrf":
        ranks = (c.vector_rank, c.keyword_rank)
        total = sum(1.0 / (weights.rrf_k + r) for r in ranks if r)
        return total / (lists / (weights.rrf_k + 1))
    if lists == 1:
        return c.vector_z if c.vector_rank else c.keyword_z
    return weights.vector_weight * c.vector_z + (1 - weights.vector_weight) * c.keyword_z


def _capped(values: dict[str, float]) -> dict[str, float]:
    top = max(values.values())
    return {m: v / top for m, v in values.items()} if top > 1.0 else values


def _relevances_alone(
    rows: dict[str, MemoryRow], found: dict[str, Candidate], weights: Ranking, lists: int
) -> dict[str, float]:
    """The fused relevance, then the neighbours' and the task's share, one memory at a time."""
    best = max((c.keyword_score or 0.0 for c in found.values()), default=0.0)
    base = {m: max(0.0, _fused(found[m], weights, lists, best)) for m in rows}
    if weights.fusion == "zscore":
        lifted = {m: max(0.0, 1.0 + _fused(found[m], weights, lists, best)) for m in rows}
        top = max(lifted.values()) or 1.0
        share = len(rows) / (len(rows) + 20)
        base = {
            m: share * lifted[m] / top + (1 - share) * _raw(found[m], weights, lists, best)
            for m in rows
        }
    steps = {m: r for m, r in rows.items() if r.task_id is not None and r.step is not None}
    by_step = {(r.agent_id, r.task_id, r.step): base[m] for m, r in steps.items()}
    out = {}
    for m in rows:
        value = base[m]
        if m in steps:
            r = steps[m]
            for d in range(1, weights.neighbour_steps + 1):
                before = by_step.get((r.agent_id, r.task_id, r.step - d), 0.0)
                after = by_step.get((r.agent_id, r.task_id, r.step + d), 0.0)
                value += 0.5 ** (d - 1) * weights.w_prev_step * before
                value += 0.5 ** (d - 1) * weights.w_next_step * after
        out[m] = value
    out = _capped(out)
    group = {
        m: (r.agent_id, r.task_id) if r.task_id is not None else ("", m) for m, r in rows.items()
    }
    best_of: dict[tuple[str, str | None], float] = {}
    for m, task in group.items():
        best_of[task] = max(best_of.get(task, 0.0), base[m])
    top = max(best_of.values()) or 1.0
    return _capped({m: out[m] + weights.w_task_match * best_of[group[m]] / top for m in rows})


@pytest.mark.parametrize("fusion", ["zscore", "weighted", "rrf"])
@pytest.mark.parametrize("lists", [1, 2])
def test_relevances_are_those_of_one_candidate_at_a_time(fusion: str, lists: int) -> None:
    weights = replace(Ranking(), fusion=fusion)
    for seed in range(4):
        rows = {r.id: r for r in _rows(seed)}
        found = _candidates(list(rows.values()), seed)
        best = max((c.keyword_score or 0.0 for c in found.values()), default=0.0)
        assert relevance.relevances(rows, found, weights, lists, best) == _relevances_alone(
            rows, found, weights, lists
        )


@pytest.mark.parametrize("ctx", CONTEXTS, ids=range(len(CONTEXTS)))
def test_the_ranking_orders_candidates_by_their_scores_alone(ctx: Context) -> None:
    weights = replace(Ranking(), mmr_lambda=1.0)
    rows = {r.id: r for r in _rows(3)}
    found = _candidates(list(rows.values()), 3)
    rel = _relevances_alone(rows, found, weights, 2)
    alone = {m: _one_at_a_time(rows[m], rel[m], ctx, weights) for m in rows}
    ranked = pipeline.rank(rows, found, ctx, weights, 25, 2)
    assert [(r.row.id, r.explain["score"]) for r in ranked] == [
        (m, round(alone[m], 6)) for m in sorted(alone, key=lambda m: (-alone[m], m))[:25]
    ]


class _Counted:
    """A ``Ranking`` that counts the reads of ``w_prev_step`` (one per step of reach scored)."""

    def __init__(self, weights: Ranking) -> None:
        self._weights, self.reads = weights, 0

    def __getattr__(self, name: str) -> object:
        if name == "w_prev_step":
            self.reads += 1
        return getattr(self._weights, name)


def test_a_reach_past_the_candidates_steps_costs_no_more_than_theirs() -> None:
    """Review AL: ``neighbour_steps`` (a checkout's config chooses it) set the loop's length, so
    100,000,000 held every search past any timeout. No neighbour lies further than the candidates'
    steps span (1 to 9 here): the scores are those of a reach of 8, and so is the work."""
    rows = {r.id: r for r in _rows(0)}
    found = _candidates(list(rows.values()), 0)
    best = max((c.keyword_score or 0.0 for c in found.values()), default=0.0)
    spanned = relevance.relevances(rows, found, replace(Ranking(), neighbour_steps=8), 1, best)
    for reach in (8, 9, 10_000):
        counted = _Counted(replace(Ranking(), neighbour_steps=reach))
        scored = relevance.relevances(rows, found, counted, 1, best)  # type: ignore[arg-type]
        assert scored == spanned
        assert counted.reads <= 8 + 2
    assert relevance.relevances(rows, found, replace(Ranking(), neighbour_steps=-3), 1, best)
