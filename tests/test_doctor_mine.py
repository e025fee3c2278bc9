"""`hindsight doctor mine`: which coding agents' histories exist here, and how much of each is
mined."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import transcript_fixtures as tf
from conftest import Cli
from transcript_fixtures import agents_fixture  # noqa: F401  (the `agents` fixture)

CWD = "/work/weather"


def _checks(cli: Cli) -> dict[str, dict]:
    result = cli("doctor", "mine", "--json")
    # warnings, never failures
    assert result.exit_code == 0, result.stdout + result.stderr
    return {c["id"]: c for c in json.loads(result.stdout)["checks"]}


def test_doctor_mine_reports_each_client_and_how_much_is_mined(cli: Cli, agents: Path) -> None:
    tf.claude_code(agents, CWD)
    tf.opencode(agents, CWD)
    (agents / ".claude" / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 7}))
    before = _checks(cli)
    assert before["mine.codex"]["status"] == "skip" and ".codex" in before["mine.codex"]["evidence"]
    claude = before["mine.claude-code"]
    assert claude["status"] == "warn" and "deletes transcripts after 7 days" in claude["summary"]
    assert "1 transcripts" in claude["evidence"] and "0% mined" in claude["evidence"]
    assert claude["fix"] == "run `hindsight mine claude-code` (or `hindsight mine --all`)"
    assert cli("mine", "claude-code").exit_code == 0
    after = _checks(cli)
    assert (
        after["mine.claude-code"]["status"] == "ok"
        and "100% mined" in after["mine.claude-code"]["evidence"]
    )
    assert (
        after["mine.opencode"]["status"] == "warn"
        and "10 messages" in after["mine.opencode"]["evidence"]
    )
    tf.append(
        next((agents / ".claude" / "projects").rglob("*.jsonl")),
        tf.claude_lines([tf.EXTRA], "x", CWD, offset=5),
    )
    # appended since: not all of it is mined
    assert _checks(cli)["mine.claude-code"]["status"] == "warn"


@pytest.mark.slow
@pytest.mark.no_store
def test_doctor_mine_loads_no_heavy_library(agents: Path, tmp_path: Path) -> None:
    tf.claude_code(agents, CWD)
    tf.opencode(agents, CWD)
    code = (
        "import sys, json\nimport hindsight_cli.doctor.mine_checks as m\nassert len(m.run()) == 5\n"
        "sys.stdout.write(json.dumps(sorted(sys.modules)))"
    )
    env = {**os.environ, "HOME": str(agents), "HINDSIGHT_HOME": str(tmp_path / "hh")}
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        ).stdout
    )
    assert not {"duckdb", "_duckdb", "lancedb", "fastembed", "onnxruntime", "mcp"} & {
        n.split(".")[0] for n in loaded
    }
