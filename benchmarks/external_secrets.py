"""Leaks and false positives of the redaction rules on a corpus built from gitleaks' published rules.

    python benchmarks/external_secrets.py --gitleaks PATH [--checkout DIR] [--show]

PATH is a gitleaks checkout or its git directory (``git clone https://github.com/gitleaks/gitleaks``;
MIT). Secrets: for each rule in ``config/gitleaks.toml``, a value drawn from the rule's own pattern
(seeded, so every run sees the same values), put in one of a few contexts an agent records (an
env line, YAML, JSON, XML, a constructor's argument, prose; a rule keyed on a service's name gets
the name), kept when it is 12 characters or more. Look-alikes: the false-positive examples of the
rules in ``cmd/generate/config/rules/*.go``, less those that are real-shaped tokens gitleaks only
spares for its own reasons (``_AMBIGUOUS``). Each item falls in the ``tune`` or the ``check`` half
by its rule's name (CRC-32): the rules were changed looking at the tune half's misses only.
``--checkout DIR`` measures another checkout's rules (say, main). A leak is any 8 characters of the
secret left in the output; a false positive is a look-alike that comes out changed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import subprocess
import sys
import tomllib
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
_ALNUM = string.ascii_letters + string.digits
# the assignment shapes of gitleaks' "semi-generic" rules: the secret follows the service's name
_OPERATOR = "(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)"
_NAMED = (
    "{I}_API_KEY={s}",
    '{i}_token: "{s}"',
    '{{"{i}Key": "{s}"}}',
    "export {I}_SECRET='{s}'",
    "<{i}Token>{s}</{i}Token>",
    "{i}.api.key = {s}",
    "the {i} key is {s}, rotate it later",
    "{I}={s}",
    "{i}: {s}",
    'client = {i}.Client("{s}")',
)
_BARE = (
    "{s}",
    "request failed: 401 for token {s}",
    "CONFIG_VALUE={s}",
    'headers = {{"X-Auth": "{s}"}}',
    "set it to {s} in the dashboard",
)
# False-positive examples that are real-shaped tokens (gitleaks spares them by a keyword or an
# allowlist of its own): no look-alike for a memory store.
_AMBIGUOUS = (
    "ops_eyJzaWduSW5BZGRyZXNzIjoiaHR0cHM6...",
    "CloudFront-Signature",
    "authenticity_token",
    "MailchimpSDK",
    "meraki-api-key: acdeFf",
    "rookTable",
    "token3",
    "token4",
    "AbCeFG123",
    "sumOfExposures",
    "sk-ant-",
    "adf4b1dbRdW3",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJjb25maWRlbmNlIjowLjh9",
    "dapi1234",
    "meraki_token = 5cb4",
    "sgp_local_",
)


def _read(source: Path, path: str) -> str:
    if (source / path).exists():
        return (source / path).read_text()
    git = (
        ["git", "--git-dir", str(source)]
        if (source / "HEAD").exists()
        else ["git", "-C", str(source)]
    )
    return subprocess.run(
        [*git, "show", f"HEAD:{path}"], capture_output=True, text=True, check=True
    ).stdout


def _rule_files(source: Path) -> list[str]:
    folder = "cmd/generate/config/rules"
    if (source / folder).is_dir():
        return [str(p.relative_to(source)) for p in sorted((source / folder).glob("*.go"))]
    git = (
        ["git", "--git-dir", str(source)]
        if (source / "HEAD").exists()
        else ["git", "-C", str(source)]
    )
    listed = subprocess.run(
        [*git, "ls-tree", "--name-only", "HEAD", f"{folder}/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in listed.splitlines() if line.endswith(".go")]


def _python(pattern: str) -> str:
    """A Go pattern as Python reads it."""
    pattern = pattern.replace("[[:alnum:]]", "[a-zA-Z0-9]").replace("[:alnum:]", "a-zA-Z0-9")
    pattern = pattern.replace("[[:alpha:]]", "[a-zA-Z]").replace("\\z", "\\Z").replace("\\x60", "`")
    return "(?i)" + pattern.replace("(?i)", "") if "(?i)" in pattern[1:] else pattern


class _Draw:
    """A string a parsed pattern matches, and the span of one group in it."""

    def __init__(self, rng: random.Random, group: int) -> None:
        self.rng, self.group, self.out, self.span, self.inside = rng, group, [], None, 0

    def items(self, parsed: Any) -> None:
        for op, arg in parsed:
            self.item(str(op), arg)

    def item(self, op: str, arg: Any) -> None:
        import re._constants as c  # type: ignore[import-not-found]

        if op == "LITERAL":
            self.out.append(chr(arg))
        elif op in ("ANY", "NOT_LITERAL"):
            self.out.append(self.rng.choice(_ALNUM))
        elif op == "IN":
            self.out.append(self.rng.choice(_chars(arg) or _ALNUM))
        elif op in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            if self.inside:
                top = low + 30 if high == c.MAXREPEAT else min(high, low + 40)
                count = (
                    high
                    if high - low <= 60 and self.rng.random() < 0.5
                    else self.rng.randint(low, top)
                )
            else:
                count = low
            for _ in range(count):
                self.items(sub)
        elif op == "SUBPATTERN":
            self.subpattern(arg)
        elif op == "BRANCH":
            self.items(self.rng.choice(arg[1]))
        elif op == "ATOMIC_GROUP":
            self.items(arg)

    def subpattern(self, arg: Any) -> None:
        number, sub = arg[0], arg[3]
        if number != self.group:
            self.items(sub)
            return
        start = len("".join(self.out))
        self.inside += 1
        self.items(sub)
        self.inside -= 1
        self.span = (start, len("".join(self.out)))


def _chars(items: Any) -> str:
    out, negate = [], False
    for op, arg in items:
        if str(op) == "NEGATE":
            negate = True
        elif str(op) == "LITERAL":
            out.append(chr(arg))
        elif str(op) == "RANGE":
            out.extend(chr(c) for c in range(arg[0], min(arg[1], arg[0] + 200) + 1))
        elif str(op) == "CATEGORY":
            out.extend(
                {"CATEGORY_DIGIT": string.digits, "CATEGORY_SPACE": " "}.get(str(arg), _ALNUM + "_")
            )
    chars = [c for c in _ALNUM if c not in out] if negate else out
    return "".join(c for c in chars if c.isprintable() and c not in "\t\n\r\x0b\x0c")


def _secret(pattern: str, group: int, rng: random.Random) -> str | None:
    """A value the rule's secret group takes, checked against the pattern."""
    import re._parser as parser  # type: ignore[import-not-found]

    compiled = re.compile(pattern)
    group = group if compiled.groups >= group else 0
    for _ in range(30):
        draw = _Draw(rng, group)
        draw.items(parser.parse(pattern, compiled.flags))
        text = "".join(draw.out)
        span = (0, len(text)) if group == 0 else draw.span
        found = compiled.search(text)
        if found and span and found.group(group) == text[span[0] : span[1]]:
            return text[span[0] : span[1]]
    return None


