"""Neighbours (the answer after a question, the turn that says what "it" is): the steps just before
and after the ``Ranking.neighbour_pool`` most relevant candidates join the candidates even when
neither list found them. A neighbour brings no evidence of its own (its relevance before the
neighbour signal is 0), so it ranks by what it inherits from the hit beside it (``w_prev_step``,
``w_next_step``: the hit's relevance times a decay) and from its task's best match, through the same
scorer as every candidate. Not for ``--troubleshoot`` (``candidates.gather``): there the query's own
error, fixed before, is what counts.

``--explain`` names the memory a hit sits beside and what it inherits from it (``beside``); a block
holds a neighbour only grouped with an admitted hit beside it (``pipeline.grouped``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ..config import Ranking
from ..models import BesideMatch
from ..storage.base import Condition
from ..storage.rows import MemoryRow
from .relevance import Candidate, relevance_column

# a place in a task: (agent, task, step)
Step = tuple[str | None, str, int]
# the step before and the step after
_SIDES = (-1, 1)


class StepSource(Protocol):
    def at_steps(self, steps: Sequence[Step], where: Sequence[Condition]) -> list[MemoryRow]: ...


def wanted(
    rows: Mapping[str, MemoryRow],
    candidates: Mapping[str, Candidate],
    weights: Ranking,
    lists: int,
) -> list[Step]:
    """The steps beside the ``neighbour_pool`` most relevant candidates (of a task, with a step)
    that are not candidates, most relevant first."""
    best_keyword = max((c.keyword_score or 0.0 for c in candidates.values()), default=0.0)
    placed = [m for m, r in rows.items() if r.task_id is not None and r.step is not None]
    if not placed or weights.neighbour_pool <= 0:
        return []
    # one column for all of them: each value is the one a candidate alone would get
    column = relevance_column([candidates[m] for m in placed], weights, lists, best_keyword)
    import numpy as np

    from ..storage.hot_columns import top

    # the most relevant first, equal ones by id
    scored = [m for m, _ in top(placed, np.arange(len(placed)), column, weights.neighbour_pool)]
    have: set[tuple[object, ...]] = {(r.agent_id, r.task_id, r.step) for r in rows.values()}
    out: list[Step] = []
    for mid in scored:
        for offset in _SIDES:
            step = step_of(rows[mid], offset)
            if step is not None and step not in have:
                have.add(step)
                out.append(step)
    return out


def add_neighbours(
    source: StepSource,
    where: Sequence[Condition],
    weights: Ranking,
    lists: int,
    rows: dict[str, MemoryRow],
    candidates: dict[str, Candidate],
) -> None:
    """The steps ``wanted`` names join ``rows`` and ``candidates`` (below every list's mean in each,
    so their own relevance is 0)."""
    steps = wanted(rows, candidates, weights, lists)
    if not steps:
        return
    for row in source.at_steps(steps, where):
        if row.id not in rows:
            rows[row.id] = row
            candidates[row.id] = Candidate(row.id, vector_z=-_NO_EVIDENCE, keyword_z=-_NO_EVIDENCE)


# standard deviations below a list's mean: relevance 0 however the lists are weighed
_NO_EVIDENCE = 1.0


def steps_where(steps: Sequence[Step], by_step: bool = True) -> list[Condition]:
    """Conditions that hold every step of ``steps`` (and possibly others of their tasks: the caller
    keeps only the exact steps, ``exact``); without ``by_step``, every memory of their tasks (the
    LanceDB index cannot filter on a step)."""
    tasks: list[Condition] = [("task_id", "in", sorted({task for _, task, _ in steps}))]
    return [*tasks, ("step", "in", sorted({step for _, _, step in steps}))] if by_step else tasks


def exact(found: Sequence[MemoryRow], steps: Sequence[Step]) -> list[MemoryRow]:
    wanted_steps = set(steps)
    return [r for r in found if (r.agent_id, r.task_id, r.step) in wanted_steps]


def places(rows: Mapping[str, MemoryRow]) -> dict[Step, str]:
    """Each candidate's place in its task (of those with a task and a step), the last of equal
    ones as the relevance's inheritance reads them."""
    return {
        (r.agent_id, r.task_id, r.step): mid
        for mid, r in rows.items()
        if r.task_id is not None and r.step is not None
    }


def step_of(row: MemoryRow, offset: int) -> Step | None:
    """The place ``offset`` steps from ``row`` in its task, or None without a task and a step."""
    if row.task_id is None or row.step is None:
        return None
    return (row.agent_id, row.task_id, row.step + offset)


def beside(
    row: MemoryRow, at: Mapping[Step, str], base: Mapping[str, float], weights: Ranking
) -> list[BesideMatch]:
    """The candidates one step before and after ``row`` that pass it a share of their relevance
    (``base``: before any inheritance), the largest first: ``w_prev_step`` of the step before's,
    ``w_next_step`` of the step after's (``relevance.relevances``)."""
    out: list[BesideMatch] = []
    # offset: this memory's step relative to the one it inherits from
    for offset, share in ((1, weights.w_prev_step), (-1, weights.w_next_step)):
        place = step_of(row, -offset)
        other = at.get(place) if place is not None else None
        if other is None or other == row.id or not share or base.get(other, 0.0) <= 0:
            continue
        relevance = base[other]
        out.append(
            {
                "id": other,
                "step": offset,
                "share": share,
                "relevance": round(relevance, 4),
                "inherited": round(share * relevance, 4),
            }
        )
    return sorted(out, key=lambda b: -b["inherited"])
