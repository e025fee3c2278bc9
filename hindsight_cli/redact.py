"""Secret redaction: applied to every text field before anything is stored.

Token formats with a recognisable shape (cloud keys, GitHub/OpenAI/Slack/Stripe tokens, JWTs, PEM
private keys) are replaced wherever they appear. Free-form secrets are found by what surrounds them:
a password in a URL, a value assigned to a secret-sounding name (``DB_PASSWORD=…``, ``"api_key": "…"``,
``token: …``), a header (``Authorization: Bearer …``). tests/test_secrets.py holds the corpus both
ways: secrets that must go and ordinary text (hashes, UUIDs, ``max_tokens=4096``, code) that must stay.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Any

    _Check = Callable[[re.Match[str]], bool]

_B64 = r"A-Za-z0-9+/"

# Names that hold secrets: the keyword may have a prefix (DB_, aws_secret_, x-, _auth) and a short
# suffix (_KEY, _ID, 2), but not any suffix, so max_tokens, TOKEN_URL and author are left alone.
_NAME = (
    r"[\w.\-]*?(?:passw(?:or)?d|passphrase|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key"
    r"|account[_\-]?key|signing[_\-]?key|encryption[_\-]?key|auth|credentials?)"
    r"(?:[_\-.]?(?:key|id|value|b64|base64))?\d*"
)
_NAME_WORDS = ("passw", "passphrase", "pwd", "secret", "token", "auth", "credential") + tuple(  # one in each name
    f"{kind}{sep}key" for kind in ("api", "access", "private", "account", "signing", "encryption") for sep in ("", "_", "-"))

# A value that only points at a secret (or at nothing) is kept: placeholders, env-var references,
# templates, masks, code (a call, a subscript, a dotted name) and file paths.
_REFERENCE = (
    r"\[REDACTED(?::[a-z_]+)?\]|<[^<>]*>|\$\{?[\w.:\-]+\}?|%[\w]+%|\{\{.*\}\}|%\(\w+\)s|[*x•.]+"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*[(\[].*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"
)
_NOT_SECRETS = {"none", "null", "nil", "true", "false", "expired", "bearer", "basic", "undefined", "empty",
                "required", "optional", "redacted", "hidden", "unset", "missing", "invalid"}
_NOT_SECRET_NAMES = {"pwd", "oldpwd"}  # the shell's working-directory variables


_PATH = r"(?:~|\.{1,2})?(?:/[\w.\-@]+)+/?"


def _is_reference(value: str) -> bool:
    import re

    if value.lower() in _NOT_SECRETS or re.fullmatch(_REFERENCE, value) is not None:
        return True
    # A file path (GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json), unless a segment reads as random
    # base64 (digits with both cases), which a key starting with "/" would.
    return re.fullmatch(_PATH, value) is not None and not any(_mixed_case_digits(part) for part in value.split("/"))


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


# (kind, pattern, words, check). A pattern with a group named "secret" replaces only that group; the others
# replace the whole match. Order matters: specific token formats before the generic rules.
# A pattern can only match a text holding one of its words (case-blind when the pattern starts with
# "(?i"), so it is compiled and run only then, and `re` is imported only then: a recording hook that
# compiled them all would spend ~5 ms, and ~10 ms more importing re, on texts that mostly hold none of
# the words. tests/test_secrets.py checks the words against every pattern's matches.
_RULES: list[tuple[str, str, tuple[str, ...], _Check | None]] = [
    ("private_key",
     r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
     ("PRIVATE KEY",), None),
    ("aws_access_key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
     ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"), None),
    # A 40-character AWS secret access key, near the words that name it (a git SHA is hex, not mixed case).
    ("aws_secret_key", rf"(?i:aws|secret)[^\n]{{0,40}}?(?<![{_B64}])(?P<secret>[{_B64}]{{40}})(?![{_B64}=])",
     ("aws", "secret"), _mixed),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), None),
    ("gitlab_token", r"\bglpat-[A-Za-z0-9_\-]{20,}", ("glpat-",), None),
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}", ("sk-ant-",), None),
    ("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9_\-]{20,}", ("sk-",), None),
    ("huggingface_token", r"\bhf_[A-Za-z0-9]{30,}\b", ("hf_",), None),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",), None),
    ("pypi_token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", ("pypi-AgE",), None),
    ("sendgrid_key", r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}", ("SG.",), None),
    ("slack_token", r"\bxox[abposre]-[A-Za-z0-9-]{10,}", ("xox",), None),
    ("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_\-]+", ("hooks.slack.com",), None),
    ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}", ("AIza",), None),
    ("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{24,}",
     ("_live_", "_test_", "whsec_"), None),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", ("eyJ",), None),
    ("authorization",
     r"(?i)(?:authorization|proxy-authorization)[\"']?\s*[:=]\s*[\"']?(?:basic|bearer|token|digest)\s+"
     r"(?P<secret>[A-Za-z0-9._~+/\-]{8,}=*)", ("authorization",), None),
    ("bearer_token", r"(?i)\bbearer\s+(?P<secret>(?=[A-Za-z0-9._~+/\-]*\d)[A-Za-z0-9._~+/\-]{16,}=*)",
     ("bearer",), None),
    ("sas_signature", r"[?&]sig=(?P<secret>[A-Za-z0-9%+/=]{16,})", ("sig=",), None),
    ("password", r"(?i)\b[a-z][a-z0-9+.\-]{0,20}://[^\s:/@]*:(?P<secret>[^\s/?#]+)(?=@[^\s@/]+)", ("://",),
     _url_password),
    ("secret",
     rf"(?i)(?<![\w.\-])(?P<name>{_NAME})[\"']?(?P<sep>[ \t]*(?:=>|[:=])[ \t]*|[ \t]+is[ \t]+)"
     r"(?:(?P<q>[\"'])(?P<qsecret>(?:(?!(?P=q))[^\n]){4,}?)(?P=q)|(?P<secret>[^\s'\",;]{4,}))", _NAME_WORDS, None),
]


def _may_match(pattern: str, words: tuple[str, ...], text: str, folded: str | None) -> bool:
    """Whether ``text`` holds one of the words a match of ``pattern`` must contain. ``folded``: the
    text in lower case, None when it is not ASCII (case-blind, 'ſ' matches 's'): then always."""
    if not pattern.startswith("(?i"):
        return any(word in text for word in words)
    return folded is None or any(word in folded for word in words)


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
    return _redact(text, _RULES)


_LABEL_RULES = [rule for rule in _RULES if rule[0] != "secret"]


def redact_labels(labels: list[str | None]) -> tuple[list[str | None], int]:
    """Redact tags, task and agent ids: token formats only, since ``auth:oauth2`` is a tag, not an assignment."""
    out: list[str | None] = []
    total = 0
    for label in labels:
        text, count = _redact(label, _LABEL_RULES) if label else (label, 0)
        out.append(text)
        total += count
    return out, total


def _redact(text: str, rules: list[tuple[str, str, tuple[str, ...], _Check | None]]) -> tuple[str, int]:
    total = 0
    folded = _fold(text)
    for kind, pattern, words, check in rules:
        if not _may_match(pattern, words, text, folded):
            continue
        import re

        pieces: list[str] = []
        last = 0
        for match in re.finditer(pattern, text):
            span = _span(match) if check is None or check(match) else None
            if span is None or span[0] < last:
                continue
            pieces += [text[last:span[0]], f"[REDACTED:{kind}]"]
            last = span[1]
            total += 1
        if pieces:
            text = "".join(pieces) + text[last:]
            folded = _fold(text)
    return text, total


def _fold(text: str) -> str | None:
    return text.lower() if text.isascii() else None


def _secret_name(key: str) -> bool:
    folded = _fold(key)
    if folded is not None and not any(word in folded for word in _NAME_WORDS):
        return False
    import re

    return re.fullmatch(f"(?i){_NAME}", key) is not None and key.lower() not in _NOT_SECRET_NAMES


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
            if isinstance(item, str) and item and _secret_name(str(key)) and not _is_reference(item):
                out[key], count = "[REDACTED:secret]", count + 1
                continue
            out[key], n = redact_value(item)
            count += n
        return out, count
    return value, 0
