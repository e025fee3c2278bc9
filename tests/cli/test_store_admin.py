"""init, where, stats, export, import, reindex through the CLI."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest


def test_init_creates_a_private_project_store_with_gitignore(cli, _isolated: Path) -> None:
    result = cli("init", store=False)
    target = _isolated / ".hindsight"
    assert result.exit_code == 0 and result.stdout.strip() == str(target)
    # nothing was recorded anywhere before: nothing to point at
    assert "global store" not in result.stderr
    assert (target / ".gitignore").read_text() == "*\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o700
    assert stat.S_IMODE((target / "ledger.duckdb").stat().st_mode) == 0o600
    again = cli("init", store=False)
    assert again.exit_code == 0 and "Already a store" in again.stderr


def test_where_explains_the_choice(
    cli, _isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(os.environ["HINDSIGHT_HOME"])
    data = json.loads(cli("where", "--json").stdout)
    assert data == {
        "store": str((home / "store").resolve()),
        "reason": "global",
        "exists": False,
        "why": "global store (no --store, no $HINDSIGHT_STORE, no .hindsight/ found)",
        "backend": "local",
        "database": str((home / "store" / "ledger.duckdb").resolve()),
    }
    cli("init", store=False)
    nested = _isolated / "src" / "pkg"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    data = json.loads(cli("where", "--json").stdout)
    assert (data["store"], data["reason"], data["exists"]) == (
        str(_isolated / ".hindsight"),
        "project",
        True,
    )
    monkeypatch.setenv("HINDSIGHT_STORE", str(tmp_path / "env"))
    assert json.loads(cli("where", "--json").stdout)["reason"] == "env"
    flagged = cli("where", "--store", str(tmp_path / "flag"))
    assert (
        flagged.stdout.strip() == str(tmp_path / "flag") and "chosen with --store" in flagged.stderr
    )


def test_record_without_a_store_creates_the_global_one(cli) -> None:
    result = cli("record", "first memory anywhere", store=False)
    assert result.exit_code == 0
    home = Path(os.environ["HINDSIGHT_HOME"])
    assert (home / "store" / "ledger.duckdb").exists()
    hits = json.loads(cli("search", "first memory", "--json", store=False).stdout)
    assert [h["content"] for h in hits] == ["first memory anywhere"]
    # the README's order: the first record says where it went and how to have a project store
    assert f"It is in the global store {home / 'store'}, made now" in result.stderr
    assert "`hindsight init` makes one for this project" in result.stderr
    again = cli("record", "second memory anywhere", "--json", store=False)
    assert again.exit_code == 0 and "global store" not in again.stderr


def test_init_after_records_in_the_global_store_says_where_they_are(cli, _isolated: Path) -> None:
    for text in ("the deploy key lives in the vault", "staging runs on port 8443"):
        assert cli("record", text, store=False).exit_code == 0
    home = Path(os.environ["HINDSIGHT_HOME"])
    done = cli("init", store=False)
    assert done.exit_code == 0 and done.stdout.strip() == str(_isolated / ".hindsight")
    assert (
        f"the 2 memories recorded before are in the global store {home / 'store'} "
        f"(hindsight search … --store {home / 'store'})" in " ".join(done.stderr.split())
    )


def test_read_commands_on_a_missing_store_fail_clearly(cli, tmp_path: Path) -> None:
    result = cli("search", "x", "--store", str(tmp_path / "missing"))
    assert result.exit_code == 1
    assert (
        result.stderr.strip()
        == f"Error: No hindsight store at {tmp_path / 'missing'}. Run `hindsight init` here, or "
        f"pass --store PATH."
    )


def test_export_import_round_trip(cli, tmp_path: Path) -> None:
    cli("record", "alpha: the CI cache key includes the lockfile hash", "--tag", "ci")
    beta = cli("record", "beta: flaky test quarantined").stdout.strip()
    cli("forget", beta)
    exported = cli("export")
    assert exported.exit_code == 0 and "Exported 2 memories" in exported.stderr
    lines = exported.stdout.splitlines()
    assert [json.loads(line)["status"] for line in lines] == ["active", "invalidated"]

    dump = tmp_path / "mem.jsonl"
    assert cli("export", "-o", str(dump)).exit_code == 0
    assert dump.read_text() == exported.stdout
    assert stat.S_IMODE(dump.stat().st_mode) == 0o600

    other = str(tmp_path / "other")
    first = cli("import", str(dump), "--store", other, "--json")
    assert first.exit_code == 0 and json.loads(first.stdout) == {
        "added": 2,
        "skipped": 0,
        "redactions": 0,
        "split": 0,
        "updated": 0,
    }
    second = cli("import", str(dump), "--store", other)
    assert "Imported 0, skipped 2" in second.stderr
    # the same memories, but a file does not choose its own trust: the source is the importer's,
    # the claimed one kept (issue 31)
    expected = [
        {
            **m,
            "source": "import",
            "metadata": {**m["metadata"], "claimed_source": m["source"]},
        }
        for m in map(json.loads, lines)
    ]
    assert [json.loads(x) for x in cli("export", "--store", other).stdout.splitlines()] == expected
    piped = cli("import", "-", "--store", str(tmp_path / "third"), input=exported.stdout)
    assert piped.exit_code == 0 and "Imported 2" in piped.stderr


def test_import_refuses_broken_jsonl_whole(cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "fine"}\n{"content": "broken"\n')
    result = cli("import", str(bad))
    assert result.exit_code == 1
    assert "Line 2 is not valid JSON" in result.stderr and "nothing was imported" in result.stderr
    missing = cli("import", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 1 and "No file" in missing.stderr
    assert not (Path(cli.store_path) / "ledger.duckdb").exists()


def test_stats_and_reindex(cli) -> None:
    cli("record", "one", "--agent", "a")
    cli("record", "two", "--agent", "b", "--type", "semantic")
    data = json.loads(cli("stats", "--json").stdout)
    assert data["memories"] == 2 and data["by_agent"] == {"a": 1, "b": 1}
    assert (
        data["embedding_model"] == "hindsight/all-MiniLM-L6-v2-int8"
        and data["embedding_dim"] == 384
    )
    result = cli("reindex", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout) == {"reindexed": 2}
    after = json.loads(cli("stats", "--json").stdout)
    if after["backend"] == "local":
        assert (
            after["index"]["rows"] == 2
            and after["index"]["synced_seq"] == after["index"]["ledger_seq"]
        )
    # the database indexes its own rows: nothing to mirror
    else:
        assert not after["index"]["exists"] and "password" not in after["database"]
    assert json.loads(cli("search", "two", "--json").stdout)[0]["content"] == "two"
    table = cli("stats")
    assert "memories" in table.stdout and "embedding_model" in table.stdout


def test_configured_model_mismatch_names_reindex(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    cli("record", "written with the bundled model")
    monkeypatch.setenv("HINDSIGHT_EMBEDDING_MODEL", "BAAI/bge-small-en-v1.5")
    result = cli("search", "bundled")
    assert result.exit_code == 1
    assert "Run `hindsight reindex`" in result.stderr and "BAAI/bge-small-en-v1.5" in result.stderr


@pytest.mark.local_only
def test_init_with_a_model_that_cannot_load_leaves_no_store_behind(
    cli, _isolated: Path, tmp_path: Path
) -> None:
    target = tmp_path / "fresh" / ".hindsight"
    for name in ("example-org/no-such-model", "BAAI/bge-small-en-v1.6"):
        done = cli("init", "--store", str(target), "--embedding-model", name, store=False)
        assert done.exit_code == 1 and "Cannot load embedding model" in done.stderr
        # nothing naming the model that later commands would trip on
        assert not target.exists()
    assert cli("init", "--store", str(target), store=False).exit_code == 0


@pytest.mark.local_only
def test_a_store_whose_config_names_a_model_that_cannot_load_says_where(
    cli, tmp_path: Path
) -> None:
    target = tmp_path / "broken" / ".hindsight"
    target.mkdir(parents=True)
    (target / "config.toml").write_text('[embedding]\nmodel = "example-org/no-such-model"\n')
    for args in (["record", "x"], ["init"]):
        done = cli(*args, "--store", str(target), store=False)
        assert done.exit_code == 1 and len(done.stderr.strip().splitlines()) == 1
        assert f"named in {target.resolve() / 'config.toml'} ([embedding] model)" in done.stderr


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("conversations.json", '[{"uuid": "c1", "name": "x", "chat_messages": []}]', "claude"),
        ("claude.json", '[{"uuid": "c1", "chat_messages": [{"sender": "human"}]}]', "claude"),
        ("export.json", '[{"id": "c1", "title": "t", "mapping": {}}]', "chatgpt"),
        ("mem0.json", '{"results": [{"id": "1", "memory": "likes tea"}]}', "mem0"),
        ("memory.jsonl", '{"type": "entity", "name": "a", "entityType": "x"}\n', "mcp-memory"),
        ("chatgpt-export.zip", "PK\x03\x04 not really", "chatgpt"),
    ],
)
def test_import_of_another_tools_export_without_from_names_the_from(
    cli, tmp_path: Path, name: str, text: str, kind: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    done = cli("import", str(path))
    assert done.exit_code == 1 and len(done.stderr.strip().splitlines()) == 1
    assert f"run `hindsight import {path} --from {kind}`" in done.stderr
    # nothing imported
    assert not cli.open().exists or cli.open().list() == []


def test_import_of_a_broken_file_of_no_known_kind_suggests_nothing(cli, tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text('{"a": 1}\n')
    done = cli("import", str(path))
    assert done.exit_code == 1 and "--from" not in done.stderr
