"""Which tools a server offers (``hindsight mcp --tools search,write,get``) and how much of their
schemas it shows (``--schema full|compact``): a client pays for every listed tool's schema in its
context on every turn, so it can ask for fewer tools and shorter schemas. A compact schema lists each
tool's common arguments with one-sentence descriptions; the other arguments are still accepted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import BadUsage

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

TOOLS = ("write", "search", "summarize", "consolidate", "get", "forget")
SCHEMAS = ("full", "compact")
# what a compact schema lists of each tool's arguments
COMMON = {
    "memory_write": (
        "content",
        "id",
        "type",
        "task_id",
        "outcome",
        "resolution",
        "tags",
        "source",
        "supersedes",
    ),
    "memory_search": ("query", "top_k", "budget_tokens", "task_id", "types", "troubleshoot"),
    "memory_summarize": ("task_id", "since", "until"),
    "memory_consolidate": ("dry_run",),
    "memory_get": ("id", "budget_tokens"),
    "memory_forget": ("ids", "task_id", "older_than", "hard", "reason"),
}


def tool_names(given: str | Sequence[str] | None) -> tuple[str, ...]:
    """The tools ``--tools`` names (``search`` or ``memory_search``, comma-separated), in the
    server's order; every tool when none.

    Raises:
        BadUsage: a name that is no tool's.
    """
    if not given:
        return tuple(f"memory_{name}" for name in TOOLS)
    words = given.split(",") if isinstance(given, str) else list(given)
    chosen = set()
    for word in (w.strip() for w in words):
        short = word.removeprefix("memory_")
        if short not in TOOLS:
            raise BadUsage(
                f"No tool {word!r} in --tools: choose from {', '.join(TOOLS)} (comma-separated, "
                "e.g. --tools search,write,get)."
            )
        chosen.add(short)
    return tuple(f"memory_{name}" for name in TOOLS if name in chosen)


def check_schema(schema: str) -> str:
    if schema not in SCHEMAS:
        raise BadUsage(f"--schema must be one of {', '.join(SCHEMAS)}, not {schema!r}.")
    return schema


def first_sentence(text: str) -> str:
    """The first sentence of ``text``'s first paragraph, on one line."""
    paragraph = " ".join(text.strip().split("\n\n")[0].split())
    end = paragraph.find(". ")
    return paragraph if end < 0 else paragraph[: end + 1]


def _plain(schema: dict[str, Any]) -> dict[str, Any]:
    """A parameter's schema without its title and null default, ``X or null`` written as ``X``,
    and its description cut to a sentence."""
    shown = {k: v for k, v in schema.items() if k not in ("title", "default")}
    options = shown.pop("anyOf", None)
    if options is not None:
        kept = [option for option in options if option.get("type") != "null"]
        shown = {**(kept[0] if len(kept) == 1 else {"anyOf": kept}), **shown}
    if schema.get("default") not in (None, [], {}):
        shown["default"] = schema["default"]
    if "description" in shown:
        shown["description"] = first_sentence(shown["description"])
    return shown


def _stripped(schema: Any) -> Any:
    """An output schema without titles and descriptions."""
    if isinstance(schema, dict):
        return {k: _stripped(v) for k, v in schema.items() if k not in ("title", "description")}
    if isinstance(schema, list):
        return [_stripped(item) for item in schema]
    return schema


def apply(server: MCPServer, tools: Sequence[str], schema: str = "full") -> None:
    """Keep only ``tools`` on ``server`` (the others are neither listed nor callable); with
    ``schema="compact"``, list each with its common arguments and a one-sentence description."""
    manager = server._tool_manager
    for tool in manager.list_tools():
        if tool.name not in tools:
            server.remove_tool(tool.name)
            continue
        if schema != "compact":
            continue
        tool.description = first_sentence(tool.description)
        common = COMMON.get(tool.name)
        properties = tool.parameters.get("properties", {})
        tool.parameters = {
            **{k: v for k, v in tool.parameters.items() if k not in ("title", "properties")},
            "properties": {
                name: _plain(value)
                for name, value in properties.items()
                if common is None or name in common
            },
        }
        if tool.fn_metadata.output_schema is not None:
            tool.fn_metadata.output_schema = _stripped(tool.fn_metadata.output_schema)
            tool.__dict__.pop("output_schema", None)
