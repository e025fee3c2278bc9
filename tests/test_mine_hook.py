"""`transcripts.incremental.mine_transcript` and `pending`: what the Stop / SessionEnd hook calls on the
current transcript, incrementally, and cheaply when nothing is new."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import transcript_fixtures as tf

from hindsight_cli.models import Filters
from hindsight_cli.store import Store
from hindsight_cli.transcripts.incremental import mine_transcript, pending

CWD = "/work/weather"


def test_the_hook_mines_the_whole_exchange_of_the_session_as_it_goes(
    store: Store, tmp_path: Path
) -> None:
    path = tf._jsonl(tmp_path / "s.jsonl", tf.claude_lines(tf.STORY[:2], "live", CWD))
    assert pending(store.path, path)
    first = mine_transcript(store, path)
    # the session-end hook summarises, not every stop
    lessons = [m for m in store.list(limit=None) if m.metadata.get("signature")]
    assert (first.exchanges, first.added, first.lessons, first.summaries) == (2, 2, len(lessons), 0)
    assert not pending(store.path, path)
    tf.append(path, tf.claude_lines(tf.STORY[2:], "live", CWD, offset=2))
    assert pending(store.path, path)
    second = mine_transcript(store, path)
    # three exchanges and the deploy's lesson; the test run was fixed in the first call
    assert (second.added, second.lessons, second.fixes) == (3, 1, 1)
    mined = store.list(Filters(task_id="live", tags=("mined",)), limit=None)
    assert sorted(m.step for m in mined if not m.metadata.get("signature")) == [0, 1, 2, 3, 4]
    every = store.list(Filters(task_id="live"), limit=None)
    [deploy] = [m for m in every if m.metadata.get("family") == "deploy.sh"]
    assert deploy.resolution == "./deploy.sh --env staging --ssh"
    # nothing new: nothing to summarise
    assert mine_transcript(store, path, summaries=True).summaries == 0


@pytest.mark.slow
def test_pending_opens_no_store_and_loads_no_heavy_library(store: Store, tmp_path: Path) -> None:
    path = tf._jsonl(tmp_path / "s.jsonl", tf.claude_lines(tf.STORY[:1], "live", CWD))
    mine_transcript(store, path)
    code = (
        f"import sys, json\nfrom hindsight_cli.transcripts.incremental import pending\n"
        f"assert pending({str(store.path)!r}, {str(path)!r}) is False\n"
        "sys.stdout.write(json.dumps(sorted(sys.modules)))"
    )
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
    )
    assert not {"duckdb", "_duckdb", "lancedb", "fastembed", "onnxruntime", "psycopg"} & {
        n.split(".")[0] for n in loaded
    }


def test_the_session_end_hook_mines_the_transcript_it_is_given(tmp_path: Path) -> None:
    """Through the hook entry point, as Claude Code calls it: the Stop event spools the transcript's
    path, SessionEnd ingests the spool and mines the transcript, so the session's whole exchange is
    kept."""
    from hindsight_cli import hooks

    project = tmp_path / "weather"
    (project / ".hindsight").mkdir(parents=True)
    # the default model, as the hook's own store has
    store = Store(project / ".hindsight")
    store.init()
    path = tf._jsonl(tmp_path / "hooked.jsonl", tf.claude_lines(tf.STORY, "hooked", CWD))
    for event in ("Stop", "SessionEnd"):
        payload = {
            "session_id": "hooked",
            "transcript_path": str(path),
            "cwd": str(project),
            "hook_event_name": event,
        }
        out, ok = hooks.run(event, "claude-code", json.dumps(payload), str(project / ".hindsight"))
        assert ok, out
    mined = store.list(Filters(task_id="hooked", tags=("mined",)), limit=None)
    exchanges = [m for m in mined if not m.metadata.get("signature")]
    assert len(exchanges) == len(tf.STORY) and not pending(store.path, path)
