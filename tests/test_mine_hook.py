"""`transcripts.miner.mine_transcript` and `pending`: what the Stop / SessionEnd hook calls on the current
transcript, incrementally, and cheaply when nothing is new."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import transcript_fixtures as tf
from hindsight_cli.models import Filters
from hindsight_cli.store import Store
from hindsight_cli.transcripts.miner import mine_transcript, pending

CWD = "/work/weather"


def test_the_hook_mines_the_whole_exchange_of_the_session_as_it_goes(store: Store, tmp_path: Path) -> None:
    path = tf._jsonl(tmp_path / "s.jsonl", tf.claude_lines(tf.STORY[:2], "live", CWD))
    assert pending(store.path, path)
    first = mine_transcript(store, path)
    assert (first.added, first.summaries) == (2, 0)  # the session-end hook summarises, not every stop
    assert not pending(store.path, path)
    tf.append(path, tf.claude_lines(tf.STORY[2:], "live", CWD, offset=2))
    assert pending(store.path, path)
    second = mine_transcript(store, path)
    assert second.added == 3 and second.fixes == 1  # the deploy; the test run was fixed in the first call
    mined = store.list(Filters(task_id="live", tags=("mined",)), limit=None)
    assert sorted(m.step for m in mined) == [0, 1, 2, 3, 4]
    assert mine_transcript(store, path, summaries=True).summaries == 0  # nothing new: nothing to summarise


def test_pending_opens_no_store_and_loads_no_heavy_library(store: Store, tmp_path: Path) -> None:
    path = tf._jsonl(tmp_path / "s.jsonl", tf.claude_lines(tf.STORY[:1], "live", CWD))
    mine_transcript(store, path)
    code = (f"import sys, json\nfrom hindsight_cli.transcripts.miner import pending\n"
            f"assert pending({str(store.path)!r}, {str(path)!r}) is False\n"
            "sys.stdout.write(json.dumps(sorted(sys.modules)))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                       check=True).stdout)
    assert not {"duckdb", "lancedb", "fastembed", "onnxruntime", "psycopg"} & {n.split(".")[0] for n in loaded}
