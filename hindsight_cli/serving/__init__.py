"""What the shared HTTP servers (``hindsight mcp --transport http``, ``hindsight ui``) need alike:
Host and Origin checks (``hostguard``) and worker threads of their own for reads and writes per
agent (``readers``)."""
