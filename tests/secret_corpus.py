"""The redaction corpus in tests/data: secrets that must go and look-alikes that must stay.

Each file holds items, each starting with a line ``## name``; the lines after it are the item's
text. ``⟦…⟧`` marks a secret (removed from the text; what it encloses must never be stored),
``{kind:n}`` a random body drawn from a seeded generator, so the repository holds no string a secret
scanner would flag and every run sees the same values. Lines starting with ``#`` before the first
item are comments. Used by tests/test_secrets.py and benchmarks/redaction_corpus.py.
"""

from __future__ import annotations

import base64
import random
import re
import string
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
ALNUM = string.ascii_letters + string.digits
_ALPHABETS = {
    "alnum": ALNUM,
    "hex": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "b64": ALNUM + "+/",
    "b64url": ALNUM + "-_",
    "upper": string.ascii_uppercase + string.digits,
    "lower": string.ascii_lowercase + string.digits,
    "digits": string.digits,
    "base32": "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
    "bech32": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "letters": string.ascii_letters,
    "base58": "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
}
_SYMBOLS = "!#%&*+-=?@^_"
_WORDS = [
    "Sommer",
    "Winter",
    "Dragon",
    "Falcon",
    "Tiger",
    "Harbor",
    "Velvet",
    "Copper",
    "Nimbus",
    "Orchid",
    "Pepper",
    "Quartz",
    "Saturn",
    "Tundra",
    "Walrus",
    "Zephyr",
    "Maple",
    "Cobalt",
    "Ember",
    "Lotus",
]


@dataclass(frozen=True)
class Item:
    name: str
    text: str
    secrets: tuple[str, ...]


class _Bodies:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def draw(self, n: int, alphabet: str) -> str:
        """A body with a digit, an upper- and a lower-case letter wherever the alphabet has them."""
        needed = sum(any(f(c) for c in alphabet) for f in (str.isdigit, str.isupper, str.islower))
        if n < needed:
            # ``{alnum:1}``, or ``{hex}`` with no length, could never hold all of them: drawn for
            # ever (a corpus writer's item froze the loader)
            raise ValueError(f"a body of {n} characters cannot hold the {needed} kinds it needs")
        while True:
            body = "".join(self.rng.choice(alphabet) for _ in range(n))
            if all(
                any(f(c) for c in body) == any(f(c) for c in alphabet)
                for f in (str.isdigit, str.isupper, str.islower)
            ):
                return body

    def password(self, symbols: bool = True) -> str:
        word = self.rng.choice(_WORDS)
        middle = self.draw(3, string.ascii_lowercase) + self.draw(2, string.ascii_uppercase)
        tail = str(self.rng.randint(10, 9999)) + (
            self.rng.choice(_SYMBOLS) if symbols else self.rng.choice("xyzQRS")
        )
        return word[: self.rng.randint(3, len(word))] + middle + tail

    def pem_lines(self, n: int, prefix: str = "") -> str:
        lines = [self.draw(64, _ALPHABETS["b64"]) for _ in range(n)] + [
            self.draw(24, _ALPHABETS["b64"]) + "=="
        ]
        lines[0] = prefix + lines[0][len(prefix) :]
        return "\n".join(lines)

    def expand(self, kind: str, arg: str) -> str:
        n = int(arg) if arg else 0
        if kind in _ALPHABETS:
            return self.draw(n, _ALPHABETS[kind])
        if kind == "bytes":
            # a key as a JSON or YAML list of byte values (a Solana keypair file)
            return ",".join(str(self.rng.randrange(256)) for _ in range(n or 64))
        if kind == "pw":
            return self.password()
        if kind == "pwplain":
            return self.password(symbols=False)
        if kind == "uuid":
            h = self.draw(32, _ALPHABETS["hex"])
            return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        if kind == "pem":
            return self.pem_lines(n or 6)
        # a whole PEM private key, base64 again (kubeconfig client-key-data)
        if kind == "pemkey_b64":
            pem = (
                "-----BEGIN RSA "
                "PRIVATE KEY-----\n" + self.pem_lines(n or 4) + "\n-----END RSA "
                "PRIVATE KEY-----\n"
            )
            return base64.b64encode(pem.encode()).decode()
        if kind == "pemcert":
            return self.pem_lines(n or 6, prefix="MIIDdzCCAl+gAwIBAgIU")
        if kind == "discord":
            return (
                "M"
                + self.draw(25, ALNUM)
                + "."
                + self.draw(6, ALNUM + "-_")
                + "."
                + self.draw(38, ALNUM + "-_")
            )
        if kind == "azsecret":
            return (
                self.draw(3, ALNUM)
                + str(self.rng.randint(0, 9))
                + "Q~"
                + self.draw(34, ALNUM + "~.-_")
            )
        if kind == "jwtio":
            # jwt.io's sample token (its claims), signed with the debugger's placeholder key for
            # HS256, HS384 or HS512: a documentation sample, public (``redact.public.sample_jwt``)
            return _jwt_io(n or 256)
        if kind == "jwt":
            head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=").decode()
            body = (
                base64.urlsafe_b64encode(b'{"sub":"1234567890","role":"admin"}')
                .rstrip(b"=")
                .decode()
            )
            return f"{head}.{body}.{self.draw(43, ALNUM + '-_')}"
        raise ValueError(f"unknown placeholder {{{kind}:{arg}}}")


