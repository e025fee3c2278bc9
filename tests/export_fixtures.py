"""Exports of chat apps and memory tools, written as those tools write them (docs/import.md),
telling the story of transcript_fixtures.STORY where they can."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from transcript_fixtures import STORY, Turn, _jsonl, at, ms

# --- Chat exports
# ------------------------------------------------------------------------------------------


def chatgpt(path: Path, turns: list[Turn] = STORY) -> Path:
    """A ChatGPT export: the mapping tree has a regenerated answer on a branch that is not
    current."""
    mapping: dict[str, Any] = {
        "root": {"id": "root", "parent": None, "children": ["sys"], "message": None},
        "sys": {
            "id": "sys",
            "parent": "root",
            "children": [],
            "message": {
                "id": "sys",
                "author": {"role": "system"},
                "create_time": None,
                "content": {"content_type": "text", "parts": [""]},
                "metadata": {"is_visually_hidden_from_conversation": True},
            },
        },
    }
    parent = "sys"

    def add(node: str, message: dict[str, Any]) -> None:
        nonlocal parent
        mapping[parent]["children"].append(node)
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [],
            "message": {"id": node, **message},
        }
        parent = node

    for number, turn in enumerate(turns):
        add(
            f"u{number}",
            {
                "author": {"role": "user"},
                "create_time": ms(number * 10) / 1000,
                "content": {"content_type": "text", "parts": [turn.prompt]},
            },
        )
        # a regenerated answer: the first one stays on a side branch
        if number == 1:
            mapping[parent]["children"].append("stale")
            mapping["stale"] = {
                "id": "stale",
                "parent": parent,
                "children": [],
                "message": {
                    "id": "stale",
                    "author": {"role": "assistant"},
                    "recipient": "all",
                    "content": {
                        "content_type": "text",
                        "parts": ["A STALE ANSWER THAT WAS REGENERATED"],
                    },
                },
            }
        for index, made in enumerate(c for c in turn.calls if c.kind == "web"):
            add(
                f"c{number}{index}",
                {
                    "author": {"role": "assistant"},
                    "recipient": "browser",
                    "content": {"content_type": "code", "text": f'open_url("{made.args["url"]}")'},
                },
            )
            add(
                f"t{number}{index}",
                {
                    "author": {"role": "tool", "name": "browser"},
                    "content": {"content_type": "tether_browsing_display", "result": made.output},
                },
            )
        add(
            f"a{number}",
            {
                "author": {"role": "assistant"},
                "recipient": "all",
                "create_time": ms(number * 10 + 1) / 1000,
                "content": {"content_type": "text", "parts": [turn.answer]},
            },
        )
    conversation = {
        "title": "Weather work",
        "create_time": ms(0) / 1000,
        "update_time": ms(60) / 1000,
        "mapping": mapping,
        "current_node": parent,
        "conversation_id": "68a1-weather",
        "id": "68a1-weather",
    }
    path.write_text(
        json.dumps([conversation, "not a conversation"], ensure_ascii=False), encoding="utf-8"
    )
    return path


def claude_ai(path: Path, turns: list[Turn] = STORY) -> Path:
    messages = []
    for number, turn in enumerate(turns):
        messages.append(
            {
                "uuid": f"h{number}",
                "sender": "human",
                "created_at": at(number * 10),
                "text": turn.prompt,
                "content": [{"type": "text", "text": turn.prompt}],
                "attachments": [{"file_name": "weather.py", "extracted_content": "def f(): ..."}]
                if number == 0
                else [],
            }
        )
        content: list[dict[str, Any]] = []
        for made in (c for c in turn.calls if c.kind == "web"):
            content.append(
                {"type": "tool_use", "id": "srvtoolu_1", "name": "web_fetch", "input": made.args}
            )
            content.append(
                {
                    "type": "tool_result",
                    "tool_use_id": "srvtoolu_1",
                    "name": "web_fetch",
                    "content": [{"type": "text", "text": made.output}],
                    "is_error": False,
                }
            )
        content.append({"type": "text", "text": turn.answer})
        messages.append(
            {
                "uuid": f"a{number}",
                "sender": "assistant",
                "created_at": at(number * 10 + 1),
                "text": turn.answer,
                "content": content,
            }
        )
    conversation = {
        "uuid": "c0ffee00-weather",
        "name": "Weather work",
        "created_at": at(0),
        "updated_at": at(60),
        "account": {"uuid": "acct"},
        "chat_messages": messages,
    }
    path.write_text(
        json.dumps([conversation, {"uuid": "not-a-conversation"}], ensure_ascii=False),
        encoding="utf-8",
    )
    return path


# --- Memory tools
# ------------------------------------------------------------------------------------------


def mcp_memory(path: Path) -> Path:
    return _jsonl(
        path,
        [
            {
                "type": "entity",
                "name": "weather-service",
                "entityType": "project",
                "observations": ["Deploys to staging need the deploy key", "超时设置为 30 秒"],
            },
            {
                "type": "entity",
                "name": "alice",
                "entityType": "person",
                "observations": ["Prefers pytest -q"],
            },
            {
                "type": "relation",
                "from": "alice",
                "to": "weather-service",
                "relationType": "maintains",
            },
            {"type": "comment", "text": "an unknown kind of line"},
        ],
        broken_at=2,
    )


def basic_memory(folder: Path) -> Path:
    _note = """---
title: Weather Service
type: project
tags: [weather, deploy]
permalink: weather-service
---

# Weather Service

Talks to the Weather API over HTTPS.

## Observations
- [decision] Deploy to staging with the deploy key #deploy (the token was rejected)
- [fact] 天气接口的超时是 30 秒 #timeout
- [ ] a task box, not an observation
- [00:01:12] a transcript time, not a category

## Relations
- maintained_by [[Alice]]
- depends_on [[Weather API]]
"""
    (folder / "projects").mkdir(parents=True, exist_ok=True)
    (folder / "projects" / "weather-service.md").write_text(_note, encoding="utf-8")
    (folder / "people.md").write_text(
        "# Alice\n\nMaintains [[Weather Service]].\n", encoding="utf-8"
    )
    (folder / ".basic-memory").mkdir(exist_ok=True)
    (folder / ".basic-memory" / "ignored.md").write_text("- [fact] hidden folder, not read\n")
    return folder


def mem0(path: Path, shape: str = "results") -> Path:
    items = [
        {
            "id": "f38b689d-6b24-45b7-bced-17fbb4d8bac7",
            "memory": "Prefers morning deploys to staging",
            "hash": "62bc074f",
            "metadata": {"category": "preferences"},
            "created_at": "2026-01-02T09:00:00-07:00",
            "updated_at": None,
            "user_id": "alice",
        },
        {
            "id": "a1b2c3d4-0000-4000-8000-000000000002",
            "memory": "喜欢早上喝咖啡",
            "hash": "9f1e",
            "metadata": None,
            "created_at": "2026-01-03T08:00:00Z",
            "user_id": "alice",
            "agent_id": "helper",
        },
        # an empty one: skipped
        {"id": "a1b2c3d4-0000-4000-8000-000000000003", "memory": "", "hash": "0"},
    ]
    value: Any = (
        {
            "results": items,
            "relations": [
                {"source": "alice", "relationship": "maintains", "destination": "weather-service"}
            ],
        }
        if shape == "results"
        else items
    )
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    return path
