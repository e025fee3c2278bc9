"""`hindsight mcp install` / `config` against fake home and project trees, for every client."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from hindsight_cli import clients

SCOPES = [
    (client, scope)
    for client in clients.CLIENTS
    for scope in clients.targets(client, Path("/h"), Path("/p"), env={}, platform="linux")
]


def _servers(target: clients.Target) -> dict:
    text = target.path.read_text()
    if target.fmt == "toml":
        return tomllib.loads(text)["mcp_servers"]
    return json.loads(clients.strip_jsonc(text)[0])[target.key]


def _target(client: str, scope: str, home: Path, project: Path) -> clients.Target:
    return clients.targets(client, home, project)[scope]


@pytest.mark.parametrize(("client", "scope"), SCOPES)
def test_install_creates_a_correct_entry_and_reruns_change_nothing(
    cli, home, _isolated, client, scope
) -> None:
    store = _isolated / ".hindsight"
    result = cli("mcp", "install", "--client", client, "--scope", scope, "--store", str(store))
    assert result.exit_code == 0, result.stderr
    target = _target(client, scope, home, _isolated)
    assert result.stdout.strip() == str(target.path)
    entry = _servers(target)["hindsight"]
    assert Path(entry["command"]).is_absolute()
    assert entry["args"][-3:] == ["mcp", "--store", str(store)]
    assert (store / "ledger.duckdb").exists()
    if client == "vscode":
        assert entry["type"] == "stdio"
    if client == "codex":
        assert entry["startup_timeout_sec"] == 30
    before = target.path.read_text()
    again = cli("mcp", "install", "--client", client, "--scope", scope, "--store", str(store))
    assert again.exit_code == 0 and "nothing changed" in again.stderr
    assert target.path.read_text() == before
    assert not list(target.path.parent.glob("*.hindsight-backup-*"))


@pytest.mark.parametrize("client", [c for c in clients.CLIENTS if c != "codex"])
def test_install_keeps_other_servers_and_settings_and_backs_up(
    cli, home, _isolated, client
) -> None:
    target = _target(client, "user", home, _isolated)
    target.path.parent.mkdir(parents=True, exist_ok=True)
    original = {
        "theme": "dark",
        target.key: {"other": {"command": "/usr/bin/other", "args": ["x"]}},
    }
    target.path.write_text(json.dumps(original))
    result = cli(
        "mcp", "install", "--client", client, "--scope", "user", "--store", str(_isolated / "s")
    )
    assert result.exit_code == 0, result.stderr
    data = json.loads(clients.strip_jsonc(target.path.read_text())[0])
    assert data["theme"] == "dark" and data[target.key]["other"] == original[target.key]["other"]
    assert "hindsight" in data[target.key]
    backups = list(target.path.parent.glob(f"{target.path.name}.hindsight-backup-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == original


def test_codex_toml_keeps_everything_else_byte_for_byte(cli, home, _isolated) -> None:
    target = _target("codex", "user", home, _isolated)
    target.path.parent.mkdir(parents=True)
    head = 'model = "o4"\n\n[mcp_servers.other]\ncommand = "other"\n'
    tail = '\n[profiles.fast]\nmodel = "mini"\n'
    stale = (
        "[mcp_servers.hindsight]\ncommand = "
        '"/old/hindsight"\n\n[mcp_servers.hindsight.env]\nX = "1"\n'
    )
    target.path.write_text(head + "\n" + stale + tail)
    result = cli("mcp", "install", "--client", "codex", "--store", str(_isolated / "s"))
    assert result.exit_code == 0, result.stderr
    text = target.path.read_text()
    assert text.startswith(head) and text.endswith(tail)
    data = tomllib.loads(text)
    assert (
        data["mcp_servers"]["other"] == {"command": "other"}
        and data["profiles"]["fast"]["model"] == "mini"
    )
    assert data["mcp_servers"]["hindsight"]["args"][-1] == str(_isolated / "s")
    assert "X" not in data["mcp_servers"]["hindsight"].get("env", {})


@pytest.mark.parametrize(
    ("client", "bad"), [("cursor", "{not json"), ("codex", "[broken"), ("zed", "[1, 2]")]
)
def test_malformed_config_is_refused_and_left_alone(cli, home, _isolated, client, bad) -> None:
    target = _target(client, "user", home, _isolated)
    target.path.parent.mkdir(parents=True, exist_ok=True)
    target.path.write_text(bad)
    result = cli("mcp", "install", "--client", client, "--store", str(_isolated / "s"))
    assert result.exit_code == 1
    assert str(target.path) in result.stderr and "Nothing was changed" in result.stderr
    assert target.path.read_text() == bad
    assert not list(target.path.parent.glob("*.hindsight-backup-*"))


def test_jsonc_with_comments_is_read_and_the_loss_is_announced(cli, home, _isolated) -> None:
    target = _target("vscode", "project", home, _isolated)
    target.path.parent.mkdir(parents=True)
    target.path.write_text(
        '{\n  // my servers\n  "servers": {"x": {"type": "stdio", "command": "x",},},\n}\n'
    )
    result = cli(
        "mcp",
        "install",
        "--client",
        "vscode",
        "--scope",
        "project",
        "--store",
        str(_isolated / "s"),
    )
    assert result.exit_code == 0, result.stderr
    assert "comments" in result.stderr and "backup" in result.stderr
    assert set(json.loads(target.path.read_text())["servers"]) == {"x", "hindsight"}


def test_dry_run_writes_nothing_and_config_prints_the_snippet(cli, home, _isolated) -> None:
    target = _target("cursor", "user", home, _isolated)
    dry = cli("mcp", "install", "--client", "cursor", "--dry-run", "--store", str(_isolated / "s"))
    assert dry.exit_code == 0 and "nothing was written" in dry.stderr
    assert json.loads(dry.stdout)["mcpServers"]["hindsight"]["args"][-1] == str(_isolated / "s")
    assert not target.path.exists() and not (_isolated / "s").exists()
    snippet = cli("mcp", "config", "--client", "zed", "--store", str(_isolated / "s"))
    assert json.loads(snippet.stdout)["context_servers"]["hindsight"]["source"] == "custom"
    toml = cli("mcp", "config", "--client", "codex", "--store", str(_isolated / "s"))
    assert tomllib.loads(toml.stdout)["mcp_servers"]["hindsight"]["command"]


def test_default_scope_is_user_whatever_the_repository_holds(cli, home, _isolated) -> None:
    cli("init", store=False)
    result = cli("mcp", "install", "--client", "cursor", store=False)
    # a project store does not choose project scope by itself (issue 31)
    assert result.stdout.strip() == str(home / ".cursor" / "mcp.json")
    assert not (_isolated / ".cursor").exists()
    desktop = cli("mcp", "install", "--client", "claude-desktop", "--scope", "project", store=False)
    assert (
        desktop.exit_code == 1 and "claude-desktop has no project configuration" in desktop.stderr
    )
    unknown = cli("mcp", "install", "--client", "notepad", store=False)
    # a usage error
    assert unknown.exit_code == 2 and "'notepad' is not one of 'claude-desktop'" in unknown.stderr


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        ("darwin", "Library/Application Support/Claude/claude_desktop_config.json"),
        ("win32", "AppData/Roaming/Claude/claude_desktop_config.json"),
        ("linux", ".config/Claude/claude_desktop_config.json"),
    ],
)
def test_os_path_layouts(platform: str, expected: str) -> None:
    home = Path("/home/u")
    desktop = clients.targets("claude-desktop", home, Path("/p"), env={}, platform=platform)["user"]
    assert desktop.path == home / expected
    vscode = clients.targets(
        "vscode", home, Path("/p"), env={"APPDATA": "/roaming"}, platform=platform
    )["user"]
    assert vscode.path.name == "mcp.json" and ("Code/User" in str(vscode.path))
    zed = clients.targets("zed", home, Path("/p"), env={"APPDATA": "/roaming"}, platform=platform)[
        "user"
    ]
    assert zed.path == (
        Path("/roaming/Zed/settings.json")
        if platform == "win32"
        else home / ".config/zed/settings.json"
    )
    codex = clients.targets(
        "codex", home, Path("/p"), env={"CODEX_HOME": "/ch"}, platform=platform
    )["user"]
    assert codex.path == Path("/ch/config.toml")


@pytest.mark.no_store
def test_tokens_are_shown_once_kept_as_hashes_and_revoked(cli, tmp_path: Path) -> None:
    file = tmp_path / "tokens.json"
    made = [
        cli("mcp", "token", agent, "--tokens", str(file), store=False)
        for agent in ("ci-bot", "ci-bot", "bob")
    ]
    assert all(r.exit_code == 0 for r in made) and len({r.stdout for r in made}) == 3
    assert "shown only now" in made[0].stderr
    saved = json.loads(file.read_text())["tokens"]
    assert [e["agent"] for e in saved] == ["ci-bot", "ci-bot", "bob"]
    assert not any(r.stdout.strip() in file.read_text() for r in made)
    assert oct(file.stat().st_mode & 0o777) == "0o600"
    revoked = cli("mcp", "token", "ci-bot", "--revoke", "--tokens", str(file), store=False)
    assert revoked.exit_code == 0 and "Revoked 2 token(s) of ci-bot" in revoked.stderr
    assert [e["agent"] for e in json.loads(file.read_text())["tokens"]] == ["bob"]
    file.write_text("not json")
    broken = cli("mcp", "token", "x", "--tokens", str(file), store=False)
    assert broken.exit_code == 1 and "Cannot read the token file" in broken.stderr
    stdio = cli("mcp", "--tokens", str(file))
    assert stdio.exit_code == 1 and "--tokens is for --transport http" in stdio.stderr


def test_a_token_for_the_agent_your_memories_go_under_is_made_with_a_warning(
    cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A token's agent is a scope it holds whole: one made for the agent the owner's own memories
    go under (default_agent, HINDSIGHT_AGENT) reads and can forget all of them."""
    made = cli("mcp", "token", "default")
    assert made.exit_code == 0 and made.stdout.startswith("hst_")
    assert "Warning: default is the agent memories written here go under" in made.stderr
    other = cli("mcp", "token", "ci-bot")
    assert other.exit_code == 0 and "Warning" not in other.stderr
    monkeypatch.setenv("HINDSIGHT_AGENT", "ops")
    ops = cli("mcp", "token", "ops")
    assert ops.exit_code == 0 and "Warning: ops is the agent" in ops.stderr
    assert "Warning" not in cli("mcp", "token", "default").stderr


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # the case: the entry as an inline table under [mcp_servers]
        ('[mcp_servers]\nhindsight = { command = "old", args = [] }  # mine\n', ["[mcp_servers]"]),
        # every server inline, at the top level
        ('# top\nmcp_servers = { docs = { command = "docs" } }\n', ["# top", 'command = "docs"']),
        # dotted keys, and a table of the entry's own env
        (
            'model = "o3" # keep me\nmcp_servers.hindsight.command = "old"\n\n[profiles.x]\nk = 1\n',
            ["# keep me", "[profiles.x]"],
        ),
        (
            "[mcp_servers.hindsight]\ncommand = 'old'\n\n[mcp_servers.hindsight.env]\nX = '1'\n"
            "\n# after\n[mcp_servers.docs]\ncommand = 'docs'\n",
            ["# after", "[mcp_servers.docs]"],
        ),
    ],
)
def test_codex_config_of_any_valid_shape_is_edited_as_a_document(
    cli, home, _isolated, text: str, kept: list[str]
) -> None:
    target = _target("codex", "user", home, _isolated)
    target.path.parent.mkdir(parents=True)
    target.path.write_text(text)
    before = tomllib.loads(text)
    result = cli("mcp", "install", "--client", "codex", "--store", str(_isolated / "s"))
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    after_text = target.path.read_text()
    after = tomllib.loads(after_text)
    assert after["mcp_servers"]["hindsight"]["args"][-1] == str(_isolated / "s")
    assert "env" not in after["mcp_servers"]["hindsight"] or "X" not in after["mcp_servers"][
        "hindsight"
    ].get("env", {})
    # everything else as it was: other servers, other tables, comments
    for name, value in before.get("mcp_servers", {}).items():
        if name != "hindsight":
            assert after["mcp_servers"][name] == value
    assert {k: v for k, v in after.items() if k != "mcp_servers"} == {
        k: v for k, v in before.items() if k != "mcp_servers"
    }
    assert all(piece in after_text for piece in kept)
    # and a second install changes nothing
    assert (
        cli("mcp", "install", "--client", "codex", "--store", str(_isolated / "s")).exit_code == 0
    )
    assert target.path.read_text() == after_text


