"""The everyday verbs: record, search, list, show, forget, restore."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..search.query import BUDGET_K, DEFAULT_K, DEFAULT_MODE
from . import app
from .options import (
    AgentOption,
    Format,
    JsonFlag,
    MemoryType,
    Mode,
    NlFlag,
    Outcome,
    Status,
    StoreOption,
    TaskOption,
    known_sources,
    known_triggers,
    open_at,
    output_format,
    parse_pairs,
)

if TYPE_CHECKING:
    from ..models import WriteResult
    from ..store import Store


def _text_or_stdin(text: str, limit: int, refused_over: bool) -> str:
    """``text``, or stdin's for ``-``, read no further than ``limit`` bytes and one more: a pipe
    longer than that is refused there (a 50 MB pipe was read, cleaned and redacted for 4 minutes
    before the size limit refused it), never passed on cut; unless the core refuses any text over
    ``limit`` itself (``refused_over``: a query), which then says so."""
    if text != "-":
        return text
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit and not refused_over:
        from ..errors import InvalidInput

        raise InvalidInput(
            f"stdin holds more than {limit:,} bytes, more than one memory or query can hold: "
            "split it, or give the part that matters."
        )
    return data.decode(sys.stdin.encoding or "utf-8", errors="replace")


@app.command()
def record(
    text: Annotated[
        str, typer.Argument(help="The memory text, or - to read it from stdin.", show_default=False)
    ],
    type_: Annotated[
        Optional[MemoryType],
        typer.Option("--type", help="The kind of memory (default episodic).", show_default=False),
    ] = None,
    agent: Annotated[
        Optional[str],
        typer.Option(
            "--agent",
            help="Who wrote it (default $HINDSIGHT_AGENT or `default`).",
            show_default=False,
        ),
    ] = None,
    task: Annotated[
        Optional[str], typer.Option("--task", help="Task id.", show_default=False)
    ] = None,
    step: Annotated[
        Optional[int],
        typer.Option("--step", min=0, help="Step index within the task.", show_default=False),
    ] = None,
    trigger: Annotated[
        Optional[str],
        typer.Option(
            "--trigger",
            autocompletion=known_triggers,
            help="Why: task_start, task_end, tool_call, tool_error, user_feedback, "
            "user_correction, note, or your own word.",
            show_default=False,
        ),
    ] = None,
    outcome: Annotated[
        Optional[Outcome],
        typer.Option("--outcome", help="How it ended (default unknown).", show_default=False),
    ] = None,
    resolution: Annotated[
        Optional[str],
        typer.Option("--resolution", help="How a failure was fixed.", show_default=False),
    ] = None,
    importance: Annotated[
        Optional[float],
        typer.Option("--importance", help="0–1 (default from the trigger).", show_default=False),
    ] = None,
    confidence: Annotated[
        Optional[float],
        typer.Option("--confidence", help="0–1 (default from the source).", show_default=False),
    ] = None,
    tag: Annotated[
        Optional[list[str]], typer.Option("--tag", help="A tag (repeatable).", show_default=False)
    ] = None,
    meta: Annotated[
        Optional[list[str]],
        typer.Option("--meta", help="Metadata KEY=VALUE (repeatable).", show_default=False),
    ] = None,
    env: Annotated[
        Optional[list[str]],
        typer.Option(
            "--env",
            help="Environment fingerprint KEY=VALUE, e.g. tool_version=v2 (repeatable).",
            show_default=False,
        ),
    ] = None,
    source: Annotated[
        Optional[str],
        typer.Option(
            "--source",
            autocompletion=known_sources,
            help="Where the text comes from: user, agent, tool, import, web, or your own word "
            "(default agent).",
            show_default=False,
        ),
    ] = None,
    event_at: Annotated[
        Optional[str],
        typer.Option(
            "--event-at", help="When it happened (ISO time or an age like 2h).", show_default=False
        ),
    ] = None,
    valid_until: Annotated[
        Optional[str],
        typer.Option(
            "--valid-until",
            help="Stops being true after this (ISO time or 30d from now).",
            show_default=False,
        ),
    ] = None,
    ttl: Annotated[
        Optional[str],
        typer.Option("--ttl", help="Expire after this long, e.g. 2h or 30d.", show_default=False),
    ] = None,
    key: Annotated[
        Optional[str],
        typer.Option(
            "--key",
            help="Idempotency key (default: hash of agent, task, step, content).",
            show_default=False,
        ),
    ] = None,
    no_merge: Annotated[
        bool, typer.Option("--no-merge", help="Keep a near-duplicate as a new memory.")
    ] = False,
    supersedes: Annotated[
        Optional[str],
        typer.Option(
            "--supersedes",
            metavar="ID",
            help="This memory replaces that one (same agent): the old one leaves search and "
            "stays as history.",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Record a memory.

    \b
    Example:
        hindsight record "weather API returned 401: token expired" --outcome failure \\
            --resolution "refreshed the token and retried" --task task-42 --trigger tool_error
        echo "long note" | hindsight record -
        hindsight record "the weather API now wants an API key header" --supersedes 01a22ace
    """
    from .. import paths
    from ..core.parts import MAX_PARTS
    from ..core.prepare import FAR_OVER
    from . import render

    location = paths.resolve_store(store)
    # the first memory of a machine with no project store goes to the global one: say where
    first = location.reason == "global" and not location.exists
    opened = open_at(location.path)
    result = opened.record(
        _text_or_stdin(
            text, FAR_OVER * MAX_PARTS * opened.config.max_content_bytes, refused_over=False
        ),
        merge=not no_merge,
        type=type_,
        agent_id=agent,
        task_id=task,
        step=step,
        trigger=trigger,
        outcome=outcome,
        resolution=resolution,
        importance=importance,
        confidence=confidence,
        tags=tag or [],
        metadata=parse_pairs(meta, "--meta"),
        env=parse_pairs(env, "--env"),
        source=source,
        event_at=event_at,
        valid_until=valid_until,
        ttl=ttl,
        key=key,
        supersedes=supersedes,
    )
    _say_written(result)
    if json_:
        render.json_doc(result.to_dict())
        _first_store(first, location.path)
        return
    render.plain(result.memory.id)
    if result.deduplicated:
        # --no-merge keeps near-duplicates apart; the same key is the same memory all the same
        what = (
            "Already stored (the same text, task and step: --no-merge stores no memory twice)"
            if no_merge
            else "Already stored (merged)"
        )
    else:
        what = "Stored as a new version" if result.updated else "Recorded"
    note = (
        f"; redacted {result.redactions} secret{'s' if result.redactions != 1 else ''}"
        if result.redactions
        else ""
    )
    if result.memory.supersedes and not result.deduplicated:
        note += f"; it supersedes {result.memory.supersedes}"
    # in a terminal the id is on the line above
    named = "" if sys.stdout.isatty() else f" {result.memory.id}"
    render.message(f"{what}{named}{note}.")
    _first_store(first, location.path)


