"""One value of an export copied into each of many memories (review AC; Q9 bounded a note's title
and a transcript's session values): an mcp-memory entity's name and type in each of its
observations, a basic-memory note's tags in each of its observations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from hindsight_cli.cli import app
from hindsight_cli.store import Store


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), prog_name="hindsight")


def test_an_entitys_long_name_is_cut_in_each_of_its_observations(tmp_path: Path) -> None:
    """Before: a 20 KB name over 40 observations (a 21 KB line) became 40 memories of 20 KB each,
    in parts: 800 KB of memories, 80 embeddings."""
    export = tmp_path / "memory.json"
    name = "the payments service " * 1000
    observations = [f"runs on port {8000 + i}" for i in range(40)]
    entity = {"type": "entity", "name": name, "entityType": "service " * 500}
    lines = [
        json.dumps({**entity, "observations": observations}),
        json.dumps({"type": "entity", "name": "billing", "observations": ["uses stripe"]}),
    ]
    export.write_text("\n".join(lines) + "\n")
    store = str(tmp_path / "s")
    done = _invoke("import", str(export), "--from", "mcp-memory", "--store", store, "--json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["added"] == 41, done.stdout
    contents = [m.content for m in Store(store).list(limit=None)]
    assert len(contents) == 41 and max(len(c) for c in contents) < 500
    assert "billing (entity): uses stripe" in contents
    assert any(c.startswith("the payments service") and c.endswith("port 8039") for c in contents)
    # the same export again adds nothing: the keys are those of the whole name
    done = _invoke("import", str(export), "--from", "mcp-memory", "--store", store, "--json")
    assert json.loads(done.stdout)["added"] == 0, done.stdout


def test_a_notes_tags_copied_past_a_bound_make_it_unreadable(tmp_path: Path) -> None:
    """Before: a note of 990 tags and 5,000 one-word observations (80 KB) was 5,000 memories of
    990 tags each: 97 s and 190 MB to import (2,000 here)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    tags = ", ".join(f"t{i}" for i in range(990))
    observations = "".join(f"- #o{i}\n" for i in range(2000))
    (folder / "many.md").write_text(f"---\ntitle: many\ntags: [{tags}]\n---\n{observations}")
    few = "".join(f"- [fact] the build step {i} uses flag --frob #build\n" for i in range(3))
    (folder / "fine.md").write_text(f"---\ntitle: fine\ntags: [{tags}]\n---\n{few}")
    store = str(tmp_path / "s")
    done = _invoke("import", str(folder), "--from", "basic-memory", "--store", store, "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    # the note of a few observations goes in with its 990 tags; the other is unreadable
    assert json.loads(done.stdout)["added"] == 3, done.stdout
    listed = Store(store).list(limit=None)
    assert all("t989" in m.tags for m in listed)
