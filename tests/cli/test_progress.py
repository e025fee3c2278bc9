"""Each long phase of import, reindex and consolidate says what it does, from before the first batch
(issue 20). The bar itself draws only on a terminal, so these record what the CLI hands it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hindsight_cli.cli import render


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """What the CLI hands its progress bar: ("phase", text) and ("at", done, total), in order."""
    seen: list[tuple] = []
    monkeypatch.setattr(render.Bar, "phase", lambda self, text: seen.append(("phase", text)))
    monkeypatch.setattr(
        render.Bar, "__call__", lambda self, done, total: seen.append(("at", done, total))
    )
    return seen


def _phases(seen: list[tuple]) -> list[str]:
    return [event[1] for event in seen if event[0] == "phase"]


def test_import_names_its_phases_before_the_first_batch(
    cli, tmp_path: Path, shown: list[tuple]
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(
        "".join(
            json.dumps({"content": f"imported note number {i} about the build"}) + "\n"
            for i in range(3)
        )
    )
    result = cli("import", str(path))
    assert result.exit_code == 0, result.stderr
    phases = _phases(shown)
    assert phases[0] == "Checking 3 records"
    assert phases.index("Embedding and writing") > 0 and phases.count("Embedding and writing") == 1
    first_count = next(i for i, event in enumerate(shown) if event[0] == "at")
    # said before any count
    assert first_count > shown.index(("phase", "Checking 3 records"))
    assert shown[-1] == ("at", 3, 3)


def test_reindex_shows_the_index_build_phase(cli, shown: list[tuple], backend: str) -> None:
    for i in range(3):
        assert cli("record", f"a memory to re-embed, number {i}").exit_code == 0
    shown.clear()
    result = cli("reindex")
    assert result.exit_code == 0, result.stderr
    phases = _phases(shown)
    assert phases[:3] == [
        "Loading the embedding model",
        "Re-embedding",
        "Writing 3 memories' vectors to the ledger",
    ]
    # the LanceDB index is rebuilt last, and says so
    if backend == "local":
        assert phases[3:] == ["Rebuilding the search index"]
    assert ("at", 3, 3) in shown


def test_consolidate_names_its_phases_and_counts_the_episodes(cli, shown: list[tuple]) -> None:
    for text in (
        "the nightly export hit the API rate limit (429)",
        "the nightly export hit the API rate limit again",
        "nightly export: API rate limit 429 once more",
    ):
        cli("record", text, "--outcome", "failure", "--resolution", "added backoff", "--no-merge")
    shown.clear()
    dry = cli("consolidate", "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert _phases(shown) == ["Reading the episodic memories", "Grouping 3 similar episodes"]
    assert shown[-1] == ("at", 3, 3)
    shown.clear()
    assert cli("consolidate").exit_code == 0
    assert _phases(shown)[-1] == "Writing 1 pattern"
