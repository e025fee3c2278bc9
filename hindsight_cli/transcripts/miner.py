"""Mining transcripts into a store: one memory per exchange, idempotent, incremental and resumable.

Each transcript is read from where its state says the last run stopped, and written in batches
through ``Store.import_records`` (deterministic ids and keys: a rerun adds nothing); the state is
saved after every committed batch, so a killed run resumes with exactly what is missing. A failed
tool call and the later call that fixed it (``core.fixes``) are linked in the batch when both are in
it, and otherwise by writing the failure's fixed version once the fix is read. The last exchange of
a transcript may still grow: reading resumes at its start, and if it did grow, its new text replaces
it as a new version.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from ..core import fixes
from ..errors import HindsightError, MemoryNotFound
from ..models import ImportResult
from ..redact import redact
from ..timeutil import parse_time
from . import lines, state
from .base import Cursor, Reading, Resume, Unit, dashed, path_inside
from .exchange import Call, Exchange, memory_id
from .records import ExchangeRecord, import_each, task_of, time_of, to_record

if TYPE_CHECKING:
    from ..models import Memory
    from ..store import Store

Progress = Callable[[str, int, int], None]
Warn = Callable[[str], None]
# a reader's fingerprint of what precedes a cursor (an appended transcript keeps it)
Check = Callable[[Unit, Cursor], str]


def _file_check(unit: Unit, cursor: Cursor) -> str:
    return lines.check(unit.path, cursor) if isinstance(cursor, int) else ""


@dataclass
class Tally:
    """What a run did for one client (``--json`` and the summary table show these)."""

    client: str
    files: int = 0
    sessions: set[str] = field(default_factory=set)
    exchanges: int = 0
    added: int = 0
    skipped: int = 0
    filtered: int = 0
    broken: int = 0
    unknown: int = 0
    redactions: int = 0
    fixes: int = 0
    summaries: int = 0
    # failed calls of a known kind, each a memory of its own (the hooks' lesson)
    lessons: int = 0
    # exchanges the store refused (one odd field): skipped, each named in a warning
    refused: int = 0

    def to_dict(self) -> dict[str, int | str]:
        data = dict(self.__dict__)
        data["sessions"] = len(self.sessions)
        return data


@dataclass
class _Batch:
    pending: list[ExchangeRecord] = field(default_factory=list)
    by_id: dict[str, ExchangeRecord] = field(default_factory=dict)
    # failure id -> (tool, args, trail) of its fix
    resolved: dict[str, tuple[str, str, tuple[str, ...]]] = field(default_factory=dict)
    later: list[tuple[str, str, str, tuple[str, ...]]] = field(default_factory=list)


def _hash(record: ExchangeRecord) -> str:
    return hashlib.sha256(
        f"{record['content']}\0{record.get('resolution') or ''}".encode()
    ).hexdigest()[:24]


class Miner:
    """Mine units of one reader into ``store``. ``dry_run`` reads and counts, and writes nothing."""

    # exchanges per committed batch, below the store's bulk size: no index sync per batch
    BATCH = 500
    # a run that added this many brings the search index up to date once, at its end
    BULK = 1000

    def __init__(
        self,
        store: Store,
        *,
        agent: str | None = None,
        project: Path | None = None,
        since: datetime | None = None,
        dry_run: bool = False,
        summaries: bool = True,
        progress: Progress | None = None,
        warn: Warn | None = None,
    ) -> None:
        self.store, self.agent, self.dry_run, self.summaries = store, agent, dry_run, summaries
        self.project = os.path.realpath(project) if project else None
        self.since = since
        self.scope = self.project or ""
        self.progress, self.warn = progress, warn or (lambda text: None)
        self.max_bytes = int(store.config.max_content_bytes)
        self._touched: set[str] = set()
        self._lesson_ids: set[str] = set()

    def mine(self, reader: ModuleType, units: Iterable[Unit]) -> Tally:
        tally = Tally(reader.NAME)
        if not self.dry_run:
            self.store.init()
        for unit in units:
            if self._outside_project(unit):
                continue
            tally.files += 1
            try:
                self._unit(reader, unit, tally)
            # the store's own failures, and a file that cannot be read, are the callers' to report
            except (HindsightError, OSError):
                raise
            # a value a reader never met (a bug for that transcript): it is skipped and named,
            # never the run; what it had added stays, and the next run reads it again
            except Exception as error:  # noqa: BLE001
                tally.broken += 1
                self.warn(
                    f"{unit.label}: skipped, hindsight could not read it "
                    f"({type(error).__name__}: {error})."
                )
        if tally.added >= self.BULK and not self.dry_run:
            self._index()
        if self.summaries and not self.dry_run:
            self._summarize(tally)
        self._touched.clear()
        return tally

    def _summarize(self, tally: Tally) -> None:
        """Summarise the sessions this run added to, and those a killed run still owes."""
        owed = set(state.owed_summaries(self.store.path))
        for session in sorted(self._touched | owed):
            try:
                self.store.summarize(task_id=session)
                tally.summaries += 1
            except HindsightError:
                # nothing episodic in it (every exchange filtered out)
                pass
            state.owe_summaries(self.store.path, set(), {session})

    def _index(self) -> None:
        """One index update for a big run, rather than one per batch; a small run (a hook's) leaves
        it to the next search, as a small import does."""
        try:
            self.store.sync_index()
        except Exception as error:  # noqa: BLE001 - the memories are committed; the index is derived
            self.warn(f"the search index was not updated ({error}); the next search catches it up.")

    def _outside_project(self, unit: Unit) -> bool:
        """Skip, without reading, a transcript whose project is known and is not the one asked
        for."""
        if self.project is None:
            return False
        known = unit.meta.get("project") or unit.meta.get("directory")
        if known:
            return not path_inside(os.path.realpath(str(known)), self.project)
        # a directory name that encodes the working directory (Claude Code)
        hint = unit.meta.get("hint")
        return bool(hint) and not dashed(str(hint)).startswith(dashed(self.project))

    def _unit(self, reader: ModuleType, unit: Unit, tally: Tally) -> None:
        saved = state.load(self.store.path, unit.id, reader.NAME)
        if saved.done and saved.stamp == unit.stamp and saved.scope == self.scope:
            # unchanged since it was mined to its end
            return
        check = getattr(reader, "check", None) or _file_check
        if not self._resumable(reader, unit, saved, check):
            # Never mined, rewritten or mined for another project: from the start (keys dedupe). The
            # last exchange written is kept, so if it grew meanwhile its new version still replaces
            # it.
            saved = state.State(unit.id, reader.NAME, tail=saved.tail, scope=self.scope)
        resume = Resume(saved.cursor, saved.position, dict(saved.ctx))
        tracker = fixes.Tracker.from_list(saved.open)
        reading, batch = Reading(), _Batch()
        last: Exchange | None = None
        before: fixes.Tracker | None = None
        shown = time.monotonic()
        for exchange in reader.read(unit, resume, reading):
            last, before = exchange, None
            if self._filtered(exchange):
                tally.filtered += 1
                continue
            if len(batch.pending) >= self.BATCH:
                self._flush(
                    batch,
                    saved,
                    unit,
                    Resume(exchange.begin, exchange.position, exchange.ctx),
                    tracker,
                    tally,
                    check,
                )
            before = tracker.copy() if not exchange.closed else None
            self._add(exchange, batch, tracker, tally)
            if self.progress and time.monotonic() - shown > 0.1:
                self.progress(unit.label, reading.done, unit.size)
                shown = time.monotonic()
        # the last exchange may still grow: resume at its start
        if before is not None and last is not None:
            point, tracker, tail = Resume(last.begin, last.position, last.ctx), before, last
        else:
            point, tail = (
                Resume(reading.end, last.position + 1 if last else resume.position, reading.ctx),
                None,
            )
        self._flush(batch, saved, unit, point, tracker, tally, check, final=True, tail=tail)
        self._report(unit, reading, tally)

    def _resumable(self, reader: ModuleType, unit: Unit, saved: state.State, check: Check) -> bool:
        """Whether reading may continue at the saved cursor: the transcript was appended to, not
        rewritten."""
        if not (reader.INCREMENTAL and not unit.meta.get("whole") and saved.cursor and saved.check):
            return False
        if saved.scope != self.scope or (
            isinstance(saved.cursor, int) and saved.cursor > unit.size
        ):
            return False
        return check(unit, saved.cursor) == saved.check

    def _filtered(self, exchange: Exchange) -> bool:
        if self.project is not None and not path_inside(
            str(exchange.ctx.get("project") or ""), self.project
        ):
            return True
        if self.since is not None and exchange.at:
            try:
                return parse_time(str(exchange.at)) < self.since
            except HindsightError:
                return False
        return False

    def _add(self, exchange: Exchange, batch: _Batch, tracker: fixes.Tracker, tally: Tally) -> None:
        record = to_record(
            exchange, client=tally.client, agent=self.agent, max_bytes=self.max_bytes
        )
        tally.exchanges += 1
        tally.sessions.add(exchange.session)
        batch.pending.append(record)
        batch.by_id[record["id"]] = record
        for number, made in enumerate(exchange.calls):
            if made.ok is False:
                tracker.failed(record["id"], made.tool, made.args, made.family)
                lesson = self._lesson(exchange, made, number, record["id"], tally.client)
                if lesson is not None:
                    batch.pending.append(lesson)
                    batch.by_id[lesson["id"]] = lesson
                    # its own fix, beside the exchange's
                    self._lesson_ids.add(lesson["id"])
                    tracker.open.append(
                        fixes.Failure(lesson["id"], made.tool, made.args, made.family)
                    )
            elif made.ok:
                for failure in tracker.succeeded(made.tool, made.args, made.family):
                    # a failure's lesson is fixed with it: counted once
                    tally.fixes += failure.ref not in self._lesson_ids
                    owner = batch.by_id.get(failure.ref)
                    if owner is None:
                        batch.later.append((failure.ref, made.tool, made.args, failure.trail))
                    elif not owner.get("resolution"):
                        owner["resolution"] = fixes.resolution(made.tool, made.args, failure.trail)
                        owner["metadata"]["fixed_by"] = made.args or "(no arguments)"
                        batch.resolved[failure.ref] = (made.tool, made.args, failure.trail)

    def _lesson(
        self, exchange: Exchange, made: Call, number: int, owner: str, client: str
    ) -> ExchangeRecord | None:
        """The memory of one failed call of a known kind, as the hooks spool it (the same key when
        the call's id is known, so a session the hooks saw is stored once)."""
        if not (made.family and made.signature):
            return None
        key = fixes.failure_key(exchange.session, made.ref, f"{owner}#{number}")
        record = fixes.failure_record(
            tool=made.tool,
            args=made.args,
            error=made.error,
            key=key,
            session=task_of(exchange.session),
            event_at=time_of(exchange.at),
            client=client,
            project=str(exchange.ctx.get("project") or "") or None,
            call=made.ref or None,
            family=made.family,
            signature=made.signature,
            error_line=made.error_line,
        )
        record["id"] = memory_id(key)
        record["step"] = exchange.position
        tags = record["tags"]
        record["tags"] = [*(tags if isinstance(tags, list) else [])]
        if self.agent:
            record["agent_id"] = self.agent
        return cast("ExchangeRecord", record)

    def _flush(
        self,
        batch: _Batch,
        saved: state.State,
        unit: Unit,
        point: Resume,
        tracker: fixes.Tracker,
        tally: Tally,
        check: Check,
        final: bool = False,
        tail: Exchange | None = None,
    ) -> None:
        records = [r for r in batch.pending if not self._grown(r, saved, tally)]
        # the lessons mined beside the exchanges, counted apart
        lessons = [r for r in records if r["id"] in self._lesson_ids]
        records = [r for r in records if r["id"] not in self._lesson_ids]
        if self.dry_run:
            tally.added += len(records)
            tally.lessons += len(lessons)
            tally.redactions += sum(
                redact(r["content"])[1] + redact(r.get("resolution") or "")[1] for r in records
            )
        else:
            skipped = added = False
            if records and self.summaries:
                # owed before they are written: a run killed after the write still owes them
                state.owe_summaries(
                    self.store.path, {str(r["task_id"]) for r in records if r.get("task_id")}
                )
            if records:
                result = self._import(records, unit, tally)
                tally.added, tally.skipped = (
                    tally.added + result.added,
                    tally.skipped + result.skipped,
                )
                tally.redactions += result.redactions
                skipped, added = bool(result.skipped), bool(result.added)
            if lessons:
                # one failed call each: the memory its tool-failure hook would have written
                result = self._import(lessons, unit, tally)
                tally.lessons += result.added
                skipped = skipped or bool(result.skipped)
            # stored, without its fix, by a run killed before it saved its state
            if skipped:
                for ref, (tool, args, trail) in batch.resolved.items():
                    self._link(ref, tool, args, trail)
            if added:
                self._touched.update(r["task_id"] for r in records if r.get("task_id"))
            for ref, tool, args, trail in batch.later:
                self._link(ref, tool, args, trail)
            # a run limited in time leaves no state: a later full run reads it all
            if self.since is None:
                self._save(saved, unit, point, tracker, batch, check, final, tail)
        batch.pending.clear()
        batch.by_id.clear()
        batch.resolved.clear()
        batch.later.clear()

    def _import(self, records: list[ExchangeRecord], unit: Unit, tally: Tally) -> ImportResult:
        where = f"{unit.id}: skipped exchange"
        result, refused = import_each(
            self.store, records, lambda step, why: self.warn(f"{where} {step}: {why}")
        )
        tally.refused += refused
        return result

    def _grown(self, record: ExchangeRecord, saved: state.State, tally: Tally) -> bool:
        """Whether ``record`` is the last exchange of the previous run: then it is handled here
        (left as it is, or replaced by a new version when it grew) instead of being imported."""
        tail = saved.tail
        if not tail or record["key"] != tail.get("key"):
            return False
        digest = _hash(record)
        if digest != tail.get("hash") and not self.dry_run:
            current = self._current(str(tail.get("id")))
            # Store.record's keyword fields: the record's, but for those passed by name
            fields: dict[str, Any] = {
                k: v for k, v in record.items() if k not in ("id", "key", "content")
            }
            if current is not None:
                result = self.store.record(
                    record["content"],
                    supersedes=current.id,
                    key=f"{record['key']}:{digest}",
                    **fields,
                )
                tally.redactions += result.redactions
                tail["id"] = result.memory.id
        tail["hash"] = digest
        return True

    def _current(self, memory_id: str) -> Memory | None:
        try:
            chain = self.store.history(memory_id)
        except MemoryNotFound:
            return None
        return chain[-1] if chain and chain[-1].status == "active" else None

    def _link(self, ref: str, tool: str, args: str, trail: tuple[str, ...] = ()) -> None:
        """Give a stored failure its fix: a new version with the resolution (if it has none yet)."""
        current = self._current(ref)
        if current is not None and not current.resolution:
            fixes.record_fix(
                self.store,
                current,
                tool,
                args,
                key=f"{current.idempotency_key}:fixed",
                trail=trail,
            )

    def _save(
        self,
        saved: state.State,
        unit: Unit,
        point: Resume,
        tracker: fixes.Tracker,
        batch: _Batch,
        check: Check,
        final: bool,
        tail: Exchange | None,
    ) -> None:
        saved.cursor, saved.position, saved.ctx = point.cursor, point.position, dict(point.ctx)
        saved.check = check(unit, point.cursor) if point.cursor else ""
        saved.open = tracker.to_list()
        saved.exchanges += len(batch.pending)
        record = next(
            (r for r in reversed(batch.pending) if tail and r["step"] == tail.position), None
        )
        if record is not None and not (saved.tail and saved.tail.get("key") == record["key"]):
            saved.tail = {"key": record["key"], "id": record["id"], "hash": _hash(record)}
        if final:
            saved.stamp, saved.done = list(unit.stamp), True
            saved.size = point.cursor if isinstance(point.cursor, int) else unit.size
        state.save(self.store.path, saved)

    def _report(self, unit: Unit, reading: Reading, tally: Tally) -> None:
        tally.broken += reading.broken
        tally.unknown += reading.unknown
        if reading.broken or reading.unknown:
            where = (
                f" (line {', '.join(map(str, reading.broken_lines))})"
                if reading.broken_lines
                else ""
            )
            self.warn(
                f"{unit.id}: skipped {reading.broken} broken line(s){where} and "
                f"{reading.unknown} line(s) of an unknown kind."
            )
        if self.progress:
            self.progress(unit.label, unit.size, unit.size)