def test_codex_config_whose_servers_are_not_a_table_is_refused_in_one_line(
    cli, home, _isolated
) -> None:
    target = _target("codex", "user", home, _isolated)
    target.path.parent.mkdir(parents=True)
    target.path.write_text('mcp_servers = "none"\n')
    result = cli("mcp", "install", "--client", "codex", "--store", str(_isolated / "s"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "'mcp_servers' is not a table" in result.stderr
    assert target.path.read_text() == 'mcp_servers = "none"\n'


class _OneSecond:
    """`datetime` at one fixed second: every backup a run of installers makes is named alike."""

    @staticmethod
    def now():
        import datetime

        return datetime.datetime(2026, 1, 2, 3, 4, 5)


@pytest.mark.no_store
@pytest.mark.parametrize(
    "runs",
    [
        [("hooks", "install", "--client", "gemini"), ("mcp", "install", "--client", "gemini")],
        [("hooks", "install", "--client", "codex"), ("mcp", "install", "--client", "codex")],
        [("mcp", "install", "--client", "zed"), ("mcp", "install", "--client", "zed", "--store")],
    ],
    ids=["gemini", "codex", "zed twice"],
)
def test_a_backup_made_in_the_same_second_keeps_the_first(
    cli, home, _isolated, monkeypatch, runs
) -> None:
    """Review AE: two writes of one client file within a second (a setup script running both
    installers, or one installer twice): the second backup was named as the first and replaced
    it, so the file as the user had it (the comments a JSONC merge drops) was lost."""
    client = runs[0][3]
    path = {
        "gemini": home / ".gemini" / "settings.json",
        "codex": home / ".codex" / "config.toml",
        "zed": home / ".config" / "zed" / "settings.json",
    }[client]
    path.parent.mkdir(parents=True)
    original = (
        '# my precious comment\nmodel = "o4"\n'
        if client == "codex"
        else '{\n  // my precious comment\n  "theme": "dark"\n}\n'
    )
    path.write_text(original)
    monkeypatch.setattr(clients, "datetime", _OneSecond)
    for number, argv in enumerate(runs):
        store = ["--store", str(_isolated / f"s{number}")] if argv[0] == "mcp" else []
        done = cli(*argv[:4], *store, store=False)
        assert done.exit_code == 0, done.output
    backups = sorted(path.parent.glob(f"{path.name}.hindsight-backup-*"))
    assert len(backups) == 2, backups
    assert original in [b.read_text() for b in backups]


@pytest.mark.local_only
@pytest.mark.parametrize("client", ["vscode", "zed"])
@pytest.mark.parametrize(
    "body",
    ['"\\' * 500_000, '{"servers": {"x": "open' + '\\"' * 500_000, "{} " + "/* " * 300_000],
    ids=["quotes", "open-string", "open-comments"],
)
def test_a_checkouts_jsonc_file_is_read_in_one_pass(cli, home, _isolated, client, body) -> None:
    """Review AL: a string or a block comment that is not closed was tried again from every later
    quote or `/*`, each scan running to the end of the file: a checkout's 60 KB `.vscode/mcp.json`
    held `hindsight doctor` for a minute, and 1 MB (the limit is 16 MB) for hours. Now each runs
    to the end once: a string, the file's end (not JSON: one line, the file unchanged); a comment,
    the rest of the file (dropped, said, the file backed up)."""
    target = _target(client, "project", home, _isolated)
    target.path.parent.mkdir(parents=True)
    target.path.write_text(body)
    parses = body.startswith("{}")
    checks = json.loads(cli("doctor", "mcp", "--json", store=False).stdout)["checks"]
    failed = {c["id"] for c in checks if c["status"] == "fail"}
    assert (f"mcp.{client}.project.parse" in failed) is not parses
    store = str(_isolated / "s")
    result = cli("mcp", "install", "--client", client, "--scope", "project", "--store", store)
    if parses:
        assert result.exit_code == 0 and "comments" in result.stderr, result.stderr
        assert [b.read_text() for b in target.path.parent.glob("*.hindsight-backup-*")] == [body]
    else:
        assert result.exit_code == 1 and "is not valid JSON" in result.stderr
        assert result.stderr.count("\n") == 1 and target.path.read_text() == body


def test_jsonc_reads_as_before_where_every_string_and_comment_is_closed() -> None:
    text = '{"a": 1, /* c */ "b": "x//y /* no */", // z\n "c": [1, "\\"", "\\\\",],}'
    assert clients.strip_jsonc(text) == (
        '{"a": 1,  "b": "x//y /* no */", \n "c": [1, "\\"", "\\\\"]}',
        True,
    )
    assert json.loads(clients.strip_jsonc(text)[0])["c"] == [1, '"', "\\"]


@pytest.mark.local_only
@pytest.mark.parametrize("field", ["args", "env", "url"])
def test_a_checkouts_server_variable_that_never_closes_is_read_once(
    cli, home, _isolated, field
) -> None:
    """Review AL: `doctor mcp` expands `${…}` in every entry it lists, the checkout's too: a `${`
    that never closes was tried again from every later one (quadratic: 80 KB held it a minute).
    Now it runs to the end once and stays as written."""
    value = "${" * 300_000
    entry = {"command": "node", field: [value] if field == "args" else value}
    if field == "env":
        entry[field] = {"A": value}
    (_isolated / ".mcp.json").write_text(json.dumps({"mcpServers": {"tool": entry}}))
    result = cli("doctor", "mcp", "--json", store=False)
    assert "Traceback" not in result.output
    assert json.loads(result.stdout)["checks"]
