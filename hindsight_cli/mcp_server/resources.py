"""The server's resources, its ``recall`` prompt and their completions: each answer within a token
budget, each scoped to the requesting agent (``ToolStore``)."""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Optional

from pydantic import Field

from . import results
from .memories import ToolStore

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import Completion

# the resources' template and the recall prompt, as completion requests name them
MEMORY_TEMPLATE = "hindsight://memory/{memory_id}"
RECENT = 20
# completion looks among this many newest memories, and offers at most the protocol's 100 values
SCANNED = 500
OFFERED = 100
BUDGETS = ("200", "400", "800", "1600")
# characters of a task's goal offered for the prompt's task
GOAL = 120


def register(
    server: MCPServer,
    memories: ToolStore,
    model_errors: Callable[[Callable[..., str], str], Callable[..., Awaitable[str]]],
) -> None:
    """The resources, the prompt and the completions, on ``server``; ``model_errors`` turns a
    resource's refusal into the error its reader sees, and runs it among the reads
    (``ToolStore.reads``)."""

    def recent_memories() -> str:
        return json.dumps(
            results.recent_json(memories.recent(RECENT), results.RECENT_BUDGET),
            ensure_ascii=False,
        )

    server.resource(
        "hindsight://memories/recent",
        name="recent-memories",
        title="Recent memories",
        mime_type="application/json",
        description=f"The {RECENT} most recent memories in this server's scope, as many as fit "
        f"{results.RECENT_BUDGET} tokens of JSON (long contents cut).",
    )(model_errors(recent_memories, "resource"))

    def memory_resource(memory_id: str) -> str:
        memory = memories.get(memory_id)
        return json.dumps(results.memory_json(memory, results.GET_BUDGET), ensure_ascii=False)

    server.resource(
        MEMORY_TEMPLATE,
        name="memory",
        title="A memory",
        mime_type="application/json",
        description=f"One memory by id, its content cut to fit {results.GET_BUDGET} tokens.",
    )(model_errors(memory_resource, "resource"))

    def recall(
        task: Annotated[str, Field(description="What the task is about, in a sentence.")],
        budget_tokens: Annotated[
            int, Field(ge=1, description="Keep the block within this many tokens (default 400).")
        ] = 400,
        task_id: Annotated[
            Optional[str], Field(description="The task at hand: its memories rank higher.")
        ] = None,
    ) -> str:
        from ..core.selection import browse_filters
        from ..search.query import SearchQuery

        found = memories.search(
            SearchQuery(
                task, browse_filters(search=True), budget=budget_tokens, current_task=task_id
            ),
            event="recall-prompt",
        )
        if not found.hits:
            return f"No memories relevant to this task were found.\n\nTask: {task}"
        return (
            "Relevant memories from earlier work (most useful first):\n\n"
            f"{found.context}\n\nTask: {task}"
        )

    @functools.wraps(recall)
    async def recall_among_reads(*args: Any, **kwargs: Any) -> str:
        return await memories.reading(functools.partial(recall, *args, **kwargs))

    server.prompt(
        name="recall",
        title="Recall for a task",
        description="Turn a task description into a block of relevant memories.",
    )(recall_among_reads)
    # the SDK leaves its completion decorator untyped
    server.completion()(Completer(memories).complete)  # type: ignore[no-untyped-call]


class Completer:
    """What a client may offer as the user types: memory ids for ``hindsight://memory/{id}``; for
    the ``recall`` prompt, recent tasks' goals (their task_start memories), task ids and budgets;
    only the requesting agent's memories, newest first, at most OFFERED values."""

    def __init__(self, memories: ToolStore) -> None:
        self.memories = memories

    async def complete(self, ref: Any, argument: Any, context: Any) -> Completion | None:
        from mcp.types import Completion

        values = await self.memories.reading(lambda: self.values(ref, argument.name))
        typed = argument.value or ""
        matching = [value for value in values if value.startswith(typed)]
        return Completion(
            values=matching[:OFFERED], total=len(matching), has_more=len(matching) > OFFERED
        )

    def values(self, ref: Any, name: str) -> list[str]:
        kind = getattr(ref, "type", "")
        if kind == "ref/resource" and getattr(ref, "uri", "") == MEMORY_TEMPLATE:
            return [m.id for m in self.memories.recent(SCANNED)] if name == "memory_id" else []
        if kind == "ref/prompt" and getattr(ref, "name", "") == "recall":
            if name == "task_id":
                tasks = (m.task_id for m in self.memories.recent(SCANNED) if m.task_id)
                return list(dict.fromkeys(tasks))
            if name == "task":
                # the goals of recent tasks: their task_start memories' first lines
                goals = (
                    m.content.splitlines()[0][:GOAL]
                    for m in self.memories.recent(SCANNED)
                    if m.trigger == "task_start" and m.content.strip()
                )
                return list(dict.fromkeys(goals))
            if name == "budget_tokens":
                return list(BUDGETS)
        return []
