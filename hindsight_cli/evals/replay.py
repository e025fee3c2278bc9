"""Would the memory have handed the agent its earlier fix? (``hindsight eval replay``)

Agent sessions are replayed project by project, in the order they started, each project into fresh
stores of its own (a user's per-project stores) through hindsight's real write paths; at every probe
(``probes``: the first failure of its kind in a session) each system is asked with what the agent
sees then, holding only what came before. Systems (``replay_systems``): ``hooks`` (the hook path, as
Claude Code calls it; its answer is what the hook prints for the failure), ``mine`` (earlier
sessions mined, ``Store.search(troubleshoot=True)``), and two baselines over the earlier fixed
failures: ``bm25`` and ``recency`` (the most recent fix of the same command family).

Per system: positives and negatives; hit@1 and hit@3 (an earlier fixed failure of the same kind,
or a memory of its session, among the first 1 or 3 memories returned); in_block (one inside the
block the agent would read, at the budget the path uses); the mean tokens of a block when it shows
anything; false_recall (the share of negative probes whose block shows any memory); p50_ms.
"""

from __future__ import annotations

import os
import resource
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import embedding
from ..config import load as load_config
from . import probes
from .probes import Probe, Session
from .replay_systems import Answer, Hooks, Lessons, Mined, Send

SYSTEMS = ("hooks", "mine", "bm25", "recency")
Progress = Callable[[str, int, int], None]
Log = Callable[[str], None]


@dataclass
class Outcome:
    """One probe and every system's answer."""

    project: str
    probe: Probe
    answers: dict[str, Answer] = field(default_factory=dict)

    def hits(self, system: str) -> list[bool]:
        """For each memory returned, in rank order: whether it holds an earlier fix of this kind
        (the failure itself, or a memory of its session)."""
        wanted = {f.id for f in self.probe.earlier} | {f.session for f in self.probe.earlier}
        return [any(s in wanted for s in sources) for sources in self.answers[system].ranked]

    def to_dict(self, systems: Sequence[str]) -> dict[str, Any]:
        failure = self.probe.failure
        return {
            "id": self.probe.id,
            "kind": "positive" if self.probe.positive else "negative",
            "project": self.project,
            "family": failure.family,
            "signature": failure.signature,
            "earlier": [f.id for f in self.probe.earlier],
            "systems": {
                name: {
                    "block": self.answers[name].block,
                    "sources": self.answers[name].sources,
                    "hit": self.in_block(name),
                    "ms": round(self.answers[name].ms, 1),
                }
                for name in systems
            },
        }

    def in_block(self, system: str) -> bool:
        hits = self.hits(system)
        return any(hits[i] for i in self.answers[system].shown)


def figures(outcomes: Sequence[Outcome], system: str) -> dict[str, Any]:
    """One system's figures over ``outcomes``."""
    positives = [o for o in outcomes if o.probe.positive]
    negatives = [o for o in outcomes if not o.probe.positive]

    def share(items: Sequence[Outcome], test: Callable[[Outcome], bool]) -> float | None:
        return round(sum(map(test, items)) / len(items), 3) if items else None

    fired = [o.answers[system] for o in outcomes if o.answers[system].shown]
    times = [o.answers[system].ms for o in outcomes]
    fired_times = [a.ms for a in fired]
    return {
        "positives": len(positives),
        "negatives": len(negatives),
        "hit@1": share(positives, lambda o: any(o.hits(system)[:1])),
        "hit@3": share(positives, lambda o: any(o.hits(system)[:3])),
        "in_block": share(positives, lambda o: o.in_block(system)),
        # the failure's own memory in the block, not only a memory of its session
        "in_block_own": share(
            positives,
            lambda o: any(
                s in {f.id for f in o.probe.earlier}
                for i in o.answers[system].shown
                for s in o.answers[system].ranked[i]
            ),
        ),
        "block_tokens": round(statistics.mean(a.tokens for a in fired), 1) if fired else None,
        "false_recall": share(negatives, lambda o: bool(o.answers[system].shown)),
        "fires": share(outcomes, lambda o: bool(o.answers[system].shown)),
        "p50_ms": round(statistics.median(times), 1) if times else None,
        "p50_ms_fired": round(statistics.median(fired_times), 1) if fired_times else None,
    }


