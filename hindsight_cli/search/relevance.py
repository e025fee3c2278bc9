"""Relevance: fuse the vector and keyword candidate lists into one score per candidate (DESIGN
§5.2), and let a memory inherit part of its task neighbours' relevance and of its task's best match.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..storage.rows import Vector

    # one float per candidate
    Floats: TypeAlias = npt.NDArray[np.float64]

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
    out = {mid: Candidate(mid, rank, score) for rank, (mid, score) in enumerate(vector, 1)}
    for rank, (mid, score) in enumerate(keyword, 1):
        candidate = out.get(mid)
        if candidate is None:
            out[mid] = Candidate(mid, keyword_rank=rank, keyword_score=score)
        else:
            candidate.keyword_rank, candidate.keyword_score = rank, score
    for mid, z in _z_scores(vector).items():
        out[mid].vector_z = z
    for mid, z in _z_scores(keyword).items():
        out[mid].keyword_z = z
    return out


def relevance(candidate: Candidate, weights: Ranking, lists: int, best_keyword: float) -> float:
    """How well a candidate matches on its own (``relevance_column`` of one)."""
    return float(relevance_column([candidate], weights, lists, best_keyword)[0])


def relevance_column(
    candidates: Sequence[Candidate], weights: Ranking, lists: int, best_keyword: float
) -> Floats:
    """How well each candidate matches on its own.

    ``zscore`` (default): each list's score in standard deviations above that list's mean, so a
    cosine and a BM25 score count alike (not in a list: its mean); ``relevances`` maps it into [0,
    1]. ``weighted``: the raw evidence in [0, 1], the cosine and BM25 relative to the best keyword
    hit. ``rrf``: ranks only, in [0, 1] (rank 1 in every list used is 1.0).
    """
    import numpy as np

    if weights.fusion == "zscore":
        vector = np.array([c.vector_z for c in candidates], dtype=np.float64)
        keyword = np.array([c.keyword_z for c in candidates], dtype=np.float64)
        if lists == 1:
            return np.where([bool(c.vector_rank) for c in candidates], vector, keyword)
        return weights.vector_weight * vector + (1 - weights.vector_weight) * keyword
    if weights.fusion == "rrf":
        k = weights.rrf_k
        vector = np.array([1.0 / (k + c.vector_rank) if c.vector_rank else 0.0 for c in candidates])
        keyword = np.array(
            [1.0 / (k + c.keyword_rank) if c.keyword_rank else 0.0 for c in candidates]
        )
        return (vector + keyword) / (lists / (k + 1))
    return weighted_column(candidates, weights, lists, best_keyword)


def weighted(candidate: Candidate, weights: Ranking, lists: int, best_keyword: float) -> float:
    return float(weighted_column([candidate], weights, lists, best_keyword)[0])


def weighted_column(
    candidates: Sequence[Candidate], weights: Ranking, lists: int, best_keyword: float
) -> Floats:
    """The raw evidence: the cosine in [0, 1], BM25 relative to the best keyword hit."""
    import numpy as np

    vector = np.array([c.vector_score or 0.0 for c in candidates], dtype=np.float64)
    vector = np.maximum(0.0, np.minimum(1.0, vector))
    keyword = (
        np.array([c.keyword_score or 0.0 for c in candidates], dtype=np.float64) / best_keyword
        if best_keyword > 0
        else np.zeros(len(candidates))
    )
    if lists == 1:
        return np.where([bool(c.vector_rank) for c in candidates], vector, keyword)
    return weights.vector_weight * vector + (1 - weights.vector_weight) * keyword


def _base(candidates: Sequence[Candidate], weights: Ranking, lists: int, best: float) -> Floats:
    import numpy as np

    fused = relevance_column(candidates, weights, lists, best)
    if weights.fusion != "zscore":
        return np.maximum(0.0, fused)
    lifted = np.maximum(0.0, 1.0 + fused)
    top = (float(lifted.max()) if len(lifted) else 0.0) or 1.0
    share = len(candidates) / (len(candidates) + _Z_SAMPLE)
    return share * lifted / top + (1 - share) * weighted_column(candidates, weights, lists, best)


def relevances(
    rows: Mapping[str, MemoryRow],
    candidates: Mapping[str, Candidate],
    weights: Ranking,
    lists: int,
    best_keyword: float,
) -> dict[str, float]:
    """Every candidate's relevance in [0, 1], with part of its task neighbours' and its task's best
    added (``relevances_and_base``)."""
    return relevances_and_base(rows, candidates, weights, lists, best_keyword)[0]


def relevances_and_base(
    rows: Mapping[str, MemoryRow],
    candidates: Mapping[str, Candidate],
    weights: Ranking,
    lists: int,
    best_keyword: float,
) -> tuple[dict[str, float], dict[str, float]]:
    """Every candidate's relevance in [0, 1], with part of its task neighbours' and its task's best
    added; and beside it the relevance before anything is inherited (its own evidence: what a
    neighbour inherits a share of, which ``--explain`` shows).

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

    Computed as columns over the candidates, in the arithmetic's order of one at a time.
    """
    found = list(rows.values())
    tasks = _tasks(found)
    base = _base([candidates[m] for m in rows], weights, lists, best_keyword)
    out = (
        _with_neighbours(found, tasks, base, weights)
        if weights.w_prev_step or weights.w_next_step
        else base
    )
    if weights.w_task_match:
        out = _with_task_match(tasks, base, out, weights.w_task_match)
    return dict(zip(rows, out.tolist())), dict(zip(rows, base.tolist()))


def _tasks(rows: Sequence[MemoryRow]) -> list[int]:
    """Each memory's task as a number. A memory without a task is a task of its own: it inherits
    its own match, as a one-memory task does, so that memories with a task are not favoured over
    those without one."""
    code: dict[tuple[str, str], int] = {}
    return [
        code.setdefault((r.agent_id, r.task_id) if r.task_id is not None else ("", r.id), len(code))
        for r in rows
    ]


def _with_neighbours(
    rows: Sequence[MemoryRow], tasks: Sequence[int], base: Floats, weights: Ranking
) -> Floats:
    import numpy as np

    steps = [r.step if r.task_id is not None else None for r in rows]
    known = [s for s in steps if s is not None]
    if not known:
        return _capped(base)
    # no neighbour lies further than the steps among the candidates span: the work is bounded by
    # them, not by the setting (review AL: a checkout's `neighbour_steps = 100000000` held every
    # search, and the hooks' and the MCP server's with it, past any timeout)
    reach = max(0, min(weights.neighbour_steps, max(known) - min(known)))
    # one number per (task, step): the steps of one task, and as far again on either side, never
    # reach another task's
    low, span = min(known) - reach, max(known) - min(known) + 2 * reach + 1
    keys = [None if s is None else t * span + s - low for t, s in zip(tasks, steps)]
    # each step's candidate (the last of equal ones); a missing neighbour reads the 0 at the end
    at = {key: i for i, key in enumerate(keys) if key is not None}
    missing = len(rows)
    padded = np.append(base, 0.0)
    out = base
    for distance in range(1, reach + 1):
        share = 0.5 ** (distance - 1)
        for weight, step in ((weights.w_prev_step, -distance), (weights.w_next_step, distance)):
            near = [missing if k is None else at.get(k + step, missing) for k in keys]
            out = out + share * weight * padded[near]
    return _capped(out)


def _with_task_match(tasks: Sequence[int], base: Floats, rel: Floats, share: float) -> Floats:
    import numpy as np

    # each task's best (a loop over a hundred numbers: ufunc.at took 50 µs)
    best = [0.0] * (max(tasks, default=-1) + 1)
    for task, value in zip(tasks, base.tolist()):
        if value > best[task]:
            best[task] = value
    top = max(best, default=0.0) or 1.0
    return _capped(rel + share * np.array(best)[tasks] / top)


def _capped(values: Floats) -> Floats:
    top = float(values.max()) if len(values) else 0.0
    return values / top if top > 1.0 else values


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
        dim = next((len(v) for m in group if (v := vectors.get(m)) is not None), 0)
        # a memory without a vector is never redundant (a zero row: every cosine 0); each hit's
        # highest cosine to those before it, kept up to date one pick at a time (a product of the
        # rows after it, never the whole n x n matrix, nor a Python loop over pairs)
        none = np.zeros(dim, np.float32)
        matrix = np.array([vectors.get(m, none) for m in group], dtype=np.float32)
        redundancy = np.zeros(len(group))
        for at, mid in enumerate(group):
            out[mid] = max(0.0, scores[mid] - top * (1 - lam) / lam * max(0.0, redundancy[at]))
            if dim and at + 1 < len(group):
                after = redundancy[at + 1 :]
                np.maximum(after, matrix[at + 1 :] @ matrix[at], out=after)
    return out
