"""`hindsight eval replay` on the session formats `hindsight mine` reads besides mini-swe-agent and
Claude Code: Codex rollouts, Gemini CLI chats and OpenCode sessions (its database and its older
JSON storage), written by the fixture builders of the `mine` tests. Each project has two sessions a
day apart: a test run fails on a missing module, is fixed by an install, and fails the same way in
the second session (a positive probe)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import transcript_fixtures as tf
from fake_embedder import FakeEmbedder
from transcript_fixtures import Call, Turn
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.evals import probes, sessions

pytestmark = pytest.mark.no_store

CWD = "/work/app"
TEST = "pytest -q tests/test_weather.py"
MISSING = "E   ModuleNotFoundError: No module named 'requests'\n1 error in 0.21s"
# no exit code in the outputs: each format's own (or its failure flag) gives it
RUN = Turn(
    "Run the weather tests",
    "The tests needed requests; they pass now.",
    [
        Call("shell", {"command": TEST}, False, MISSING),
        Call("read", {"file_path": "setup.cfg"}, True, "[metadata]"),
        Call("shell", {"command": "pip install requests"}, True, "Successfully installed"),
        Call("shell", {"command": TEST}, True, "3 passed in 0.12s"),
    ],
)
# what the second session repeats
AGAIN = Turn(
    "Run the weather tests again",
    "Still failing.",
    [Call("shell", {"command": TEST}, False, MISSING)],
)
FIRST, SECOND = "0199a3f2-7b1c-7e21-9c4d-00000000000a", "0199a3f2-7b1c-7e21-9c4d-00000000000b"


class Fake384(FakeEmbedder):
    name, dim = embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM


@pytest.fixture(name="later")
def later_fixture(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """Build the next session a day after the last one (the fixtures' clock starts at START)."""

    def shift() -> None:
        monkeypatch.setattr(tf, "START", tf.START + timedelta(days=1))

    return shift


def _codex(home: Path, later: Callable[[], None], legacy: bool = False) -> Path:
    tf.codex(home, CWD, session=FIRST, legacy=legacy, turns=[RUN])
    later()
    tf.codex(home, CWD, session=SECOND, legacy=legacy, turns=[AGAIN])
    return home / ".codex" / "sessions"


def _gemini(home: Path, later: Callable[[], None], version: str = "jsonl") -> Path:
    tf.gemini(
        home, CWD, session=FIRST.replace("0199a3f2", "1199a3f2"), version=version, turns=[RUN]
    )
    later()
    tf.gemini(
        home, CWD, session=SECOND.replace("0199a3f2", "2199a3f2"), version=version, turns=[AGAIN]
    )
    # a saved chat repeats a session without times: not read
    tf.gemini(home, CWD, version="checkpoint", turns=[RUN])
    return home / ".gemini" / "tmp"


def _opencode_messages(turns: list[Turn], session: str) -> list[tuple[dict, list[dict]]]:
    """The fixture's messages, with ids of their own (they number messages from 0 in a session)."""
    out = []
    for info, parts in tf.opencode_messages(turns, session, CWD):
        info = {**info, "id": f"{session}_{info['id']}"}
        if "parentID" in info:
            info["parentID"] = f"{session}_{info['parentID']}"
        out.append((info, [{**p, "id": f"{session}_{p['id']}"} for p in parts]))
    return out


def _opencode(home: Path, later: Callable[[], None], version: str = "db") -> Path:
    root = home / ".local" / "share" / "opencode"
    storage = root / "storage"
    root.mkdir(parents=True)
    built = [("ses_a", [RUN]), ("ses_b", [AGAIN])]
    if version == "json":
        for number, (session, turns) in enumerate(built):
            if number:
                later()
            tf._write_json(
                storage / "session" / "prj1" / f"{session}.json",
                {"id": session, "projectID": "prj1", "directory": CWD, "title": session},
            )
            tf.opencode_json_messages(storage, _opencode_messages(turns, session))
        # what else the storage holds is not a session
        tf._write_json(storage / "project" / "prj1.json", {"id": "prj1", "worktree": CWD})
        tf._write_json(storage / "todo" / "ses_a.json", [])
        return root
    with sqlite3.connect(root / "opencode.db") as conn:
        conn.executescript(tf._OPENCODE_SCHEMA)
        for number, (session, turns) in enumerate(built):
            if number:
                later()
            conn.execute(
                "INSERT INTO session VALUES (?, 'prj1', NULL, ?, ?, ?, '1.17.13', ?, ?)",
                [session, session, CWD, session, tf.ms(0), tf.ms(60)],
            )
            tf.opencode_db_messages(conn, session, _opencode_messages(turns, session))
    (root / "log").mkdir()
    (root / "log" / "2026-01-05.log").write_text("INFO started\n")
    return root


BUILD = {
    "codex": _codex,
    "codex-legacy": lambda home, later: _codex(home, later, legacy=True),
    "gemini": _gemini,
    "gemini-json": lambda home, later: _gemini(home, later, version="json"),
    "opencode": _opencode,
    "opencode-json": lambda home, later: _opencode(home, later, version="json"),
}


@pytest.mark.parametrize("name", list(BUILD))
def test_sessions_load_the_shell_calls_of_each_format(
    tmp_path: Path, later: Callable[[], None], name: str
) -> None:
    folder = BUILD[name](tmp_path, later)
    warned: list[str] = []
    found = sessions.load([folder], warn=warned.append)
    assert warned == []
    client = name.split("-")[0]
    assert [(s.project, s.client) for s in found] == [(CWD, client)] * 2
    first, second = probes.ordered(found)
    assert first.prompt == "Run the weather tests"
    assert [(s.command, s.code) for s in first.steps] == [
        (TEST, 1),
        # Codex runs its reads as shell commands too
        *([("cat setup.cfg", 0)] if client == "codex" else []),
        ("pip install requests", 0),
        (TEST, 0),
    ]
    assert MISSING in first.steps[0].output and "3 passed" in first.steps[-1].output
    assert 0 < first.steps[0].at <= first.steps[-1].at < second.start
    assert all(step.call for step in first.steps)
    assert [(s.command, s.code) for s in second.steps] == [(TEST, 1)]
    # the repeat is a positive probe, fixed in the first session
    (_, repeat) = probes.probes(found)
    assert repeat.positive and repeat.failure.session == second.id
    assert repeat.earlier[0].fix == tuple(s.command for s in first.steps[1:])


def test_each_format_is_recognised_by_its_content(
    tmp_path: Path, later: Callable[[], None]
) -> None:
    _codex(tmp_path, later)
    rollout = next((tmp_path / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    gemini = tf.gemini(tmp_path, CWD, turns=[RUN])
    # renamed: the content says what they are
    for path, client in ((rollout, "codex"), (gemini, "gemini")):
        renamed = path.rename(path.with_name("renamed.jsonl"))
        session = sessions.read(renamed)
        assert session is not None and session.client == client
    database = _opencode(tmp_path / "oc", later) / "opencode.db"
    assert [s.id for s in sessions.load([database])] == ["ses_a", "ses_b"]
    # a folder holding them all: each read once, and nothing else picked up
    (tmp_path / "notes.jsonl").write_text('{"note": 1}\n')
    warned: list[str] = []
    found = sessions.load([tmp_path], warn=warned.append)
    assert sorted(s.client for s in found) == ["codex", "codex", "gemini", "opencode", "opencode"]
    (warning,) = warned
    assert warning.startswith(f"{tmp_path / 'notes.jsonl'}: not a mini-swe-agent trajectory")
    for name in ("Claude Code transcript", "Codex rollout", "Gemini CLI chat", "OpenCode"):
        assert name in warning
    # a database that is not OpenCode's
    with sqlite3.connect(tmp_path / "other.db") as conn:
        conn.execute("CREATE TABLE t (x)")
    assert sessions.load([tmp_path / "other.db"], warn=warned.append) == []
    assert len(warned) == 2 and "other.db: not a mini-swe-agent" in warned[1]


def test_exit_codes_from_results_texts_and_flags(tmp_path: Path) -> None:
    # Codex: the code the output states, else its failure; a call without output is left out
    path = tmp_path / "rollout-x.jsonl"
    lines: list[Any] = [
        {"timestamp": tf.at(0), "type": "session_meta", "payload": {"id": "s", "cwd": CWD}},
    ]
    for number, (name, arguments, output) in enumerate(
        [
            ("shell_command", {"command": "make"}, "Exit code: 2\nOutput:\nmake: *** Error 2"),
            ("exec_command", {"cmd": "ls x"}, "Process exited with code 1\nls: x: not found"),
            ("shell", {"command": ["ls", "-la"]}, "total 0"),
            # no code: the failure the output reports
            ("shell", {"command": "git pushx"}, "error: 'pushx' is not a git command"),
            ("shell", {"command": "sleep 9"}, None),
        ]
    ):
        item = {"type": "function_call", "name": name, "call_id": f"c{number}"}
        item["arguments"] = json.dumps(arguments)
        lines.append({"timestamp": tf.at(number), "type": "response_item", "payload": item})
        if output is not None:
            answer = {"type": "function_call_output", "call_id": f"c{number}", "output": output}
            lines.append({"timestamp": tf.at(number), "type": "response_item", "payload": answer})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    session = sessions.read(path)
    assert session is not None
    assert [(s.command, s.code, s.call) for s in session.steps] == [
        ("make", 2, "c0"),
        ("ls x", 1, "c1"),
        ("ls -la", 0, "c2"),
        ("git pushx", 1, "c3"),
    ]
    assert session.steps[1].at - session.steps[0].at == 60


def test_eval_replay_counts_the_repeat_in_each_format(
    tmp_path: Path, later: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.cli import app

    for name in ("codex", "gemini", "opencode"):
        folder = BUILD[name](tmp_path / name, later)
        result = CliRunner().invoke(
            app, ["eval", "replay", str(folder), "--json", "--systems", "bm25,recency"]
        )
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert list(report["projects"]) == [CWD]
        assert report["sessions"] == 2
        for figures in report["systems"].values():
            assert (figures["positives"], figures["negatives"]) == (1, 1)
            assert figures["in_block"] == 1.0
        negative, positive = report["probes"]
        assert negative["kind"] == "negative" and positive["kind"] == "positive"
        assert positive["systems"]["bm25"]["sources"] == [negative["id"]]


def test_eval_replay_mines_opencode_sessions_one_at_a_time(
    tmp_path: Path, later: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.cli import app

    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, Fake384())
    folder = _opencode(tmp_path, later)
    result = CliRunner().invoke(app, ["eval", "replay", str(folder), "--json", "--systems", "mine"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    negative, positive = report["probes"]
    assert (negative["id"], positive["id"]) == ("ses_a#0", "ses_b#0")
    # nothing mined before the first session ended: the later one is not read ahead
    assert negative["systems"]["mine"]["sources"] == []
    # the first session's failure, named by its step, then its exchange
    sources = positive["systems"]["mine"]["sources"]
    assert sources[0] == "ses_a#0" and set(sources) <= {"ses_a#0", "ses_a"}
    assert report["systems"]["mine"]["in_block"] == 1.0


def test_eval_replay_sends_gemini_sessions_through_the_hooks(
    tmp_path: Path, later: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.cli import app

    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, Fake384())
    folder = _gemini(tmp_path, later)
    result = CliRunner().invoke(
        app, ["eval", "replay", str(folder), "--json", "--systems", "hooks"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["hook_errors"] == 0
    negative, positive = report["probes"]
    # the hooks are sent Claude Code's events, each step named <session>#<index>
    assert negative["systems"]["hooks"]["block"] == ""
    assert negative["id"] in positive["systems"]["hooks"]["sources"]
    assert "requests" in positive["systems"]["hooks"]["block"]
