"""The injection record (issue 36): every hook injection, MCP search and ``recall`` prompt leaves a
content-free line (ids, event, session, tokens, latency, budget, what was dropped); the daily and
per-session caps skip what would go over them and say so; ``hindsight stats --recall`` reports it;
a misleading memory is flagged and no longer injected; old lines go after ``keep_days``."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import Clock
from hook_calls import fail, learnt, run

from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only
# a word of the failing command (hook_calls.TEST_FILE): never in the record
SECRET_WORD = "zanzibar"


def record_lines(project: Path) -> list[dict[str, Any]]:
    text = (project / ".hindsight" / "injections.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def context_of(out: str) -> str:
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def test_hook_injections_are_recorded_without_their_content(project: Path, cli: Any) -> None:
    store = learnt(project)
    block = context_of(run(project, "SessionStart", "s2", source="startup"))
    assert "No module named 'requests'" in block
    again = context_of(fail(project, "s3"))
    assert "pip install requests" in again
    injections, verdicts = store.injections()
    assert [i.event for i in injections] == ["session-start", "repeat-error"]
    start, repeat = injections
    assert start.session == "s2" and repeat.session == "s3"
    assert start.tokens > 0 and start.budget == 800 and start.skipped is None
    lesson = next(m for m in store.list() if m.resolution)
    assert lesson.id in start.ids and repeat.ids == [lesson.id]
    assert repeat.budget == 400 and 0 < repeat.tokens <= 400
    # content-free: ids, numbers and labels, never a memory's words
    text = (project / ".hindsight" / "injections.jsonl").read_text()
    assert SECRET_WORD not in text and "requests" not in text
    assert verdicts == []
    report = cli("stats", "--recall", "--json", "--store", str(project / ".hindsight"))
    assert report.exit_code == 0, report.stderr
    data = json.loads(report.stdout)
    assert data["injections"] == 2
    assert data["tokens"] == start.tokens + repeat.tokens
    assert set(data["by_event"]) == {"session-start", "repeat-error"}
    assert data["skipped"] == 0 and data["judged"] == 0


def test_a_daily_cap_skips_what_would_go_over_it_and_says_so(project: Path, cli: Any) -> None:
    store = learnt(project)
    first = context_of(run(project, "SessionStart", "s2", source="startup"))
    spent = store.injections()[0][0].tokens
    (project / ".hindsight" / "config.toml").write_text(f"[hooks]\ndaily_budget = {spent + 10}\n")
    # the budget left (10 tokens) holds no useful block: nothing is injected, and the record says
    # why and what was left out
    assert run(project, "SessionStart", "s3", source="startup") == ""
    skipped = store.injections()[0][-1]
    assert skipped.skipped == "daily cap" and skipped.ids == [] and skipped.tokens == 0
    assert skipped.dropped and skipped.budget == 10
    assert first
    data = json.loads(cli("stats", "--recall", "--json", "--store", str(store.path)).stdout)
    assert data["skipped"] == 1 and data["skipped_by_reason"] == {"daily cap": 1}
    assert data["tokens"] == spent


def test_a_session_cap_counts_one_session_only(project: Path) -> None:
    store = learnt(project)
    (project / ".hindsight" / "config.toml").write_text("[hooks]\nsession_budget = 120\n")
    assert context_of(run(project, "SessionStart", "s2", source="startup"))
    spent = store.injections()[0][-1].tokens
    assert 0 < spent <= 120
    # the same session's next repeat has what is left of its 120 tokens
    fail(project, "s2")
    last = store.injections()[0][-1]
    assert last.session == "s2" and last.tokens + spent <= 120
    assert last.budget == 120 - spent
    # another session starts with its whole cap
    assert context_of(run(project, "SessionStart", "s9", source="startup"))


def test_a_misleading_memory_is_flagged_and_no_longer_injected(project: Path, cli: Any) -> None:
    store = learnt(project)
    context_of(run(project, "SessionStart", "s2", source="startup"))
    entry = store.injections()[0][-1]
    lesson = next(m for m in store.list() if m.resolution)
    store.record_verdict(entry.id, lesson.id, "misleading", session="s2")
    # one verdict is a hint, not yet a flag
    assert store.flagged() == []
    store.record_verdict(entry.id, lesson.id, "misleading", session="s2")
    listed = cli("list", "--flagged", "--json", "--store", str(store.path))
    assert [m["id"] for m in json.loads(listed.stdout)] == [lesson.id]
    assert json.loads(cli("list", "--json", "--store", str(store.path)).stdout)
    assert store.flagged() == [lesson.id]
    # neither at session start nor on the repeated error
    run(project, "SessionStart", "s3", source="startup")
    assert lesson.id not in store.injections()[0][-1].ids
    assert fail(project, "s4") == ""
    data = json.loads(cli("stats", "--recall", "--json", "--store", str(store.path)).stdout)
    assert data["flagged"] == [lesson.id]
    assert data["verdicts"] == {"used": 0, "ignored": 0, "misleading": 2}
    # a later use clears the flag
    store.record_verdict(entry.id, lesson.id, "used", session="s5")
    assert store.flagged() == []


def test_old_lines_go_after_keep_days_and_zero_records_nothing(project: Path, clock: Clock) -> None:
    store = Store(project / ".hindsight")
    store.init()
    store.record_injection("mcp-search", ["a"], 10)
    clock.advance(31 * 86400)
    store.record_injection("mcp-search", ["b"], 20)
    assert [i.ids for i in store.injections()[0]] == [["b"]]
    assert [line["ids"] for line in record_lines(project)] == [["b"]]
    (project / ".hindsight" / "config.toml").write_text("[injections]\nkeep_days = 0\n")
    assert Store(project / ".hindsight").record_injection("mcp-search", ["c"], 5) is None
    assert [line["ids"] for line in record_lines(project)] == [["b"]]
    # --since reads only what is newer
    since = clock.at - timedelta(days=1)
    assert [i.ids for i in store.injections(since=since)[0]] == [["b"]]
    assert store.injections(since=clock.at + timedelta(seconds=1))[0] == []


def test_stats_since_without_recall_is_a_usage_error(cli: Any) -> None:
    result = cli("stats", "--since", "7d")
    assert result.exit_code == 2
    assert "--since goes with --recall" in result.stderr
    assert result.stdout == ""


def test_a_hard_forget_strips_the_ids_from_the_record(project: Path) -> None:
    store = learnt(project)
    run(project, "SessionStart", "s2", source="startup")
    fail(project, "s3")
    lesson = next(m for m in store.list() if m.resolution)
    entry = store.injections()[0][-1]
    store.record_verdict(entry.id, lesson.id, "used", session="s3")
    before = (project / ".hindsight" / "injections.jsonl").read_text()
    assert lesson.id in before
    store.forget([lesson.id], hard=True)
    after = (project / ".hindsight" / "injections.jsonl").read_text()
    assert lesson.id not in after
    # the injections themselves (and the other memories' ids) stay: what was spent was spent
    injections, verdicts = store.injections()
    assert len(injections) == 2 and verdicts == []
    live = {m.id for m in store.list(limit=None)}
    assert set(injections[0].ids) <= live and set(injections[1].ids) <= live


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_searches_and_the_recall_prompt_are_recorded(
    project: Path, anyio_backend: str
) -> None:
    from mcp import Client

    from hindsight_cli.mcp_server import build_server

    store = Store(project / ".hindsight")
    memory = store.record("deploys to staging need make deploy ENV=staging").memory
    async with Client(build_server(store), raise_exceptions=True) as client:
        await client.call_tool(
            "memory_search", {"query": "deploy to staging", "current_task": "t-7"}
        )
        await client.get_prompt("recall", {"task": "deploy to staging"})
    injections, _ = store.injections()
    assert [(i.event, i.ids, i.session) for i in injections] == [
        ("mcp-search", [memory.id], "t-7"),
        ("recall-prompt", [memory.id], None),
    ]
    assert all(i.tokens > 0 and i.budget == 400 and i.ms > 0 for i in injections)


def test_an_agents_scoped_store_reads_only_its_own_memories_injections(tmp_path: Path) -> None:
    """The record keeps no agent: a memory's owner decides. Bob's scoped store (the UI's timeline
    and stats for his login, ``stats --recall --agent bob``) reads neither alice's injections nor
    her verdicts, nor a skip (which names no memory)."""
    from conftest import FakeEmbedder

    from hindsight_cli import embedding

    MODEL = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)  # noqa: N806
    path = tmp_path / "s"
    alice = Store(path, embedder=MODEL, agent="alice")
    bob = Store(path, embedder=MODEL, agent="bob")
    hers = alice.record("alice's note on the flaky deploy", merge=False).memory.id
    his = bob.record("bob's note on the kafka lag", merge=False).memory.id
    everyone = Store(path, embedder=MODEL)
    one = everyone.record_injection("mcp-search", [hers], 40, session="s-a")
    two = everyone.record_injection("mcp-search", [his], 30, session="s-b")
    everyone.record_injection("session-start", [hers, his], 70, session="s-c")
    everyone.record_injection("session-start", [], 0, session="s-d", skipped="daily cap")
    assert one is not None and two is not None
    everyone.record_verdict(one.id, hers, "used", session="s-a")
    everyone.record_verdict(two.id, his, "ignored", session="s-b")

    entries, judged = bob.injections()
    assert [e.ids for e in entries] == [[his]]
    assert [(v.memory, v.verdict) for v in judged] == [(his, "ignored")]
    report = bob.recall_stats()
    assert (report["injections"], report["tokens"], report["skipped"]) == (1, 30, 0)
    assert [e.ids for e in alice.injections()[0]] == [[hers]]
    # unscoped, the whole record
    assert len(everyone.injections()[0]) == 4
    assert everyone.recall_stats()["injections"] == 3


@pytest.mark.slow
def test_another_agents_searches_never_hide_what_the_daily_cap_counts(
    project: Path, tmp_path: Path
) -> None:
    """The caps counted the automatic injections found in the record's last 1 MiB, and every MCP
    search adds a line with its hits' ids: alice, holding a token of the store's HTTP server,
    searched her own 1,000 memories a few times and the user's session-start injection of the day
    fell out of that window: the hook injected again past the daily cap (with more searches, every
    time). The caps now read the whole day, however much others wrote after it (here one search's
    line, copied past that window)."""
    import anyio

    from hindsight_cli.core import tokens
    from hindsight_cli.mcp_server import build_server
    from hindsight_cli.mcp_server.http import HttpSettings, TokenVerifier, http_app
    from tests.mcp_http import serving
    from tests.test_shared_server import _as

    store = learnt(project)
    assert context_of(run(project, "SessionStart", "s2", source="startup"))
    spent = store.injections()[0][-1].tokens
    (project / ".hindsight" / "config.toml").write_text(f"[hooks]\ndaily_budget = {spent + 10}\n")
    store = Store(project / ".hindsight")
    store.scoped("alice").import_records(
        [{"content": f"alice's build note {n}: cache shard {n}"} for n in range(40)]
    )
    path = tmp_path / "tokens.json"
    token = tokens.create(path, "alice")
    verifier = TokenVerifier(path)
    server = build_server(store, tokens=verifier, url="http://127.0.0.1:8765")
    record = project / ".hindsight" / "injections.jsonl"
    before = record.stat().st_size

    async def search() -> None:
        async with _as(f"{url}/mcp", token) as alice:
            found = await alice.call_tool(
                "memory_search",
                {"query": "build note cache shard", "top_k": 100, "budget_tokens": 10**6},
            )
            assert not found.is_error

    with serving(http_app(server, HttpSettings(), verifier)) as url:
        anyio.run(search)
    # her search's line, as her next searches write it, until the lines after the day's injection
    # pass the old window (1 MiB): each real search costs a second here
    line = record.read_bytes()[before:]
    assert line.count(b"\n") == 1 and b'"event":"mcp-search"' in line
    with record.open("ab") as out:
        out.write(line * ((1 << 20) // len(line) + 1))
    assert run(project, "SessionStart", "s3", source="startup") == ""
    assert store.injections()[0][-1].skipped == "daily cap"


def test_another_agents_searches_are_never_decoded_by_the_owners_readers(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review AJ: every MCP search adds a line to the record, and alice, holding a token of the
    store's HTTP server, may search as often as she likes: the owner's hooks decoded each of her
    lines up to the record's 64 MiB, at every injection with a cap (``injection_spend``) and at
    every session end (its verdicts read the session's injections): 4 to 9 s a hook. Now a reader
    decodes only the lines that can be what it looks for; what it finds is the same."""
    from hindsight_cli.core import injections

    store = learnt(project)
    (project / ".hindsight" / "config.toml").write_text(
        "[hooks]\ndaily_budget = 100000\nsession_budget = 100000\n"
    )
    assert context_of(run(project, "SessionStart", "s2", source="startup"))
    spent = store.injections()[0][-1].tokens
    alice = Store(project / ".hindsight").scoped("alice", principal=True)
    for n in range(20):
        alice.record_injection("mcp-search", [], 7, session="s2" if n % 2 else f"a{n}")
    store.record_verdict(store.injections()[0][0].id, "m-1", "used", session="s2")
    decoded: list[str] = []
    real = injections.parse_json

    def counted(line: str | bytes) -> Any:
        decoded.append(line if isinstance(line, str) else line.decode())
        return real(line)

    monkeypatch.setattr(injections, "parse_json", counted)
    owner = Store(project / ".hindsight")
    assert owner.injection_spend("s2") == (spent, spent)
    assert [i.event for i in owner.injections(session="s1")[0]] == []
    assert [v.verdict for v in owner.injections(session="s2")[1]] == ["used"]
    assert len(owner.flagged()) == 0 and owner.standing()
    assert "fix" in context_of(fail(project, "s2"))
    assert owner.judge_session("s2", []) == 0
    # only those of her searches that name the owner's session are read, by the session's readers
    searches = [line for line in decoded if '"mcp-search"' in line]
    assert searches and all('"session":"s2"' in line for line in searches)


