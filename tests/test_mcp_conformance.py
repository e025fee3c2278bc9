"""The official MCP conformance suite (npm, pinned) against `hindsight mcp --transport http`: every
generic server scenario passes. The suite's other scenarios call tools, resources and prompts of
its own reference server (``test_simple_text``, ``test://static-text``, …), which hindsight does not
have."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcp_http import free_port, listening, wait_for

NPX = shutil.which("npx")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NPX is None, reason="needs Node's npx (the CI machine has it)"),
]
SUITE = "@modelcontextprotocol/conformance@0.1.10"
GENERIC = (
    "server-initialize",
    "ping",
    "logging-set-level",
    "completion-complete",
    "tools-list",
    "resources-list",
    "prompts-list",
    "server-sse-multiple-streams",
)


def _results(out: Path) -> dict[str, list[dict]]:
    """Each scenario's checks, from the suite's ``-o`` directory (``server-SCENARIO-TIME/``)."""
    found: dict[str, list[dict]] = {}
    for checks in out.glob("server-*/checks.json"):
        name = checks.parent.name.removeprefix("server-").rsplit("-", 6)[0]
        found[name] = json.loads(checks.read_text())
    return found


def test_the_generic_server_scenarios_pass(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "mcp.log"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hindsight_cli",
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            "--store",
            str(tmp_path / "store"),
            "--log-file",
            str(log),
        ],
        env={**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    out = tmp_path / "results"
    try:
        wait_for(lambda: listening(port) or server.poll() is not None, "the server to listen")
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        for scenario in GENERIC:
            subprocess.run(
                [
                    str(NPX),
                    "-y",
                    SUITE,
                    "server",
                    "--url",
                    f"http://127.0.0.1:{port}/mcp",
                    "--scenario",
                    scenario,
                    "-o",
                    str(out),
                ],
                capture_output=True,
                text=True,
                timeout=300,
                cwd=tmp_path,
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
    results = _results(out)
    failed = {
        name: [c.get("errorMessage") for c in checks if c["status"] == "FAILURE"]
        for name, checks in results.items()
    }
    assert sorted(results) == sorted(GENERIC), log.read_text()[-2000:]
    assert {name: errors for name, errors in failed.items() if errors} == {}
    assert all(checks for checks in results.values())