class _Clock:
    """Where the time goes: seconds per part of the replay, the whole, and this process's CPU."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)
        self.started, self.cpu = time.perf_counter(), _cpu()

    def add(self, name: str, start: float) -> None:
        self.spent[name] += time.perf_counter() - start

    def report(self) -> dict[str, float]:
        return {
            "total": round(time.perf_counter() - self.started, 1),
            "cpu": round(_cpu() - self.cpu, 1),
            **{k: round(v, 1) for k, v in sorted(self.spent.items())},
        }


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def replay(
    sessions: Iterable[Session],
    *,
    systems: Sequence[str] = SYSTEMS,
    budget: int = 800,
    send: Send | None = None,
    progress: Progress | None = None,
    log: Log | None = None,
    reinforce: bool = False,
) -> dict[str, Any]:
    """Replay ``sessions`` project by project and return the report (``--json``); ``reinforce``:
    each session's injections are judged when it ends, so reinforcement ranks the later ones."""
    if "hooks" in systems and send is None:
        raise ValueError("the hooks system needs a way to call the hooks (send)")
    by_project: dict[str, list[Session]] = defaultdict(list)
    for session in sessions:
        by_project[session.project].append(session)
    clock = _Clock()
    outcomes: list[Outcome] = []
    projects: dict[str, dict[str, Any]] = {}
    errors = 0
    done, total = 0, sum(len(g) for g in by_project.values())
    load = os.getloadavg()[0]
    # every store writes the same sentences (a session's prompt, its errors) again: embed each once
    with ExitStack() as stack:
        # the temporary stores are approved in an allow-list of the run's own, not the user's
        stack.enter_context(_own_allow_list())
        memo = (
            stack.enter_context(embedding.remembered(load_config(None).embedding_model))
            if {"hooks", "mine"} & set(systems)
            else None
        )
        for project, group in sorted(by_project.items()):
            begun = time.perf_counter()
            found, hook_errors = _project(
                project, group, systems, budget, send, clock, progress, reinforce
            )
            errors += hook_errors
            outcomes.extend(found)
            done += len(group)
            if progress is not None:
                progress("Sessions", done, total)
            projects[project] = {
                "sessions": len(group),
                "steps": sum(len(s.steps) for s in group),
                "failures": sum(len(probes.failures(s)) for s in group),
                "seconds": round(time.perf_counter() - begun, 1),
                "systems": {name: figures(found, name) for name in systems},
            }
            if log is not None:
                log(_line(project, projects[project], systems))
    return {
        "systems": {name: figures(outcomes, name) for name in systems},
        "projects": projects,
        "probes": [o.to_dict(systems) for o in outcomes],
        "budgets": _budgets(systems, budget),
        "sessions": total,
        "steps": sum(p["steps"] for p in projects.values()),
        "failures": sum(p["failures"] for p in projects.values()),
        "hook_errors": errors,
        "embeddings": {
            "asked": memo.asked if memo else 0,
            "embedded": memo.embedded if memo else 0,
        },
        "seconds": clock.report(),
        "load": [round(load, 2), round(os.getloadavg()[0], 2)],
    }


@contextmanager
def _own_allow_list() -> Iterator[None]:
    from .. import paths

    before = os.environ.get(paths.ENV_ALLOWED_DIR)
    with tempfile.TemporaryDirectory(prefix="hindsight-replay-allowed-") as tmp:
        os.environ[paths.ENV_ALLOWED_DIR] = os.path.join(tmp, "allowed")
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(paths.ENV_ALLOWED_DIR, None)
            else:
                os.environ[paths.ENV_ALLOWED_DIR] = before


def _line(project: str, data: dict[str, Any], systems: Sequence[str]) -> str:
    counts = data["systems"][systems[0]]
    return (
        f"{project}: {data['sessions']} sessions, {counts['positives']} positive and "
        f"{counts['negatives']} negative probes, {data['seconds']:.0f} s"
    )


def _budgets(systems: Sequence[str], budget: int) -> dict[str, int]:
    """The block budget of each path: the hooks' repeat budget from the config, ``budget`` for the
    others."""
    out = {name: budget for name in systems if name != "hooks"}
    if "hooks" in systems:
        out = {"hooks": int(load_config(None).hooks_repeat_budget), **out}
    return out


def _project(
    project: str,
    group: list[Session],
    systems: Sequence[str],
    budget: int,
    send: Send | None,
    clock: _Clock,
    progress: Progress | None,
    reinforce: bool = False,
) -> tuple[list[Outcome], int]:
    """One project's replay in temporary stores; its outcomes and how many hook calls failed."""
    found = probes.probes(group)
    at: dict[str, dict[int, Probe]] = defaultdict(dict)
    for probe in found:
        at[probe.failure.session][probe.failure.index] = probe
    outcomes = {p.id: Outcome(project, p) for p in found}
    with tempfile.TemporaryDirectory(prefix="hindsight-replay-") as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        hooks = Hooks(root / "project", send, reinforce) if "hooks" in systems and send else None
        mined = Mined(root / "mined") if "mine" in systems else None
        lessons = Lessons()
        ordered = probes.ordered(group)
        for number, session in enumerate(ordered):
            if progress is not None:
                progress(project, number, len(ordered))
            here = at.get(session.id, {})
            for probe in here.values():
                answers = outcomes[probe.id].answers
                if mined is not None:
                    start = time.perf_counter()
                    answers["mine"] = mined.ask(probe, budget)
                    clock.add("mine_search", start)
                if "bm25" in systems:
                    answers["bm25"] = lessons.bm25(probe, budget)
                if "recency" in systems:
                    answers["recency"] = lessons.recent(probe, budget)
            if hooks is not None:
                start = time.perf_counter()
                for probe_id, answer in hooks.replay(session, here).items():
                    outcomes[probe_id].answers["hooks"] = answer
                clock.add("hooks", start)
            if mined is not None:
                start = time.perf_counter()
                mined.add(session)
                clock.add("mine_write", start)
            lessons.add(session)
        if progress is not None:
            progress(project, len(ordered), len(ordered))
        errors = hooks.errors if hooks is not None else 0
    return list(outcomes.values()), errors
