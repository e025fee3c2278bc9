"""Bringing the past in: coding-agent transcripts (``hindsight mine``) and other memory tools'
exports (``hindsight import --from``) as memories, through the public ``Store`` API only.

One reader module per transcript format (``claude_code``, ``codex``, ``gemini``, ``opencode``,
``mini_swe_agent``), each a streaming reader of ``Exchange`` objects with the same few names
(``NAME``, ``TITLE``, ``HINT``, ``default_roots``, ``units``, ``sniff``, ``read``, and ``check``
when its cursor is not a byte offset); ``miner`` writes them incrementally; ``chats`` and
``notes`` read the one-shot exports. docs/import.md lists, per source, where the files are, which
fields are read and which client versions were checked.
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing (a recording hook imports this package)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

CLIENTS = {
    "claude-code": "claude_code",
    "codex": "codex",
    "gemini": "gemini",
    "opencode": "opencode",
    "mini-swe-agent": "mini_swe_agent",
}
IMPORTS = ("chatgpt", "claude", "mcp-memory", "basic-memory", "mem0", "jsonl")


def reader(client: str) -> ModuleType:
    """The reader module of a coding agent (``claude-code``, ``codex``, ``gemini``, ``opencode``,
    ``mini-swe-agent``)."""
    # here, not at the top: a recording hook reads ``transcripts.calls`` and never a reader, and
    # importlib (with warnings) cost it 1 ms
    import importlib

    return importlib.import_module(f"{__name__}.{CLIENTS[client]}")
