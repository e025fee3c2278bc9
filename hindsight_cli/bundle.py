"""Plugin bundles and the MCP registry's ``server.json``: hindsight packaged for clients that install
plugins (``hindsight plugin claude-code DIR``, ``hindsight plugin codex DIR``, ``hindsight plugin
server-json``).

A bundle carries the same MCP entry and the same hooks that ``hindsight mcp install`` and
``hindsight hooks install`` write (built by ``clients.entry`` and ``hooks.install.entries``), and a
skill that tells the model when to recall and when to record. Nothing in a bundle is executable, so
every command names the installed hindsight by absolute path, never ``${CLAUDE_PLUGIN_ROOT}``.
Files are written as the installers write client configs (``safefs.outside.write_outside``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from . import __version__, clients
from .errors import BadUsage, InvalidInput
from .hooks import install as hooks_install
from .mcp_server.profiles import COMMON

NAME = "hindsight"
DESCRIPTION = (
    "Local-first memory for LLM agents: record what happened, recall the few memories that matter."
)
AUTHOR = {"name": "hindsight developers"}
LICENSE = "Apache-2.0"
KEYWORDS = ["memory", "mcp", "agents", "hooks"]
SERVER_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"
# the registry's server name: reverse-DNS namespace, one slash
_SERVER_NAME = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")

SKILL = """---
name: hindsight
description: Recall what earlier sessions learned in this project (errors and their fixes, \
decisions, the user's preferences) and record new lessons, with hindsight's MCP tools. Use before \
starting a task, when an error repeats or looks familiar, after finding a fix, and after a decision.
---

# hindsight: memory across sessions

hindsight keeps this project's memories on this machine. Its hooks already record failed tool calls
and recall related memories when a session starts; this skill covers what only you can judge.

## Recall: `memory_search`

- **Before a task**: search for the task's subject (`query`: what you are about to do, in a few
  words; `budget_tokens`: 400). Read the hits before planning: an earlier session may have failed at
  the same step, or the user may have said how they want it done.
- **When an error repeats or looks familiar**: search with the error's text and
  `troubleshoot: true`; failures that were fixed come first, with their `resolution`.
- `memory_get` with a hit's `id` returns the whole memory when the hit was cut short.

## Record: `memory_write`

- **A fix found**: `content` says what failed and how it showed itself, `outcome: "failure"`,
  `resolution` says what fixed it. One memory per failure, written as soon as the fix works.
- **A decision made**: `type: "semantic"`, `content` the decision and the reason, so a later
  session does not undo it.
- **A preference the user stated**: `type: "semantic"`, `source: "user"`.
- **A fact that changed**: `supersedes` the old memory's `id`; the old one stays in the history.

Never record secrets (tokens, passwords, keys); hindsight redacts the ones it recognises, but it
cannot know every shape. Keep each memory to one fact, in plain words another session can search.

## The other tools