def _jwt_io(bits: int) -> str:
    import hashlib
    import hmac
    import json

    def part(value: object) -> str:
        raw = json.dumps(value, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    head = part({"alg": f"HS{bits}", "typ": "JWT"})
    body = part({"sub": "1234567890", "name": "John Doe", "iat": 1516239022})
    key = f"your-{bits}-bit-secret".encode()
    mac = hmac.new(key, f"{head}.{body}".encode(), getattr(hashlib, f"sha{bits}")).digest()
    return f"{head}.{body}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


_KINDS = (
    *_ALPHABETS,
    "bytes",
    "pw",
    "pwplain",
    "uuid",
    "pem",
    "pemkey_b64",
    "pemcert",
    "discord",
    "azsecret",
    "jwt",
    "jwtio",
)
_PLACEHOLDER = re.compile(r"\{(" + "|".join(_KINDS) + r")(?::(\d+))?\}")
_SECRET = re.compile("⟦(.*?)⟧", re.S)


def load(name: str, seed: int = 16) -> list[Item]:
    """The items of tests/data/``name``, expanded."""
    bodies = _Bodies(seed)
    items: list[Item] = []
    blocks = re.split(r"(?m)^## ", (DATA / name).read_text(encoding="utf-8"))[1:]
    for block in blocks:
        title, _, body = block.partition("\n")
        body = body.rstrip("\n")
        body = _PLACEHOLDER.sub(lambda m: bodies.expand(m.group(1), m.group(2) or ""), body)
        secrets = tuple(m.group(1) for m in _SECRET.finditer(body))
        items.append(Item(title.strip(), _SECRET.sub(lambda m: m.group(1), body), secrets))
    return items


def leaks(redacted: str, item: Item) -> list[str]:
    """The secrets of ``item`` still in ``redacted``, whole or in part: any 8 characters of a secret
    (all of a shorter one) that the text did not hold outside the secret (a user name, a word)."""
    found = []
    outside = _outside(item)
    # "[REDACTED:rubygems_key]" holds "rubygems"
    redacted = re.sub(r"\[REDACTED(?::\w+)?\]", "\0", redacted)
    for secret in item.secrets:
        for piece in (p.strip() for p in secret.splitlines()):
            width = min(len(piece), 8)
            windows = (
                {piece[i : i + width] for i in range(len(piece) - width + 1)} if piece else set()
            )
            if any(w in redacted and w not in outside for w in windows):
                found.append(piece)
                break
    return found


def _outside(item: Item) -> str:
    text = item.text
    for secret in item.secrets:
        text = text.replace(secret, "\0")
    return text
