"""`hindsight mcp`: the MCP face over Store (``server``: the server, ``tools``: one function per
tool, ``memories``: the store operations they call, scoped per request; ``results``: the text a
model reads and the structured results, ``outputs``: their types; ``http``, ``guard``, ``sessions``:
the HTTP server, its Host/Origin checks and its sessions per agent; ``stopping``: a stop signal's
deadline)."""

from __future__ import annotations

from .server import INSTRUCTIONS, TokenVerifier, build_server, configure_logging, run

__all__ = ["INSTRUCTIONS", "TokenVerifier", "build_server", "configure_logging", "run"]
