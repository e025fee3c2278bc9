"""Memories hindsight derives from others, without an LLM: task summaries (and summary chains) and
consolidated patterns. Each links to its sources (``source_ids``); rerunning updates it in place."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import BadUsage, InvalidInput
from ..models import ConsolidateResult, Filters, Memory, PatternChange, SummaryResult
from ..poisoning import derived_source, for_derivation, is_quarantined, less_trusted, trust
from ..storage import codec
from ..storage.rows import MemoryRow, row_term_counts
from ..timeutil import iso
from . import amend, embedding_jobs
from .jobs import Phase, Progress, announce
from .prepare import Limits, derived_importance, derived_key, prepare
from .runtime import Runtime
from .scope import Scope

if TYPE_CHECKING:
    from ..storage.base import Writer
    from ..storage.rows import Vectors
    from .patterns import Pattern

# a memory built from untrusted text is no surer than that text
_UNTRUSTED_CONFIDENCE = 0.3
# derived memories (a summary chain's parts, patterns) written in one ledger transaction: every
# other process's reads and writes wait while one is open, so how long it holds the ledger must not
# grow with how much one caller summarises or consolidates (review AG)
DERIVED_BATCH = 32
# why a summary is not written: what it quotes was forgotten or changed between its read and its
# write (the one wording of both ways it happens: a summary's source, a part's)
SOURCES_GONE = (
    "Memories this summary is built from were forgotten or changed while it was being written "
    "(forgotten for good, expired, or edited by another process); nothing more was written. Run "
    "it again: it is built from what is left."
)
Item = TypeVar("Item")
# a shared server's write gate, held only while the store changes (``_in_batches``)
Turn = AbstractContextManager[Any] | None
Written = TypeVar("Written")


def _summary_sources(
    rt: Runtime,
    task_id: str | None,
    since: datetime | None,
    until: datetime | None,
    agent_id: str | None,
) -> tuple[list[MemoryRow], int, str, str, str | None]:
    """The memories a summary covers (oldest first: one agent's, the default agent's when
    ``agent_id`` is None and several agents' match), the vector dimension, its scope and title,
    and the agent chosen (``agent_id``, or the default agent when it chose one)."""
    if not task_id and since is None and until is None:
        raise InvalidInput(
            "Say what to summarize: a task (--task) or a time range (--since/--until)."
        )
    rt.require()
    filters = Filters(
        agent_ids=(agent_id,) if agent_id else None,
        task_id=task_id,
        types=("episodic", "working"),
        since=since,
        until=until,
        include_expired=True,
    )
    with rt.ledger.read() as session:
        dim = rt.check_model(session)
        rows = [
            for_derivation(r) for r in session.select(filters.conditions(rt.now()), order="event")
        ]
    if not rows:
        what = f"task {task_id}" if task_id else "that time range"
        raise InvalidInput(f"Nothing to summarize: no active episodic memories for {what}.")
    scope = task_id or f"{iso(since) or 'start'}..{iso(until) or 'now'}"
    title = f"Summary of task {task_id}" if task_id else range_title(since, until)
    agents = {r.agent_id for r in rows}
    if agent_id is None and len(agents) > 1:
        # a summary belongs to the agent whose memories it derives from, never to several (issue
        # 31); the prompt for a client's LLM reads the same memories (review M)
        agent_id = rt.config.default_agent
        if agent_id not in agents:
            raise InvalidInput(
                f"{title} would mix the memories of {len(agents)} agents "
                f"({', '.join(sorted(agents))}); a summary belongs to one: name it with --agent."
            )
        rows = [r for r in rows if r.agent_id == agent_id]
    return rows, dim, scope, title, agent_id


def range_title(since: datetime | None, until: datetime | None) -> str:
    """A time range's summary title a person reads: minutes, UTC, the end's date only when it is
    another day (``Summary of 2026-11-30 14:05 → 16:40``)."""
    first, last = _utc(since), _utc(until)
    start = first.strftime("%Y-%m-%d %H:%M") if first else "the start"
    if last is None:
        return f"Summary of {start} → now"
    same_day = first is not None and first.date() == last.date()
    return f"Summary of {start} → {last.strftime('%H:%M' if same_day else '%Y-%m-%d %H:%M')}"


def _utc(value: datetime | None) -> datetime | None:
    # naive times are UTC already (``timeutil``)
    return value.astimezone(UTC) if value is not None and value.tzinfo is not None else value


def summary_request(
    rt: Runtime,
    task_id: str | None,
    since: datetime | None,
    until: datetime | None,
    agent_id: str | None,
    scope: Scope,
) -> tuple[str, str]:
    from .extractive import sampling_prompt

    rows, _, _, title, _ = _summary_sources(rt, task_id, since, until, scope.resolve(agent_id))
    return sampling_prompt(title, rows)


def summarize(
    rt: Runtime,
    *,
    task_id: str | None,
    since: datetime | None,
    until: datetime | None,
    agent_id: str | None,
    chunk: int,
    text: str | None,
    method: str,
    scope: Scope,
    asked: str | None = None,
    turn: Turn = None,
) -> SummaryResult:
    """Write (or update) the summary of a task or time range (``Store.summarize``). ``turn`` (a
    shared server's write gate) is held only while the store changes, each batch's transaction
    (``_in_batches``): the sources' reading, the parts' composing, the redaction and the embedding
    of a principal's summary of thousands of her memories held every other agent's writes
    (review AY)."""
    from .extractive import compose, sampling_prompt

    # a summary is written into the store (``text`` may be the caller's own)
    rt.writable()
    rows, dim, covered, title, agent_id = _summary_sources(
        rt, task_id, since, until, scope.resolve(agent_id)
    )
    if text and asked is not None and sampling_prompt(title, rows)[1] != asked:
        # the client's LLM wrote ``text`` from the memories its prompt (``asked``) held: one
        # forgotten since (its words in that text), changed or added makes it another summary
        raise InvalidInput(
            f"The memories of {title} changed while the client's LLM was writing their summary "
            "(one was forgotten, changed or added); nothing was written. Run it again."
        )
    agent = agent_id or rows[0].agent_id

    # a sentence's vector, embedded once though the whole summary and its parts all rank it
    known: dict[str, Vectors] = {}

    def embed(texts: list[str]) -> Vectors:
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            known.update(zip(missing, embedding_jobs.embed(rt, missing, dim), strict=True))
        vectors: Vectors = (
            np.stack([known[t] for t in texts]) if texts else np.empty((0, dim), np.float32)
        )
        return vectors

    # a summary's text a token principal gives (its client's LLM) is that principal's own words
    told = [scope.provenance] if scope.provenance and text and text.strip() else []

    def derived(body: str, part: int, sources: list[MemoryRow], links: list[str]) -> MemoryRow:
        # the lowest trust of what it was built from (and of who wrote the text)
        origin = derived_source([*(r.source for r in sources), *(told if part == 0 else [])])
        prepared = prepare(
            {
                "content": body,
                "type": "semantic",
                "agent_id": agent,
                "task_id": task_id,
                "key": derived_key("summary", agent_id, covered, part),
                "trigger": "summary" if part == 0 else "summary_part",
                "outcome": "neutral",
                # prepare caps it by its source (a token principal's: 0.5)
                "importance": 0.7,
                "confidence": _derived_confidence(origin, 0.8),
                "source": origin,
                "tags": ["summary"],
                "event_at": sources[-1].event_at,
                "metadata": {
                    "summary_of": covered,
                    "part": part,
                    "sources": len(sources),
                    "method": method if part == 0 else "extractive",
                },
            },
            Limits.of(rt.config),
            rt.now(),
            derived=True,
        )
        return replace(prepared.row, source_ids=links)

    groups = [rows[i : i + chunk] for i in range(0, len(rows), chunk)] if len(rows) > chunk else []
    part_rows = [
        derived(
            compose(
                f"{title}, part {number} of {len(groups)}",
                group,
                embed,
                rt.config.max_content_bytes,
            ),
            number,
            group,
            [r.id for r in group],
        )
        for number, group in enumerate(groups, 1)
    ]
    top = (
        text.strip()
        if text and text.strip()
        else compose(title, rows, embed, rt.config.max_content_bytes)
    )
    # linked below to its parts as they are stored (a part written before keeps its id)
    top_row = derived(top, 0, rows, [r.id for r in rows])
    # embedded before the ledger opens; the parts are written first, a batch a transaction, and
    # the summary last: a crash leaves no summary without its parts, and the rerun finds the parts
    # written under their keys
    embedding_jobs.embed_rows(rt, [*part_rows, top_row], dim)
    principal = scope.provenance is not None

    def write(session: Writer, row: MemoryRow) -> tuple[Memory, bool]:
        return _write_derived(session, row, principal)

    parts = _in_batches(rt, part_rows, write, turn)
    if parts:
        top_row.source_ids = [m.id for m, _ in parts]
    [(summary, updated)] = _in_batches(rt, [top_row], write, turn)
    return SummaryResult(summary, len(rows), updated, [m.id for m, _ in parts])


def _in_batches(
    rt: Runtime,
    items: Sequence[Item],
    write: Callable[[Writer, Item], Written],
    turn: Turn = None,
) -> list[Written]:
    """``write`` each of ``items``, at most ``DERIVED_BATCH`` in one ledger transaction, the indexes
    this process holds brought up to date after each, ``turn`` held around each (and only there):
    a principal's summary of thousands of her memories (hundreds of parts) or consolidation into
    thousands of patterns held the ledger for a minute in one transaction, and every other
    process's search, hook and command waited behind it, failing as busy past the lock timeout
    (review AG)."""
    written: list[Written] = []
    for start in range(0, len(items), DERIVED_BATCH):
        with turn or nullcontext():
            with rt.ledger.write() as session:
                written.extend(
                    write(session, item) for item in items[start : start + DERIVED_BATCH]
                )
            rt.after_write()
    return written


def _still_built_on(session: Writer, row: MemoryRow, rewritten: MemoryRow | None = None) -> bool:
    """Whether every memory ``row`` (a summary, a part, a pattern) is built from (``source_ids``)
    is still there and active in this transaction, and the derived memory it rewrites
    (``rewritten``, as it was read), if any, too, at the version read. It was composed from what
    was read before, seconds or minutes ago: a forget of those memories that committed meanwhile
    (another process, the owner's CLI, a hook, an expiry), before or between its batches, would
    have it written with their text after they left: a hard-forgotten text back in the store
    (review AK), or a withdrawn summary or pattern made active again (review AJ); and a pattern
    another consolidation updated meanwhile lost that update, its newer evidence (review BB)."""
    wanted = sorted({*row.source_ids, *([rewritten.id] if rewritten else [])})
    if not wanted:
        return True
    found = session.by_ids(wanted)
    return sum(r.status == "active" for r in found) == len(wanted) and (
        rewritten is None
        or any(r.id == rewritten.id and r.version == rewritten.version for r in found)
    )


def _derived_confidence(origin: str, trusted: float) -> float:
    return trusted if trust(origin) == "trusted" else min(trusted, _UNTRUSTED_CONFIDENCE)


def _write_derived(session: Writer, row: MemoryRow, principal: bool) -> tuple[Memory, bool]:
    """Write an embedded summary (or part): added, kept as stored, or rewritten under its key. A
    token principal's (``principal``) never rewrites one more trusted (the owner's summary of a
    task filed under its agent): it is written beside it, under a key derived from the held one
    (``Scope.check_replaces``' rule: it never takes the place of a more trusted memory)."""
    if not _still_built_on(session, row):
        raise InvalidInput(SOURCES_GONE)
    existing = session.by_key(row.idempotency_key, row.agent_id)
    moved = 0
    while principal and existing is not None and less_trusted(row, existing):
        # past ``amend.MOVED`` keys held so (an import file's, under the keys anyone can derive),
        # one of its own id (review BN)
        moved += 1
        own = [row.id] if moved >= amend.MOVED else []
        row.idempotency_key = derived_key("beside", row.idempotency_key, *own)
        existing = session.by_key(row.idempotency_key, row.agent_id)
    if existing is None:
        session.insert(row, row_term_counts(row))
        session.audit("summarize", [row.id], row.created_at)
        return codec.to_memory(row), False
    if (
        existing.content == row.content
        and list(existing.source_ids) == row.source_ids
        and existing.status == "active"
    ):
        return codec.to_memory(existing), False
    session.rewrite(_rewritten(existing, row), row_term_counts(row))
    session.audit("summarize", [existing.id], row.created_at, reason="updated")
    return codec.to_memory(session.by_ids([existing.id])[0]), True


def _rewritten(existing: MemoryRow, row: MemoryRow) -> MemoryRow:
    """``row`` (a summary or pattern built again) in place of ``existing``, its trust that of what
    it is built from now (``row``'s source and confidence, stored by ``Writer.rewrite``): the tags
    the stored one has kept (a quarantine, the owner's labels) and the importance it earned, at
    most what its origin allows (``derived_importance``). Rewritten under the first version's
    label, a summary of the user's memories kept reading as ``hindsight`` (trusted) once a web
    page's text, or a token principal's, was its content (review Y)."""
    return replace(
        row,
        id=existing.id,
        tags=list(dict.fromkeys([*existing.tags, *row.tags])),
        importance=derived_importance(row.source, existing.importance),
    )


def consolidate(
    rt: Runtime,
    *,
    agent_id: str | None,
    dry_run: bool,
    similarity: float | None,
    min_evidence: int | None,
    actor: str | None,
    scope: Scope,
    progress: Progress | None = None,
    phase: Phase | None = None,
    turn: Turn = None,
) -> ConsolidateResult:
    """Turn groups of similar episodes (per agent) into semantic pattern memories, without an
    LLM. ``turn``: held only while the store changes, as ``summarize``'s."""
    from .patterns import groups, pattern

    similarity = rt.config.consolidate_similarity if similarity is None else similarity
    min_evidence = rt.config.consolidate_min_evidence if min_evidence is None else min_evidence
    if not 0 < similarity <= 1:
        raise BadUsage("similarity must be between 0 and 1 (cosine), e.g. 0.8.")
    if min_evidence < 2:
        raise InvalidInput("min_evidence must be at least 2: a pattern needs repeated episodes.")
    if dry_run:
        rt.require()
    else:
        rt.require_writable()
    now = rt.now()
    agents = scope.resolve(agent_id)
    chosen = (agents,) if agents else None
    announce(phase, "Reading the episodic memories")
    with rt.ledger.read() as session:
        dim = rt.check_model(session)
        episodes = [
            r
            for r in session.select(
                Filters(agent_ids=chosen, types=("episodic",)).conditions(now),
                order="event",
                vectors=True,
            )
            # repeated poison must not become a "pattern"
            if not is_quarantined(r.tags, r.metadata)
        ]
        known = session.select(
            [
                *Filters(agent_ids=chosen, types=("semantic",)).conditions(now),
                ("trigger", "=", "consolidate"),
            ]
        )
    plan: list[PatternChange] = []
    announce(phase, f"Grouping {len(episodes):,} similar episodes")
    grouped = 0
    for agent in sorted({r.agent_id for r in episodes}):
        rows = [r for r in episodes if r.agent_id == agent]
        mine = [k for k in known if k.agent_id == agent]
        for members in groups(rows, similarity):
            found = pattern([rows[i] for i in members])
            if found.evidence >= min_evidence:
                origin = derived_source(rows[i].source for i in members)
                plan.append(_pattern_change(rt, agent, found, mine, origin, scope.provenance))
        grouped += len(rows)
        if progress:
            progress(grouped, len(episodes))
    changes = [c for c in plan if c.action != "unchanged"]
    if not dry_run and changes:
        announce(phase, f"Writing {len(changes):,} pattern{'s' if len(changes) != 1 else ''}")
        read = {k.id: k for k in known}
        gone = _write_patterns(rt, changes, read, dim, now, actor or rt.config.default_agent, turn)
        plan = [c for c in plan if c.row.id not in gone]
    return ConsolidateResult(
        len(episodes), [replace(c, memory=codec.to_memory(c.row)) for c in plan], dry_run
    )


def _write_patterns(
    rt: Runtime,
    changes: Sequence[PatternChange],
    read: Mapping[str, MemoryRow],
    dim: int,
    now: datetime,
    actor: str,
    turn: Turn = None,
) -> set[str]:
    """Write the patterns; returns the ids of those left unwritten because an episode they are
    built from, or the pattern they rewrite (``read``: the patterns as they were read), was
    forgotten meanwhile, or another consolidation wrote the one it creates, or rewrote the one it
    updates, meanwhile (the next consolidation groups what is left)."""
    embedding_jobs.embed_rows(rt, [c.row for c in changes], dim)
    gone: set[str] = set()

    def write(session: Writer, change: PatternChange) -> None:
        rewritten = None if change.action == "create" else read[change.row.id]
        if not _still_built_on(session, change.row, rewritten) or (
            rewritten is None
            and session.by_key(str(change.row.idempotency_key), change.row.agent_id) is not None
        ):
            gone.add(change.row.id)
            return
        if change.action == "create":
            session.insert(change.row, row_term_counts(change.row))
        else:
            session.rewrite(change.row, row_term_counts(change.row))
        session.audit(
            "consolidate",
            [change.row.id],
            now,
            f"{change.action}d from {len(change.row.source_ids)} episodes",
            actor,
        )

    _in_batches(rt, changes, write, turn)
    return gone


def _pattern_change(
    rt: Runtime,
    agent: str,
    found: Pattern,
    known: list[MemoryRow],
    origin: str,
    provenance: str | None,
) -> PatternChange:
    """Create a pattern, or update the one that already covers most of this group's episodes. A
    token principal's (``provenance``) never updates one more trusted (the owner's pattern of
    episodes filed under its agent): it is a pattern of its own beside it, under a key of its
    own (``Scope.check_replaces``' rule)."""
    row = prepare(
        {
            "content": found.content,
            "type": "semantic",
            "agent_id": agent,
            "trigger": "consolidate",
            "outcome": found.outcome,
            "resolution": found.resolution,
            "confidence": _derived_confidence(origin, found.confidence),
            # prepare caps it by its source (a token principal's: 0.5)
            "importance": 0.7,
            "source": origin,
            "tags": ["pattern"],
            "event_at": found.last_at,
            "metadata": {
                "pattern": {
                    "evidence": found.evidence,
                    "agreement": found.agreement,
                    "outcomes": found.outcomes,
                }
            },
            "key": derived_key("consolidate", agent, found.source_ids[0])
            if provenance is None
            else derived_key("consolidate", agent, found.source_ids[0], provenance),
        },
        Limits.of(rt.config),
        rt.now(),
        derived=True,
    ).row
    row.source_ids = list(found.source_ids)
    if provenance is not None:
        known = [k for k in known if not less_trusted(row, k)]
    overlap = [(len(set(k.source_ids) & set(found.source_ids)), k) for k in known]
    best = max(overlap, key=lambda pair: pair[0], default=(0, None))
    existing = best[1] if best[0] else None
    if existing is None:
        return PatternChange("create", row, list(found.source_ids))
    sources = list(dict.fromkeys([*existing.source_ids, *found.source_ids]))
    if set(found.source_ids) <= set(existing.source_ids):
        return PatternChange("unchanged", existing, sources)
    row = _rewritten(existing, row)
    row.source_ids = sources
    return PatternChange("update", row, sources)
