"""The worst a long input costs redaction and the injection detector: 30,000 characters (what a hook
is handed of a tool's output) of one piece repeated (``sk-``, ``token=``, ``key: ``, ``${A:-``, …),
of pieces mixed at random and of random characters; the slowest cases, each against plain prose of
the same length in the same run. Not a test:

    python benchmarks/bench_long_inputs.py [--size 30000] [--top 8] [--root OTHER_CHECKOUT]
"""

from __future__ import annotations

import argparse
import os
import random
import string
import sys
import time
from pathlib import Path

PIECES = [
    "a", "A1", "=", "token=", "password ", "key: ", "\\x41", "\\101", "chr(65)+",
    "String.fromCharCode(65,", "'a'+", '"a" ', "[::-1]", "| rev ", "| base64 -d ", "%41", "&#65;",
    "\\u0041", "0x41,", "a.", "a ", "a\n", "ab\t", "-", "_", "${A:-", "&lt;", "\u200b",
    "ｔｏｋｅｎ＝", "you must ", "ignore previous ", "send the ", "http://a.b/", "SYSTEM: ",
    "<|im_start|>", "aGVsbG8=", "AKIA", "sk-", "ghp_", '"secret": "', "pass ", "IFS=", "=\n",
    'a = "', '+"', "){", "\\", "'", '"', "-----BEGIN ", "Authorization: Bearer ", "PIN=",
    '/p:="', "<<< A1b2C3d4E5 ", " ", "\t", "https://", "expect pass send ",
]  # fmt: skip


def cases(size: int) -> dict[str, str]:
    rng = random.Random(7)
    out = {f"repeat {p!r}": (p * (size // len(p) + 1))[:size] for p in PIECES}
    for i in range(20):
        out[f"mixed {i}"] = "".join(rng.choice(PIECES) for _ in range(size // 4))[:size]
    for i in range(10):
        alphabet = rng.choice(
            [string.ascii_letters + string.digits, "01", "aA=+/", string.printable]
        )
        out[f"random {i}"] = "".join(rng.choice(alphabet) for _ in range(size))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=30_000)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    sys.path.insert(0, str(args.root))
    from hindsight_cli.poisoning import instruction_like
    from hindsight_cli.redact import redact

    def timed(text: str) -> tuple[float, float]:
        started = time.perf_counter()
        redact(text)
        middle = time.perf_counter()
        instruction_like(text)
        return middle - started, time.perf_counter() - middle

    prose = ("The deploy failed because the registry refused the image tag. " * 600)[: args.size]
    timed(prose)
    floor = timed(prose)
    rows = sorted(((*timed(text), name) for name, text in cases(args.size).items()), reverse=True,
                  key=lambda row: row[0] + row[1])  # fmt: skip
    print(f"{args.root}: {args.size} characters, load {os.getloadavg()[0]:.1f}")
    print(f"plain prose: redaction {floor[0] * 1000:.0f} ms, detector {floor[1] * 1000:.0f} ms")
    for redaction, detection, name in rows[: args.top]:
        print(
            f"{name:28} redaction {redaction * 1000:6.0f} ms  detector {detection * 1000:6.0f} ms"
        )


if __name__ == "__main__":
    main()
