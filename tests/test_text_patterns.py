"""Keyword terms, identifiers and token estimates read a text without CJK characters with patterns
that leave the CJK ranges out (they cost milliseconds to compile at every start); these tests hold
that they find exactly what the full patterns find, in every kind of text."""

from __future__ import annotations

import random
import re

import pytest

from hindsight_cli import text
from hindsight_cli.search.query import foreign
from hindsight_cli.text import CJK

FULL_TOKEN = re.compile(rf"[{CJK}]+|[^\W_{CJK}]+")
FULL_RUN = re.compile(rf"[{CJK}]+")
FULL_CHAR = re.compile(rf"[{CJK}]")
FULL_ID = re.compile(rf"[^\s'\"`()\[\]{{}}<>,;!?{CJK}\u3000-\u303f\uff00-\uff65]+")

# every kind of character a memory holds: ASCII words and code, accents, other scripts, arrows and
# dashes, CJK and its punctuation, fullwidth forms, the edges of each CJK range
PIECES = [
    "kubectl",
    "timed out",
    "127.0.0.1:5432",
    "numpy==2.1.0",
    "snake_case",
    "É",
    "café",
    "Zürich",
    "naïve",
    "Привет",
    "γεια",
    "→",
    "—",
    "…",
    "“quoted”",
    "用户希望回答简短",
    "昨天",
    "カタカナ",
    "ひらがな",
    "한국어",
    "，",
    "。",
    "「」",
    "ＴＯＫＥＮ",
    "ｶﾀｶﾅ",
    "\u3000",
    "\u2e80",
    "\u2fdf",
    "\u2fe0",
    "\u303f",
    "\u3040",
    "\ud7af",
    "\ud7b0",
    "\uff65",
    "\uff66",
    "\uff9f",
    "\uffa0",
    "K",
    " ",
    "\n",
    "_",
    "(",
    "!",
]


def full_terms(value: str) -> list[str]:
    out: list[str] = []
    for token in FULL_TOKEN.findall(value.lower()):
        if FULL_RUN.fullmatch(token):
            out.extend(
                [token] if len(token) == 1 else [token[i : i + 2] for i in range(len(token) - 1)]
            )
        elif token not in text.STOPWORDS:
            out.append(text.stem(token))
    return out


def texts(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(PIECES, k=rng.randint(1, 12))) for _ in range(count)]


@pytest.mark.parametrize("seed", range(4))
def test_terms_ids_and_tokens_match_the_full_patterns(seed: int) -> None:
    for value in texts(seed, 500):
        assert text.terms(value) == full_terms(value), value
        assert text.has_cjk(value) == bool(FULL_CHAR.search(value)), value
        cjk = len(FULL_CHAR.findall(value))
        assert text.estimate_tokens(value) == cjk + -(-(len(value) - cjk) // 4), value
        assert text._id_tokens(value) == FULL_ID.findall(value), value


def test_a_long_text_of_other_scripts_is_read_with_the_pattern() -> None:
    # past the one-by-one limit: the same answers from the compiled pattern
    russian = "Привет мир " * 100
    assert not text.has_cjk(russian)
    assert text.has_cjk(russian + "用户")
    assert text.terms(russian + "用户") == full_terms(russian + "用户")


def test_a_query_in_another_script_is_foreign() -> None:
    assert foreign("用户希望回答简短")
    assert foreign("ｶﾀｶﾅ")
    assert not foreign("café naïve → Zürich")
