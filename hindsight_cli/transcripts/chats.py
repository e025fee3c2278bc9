"""Chat exports: ChatGPT's and Claude.ai's ``conversations.json`` (or the downloaded zip holding
it).

ChatGPT: a list of conversations ``{id|conversation_id, title, create_time, mapping,
current_node}``; ``mapping`` is a tree of nodes ``{id, parent, children, message}``, and the
conversation as last seen is the path from ``current_node`` up to the root (edited prompts and
regenerated answers leave other branches, which are not read). A message has ``author.role``
(``user``, ``assistant``, ``tool``, ``system``), ``author.name`` (a tool's), ``create_time`` (epoch
seconds), ``recipient`` (``all``, or the tool an assistant message calls), ``content.content_type``
(``text``, ``multimodal_text``, ``code``, ``execution_output``, ``tether_browsing_display``,
``thoughts`` …) with ``parts`` or ``text``, and ``metadata.is_visually_hidden_from_conversation``.

Claude.ai: a list of ``{uuid, name, created_at, chat_messages}``; a message is ``{uuid, sender:
human | assistant, created_at, text, content: [{type: text | tool_use | tool_result | thinking, …}],
attachments: [{file_name, extracted_content}], files}``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..models import JSONObject, JSONValue
from .base import Context, Reading, array, iso_ms, obj, texts
from .exchange import Assembler, Exchange, clean_text, prompt_text
from .lines import TooLarge, iter_json_array

HINTS = {
    "chatgpt": "ChatGPT's conversations.json: conversations with a mapping of messages",
    "claude": "Claude.ai's conversations.json: conversations with chat_messages",
}
_WEB = ("browser", "web", "web.run", "web.search")
# a tuple, not a set: a transcript's field may be a list or an object, which a set cannot look up
_HIDDEN_TYPES = (
    "thoughts",
    "reasoning_recap",
    "user_editable_context",
    "model_editable_context",
    "system_error",
)


def sniff(path: Path, kind: str) -> bool:
    try:
        first = next(iter_json_array(path, "conversations.json"))
    except TooLarge:
        raise
    except (StopIteration, ValueError, OSError):
        return False
    return (
        isinstance(first, dict) and ("mapping" if kind == "chatgpt" else "chat_messages") in first
    )


def read(path: Path, kind: str, reading: Reading) -> Iterator[Exchange]:
    """Every exchange of every conversation, conversation by conversation."""
    for conversation in iter_json_array(path, "conversations.json"):
        if not isinstance(conversation, dict):
            reading.unknown += 1
            continue
        if kind == "chatgpt" and isinstance(conversation.get("mapping"), dict):
            yield from _chatgpt(conversation, path)
        elif kind == "claude" and isinstance(conversation.get("chat_messages"), list):
            yield from _claude(conversation, path)
        else:
            reading.unknown += 1


def _branch(mapping: JSONObject, current: JSONValue) -> list[JSONObject]:
    """The messages from the root to ``current`` (else to the newest leaf), oldest first."""

    def node(key: JSONValue) -> JSONObject | None:
        found = mapping.get(key) if isinstance(key, str) else None
        return found if isinstance(found, dict) else None

    if node(current) is None:
        roots = [n for n in mapping.values() if isinstance(n, dict) and not n.get("parent")]
        current = roots[0].get("id") if roots else None
        # an export's children may lead back up (a node its own child): each node is visited once
        below = {current}
        while (at := node(current)) is not None and (children := array(at.get("children"))):
            if not isinstance(children[-1], str) or children[-1] in below:
                break
            current = children[-1]
            below.add(current)
    path: list[JSONObject] = []
    seen: set[str] = set()
    while isinstance(current, str) and (at := node(current)) is not None and current not in seen:
        seen.add(current)
        message = at.get("message")
        if isinstance(message, dict):
            path.append(message)
        current = at.get("parent")
    return path[::-1]


def _parts(content: JSONObject) -> str:
    parts = [p for p in array(content.get("parts")) if isinstance(p, str)]
    for name in ("text", "result"):
        value = content.get(name)
        if isinstance(value, str):
            parts.append(value)
    return "\n".join(parts)


def _chatgpt(conversation: JSONObject, path: Path) -> Iterator[Exchange]:
    session = str(
        conversation.get("conversation_id")
        or conversation.get("id")
        or conversation.get("title")
        or ""
    )
    ctx: Context = {"session": session, "title": conversation.get("title"), "file": str(path)}
    assembler = Assembler()
    calls: dict[str, str] = {}
    for message in _branch(obj(conversation["mapping"]), conversation.get("current_node")):
        content = obj(message.get("content"))
        meta = obj(message.get("metadata"))
        if (
            meta.get("is_visually_hidden_from_conversation")
            or content.get("content_type") in _HIDDEN_TYPES
        ):
            continue
        author = obj(message.get("author"))
        role, current = author.get("role"), assembler.current
        if role == "user":
            text = prompt_text(_parts(content))
            done = (
                assembler.prompt(
                    text,
                    session=session,
                    at=iso_ms(message.get("create_time")),
                    anchor=str(message.get("id") or "") or None,
                    begin=0,
                    ctx=ctx,
                )
                if text
                else None
            )
            if done is not None:
                yield done
        elif role == "assistant" and current is not None:
            recipient = str(message.get("recipient") or "all")
            if recipient != "all":
                calls[recipient] = str(message.get("id") or recipient)
                current.call(calls[recipient], recipient, {"query": _parts(content)})
            else:
                current.say(_parts(content))
        elif role == "tool" and current is not None:
            name = str(author.get("name") or "")
            ref = calls.get(name) or next(reversed(calls.values()), "")
            if ref in current.refs and name.startswith(_WEB):
                current.refs[ref].tool = "browser"
            failed = str(obj(meta.get("aggregate_result")).get("status") or "").startswith("failed")
            current.result(ref, not failed, _parts(content))
    last = assembler.finish(0)
    if last is not None:
        yield last


def _claude(conversation: JSONObject, path: Path) -> Iterator[Exchange]:
    session = str(conversation.get("uuid") or conversation.get("name") or "")
    ctx: Context = {"session": session, "title": conversation.get("name"), "file": str(path)}
    assembler = Assembler()
    for message in array(conversation["chat_messages"]):
        if not isinstance(message, dict):
            continue
        blocks = message.get("content") if isinstance(message.get("content"), list) else []
        blocks = blocks or [{"type": "text", "text": message.get("text") or ""}]
        if message.get("sender") == "human":
            names = [
                a.get("file_name") for a in array(message.get("attachments")) if isinstance(a, dict)
            ]
            text = prompt_text("\n".join(texts(blocks)))
            if text and any(names):
                text += "\n(attached: " + ", ".join(str(n) for n in names if n) + ")"
            done = (
                assembler.prompt(
                    text,
                    session=session,
                    at=message.get("created_at"),
                    anchor=str(message.get("uuid") or "") or None,
                    begin=0,
                    ctx=ctx,
                )
                if text
                else None
            )
            if done is not None:
                yield done
        elif assembler.current is not None:
            _claude_answer(assembler.current, blocks)
    last = assembler.finish(0)
    if last is not None:
        yield last


def _claude_answer(current: Exchange, blocks: list[JSONValue]) -> None:
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind, name = block.get("type"), str(block.get("name") or "tool")
        if kind == "text":
            current.say(str(block.get("text") or ""))
        elif kind == "tool_use":
            current.call(str(block.get("id") or name), name, block.get("input"))
        elif kind == "tool_result":
            ref = str(block.get("tool_use_id") or name)
            body = clean_text("\n".join(texts(block.get("content")))) or str(
                block.get("content") or ""
            )
            current.result(ref, not block.get("is_error"), body)
