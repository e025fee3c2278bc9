"""`hindsight config`: effective values and their origin, one setting set without losing the file's
comments, bad values refused before anything is written (issue 34)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Cli

from hindsight_cli import paths

pytestmark = pytest.mark.parametrize("backend", ["local"])


@pytest.fixture
def made(cli: Cli) -> Cli:
    assert cli("init").exit_code == 0
    return cli


def _user_file() -> Path:
    return paths.user_config_path()


def test_list_shows_every_layer_and_its_origin(made: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    user = _user_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('default_agent = "from-user"\n[hooks]\nrecall_budget = 300\n')
    store_file = made.store_path / "config.toml"
    store_file.write_text('default_agent = "from-store"\n[search]\nengine = "index"\n')
    # whose memories they are is bound to the approval (a file edited by hand is approved once)
    assert made("allow", str(made.store_path), store=False).exit_code == 0
    monkeypatch.setenv("HINDSIGHT_SEARCH_ENGINE", "ledger")

    result = made("config", "list", "--show-origin")

    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert f"{store_file}\tdefault_agent=from-store" in lines
    assert f"{user}\thooks.recall_budget=300" in lines
    # the env var wins over the store file, and says so
    assert "HINDSIGHT_SEARCH_ENGINE\tsearch.engine=ledger" in lines
    assert "default\twrite.on_change=supersede" in lines
    assert "default\tranking.w_relevance=0.6" in lines
    assert "default\tmcp.allowed_hosts=[]" in lines
    without = made("config", "list").stdout.splitlines()
    assert "search.engine=ledger" in without
    assert len(without) == len(lines)


def test_list_json_shape(made: Cli) -> None:
    result = made("config", "list", "--json")

    assert result.exit_code == 0, result.stderr
    entries = json.loads(result.stdout)
    assert all(set(entry) == {"key", "value", "origin"} for entry in entries)
    by_key = {entry["key"]: entry for entry in entries}
    assert by_key["hooks.recall"] == {"key": "hooks.recall", "value": True, "origin": "default"}
    assert by_key["limits.max_content_bytes"]["value"] == 16384
    assert by_key["mcp.allowed_hosts"]["value"] == []


def test_get_prints_the_plain_effective_value(made: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    assert made("config", "get", "embedding.model").stdout == "hindsight/all-MiniLM-L6-v2-int8\n"
    monkeypatch.setenv("HINDSIGHT_AGENT", "bob")
    result = made("config", "get", "default_agent")
    assert (result.exit_code, result.stdout) == (0, "bob\n")
    assert made("config", "get", "hooks.recall").stdout == "true\n"


def test_unknown_key_names_close_ones(made: Cli) -> None:
    result = made("config", "get", "embeding.model")

    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        "Error: Unknown setting 'embeding.model'. Did you mean embedding.model? "
        "`hindsight config list` shows them all.\n"
    )


def test_password_in_a_url_is_never_shown(made: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", "postgresql://me:s3cret@db.example:5432/mem")

    got = made("config", "get", "storage.url")
    listed = made("config", "list", "--show-origin", "--json")

    assert got.stdout == "postgresql://me@db.example:5432/mem\n"
    assert "s3cret" not in listed.stdout + listed.stderr
    entry = next(e for e in json.loads(listed.stdout) if e["key"] == "storage.url")
    assert entry["origin"] == "HINDSIGHT_DATABASE_URL"


def test_set_writes_the_store_file_and_keeps_its_comments(made: Cli) -> None:
    store_file = made.store_path / "config.toml"
    before = store_file.read_text()

    result = made("config", "set", "write.on_change", "keep_both")

    assert result.exit_code == 0, result.stderr
    assert result.stderr == f"write.on_change = keep_both in {store_file}\n"
    after = store_file.read_text()
    # every commented default is still there; one line was added
    assert [line for line in after.splitlines() if line.startswith("#")] == [
        line for line in before.splitlines() if line.startswith("#")
    ]
    assert after.count('on_change = "keep_both"') == 1
    assert made("config", "get", "write.on_change").stdout == "keep_both\n"
    origin = made("config", "list", "--show-origin").stdout.splitlines()
    assert f"{store_file}\twrite.on_change=keep_both" in origin


def test_set_replaces_a_value_and_keeps_a_users_comment(made: Cli) -> None:
    user = _user_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("# mine\n[hooks]\nrecall_budget = 300  # enough\nsummarize = false\n")

    result = made("config", "set", "hooks.recall_budget", "600", "--user", store=False)

    assert result.exit_code == 0, result.stderr
    assert user.read_text() == (
        "# mine\n[hooks]\nrecall_budget = 600  # enough\nsummarize = false\n"
    )


def test_set_user_makes_the_file(made: Cli) -> None:
    result = made(
        "config", "set", "mcp.allowed_hosts", "a.example,b.example", "--user", store=False
    )

    assert result.exit_code == 0, result.stderr
    assert _user_file().read_text() == '[mcp]\nallowed_hosts = ["a.example", "b.example"]\n'
    assert made("config", "get", "mcp.allowed_hosts").stdout == '["a.example", "b.example"]\n'


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        (
            "write.on_change",
            "nope",
            "[write] on_change must be supersede or keep_both, not 'nope'.",
        ),
        ("hooks.recall_budget", "lots", "hooks.recall_budget takes a whole number, not 'lots'."),
        ("hooks.recall", "yes", "hooks.recall takes true or false, not 'yes'."),
        ("ttl.working", "forever", None),
        ("storage.backend", "mysql", "[storage] backend must be local or postgres, not 'mysql'."),
        ("storage.url", "postgresql://me:pw@h/db", None),
    ],
)
def test_a_bad_value_is_refused_and_nothing_written(
    made: Cli, key: str, value: str, error: str | None
) -> None:
    store_file = made.store_path / "config.toml"
    before = store_file.read_text()

    result = made("config", "set", key, value)

    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    if error:
        assert result.stderr == f"Error: {error}\n"
    assert "pw" not in result.stderr
    assert store_file.read_text() == before


def test_set_unknown_key_writes_nothing(made: Cli) -> None:
    store_file = made.store_path / "config.toml"
    before = store_file.read_text()

    result = made("config", "set", "write.onchange", "keep_both")

    assert result.exit_code == 1
    assert "Did you mean write.on_change?" in result.stderr
    assert store_file.read_text() == before


def test_a_network_backend_is_refused_in_a_store_not_approved(cli: Cli) -> None:
    # a directory that came with a repository: not made by `hindsight init` here
    planted = cli.store_path
    planted.mkdir()

    result = cli("config", "set", "storage.backend", "postgres")

    assert result.exit_code == 1
    assert "was not created or approved by you" in result.stderr
    assert f"hindsight allow {planted}" in result.stderr
    assert not (planted / "config.toml").exists()


def test_set_needs_a_store(cli: Cli) -> None:
    result = cli("config", "set", "default_agent", "x")

    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: No store at {cli.store_path} yet; run `hindsight init` first, or pass --user.\n"
    )


def test_path(made: Cli) -> None:
    user, store_file = _user_file(), made.store_path / "config.toml"

    assert made("config", "path", "--user", store=False).stdout == f"{user}\n"
    assert made("config", "path").stdout == f"{store_file}\n"
    both = made("config", "path", store=False)
    assert both.stdout.splitlines()[0] == str(user)
    assert len(both.stdout.splitlines()) == 2