def secrets(source: Path) -> list[dict[str, str]]:
    rng, out = random.Random(31), []
    for rule in tomllib.loads(_read(source, "config/gitleaks.toml"))["rules"]:
        if "regex" not in rule or rule["id"] == "generic-api-key":
            continue
        try:
            value = _secret(_python(rule["regex"]), rule.get("secretGroup", 1), rng)
        except (re.error, ValueError, IndexError):
            continue
        if not value or len(value) < 12 or any(c.isspace() for c in value):
            continue
        name = re.sub(r"[^a-z0-9]", "", (rule.get("keywords") or [rule["id"]])[0].lower()) or "svc"
        shape = rng.choice(_NAMED if _OPERATOR in rule["regex"] else _BARE)
        text = shape.format(i=name, I=name.upper(), s=value)
        out.append({"half": _half(rule["id"]), "name": rule["id"], "text": text, "secret": value})
    return out


def lookalikes(source: Path) -> list[dict[str, str]]:
    out, seen = [], set()
    for path in _rule_files(source):
        for block in re.findall(
            r"fps\s*:?=\s*(?:append\([^\n]*)?\[\]string\{(.*?)\n\t\}", _read(source, path), re.S
        ):
            body = "\n".join(
                line for line in block.split("\n") if not line.strip().startswith("//")
            )
            for found in re.finditer(r'`([^`]*)`(?!\s*\+)|"((?:[^"\\\n]|\\.)*)"(?!\s*\+)', body):
                text = found.group(1) if found.group(1) is not None else _unquote(found.group(2))
                if (
                    len(text) < 6
                    or "+" in body[max(0, found.start() - 3) : found.start()]
                    or text in seen
                ):
                    continue
                seen.add(text)
                if not _ambiguous(text):
                    out.append({"half": _half(text), "name": Path(path).name, "text": text})
    return out


def _unquote(body: str) -> str:
    """A Go string literal's body, its escapes read (an unknown one kept as written)."""
    try:
        return str(json.loads(f'"{body}"'))
    except json.JSONDecodeError:
        return body.replace('\\"', '"')


def _ambiguous(text: str) -> bool:
    if any(part in text for part in _AMBIGUOUS):
        return True
    return "AIza" in text and not ("abcdefghij" in text or "AIzaaaa" in text)


def _half(key: str) -> str:
    return "tune" if zlib.crc32(key.encode()) % 2 == 0 else "check"


def _leaked(out: str, secret: str) -> bool:
    # "[REDACTED:shippo_token]" holds "shippo_t": the label is no part of the secret
    out = re.sub(r"\[REDACTED(?::\w+)?\]", "\0", out)
    return any(secret[i : i + 8] in out for i in range(max(1, len(secret) - 7)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gitleaks", type=Path, required=True)
    parser.add_argument("--checkout", type=Path, default=ROOT)
    parser.add_argument("--show", action="store_true", help="list the tune half's misses")
    args = parser.parse_args()
    sys.path.insert(0, str(args.checkout))
    from hindsight_cli.redact import redact

    found, looks = secrets(args.gitleaks), lookalikes(args.gitleaks)
    for half in ("tune", "check"):
        leaks = [
            s for s in found if s["half"] == half and _leaked(redact(s["text"])[0], s["secret"])
        ]
        changed = [x for x in looks if x["half"] == half and redact(x["text"])[0] != x["text"]]
        total = sum(s["half"] == half for s in found)
        shown = sum(x["half"] == half for x in looks)
        print(
            f"{half}: {len(leaks)}/{total} secrets leaked, {len(changed)}/{shown} look-alikes changed"
        )
        if args.show and half == "tune":
            for item in leaks:
                print("  LEAK", item["name"], "|", item["text"][:120])
            for item in changed:
                print("  FP", item["name"], "|", item["text"][:120].replace("\n", "\\n"))


if __name__ == "__main__":
    main()
