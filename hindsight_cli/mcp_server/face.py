"""``HindsightServer``: the SDK's ``MCPServer`` with one boundary for what a client sends and what the
server says back. Every tool's and prompt's arguments are checked here (an unknown argument is
named, a wrong value is one sentence, ``arguments``), the core's messages reach a model in the
tool's argument names, and what the server logs while serving a request is sent to a client that
asked for it with ``logging/setLevel``, at that level and above."""

from __future__ import annotations

import contextvars
import logging
import warnings
from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import (
    ResourceError,
    ResourceNotFoundError,
    ToolError,
    UnexpectedResourceError,
    UnexpectedToolError,
)
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    LOG_LEVEL_META_KEY,
    CallToolResult,
    EmptyResult,
    GetPromptResult,
    InputRequiredResult,
    SetLevelRequestParams,
)
from pydantic import ValidationError

from ..errors import HindsightError, MemoryNotFound
from .arguments import explain, tool_words, unknown

# RFC 5424 levels, least severe first (the protocol's LoggingLevel)
LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_FROM_PYTHON = {
    logging.DEBUG: "debug",
    logging.INFO: "info",
    logging.WARNING: "warning",
    logging.ERROR: "error",
    logging.CRITICAL: "critical",
}
# the connection's level, in the SDK's per-connection state
_LEVEL_KEY = "hindsight.log_level"
_heard: contextvars.ContextVar[list[logging.LogRecord] | None] = contextvars.ContextVar(
    "hindsight_heard", default=None
)


class _Listener(logging.Handler):
    """Keeps the records of the request being served (tools run in worker threads, which copy the
    request's context)."""

    def emit(self, record: logging.LogRecord) -> None:
        heard = _heard.get()
        if heard is not None:
            heard.append(record)


def _level_of(record: logging.LogRecord) -> str:
    return next(
        (
            name
            for number, name in sorted(_FROM_PYTHON.items(), reverse=True)
            if record.levelno >= number
        ),
        "debug",
    )


def _cause(error: BaseException, kind: type[BaseException]) -> BaseException | None:
    """The first exception of ``kind`` in ``error``'s chain of causes."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, kind):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


class HindsightServer(MCPServer):
    """An ``MCPServer`` whose tools and prompts answer a bad call with one sentence a model can act
    on, and which serves ``logging/setLevel``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lowlevel_server.add_request_handler(
            "logging/setLevel", SetLevelRequestParams, self._set_level
        )
        logger = logging.getLogger("hindsight")
        # one per process, however many servers it builds
        if not any(isinstance(handler, _Listener) for handler in logger.handlers):
            logger.addHandler(_Listener(logging.DEBUG))

    async def _set_level(
        self, ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams
    ) -> EmptyResult:
        state = _connection_state(ctx)
        if state is not None:
            state[_LEVEL_KEY] = params.level
        _let_through(params.level)
        return EmptyResult()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            offered = ", ".join(t.name for t in self._tool_manager.list_tools())
            raise ToolError(f"Unknown tool: {name}; this server offers {offered}.")
        fields = tool.fn_metadata.arg_model.model_fields
        # the names on the wire (an alias where the SDK gave one), every argument, listed or not
        accepted = [field.alias or name for name, field in fields.items()]
        problem = unknown(name, arguments, accepted)
        if problem is not None:
            raise ToolError(problem)
        heard: list[logging.LogRecord] = []
        level = _asked_level(context)
        if level is not None:
            _let_through(level)
        token = _heard.set(heard)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as error:
            if isinstance(error.__cause__, ValidationError):
                properties = tool.fn_metadata.arg_model.model_json_schema().get("properties")
                raise ToolError(
                    explain(name, error.__cause__.errors(), properties)
                ) from error.__cause__
            raise ToolError(tool_words(str(error), accepted)) from error.__cause__
        finally:
            _heard.reset(token)
            await _send_heard(context, heard)

    async def read_resource(self, uri: Any, context: Context[Any, Any] | None = None) -> Any:
        try:
            return await super().read_resource(uri, context)
        except (UnexpectedResourceError, ResourceNotFoundError):
            raise
        except ResourceError as error:
            # an unknown memory is a resource not found (INVALID_PARAMS), not a server error
            kind = ResourceNotFoundError if _cause(error, MemoryNotFound) else ResourceError
            raise kind(tool_words(str(error), ())) from None

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[Any, Any] | None = None,
    ) -> GetPromptResult | InputRequiredResult:
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            offered = ", ".join(p.name for p in self._prompt_manager.list_prompts())
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name}; this server offers {offered}.")
        given = arguments or {}
        accepted = [argument.name for argument in prompt.arguments or []]
        what = f"the prompt {name}"
        problem = unknown(what, given, accepted)
        missing = [a.name for a in prompt.arguments or [] if a.required and a.name not in given]
        if problem is None and missing:
            problem = explain(
                what,
                [
                    {"type": "missing", "loc": (m,), "ctx": {"expected": "a string"}}
                    for m in missing
                ],
            )
        if problem is not None:
            raise MCPError(INVALID_PARAMS, problem)
        try:
            return await super().get_prompt(name, arguments, context)
        except ValueError as error:
            invalid = _cause(error, ValidationError)
            if isinstance(invalid, ValidationError):
                raise MCPError(INVALID_PARAMS, explain(what, invalid.errors())) from None
            refused = _cause(error, HindsightError)
            if refused is not None:
                raise MCPError(INVALID_PARAMS, tool_words(str(refused), accepted)) from None
            raise


