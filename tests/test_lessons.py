"""The moment hindsight exists for: an agent hits an error an earlier session hit and fixed.

Through the hook entry point, as Claude Code calls it: the repeat gate recalls on the error's kind
(its command family and normalised signature), not its words; a new kind, or one never fixed, injects
nothing; the block is the kind's lessons as one compact line. Through the CLI: a troubleshooting
search puts the failures of the same error first. Mining a session the hooks saw stores each failure
once.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli import hooks
from hindsight_cli.lessons import signatures
from hindsight_cli.models import Filters
from hindsight_cli.safefs import trust
from hindsight_cli.store import Store

pytestmark = pytest.mark.no_store


@pytest.fixture
def store(_isolated: Path) -> Path:
    path = _isolated / ".hindsight"
    path.mkdir()
    # made by hand: approved, as `hindsight init` approves the stores it makes
    trust.allow(path)
    return path


def _traceback(root: str, line: int, last: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        f'  File "{root}/tools/load.py", line {line}, in <module>\n'
        "    main()\n"
        f'  File "{root}/tools/load.py", line {line - 7}, in main\n'
        "    rows = read(path)\n"
        f"{last}"
    )


def _call(store: Path, event: str, session: str, command: str, **fields: Any) -> str:
    payload = {
        "session_id": session,
        "cwd": str(store.parent),
        "hook_event_name": event,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        **fields,
    }
    name = "tool-failure" if event == "PostToolUseFailure" else "tool"
    out, ok = hooks.run(name, "claude-code", json.dumps(payload), str(store))
    assert ok, out
    return out


def fail(store: Path, session: str, command: str, output: str, code: int = 1) -> str:
    """The block the hook injected for this failure ("" when it stayed quiet)."""
    out = _call(store, "PostToolUseFailure", session, command, error=f"Exit code {code}\n{output}")
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


def ok(store: Path, session: str, command: str, stdout: str = "done") -> None:
    response = {"stdout": stdout, "stderr": "", "interrupted": False}
    assert _call(store, "PostToolUse", session, command, tool_response=response) == ""


LOAD = "cd /srv/app && python tools/load.py --input data/customers.csv"


def test_the_same_kind_of_error_recalls_its_fix_across_paths_and_line_numbers(store: Path) -> None:
    first = _traceback("/home/ann/app", 41, "KeyError: 'customer_id'")
    assert fail(store, "s1", LOAD, first) == ""
    ok(store, "s1", 'sed -i \'s/row\\["customer_id"\\]/row.get("customer_id")/\' tools/load.py')
    ok(store, "s1", LOAD)
    # another checkout, other line numbers, another data file: the same mistake
    again = _traceback("/tmp/ci/build-7/app", 112, "KeyError: 'customer_id'")
    block = fail(store, "s2", "python tools/load.py --input data/eu.csv", again)
    lines = block.splitlines()
    assert lines[0].startswith("[hindsight: 1 memory, ") and len(lines) == 2
    assert lines[1] == (
        "- [from tool, untrusted] KeyError: 'customer_id' — fix: sed -i"
        ' \'s/row\\["customer_id"\\]/row.get("customer_id")/\' tools/load.py ; ' + LOAD
    )
    # the agent has it in context now: the same kind again in this session stays quiet
    assert fail(store, "s2", "python tools/load.py", again) == ""


def test_a_new_kind_of_error_injects_nothing_even_when_it_shares_every_other_word(
    store: Path,
) -> None:
    fail(store, "s1", LOAD, _traceback("/srv/app", 41, "KeyError: 'customer_id'"))
    ok(store, "s1", LOAD)
    # the same command and frames, another key, another exception: new kinds
    assert fail(store, "s2", LOAD, _traceback("/srv/app", 41, "KeyError: 'order_total'")) == ""
    typed = "TypeError: unsupported operand type(s) for +: 'int' and 'str'"
    assert fail(store, "s3", LOAD, _traceback("/srv/app", 41, typed)) == ""
    # the same error from another kind of command (a test run, not the script)
    pytest_run = "python -m pytest tests/test_load.py -q"
    assert fail(store, "s4", pytest_run, "E   KeyError: 'customer_id'\n1 failed in 0.2s") == ""


def test_an_error_seen_before_but_never_fixed_injects_nothing(store: Path) -> None:
    cargo = "error[E0425]: cannot find value `total` in this scope\n --> src/main.rs:4:13"
    assert fail(store, "s1", "cargo build --release", cargo, 101) == ""
    # s1 gave up: nothing fixed it
    ok(store, "s1", "git stash")
    assert fail(store, "s2", "cargo build", cargo.replace("4:13", "9:2"), 101) == ""
    # s2 fixes it; s3 is told
    ok(store, "s2", "cargo build")
    assert "cannot find value `total`" in fail(store, "s3", "cargo build", cargo, 101)


def test_a_fix_learnt_in_several_sessions_is_one_line(store: Path) -> None:
    missing = (
        "node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\n"
        "Error: Cannot find module 'left-pad'\nRequire stack:\n- /w/{n}/index.js"
    )
    for n in range(3):
        session = f"s{n}"
        fail(store, session, "npm test", missing.format(n=n))
        ok(store, session, "npm install left-pad")
        ok(store, session, "npm test")
    block = fail(store, "s9", "npm test", missing.format(n=9))
    lines = block.splitlines()
    assert len(lines) == 2
    assert lines[1].startswith("- fixed 3 times: [from tool, untrusted] Error: Cannot find module")
    # npm install is of npm's family: it fixed the failed npm test
    assert lines[1].endswith("— fix: npm install left-pad")


def test_a_repeat_is_answered_from_the_store_without_waiting_for_this_sessions_spool(
    store: Path,
) -> None:
    fail(store, "s1", LOAD, _traceback("/srv/app", 41, "KeyError: 'customer_id'"))
    ok(store, "s1", "vim tools/load.py")
    ok(store, "s1", LOAD)
    # s1's lesson reaches the store as a new session starts, as Claude Code's SessionStart does
    Store(store).ingest_events()
    # s2 works a while: its calls are spooled, not yet stored
    for n in range(5):
        ok(store, "s2", f"cat notes/{n}.md")
    block = fail(store, "s2", LOAD, _traceback("/tmp/x", 9, "KeyError: 'customer_id'"))
    assert "KeyError: 'customer_id' — fix: vim tools/load.py" in block
    # the agent was answered by a lookup: s2's spool is still waiting for its ingestion
    assert Store(store).events_pending()
    # a session that fixed it but whose lesson is still spooled is worth the wait
    ok(store, "s2", "vim tools/load.py")
    ok(store, "s2", LOAD)
    block = fail(store, "s3", LOAD, _traceback("/tmp/y", 7, "KeyError: 'customer_id'"))
    assert block.splitlines()[1].startswith("- fixed 2 times: ")
    assert not Store(store).events_pending()


def test_a_fix_more_than_ten_calls_later_is_not_its_fix(store: Path) -> None:
    fail(store, "s1", "make lint", "ruff: error: unrecognized arguments: --fast")
    for n in range(10):
        ok(store, "s1", f"cat docs/part{n}.md")
    ok(store, "s1", "make lint")
    assert fail(store, "s2", "make lint", "ruff: error: unrecognized arguments: --fast") == ""


def test_lessons_are_stored_with_their_kind_and_fix(store: Path) -> None:
    fail(store, "s1", LOAD, _traceback("/srv/app", 41, "KeyError: 'customer_id'"))
    ok(store, "s1", "vim tools/load.py")
    ok(store, "s1", LOAD)
    opened = Store(store)
    opened.ingest_events()
    [lesson] = opened.list(Filters(outcomes=("failure",)))
    kind = "python script | KeyError: 'customer_id'"
    assert signatures.tag(kind) in lesson.tags
    assert (lesson.metadata["family"], lesson.metadata["signature"]) == (
        "python script",
        "KeyError: 'customer_id'",
    )
    assert lesson.resolution == f"vim tools/load.py ; {LOAD}"


def test_troubleshooting_search_reads_the_error_not_the_command(store: Path, cli: Any) -> None:
    """One session fixed this error; eight others fixed near ones (another missing key) of the same
    script from the same checkout as the query, sharing its command, paths and frames: a
    troubleshooting search with the command and a traceback of this error puts the one that fixed
    it first."""
    here = "/home/bo/src/app"
    for n, key in enumerate(
        ["customer_name", "customer_email", "customer_ids", "customer", "id", "name", "ids", "c_id"]
    ):
        fail(store, f"o{n}", LOAD, _traceback(here, 77, f"KeyError: '{key}'"))
        ok(store, f"o{n}", f"git apply fixes/{key}.patch")
        ok(store, f"o{n}", LOAD)
    fail(store, "k1", "python tools/load.py", _traceback("/srv/ci", 12, "KeyError: 'customer_id'"))
    ok(store, "k1", "git apply fixes/the-right-one.patch")
    ok(store, "k1", "python tools/load.py")
    assert cli("hooks", "flush", "--store", str(store), store=False).exit_code == 0
    query = LOAD + "\n" + _traceback(here, 77, "KeyError: 'customer_id'")
    result = cli("search", query, "--troubleshoot", "--json", "--store", str(store), store=False)
    assert result.exit_code == 0, result.stderr
    hits = json.loads(result.stdout)
    hits = hits["hits"] if isinstance(hits, dict) else hits
    first = hits[0].get("memory", hits[0])
    assert "the-right-one.patch" in first["resolution"], [h.get("resolution") for h in hits]
    # the same error as a test runner's summary shows it (clipped output, no traceback): its own
    # signature reads otherwise, yet it shows every word of the lesson's
    summary = (
        "cd /srv/app && python -m pytest tests/test_load.py -q\n..F.\n"
        "=========================== short test summary info ===========================\n"
        "FAILED tests/test_load.py::test_rows - KeyError: 'customer_id'\n1 failed, 3 passed"
    )
    result = cli("search", summary, "--troubleshoot", "--json", "--store", str(store), store=False)
    hits = json.loads(result.stdout)
    hits = hits["hits"] if isinstance(hits, dict) else hits
    first = hits[0].get("memory", hits[0])
    assert "the-right-one.patch" in first["resolution"], [h.get("resolution") for h in hits]


def test_mining_a_session_the_hooks_saw_stores_each_failure_once(store: Path) -> None:
    from test_replay import trajectory

    from hindsight_cli.transcripts import mini_swe_agent
    from hindsight_cli.transcripts.base import file_unit
    from hindsight_cli.transcripts.miner import Miner

    output = _traceback("/testbed", 30, "KeyError: 'customer_id'")
    turns = [("python tools/load.py", 1, output), ("python tools/load.py --fixed", 0, "ok")]
    path = store.parent / "demo__demo-1.traj.json"
    path.write_text(json.dumps(trajectory("demo__demo-1", turns, 1_700_000_000)))
    # the hooks saw it, naming each call as the replay does: <session>#<step>
    payload = {"tool_use_id": "demo__demo-1#0"}
    _call(
        store,
        "PostToolUseFailure",
        "demo__demo-1",
        "python tools/load.py",
        error=f"Exit code 1\n{output}",
        **payload,
    )
    opened = Store(store)
    opened.ingest_events()
    Miner(opened, summaries=False).mine(mini_swe_agent, [file_unit("mini-swe-agent", path)])
    lessons = [
        m
        for m in opened.list(Filters(outcomes=("failure",)), limit=None)
        if m.metadata.get("signature")
    ]
    assert [m.metadata["call"] for m in lessons] == ["demo__demo-1#0"]


def test_two_failures_fixed_by_one_success_each_keep_their_own_fix(store: Path) -> None:
    fail(store, "s1", LOAD, _traceback("/srv/app", 41, "KeyError: 'customer_id'"))
    second = "python tools/load.py --strict"
    fail(store, "s1", second, _traceback("/srv/app", 41, "ValueError: empty row 7"))
    ok(store, "s1", "vim tools/load.py")
    ok(store, "s1", LOAD)
    opened = Store(store)
    opened.ingest_events()
    fixes = {
        m.metadata["signature"]: m.resolution for m in opened.list(Filters(outcomes=("failure",)))
    }
    assert fixes == {
        "KeyError: 'customer_id'": f"{second} ; vim tools/load.py ; {LOAD}",
        "ValueError: empty row n": f"vim tools/load.py ; {LOAD}",
    }


def test_a_fix_ingested_after_its_failure_makes_a_new_version(store: Path) -> None:
    fail(store, "s1", LOAD, _traceback("/srv/app", 41, "KeyError: 'customer_id'"))
    opened = Store(store)
    opened.ingest_events()
    [failure] = opened.list(Filters(outcomes=("failure",)))
    assert failure.resolution is None
    ok(store, "s1", LOAD)
    opened.ingest_events()
    versions = opened.history(failure.id)
    assert [m.status for m in versions] == ["superseded", "active"]
    assert versions[-1].resolution == LOAD
