"""`hindsight plugin`: the Claude Code and Codex plugin bundles and the MCP registry's server.json,
through the CLI. The files parse, name commands that run, carry exactly the hooks `hindsight hooks
install` writes, and a skill that names the server's real tools."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from hindsight_cli.mcp_server.profiles import COMMON

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
CLAUDE_FILES = [
    ".claude-plugin/plugin.json",
    ".claude-plugin/marketplace.json",
    ".mcp.json",
    "hooks/hooks.json",
    "skills/hindsight/SKILL.md",
]
# The registry's rules for what hindsight's server.json uses (required keys, the name's form, the
# description's length, a package's required keys), from its server.schema.json (2025-09-29).
REGISTRY = {
    "type": "object",
    "required": ["$schema", "name", "description", "version", "packages"],
    "properties": {
        "name": {"type": "string", "pattern": "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$", "maxLength": 200},
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        "version": {"type": "string", "maxLength": 255},
        "repository": {"type": "object", "required": ["url", "source"]},
        "packages": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["registryType", "identifier", "version", "transport"],
                "properties": {
                    "transport": {
                        "type": "object",
                        "required": ["type"],
                        "properties": {"type": {"enum": ["stdio"]}},
                    },
                    "version": {"not": {"const": "latest"}},
                    "packageArguments": {
                        "type": "array",
                        "items": {"type": "object", "required": ["type"]},
                    },
                    "environmentVariables": {
                        "type": "array",
                        "items": {"type": "object", "required": ["name"]},
                    },
                },
                "additionalProperties": True,
            },
        },
    },
}


def _load(path: Path) -> Any:
    return json.loads(path.read_text())


def _installed_hooks(cli: Any, client: str, settings: Path) -> dict[str, Any]:
    """The hooks `hindsight hooks install` writes for ``client``."""
    result = cli("hooks", "install", "--client", client, store=False)
    assert result.exit_code == 0, result.output
    return _load(settings)["hooks"]


def _runs(server: dict[str, Any]) -> None:
    """The MCP entry's command is a hindsight that answers `mcp --help`."""
    assert Path(server["command"]).is_absolute() and Path(server["command"]).exists()
    done = subprocess.run(
        [server["command"], *server["args"], "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "Run the MCP server" in done.stdout, done.stderr


def _skill(text: str) -> None:
    front, body = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S).groups()  # type: ignore[union-attr]
    fields = dict(line.split(": ", 1) for line in front.splitlines())
    assert fields["name"] == "hindsight" and "recall" in fields["description"].lower()
    named = set(re.findall(r"`(memory_\w+)`", body))
    assert {"memory_search", "memory_write"} <= named <= set(COMMON)
    for when in ("Before a task", "error repeats", "A fix found", "A decision made"):
        assert when in body
    # the arguments it tells the model to pass are the tools' own
    for argument in ("troubleshoot", "budget_tokens", "resolution", "outcome", "supersedes"):
        assert any(argument in arguments for arguments in COMMON.values()) and argument in body


# runs the plugin's `hindsight mcp --help` as a process: the full suite's
@pytest.mark.slow
def test_claude_code_plugin_is_its_own_marketplace_with_the_installed_hooks(
    cli: Any, home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "plugin"
    result = cli("plugin", "claude-code", str(out), store=False)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [str(out / f) for f in CLAUDE_FILES]
    assert result.stderr.startswith(
        f"Wrote 5 files. In Claude Code: /plugin marketplace add {out}, then /plugin install "
        "hindsight@hindsight."
    )
    plugin = _load(out / ".claude-plugin" / "plugin.json")
    assert (plugin["name"], plugin["version"]) == ("hindsight", PROJECT["version"])
    marketplace = _load(out / ".claude-plugin" / "marketplace.json")
    assert marketplace["owner"]["name"] and marketplace["plugins"] == [
        {
            "name": plugin["name"],
            "source": "./",
            "description": plugin["description"],
            "version": PROJECT["version"],
        }
    ]
    server = _load(out / ".mcp.json")["mcpServers"]["hindsight"]
    assert server["args"] == ["mcp"]
    _runs(server)
    hooks = _load(out / "hooks" / "hooks.json")["hooks"]
    assert hooks == _installed_hooks(cli, "claude-code", home / ".claude" / "settings.json")
    _skill((out / "skills" / "hindsight" / "SKILL.md").read_text())
    # nothing in the bundle runs from the plugin's own directory
    assert not any("CLAUDE_PLUGIN_ROOT" in (out / f).read_text() for f in CLAUDE_FILES)


def test_a_pinned_store_is_in_the_server_and_every_hook(cli: Any, tmp_path: Path) -> None:
    store = tmp_path / "pinned"
    out = tmp_path / "plugin"
    assert cli("plugin", "claude-code", str(out), "--store", str(store)).exit_code == 0
    server = _load(out / ".mcp.json")["mcpServers"]["hindsight"]
    assert server["args"] == ["mcp", "--store", str(store)]
    commands = [
        handler["command"]
        for groups in _load(out / "hooks" / "hooks.json")["hooks"].values()
        for group in groups
        for handler in group["hooks"]
    ]
    assert len(commands) == 7 and all(c.endswith(f"--store {store}") for c in commands)


@pytest.mark.slow
def test_codex_plugin_sits_in_a_marketplace_and_names_its_parts(
    cli: Any, home: Path, tmp_path: Path
) -> None:
    out = tmp_path / "codex"
    result = cli("plugin", "codex", str(out), store=False)
    assert result.exit_code == 0, result.output
    marketplace = _load(out / ".agents" / "plugins" / "marketplace.json")
    (entry,) = marketplace["plugins"]
    assert entry["source"]["source"] == "local" and entry["source"]["path"].startswith("./")
    root = out / entry["source"]["path"]
    plugin = _load(root / ".codex-plugin" / "plugin.json")
    assert (plugin["name"], plugin["version"]) == (entry["name"], PROJECT["version"])
    for key in ("skills", "hooks", "mcpServers"):
        assert plugin[key].startswith("./") and (root / plugin[key]).exists(), key
    _runs(_load(root / plugin["mcpServers"])["mcpServers"]["hindsight"])
    hooks = _load(root / plugin["hooks"])["hooks"]
    assert hooks == _installed_hooks(cli, "codex", home / ".codex" / "hooks.json")
    _skill((root / plugin["skills"] / "hindsight" / "SKILL.md").read_text())


def test_a_bundle_is_written_like_a_client_config(cli: Any, tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    refused = cli("plugin", "claude-code", str(afile), store=False)
    assert refused.exit_code == 1 and refused.stdout == ""
    assert refused.stderr.strip() == f"Error: {afile} is a file; give a directory for the plugin."
    # a link inside the directory that leads out of it is not followed
    out, elsewhere = tmp_path / "plugin", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "hooks").symlink_to(elsewhere)
    linked = cli("plugin", "claude-code", str(out), store=False)
    assert linked.exit_code == 1 and "Traceback" not in linked.output
    assert list(elsewhere.iterdir()) == []


@pytest.mark.slow
def test_server_json_describes_the_pypi_package_for_the_registry(cli: Any, tmp_path: Path) -> None:
    result = cli(
        "plugin",
        "server-json",
        "--name",
        "io.github.example/hindsight",
        "--repository",
        "https://github.com/example/hindsight",
        store=False,
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, REGISTRY)
    assert doc["$schema"].startswith("https://static.modelcontextprotocol.io/schemas/")
    assert doc["version"] == PROJECT["version"]
    assert doc["repository"] == {"url": "https://github.com/example/hindsight", "source": "github"}
    (package,) = doc["packages"]
    assert (package["registryType"], package["identifier"], package["version"]) == (
        "pypi",
        PROJECT["name"],
        PROJECT["version"],
    )
    # `uvx hindsight-cli mcp`: the package's name is a command of this installation
    program = Path(sys.executable).with_name(package["identifier"])
    args = [a["value"] for a in package["packageArguments"]]
    done = subprocess.run(
        [str(program), *args, "--help"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "Run the MCP server" in done.stdout, done.stderr
    written = tmp_path / "server.json"
    again = cli("plugin", "server-json", "--name", doc["name"], "-o", str(written), store=False)
    assert again.exit_code == 0 and json.loads(written.read_text())["name"] == doc["name"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--name", "hindsight"], "'hindsight' is not a registry server name"),
        (["--name", "io.github.a/b/c"], "'io.github.a/b/c' is not a registry server name"),
        (
            ["--name", "io.github.a/b", "--repository", "github.com/a/b"],
            "--repository 'github.com/a/b' is not an https URL",
        ),
    ],
)
def test_server_json_refuses_a_bad_name_or_repository(
    cli: Any, args: list[str], message: str
) -> None:
    result = cli("plugin", "server-json", *args, store=False)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"Error: {message}") and len(result.stderr.splitlines()) <= 2
