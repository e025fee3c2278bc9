"""-q/--quiet on every command and --fields on every one with --json (issue 34), as gh and git
have them: scripts pick the keys they read, and a quiet command says nothing it need not."""

from __future__ import annotations

import json

import pytest


def test_fields_keep_only_those_keys_of_each_object(cli) -> None:
    cli("record", "the deploy key lives in the vault", "--task", "t1")
    cli("record", "staging runs on port 8443", "--task", "t2")
    hits = json.loads(
        cli("search", "deploy key vault", "--json", "--fields", "content,task_id").stdout
    )
    assert hits and all(list(h) == ["content", "task_id"] for h in hits)
    lines = cli("list", "--nl", "--fields", "id").stdout.splitlines()
    assert len(lines) == 2 and all(list(json.loads(line)) == ["id"] for line in lines)
    stats = json.loads(cli("stats", "--json", "--fields", "memories").stdout)
    assert list(stats) == ["memories"]
    # the next command in the same process is whole again
    assert "created_at" in json.loads(cli("list", "--json").stdout)[0]


def test_an_unknown_field_is_a_usage_error_naming_the_fields(cli) -> None:
    cli("record", "the deploy key lives in the vault")
    done = cli("search", "deploy key", "--json", "--fields", "content,colour")
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.startswith("Error: Unknown field for --fields: colour. The fields are: id, ")


def test_quiet_says_no_message_but_still_warns_and_fails(cli) -> None:
    done = cli("record", "a note with OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123", "-q")
    assert done.exit_code == 0 and done.stderr == "" and len(done.stdout.strip()) == 36
    failed = cli("show", "no-such-id", "--quiet")
    assert failed.exit_code == 1 and failed.stderr.startswith("Error: ")


@pytest.mark.parametrize(
    "args",
    [
        ["search"],
        ["list"],
        ["show"],
        ["stats"],
        ["record"],
        ["forget"],
        ["mine", "codex"],
        ["mcp", "token"],
        ["doctor"],
    ],
)
def test_every_command_lists_the_options(cli, args: list[str]) -> None:
    done = cli(*args, "--help", store=False)
    assert done.exit_code == 0 and "--quiet" in done.stdout
    if "--json" in done.stdout:
        assert "--fields" in done.stdout
