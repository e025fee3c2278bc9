"""The hooks' events, ingested: what recording hooks spooled (``storage/spool``) becomes memories.

Failures and prompts become episodic memories, a later success of the same tool fixes the failures
before it, and the transcripts that session-closing events name are mined. ``Store.ingest_events``
is the one way in: the hooks, the MCP server and ``hindsight hook ingest`` all call it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import HindsightError, InvalidInput
from ..models import Filters, JSONObject, JSONValue
from ..paths import project_dir
from ..safefs import spool_key
from ..storage import spool, spool_scrub
from ..storage.spool_json import loads
from . import fixes
from .prepare import derived_key

if TYPE_CHECKING:
    from ..models import Memory
    from ..storage.rows import MemoryRow
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


class _OpenFailures:
    """The open failures (recorded by the hooks, no fix yet) of each session, read from the ledger
    once per ingestion and kept by tool, each with its arguments' terms. Before (review AC), every
    success in the spool listed all of its session's open failures again and compared it with each:
    a spool of 400 failures and 400 other successes of one session took 8 s to ingest, 2,000 of each
    minutes, at every session end, ``hooks flush`` and MCP server start."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # session → tool → id → (failure, its arguments' terms)
        self._sessions: dict[str | None, dict[str, dict[str, tuple[Memory, frozenset[str]]]]] = {}
        # session → failure id → its place in the ledger's order
        self._order: dict[str | None, dict[str, int]] = {}
        # session → key → failure id
        self._keys: dict[str | None, dict[str, str]] = {}

    def _load(self, session: str | None) -> None:
        by_tool: dict[str, dict[str, tuple[Memory, frozenset[str]]]] = {}
        keys: dict[str, str] = {}
        order: dict[str, int] = {}
        # failures of the agent the hooks record as: a task id is matched within one agent, never
        # another agent's memory of the same id (issue 31)
        for m in self.store.list(
            Filters(
                agent_ids=(self.store.config.default_agent,),
                task_id=session,
                types=("episodic",),
                outcomes=("failure",),
            ),
            limit=None,
        ):
            if m.trigger != "tool_error" or m.resolution:
                continue
            # a failure of no (or an odd) tool is fixed only by its key: no success is of tool ""
            tool = m.metadata.get("tool")
            tool = tool if isinstance(tool, str) else ""
            words = fixes.args_terms(str(m.metadata.get("args") or ""))
            by_tool.setdefault(tool, {})[m.id] = (m, words)
            order[m.id] = len(order)
            if m.idempotency_key:
                keys[m.idempotency_key] = m.id
        self._sessions[session], self._keys[session] = by_tool, keys
        self._order[session] = order

    def fixed_by(
        self, session: str | None, tool: str | None, args: str, wanted: Collection[str]
    ) -> list[Memory]:
        """The open failures of ``session`` a success of ``tool`` with ``args`` fixes: those its
        hook named (their keys, ``wanted``), and those of the same tool without a family on
        related arguments; in the ledger's order."""
        if session not in self._sessions:
            self._load(session)
        by_tool, keys = self._sessions[session], self._keys[session]
        found: dict[str, Memory] = {}
        for key in wanted:
            named = keys.get(key)
            for failures in by_tool.values() if named is not None else ():
                if named in failures:
                    found[named] = failures[named][0]
        if tool:
            words = fixes.args_terms(args)
            for m, failed in by_tool.get(tool, {}).values():
                if not m.metadata.get("family") and fixes.related_terms(failed, words):
                    found[m.id] = m
        order = self._order[session]
        return sorted(found.values(), key=lambda m: order[m.id])

    def remove(self, session: str | None, failure: Memory) -> None:
        """``failure`` was given its fix: no later success fixes it again."""
        for failures in self._sessions.get(session, {}).values():
            failures.pop(failure.id, None)


