"""The lifecycle through the CLI, with the real bundled model: supersede and history, archive,
troubleshoot, consolidate, hard forget, expiry and the audit log."""

from __future__ import annotations

import json

import pytest

# with the bundled model, as a user runs the CLI
pytestmark = pytest.mark.model

UNIQUE = "quokka-4d1e8b"


def _record(cli, *args: str) -> str:
    result = cli("record", *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def test_supersede_shows_history_and_refuses_twice(cli) -> None:
    old = _record(cli, "the weather API authenticates with a bearer token")
    result = cli(
        "record",
        "the weather API now authenticates with an X-Api-Key header",
        "--supersedes",
        old[:13],
    )
    assert result.exit_code == 0
    new = result.stdout.strip()
    assert f"it supersedes {old}" in result.stderr
    hits = json.loads(cli("search", "weather API authentication", "--json").stdout)
    assert [h["id"] for h in hits] == [new]
    shown = cli("show", old)
    assert "superseded_by" in shown.stdout and "history (oldest first):" in shown.stdout
    after = shown.stdout.index("history")
    # short ids in the history
    assert shown.stdout.index(old[-8:], after) < shown.stdout.index(new[-8:], after)
    assert json.loads(cli("show", new, "--json").stdout)["history"] == [old, new]
    again = cli("record", "a third version", "--supersedes", old)
    assert again.exit_code == 1
    assert again.stderr.startswith(
        f"Error: {old} was already superseded by {new}; supersede that one instead."
    )
    assert len(cli.open().list()) == 2


def test_archive_include_archived_and_restore(cli) -> None:
    memory_id = _record(cli, "the legacy billing service listens on port 8081", "--task", "legacy")
    result = cli("forget", "--task", "legacy", "--archive", "-y", "--reason", "retired")
    assert result.exit_code == 0 and "Archived 1 memory." in result.stderr
    assert json.loads(cli("search", "billing service port", "--json").stdout) == []
    found = json.loads(cli("search", "billing service port", "--include-archived", "--json").stdout)
    assert [h["id"] for h in found] == [memory_id] and found[0]["status"] == "archived"
    assert cli("restore", memory_id).exit_code == 0
    assert cli.open().get(memory_id).status == "active"
    both = cli("forget", memory_id, "--hard", "--archive", "-y")
    # contradicting options: a usage error
    assert both.exit_code == 2 and "Choose one" in both.stderr


def test_troubleshoot_ranks_the_fixed_failure_first_and_explains(cli) -> None:
    _record(
        cli, "psql could not connect: connection refused on 127.0.0.1:5432", "--outcome", "failure"
    )
    fixed = _record(
        cli,
        "the app could not connect to postgres: connection refused on 127.0.0.1:5432",
        "--outcome",
        "failure",
        "--resolution",
        "use the service name db instead of localhost",
    )
    _record(
        cli,
        "postgres on 127.0.0.1:5432 accepted connections after the restart",
        "--outcome",
        "success",
    )
    result = cli(
        "search", "connection refused 127.0.0.1:5432", "--troubleshoot", "--json", "--explain"
    )
    hits = json.loads(result.stdout)
    assert hits[0]["id"] == fixed
    assert "troubleshoot: a failure with a fix, ranked first" in hits[0]["explain"]["notes"]


def test_consolidate_dry_run_then_write_then_nothing_new(cli) -> None:
    for text in (
        "the nightly export hit the API rate limit (429)",
        "the nightly export hit the API rate limit (429) again",
        "nightly export: API rate limit 429 once more",
    ):
        _record(
            cli,
            text,
            "--outcome",
            "failure",
            "--resolution",
            "added exponential backoff",
            "--no-merge",
        )
    dry = cli("consolidate", "--dry-run", "--json")
    assert dry.exit_code == 0
    plan = json.loads(dry.stdout)
    assert (plan["dry_run"], plan["created"], plan["scanned"]) == (True, 1, 3)
    assert len(cli.open().list()) == 3
    wrote = cli("consolidate")
    assert wrote.exit_code == 0 and "Wrote 1 new and 0 updated pattern(s)" in wrote.stderr
    assert "What fixed it (3 of 3 failures): added exponential backoff" in wrote.stdout
    pattern = next(m for m in cli.open().list() if m.trigger == "consolidate")
    assert len(pattern.source_ids) == 3 and pattern.confidence == 0.7
    rerun = json.loads(cli("consolidate", "--json").stdout)
    assert (rerun["created"], rerun["updated"], rerun["unchanged"]) == (0, 0, 1)
    assert len(cli.open().list()) == 4


def test_hard_forget_leaves_no_trace_and_the_log_keeps_no_content(cli) -> None:
    for i in range(5):
        _record(cli, f"routine note {i} about the payments service")
    secret = _record(cli, f"the partner code name is {UNIQUE}", "--task", "secret")
    cli("search", UNIQUE)
    result = cli("forget", secret, "--hard", "-y", "--reason", "gdpr request")
    assert result.exit_code == 0 and "Purged 1 memory." in result.stderr
    leaks = [
        p for p in cli.store_path.rglob("*") if p.is_file() and UNIQUE.encode() in p.read_bytes()
    ]
    assert leaks == []
    log = json.loads(cli("log", "--id", secret, "--json").stdout)
    assert [e["action"] for e in log] == ["forget_hard", "record"]
    assert log[0]["reason"] == "gdpr request" and log[0]["actor"] == "default"
    assert UNIQUE not in cli("log").stdout
    assert len(json.loads(cli("search", "payments service notes", "--json").stdout)) == 5


def test_forget_expired_purges_and_a_ttl_memory_is_never_returned(cli, clock) -> None:
    _record(cli, "scratch: compiler flags being tried", "--ttl", "1s")
    kept = _record(cli, "the compiler flags that worked: -O2 -march=native")
    # past the TTL, however slow the machine
    clock.advance(1.5)
    assert [h["id"] for h in json.loads(cli("search", "compiler flags", "--json").stdout)] == [kept]
    result = cli("forget", "--expired", "-y", "--json")
    assert json.loads(result.stdout) == {"forgotten": 1, "hard": True, "archived": False}
    assert [m.id for m in cli.open().list()] == [kept]
    assert json.loads(cli("log", "--action", "forget_hard", "--json").stdout)[0]["ids"] != [kept]


def test_consolidate_dry_run_shows_no_id_that_will_not_exist_and_its_counts_agree(cli) -> None:
    import re

    texts = (
        "the nightly export hit the API rate limit (429)",
        "the nightly export hit the API rate limit (429)",
        "the nightly export hit the API rate limit (429) again",
        "nightly export: API rate limit 429 once more",
    )
    # the first text twice, two writes: one memory seen twice
    for number, text in enumerate(texts):
        _record(
            cli,
            text,
            "--outcome",
            "failure",
            "--resolution",
            "added exponential backoff",
            "--key",
            f"k{number}",
        )
    before = {m.id for m in cli.open().list()}
    assert len(before) < len(texts)
    dry = cli("consolidate", "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    head = dry.stdout.splitlines()[0]
    assert head.startswith("create") and head.rstrip().endswith("(new)")
    shown = set(re.findall(r"\b[0-9a-f]{8}\b", dry.stdout))
    # every id shown exists now
    assert shown <= {memory_id[-8:] for memory_id in before}
    seen = int(re.search(r"seen (\d+) times", dry.stdout).group(1))
    fixed, failures = map(
        int, re.search(r"What fixed it \((\d+) of (\d+) failures\)", dry.stdout).groups()
    )
    # every figure counts occurrences
    assert seen == failures == fixed == len(texts)
    assert "Would write 1 new and 0 updated pattern(s)" in dry.stderr
    plan = json.loads(cli("consolidate", "--dry-run", "--json").stdout)
    assert [p["id"] for p in plan["patterns"] if p["action"] == "create"] == [None]
    assert {m.id for m in cli.open().list()} == before