def _first_store(first: bool, path: Path) -> None:
    if first:
        from . import render

        render.message(
            f"It is in the global store {path}, made now: there is no .hindsight/ here or above "
            "(`hindsight init` makes one for this project)."
        )


@app.command()
def edit(
    memory_id: Annotated[
        str, typer.Argument(metavar="ID", help="The memory (its id or a unique part of it).")
    ],
    resolution: Annotated[
        Optional[str],
        typer.Option("--resolution", help="How the failure was fixed.", show_default=False),
    ] = None,
    outcome: Annotated[
        Optional[Outcome], typer.Option("--outcome", help="How it ended.", show_default=False)
    ] = None,
    confidence: Annotated[
        Optional[float], typer.Option("--confidence", help="0–1.", show_default=False)
    ] = None,
    tag: Annotated[
        Optional[list[str]],
        typer.Option("--tag", help="A tag to add (repeatable).", show_default=False),
    ] = None,
    importance: Annotated[
        Optional[float],
        typer.Option("--importance", help="0–1: how much it matters.", show_default=False),
    ] = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Give a stored memory what was learnt since: a new version that supersedes it.

    The text stays; the old version leaves search and stays as history (`hindsight show ID`).

    \b
    Example:
        hindsight edit 01a22ace --resolution "pinned pnpm to 9.15.1" --outcome failure
        hindsight edit 01a22ace --tag ci --confidence 0.9 --importance 0.8
    """
    from . import render

    result = open_at(store).edit(
        memory_id,
        resolution=resolution,
        outcome=outcome,
        confidence=confidence,
        tags=tag or [],
        importance=importance,
    )
    _say_written(result)
    if json_:
        render.json_doc(result.to_dict())
        return
    render.plain(result.memory.id)
    if result.deduplicated:
        render.message(f"Unchanged: {result.memory.id} holds all of that already.")


def _say_written(result: WriteResult) -> None:
    """Said whatever the output mode: a memory was replaced, or stored in parts."""
    from . import render

    if result.change and result.superseded:
        # an automatic supersede follows a setting the user may want to change
        setting = "" if result.updated else '; [write] on_change = "keep_both" keeps both'
        render.message(
            f"Updated: {result.change} (supersedes {result.superseded[0]}; "
            f"`hindsight show {result.memory.id}` has the history{setting})."
        )
    elif result.beside:
        render.message(
            f"Kept both ({result.change}): --supersedes {result.beside} if this replaces "
            f"{result.beside}."
        )
    if result.parts and not result.deduplicated:
        render.message(
            f"Stored in {len(result.parts)} linked parts: the text is over [limits] "
            f"max_content_bytes; "
            f"`hindsight show {result.memory.id} --sources` shows them all."
        )


TypeOption = Annotated[
    Optional[list[MemoryType]],
    typer.Option("--type", help="Only this type (repeatable).", show_default=False),
]
OutcomeOption = Annotated[
    Optional[list[Outcome]],
    typer.Option("--outcome", help="Only this outcome (repeatable).", show_default=False),
]
TagOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--tag",
        help="Only memories with this tag (repeatable: all must match).",
        show_default=False,
    ),
]
SourceOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--source",
        autocompletion=known_sources,
        help="Only text from this source: user, agent, tool, web, … (repeatable, any of).",
        show_default=False,
    ),
]
SinceOption = Annotated[
    Optional[str],
    typer.Option(
        "--since", help="Happened at or after (ISO time or an age like 7d).", show_default=False
    ),
]
UntilOption = Annotated[
    Optional[str],
    typer.Option(
        "--until", help="Happened at or before (ISO time or an age like 1d).", show_default=False
    ),
]


@app.command()
def search(
    query: Annotated[
        str, typer.Argument(help="What to look for; - reads it from stdin.", show_default=False)
    ],
    agent: AgentOption = None,
    task: TaskOption = None,
    type_: TypeOption = None,
    outcome: OutcomeOption = None,
    tag: TagOption = None,
    source: SourceOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    limit: Annotated[
        Optional[int],
        typer.Option(
            "-k",
            "--limit",
            "-n",
            help=f"At most this many hits (default {DEFAULT_K}; {BUDGET_K} with --budget).",
            show_default=False,
        ),
    ] = None,
    budget: Annotated[
        Optional[int],
        typer.Option(
            "--budget",
            help="Fit the context block in this many tokens, with only the hits above the "
            "relevance floor (a ceiling, not a target).",
            show_default=False,
        ),
    ] = None,
    min_score: Annotated[
        Optional[float],
        typer.Option(
            "--min-score",
            min=0.0,
            max=1.0,
            help="Only hits scoring at least this (0-1), above the relevance floor.",
            show_default=False,
        ),
    ] = None,
    mode: Annotated[
        Mode, typer.Option("--mode", help="Vector and keyword matches fused, or one of them.")
    ] = DEFAULT_MODE,
    env: Annotated[
        Optional[list[str]],
        typer.Option(
            "--env",
            help="Your environment KEY=VALUE: memories recorded under another value rank lower.",
            show_default=False,
        ),
    ] = None,
    current_task: Annotated[
        Optional[str],
        typer.Option(
            "--current-task", help="The task at hand: its memories rank higher.", show_default=False
        ),
    ] = None,
    troubleshoot: Annotated[
        bool,
        typer.Option(
            "--troubleshoot",
            help="I have seen this error before: relevant failures that were fixed come first.",
        ),
    ] = False,
    include_archived: Annotated[
        bool, typer.Option("--include-archived", help="Search archived memories too.")
    ] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show each signal's contribution per hit.")
    ] = False,
    format_: Annotated[
        Optional[Format],
        typer.Option(
            "--format",
            help="A table for people, JSON, JSON lines, or a context block for a prompt (default "
            "table).",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
    nl: NlFlag = False,
) -> None:
    """Find the memories that matter for a query.

    Hybrid vector + keyword retrieval, ranked by relevance, recency, outcome, importance and task,
    diversified, and cut to fit --budget tokens. The default model reads English: in other
    languages (Chinese included) search matches shared words, not meaning, and an English query
    does not find a Chinese memory. A store made with `hindsight init --embedding-model
    multilingual` reads 16 languages, across languages too.

    \b
    Example:
        hindsight search "weather API returns 401"
        hindsight search "why did the API fail" --format context --budget 300
        hindsight search "ECONNREFUSED 127.0.0.1:5432" --troubleshoot
        pytest 2>&1 | tail -1 | hindsight search - --troubleshoot
    """
    from ..core.selection import browse_filters, cli_option
    from ..search.query import MAX_QUERY_BYTES, SearchQuery
    from . import render

    fmt = output_format(json_, nl, format_)
    filters = browse_filters(
        agent_id=agent,
        task_id=task,
        types=type_,
        outcomes=outcome,
        tags=tag or (),
        since=since,
        until=until,
        sources=source,
        search=True,
        include_archived=include_archived,
        spell=cli_option,
    )
    opened = open_at(store)
    result = opened.search(
        SearchQuery(
            _text_or_stdin(query, MAX_QUERY_BYTES, refused_over=True),
            filters,
            k=limit,
            budget=budget,
            mode=mode,
            env=parse_pairs(env, "--env"),
            current_task=current_task,
            troubleshoot=troubleshoot,
            min_score=min_score,
        )
    )
    if fmt == "json":
        render.json_doc([hit.to_dict(explain) for hit in result.hits])
    elif fmt == "nl":
        render.json_lines(hit.to_dict(explain) for hit in result.hits)
    elif fmt == "context":
        render.plain(result.context)
    else:
        render.hits_table(result.hits, explain)
    if result.hits and opened.origin is not None:
        render.warning(_unapproved(opened))
    if result.dropped_for_budget:
        render.message(
            f"{result.dropped_for_budget} more hit(s) left out to stay within {budget} tokens."
        )


def _unapproved(opened: Store) -> str:
    """The warning of a search that read a store of unknown origin: why, and how to approve it."""
    from ..core import binding
    from ..safefs import trust

    if trust.trusted(opened.path):
        # approved, with another ledger than the one approved (review AE)
        return f"{binding.why(opened.path)} Its memories are untrusted, and labelled so."
    return (
        f"{opened.path} was not created or approved by you on this machine (it may have come "
        f"with a repository): its memories are untrusted, and labelled so. If you trust it, "
        f"run `hindsight allow {opened.path}`."
    )


@app.command(name="list")
def list_(
    agent: AgentOption = None,
    task: TaskOption = None,
    type_: TypeOption = None,
    outcome: OutcomeOption = None,
    tag: TagOption = None,
    source: SourceOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    status: Annotated[
        Optional[list[Status]],
        typer.Option(
            "--status", help="Only this status (repeatable; default all).", show_default=False
        ),
    ] = None,
    limit: Annotated[
        int, typer.Option("-n", "--limit", "-k", min=0, help="At most this many (0 = all).")
    ] = 50,
    flagged: Annotated[
        bool,
        typer.Option(
            "--flagged",
            help="Only memories flagged as misleading (applied, and the same error came back); "
            "they are not injected automatically.",
        ),
    ] = False,
    store: StoreOption = None,
    json_: JsonFlag = False,
    nl: NlFlag = False,
) -> None:
    """List memories, newest first.

    \b
    Example:
        hindsight list --task task-20240501-001 --json
    """
    from ..core.selection import browse_filters, cli_option, shown
    from . import render

    filters = browse_filters(
        agent_id=agent,
        task_id=task,
        types=type_,
        outcomes=outcome,
        tags=tag or (),
        since=since,
        until=until,
        statuses=status,
        sources=source,
        spell=cli_option,
    )
    fmt = output_format(json_, nl)
    opened = open_at(store)
    if flagged:
        memories = opened.list_flagged(filters, limit=shown(limit))
    else:
        memories = opened.list(filters, limit=shown(limit))
    if fmt == "json":
        render.json_doc([m.to_dict() for m in memories])
    elif fmt == "nl":
        render.json_lines(m.to_dict() for m in memories)
    else:
        render.memories_table(memories)


@app.command()
def show(
    memory_id: Annotated[
        str,
        typer.Argument(
            metavar="ID",
            help="A memory id (or a unique prefix of 8+ characters).",
            show_default=False,
        ),
    ],
    sources: Annotated[
        bool,
        typer.Option("--sources", help="Walk a summary's chain down to the original memories."),
    ] = False,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Show one memory with every field, and its history if it superseded or was superseded.

    \b
    Example:
        hindsight show 01a22ace-86eb-74f2-a7b6-349d907f4735
        hindsight show 01a22ace-86eb-74f2-a7b6-349d907f4735 --sources
    """
    from . import render

    if sources:
        chain = open_at(store).sources(memory_id)
        if json_:
            render.json_doc([{**m.to_dict(), "depth": depth} for depth, m in chain])
        else:
            render.chain(chain)
        return
    target = open_at(store)
    memory = target.get(memory_id)
    versions = target.history(memory.id) if memory.supersedes or memory.superseded_by else [memory]
    if json_:
        render.json_doc({**memory.to_dict(), "history": [m.id for m in versions]})
        return
    render.memory_detail(memory)
    if len(versions) > 1:
        render.history(versions, memory.id)


@app.command()
def summarize(
    task: TaskOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    agent: AgentOption = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Summarize a task or a time range into a semantic memory (no LLM).

    Key sentences plus a roll-up of outcomes and of every error with its fix, linked to its sources.
    More than 5 memories make a chain: part summaries, then the task summary. Rerunning updates it.

    \b
    Example:
        hindsight summarize --task task-20240501-001
        hindsight summarize --since 7d --agent agent-001 --json
    """
    from ..core.selection import when
    from . import render

    result = open_at(store).summarize(
        task_id=task, agent_id=agent, since=when(since, "--since"), until=when(until, "--until")
    )
    if json_:
        render.json_doc(result.to_dict())
        return
    render.plain(result.memory.content)
    what = "Updated" if result.updated else "Wrote"
    parts = f" in a chain of {len(result.parts)} parts" if result.parts else ""
    render.message(
        f"{what} summary {result.memory.id} of {render.memories(result.sources)}{parts}."
    )


@app.command()
def consolidate(
    agent: AgentOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would be written; write nothing.")
    ] = False,
    similarity: Annotated[
        Optional[float],
        typer.Option(
            "--similarity",
            min=0.0,
            max=1.0,
            help="Cosine at or above which episodes are one pattern (default 0.8).",
            show_default=False,
        ),
    ] = None,
    min_evidence: Annotated[
        Optional[int],
        typer.Option(
            "--min-evidence",
            min=2,
            help="Occurrences a pattern needs (default 2).",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Turn repeated similar episodes into semantic pattern memories (no LLM).

    Each pattern ("weather API 401 → refresh the token") links to its evidence and gets a confidence
    from it; conflicting outcomes lower it. Rerunning writes nothing new unless new evidence
    arrived.

    \b
    Example:
        hindsight consolidate --dry-run
        hindsight consolidate --agent agent-001 --json
    """
    from . import render

    with render.progress("Consolidating") as bar:
        result = open_at(store).consolidate(
            agent_id=agent,
            dry_run=dry_run,
            similarity=similarity,
            min_evidence=min_evidence,
            progress=bar,
            phase=bar.phase,
        )
    if json_:
        render.json_doc(result.to_dict())
        return
    render.patterns(result.patterns, dry_run)
    verb = "Would write" if dry_run else "Wrote"
    render.message(
        f"Scanned {result.scanned} episodic memor{'y' if result.scanned == 1 else 'ies'}: {verb} "
        f"{result.count('create')} new and {result.count('update')} updated pattern(s); "
        f"{result.count('unchanged')} unchanged."
    )
