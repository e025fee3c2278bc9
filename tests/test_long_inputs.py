"""Long runs an attacker can hand a hook (a tool's 30 KB output of ``sk-sk-…``, ``token=token=…``,
``key: key: …``): the readings that made them quadratic now read a bounded stretch around each
match. Each bounded reading is held to the unbounded one it replaced on random texts (the same
answers), and long inputs are still redacted where they hold a secret. How long they take is
measured by ``benchmarks/bench_long_inputs.py``, not here."""

from __future__ import annotations

import random
import re

import pytest

from hindsight_cli.poisoning import signals, spelling
from hindsight_cli.redact import prose, redact

_NEGATION_WORDS = ["never ", "not ", "don't ", "declined to ", "stop ", "no longer ", "omit "]
_FILLER = ["send ", "the key", ", ", "; ", ": ", "a", " ", "word ", "\n", "x" * 30 + " ", "."]


def _texts(pieces: list[str], count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 60))) for _ in range(count)]


def test_a_negation_is_read_before_a_position_as_from_the_texts_start() -> None:
    for text in _texts(_NEGATION_WORDS + _FILLER, 400, seed=1):
        for at in range(len(text) + 1):
            whole = signals._NEGATED.search(text, 0, at) is not None
            assert signals._negated_before(text, at) == whole, (text, at)


def test_a_leet_token_is_the_same_token_read_from_its_start() -> None:
    unbounded = re.compile(r"\S*[A-Za-z0-9]\S*")
    pieces = ["!", "@", "$", "+", "a", "B", "3", " ", "\n", "--", "ign0r3", "://x.y"]
    for text in _texts(pieces, 500, seed=2):
        expected = [m.span() for m in unbounded.finditer(text)]
        assert [m.span() for m in spelling._LEET_TOKEN.finditer(text)] == expected, text


def _tokens_as_searched(text: str, base: int, end: int) -> list[tuple[int, int]]:
    out = []
    for token in re.compile(prose._TOKEN).finditer(text, base, end):
        if token.start() - base > 64:
            break
        out.append(token.span())
    return out


def test_the_tokens_near_a_secret_word_are_those_a_search_from_it_finds() -> None:
    pieces = ["key: ", "token ", "sk-", "AbC123xyz789QrS456", "=", "==", " ", "-", ".", "@", "\n"]
    pieces += ["a1B2c3D4e5F6g7H8i9J0", "~/.x", "/", "::", "%", "x" * 20]
    for text in _texts(pieces, 300, seed=3):
        for base in range(0, len(text) + 1, 3):
            end = text.find("\n", base)
            end = end if end >= 0 else len(text)
            near = [m.span() for m in prose.tokens_near(text, base, end)]
            assert near == _tokens_as_searched(text, base, end), (text, base)


@pytest.mark.parametrize(
    "run",
    ["token=", "key: ", "sk-", "${A:-", "password ", "ｔｏｋｅｎ＝"],
)
def test_a_secret_after_a_long_run_is_still_redacted(run: str) -> None:
    secret = "sk-proj-4fJ8kQ2mZx7Lp9Rt3Vb6Nw1Yc5Hd0Gs"
    text = run * 4000 + f"\nOPENAI_API_KEY={secret}\n" + run * 4000
    out, count = redact(text)
    assert secret not in out and count >= 1
    # and a run without one keeps its text
    plain, _ = redact("lorem ipsum " * 2500)
    assert plain == "lorem ipsum " * 2500
