"""A memory takes at most 1,000 tags, whatever brings them (review Q9).

Tags were unbounded and kept unique by a list's `in` test: an export's record of 100,000 tags took
minutes to prepare under the store's lock (40,000 took 13 s, each doubling four times as long), a
later version added tags without end, and a basic-memory note's tags (or its title) were copied into
each of its observations' memories, a note of a million tags and a million observations a million
million copies. Now a record, an edit or a note past the bound is refused with what to do, and the
others of an import go in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from hindsight_cli.cli import app

TOO_MANY = [f"t{i}" for i in range(1001)]
ENOUGH = TOO_MANY[:1000]


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), prog_name="hindsight")


def _contents(store: str) -> list[str]:
    done = _invoke("list", "-n", "0", "--json", "--store", store)
    assert done.exit_code == 0, done.output
    return [m["content"] for m in json.loads(done.stdout)]


def test_an_export_record_of_too_many_tags_refuses_the_file_in_one_line(tmp_path: Path) -> None:
    store, export = str(tmp_path / "s"), tmp_path / "mem.jsonl"
    records = [
        {"content": "deploy failed because the key rotated", "type": "episodic"},
        {"content": "the staging box needs a reboot", "type": "episodic", "tags": TOO_MANY},
    ]
    export.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert _invoke("init", "--store", store).exit_code == 0
    done = _invoke("import", str(export), "--store", store)
    assert done.exit_code != 0 and "Traceback" not in done.output, done.output
    assert "at most 1,000 tags" in done.output and len(done.output.strip().splitlines()) == 1
    # one bad line refuses the whole file: nothing half-written
    assert _contents(store) == []
    export.write_text(json.dumps({**records[1], "tags": ENOUGH}) + "\n")
    assert _invoke("import", str(export), "--store", store).exit_code == 0
    assert _contents(store) == ["the staging box needs a reboot"]


def test_a_record_of_too_many_tags_is_a_usage_error(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    assert _invoke("init", "--store", store).exit_code == 0
    tags = [arg for tag in TOO_MANY for arg in ("--tag", tag)]
    done = _invoke("record", "the staging box needs a reboot", *tags, "--store", store)
    assert done.exit_code == 2 and "Traceback" not in done.output, done.output
    assert "at most 1,000 tags" in done.output
    assert _contents(store) == []


def test_versions_never_add_tags_past_the_bound(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    assert _invoke("init", "--store", store).exit_code == 0
    tags = [arg for tag in ENOUGH for arg in ("--tag", tag)]
    done = _invoke("record", "the staging box needs a reboot", *tags, "--store", store, "--json")
    assert done.exit_code == 0, done.output
    memory = json.loads(done.stdout)["id"]
    edited = _invoke("edit", memory, "--tag", "one-more", "--store", store)
    assert edited.exit_code == 2 and "at most 1,000 tags" in edited.output, edited.output
    shown = _invoke("show", memory, "--json", "--store", store)
    assert shown.exit_code == 0, shown.output
    assert "one-more" not in json.loads(shown.stdout)["tags"]


def test_an_other_tools_entry_of_too_many_tags_is_refused_and_counted(tmp_path: Path) -> None:
    store, source = str(tmp_path / "s"), tmp_path / "m.json"
    items = [
        {"id": f"m{i}", "memory": f"service {i} builds with flag --frob-{i}"} for i in range(5)
    ]
    items[2]["categories"] = TOO_MANY
    source.write_text(json.dumps(items))
    done = _invoke("import", str(source), "--from", "mem0", "--store", store, "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    counts = json.loads(done.stdout)
    assert counts["refused"] == 1 and counts["added"] == 4, counts
    assert "at most 1,000 tags" in counts["first_refused"]


def test_a_note_of_too_many_tags_is_unreadable_and_the_others_go_in(tmp_path: Path) -> None:
    store, folder = str(tmp_path / "s"), tmp_path / "notes"
    folder.mkdir()
    observations = "".join(f"- [fact] fact {i} of the many #x\n" for i in range(50))
    (folder / "many.md").write_text(
        f"---\ntitle: many\ntags: [{', '.join(TOO_MANY)}]\n---\n{observations}"
    )
    listed = "".join(f"  - {t}\n" for t in TOO_MANY)
    (folder / "listed.md").write_text(f"---\ntitle: listed\ntags:\n{listed}---\n{observations}")
    (folder / "long.md").write_text(f"---\npermalink: {'p' * 300}\n---\n{observations}")
    (folder / "fine.md").write_text(
        f"---\ntitle: {'a long title ' * 40}\ntags: [{', '.join(ENOUGH[:900])}]\n---\n"
        "- [fact] the build uses flag --frob #build\n"
    )
    done = _invoke("import", str(folder), "--from", "basic-memory", "--store", store, "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    assert json.loads(done.stdout)["added"] == 1, done.stdout
    (content,) = _contents(store)
    # the note's title is cut to a label's length in each of its memories
    assert content.endswith("[fact] the build uses flag --frob #build")
    assert len(content) < 300
