"""One entry the store refuses never turns a batch into a write per entry (review X).

Review U made `import --from`, `mine` and the hooks' ingestion skip an entry the store refuses: the
batch was refused whole, then every entry of it imported alone. An export (or a transcript, or the
hooks' spool) holding one such entry per batch of 1,000 made every entry its own transaction, audit
entry and index update: 2,000 mem0 entries of which 2 refused took 2 min 41 s against 10 s, and
left 1,998 `import` entries in the audit log against 2. Now the refused entry alone is left out and
the rest go in together, in one write (`core.transfer.import_records(refused=…)`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import transcript_fixtures as tf
from fake_embedder import FakeEmbedder
from transcript_fixtures import agents_fixture  # noqa: F401  (the `agents` fixture)
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.cli import app
from hindsight_cli.store import Store

MODEL = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
CWD = "/work/weather"
_RUN = "q" * 1_500_000


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), prog_name="hindsight")


def _import_writes(store: str) -> int:
    """How many writes imported memories: one audit entry each."""
    done = _invoke("log", "--action", "import", "-n", "0", "--nl", "--store", store)
    assert done.exit_code == 0, done.output
    return len(done.stdout.splitlines())


def _mem0(path: Path, odd: dict[str, Any], at: int = 20) -> Path:
    items = [
        {"id": f"m{i}", "memory": f"service {i} builds with flag --frob-{i}"} for i in range(40)
    ]
    items[at] = {**items[at], **odd}
    path.write_text(json.dumps(items))
    return path


def _notes(folder: Path) -> Path:
    folder.mkdir()
    for i in range(40):
        # (a note's title is cut to a label's length: the odd field is the observation's tags)
        fact = " ".join(f"#t{n}" for n in range(1001)) if i == 20 else f"fact {i}"
        (folder / f"n{i}.md").write_text(f"---\ntitle: note {i}\n---\n- [fact] {fact} #t\n")
    return folder


@pytest.mark.parametrize(
    ("kind", "make", "reason"),
    [
        ("mem0", lambda p: _mem0(p / "m.json", {"memory": _RUN}), "content is empty"),
        (
            "mem0",
            lambda p: _mem0(p / "m.json", {"metadata": {"m": "w " * 700_000}}),
            "metadata",
        ),
        # a second entry under the id of the first, saying something else
        ("mem0", lambda p: _mem0(p / "m.json", {"id": "m3"}), "both have id"),
        ("basic-memory", lambda p: _notes(p / "notes"), "at most 1,000 tags"),
    ],
    ids=["mem0-run", "mem0-metadata", "mem0-same-id", "basic-memory-tags"],
)
def test_one_refused_export_entry_leaves_the_others_one_write(
    tmp_path: Path, kind: str, make: Any, reason: str
) -> None:
    store, source = str(tmp_path / "s"), str(make(tmp_path))
    done = _invoke("import", source, "--from", kind, "--store", store, "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    counts = json.loads(done.stdout)
    assert counts["refused"] == 1 and counts["added"] == 39, counts
    assert reason in counts["first_refused"] and "Record " not in counts["first_refused"]
    # before: 39, one write per entry
    assert _import_writes(store) == 1
    assert len(Store(tmp_path / "s", embedder=MODEL).list(limit=None)) == 39
    again = _invoke("import", source, "--from", kind, "--store", store, "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["added"] == 0 and _import_writes(store) == 1


def test_one_refused_exchange_leaves_the_others_of_its_batch_one_write(
    tmp_path: Path, agents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tf.claude_code(agents, CWD)
    clean = str(tmp_path / "clean")
    assert _invoke("mine", "claude-code", "--store", clean).exit_code == 0
    tf.refuse_mined_at(monkeypatch, 1)
    store = str(tmp_path / "s")
    done = _invoke("mine", "claude-code", "--store", store, "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    assert json.loads(done.stdout)["total"]["refused"] == 1
    assert "skipped exchange 1: tag must be one line" in done.stderr
    # as many writes as without the odd exchange; before: one for each other exchange of its batch
    assert _import_writes(store) == _import_writes(clean)


def test_one_refused_spooled_event_leaves_the_others_one_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.core import events
    from hindsight_cli.storage import spool

    store = tmp_path / "s"
    assert _invoke("init", "--store", str(store)).exit_code == 0
    for i in range(4):
        text = f"POISON prompt {i}" if i == 2 else f"how do I ship release {i} of the train"
        line = {"id": f"e{i}", "kind": "prompt", "ts": "2026-12-06T10:00:00Z"}
        line.update(client="claude-code", session=f"s{i}", cwd=str(tmp_path), text=text)
        # as the prompt hook spools it
        spool.append(spool.spool_dir(store) / spool.EVENTS, line)
    made = events._prompt

    def prompt(line: Any) -> Any:
        record = made(line)
        if "POISON" in str(line.get("text")):
            # a field the store refuses
            record["tags"] = ["two\nlines"]
        return record

    monkeypatch.setattr(events, "_prompt", prompt)
    done = _invoke("hooks", "flush", "--store", str(store))
    assert done.exit_code == 0, done.output
    contents = [m.content for m in Store(store, embedder=MODEL).list(limit=None)]
    assert len(contents) == 3 and not [c for c in contents if "POISON" in c]
    rejected = (store / "spool" / "rejected.jsonl").read_text(encoding="utf-8")
    assert rejected.count("\n") == 1 and "POISON" in rejected and "one line" in rejected
    # before: one write for each other event
    assert _import_writes(str(store)) == 1