def _link_fix(line: JSONObject, later: Callable[[str], bool], open_failures: _OpenFailures) -> int:
    """A success fixes failures before it in the same session, each becoming a new version with the
    fix as its resolution (the old one is superseded). The recording hook named the failures of a
    known family it fixes (``fixes``, with the commands that led there, ``fix``); a failure without a
    family is fixed by a later success of the same tool on related arguments. ``later``: whether a
    failure's key was spooled after this success, which it cannot have fixed."""
    session, tool = _text(line.get("session")), _text(line.get("tool"))
    args = str(line.get("args") or "")
    wanted = _named_fixes(line)
    found = [
        m
        for m in open_failures.fixed_by(session, tool, args, wanted)
        if not (m.idempotency_key and later(m.idempotency_key))
    ]
    for old in found:
        fixes.record_fix(
            open_failures.store,
            old,
            str(tool),
            args,
            key=_key("fixed", old.idempotency_key),
            trail=wanted.get(str(old.idempotency_key), ()),
        )
        open_failures.remove(session, old)
    return len(found)


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


# by a failure's record key: the success that fixed it in its batch, and the record before that
Fixers = dict[str, tuple[str, JSONObject]]


def _fix_in_batch(lines: list[JSONObject], by_key: dict[str, JSONObject], fixers: Fixers) -> int:
    """Give the failures that a success of the same batch fixed (``fixes``, named by the recording
    hook) their resolution before they are written; how many. ``fixers`` gets, by each record's
    key, the success that fixed it and the record as it was before."""
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
            fixers[key] = (str(line["id"]), {**record, "metadata": dict(metadata)})
            record["resolution"] = fixes.resolution(str(line.get("tool") or "tool"), args, trail)
            record["importance"] = 0.9
            metadata["fixed_by"] = args or "(no arguments)"
            done += 1
    return done


def _states(claimed: list[Path]) -> list[tuple[int, int, int] | None]:
    """What changes when a claimed file is rewritten (a scrub renames a new one into its place)."""
    found: list[tuple[int, int, int] | None] = []
    for path in claimed:
        try:
            st = path.stat()
        except OSError:
            found.append(None)
        else:
            found.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return found


def _taken(
    store: Store, claimed: list[Path], read: list[tuple[int, int, int] | None]
) -> Callable[[Iterable[str]], set[str]]:
    """Which of some events (their ids) a hard forget took since the ``claimed`` files were read
    (``read``: their ``_states`` then): a line the spool scrub removed from its claimed file, or
    that a purge still under way will remove. Unchanged files and no purge under way: none, and the
    files are not read again."""
    from . import purge

    def taken(ids: Iterable[str]) -> set[str]:
        under_way = purge.forgetting(store.path)
        if not under_way and _states(claimed) == read:
            return set()
        spooled = _by_id(claimed)
        return {
            event
            for event in ids
            if (line := spooled.get(event)) is None
            or any(spool_scrub.forgets(line, words) for words in under_way)
        }

    return taken


def _scrubbed(
    store: Store,
    claimed: list[Path],
    pairs: list[tuple[JSONObject, JSONObject]],
    read: list[tuple[int, int, int] | None],
    fixers: Fixers,
    unfixed: set[str],
) -> Callable[[Sequence[MemoryRow]], set[str]]:
    """Which rows made from ``pairs``' events a hard forget took since they were read, asked in
    the transaction that writes them (so after the purge's delete, or before it): the event, or
    the success whose fix a failure was given in the same batch (``fixers``, by the record's key),
    gone from the spool (``_taken``). Read, embedded, then written after the purge, the event became
    a memory holding the forgotten text that the purge had just scrubbed from the spool (review
    AK; the fix's, review BU). ``unfixed`` gets the keys of the failures left out for their fix
    alone (to go in as they were before it)."""
    event_of = {str(record["key"]): str(line["id"]) for line, record in pairs}
    taken = _taken(store, claimed, read)

    def stale(rows: Sequence[MemoryRow]) -> set[str]:
        # a text in parts: each part's key is the event's, numbered
        keys = {row.id: row.idempotency_key.partition("#")[0] for row in rows}
        made_of = {
            row: [e for e in (event_of.get(key), fixers.get(key, ("", {}))[0]) if e]
            for row, key in keys.items()
        }
        gone = taken({e for found in made_of.values() for e in found})
        left = {row for row, found in made_of.items() if found and gone & set(found)}
        unfixed.update(
            keys[row] for row in left if event_of.get(keys[row]) not in gone and keys[row] in fixers
        )
        return left

    return stale


