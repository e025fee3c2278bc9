"""`hindsight mcp`: the MCP face over Store (``server``: the server, ``tools``: one function per tool,
``memories``: the store operations they call, scoped per request; ``outputs``: their result types)."""

from __future__ import annotations

from .server import INSTRUCTIONS, TokenVerifier, build_server, configure_logging, run

__all__ = ["INSTRUCTIONS", "TokenVerifier", "build_server", "configure_logging", "run"]