def test_a_token_principal_never_reads_the_owners_sessions_in_the_record(tmp_path: Path) -> None:
    """Review AJ (low): the owner's hooks injecting alice's memories alone (a session start, a
    repeat prompt) made an entry every memory of which her scope sees: her token's UI timeline
    showed the owner's session ids, when they started and the verdicts the owner's session end
    judged from what the owner then ran. A token principal now reads only searches' entries."""
    from conftest import FakeEmbedder

    everyone = Store(tmp_path / "s", embedder=FakeEmbedder())
    alice = everyone.scoped("alice", principal=True)
    hers = alice.record("alice's note on the flaky deploy").memory.id
    for event in ("session-start", "repeat-prompt", "repeat-error"):
        entry = everyone.record_injection(event, [hers], 12, session="owner-claude-9f1c")
        assert entry is not None
        everyone.record_verdict(entry.id, hers, "used", session="owner-claude-9f1c")
    mine = alice.record_injection("mcp-search", [hers], 9, session="her-task")
    assert mine is not None
    entries, judged = alice.injections()
    assert [(e.event, e.session) for e in entries] == [("mcp-search", "her-task")] and not judged
    assert alice.recall_stats()["injections"] == 1
    assert "owner-claude" not in str(alice.injections(session="owner-claude-9f1c"))
    # the owner's own view of an agent (`stats --recall --agent alice`) is the owner's
    owners = everyone.scoped("alice").injections()
    assert len(owners[0]) == 4 and len(owners[1]) == 3


