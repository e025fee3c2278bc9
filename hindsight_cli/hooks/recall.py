"""The slow side of the hooks: ingest the spool into the store, recall within a budget, summarize.

Imported only by the events that need the store (session start, a repeat, compaction, session end).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from .. import paths
from ..core import fixes
from ..core.prepare import derived_key
from ..errors import HindsightError
from ..models import Filters, Memory
from ..search.budget import fit_budget
from ..store import Store
from . import Settings, spool
from .events import Event

log = logging.getLogger("hindsight.hooks")
_PER_GROUP = {"preference": 5, "lesson": 5, "unresolved": 3, "summary": 3}


def _key(*parts: str) -> str:
    return derived_key("hook", *parts)


def _project(store: Store, cwd: str) -> str | None:
    """The project a global store's memories are filtered by (a project store holds one project)."""
    if store.path.name == paths.STORE_DIRNAME or not cwd:
        return None
    return str(Path(cwd).resolve())


def _common(line: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "episodic",
        "task_id": line.get("session") or None,
        "event_at": line.get("ts"),
        "tags": ["hook", str(line.get("client") or "agent")],
        "metadata": {
            "client": line.get("client"),
            "session": line.get("session"),
            "project": str(Path(line["cwd"]).resolve()) if line.get("cwd") else None,
        },
    }


def _failure(line: dict[str, Any]) -> dict[str, Any]:
    base = _common(line)
    base["metadata"].update(tool=line.get("tool"), args=line.get("args"))
    content = (
        f"{line.get('tool')} failed: {line.get('args') or '(no arguments)'}\nError: "
        f"{line.get('error')}"
    )
    return {
        **base,
        "content": content,
        "trigger": "tool_error",
        "outcome": "failure",
        "source": "tool",
        "importance": 0.8,
        "key": _key("error", line["id"]),
    }


def _prompt(line: dict[str, Any]) -> dict[str, Any]:
    return {
        **_common(line),
        "content": line.get("text") or "",
        "trigger": "user_prompt",
        "outcome": "neutral",
        "source": "user",
        "importance": 0.3,
        "key": _key("prompt", line["id"]),
    }


def _link_fix(store: Store, line: dict[str, Any], later: set[str]) -> int:
    """A later success of the same tool in the same session, on related arguments, fixes the
    failures before it: each becomes a new version with the fix as its resolution (the old one is
    superseded). ``later``: keys of failures spooled after this success, which it cannot have fixed.
    """
    session, tool, args = line.get("session"), line.get("tool"), str(line.get("args") or "")
    open_failures = [
        m
        for m in store.list(
            Filters(task_id=session, types=("episodic",), outcomes=("failure",)), limit=None
        )
        if m.trigger == "tool_error"
        and not m.resolution
        and m.idempotency_key not in later
        and fixes.fixes(m.metadata.get("tool"), str(m.metadata.get("args") or ""), tool, args)
    ]
    for old in open_failures:
        fixes.record_fix(
            store, old, str(tool), line.get("args"), key=_key("fixed", old.idempotency_key)
        )
    return len(open_failures)


def _mine_transcripts(store: Store, lines: list[dict[str, Any]]) -> int:
    """The transcripts that session-closing events named are mined (only what was appended since the
    last time), so a session keeps its whole exchange, not only its errors. A missing or unreadable
    transcript is skipped: it must not keep the spool from being ingested."""
    from ..transcripts import CLIENTS
    from ..transcripts.miner import mine_transcript, pending

    mined = 0
    for client, path in sorted(
        {
            (str(x.get("client")), str(x.get("transcript")))
            for x in lines
            if x.get("transcript") and x.get("client") in CLIENTS
        }
    ):
        try:
            if pending(store.path, path, client):
                mine_transcript(store, path, client)
                mined += 1
        except (OSError, HindsightError) as error:
            log.warning("could not mine %s: %s", path, error)
    return mined


def ingest(store: Store) -> dict[str, Any]:
    """Move the spool into the store: failures and prompts as episodic memories, fixes as
    resolutions. Idempotent: every line has its own key, so a line ingested twice is stored once."""
    claimed = spool.claim(store.path)
    lines = list(spool.read(claimed))
    records = [
        _failure(x) if x["kind"] == "tool_error" else _prompt(x)
        for x in lines
        if x["kind"] in ("tool_error", "prompt")
    ]
    added = store.import_records(records).added if records else 0
    fixed = 0
    for position, line in enumerate(lines):
        if line["kind"] == "tool_ok":
            later = {
                _key("error", x["id"]) for x in lines[position + 1 :] if x["kind"] == "tool_error"
            }
            fixed += _link_fix(store, line, later)
    mined = _mine_transcripts(store, lines)
    spool.done(claimed)
    spool.trim_seen(store.path)
    return {
        "events": len(lines),
        "added": added,
        "fixed": fixed,
        "transcripts": mined,
        "sessions": sorted({str(x.get("session")) for x in lines if x.get("session")}),
    }


def summarize_session(store: Store, session: str) -> Memory | None:
    try:
        return store.summarize(task_id=session).memory
    except HindsightError:
        # nothing episodic in that session
        return None


def close_session(path: Path, event: Event, conf: Settings) -> None:
    """Session end or compaction: everything spooled goes in, and the session gets its summary."""
    store = Store(path)
    if spool.pending(path):
        ingest(store)
    if conf.summarize and event.session and store.exists:
        summarize_session(store, event.session)


def _in_project(memory: Memory, project: str | None, tasks: set[str]) -> bool:
    if project is None:
        return True
    owner = memory.metadata.get("project")
    if owner:
        return owner == project
    return memory.task_id in tasks if memory.task_id else memory.source == "user"


def _groups(store: Store, project: str | None) -> list[tuple[str, list[Memory]]]:
    failures = store.list(Filters(types=("episodic",), outcomes=("failure",)), limit=200)
    tasks = {m.task_id for m in failures if m.task_id and m.metadata.get("project") == project}
    semantic = store.list(Filters(types=("semantic", "procedural")), limit=200)
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
    if spool.pending(path):
        report = ingest(store)
        # sessions that ended without a session-end event (Codex, a crash)
        if conf.summarize:
            for session in report["sessions"]:
                if session != event.session:
                    summarize_session(store, session)
    if not store.exists:
        return None
    picked: list[Memory] = []
    for name, members in _groups(store, _project(store, event.cwd)):
        picked.extend(sorted(members, key=lambda m: m.event_at, reverse=True)[: _PER_GROUP[name]])
    if not picked:
        return None
    _, block, _ = fit_budget(picked, conf.recall_budget)
    return block if "\n" in block else None


def repeat_context(path: Path, event: Event, query: str, conf: Settings) -> str | None:
    """ "I have seen this before": the memories that match a repeated question or error, fixes
    first."""
    store = Store(path)
    if spool.pending(path):
        ingest(store)
    if not store.exists:
        return None
    result = store.search(query, k=10, troubleshoot=True, current_task=event.session or None)
    project = _project(store, event.cwd)
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
    if not hits:
        return None
    _, block, _ = fit_budget(hits, conf.repeat_budget)
    return block if "\n" in block else None
