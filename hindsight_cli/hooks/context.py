"""The slow side of the hooks: the spool ingested (``Store.ingest_events``), recall within a budget,
summaries.

Imported only by the events that need the store (session start, a repeat, compaction, session end).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from .. import paths
from ..core import binding
from ..core.scope import by_principal
from ..errors import HindsightError
from ..lessons import signatures
from ..models import Filters, Memory
from ..search.budget import fit_budget
from ..storage import spool
from ..store import Store
from .events import Event
from .settings import Settings

log = logging.getLogger("hindsight.hooks")
# hands a block (or None: nothing fit) to the hook that waits for it; whether it took it
Confirm = Callable[[str | None], bool]
# tokens below which a capped block is not worth injecting
MIN_BLOCK = 40
_PER_GROUP = {"preference": 5, "lesson": 5, "unresolved": 3, "summary": 3}


def _project(store: Store, cwd: str) -> str | None:
    """The project a global store's memories are filtered by (a project store holds one project)."""
    if store.path.name == paths.STORE_DIRNAME or not cwd:
        return None
    return paths.project_dir(cwd)


def summarize_session(store: Store, session: str) -> Memory | None:
    try:
        return store.summarize(task_id=session).memory
    except HindsightError:
        # nothing episodic in that session
        return None


def _trusted(store: Store) -> None:
    """Nothing is injected from, or ingested into, a store whose ledger is not the one approved
    (review AE: a project archive unpacked over it keeps the store's id and path)."""
    if store.origin is not None:
        binding.require_trusted(store.path)


def close_session(path: Path, event: Event, conf: Settings) -> None:
    """Session end or compaction: everything spooled goes in, and the session gets its summary."""
    store = Store(path)
    _trusted(store)
    store.ingest_events()
    if conf.summarize and event.session and store.exists:
        summarize_session(store, event.session)
    if store.exists and event.kind == "session-end":
        from .verdicts import judge_session

        transcript = event.extra.get("transcript")
        judge_session(
            store, event.session, event.client, transcript if isinstance(transcript, str) else None
        )


def _in_project(memory: Memory, project: str | None, tasks: set[str]) -> bool:
    if project is None:
        return True
    owner = memory.metadata.get("project")
    if owner:
        return owner == project
    return memory.task_id in tasks if memory.task_id else memory.source == "user"


# the sources the owner's own memories usually have, listed apart when another principal's writes
# fill a listing's window (``_listed``)
_USUAL_SOURCES = ("user", "agent", "tool", "web", "import", "email", "hindsight")
_WINDOW = 200


def _listed(store: Store, filters: Filters) -> list[Memory]:
    """The newest ``_WINDOW`` memories ``filters`` select; when token principals' writes are among
    them and fill the window, the owner's own (of the sources seen there and the usual ones) are
    listed apart and come first: another agent's many recent writes never push the owner's out of
    what a session start or a repeated error reads."""
    found = store.list(filters, limit=_WINDOW)
    if len(found) < _WINDOW or not any(by_principal(m.source) for m in found):
        return found
    own = {m.source for m in found if not by_principal(m.source)} | set(_USUAL_SOURCES)
    owners = store.list(replace(filters, sources=tuple(sorted(own))), limit=_WINDOW)
    listed = {m.id for m in owners}
    return owners + [m for m in found if m.id not in listed]


def _groups(store: Store, project: str | None) -> list[tuple[str, list[Memory]]]:
    failures = _listed(store, Filters(types=("episodic",), outcomes=("failure",)))
    tasks = {m.task_id for m in failures if m.task_id and m.metadata.get("project") == project}
    semantic = _listed(store, Filters(types=("semantic", "procedural")))
    keep = [m for m in failures + semantic if _in_project(m, project, tasks)]
    return [
        (
            "preference",
            [
                m
                for m in keep
                if m.type != "episodic" and m.source == "user" and "summary" not in m.tags
            ],
        ),
        ("lesson", [m for m in keep if m.type == "episodic" and m.resolution]),
        ("unresolved", [m for m in keep if m.type == "episodic" and not m.resolution]),
        ("summary", [m for m in keep if m.trigger == "summary"]),
    ]


def session_context(path: Path, event: Event, conf: Settings) -> str | None:
    """The block injected at session start: user preferences, fixed failures (lessons), unresolved
    failures and recent session summaries of this project, newest first, within the budget."""
    store = Store(path)
    _trusted(store)
    report = store.ingest_events()
    # sessions that ended without a session-end event (Codex, a crash)
    if conf.summarize:
        for session in report["sessions"]:
            if session != event.session:
                summarize_session(store, session)
    if not store.exists:
        return None
    started = time.perf_counter()
    picked: list[Memory] = []
    for name, members in _groups(store, _project(store, event.cwd)):
        newest = sorted(members, key=lambda m: m.event_at, reverse=True)
        picked.extend(owner_first(reinforced(store, newest))[: _PER_GROUP[name]])
    return inject(store, event, conf, "session-start", picked, conf.recall_budget, started)


def owner_first(memories: list[Memory]) -> list[Memory]:
    """``memories`` in their order, the store owner's own before what token principals wrote
    (``scope.by_principal``): another agent on a shared server, however recent or many its writes,
    never takes the places of the owner's lessons, preferences and summaries at a session start or
    a repeated error; its own fill the places left, labelled."""
    return sorted(memories, key=lambda m: by_principal(m.source))