def test_a_searchs_standing_reads_only_the_lines_added_since_the_last_search(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review AP (low): every MCP search appends a line to the record, so the verdicts a long-lived
    server ranks by were read again whole at the next search, up to the record's 64 MiB (0.1 s a
    search). Now a process reads only the lines added since; what it finds is what a whole read
    finds, after appends, a partly written line, a hard forget's rewrite, the expiry, a record
    replaced by another file and one past the bound."""
    from hindsight_cli.core import injections

    store = Store(project / ".hindsight")
    path = injections.path_of(store.path)
    decoded: list[str] = []
    real = injections.parse_json

    def counted(line: str | bytes) -> Any:
        decoded.append(line if isinstance(line, str) else line.decode())
        return real(line)

    def whole() -> list[injections.Verdict]:
        return injections.read(store.path, verdicts_only=True)[1]

    def judge(n: int, memory: str = "m-1", verdict: str = "used") -> None:
        store.record_verdict(f"i-{n}", memory, verdict, session=f"s{n}")

    for n in range(30):
        judge(n, f"m-{n % 3}")
        store.record_injection("mcp-search", [f"m-{n % 3}"], 7, session=f"s{n}")
    assert injections.verdicts(store.path) == whole() and len(whole()) == 30
    # the next search's line and one more verdict: the older lines are not read again
    store.record_injection("mcp-search", ["m-1"], 7, session="s99")
    judge(99, "m-2", "misleading")
    monkeypatch.setattr(injections, "parse_json", counted)
    found = injections.verdicts(store.path)
    assert [json.loads(line)["injection"] for line in decoded] == ["i-99"]
    assert found == whole() and len(found) == 31
    decoded.clear()
    assert injections.verdicts(store.path) == found and decoded == []
    # a line still being written is read once it is whole
    with path.open("ab") as handle:
        handle.write(b'{"kind":"verdict","at":"2026-01-01T00:00:00Z","injection":"i-7","mem')
    assert injections.verdicts(store.path) == whole()
    with path.open("ab") as handle:
        handle.write(b'ory":"m-7","verdict":"ignored"}\n')
    assert [v.memory for v in injections.verdicts(store.path)][-1] == "m-7"
    assert injections.verdicts(store.path) == whole()
    # a hard forget rewrites the record without the forgotten memory's verdicts
    assert injections.scrub(store.path, {"m-0"}) > 0
    assert injections.verdicts(store.path) == whole()
    assert "m-0" not in {v.memory for v in injections.verdicts(store.path)}
    # another file put in its place, and the file written over in place, its size kept
    lines = path.read_bytes().splitlines(keepends=True)
    other = path.with_name("other")
    other.write_bytes(b"".join(line.replace(b'"used"', b'"idle"') for line in lines))
    other.replace(path)
    assert injections.verdicts(store.path) == whole()
    assert "used" not in {v.verdict for v in injections.verdicts(store.path)}
    before = path.stat()
    path.write_bytes(b"".join(lines))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert injections.verdicts(store.path) == whole()
    assert "used" in {v.verdict for v in injections.verdicts(store.path)}
    # past the bound, the oldest lines leave what is read, as they leave a whole read
    monkeypatch.setattr(injections, "MAX_RECORD", len(path.read_bytes()) // 2)
    assert injections.verdicts(store.path) == whole()
    judge(100, "m-1")
    judge(101, "m-1")
    assert injections.verdicts(store.path) == whole()
    assert len(whole()) < 20
    # no record, no verdicts
    path.unlink()
    assert injections.verdicts(store.path) == []
