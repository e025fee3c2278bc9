"""`hindsight supersede OLD --by NEW`: a person curating the store marks a stored memory as
replaced by another stored one (issue 32; the same core call as the web UI's form)."""

from __future__ import annotations

import json

OLD = "we deploy the web service with Jenkins"
NEW = "deployments of the web service go through Argo CD since the spring"


def _recorded(cli, text: str, *args: str) -> str:
    result = cli("record", text, *args)
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip().splitlines()[0]


def _shown(cli, memory_id: str) -> dict:
    result = cli("show", memory_id, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _log(cli) -> list[dict]:
    return json.loads(cli("log", "--json").stdout)


def _found(cli, query: str) -> list[str]:
    result = cli("search", query, "--json")
    assert result.exit_code == 0, result.stderr
    return [hit["id"] for hit in json.loads(result.stdout)]


def test_supersede_links_both_ways_leaves_search_and_restore_undoes_it(cli) -> None:
    old, new = _recorded(cli, OLD), _recorded(cli, NEW)
    assert old in _found(cli, "Jenkins deploy web service")

    result = cli("supersede", old[-8:], "--by", new[-8:], "--reason", "Argo replaced Jenkins")
    assert result.exit_code == 0, result.stderr
    assert f"`hindsight show {old}`" in result.stderr and len(result.stderr.splitlines()) == 1
    was, now = _shown(cli, old), _shown(cli, new)
    assert (was["status"], was["superseded_by"]) == ("superseded", new)
    assert (now["status"], now["supersedes"]) == ("active", old)
    entry = _log(cli)[0]
    assert (entry["action"], entry["ids"], entry["reason"]) == (
        "supersede",
        [old, new],
        "Argo replaced Jenkins",
    )
    assert entry["actor"] == "default"
    assert old not in _found(cli, "Jenkins deploy web service")
    # the chain both ways, from either end
    history = cli("show", new)
    assert old[-8:] in history.stdout and "superseded" in history.stdout

    # undo: not while the newer one stands; once it is forgotten, the older comes back
    refused = cli("restore", old)
    assert refused.exit_code == 1
    assert f"`hindsight forget {new}`" in refused.stderr and "Traceback" not in refused.stderr
    assert _shown(cli, old)["status"] == "superseded"
    assert cli("forget", new).exit_code == 0
    restored = cli("restore", old)
    assert restored.exit_code == 0, restored.stderr
    assert _shown(cli, old)["status"] == "active"
    assert old in _found(cli, "Jenkins deploy web service")


def test_json_answers_the_older_memory_as_it_is_now(cli) -> None:
    old, new = _recorded(cli, OLD), _recorded(cli, NEW)
    result = cli("supersede", old, "--by", new, "--json")
    assert result.exit_code == 0, result.stderr
    answer = json.loads(result.stdout)
    assert (answer["id"], answer["status"], answer["superseded_by"]) == (old, "superseded", new)


def test_a_summary_quoting_the_older_memory_leaves_search_with_it(cli) -> None:
    old = _recorded(cli, OLD, "--task", "deploys")
    _recorded(cli, "the staging database is restored every night at two", "--task", "deploys")
    new = _recorded(cli, NEW)
    assert cli("summarize", "--task", "deploys").exit_code == 0
    summaries = [m for m in json.loads(cli("list", "--json").stdout) if old in m["source_ids"]]
    assert summaries and all(m["status"] == "active" for m in summaries)
    assert cli("supersede", old, "--by", new).exit_code == 0
    for summary in summaries:
        assert _shown(cli, summary["id"])["status"] == "invalidated"
    assert any(e["action"] == "withdraw" for e in _log(cli))


def test_what_cannot_be_superseded_is_refused_in_one_line_and_nothing_changes(cli) -> None:
    old, new = _recorded(cli, OLD), _recorded(cli, NEW)
    third = _recorded(cli, "the release train leaves every second Tuesday")
    theirs = _recorded(cli, "agent b keeps its deploy notes in the wiki", "--agent", "agent-b")
    gone = _recorded(cli, "a note that was forgotten about the old build farm")
    assert cli("forget", gone).exit_code == 0
    before = {m["id"]: m["status"] for m in json.loads(cli("list", "--json").stdout)}

    refusals = [
        (("supersede", old, "--by", old), "cannot supersede itself"),
        (("supersede", old, "--by", theirs), "belongs to agent 'default'"),
        (("supersede", old, "--by", gone), "is invalidated"),
        (("supersede", gone, "--by", new), "is invalidated"),
        (("supersede", old, "--by", "0000dead"), "No memory with id"),
    ]
    for argv, words in refusals:
        result = cli(*argv)
        assert result.exit_code == 1, (argv, result.stderr)
        assert words in result.stderr, (argv, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    # usage: exit 2
    assert cli("supersede", old).exit_code == 2
    after = {m["id"]: m["status"] for m in json.loads(cli("list", "--json").stdout)}
    assert after == before
    assert not [e for e in _log(cli) if e["action"] == "supersede"]

    assert cli("supersede", old, "--by", new).exit_code == 0
    # superseded already; a newer memory supersedes one other at most
    again = cli("supersede", old, "--by", third)
    assert again.exit_code == 1 and f"already superseded by {new}" in again.stderr
    twice = cli("supersede", third, "--by", new)
    assert twice.exit_code == 1 and f"{new} already supersedes {old}" in twice.stderr
    assert _shown(cli, third)["status"] == "active"


def test_a_supersede_that_would_make_a_loop_is_refused(cli) -> None:
    old, new = _recorded(cli, OLD), _recorded(cli, NEW)
    assert cli("supersede", old, "--by", new).exit_code == 0
    # the newer forgotten, the older restored, then the newer restored: both active, still linked
    assert cli("forget", new).exit_code == 0
    assert cli("restore", old).exit_code == 0
    assert cli("restore", new).exit_code == 0
    loop = cli("supersede", new, "--by", old)
    assert loop.exit_code == 1 and "would make a loop" in loop.stderr
    assert (_shown(cli, old)["status"], _shown(cli, new)["status"]) == ("active", "active")
    # the same link made again is fine
    assert cli("supersede", old, "--by", new).exit_code == 0
    assert _shown(cli, old)["status"] == "superseded"


def test_a_part_of_a_long_text_neither_supersedes_nor_is_superseded(cli) -> None:
    new = _recorded(cli, NEW)
    stored = cli("record", "-", "--json", input="step by step the deploy runbook says " * 800)
    assert stored.exit_code == 0, stored.stderr
    pieces = json.loads(stored.stdout)["parts"]
    assert len(pieces) >= 2
    for argv in ((pieces[0], "--by", new), (new, "--by", pieces[-1])):
        result = cli("supersede", *argv)
        assert result.exit_code == 1 and "linked parts of a text" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert {_shown(cli, i)["status"] for i in [new, *pieces]} == {"active"}