def reinforced(store: Store, memories: list[Memory]) -> list[Memory]:
    """``memories`` as automatic injection takes them: without the flagged ones (misleading) and,
    with reinforcement on (``[ranking] use_factor``), without those the agent keeps ignoring
    (standing at or below ``ignored_cutoff``), the ones it used first."""
    flagged = set(store.flagged())
    kept = [m for m in memories if m.id not in flagged]
    weights = store.config.ranking
    if not weights.use_factor:
        return kept
    standing = store.standing()
    kept = [m for m in kept if standing.get(m.id, 0.0) > weights.ignored_cutoff]
    return sorted(kept, key=lambda m: -max(0.0, standing.get(m.id, 0.0)))


def _cap(store: Store, event: Event, conf: Settings, budget: int) -> tuple[int, str | None]:
    """The budget left under the daily and per-session caps, and which cap cut it."""
    if not conf.daily_budget and not conf.session_budget:
        return budget, None
    daily, in_session = store.injection_spend(event.session or None)
    cut: str | None = None
    if conf.daily_budget and conf.daily_budget - daily < budget:
        budget, cut = max(0, conf.daily_budget - daily), "daily cap"
    if conf.session_budget and event.session and conf.session_budget - in_session < budget:
        budget, cut = max(0, conf.session_budget - in_session), "session cap"
    return budget, cut


def inject(
    store: Store,
    event: Event,
    conf: Settings,
    name: str,
    memories: list[Memory],
    budget: int,
    started: float,
    confirm: Confirm | None = None,
) -> str | None:
    """The block of ``memories`` within ``budget`` and the caps, recorded in the injection record
    with what it cost and what the budget left out (or that a cap skipped it). ``confirm`` (a warm
    recall's) hands the answer over first: the record is written only once it is taken."""
    if not memories:
        return None
    budget, cut = _cap(store, event, conf, budget)
    kept, block, tokens = fit_budget(memories, budget) if budget >= MIN_BLOCK else ([], "", 0)
    shown = [memories[i].id for i in kept]
    dropped = [m.id for i, m in enumerate(memories) if i not in set(kept)]
    given = bool(shown) and "\n" in block
    if confirm is not None and not confirm(block if given else None):
        return None
    store.record_injection(
        name,
        shown if given else [],
        tokens if given else 0,
        session=event.session or None,
        ms=(time.perf_counter() - started) * 1000,
        budget=budget,
        dropped=dropped if given else [m.id for m in memories],
        skipped=None if given else cut or "nothing fit",
        call=str(event.extra.get("call") or "") or None,
    )
    return block if given else None


def repeat_context(
    store: Store, event: Event, query: str, conf: Settings, confirm: Confirm | None = None
) -> str | None:
    """ "I have seen this before": for an error of a kind an earlier session fixed, its lessons (the
    same family and signature, found by their tag), most recent first, as one line; for a repeated
    prompt, the memories that match it, fixes first. The hook's cold path and a warm server
    (``warm``) both run this, on their own ``store`` of the same directory; ``confirm`` is
    ``inject``'s."""
    started = time.perf_counter()
    _trusted(store)
    if event.failed:
        kind = event.failure_kind()
        if kind is None:
            return None
        hits = _lessons(store, event, kind) if store.exists else []
        # The lessons are other sessions' and were ingested when those sessions ended or this one
        # started: the agent waits for a lookup by tag, not for this session's spool to be embedded
        # (a second in the replay of real sessions). Only a session that fixed it and whose lesson
        # is still in the spool (one without session hooks, one still running) is worth the wait.
        fixed = spool.fixed_by(str(store.path), kind) - {event.session}
        if not fixed <= {m.task_id for m in hits} and store.events_pending():
            store.ingest_events()
            hits = _lessons(store, event, kind) if store.exists else []
    else:
        store.ingest_events()
        if not store.exists:
            return None
        project = _project(store, event.cwd)
        result = store.search(
            query,
            k=10,
            troubleshoot=True,
            current_task=event.session or None,
            budget=conf.repeat_budget,
        )
        hits = [
            h.memory
            for h in result.hits
            if h.memory.trigger != "user_prompt"
            and _in_project(h.memory, project, set())
            and not (
                h.memory.task_id == event.session
                and h.memory.outcome == "failure"
                and not h.memory.resolution
            )
        ]
    hits = reinforced(store, hits)
    if event.failed:
        hits = owner_first(hits)
    name = "repeat-error" if event.failed else "repeat-prompt"
    return inject(store, event, conf, name, hits, conf.repeat_budget, started, confirm)


def _lessons(store: Store, event: Event, kind: str) -> list[Memory]:
    """Other sessions' fixed failures of ``kind`` in this project (by the kind's tag), the most
    recent first."""
    project = _project(store, event.cwd)
    found = _listed(
        store, Filters(types=("episodic",), outcomes=("failure",), tags=(signatures.tag(kind),))
    )
    return sorted(
        (
            m
            for m in found
            if m.resolution and m.task_id != event.session and _in_project(m, project, set())
        ),
        key=lambda m: m.event_at,
        reverse=True,
    )
