"""Ranking misses a user notices (issue 17, point 4), through the CLI and a real MCP client, with
the bundled model: exact identifiers, plain complaints, the relevance floor, scores in rank order.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store

# ranking with the bundled model: what it finds is the point
pytestmark = pytest.mark.model


def _record(cli: Any, text: str, *extra: str) -> str:
    result = cli("record", text, "--no-merge", "--json", *extra)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)["id"]


def _found(cli: Any, query: str, *extra: str) -> list[dict[str, Any]]:
    result = cli("search", query, "--json", *extra)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_an_exact_port_beats_a_memory_about_the_same_error_on_another_port(cli: Any) -> None:
    _record(
        cli,
        "Kibana crashed: Error: connect ETIMEDOUT 10.0.0.5:9200 while loading dashboards",
        "--outcome",
        "failure",
        "--trigger",
        "tool_error",
    )
    fix = _record(
        cli,
        "The UI on port 5601 timed out because the firewall dropped it",
        "--outcome",
        "failure",
        "--resolution",
        "opened 5601 in the security group",
    )
    hits = _found(cli, "ETIMEDOUT 10.0.0.5:5601")
    assert hits[0]["id"] == fix
    explained = cli("search", "ETIMEDOUT 10.0.0.5:5601", "--explain")
    assert "names 10.0.0.5:9200 (asked: 10.0.0.5:5601)" in explained.stdout


def test_a_complaint_finds_the_failure_in_other_words_before_an_unrelated_success(cli: Any) -> None:
    failure = _record(
        cli,
        "npm publish was rejected: authentication with the package registry failed",
        "--outcome",
        "failure",
        "--resolution",
        "logged in again with npm login",
    )
    _record(cli, "The registry mirror sync job completed", "--outcome", "success")
    assert _found(cli, "can't authenticate to the registry")[0]["id"] == failure


def test_a_nonsense_query_gets_nothing_and_a_one_word_synonym_still_finds_its_memory(
    cli: Any,
) -> None:
    limit = _record(
        cli, "The weather API rate limit is 60 requests per minute per key", "--type", "semantic"
    )
    _record(cli, "Rotated the GitHub deploy key after it leaked in a public gist")
    for nonsense in (
        "purple elephant dancing on the moon",
        "qwerty uiop",
        "recipe for banana bread",
    ):
        result = cli("search", nonsense)
        assert (
            result.exit_code == 0
            and result.stdout == ""
            and "No memories matched." in result.stderr
        )
    assert [h["id"] for h in _found(cli, "throttling")] == [limit]


def test_a_chinese_query_with_the_english_model_gets_keyword_matches_only(cli: Any) -> None:
    backup = _record(cli, "数据库备份每天凌晨两点运行")
    _record(cli, "用户喜欢用中文写提交说明")
    assert [h["id"] for h in _found(cli, "备份什么时候运行")] == [backup]
    # MiniLM puts it at cosine 0.5 of both; no shared word
    empty = cli("search", "熊猫吃竹子")
    assert empty.exit_code == 0 and empty.stdout == ""


def test_the_score_column_follows_the_rank_order(cli: Any) -> None:
    for text in (
        "deploy failed: disk full on build-01",
        "deploy failed: disk full on build-01 again",
        "deploy failed: the disk of build-01 is full",
        "release notes were published",
    ):
        _record(cli, text, "--outcome", "failure")
    hits = _found(cli, "deploy failed disk full", "-k", "4")
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) > 1


def test_search_help_says_which_languages_the_default_model_reads(cli: Any) -> None:
    text = cli("search", "--help", store=False).stdout
    assert "in any language" not in text and "--embedding-model multilingual" in text
    _record(cli, "a memory so the store exists")
    checks = {c["id"]: c for c in json.loads(cli("doctor", "store", "--json").stdout)["checks"]}
    assert "an English query does not find a Chinese memory" in checks["store.model"]["evidence"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_search_weighs_an_exact_version(store_dir: Any) -> None:
    store = Store(store_dir)
    store.init()
    old = store.record(
        "Builds broke after upgrading to protobuf==4.21.0 (grpcio needs <4)", outcome="failure"
    ).memory
    new = store.record(
        "protobuf 3.20.3 is the version that works with grpcio here", type="semantic"
    ).memory
    async with Client(build_server(store), raise_exceptions=True) as client:
        found = await client.call_tool("memory_search", {"query": "protobuf==3.20.3 grpcio"})
    ids = [h["id"] for h in found.structured_content["hits"]]
    assert ids[0] == new.id and old.id in ids
