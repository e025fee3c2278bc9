"""The MCP tools: each a module-level function over one ``Memories`` call. The SDK derives each tool's
input schema from its signature and its description from its docstring, which the model reads."""

from __future__ import annotations

from typing import Annotated, Any, Optional

from mcp.server.mcpserver import Context, Resolve, Sample
from mcp.types import CreateMessageResult, SamplingMessage, TextContent

from ..errors import HindsightError
from ..models import Memory
from .memories import Memories
from .outputs import ConsolidateOutput, ForgetOutput, SearchOutput, StoredMemory, SummaryOutput


def memories(ctx: Context) -> Memories:
    found: Memories = ctx.mcp_server.memories  # type: ignore[attr-defined]
    return found


def memory_write(
    ctx: Context, content: str, type: Optional[str] = None, agent_id: Optional[str] = None,
    task_id: Optional[str] = None, step: Optional[int] = None, trigger: Optional[str] = None,
    outcome: Optional[str] = None, resolution: Optional[str] = None, importance: Optional[float] = None,
    confidence: Optional[float] = None, tags: Optional[list[str]] = None, metadata: Optional[dict[str, Any]] = None,
    env: Optional[dict[str, str]] = None, source: Optional[str] = None, event_at: Optional[str] = None,
    valid_until: Optional[str] = None, ttl: Optional[str] = None, key: Optional[str] = None, merge: bool = True,
    supersedes: Optional[str] = None,
) -> StoredMemory:
    """Record one memory: an event (episodic), a fact or preference (semantic) or a how-to (procedural).

    For a failure give outcome="failure" and, once known, the fix in `resolution`. When a fact
    changed, pass the old memory's id in `supersedes`: the old one leaves search and stays as history.
    Retrying the same write returns the same memory (deduplicated=true); secrets are redacted
    (redactions counts them).
    """
    return memories(ctx).write(content, type=type, agent_id=agent_id, task_id=task_id, step=step, trigger=trigger,
                               outcome=outcome, resolution=resolution, importance=importance, confidence=confidence,
                               tags=tags or [], metadata=metadata or {}, env=env or {}, source=source,
                               event_at=event_at, valid_until=valid_until, ttl=ttl, key=key, merge=merge,
                               supersedes=supersedes)


def memory_search(
    ctx: Context, query: str, top_k: int = 5, budget_tokens: Optional[int] = None, agent_id: Optional[str] = None,
    task_id: Optional[str] = None, types: Optional[list[str]] = None, outcomes: Optional[list[str]] = None,
    tags: Optional[list[str]] = None, since: Optional[str] = None, until: Optional[str] = None,
    mode: str = "hybrid", env: Optional[dict[str, str]] = None, current_task: Optional[str] = None,
    troubleshoot: bool = False, include_archived: bool = False,
) -> SearchOutput:
    """Find the few memories that matter for a query, ranked, within budget_tokens.

    Returns the hits with their scores and `context`: a ready-to-paste block
    ("[hindsight: N memories, T tokens]" then one line per memory). Pass `env` (e.g.
    {"tool_version": "v3"}) to rank memories from other versions lower, `current_task` to favour
    the task at hand, troubleshoot=true with an error text to get failures that were fixed first.
    """
    return memories(ctx).search(query, top_k=top_k, budget_tokens=budget_tokens, agent_id=agent_id, task_id=task_id,
                                types=types, outcomes=outcomes, tags=tags, since=since, until=until, mode=mode,
                                env=env, current_task=current_task, troubleshoot=troubleshoot,
                                include_archived=include_archived)


async def sampled_summary(task_id: Optional[str], since: Optional[str], until: Optional[str],
                          ctx: Context) -> Optional[Sample]:
    """Ask the client's LLM for the summary when the client offers sampling; None otherwise."""
    import anyio

    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        return None
    try:
        request = await anyio.to_thread.run_sync(lambda: memories(ctx).summary_request(task_id, since, until))
    except HindsightError:
        return None  # the tool reports the bad time itself
    if request is None:
        return None
    system, prompt = request
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
                  max_tokens=600, system_prompt=system, temperature=0.2)


def memory_summarize(
    ctx: Context, task_id: Optional[str] = None, since: Optional[str] = None, until: Optional[str] = None,
    sampled: Annotated[Optional[CreateMessageResult], Resolve(sampled_summary)] = None,
) -> SummaryOutput:
    """Summarize a task (or a time range) into one semantic memory linked to its sources: key points,
    outcomes, and every error with its fix. Rerunning updates the same summary. Call it when a task ends.
    If this client offers sampling, its LLM writes the summary; otherwise it is extractive."""
    text = sampled.content.text if sampled is not None and isinstance(sampled.content, TextContent) else None
    method = f"sampling:{sampled.model}" if text and text.strip() and sampled is not None else "extractive"
    return memories(ctx).summarize(task_id, since, until, text=text, method=method)


def memory_consolidate(ctx: Context, dry_run: bool = False) -> ConsolidateOutput:
    """Turn repeated similar episodes into semantic pattern memories ("weather API 401 -> refresh the
    token"), each linked to its evidence with a confidence from it. Rerunning writes nothing new unless
    new evidence arrived; dry_run=true only shows the plan."""
    return memories(ctx).consolidate(dry_run)


def memory_get(ctx: Context, id: str) -> Memory:
    """Get one memory by id (or a unique prefix of 8+ characters), with every field."""
    return memories(ctx).get(id)


def memory_forget(ctx: Context, ids: Optional[list[str]] = None, task_id: Optional[str] = None,
                  older_than: Optional[str] = None, expired: bool = False, hard: bool = False, archive: bool = False,
                  reason: Optional[str] = None) -> ForgetOutput:
    """Forget memories by id or by filter: a task, recorded longer ago than older_than (e.g. "30d"),
    or expired=true to purge memories past their TTL. Soft by default (hidden from search,
    restorable); archive=true keeps them in cold storage (search with include_archived=true);
    hard=true deletes them and every trace of their content for good. Returns how many changed."""
    return memories(ctx).forget(list(ids or []), task_id=task_id, older_than=older_than, expired=expired, hard=hard,
                                archive=archive, reason=reason)
