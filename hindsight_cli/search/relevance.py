"""Relevance: fuse the vector and keyword candidate lists into one score per candidate (DESIGN
§5.2), and let a memory inherit part of its task neighbours' relevance and of its task's best match.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..storage.rows import Vector

from ..config import Ranking
from ..storage.rows import MemoryRow

# candidates at which the standardised and the raw evidence weigh the same
_Z_SAMPLE = 20


@dataclass
class Candidate:
    id: str
    vector_rank: int | None = None
    vector_score: float | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = None
    # the score as standard deviations above its list's mean (0: not in that list)
    vector_z: float = 0.0
    keyword_z: float = 0.0

    @property
    def matched(self) -> list[str]:
        return [
            name
            for name, rank in (("vector", self.vector_rank), ("keyword", self.keyword_rank))
            if rank
        ]


def _z_scores(found: Sequence[tuple[str, float]]) -> dict[str, float]:
    if len(found) <= 1:
        return {}
    values = [score for _, score in found]
    mean = sum(values) / len(values)
    # A floor under the spread (a tenth of the mean) keeps near-equal scores near-equal: without it,
    # two candidates 0.01 apart in cosine would be a whole standard deviation apart.
    spread = (
        math.sqrt(sum((v - mean) ** 2 for v in values) / len(values) + (0.1 * mean) ** 2) or 1.0
    )
    return {mid: (score - mean) / spread for mid, score in found}


def fuse(
    vector: Sequence[tuple[str, float]], keyword: Sequence[tuple[str, float]]
) -> dict[str, Candidate]:
    """One candidate per id found by either list, with its ranks, scores and z-scores in each."""
    out: dict[str, Candidate] = {}
    for rank, (mid, score) in enumerate(vector, 1):
        candidate = out.setdefault(mid, Candidate(mid))
        candidate.vector_rank, candidate.vector_score = rank, score
    for rank, (mid, score) in enumerate(keyword, 1):
        candidate = out.setdefault(mid, Candidate(mid))
        candidate.keyword_rank, candidate.keyword_score = rank, score
    for mid, z in _z_scores(vector).items():
        out[mid].vector_z = z
    for mid, z in _z_scores(keyword).items():
        out[mid].keyword_z = z
    return out


def relevance(candidate: Candidate, weights: Ranking, lists: int, best_keyword: float) -> float:
    """How well a candidate matches on its own.

    ``zscore`` (default): each list's score in standard deviations above that list's mean, so a
    cosine and a BM25 score count alike (not in a list: its mean); ``relevances`` maps it into [0,
    1]. ``weighted``: the raw evidence in [0, 1], the cosine and BM25 relative to the best keyword
    hit. ``rrf``: ranks only, in [0, 1] (rank 1 in every list used is 1.0).
    """
    if weights.fusion == "zscore":
        if lists == 1:
            return candidate.vector_z if candidate.vector_rank else candidate.keyword_z
        return (
            weights.vector_weight * candidate.vector_z
            + (1 - weights.vector_weight) * candidate.keyword_z
        )
    if weights.fusion == "rrf":
        total = sum(
            1.0 / (weights.rrf_k + r) for r in (candidate.vector_rank, candidate.keyword_rank) if r
        )
        return total / (lists / (weights.rrf_k + 1))
    return weighted(candidate, weights, lists, best_keyword)


def weighted(candidate: Candidate, weights: Ranking, lists: int, best_keyword: float) -> float:
    vector = max(0.0, min(1.0, candidate.vector_score or 0.0))
    keyword = (candidate.keyword_score or 0.0) / best_keyword if best_keyword > 0 else 0.0
    if lists == 1:
        return vector if candidate.vector_rank else keyword
    return weights.vector_weight * vector + (1 - weights.vector_weight) * keyword


def _base(
    rows: Mapping[str, MemoryRow],
    candidates: Mapping[str, Candidate],
    weights: Ranking,
    lists: int,
    best_keyword: float,
) -> dict[str, float]:
    if weights.fusion != "zscore":
        return {m: max(0.0, relevance(candidates[m], weights, lists, best_keyword)) for m in rows}
    lifted = {
        m: max(0.0, 1.0 + relevance(candidates[m], weights, lists, best_keyword)) for m in rows
    }
    top = max(lifted.values(), default=0.0) or 1.0
    share = len(rows) / (len(rows) + _Z_SAMPLE)
    return {
        m: share * lifted[m] / top
        + (1 - share) * weighted(candidates[m], weights, lists, best_keyword)
        for m in rows
    }


def relevances(
    rows: Mapping[str, MemoryRow],
    candidates: Mapping[str, Candidate],
    weights: Ranking,
    lists: int,
    best_keyword: float,
) -> dict[str, float]:
    """Every candidate's relevance in [0, 1], with part of its task neighbours' and its task's best
    added.

    With ``zscore``, a candidate one standard deviation below the mean is 0 and the best is 1. A
    z-score needs a sample: with few candidates the raw evidence (``weighted``) counts most, with
    many the standardised one, so near-equal matches in a small store stay near-equal and outcome,
    recency and the rest still decide between them.

    A memory one step after a strong match in the same task (the answer after the question, the fix
    after the error) inherits ``w_prev_step`` of that match's relevance; one step before it,
    ``w_next_step``; each further step up to ``neighbour_steps`` away half as much again. Measured
    on LoCoMo (docs/benchmarks.md), this is the largest single gain. Then every memory of a task
    inherits ``w_task_match`` of the task's best candidate (relative to the best task's): the task,
    or session, that matches best lifts its other memories, a two-stage search in one pass.
    """
    base = _base(rows, candidates, weights, lists, best_keyword)
    out = (
        _with_neighbours(rows, base, weights)
        if weights.w_prev_step or weights.w_next_step
        else base
    )
    if weights.w_task_match:
        out = _with_task_match(rows, base, out, weights.w_task_match)
    return out


def _with_neighbours(
    rows: Mapping[str, MemoryRow], base: Mapping[str, float], weights: Ranking
) -> dict[str, float]:
    by_step = {
        (r.agent_id, r.task_id, r.step): base[m]
        for m, r in rows.items()
        if r.task_id is not None and r.step is not None
    }
    out = {}
    for mid, row in rows.items():
        value = base[mid]
        if row.task_id is not None and row.step is not None:
            for distance in range(1, weights.neighbour_steps + 1):
                share = 0.5 ** (distance - 1)
                value += (
                    share
                    * weights.w_prev_step
                    * by_step.get((row.agent_id, row.task_id, row.step - distance), 0.0)
                )
                value += (
                    share
                    * weights.w_next_step
                    * by_step.get((row.agent_id, row.task_id, row.step + distance), 0.0)
                )
        out[mid] = value
    return _capped(out)


def _with_task_match(
    rows: Mapping[str, MemoryRow], base: Mapping[str, float], rel: Mapping[str, float], share: float
) -> dict[str, float]:
    # A memory without a task is a task of its own: it inherits its own match, as a one-memory task
    # does, so that memories with a task are not favoured over those without one.
    group = {
        m: (r.agent_id, r.task_id) if r.task_id is not None else ("", m) for m, r in rows.items()
    }
    best: dict[tuple[str, str], float] = {}
    for mid, task in group.items():
        best[task] = max(best.get(task, 0.0), base[mid])
    top = max(best.values(), default=0.0) or 1.0
    return _capped({m: rel[m] + share * best[group[m]] / top for m in rows})


def _capped(values: dict[str, float]) -> dict[str, float]:
    top = max(values.values(), default=0.0)
    return {m: v / top for m, v in values.items()} if top > 1.0 else values


def diversity_scores(
    groups: Sequence[Sequence[str]],
    scores: Mapping[str, float],
    vectors: Mapping[str, Vector],
    lam: float,
) -> dict[str, float]:
    """Each picked hit's score after the diversity penalty MMR applied when it picked it: ``score −
    top·(1−λ)/λ·redundancy`` (redundancy: the highest cosine to a hit picked before it in its
    group), so the scores a reader sees fall in rank order within a group (MMR's own values only
    fall). A group is one MMR run: fixes first with ``--troubleshoot``, then the rest, then
    quarantined memories."""
    import numpy as np

    out: dict[str, float] = {}
    for group in groups:
        if not group:
            continue
        # MMR's first pick is the group's best score
        top = scores[group[0]]
        seen: list[npt.NDArray[np.float32]] = []
        for mid in group:
            vector = vectors.get(mid)
            vec = np.asarray(vector, dtype=np.float32) if vector is not None else None
            redundancy = (
                max((float(vec @ other) for other in seen), default=0.0) if vec is not None else 0.0
            )
            out[mid] = max(0.0, scores[mid] - top * (1 - lam) / lam * max(0.0, redundancy))
            if vec is not None:
                seen.append(vec)
    return out
