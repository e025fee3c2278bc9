"""A forgotten command among the calls a spool line carries (review BU2).

A success's line names the failures it fixed, each with the commands that led there
(``fixes[].fix``), and an open failure keeps the calls after it (``trail``): up to ten commands
beside the line's own. The spool scrub judged a line by its own words only, so a hard-forgotten
failure's command, one call of another failure's trail, stayed in the spool, and the next
ingestion wrote it back as that failure's resolution. The mining state's open failures the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.models import Filters
from hindsight_cli.store import Store
from tests import hook_calls

pytestmark = pytest.mark.local_only

FORGOTTEN = "quixoticwidget"
STEP = f"pip install {FORGOTTEN}"


def _held(store_dir: Path) -> list[str]:
    return sorted(
        str(p.relative_to(store_dir))
        for p in store_dir.rglob("*")
        if p.is_file() and FORGOTTEN.encode() in p.read_bytes()
    )


def _bash(project: Path, command: str, error: str | None = None) -> None:
    if error is None:
        hook_calls.run(
            project,
            "PostToolUse",
            "s1",
            tool_name="Bash",
            tool_input={"command": command},
            tool_response={"stdout": "ok", "stderr": ""},
        )
    else:
        hook_calls.run(
            project,
            "PostToolUseFailure",
            "s1",
            tool_name="Bash",
            tool_input={"command": command},
            error=error,
        )


def _forget_step_failure(store: Store) -> None:
    [step] = [m for m in store.list(limit=None) if FORGOTTEN in m.content]
    store.forget([step.id], hard=True)


@pytest.mark.parametrize("fixed_before_the_forget", [True, False])
def test_a_forgotten_command_in_another_failures_trail_leaves_the_store(
    project: Path, fixed_before_the_forget: bool
) -> None:
    """The pytest run failed; its trail then holds a pip install that failed too (another family,
    its own memory), which the user forgets for good: the success's line (fixed before the forget)
    or the open failure's trail (fixed after) kept the command, and the fix brought it back."""
    store_dir = project / ".hindsight"
    store = Store(store_dir, embedder=FakeEmbedder())
    hook_calls.fail(project, "s1")
    _bash(project, STEP, error="Exit code 1\nERROR: No matching distribution found")
    store.ingest_events()
    if fixed_before_the_forget:
        _bash(project, hook_calls.FAILED)
    # the ledger (the pip failure) and the spool (the pytest failure's trail) hold the command
    assert len(_held(store_dir)) == 2
    _forget_step_failure(store)
    assert _held(store_dir) == []
    if not fixed_before_the_forget:
        _bash(project, hook_calls.FAILED)
    store.ingest_events()
    rows = store.list(Filters(statuses=None), limit=None)
    assert not [m.id for m in rows if FORGOTTEN in m.content + (m.resolution or "")]
    assert _held(store_dir) == []
    # the pytest failure stays, unfixed: its fix's commands held the forgotten one
    assert [m for m in rows if "ModuleNotFoundError" in m.content]


def test_the_mining_states_open_failures_lose_a_forgotten_command_of_their_trail(
    project: Path,
) -> None:
    store_dir = project / ".hindsight"
    store = Store(store_dir, embedder=FakeEmbedder())
    note = store.record(f"{STEP} failed: no matching distribution").memory
    mined = store_dir / "mined"
    mined.mkdir(mode=0o700)
    trail = ["ls", STEP, "git status", "make", "cat setup.cfg"]
    state = {"open": [{"ref": "r1", "tool": "Bash", "args": "pytest", "trail": trail}]}
    (mined / "u.json").write_text(json.dumps(state))
    (mined / "u.json").chmod(0o600)
    store.forget([note.id], hard=True)
    assert _held(store_dir) == []
    assert json.loads((mined / "u.json").read_text())["open"] == []


def test_a_one_word_call_of_a_trail_is_no_forgotten_command(project: Path) -> None:
    """A memory that names ``make`` takes no fix whose commands hold a bare ``make``."""
    store_dir = project / ".hindsight"
    store = Store(store_dir, embedder=FakeEmbedder())
    note = store.record(f"run make in {FORGOTTEN} before the release").memory
    hook_calls.fail(project, "s1")
    store.ingest_events()
    _bash(project, "make")
    _bash(project, f"pip install requests && {hook_calls.FAILED}")
    store.forget([note.id], hard=True)
    assert store.ingest_events()["fixed"] == 1
    assert [m for m in store.list(limit=None) if "make" in (m.resolution or "")]
