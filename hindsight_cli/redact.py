"""Secret redaction: applied to every text field before anything is stored.

Token formats with a recognisable shape (cloud keys, GitHub/OpenAI/Slack/Stripe tokens, JWTs, PEM
private keys) are replaced wherever they appear. Free-form secrets are found by what surrounds them:
a password in a URL, a value assigned to a secret-sounding name (``DB_PASSWORD=…``, ``"api_key": "…"``,
``token: …``), a header (``Authorization: Bearer …``). tests/test_secrets.py holds the corpus both
ways: secrets that must go and ordinary text (hashes, UUIDs, ``max_tokens=4096``, code) that must stay.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

_B64 = r"A-Za-z0-9+/"

# Names that hold secrets: the keyword may have a prefix (DB_, aws_secret_, x-, _auth) and a short
# suffix (_KEY, _ID, 2), but not any suffix, so max_tokens, TOKEN_URL and author are left alone.
_NAME = (
    r"[\w.\-]*?(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key"
    r"|account[_\-]?key|signing[_\-]?key|encryption[_\-]?key|auth|credentials?)"
    r"(?:[_\-.]?(?:key|id|value|b64|base64))?\d*"
)
_SECRET_NAME = re.compile(rf"(?i){_NAME}")

# A value that only points at a secret (or at nothing) is kept: placeholders, env-var references,
# templates, masks, code (a call, a subscript, a dotted name) and file paths.
_REFERENCE = re.compile(
    r"\[REDACTED(?::[a-z_]+)?\]|<[^<>]*>|\$\{?[\w.:\-]+\}?|%[\w]+%|\{\{.*\}\}|%\(\w+\)s|[*x•.]+"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*[(\[].*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"
)
_NOT_SECRETS = {"none", "null", "nil", "true", "false", "expired", "bearer", "basic", "undefined", "empty",
                "required", "optional", "redacted", "hidden", "unset", "missing", "invalid"}
_NOT_SECRET_NAMES = {"pwd", "oldpwd"}  # the shell's working-directory variables


_PATH = re.compile(r"(?:~|\.{1,2})?(?:/[\w.\-@]+)+/?")


def _is_reference(value: str) -> bool:
    if value.lower() in _NOT_SECRETS or _REFERENCE.fullmatch(value) is not None:
        return True
    # A file path (GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json), unless a segment reads as random
    # base64 (digits with both cases), which a key starting with "/" would.
    return _PATH.fullmatch(value) is not None and not any(_mixed_case_digits(part) for part in value.split("/"))


def _mixed_case_digits(value: str) -> bool:
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


def _looks_random(value: str) -> bool:
    """A word in prose ("the token is stored") versus a credential (digits, symbols, mixed case, length)."""
    value = value.rstrip(".,:;!?)")  # "the secret is patience: wait" ends a clause, not a password
    return (any(c.isdigit() for c in value) or any(not c.isalnum() for c in value)
            or any(c.isupper() for c in value[1:]) or len(value) >= 20)


def _assignment(match: re.Match[str]) -> bool:
    if match.group("name").lower() in _NOT_SECRET_NAMES:
        return False
    value = match.group("secret")
    if _is_reference(value):
        return False
    quoted = match.group("q") is not None
    # `KEY=value` and quoted values are assignments; `token: x` and `password is x` also read as prose.
    return quoted or "=" in match.group("sep") or _looks_random(value)


def _mixed(match: re.Match[str]) -> bool:
    return _mixed_case_digits(match.group("secret"))


def _url_password(match: re.Match[str]) -> bool:
    return not _is_reference(match.group("secret"))


# (kind, pattern, check). A pattern with a group named "secret" replaces only that group; the others
# replace the whole match. Order matters: specific token formats before the generic rules.
_Check = Callable[[re.Match[str]], bool]
_PATTERNS: list[tuple[str, re.Pattern[str], _Check | None]] = [
    ("private_key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
        re.S), None),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b"), None),
    # A 40-character AWS secret access key, near the words that name it (a git SHA is hex, not mixed case).
    ("aws_secret_key", re.compile(
        rf"(?i:aws|secret)[^\n]{{0,40}}?(?<![{_B64}])(?P<secret>[{_B64}]{{40}})(?![{_B64}=])"), _mixed),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"), None),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}"), None),
    ("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}"), None),
    ("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9_\-]{20,}"), None),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), None),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), None),
    ("pypi_token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"), None),
    ("sendgrid_key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"), None),
    ("slack_token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), None),
    ("slack_webhook", re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_\-]+"), None),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"), None),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}"), None),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), None),
    ("authorization", re.compile(
        r"(?i)(?:authorization|proxy-authorization)[\"']?\s*[:=]\s*[\"']?(?:basic|bearer|token|digest)\s+"
        r"(?P<secret>[A-Za-z0-9._~+/\-]{8,}=*)"), None),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+(?P<secret>(?=[A-Za-z0-9._~+/\-]*\d)[A-Za-z0-9._~+/\-]{16,}=*)"),
     None),
    ("sas_signature", re.compile(r"[?&]sig=(?P<secret>[A-Za-z0-9%+/=]{16,})"), None),
    ("password", re.compile(
        r"(?i)\b[a-z][a-z0-9+.\-]{0,20}://[^\s:/@]*:(?P<secret>[^\s/?#]+)(?=@[^\s@/]+)"), _url_password),
    ("secret", re.compile(
        rf"(?i)(?<![\w.\-])(?P<name>{_NAME})[\"']?(?P<sep>[ \t]*(?:=>|[:=])[ \t]*|[ \t]+is[ \t]+)"
        r"(?:(?P<q>[\"'])(?P<qsecret>(?:(?!(?P=q))[^\n]){4,}?)(?P=q)|(?P<secret>[^\s'\",;]{4,}))"), None),
]


def _span(match: re.Match[str]) -> tuple[int, int] | None:
    """The part of ``match`` to replace, or None to keep it."""
    groups = match.re.groupindex
    if "qsecret" in groups and match.group("qsecret") is not None:
        value = match.group("qsecret")
        if match.group("name").lower() in _NOT_SECRET_NAMES or _is_reference(value):
            return None
        return match.span("qsecret")
    if "name" in groups:
        return match.span("secret") if _assignment(match) else None
    return match.span("secret") if "secret" in groups else match.span()


def redact(text: str) -> tuple[str, int]:
    """Replace secrets in ``text`` with ``[REDACTED:kind]``; return the text and how many were replaced."""
    return _redact(text, _PATTERNS)


_LABEL_PATTERNS = [entry for entry in _PATTERNS if entry[0] != "secret"]


def redact_labels(labels: list[str | None]) -> tuple[list[str | None], int]:
    """Redact tags, task and agent ids: token formats only, since ``auth:oauth2`` is a tag, not an assignment."""
    out: list[str | None] = []
    total = 0
    for label in labels:
        text, count = _redact(label, _LABEL_PATTERNS) if label else (label, 0)
        out.append(text)
        total += count
    return out, total


def _redact(text: str, patterns: list[tuple[str, re.Pattern[str], _Check | None]]) -> tuple[str, int]:
    total = 0
    for kind, pattern, check in patterns:
        pieces: list[str] = []
        last = 0
        for match in pattern.finditer(text):
            span = _span(match) if check is None or check(match) else None
            if span is None or span[0] < last:
                continue
            pieces += [text[last:span[0]], f"[REDACTED:{kind}]"]
            last = span[1]
            total += 1
        if pieces:
            text = "".join(pieces) + text[last:]
    return text, total


def redact_value(value: Any) -> tuple[Any, int]:
    """Redact every string inside a JSON-like value; a string under a secret-named key goes whole."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        pairs = [redact_value(item) for item in value]
        return [p[0] for p in pairs], sum(p[1] for p in pairs)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        count = 0
        for key, item in value.items():
            if (isinstance(item, str) and _SECRET_NAME.fullmatch(str(key)) and str(key).lower() not in _NOT_SECRET_NAMES
                    and item and not _is_reference(item)):
                out[key], count = "[REDACTED:secret]", count + 1
                continue
            out[key], n = redact_value(item)
            count += n
        return out, count
    return value, 0
