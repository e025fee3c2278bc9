"""A `hindsight mine` killed with SIGKILL resumes with exactly the missing memories; fixes are
linked across batches and across runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import transcript_fixtures as tf
from conftest import Cli
from transcript_fixtures import agents_fixture  # noqa: F401  (the `agents` fixture)

from hindsight_cli.models import Filters
from hindsight_cli.transcripts import miner

CWD = "/work/weather"
# Runs the real CLI with one seam held open: after the Nth state save (or the Nth committed batch
# of exchanges, before its state is saved; a batch's lessons, failed calls, are committed after its
# exchanges) it says so in a file and blocks until the test kills it.
DRIVER = """
import sys, threading
from pathlib import Path
from hindsight_cli.transcripts import miner, state
from hindsight_cli.store import Store
pause, ready, seam = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
miner.Miner.BATCH = 1
seen = [0]
def lessons(args):
    records = args[1] if len(args) > 1 and isinstance(args[1], list) else []
    return bool(records) and all(r.get("metadata", {}).get("signature") for r in records)
def held(original):
    def run(*args, **kwargs):
        result = original(*args, **kwargs)
        if lessons(args):
            return result
        seen[0] += 1
        if seen[0] == pause:
            ready.write_text("paused")
            threading.Event().wait()
        return result
    return run
if seam == "saved":
    state.save = held(state.save)
else:
    Store.import_records = held(Store.import_records)
sys.argv = ["hindsight", *sys.argv[4:]]
from hindsight_cli.cli import main
main()
"""


def _active(cli: Cli) -> list:
    """The mined exchanges (not the lessons mined beside them: a failed call of a known kind)."""
    mined = cli.open().list(Filters(tags=("mined",)), limit=None)
    return [m for m in mined if not m.metadata.get("signature")]


def _lessons(cli: Cli) -> list:
    mined = cli.open().list(Filters(tags=("mined",)), limit=None)
    return [m for m in mined if m.metadata.get("signature")]


@pytest.mark.slow
@pytest.mark.parametrize("seam", ["saved", "committed"])
def test_a_killed_run_resumes_with_exactly_the_missing_memories(
    cli: Cli, agents: Path, tmp_path: Path, seam: str
) -> None:
    tf.claude_code(agents, CWD)
    driver, ready = tmp_path / "driver.py", tmp_path / "ready"
    driver.write_text(DRIVER)
    command = [
        sys.executable,
        str(driver),
        "2",
        str(ready),
        seam,
        "mine",
        "claude-code",
        "--store",
        str(cli.store_path),
    ]
    process = subprocess.Popen(
        command, env=dict(os.environ), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 120
    while not ready.exists():
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        assert time.monotonic() < deadline, "the miner never reached the seam"
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    # two batches of one exchange committed before the kill
    assert len(_active(cli)) == 2
    result = cli("mine", "claude-code", "--json")
    assert result.exit_code == 0, result.stderr
    mined = _active(cli)
    assert sorted(m.step for m in mined) == [0, 1, 2, 3, 4]
    assert len({m.idempotency_key for m in mined}) == 5
    assert all(m.resolution for m in mined if m.outcome == "failure")


def test_a_fix_in_a_later_batch_supersedes_the_failure_it_fixes(
    cli: Cli, agents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(miner.Miner, "BATCH", 1)
    tf.claude_code(agents, CWD)
    assert cli("mine", "claude-code").exit_code == 0
    mined = sorted(_active(cli), key=lambda m: m.step)
    assert len(mined) == 5
    deploy = mined[2]
    # the commands from the failed deploy to the one that worked
    assert deploy.resolution == "./deploy.sh --env staging --ssh"
    assert [m.status for m in cli.open().history(deploy.id)] == ["superseded", "active"]


def test_a_fix_in_a_later_run_finds_the_failure_a_former_run_stored(cli: Cli, agents: Path) -> None:
    path = tf._jsonl(
        agents / ".claude" / "projects" / "-work-weather" / "s.jsonl",
        tf.claude_lines(tf.STORY[:3], "s", CWD),
    )
    assert cli("mine", "claude-code").exit_code == 0
    assert not sorted(_active(cli), key=lambda m: m.step)[2].resolution
    tf.append(path, tf.claude_lines(tf.STORY[3:], "s", CWD, offset=3))
    assert cli("mine", "claude-code").exit_code == 0
    mined = sorted(_active(cli), key=lambda m: m.step)
    assert len(mined) == 5 and "--ssh" in mined[2].resolution