def _by_id(claimed: list[Path]) -> dict[str, str]:
    """The lines still in the ``claimed`` spool files, by their event's id."""
    found: dict[str, str] = {}
    for path in claimed:
        for line in spool.lines(path):
            try:
                value = loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and isinstance(value.get("id"), str):
                found[value["id"]] = line
    return found


def _admit(
    store: Store,
    pairs: list[tuple[JSONObject, JSONObject]],
    directory: Path,
    claimed: list[Path],
    read: list[tuple[int, int, int] | None],
    fixers: Fixers,
) -> int:
    """Import the records; one the store refuses is set aside with its reason, the rest go in, but
    for those a hard forget scrubbed from the spool meanwhile: a failure whose fix it took goes in
    as it was before it was fixed."""
    if not pairs:
        return 0
    unfixed: set[str] = set()
    added = _imported(
        store, pairs, directory, _scrubbed(store, claimed, pairs, read, fixers, unfixed)
    )
    again = [(line, fixers[str(r["key"])][1]) for line, r in pairs if str(r["key"]) in unfixed]
    return added + _admit(store, again, directory, claimed, read, {})


def _imported(
    store: Store,
    pairs: list[tuple[JSONObject, JSONObject]],
    directory: Path,
    stale: Callable[[Sequence[MemoryRow]], set[str]],
) -> int:
    aside: set[int] = set()

    def refuse(number: int, reason: str) -> None:
        aside.add(number - 1)
        spool.reject(directory, pairs[number - 1][0], reason)

    try:
        # one write for all: an event the store refuses is set aside alone
        return store.import_records(
            [record for _, record in pairs], refused=refuse, stale=stale
        ).added
    except Exception as error:
        if _the_stores(error):
            raise
        added = 0
        for line, record in (pair for at, pair in enumerate(pairs) if at not in aside):
            try:
                added += store.import_records([record], stale=stale).added
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
    go in; so is a line this user's hooks did not tag for this store (``spool_key``: one a
    project archive brought). ``store`` is the ``Store`` whose spool this is."""
    claimed = spool.claim(store.path)
    # before a line is read: a scrub meanwhile changes them
    read = _states(claimed)
    directory = spool.spool_dir(store.path)
    key = spool_key.of(store.path)

    def refuse(line: JSONObject, reason: str) -> None:
        spool.reject(directory, line, reason)

    lines = []
    for line in spool.read(claimed, key, refuse):
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
    fixers: Fixers = {}
    fixed = _fix_in_batch(lines, {str(record["key"]): record for _, record in pairs}, fixers)
    added = _admit(store, pairs, directory, claimed, read, fixers)
    # a success whose line a hard forget took meanwhile fixes nothing: its commands were forgotten
    # (asked once for all of them: the claimed files read once, not once a line)
    taken = _taken(store, claimed, read)([str(x["id"]) for x in lines if x["kind"] == "tool_ok"])
    # each failure's key, with the position of its last line: a success fixes no failure after it
    last_failed = {
        fixes.failure_key(_text(x.get("session")), _text(x.get("call")), str(x["id"])): at
        for at, x in enumerate(lines)
        if x["kind"] == "tool_error"
    }
    open_failures = _OpenFailures(store)
    for position, line in enumerate(lines):
        if line["kind"] == "tool_ok":

            def later(key: str, position: int = position) -> bool:
                return last_failed.get(key, -1) > position

            if str(line["id"]) in taken:
                continue
            try:
                fixed += _link_fix(line, later, open_failures)
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