`memory_summarize` turns a finished task's episodes into one semantic memory, `memory_consolidate`
finds patterns repeated across episodes, and `memory_forget` removes memories that are wrong or
obsolete (soft by default).
"""


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _mcp_json(client: str, store: Path | None) -> dict[str, Any]:
    target = clients.Target(client, "user", Path(".mcp.json"), "mcpServers", "json")
    return {"mcpServers": {NAME: clients.entry(target, store)}}


def _hooks_json(client: str, store: Path | None) -> dict[str, Any]:
    return {
        "description": "hindsight: recall at session start and on repeats, record failures and fixes",
        "hooks": hooks_install.entries(client, store),
    }


def _manifest() -> dict[str, Any]:
    return {
        "name": NAME,
        "version": __version__,
        "description": DESCRIPTION,
        "author": AUTHOR,
        "license": LICENSE,
        "keywords": KEYWORDS,
    }


def _skill() -> dict[str, str]:
    return {"skills/hindsight/SKILL.md": SKILL}


def claude_code(store: Path | None) -> dict[str, str]:
    """The Claude Code plugin, which is also its own marketplace (``/plugin marketplace add DIR``,
    then ``/plugin install hindsight@hindsight``): relative path -> text."""
    plugin = _manifest()
    marketplace = {
        "name": NAME,
        "owner": AUTHOR,
        "plugins": [
            {"name": NAME, "source": "./", "description": DESCRIPTION, "version": __version__}
        ],
    }
    return {
        ".claude-plugin/plugin.json": to_json(plugin),
        ".claude-plugin/marketplace.json": to_json(marketplace),
        ".mcp.json": to_json(_mcp_json("claude-code", store)),
        "hooks/hooks.json": to_json(_hooks_json("claude-code", store)),
        **_skill(),
    }


def codex(store: Path | None) -> dict[str, str]:
    """A Codex marketplace holding the plugin in ``plugins/hindsight`` (Codex does not take a
    plugin at the marketplace's root): ``codex plugin marketplace add DIR``."""
    plugin = {
        **_manifest(),
        "skills": "./skills/",
        "hooks": "./hooks/hooks.json",
        "mcpServers": "./.mcp.json",
        "interface": {
            "displayName": NAME,
            "shortDescription": "Memory across sessions: recall before a task, record fixes",
            "developerName": AUTHOR["name"],
            "category": "Productivity",
        },
    }
    marketplace = {
        "name": NAME,
        "interface": {"displayName": NAME},
        "plugins": [
            {
                "name": NAME,
                "source": {"source": "local", "path": f"./plugins/{NAME}"},
                "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
                "category": "Productivity",
            }
        ],
    }
    root = f"plugins/{NAME}/"
    files = {
        ".codex-plugin/plugin.json": to_json(plugin),
        ".mcp.json": to_json(_mcp_json("codex", store)),
        "hooks/hooks.json": to_json(_hooks_json("codex", store)),
        **_skill(),
    }
    return {
        ".agents/plugins/marketplace.json": to_json(marketplace),
        **{root + path: text for path, text in files.items()},
    }


def server_json(name: str, repository: str | None = None) -> dict[str, Any]:
    """The MCP registry's description of hindsight's server: the PyPI package, run over stdio."""
    if not _SERVER_NAME.match(name) or len(name) > 200:
        raise BadUsage(
            f"{name!r} is not a registry server name; give NAMESPACE/NAME in reverse-DNS form, "
            "e.g. io.github.OWNER/hindsight (the namespace must be one you can prove you own)."
        )
    doc: dict[str, Any] = {
        "$schema": SERVER_SCHEMA,
        "name": name,
        "description": DESCRIPTION,
        "version": __version__,
    }
    if repository:
        if not re.match(r"^https://[^\s/]+/\S+$", repository):
            raise BadUsage(
                f"--repository {repository!r} is not an https URL of a repository, "
                "e.g. https://github.com/OWNER/hindsight."
            )
        host = repository.split("/")[2].lower()
        doc["repository"] = {"url": repository, "source": host.split(".")[-2]}
    doc["packages"] = [
        {
            "registryType": "pypi",
            "registryBaseUrl": "https://pypi.org",
            "identifier": "hindsight-cli",
            "version": __version__,
            "runtimeHint": "uvx",
            "transport": {"type": "stdio"},
            "packageArguments": [{"type": "positional", "value": "mcp"}],
            "environmentVariables": [
                {
                    "name": "HINDSIGHT_STORE",
                    "description": "The store to serve (default: the project's .hindsight, "
                    "found from the working directory, else the global store).",
                    "format": "filepath",
                    "isRequired": False,
                },
                {
                    "name": "HINDSIGHT_AGENT",
                    "description": "The agent_id the server reads and writes as.",
                    "isRequired": False,
                },
            ],
        }
    ]
    return doc


def tool_names() -> tuple[str, ...]:
    """The MCP tools the skill names."""
    return tuple(COMMON)


def write(directory: Path, files: dict[str, str]) -> list[Path]:
    """Write a bundle under ``directory`` as client configs are written (no link followed out of
    it, temp file renamed over, synced); the paths written."""
    from .safefs.outside import write_outside

    if directory.exists() and not directory.is_dir():
        raise InvalidInput(f"{directory} is a file; give a directory for the plugin.")
    written = []
    for relative, text in files.items():
        path = directory / relative
        write_outside(path, text, directory)
        written.append(path)
    return written
