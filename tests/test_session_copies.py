"""A conversation's values are held by each of its exchanges' memories at most a label's length
(review Q9).

A ChatGPT or Claude.ai conversation's title (a session's model, branch, project) was copied whole into
the metadata of every memory of its exchanges, and redacted and stored with each: a 291 KB ChatGPT
export of 200 exchanges under a 200 KB title took 65 s to import and stored the title 200 times
(a 4 MB export of a megabyte's title: gigabytes, hours). Now each memory holds at most 200 characters
of it, and a title that is a list or an object is left out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import export_fixtures as ex
import pytest
from typer.testing import CliRunner

from hindsight_cli.cli import app

LONG = "rotate the staging deploy key " * 400


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), prog_name="hindsight")


def _retitled(path: Path, field: str, title: Any) -> Path:
    conversations = json.loads(path.read_text(encoding="utf-8"))
    for conversation in conversations:
        if isinstance(conversation, dict):
            conversation[field] = title
    path.write_text(json.dumps(conversations), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("kind", "make", "field"),
    [("chatgpt", ex.chatgpt, "title"), ("claude", ex.claude_ai, "name")],
    ids=["chatgpt", "claude"],
)
@pytest.mark.parametrize(
    "title", [LONG, ["a", LONG] * 50, {"t": LONG}], ids=["text", "list", "object"]
)
def test_a_conversations_long_title_is_held_cut_by_each_memory(
    tmp_path: Path, kind: str, make: Any, field: str, title: Any
) -> None:
    store = str(tmp_path / "s")
    source = _retitled(make(tmp_path / "export.json"), field, title)
    done = _invoke("import", str(source), "--from", kind, "--store", store, "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    assert json.loads(done.stdout)["added"] >= 2, done.stdout
    listed = _invoke("list", "-n", "0", "--json", "--store", store)
    assert listed.exit_code == 0, listed.output
    memories = json.loads(listed.stdout)
    assert memories
    for memory in memories:
        held = memory["metadata"].get("title")
        if isinstance(title, str):
            assert isinstance(held, str) and LONG.startswith(held) and 0 < len(held) <= 200
        else:
            assert held is None, held
        assert len(json.dumps(memory["metadata"])) < 2_000
