"""The official MCP Inspector CLI (npm) against `hindsight mcp`, as a user would verify a set-up."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NPX = shutil.which("npx")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(NPX is None, reason="needs Node's npx (the CI machine has it)"),
]
INSPECTOR = "@modelcontextprotocol/inspector@2"


def _inspect(tmp_path: Path, *method: str) -> dict:
    log = tmp_path / "server.log"
    server = [
        sys.executable,
        "-m",
        "hindsight_cli",
        "mcp",
        "--store",
        str(tmp_path / "store"),
        "--log-file",
        str(log),
    ]
    result = subprocess.run(
        # The server's own flags come before `--`; the Inspector's (including -e) after it.
        [
            NPX,
            "-y",
            INSPECTOR,
            "--cli",
            *server,
            "--",
            "-e",
            f"HINDSIGHT_HOME={tmp_path / 'home'}",
            *method,
            "--format",
            "json",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, (
        result.stdout[-2000:],
        log.read_text()[-4000:] if log.exists() else "",
    )
    return json.loads(result.stdout)["result"]


def test_inspector_lists_tools_and_round_trips_a_call(tmp_path: Path) -> None:
    tools = {t["name"]: t for t in _inspect(tmp_path, "--method", "tools/list")["tools"]}
    assert {"memory_write", "memory_search", "memory_get", "memory_forget"} <= set(tools)
    assert tools["memory_search"]["annotations"]["readOnlyHint"] is True
    written = _inspect(
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "memory_write",
        "--tool-arg",
        "content=inspector says the cache key needs the lockfile hash",
    )
    assert written["isError"] is False and written["structuredContent"]["deduplicated"] is False
    assert written["content"] == [
        {"type": "text", "text": f"Recorded {written['structuredContent']['id']}."}
    ]
    found = _inspect(
        tmp_path,
        "--method",
        "tools/call",
        "--tool-name",
        "memory_search",
        "--tool-arg",
        "query=cache key lockfile",
        "--tool-arg",
        "budget_tokens=60",
    )
    assert found["structuredContent"]["hits"][0]["id"] == written["structuredContent"]["id"]
    text = found["content"][0]["text"]
    assert text.startswith("[hindsight: 1 memory") and text.endswith(
        written["structuredContent"]["id"]
    )
    assert "content_hash" not in found["structuredContent"]["hits"][0]