def _connection_state(ctx: ServerRequestContext[Any, Any]) -> dict[str, Any] | None:
    # the SDK keeps per-connection scratch state on the session's connection
    connection = getattr(ctx.session, "_connection", None)
    state = getattr(connection, "state", None)
    return state if isinstance(state, dict) else None


def _asked_level(context: Context[Any, Any] | None) -> str | None:
    """The level the client asked for: a 2026-07-28 request in its own _meta, an older connection
    with logging/setLevel; None (send nothing) when it asked for none."""
    if context is None:
        return None
    try:
        ctx = context.request_context
    except ValueError:
        # called outside a request (the Python API's MCPServer.call_tool)
        return None
    state = _connection_state(ctx)
    level = (ctx.meta or {}).get(LOG_LEVEL_META_KEY) or (
        state.get(_LEVEL_KEY) if state is not None else None
    )
    return level if level in LEVELS else None


def _let_through(level: str) -> None:
    """Records below the logger's level are never made: lower hindsight's loggers to ``level``
    when it is below theirs. The server's own log keeps its level on its handler
    (configure_logging)."""
    wanted = max(
        (
            number
            for number, name in _FROM_PYTHON.items()
            if LEVELS.index(name) <= LEVELS.index(level)
        ),
        default=logging.DEBUG,
    )
    logger = logging.getLogger("hindsight")
    if logger.getEffectiveLevel() > wanted:
        logger.setLevel(wanted)


async def _send_heard(context: Context[Any, Any] | None, heard: list[logging.LogRecord]) -> None:
    """What the server logged while serving the request, sent to a client that asked for a level,
    at that level and above."""
    level = _asked_level(context)
    if not heard or level is None or context is None:
        return
    ctx = context.request_context
    floor = LEVELS.index(level)
    with warnings.catch_warnings():
        # the SDK marks the logging capability deprecated (SEP-2577); clients still ask for it
        warnings.simplefilter("ignore")
        for record in heard:
            name = _level_of(record)
            if LEVELS.index(name) >= floor:
                await ctx.session.send_log_message(
                    name,  # type: ignore[arg-type]
                    record.getMessage(),
                    logger=record.name,
                    related_request_id=ctx.request_id,
                )
