"""An Origin header no URL parser reads (``http://[::1``: an IPv6 address without its closing
bracket) to either HTTP server (review BU): refused as not one of the server's names, in one
line, never a 500 with a traceback in the server's log (``HostGuard._refuse`` built its advice from
the value with ``urlsplit``, which raises on it)."""

from __future__ import annotations

import logging

import httpx
import pytest

from hindsight_cli.serving.hostguard import HostGuard, host_policy

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _ok(scope: object, receive: object, send: object) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
    await send({"type": "http.response.body", "body": b"ok"})  # type: ignore[operator]


@pytest.mark.parametrize(
    "origin",
    ["http://[::1", "http://[::1:8765", "https://[", "http://x]"],
)
async def test_an_origin_no_parser_reads_is_refused_in_one_line(
    origin: str, caplog: pytest.LogCaptureFixture
) -> None:
    guard = HostGuard(_ok, host_policy("127.0.0.1"))
    transport = httpx.ASGITransport(app=guard, client=("127.0.0.1", 5000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
        with caplog.at_level(logging.WARNING):
            answer = await client.post("/mcp", headers={"origin": origin}, content=b"{}")
    assert answer.status_code == 403, answer.text
    assert answer.text.startswith(f"Origin {origin!r} is not one of this server's names")
    assert "--allowed-host NAME" in answer.text
    assert "Traceback" not in caplog.text
