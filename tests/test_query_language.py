"""Ordinary English is not read as foreign (issue 30, point 6): capitals, hyphens and diacritics are
words of the query's language — the keyword side keeps them and vector-only candidates stay on —
and only letters of another script make a query foreign."""

from __future__ import annotations

import json

import pytest

from hindsight_cli.search import query

MINILM = "hindsight/all-MiniLM-L6-v2-int8"

ENGLISH = [
    "who did she see in the ER",
    "when did they fly to LA",
    "the Los Angeles office",
    "a trip to El Paso",
    "a De Niro film",
    "my new e-mail address",
    "the café on the corner",
    "Soufflé for dessert",
    "a naïve question",
    "the Zürich team",
    "Nina's déjà vu",
    "the Île-de-France trains",
]
FOREIGN = [
    "数据库连接失败",
    "как настроить кэш",
    "πού είναι το αρχείο",
    "مشكلة في الخادم",
    "キャッシュの設定",
]
# Latin-script words are the query's own, in any language: the foreign rule is for other scripts
LATIN = ["el hotel de la playa", "wo ist der Bahnhof", "crème de la crème", "la dolce vita"]


@pytest.mark.parametrize("text", ENGLISH)
def test_capitals_hyphens_and_diacritics_are_english(text: str) -> None:
    assert not query.foreign(text)
    assert query.vector_floor(text, MINILM, 0.2) == 0.2


@pytest.mark.parametrize("text", LATIN)
def test_latin_script_words_of_any_language_are_not_foreign(text: str) -> None:
    assert not query.foreign(text)
    assert query.vector_floor(text, MINILM, 0.2) == 0.2


@pytest.mark.parametrize("text", FOREIGN)
def test_other_scripts_are_foreign(text: str) -> None:
    assert query.foreign(text)
    assert query.vector_floor(text, MINILM, 0.2) == float("inf")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("who did she see in the ER", "er"),
        ("when did they fly to LA", "la"),
        ("a trip to El Paso", "el"),
        ("a De Niro film", "de"),
        ("Los Angeles", "los"),
        ("my new e-mail address", "e"),
    ],
)
def test_a_name_that_spells_a_function_word_stays_in_the_keyword_side(text: str, kept: str) -> None:
    assert kept in query.keyword_terms(text, derived=False)
    # written in lower case inside another language's sentence, it is still dropped
    assert "la" not in query.keyword_terms("la casa de la playa", derived=False)


MEMORIES = [
    "We had dinner at a small coffee shop near the river",
    "The deploy pipeline broke on Tuesday",
    "Our flight to Los Angeles landed at noon",
]


@pytest.mark.model
@pytest.mark.parametrize(
    ("question", "expected"),
    [("which café did we eat at", 0), ("trip to LA", 2), ("Zürich? no: the noon flight", 2)],
)
def test_such_a_query_finds_by_meaning_through_the_cli(cli, question: str, expected: int) -> None:
    ids = []
    for text in MEMORIES:
        result = cli("record", text)
        assert result.exit_code == 0, result.stderr
        ids.append(result.stdout.strip())
    result = cli("search", question, "--json")
    assert result.exit_code == 0, result.stderr
    hits = json.loads(result.stdout)
    assert hits and hits[0]["id"] == ids[expected]
    # a query in another script still finds nothing by meaning alone with the English-only model
    other = json.loads(cli("search", "кофейня у реки", "--json").stdout)
    assert other == []


def test_the_digits_of_an_address_match_nothing_through_the_cli(cli) -> None:  # noqa: ANN001
    """Keyword matches on bare one- and two-digit numbers carry no weight (issue 30, point 4): the
    0 and 1 of 127.0.0.1 matched every memory with a number in it."""
    for text in (
        "Task summary: step 1 of 3 done, 10 files changed",
        "Moved the nightly job to 0 2 * * * (02:00)",
    ):
        assert cli("record", text, "--type", "semantic").exit_code == 0
    for extra in ([], ["--troubleshoot"]):
        result = cli("search", "ECONNREFUSED 127.0.0.1:5432", "--mode", "keyword", "--json", *extra)
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == []
    # the words around the numbers still match
    found = json.loads(
        cli("search", "0 2 * * * cron 02:00 nightly", "--mode", "keyword", "--json").stdout
    )
    assert [h["content"][:10] for h in found] == ["Moved the "]
    assert query.keyword_terms("ECONNREFUSED 127.0.0.1:5432", derived=False) == [
        "econnrefus",
        "127",
        "5432",
    ]
