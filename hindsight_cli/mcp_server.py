"""`hindsight mcp`: the MCP face over Store. Each tool is a few lines; the logic lives in Store.

Nothing here writes to stdout: logs go to stderr or ``--log-file``. The SDK is imported only when a
server is built, so the CLI and the library never pay for it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Optional

from .errors import HindsightError, InvalidInput, MemoryNotFound
from .models import Filters, Memory
from .store import Store

log = logging.getLogger("hindsight.mcp")

INSTRUCTIONS = """\
hindsight is this project's long-term memory: what was done before, what failed and how it was fixed,
and what the user prefers. Use it so the same mistake is not made twice.

When to recall (memory_search; pass budget_tokens, e.g. 400, and paste the returned `context`):
- at the start of every task, with the task's goal as the query;
- after a tool call fails, and again if the same error repeats: search the error text;
- when the user repeats a question or corrects you: search what they asked;
- when a task enters a new phase (planning -> coding -> testing -> deploying).

What to write (memory_write; one fact or event per call, in the user's language):
- task start and end (trigger task_start / task_end, with the outcome);
- every tool error, and once it is fixed, the fix (trigger tool_error, outcome failure, resolution);
- user corrections and stated preferences (type semantic, source user);
- how-tos worth keeping (type procedural).
Writes are idempotent and near-duplicates merge, so retrying is safe. Never store secrets: they are
redacted anyway. Stay within a budget: recall a few memories, not everything.
"""


@dataclass(frozen=True)
class StoredMemory(Memory):
    """A memory as written: the stored fields plus what the write did."""

    deduplicated: bool = False
    redactions: int = 0


@dataclass(frozen=True)
class ScoredMemory(Memory):
    """A search hit: the memory's fields plus its score and which retrievers matched it."""

    score: float = 0.0
    matched: list[str] = field(default_factory=list)


@dataclass
class SearchOutput:
    """Ranked hits and the block to paste into a prompt."""

    hits: list[ScoredMemory]
    context: str
    tokens: int
    dropped_for_budget: int = 0


@dataclass(frozen=True)
class SummaryOutput(Memory):
    """The summary memory, how many memories it covers, whether it replaced an earlier version, and
    the part summaries of a chain."""

    summarized: int = 0
    updated: bool = False
    parts: list[str] = field(default_factory=list)
    method: str = "extractive"  # or "sampling:<model>" when the client's LLM wrote it


@dataclass
class ForgetOutput:
    forgotten: int
    hard: bool
    archived: bool = False


@dataclass
class PatternOutput:
    """A pattern consolidation wrote (or would write), with its evidence."""

    action: str
    id: str
    content: str
    outcome: str
    resolution: Optional[str]
    confidence: float
    evidence_ids: list[str]


@dataclass
class ConsolidateOutput:
    scanned: int
    dry_run: bool
    created: int
    updated: int
    unchanged: int
    patterns: list[PatternOutput]


class Memories:
    """The operations the tools expose, bound to one store and an optional agent scope: the server's
    (``--agent``) or, on an HTTP server started with tokens, the agent of the request's token."""

    def __init__(self, store: Store, agent: str | None = None) -> None:
        self.store = store
        self.fixed_agent = agent
        self._lock = threading.Lock()  # tools run in worker threads; one store operation at a time

    @property
    def agent(self) -> str | None:
        if self.fixed_agent is not None:
            return self.fixed_agent
        from mcp.server.auth.middleware.auth_context import get_access_token

        token = get_access_token()
        return token.client_id if token is not None else None

    def _scope(self, requested: str | None) -> str | None:
        if self.agent is None:
            return requested or None
        if requested and requested != self.agent:
            raise InvalidInput(
                f"This server is scoped to agent {self.agent!r}; it cannot read or write agent {requested!r}. "
                "Leave agent_id out."
            )
        return self.agent

    def _visible(self, memory: Memory) -> Memory:
        if self.agent is not None and memory.agent_id != self.agent:
            raise MemoryNotFound(f"No memory with id {memory.id!r}. Find ids with memory_search.")
        return memory

    def write(self, content: str, **fields: Any) -> StoredMemory:
        fields["agent_id"] = self._scope(fields.get("agent_id")) or fields.get("agent_id")
        with self._lock:
            result = self.store.record(content, **fields)
        return StoredMemory(**result.memory.to_dict(), deduplicated=result.deduplicated,
                            redactions=result.redactions)

    def search(self, query: str, *, agent_id: str | None = None, top_k: int = 5, budget_tokens: int | None = None,
               **options: Any) -> SearchOutput:
        scope = self._scope(agent_id)
        statuses = ("active", "archived") if options.pop("include_archived", False) else ("active",)
        filters = Filters(agent_ids=(scope,) if scope else None, task_id=options.pop("task_id", None),
                          statuses=statuses,
                          types=tuple(options.pop("types", None) or ()) or None,
                          outcomes=tuple(options.pop("outcomes", None) or ()) or None,
                          tags=tuple(options.pop("tags", None) or ()), since=options.pop("since", None),
                          until=options.pop("until", None))
        with self._lock:
            self._ingest_hook_events()
            result = self.store.search(query, filters=filters, k=top_k, budget=budget_tokens, **options)
        hits = [ScoredMemory(**h.memory.to_dict(), score=round(h.score, 6), matched=h.matched) for h in result.hits]
        return SearchOutput(hits, result.context, result.tokens, result.dropped_for_budget)

    def summarize(self, task_id: str | None, since: Any, until: Any, text: str | None = None,
                  method: str = "extractive") -> SummaryOutput:
        with self._lock:
            result = self.store.summarize(task_id=task_id, since=since, until=until, agent_id=self._scope(None),
                                          text=text, method=method)
        return SummaryOutput(**result.to_dict(), method=method)

    def summary_request(self, task_id: str | None, since: Any, until: Any) -> tuple[str, str] | None:
        """The prompt for the client's LLM, or None when there is nothing to summarise (the tool then
        reports that error itself)."""
        with self._lock:
            try:
                return self.store.summary_request(task_id=task_id, since=since, until=until,
                                                  agent_id=self._scope(None))
            except HindsightError:
                return None

    def consolidate(self, dry_run: bool) -> ConsolidateOutput:
        with self._lock:
            result = self.store.consolidate(agent_id=self._scope(None), dry_run=dry_run,
                                            actor=self.agent or "mcp")
        patterns = [PatternOutput(p.action, p.memory.id, p.memory.content, p.memory.outcome, p.memory.resolution,
                                  p.memory.confidence, p.evidence_ids) for p in result.patterns if p.memory]
        return ConsolidateOutput(result.scanned, result.dry_run, result.count("create"), result.count("update"),
                                 result.count("unchanged"), patterns)

    def get(self, memory_id: str) -> Memory:
        with self._lock:
            return self._visible(self.store.get(memory_id))

    def forget(self, ids: list[str], *, task_id: str | None, older_than: str | None, expired: bool, hard: bool,
               reason: str | None, archive: bool = False) -> ForgetOutput:
        from .timeutil import now, parse_duration

        with self._lock:
            for memory_id in ids:
                self._visible(self.store.get(memory_id))
            filters = None
            if task_id or older_than or expired:
                scope = self._scope(None)
                filters = Filters(
                    agent_ids=(scope,) if scope else None, task_id=task_id, include_expired=True, expired_only=expired,
                    statuses=None if hard else ("active", "archived"),
                    created_before=now() - parse_duration(older_than, "older_than") if older_than else None)
            if not ids and filters is None:
                raise InvalidInput("Say what to forget: ids, or a filter (task_id, older_than, expired).")
            hard = hard or (expired and not archive)  # an expired memory is never shown again: purge it
            count = self.store.forget(ids, filters=filters, hard=hard, archive=archive, reason=reason,
                                      actor=self.agent or "mcp")
        return ForgetOutput(count, hard, archive)

    def _ingest_hook_events(self) -> None:
        """Move what lifecycle hooks spooled (docs/hooks.md) into the store before reading it, so a
        search sees the failure a hook recorded a moment ago. One stat when there is nothing."""
        from .hooks import recall, spool

        if self.store.exists and spool.pending(self.store.path):
            try:
                recall.ingest(self.store)
            except HindsightError as error:
                log.warning("could not ingest hook events: %s", error)

    def warm_up(self) -> None:
        """Load the model and bring the index up to date, under the same lock as the tools: a tool
        call that arrives meanwhile waits instead of racing to create the index."""
        with self._lock:
            if self.store.exists:
                self.store.expire_if_due()
                self._ingest_hook_events()
                self.store.sync_index()
            self.store.embedder.embed(["warm up"])

    def recent(self, limit: int = 20) -> list[Memory]:
        scope = self._scope(None)
        with self._lock:
            return self.store.list(Filters(agent_ids=(scope,) if scope else None), limit=limit)


def _parse_times(since: str | None, until: str | None) -> dict[str, Any]:
    from .timeutil import parse_time

    return {"since": parse_time(since, "since") if since else None,
            "until": parse_time(until, "until") if until else None}


def _model_errors(function: Any, kind: str = "tool") -> Any:
    """Turn a HindsightError into a ToolError (ResourceError), so its text, which says what to do
    next, reaches the model. The SDK hides any other exception behind "Error executing tool X"."""
    import functools

    from mcp.server.mcpserver.exceptions import ResourceError, ToolError

    error_type = ToolError if kind == "tool" else ResourceError

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except HindsightError as error:
            log.info("%s refused: %s", function.__name__, error)
            raise error_type(str(error)) from None

    return wrapper


def build_server(store: Store, agent: str | None = None, tokens: Any = None, url: str | None = None) -> Any:
    """An MCPServer with hindsight's tools, resources and prompt, bound to ``store``.

    ``tokens`` (a ``TokenVerifier``) makes an HTTP server at ``url`` require a bearer token on every
    request and scope each request to its token's agent.
    """
    from mcp.server.mcpserver import Context, MCPServer, Resolve, Sample
    from mcp.types import CreateMessageResult, SamplingMessage, TextContent, ToolAnnotations

    from . import __version__

    memories = Memories(store, agent)
    auth: dict[str, Any] = {}
    if tokens is not None:
        from mcp.server.auth.settings import AuthSettings

        auth = {"token_verifier": tokens, "auth": AuthSettings(
            issuer_url=url, resource_server_url=f"{url}/mcp", validate_token_resource=False)}
    server = MCPServer("hindsight", version=__version__, instructions=INSTRUCTIONS, **auth)
    server.memories = memories  # type: ignore[attr-defined]

    def tool(**options: Any) -> Any:
        import inspect

        return lambda function: server.tool(description=inspect.cleandoc(function.__doc__ or ""), **options)(
            _model_errors(function))

    @tool(annotations=ToolAnnotations(title="Write a memory", read_only_hint=False, destructive_hint=False,
                                             idempotent_hint=True, open_world_hint=False))
    def memory_write(
        content: str, type: Optional[str] = None, agent_id: Optional[str] = None, task_id: Optional[str] = None,
        step: Optional[int] = None, trigger: Optional[str] = None, outcome: Optional[str] = None,
        resolution: Optional[str] = None, importance: Optional[float] = None, confidence: Optional[float] = None,
        tags: Optional[list[str]] = None, metadata: Optional[dict[str, Any]] = None,
        env: Optional[dict[str, str]] = None, source: Optional[str] = None, event_at: Optional[str] = None,
        valid_until: Optional[str] = None, ttl: Optional[str] = None, key: Optional[str] = None,
        merge: bool = True, supersedes: Optional[str] = None,
    ) -> StoredMemory:
        """Record one memory: an event (episodic), a fact or preference (semantic) or a how-to (procedural).

        For a failure give outcome="failure" and, once known, the fix in `resolution`. When a fact
        changed, pass the old memory's id in `supersedes`: the old one leaves search and stays as history.
        Retrying the same write returns the same memory (deduplicated=true); secrets are redacted
        (redactions counts them).
        """
        return memories.write(content, type=type, agent_id=agent_id, task_id=task_id, step=step, trigger=trigger,
                              outcome=outcome, resolution=resolution, importance=importance, confidence=confidence,
                              tags=tags or [], metadata=metadata or {}, env=env or {}, source=source,
                              event_at=event_at, valid_until=valid_until, ttl=ttl, key=key, merge=merge,
                              supersedes=supersedes)

    @tool(annotations=ToolAnnotations(title="Search memories", read_only_hint=True, open_world_hint=False))
    def memory_search(
        query: str, top_k: int = 5, budget_tokens: Optional[int] = None, agent_id: Optional[str] = None,
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
        return memories.search(query, agent_id=agent_id, top_k=top_k, budget_tokens=budget_tokens,
                               task_id=task_id, types=types, outcomes=outcomes, tags=tags, mode=mode,
                               env=env or {}, current_task=current_task, troubleshoot=troubleshoot,
                               include_archived=include_archived, **_parse_times(since, until))

    async def sampled_summary(task_id, since, until, ctx):  # noqa: ANN001, ANN202 (annotated below)
        """Ask the client's LLM for the summary when the client offers sampling; None otherwise."""
        import anyio

        capabilities = ctx.client_capabilities
        if capabilities is None or capabilities.sampling is None:
            return None
        try:
            times = _parse_times(since, until)
        except HindsightError:
            return None  # the tool reports the bad time itself
        request = await anyio.to_thread.run_sync(lambda: memories.summary_request(task_id, **times))
        if request is None:
            return None
        system, prompt = request
        return Sample([SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
                      max_tokens=600, system_prompt=system, temperature=0.2)

    # The SDK reads these annotations at registration; the MCP types are imported lazily, so they are
    # set as objects rather than written as (string) annotations that the module's globals cannot resolve.
    sampled_summary.__annotations__ = {"task_id": Optional[str], "since": Optional[str], "until": Optional[str],
                                       "ctx": Context}

    def memory_summarize(task_id=None, since=None, until=None, sampled=None):  # noqa: ANN001, ANN202
        """Summarize a task (or a time range) into one semantic memory linked to its sources: key points,
        outcomes, and every error with its fix. Rerunning updates the same summary. Call it when a task ends.
        If this client offers sampling, its LLM writes the summary; otherwise it is extractive."""
        text = sampled.content.text if sampled is not None and isinstance(sampled.content, TextContent) else None
        method = f"sampling:{sampled.model}" if text and text.strip() and sampled is not None else "extractive"
        return memories.summarize(task_id=task_id, **_parse_times(since, until), text=text, method=method)

    memory_summarize.__annotations__ = {
        "task_id": Optional[str], "since": Optional[str], "until": Optional[str],
        "sampled": Annotated[Optional[CreateMessageResult], Resolve(sampled_summary)], "return": SummaryOutput}
    tool(annotations=ToolAnnotations(title="Summarize a task", read_only_hint=False, destructive_hint=False,
                                     idempotent_hint=True, open_world_hint=False))(memory_summarize)

    @tool(annotations=ToolAnnotations(title="Consolidate episodes", read_only_hint=False, destructive_hint=False,
                                      idempotent_hint=True, open_world_hint=False))
    def memory_consolidate(dry_run: bool = False) -> ConsolidateOutput:
        """Turn repeated similar episodes into semantic pattern memories ("weather API 401 -> refresh the
        token"), each linked to its evidence with a confidence from it. Rerunning writes nothing new unless
        new evidence arrived; dry_run=true only shows the plan."""
        return memories.consolidate(dry_run)

    @tool(annotations=ToolAnnotations(title="Get a memory", read_only_hint=True, open_world_hint=False))
    def memory_get(id: str) -> Memory:
        """Get one memory by id (or a unique prefix of 8+ characters), with every field."""
        return memories.get(id)

    @tool(annotations=ToolAnnotations(title="Forget memories", read_only_hint=False, destructive_hint=True,
                                             idempotent_hint=True, open_world_hint=False))
    def memory_forget(ids: Optional[list[str]] = None, task_id: Optional[str] = None,
                      older_than: Optional[str] = None, expired: bool = False, hard: bool = False,
                      archive: bool = False, reason: Optional[str] = None) -> ForgetOutput:
        """Forget memories by id or by filter: a task, recorded longer ago than older_than (e.g. "30d"),
        or expired=true to purge memories past their TTL. Soft by default (hidden from search,
        restorable); archive=true keeps them in cold storage (search with include_archived=true);
        hard=true deletes them and every trace of their content for good. Returns how many changed."""
        return memories.forget(list(ids or []), task_id=task_id, older_than=older_than, expired=expired,
                               hard=hard, archive=archive, reason=reason)

    @server.resource("hindsight://memories/recent", name="recent-memories", mime_type="application/json",
                     description="The 20 most recent memories (this server's scope).")
    def recent_memories() -> str:
        import json

        return json.dumps([m.to_dict() for m in memories.recent(20)], ensure_ascii=False)

    def memory_resource(memory_id: str) -> str:
        import json

        return json.dumps(memories.get(memory_id).to_dict(), ensure_ascii=False)

    server.resource("hindsight://memory/{memory_id}", name="memory", mime_type="application/json",
                    description="One memory by id.")(_model_errors(memory_resource, "resource"))

    @server.prompt(name="recall", description="Turn a task description into a block of relevant memories.")
    def recall(task: str, budget_tokens: int = 400) -> str:
        result = memories.search(task, top_k=20, budget_tokens=int(budget_tokens))
        if not result.hits:
            return f"No memories relevant to this task were found.\n\nTask: {task}"
        return (f"Relevant memories from earlier work (most useful first):\n\n{result.context}\n\n"
                f"Task: {task}")

    return server


def configure_logging(log_file: Path | None) -> None:
    """Logs to stderr or a file, set up before the SDK's own default (which would also use stderr)."""
    handler: logging.Handler = logging.FileHandler(log_file, encoding="utf-8") if log_file else logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)


class TokenVerifier:
    """The SDK's ``TokenVerifier`` over a token file: a known token is an access token whose client is
    its agent."""

    def __init__(self, path: Path) -> None:
        from . import tokens

        self.entries = tokens.load(path)
        if not self.entries:
            raise InvalidInput(f"{path} holds no tokens; make one with `hindsight mcp token AGENT`.")

    @property
    def agents(self) -> list[str]:
        return sorted({e["agent"] for e in self.entries})

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        from .tokens import agent_of

        agent = agent_of(self.entries, token)
        return AccessToken(token=token, client_id=agent, scopes=[]) if agent is not None else None


def run(store: Store, *, agent: str | None, transport: str, host: str, port: int, log_file: Path | None,
        tokens: Path | None = None) -> None:
    """Serve until the client disconnects (stdio) or the process is stopped (http). With ``tokens``
    (a token file), the HTTP server answers only requests with one of its bearer tokens."""
    from .paths import private_files

    private_files()
    configure_logging(log_file)
    verifier = None
    if tokens is not None:
        verifier = TokenVerifier(tokens)
        log.info("bearer tokens required (%s); agents: %s", tokens, ", ".join(verifier.agents))
    server = build_server(store, agent, verifier, f"http://{host}:{port}")

    def warm_up() -> None:
        # While the client initialises; the first tool call waits for it rather than racing it.
        try:
            server.memories.warm_up()
        except HindsightError as error:
            log.warning("warm-up: %s", error)

    threading.Thread(target=warm_up, daemon=True, name="hindsight-warm-up").start()
    log.info("hindsight MCP server on %s (store %s%s)", transport, store.path,
             f", agent {agent}" if agent else "")
    if transport == "stdio":
        server.run()
        return
    import anyio
    import uvicorn

    app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    # log_config=None: uvicorn's access log joins ours (stderr or --log-file) instead of printing to stdout.
    config = uvicorn.Config(app, host=host, port=port, log_config=None, log_level="info")
    anyio.run(uvicorn.Server(config).serve)
