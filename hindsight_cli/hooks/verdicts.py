"""At session end: whether the agent used what this session's injections gave it, read from the
session's transcript (``lessons.usage``), into the injection record.

For an injection after a failure (``repeat-error``), the agent's next commands decide: used,
ignored, or misleading when the same kind of error came back after the fix was applied. For one at
session start, every later command of the session is read, and only used or ignored is said. An
injection already judged is not judged again; a transcript that cannot be read judges nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ..core.injections import Injection
from ..errors import HindsightError, MemoryNotFound
from ..lessons import signatures, usage
from ..models import Memory
from ..store import Store
from ..transcripts import CLIENTS, reader
from ..transcripts.base import ShellCall, epoch

log = logging.getLogger("hindsight.hooks")
JUDGED = ("repeat-error", "session-start")


def _calls(client: str, transcript: str) -> list[ShellCall]:
    module = reader(client)
    if not hasattr(module, "shell_calls") or client == "opencode":
        return []
    return list(module.shell_calls(Path(transcript)).calls)


def _kind(call: ShellCall) -> str | None:
    if not call.code:
        return None
    family = signatures.family(call.command)
    return signatures.kind(family, signatures.signature(call.output) if family else None)


def _memories(store: Store, ids: list[str]) -> list[Memory]:
    found = []
    for memory_id in ids:
        try:
            found.append(store.get(memory_id))
        except MemoryNotFound:
            # forgotten since
            continue
    return found


def _judge(store: Store, entry: Injection, calls: list[ShellCall]) -> int:
    at = epoch(entry.at)
    before = [c.command for c in calls if c.at and c.at < at]
    after = [c for c in calls if not c.at or c.at >= at]
    if entry.event == "repeat-error":
        after = after[: usage.WINDOW]
    judged = 0
    for memory in _memories(store, entry.ids):
        if not memory.resolution:
            continue
        wanted = signatures.kind(
            str(memory.metadata.get("family") or ""), str(memory.metadata.get("signature") or "")
        )
        later = [
            (c.command, entry.event == "repeat-error" and bool(wanted) and _kind(c) == wanted)
            for c in after
        ]
        verdict = usage.judge([memory.resolution], later, before)
        if entry.event == "session-start" and verdict == usage.MISLEADING:
            verdict = usage.USED
        store.record_verdict(entry.id, memory.id, verdict, session=entry.session)
        judged += 1
    return judged


def judge_session(store: Store, session: str, client: str, transcript: str | None) -> int:
    """Record a verdict for each memory of this session's injections not judged yet; returns how
    many. Never raises for a transcript it cannot read."""
    if not session or not transcript or client not in CLIENTS:
        return 0
    injections, verdicts = store.injections(session=session)
    done = {v.injection for v in verdicts}
    todo = [i for i in injections if i.event in JUDGED and i.ids and i.id not in done]
    if not todo:
        return 0
    try:
        calls = _calls(client, transcript)
    except (OSError, ValueError, HindsightError) as error:
        log.warning("the transcript %s could not be read for verdicts: %s", transcript, error)
        return 0
    return sum(_judge(store, entry, calls) for entry in todo)
