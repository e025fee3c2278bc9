"""The hooks' events, ingested: what recording hooks spooled (``storage/spool``) becomes memories.

Failures and prompts become episodic memories, a later success of the same tool fixes the failures
before it, and the transcripts that session-closing events name are mined. ``Store.ingest_events``
is the one way in: the hooks, the MCP server and ``hindsight hook ingest`` all call it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import HindsightError, InvalidInput
from ..models import Filters, JSONObject, JSONValue
from ..paths import project_dir
from ..storage import spool
from . import fixes
from .prepare import derived_key

if TYPE_CHECKING:
    from ..store import Store

# Mines the transcripts that session-closing events name (``transcripts.incremental.mine_named``).
Mine = Callable[["Store", list[JSONObject]], int]


def _key(*parts: object) -> str:
    return derived_key("hook", *parts)


def _common(line: JSONObject, **metadata: JSONValue) -> JSONObject:
    return {
        "type": "episodic",
        "task_id": line.get("session") or None,
        "event_at": line.get("ts"),
        "tags": ["hook", str(line.get("client") or "agent")],
        "metadata": {
            "client": line.get("client"),
            "session": line.get("session"),
            "project": project_dir(str(line["cwd"])) if line.get("cwd") else None,
            **metadata,
        },
    }


def _failure(line: JSONObject) -> JSONObject:
    session = _text(line.get("session"))
    # ``call``: the client's id of the failed call (Claude Code's tool_use_id)
    call = _text(line.get("call"))
    return fixes.failure_record(
        tool=str(line.get("tool") or "tool"),
        args=str(line.get("args") or ""),
        error=str(line.get("error") or ""),
        key=fixes.failure_key(session, call, str(line["id"])),
        session=session,
        event_at=line.get("ts"),
        client=str(line.get("client") or "agent"),
        project=project_dir(str(line["cwd"])) if line.get("cwd") else None,
        call=call,
        family=_text(line.get("family")),
        signature=_text(line.get("signature")),
        error_line=_text(line.get("error_line")),
    )


def _prompt(line: JSONObject) -> JSONObject:
    return {
        **_common(line),
        "content": line.get("text") or "",
        "trigger": "user_prompt",
        "outcome": "neutral",
        "source": "user",
        "importance": 0.3,
        "key": _key("prompt", line["id"]),
    }


def _text(value: JSONValue) -> str | None:
    return None if value is None else str(value)


def _link_fix(store: Store, line: JSONObject, later: set[str]) -> int:
    """A success fixes failures before it in the same session, each becoming a new version with the
    fix as its resolution (the old one is superseded). The recording hook named the failures of a
    known family it fixes (``fixes``, with the commands that led there, ``fix``); a failure without a
    family is fixed by a later success of the same tool on related arguments. ``later``: keys of
    failures spooled after this success, which it cannot have fixed."""
    session, tool = _text(line.get("session")), _text(line.get("tool"))
    args = str(line.get("args") or "")
    wanted = _named_fixes(line)
    open_failures = [
        m
        # failures of the agent the hooks record as: a task id is matched within one agent, never
        # another agent's memory of the same id (issue 31)
        for m in store.list(
            Filters(
                agent_ids=(store.config.default_agent,),
                task_id=session,
                types=("episodic",),
                outcomes=("failure",),
            ),
            limit=None,
        )
        if m.trigger == "tool_error"
        and not m.resolution
        and m.idempotency_key not in later
        and (
            m.idempotency_key in wanted
            or (
                not m.metadata.get("family")
                and fixes.fixes(
                    m.metadata.get("tool"), str(m.metadata.get("args") or ""), tool, args
                )
            )
        )
    ]
    for old in open_failures:
        fixes.record_fix(
            store,
            old,
            str(tool),
            args,
            key=_key("fixed", old.idempotency_key),
            trail=wanted.get(old.idempotency_key, ()),
        )
    return len(open_failures)


def _named_fixes(line: JSONObject) -> dict[str, list[str]]:
    """The failures a success's recording hook found it fixed (``fixes``), by their keys, each
    with the commands that fixed it."""
    named = line.get("fixes")
    session = _text(line.get("session"))
    wanted: dict[str, list[str]] = {}
    for found in named if isinstance(named, list) else []:
        if isinstance(found, dict):
            key = fixes.failure_key(session, _text(found.get("call")), str(found.get("id")))
            trail = found.get("fix")
            wanted[key] = [str(x) for x in trail] if isinstance(trail, list) else []
    return wanted


def _fix_in_batch(lines: list[JSONObject], by_key: dict[str, JSONObject]) -> int:
    """Give the failures that a success of the same batch fixed (``fixes``, named by the recording
    hook) their resolution before they are written; how many."""
    done = 0
    for line in lines:
        if line["kind"] != "tool_ok":
            continue
        for key, trail in _named_fixes(line).items():
            record = by_key.get(key)
            metadata = record.get("metadata") if record is not None else None
            if record is None or record.get("resolution") or not isinstance(metadata, dict):
                continue
            args = str(line.get("args") or "")
            record["resolution"] = fixes.resolution(str(line.get("tool") or "tool"), args, trail)
            record["importance"] = 0.9
            metadata["fixed_by"] = args or "(no arguments)"
            done += 1
    return done


def _admit(store: Store, pairs: list[tuple[JSONObject, JSONObject]], directory: Path) -> int:
    """Import the records; one the store refuses is set aside with its reason, the rest go in."""
    if not pairs:
        return 0

    aside: set[int] = set()

    def refuse(number: int, reason: str) -> None:
        aside.add(number - 1)
        spool.reject(directory, pairs[number - 1][0], reason)

    try:
        # one write for all: an event the store refuses is set aside alone
        return store.import_records([record for _, record in pairs], refused=refuse).added
    except Exception as error:
        if _the_stores(error):
            raise
        added = 0
        for line, record in (pair for at, pair in enumerate(pairs) if at not in aside):
            try:
                added += store.import_records([record]).added
            except Exception as error:
                if _the_stores(error):
                    raise
                # InvalidInput, or what no rule met yet: this event alone is set aside
                reason = str(error) if isinstance(error, InvalidInput) else repr(error)
                spool.reject(directory, line, reason)
        return added


def _the_stores(error: Exception) -> bool:
    """Whether ``error`` is the store's own failure (busy, a full disk, read-only), not one event's:
    then the spool is kept for the next ingestion."""
    return isinstance(error, HindsightError) and not isinstance(error, InvalidInput)


def _mine(store: Store, mine: Mine, lines: list[JSONObject], directory: Path) -> int:
    try:
        return mine(store, lines)
    except HindsightError:
        total = 0
        for line in lines:
            if line["kind"] not in _CLOSING:
                continue
            try:
                total += mine(store, [line])
            except HindsightError as error:
                spool.reject(directory, line, str(error))
        return total


_CLOSING = ("stop", "pre_compact", "session_end")


def ingest(store: Store, mine: Mine) -> dict[str, object]:
    """Move the spool into the store: failures and prompts as episodic memories, fixes as
    resolutions; ``mine(store, lines)`` mines the transcripts that session-closing lines name.
    Idempotent: every line has its own key, so a line ingested twice is stored once. A line the
    store refuses is set aside in the spool's ``rejected.jsonl`` with its reason, and the others
    go in. ``store`` is the ``Store`` whose spool this is."""
    claimed = spool.claim(store.path)
    directory = spool.spool_dir(store.path)
    lines = []
    for line in spool.read(claimed):
        reason = spool.problem(line)
        if reason is None:
            lines.append(line)
        else:
            spool.reject(directory, line, reason)
    pairs = []
    for x in lines:
        if x["kind"] not in ("tool_error", "prompt"):
            continue
        try:
            pairs.append((x, _failure(x) if x["kind"] == "tool_error" else _prompt(x)))
        # anything (a value no rule met yet): one event is set aside, never the spool blocked,
        # which would retry it, and fail, at every later ingestion
        except Exception as error:  # noqa: BLE001
            spool.reject(directory, x, f"unreadable event: {type(error).__name__}: {error}")
    # a failure fixed within this batch is written once, with its fix (one embedding, no version)
    fixed = _fix_in_batch(lines, {str(record["key"]): record for _, record in pairs})
    added = _admit(store, pairs, directory)
    for position, line in enumerate(lines):
        if line["kind"] == "tool_ok":
            later = {
                fixes.failure_key(_text(x.get("session")), _text(x.get("call")), str(x["id"]))
                for x in lines[position + 1 :]
                if x["kind"] == "tool_error"
            }
            try:
                fixed += _link_fix(store, line, later)
            except HindsightError as error:
                spool.reject(directory, line, str(error))
            except Exception as error:  # noqa: BLE001 - as for a line's record, above
                spool.reject(directory, line, f"unreadable event: {type(error).__name__}: {error}")
    mined = _mine(store, mine, lines, directory)
    spool.done(claimed)
    spool.trim_seen(store.path)
    return {
        "events": len(lines),
        "added": added,
        "fixed": fixed,
        "transcripts": mined,
        "sessions": sorted({str(x.get("session")) for x in lines if x.get("session")}),
    }
