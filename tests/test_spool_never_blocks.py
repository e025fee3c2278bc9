"""One spooled event that cannot become a memory is set aside, whatever fails on it; the events
after it are ingested and the spool drains (review F). Before, any exception but ``ValueError``,
``TypeError`` and ``OSError`` from one event stopped every later ingestion for good: the claimed
file stayed, and failed again at each ``hooks flush``, session end and MCP server start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_embedder import FakeEmbedder
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.cli import app
from hindsight_cli.store import Store

MODEL = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
LATER = "an innocent later prompt about the release train"


def _hook(store: Path, event: str, payload: dict[str, Any]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hindsight_cli", "hook", event, "--store", str(store)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def _contents(store: Path) -> list[str]:
    return sorted(m.content for m in Store(store, embedder=MODEL).list(limit=None))


def _flush(store: Path) -> Any:
    return CliRunner().invoke(app, ["hooks", "flush", "--store", str(store)])


def _drained(store: Path) -> bool:
    spool = store / "spool"
    return not (spool / "events.jsonl").exists() and not list(spool.glob("claimed-*"))


def _loop(tmp_path: Path) -> str:
    """A directory the agent worked in, then made a link to itself (``rm -r x; ln -s x x``)."""
    work = tmp_path / "repo"
    work.mkdir()
    (work / "x").symlink_to("x")
    return str(work / "x" / "src")


@pytest.mark.slow
@pytest.mark.parametrize("event", ["prompt", "tool-failure"])
def test_an_event_whose_directory_became_a_link_loop_never_blocks_the_spool(
    tmp_path: Path, event: str
) -> None:
    """Before: ``RuntimeError: Symlink loop from …`` (``Path.resolve`` of the event's directory)
    from every later ingestion; neither event was ever stored."""
    store = tmp_path / "s"
    cwd = _loop(tmp_path)
    first: dict[str, Any] = {"session_id": "s1", "cwd": cwd}
    if event == "prompt":
        first["prompt"] = "how do I rotate the staging deploy key"
    else:
        first.update(
            tool_name="Bash",
            tool_input={"command": "./deploy.sh --env staging"},
            error="Permission denied (publickey)",
        )
    _hook(store, event, first)
    _hook(store, "prompt", {"session_id": "s2", "cwd": str(tmp_path), "prompt": LATER})
    done = _flush(store)
    assert done.exit_code == 0, done.output
    assert _drained(store)
    stored = _contents(store)
    assert any(LATER in text for text in stored)
    assert len(stored) == 2
    again = _flush(store)
    assert again.exit_code == 0 and "Traceback" not in again.output


@pytest.mark.slow
def test_a_session_start_in_a_link_loop_still_answers(tmp_path: Path) -> None:
    """The session-start hook of a global store filters by the session's project: a directory in a
    link loop made it fail (logged, no context) with ``RuntimeError``."""
    home = Path(os.environ["HINDSIGHT_HOME"])
    store = home / "store"
    assert CliRunner().invoke(app, ["record", "deploys go through ./deploy.sh"]).exit_code == 0
    assert store.is_dir()
    done = subprocess.run(
        [sys.executable, "-m", "hindsight_cli", "hook", "session-start"],
        input=json.dumps({"session_id": "s1", "cwd": _loop(tmp_path), "source": "startup"}),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    logs = "".join(p.read_text(errors="replace") for p in home.rglob("hooks.log"))
    assert "RuntimeError" not in logs and "Symlink loop" not in logs, logs


@pytest.mark.parametrize("step", ["record", "import"])
def test_any_failure_on_one_event_sets_it_aside_and_the_rest_go_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """A stand-in for what no rule has met yet: turning one event into a record, or importing it,
    raises something other than the store's own errors."""
    from hindsight_cli.core import events

    store = tmp_path / "s"
    _hook(store, "prompt", {"session_id": "s1", "cwd": str(tmp_path), "prompt": "POISON prompt"})
    _hook(store, "prompt", {"session_id": "s2", "cwd": str(tmp_path), "prompt": LATER})
    if step == "record":
        made = events._prompt

        def prompt(line: Any) -> Any:
            if "POISON" in str(line.get("text")):
                raise KeyError("a value no rule met")
            return made(line)

        monkeypatch.setattr(events, "_prompt", prompt)
    else:
        imported = Store.import_records

        def import_records(self: Store, records: Any, *args: Any, **kwargs: Any) -> Any:
            if any("POISON" in str(r.get("content")) for r in records):
                raise RuntimeError("a value no rule met")
            return imported(self, records, *args, **kwargs)

        monkeypatch.setattr(Store, "import_records", import_records)
    done = _flush(store)
    assert done.exit_code == 0, done.output
    assert _drained(store)
    assert [text for text in _contents(store) if LATER in text]
    assert not [text for text in _contents(store) if "POISON" in text]
    rejected = (store / "spool" / "rejected.jsonl").read_text(encoding="utf-8")
    assert "POISON" in rejected and "a value no rule met" in rejected
