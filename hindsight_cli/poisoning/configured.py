"""Prompts that a text configures rather than says: a developer's string literal that defines their
product's system prompt (``SYSTEM_PROMPT = \"\"\"You are SupportBot…\"\"\"``), a ``system`` field
of an API request body or a config (``"system": "Answer only with JSON"``, ``system: |`` in YAML),
the content of a message whose role is ``system``.

Such a literal is written to instruct a model, the product's, by its name or key: it addresses its
model ("You are…"), confines its replies ("answer only with…"), keeps things from its users ("never
reveal internal IDs"). None of that is said to the agent reading the code. So inside it, the kinds
that read how a text speaks to its reader (``SPOKEN``: an address, a role, a claimed authority, a
reply confined) are not counted; the acts still are (a secret sent out or put into the reply,
earlier instructions set aside, code fetched and run, a backdoor), and the text around the literal
is read as usual. A field named for the agent that reads it (``agent_instructions``,
``assistant_directive``) is no product's prompt: it is read as any text."""

from __future__ import annotations

import re

# kinds that read a text's address to its reader, its tone and its frame: what a product's own
# prompt holds by nature
SPOKEN = frozenset(
    {
        "addressee",
        "response steering",
        "role markup",
        "authority claim",
        "role change",
        "secrecy",
        "new instructions",
        "obedience",
        "output steered",
    }
)

# a name or a key that holds a prompt: system, SYSTEM_PROMPT, systemPrompt, sys_prompt,
# instructions, persona, preamble; not a field that names the agent reading it
# ("agent_instructions", "assistant_directive", "note_for_ai": a tool result's order to its reader)
# The name is read once: its dotted segments, then the last, which holds one of the words (before:
# a lazy run up to each word, then the rest of the name, tried for every word in it: a name of
# 10,000 "system"s, 64 KB of one untrusted field, took 13 s, its square; review AN)
_NAME = (
    r"(?![\w$.]*(?:agent|assistant|llm|bot|directive|todo|note|for_?ai|to_?ai))"
    r"(?:[\w$]*+\.)*+(?=[\w$]*?(?:prompt|system|instructions?|persona|preamble))[\w$]*+"
)
_NAMES = ("prompt", "system", "instruction", "persona", "preamble")
# the name given a string literal: an assignment (=, :=), a key (JSON, YAML, TOML, a keyword
# argument), with a string prefix (r, f, b) and a parenthesised run of literals
_OPEN = re.compile(
    rf"(?im)(?:^|(?<=[\s{{,(;\[]))[\"']?{_NAME}[\"']?\s*+(?::=|=|:)\s*+(?:\(\s*+)?[rRfFbBuU]{{0,2}}"
    r"(?=\"\"\"|'''|\"|'|`)"
)
# a message whose role is system or developer: its content
_ROLE = re.compile(
    r"(?i)[\"']role[\"']\s*:\s*[\"'](?:system|developer)[\"']\s*,\s*[\"']content[\"']\s*:\s*"
    r"(?=\"|')"
)
# a YAML block scalar under such a key: the lines indented deeper than the key
_BLOCK = re.compile(rf"(?im)^(?P<indent>[ \t]*){_NAME}\s*:\s*[|>][-+]?[ \t]*\n")
_LITERAL = re.compile(
    r"\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`]*`"
)
# a run of adjacent literals ("You are a reviewer. " "Focus on bugs.")
# blanks read once (blanks, a "+" that may be missing, blanks again, read as two runs, were split
# every way before a long run of blanks after a literal; review AF)
_JOINED = re.compile(r"\s*+(?:\+\s*+)?(?=[\"'`])")


# a config's key over nested keys ("assistant:\n  model: gpt-4o\n  systemprompt: |…"): a mapping
# that configures something, its keys and values read for acts as a prompt's are, not as a reader
# hailed ("assistent:") or a turn
_PARENT_KEY = re.compile(
    r"(?m)^(?P<indent>[ \t]*)[^\s:#\-\"'][^:\n]{0,40}:[ \t]*\n(?=(?P=indent)[ \t]+[\w.-]+[ \t]*:)"
)


def configured_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a prompt it configures: the literals' spans, quotes included, and the
    rest of a config's mappings (keys over nested keys)."""
    prompts = _prompts(text)
    if ":\n" not in text:
        return prompts
    spans = list(prompts)
    comments = [m.span() for m in _COMMENT.finditer(text)]
    reached = 0
    for match in _PARENT_KEY.finditer(text):
        if match.start() < reached:
            # a mapping nested in one already read is read with it
            continue
        start, end = match.end("indent"), _nested(text, match, len(match.group("indent")))
        reached = end
        # a prompt inside the mapping is read as a prompt, a comment as any text (it speaks to
        # whoever edits the file), the mapping around them for acts
        for hole_start, hole_end in sorted(prompts + comments):
            if start <= hole_start < end:
                spans.append((start, hole_start))
                start = max(start, hole_end)
        if start < end:
            spans.append((start, end))
    return sorted(span for span in spans if span[0] < span[1])


def _prompts(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    lowered = text.lower()
    if not any(map(lowered.__contains__, _NAMES)):
        return spans
    for match in (*_OPEN.finditer(text), *_ROLE.finditer(text)):
        end = match.end()
        # a role declared is the configuration's structure, read with its content
        start = match.start() if match.re is _ROLE else end
        while literal := _LITERAL.match(text, end):
            end = literal.end()
            joined = _JOINED.match(text, end)
            if not joined or not _LITERAL.match(text, joined.end()):
                break
            end = joined.end()
        if end > match.end():
            spans.append((start, end))
    for match in _BLOCK.finditer(text):
        end = _nested(text, match, len(match.group("indent").expandtabs()))
        if end > match.end():
            spans.append((match.end(), end))
    return sorted(spans)


def _nested(text: str, match: re.Match[str], indent: int) -> int:
    """Where the lines after ``match`` indented deeper than ``indent`` end."""
    end = match.end()
    for line in _LINE.finditer(text, match.end()):
        body = line.group()
        if not body:
            break
        if body.strip() and len(body) - len(body.lstrip(" \t")) <= indent:
            break
        end = line.end()
    return end


_LINE = re.compile(r"[^\n]*(?:\n|$)")
_COMMENT = re.compile(r"(?m)^[ \t]*#[^\n]*")


def outside(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with ``spans`` blanked (the same length, so positions hold)."""
    out = list(text)
    for start, end in spans:
        out[start:end] = " " * (end - start)
    return "".join(out)
