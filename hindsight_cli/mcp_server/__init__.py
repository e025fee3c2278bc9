"""`hindsight mcp`: the MCP face over Store (``server``: the server, ``tools``: one function per
tool, ``memories``: the store operations they call, scoped per request; ``results``: the text a
model reads and the structured results, ``outputs``: their types; ``http``, ``guard``, ``sessions``:
the HTTP server, its Host/Origin checks and its sessions per agent; ``tokens``: its bearer tokens;
``stopping``: a stop signal's deadline).

The server's names load the MCP SDK when first used, so ``hindsight mcp token`` (which needs only
``tokens``) starts without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .http import TokenVerifier
    from .server import INSTRUCTIONS, build_server, configure_logging, run

__all__ = ["INSTRUCTIONS", "TokenVerifier", "build_server", "configure_logging", "run"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from . import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
