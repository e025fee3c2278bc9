"""Secret redaction: applied to every text field before anything is stored."""

from __future__ import annotations

import re
from typing import Any

# (kind, pattern). Order matters: specific token formats before the generic assignment rule.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private_key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.S)),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b")),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}\b")),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}\b")),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b")),
    ("slack_webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/]+")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\b")),
    ("bearer_token", re.compile(r"(?i)(?<=bearer )[A-Za-z0-9._~+/\-]{16,}=*")),
    ("url_password", re.compile(r"\b([a-z][a-z0-9+.\-]{0,20}://[^\s:/@]+):([^\s@/]+)(?=@)", re.I)),
    ("assignment", re.compile(
        r"(?i)\b([A-Z0-9_\-.]*(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key"
        r"|auth|credential)[A-Z0-9_\-.]*)(\s*[:=]\s*|\s+is\s+)(['\"]?)([^\s'\",;]{4,})\3")),
]

_PLACEHOLDER = re.compile(r"\[REDACTED(?::[a-z_]+)?\]")


def _replace(kind: str, match: re.Match[str]) -> str:
    if kind == "url_password":
        return f"{match.group(1)}:[REDACTED:password]"
    if kind == "assignment":
        value = match.group(4)
        if _PLACEHOLDER.fullmatch(value) or value.lower() in {"none", "null", "true", "false", "expired", "****", "bearer", "basic"}:
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}{match.group(3)}[REDACTED:secret]{match.group(3)}"
    return f"[REDACTED:{kind}]"


def redact(text: str) -> tuple[str, int]:
    """Replace secrets in ``text`` with ``[REDACTED:kind]``; return the text and how many were replaced."""
    total = 0
    for kind, pattern in _PATTERNS:
        count = 0

        def sub(match: re.Match[str], kind: str = kind) -> str:
            nonlocal count
            replacement = _replace(kind, match)
            if replacement != match.group(0):
                count += 1
            return replacement

        text = pattern.sub(sub, text)
        total += count
    return text, total


def redact_value(value: Any) -> tuple[Any, int]:
    """Redact every string inside a JSON-like value."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        pairs = [redact_value(item) for item in value]
        return [p[0] for p in pairs], sum(p[1] for p in pairs)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        count = 0
        for key, item in value.items():
            if isinstance(item, str) and re.search(r"(?i)password|secret|token|api[_\-]?key", str(key)) and item:
                if not _PLACEHOLDER.fullmatch(item):
                    out[key], count = "[REDACTED:secret]", count + 1
                    continue
            out[key], n = redact_value(item)
            count += n
        return out, count
    return value, 0
