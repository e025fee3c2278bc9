"""Whether an HTTP MCP server answers: the container's health check, without curl.

One ``GET /mcp`` on the address given (loopback by default, a name the server always accepts). Any
HTTP status below 500 means the server is up: a request without a token gets 401, one without an
MCP session 400 or 406. Nothing here needs the MCP SDK.
"""

from __future__ import annotations

import http.client

from ..errors import HindsightError
from ..timeutil import check_wait


def probe(host: str, port: int, timeout: float) -> str:
    """A line saying the server answered, or ``HindsightError`` saying what went wrong."""
    check_wait(timeout)
    url = f"http://{host}:{port}/mcp"
    connection = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        connection.request("GET", "/mcp", headers={"Accept": "text/event-stream"})
        status = connection.getresponse().status
    except (OSError, http.client.HTTPException) as error:
        raise HindsightError(
            f"Nothing answers at {url} ({error or type(error).__name__}); is `hindsight mcp "
            f"--transport http --port {port}` running?"
        ) from None
    finally:
        connection.close()
    if status >= 500:
        raise HindsightError(
            f"The server at {url} answers HTTP {status}; its log (stderr) says why."
        )
    return f"The MCP server at {url} answers (HTTP {status})."
