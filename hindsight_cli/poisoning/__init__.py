"""Poisoning defence (DESIGN §6): text from an untrusted source that reads like instructions to the
agent is quarantined at write time (low confidence, a tag, the reason in metadata) and ranked after
every memory that is not, so a fetched web page can never outrank what the user or the agent knows."""

from __future__ import annotations

import re

UNTRUSTED_SOURCES = frozenset({"web", "tool", "import", "email", "external", "unknown"})
QUARANTINE_TAG = "quarantined"
QUARANTINE_CONFIDENCE = 0.1

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(rx, re.I)) for name, rx in (
    ("override", r"\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|any|"
                 r"your|the|system)\b[^.\n]{0,30}\b(instructions?|prompts?|rules|guidelines|messages|directions)"),
    ("new instructions", r"\b(new|updated|real|actual|hidden)\s+(instructions?|system prompt|directives?)\s*:"),
    ("role change", r"\b(you are now|from now on,? you|act as (an? )?(unrestricted|jailbroken|dan\b)|"
                    r"pretend (to be|you are)|enter (developer|god|jailbreak) mode)"),
    ("prompt leak", r"\b(reveal|print|show|repeat|output)\b[^.\n]{0,30}\b(system prompt|your instructions|hidden prompt)"),
    ("secrecy", r"\b(do not|don't|never)\s+(tell|inform|mention|reveal|show)\b[^.\n]{0,20}\b(the )?(user|human|anyone)"),
    ("exfiltration", r"\b(send|post|upload|forward|exfiltrate|leak)\b[^\n]{0,60}?(\b(api keys?|tokens?|credentials?|"
                     r"secrets?|passwords?|ssh keys?)\b|\.env\b)[^\n]{0,40}?\b(to|at)\b"),
    ("remote code", r"(curl|wget)\s[^\n|]{0,200}\|\s*(sudo\s+)?(ba|z)?sh\b|\brm\s+-rf\s+(/|~)(\s|$)"),
    ("tool directive", r"\b(always|must|immediately)\s+(run|execute|call|invoke)\b[^.\n]{0,40}\b(command|tool|function|script)"),
    ("model markup", r"<\|?(im_start|system|endoftext)\|?>|\[/?INST\]|<<SYS>>"),
    ("override (zh)", r"(忽略|无视|忘记)(之前|以上|先前|所有|全部)?的?(所有)?(指令|指示|规则|提示)"),
    ("role change (zh)", r"(你现在是|从现在起你|扮演一个没有限制)"),
))


def instruction_like(text: str) -> list[str]:
    """The kinds of instruction-like phrasing found in ``text`` (empty when none)."""
    return [name for name, pattern in _PATTERNS if pattern.search(text)]


def quarantine_reason(content: str, source: str) -> dict[str, object] | None:
    """Why a memory must be quarantined, or None: only untrusted sources are judged."""
    if source not in UNTRUSTED_SOURCES:
        return None
    found = instruction_like(content)
    if not found:
        return None
    return {"reason": f"instruction-like text from an untrusted source ({source})", "matched": found}
