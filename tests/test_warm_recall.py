"""Warm recall (issue 35): a running server of the store answers a hook's repeat recall over its
private socket; anything wrong there sends the hook down the cold path, with the same block."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli
from hook_calls import ERROR, FAILED, fail, learnt, run

from hindsight_cli import hooks
from hindsight_cli.evals import floor
from hindsight_cli.hooks import context, events, warm
from hindsight_cli.hooks.install import command
from hindsight_cli.hooks.settings import Settings
from hindsight_cli.safefs import rendezvous, trust
from hindsight_cli.store import Store

BLOCK_LINE = (
    "- [from tool, untrusted] ModuleNotFoundError: No module named 'requests' — fix: pip install "
    f"requests && {FAILED}"
)


@pytest.fixture(autouse=True)
def _patient(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hook here waits as long as the server takes: these tests are about answers, not speed (a
    loaded machine must not send a hook down the cold path where the test expects the warm)."""
    monkeypatch.setattr(warm, "TIMEOUT", 60.0)


@pytest.fixture
def project(_isolated: Path) -> Path:
    (_isolated / ".hindsight").mkdir()
    trust.allow(_isolated / ".hindsight")
    return _isolated


@pytest.fixture
def store(project: Path) -> Iterator[Store]:
    """Session s1 failed, fixed and ended; the socket of the store is cleared after the test."""
    learnt_store = learnt(project)
    yield learnt_store
    path = rendezvous.socket_path(str(learnt_store.path))
    if path and os.path.lexists(path):
        os.unlink(path)


def _block(out: str) -> str | None:
    if not out:
        return None
    found: str = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return found


def _records(store: Store, session: str) -> int:
    return len(store.injections(session=session)[0])


def _failure_event(project: Path, session: str) -> events.Event:
    return events.normalize("claude-code", "tool-failure", _payload(project, session))


def _ask(store: Store, session: str = "s9") -> tuple[bool, str | None]:
    event = _failure_event(store.path.parent, session)
    return warm.ask(str(store.path), event, f"{event.args}\n{event.error}", Settings())


def test_a_listening_store_answers_the_hook_with_the_cold_block_recorded_once(
    store: Store, project: Path
) -> None:
    cold = _block(fail(project, "s2"))
    assert cold is not None and cold.splitlines()[1:] == [BLOCK_LINE]
    with warm.listening(store) as listener:
        assert listener is not None
        assert _ask(store, "s3") == (True, cold)
        assert _block(fail(project, "s4")) == cold
    assert not os.path.lexists(str(listener.path))
    # one record per recall, whichever process answered it
    assert [_records(store, s) for s in ("s2", "s3", "s4")] == [1, 1, 1]


def test_the_server_records_nothing_for_a_hook_that_never_took_the_block(store: Store) -> None:
    event = _failure_event(store.path.parent, "s5")
    line = warm.request(str(store.path), event, f"{event.args}\n{event.error}", Settings())
    with warm.listening(store):
        conn = rendezvous.connect(str(store.path), 5.0)
        assert conn is not None
        with conn:
            conn.sendall(line)
            answer = json.loads(rendezvous.read_line(conn, warm.MAX_ANSWER))
        assert answer["confirm"] and answer["block"].splitlines()[1:] == [BLOCK_LINE]
        # the hook gave up (timed out) before it said it took the block: it goes cold and records
        # the recall itself, so the server must not
        assert _ask(store, "s6")[0]
    assert _records(store, "s5") == 0
    assert _records(store, "s6") == 1


def _fake_server(store: Store, reply: Callable[[socket.socket], None]) -> rendezvous.Listener:
    listener = rendezvous.Listener(str(store.path), reply)
    assert listener.start() is None
    return listener


@pytest.mark.parametrize(
    "reply",
    [
        b"not json\n",
        b'{"v": 99, "ok": true, "block": "[hindsight: forged]"}\n',
        b'{"v": 1, "ok": true, "block": 7}\n',
        b'{"v": 1, "ok": false}\n',
        b'{"v": 1, "ok": true, "block": "' + b"x" * (warm.MAX_ANSWER + 10) + b'"}\n',
        b"",
    ],
    ids=["garbage", "another protocol", "not text", "refused", "too long", "silence"],
)
def test_a_bad_answer_sends_the_hook_down_the_cold_path(
    store: Store, project: Path, reply: bytes
) -> None:
    cold = _block(fail(project, "s2"))

    def answer(conn: socket.socket) -> None:
        rendezvous.read_line(conn, warm.MAX_REQUEST)
        conn.sendall(reply)

    listener = _fake_server(store, answer)
    try:
        assert _ask(store) == (False, None)
        assert _block(fail(project, "s3")) == cold
    finally:
        listener.close()
    assert _records(store, "s3") == 1


def test_a_link_or_a_file_at_the_socket_path_is_never_used(store: Store, tmp_path: Path) -> None:
    path = rendezvous.socket_path(str(store.path), create=True)
    assert path is not None
    elsewhere = tmp_path / "elsewhere.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as planted:
        planted.bind(str(elsewhere))
        planted.listen(1)
        os.symlink(elsewhere, path)
        try:
            assert _ask(store) == (False, None)
            # and no server removes or replaces what it did not make
            assert rendezvous.Listener(str(store.path), lambda c: None).start() is not None
            assert os.path.islink(path)
        finally:
            os.unlink(path)
    Path(path).write_text("")
    try:
        assert _ask(store) == (False, None)
        assert rendezvous.Listener(str(store.path), lambda c: None).start() is not None
    finally:
        os.unlink(path)


def test_a_stale_socket_fails_fast_and_the_next_server_replaces_it(
    store: Store, project: Path
) -> None:
    path = rendezvous.socket_path(str(store.path), create=True)
    assert path is not None
    # a server killed with SIGKILL leaves its socket file, and nobody answers there
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(path)
    dead.close()
    assert _ask(store) == (False, None)
    assert _block(fail(project, "s2")) is not None
    with warm.listening(store) as listener:
        assert listener is not None
        assert _ask(store, "s3")[0]
        # a second process of the store leaves the answering one alone
        assert warm.listen(store) is None
    assert not os.path.lexists(path)


def test_a_withdrawn_approval_holds_through_the_socket(store: Store, project: Path) -> None:
    with warm.listening(store):
        trust.deny(store.path)
        assert _ask(store) == (False, None)
        # and the hook, cold, refuses the store as before: nothing injected
        out, ok = hooks.run("tool-failure", "claude-code", json.dumps(_payload(project, "s3")))
        assert not ok and out == ""


def _payload(project: Path, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": FAILED},
        "error": ERROR,
    }


def test_warm_recall_can_be_turned_off(store: Store, project: Path) -> None:
    (project / ".hindsight" / "config.toml").write_text("[hooks]\nwarm_recall = false\n")
    off = Store(store.path)
    assert warm.listen(off) is None
    assert rendezvous.connect(str(store.path), 1.0) is None
    assert _block(fail(project, "s2")) is not None


def test_the_server_refuses_an_oversized_or_foreign_request(store: Store) -> None:
    other = _failure_event(store.path.parent, "s7")
    foreign = warm.request(str(store.path.parent), other, "q", Settings())
    with warm.listening(store):
        for line in (b"{" + b" " * (warm.MAX_REQUEST + 10) + b"}\n", foreign):
            conn = rendezvous.connect(str(store.path), 5.0)
            assert conn is not None
            with conn:
                conn.sendall(line)
                assert json.loads(rendezvous.read_line(conn, warm.MAX_ANSWER))["ok"] is False
    assert _records(store, "s7") == 0


# --- through real processes --------------------------------------------------------------------


def _hook(project: Path, session: str) -> str | None:
    """The failing call through the command ``hooks install`` writes, as the agent runs it."""
    result = subprocess.run(
        shlex.split(command("claude-code", "tool-failure", None)),
        input=json.dumps(_payload(project, session)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and result.stderr == ""
    return _block(result.stdout)


def _initialized(server: subprocess.Popen[str]) -> None:
    """Wait for ``hindsight mcp`` over stdio to answer ``initialize``."""
    floor.rpc(server, 1, "initialize", floor.INITIALIZE)


def _serve(store: Path, *args: str, face: str = "mcp") -> subprocess.Popen[str]:
    """``hindsight mcp`` over stdio (or another ``face``), once its socket answers."""
    server = subprocess.Popen(
        [sys.executable, "-m", "hindsight_cli", face, "--store", str(store), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    ready = threading.Event()

    def wait() -> None:
        while server.poll() is None and not ready.is_set():
            conn = rendezvous.connect(str(store), 1.0)
            if conn is not None:
                conn.close()
                ready.set()
            else:
                threading.Event().wait(0.05)

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    waiter.join(120)
    assert ready.is_set(), "the server never listened"
    return server


def _stop(server: subprocess.Popen[bytes]) -> None:
    assert server.stdin is not None
    server.stdin.close()
    server.wait(60)


def _cold_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process, the cold path cannot answer: what comes back came from the server."""

    def broken(*args: object, **kwargs: object) -> None:
        raise AssertionError("the cold path ran")

    monkeypatch.setattr(context, "repeat_context", broken)


@pytest.mark.slow
def test_a_running_mcp_server_answers_the_installed_hook_like_the_cold_path(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for call in ("tool-failure", "tool", "session-end"):
        payload = _payload(project, "s1")
        if call == "tool":
            payload.update(
                hook_event_name="PostToolUse",
                tool_input={"command": f"pip install requests && {FAILED}"},
                tool_response={"stdout": "3 passed", "stderr": ""},
            )
            del payload["error"]
        elif call == "session-end":
            payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": "SessionEnd"}
        hooks.run(call, "claude-code", json.dumps(payload))
    cold = _hook(project, "s2")
    assert cold is not None and cold.splitlines()[1:] == [BLOCK_LINE]
    path = project / ".hindsight"
    # a server scoped to another agent: the hook's scope is still the cold path's
    server = _serve(path, "--agent", "someone-else")
    try:
        assert _hook(project, "s3") == cold
        _cold_disabled(monkeypatch)
        out, ok = hooks.run("tool-failure", "claude-code", json.dumps(_payload(project, "s4")))
        assert ok and _block(out) == cold
    finally:
        _stop(server)
    assert server.returncode == 0
    # a clean exit removes the socket
    assert rendezvous.connect(str(path), 1.0) is None
    assert not os.path.lexists(str(rendezvous.socket_path(str(path))))
    assert [_records(Store(path), s) for s in ("s2", "s3", "s4")] == [1, 1, 1]


@pytest.mark.slow
def test_a_killed_server_leaves_the_hook_working(store: Store, project: Path) -> None:
    cold = _block(fail(project, "s2"))
    server = _serve(store.path)
    os.kill(server.pid, signal.SIGKILL)
    server.wait(60)
    socket_file = rendezvous.socket_path(str(store.path))
    assert socket_file is not None and os.path.lexists(socket_file)
    assert _ask(store) == (False, None)
    assert _hook(project, "s3") == cold
    # the next server takes the dead one's place
    server = _serve(store.path)
    try:
        assert _ask(store, "s4") == (True, cold)
    finally:
        _stop(server)


def test_hooks_status_says_whether_a_server_answers(store: Store, home: Path) -> None:
    cli = Cli(store.path)
    quiet = cli("hooks", "status")
    assert quiet.exit_code == 0
    assert "a repeat recall starts cold" in quiet.stderr
    assert json.loads(cli("hooks", "status", "--json").stdout)["warm_server"] is False
    with warm.listening(store):
        assert json.loads(cli("hooks", "status", "--json").stdout)["warm_server"] is True
        assert "answers the hooks' repeat recall (warm)" in cli("hooks", "status").stderr


def _asked_before(project: Path) -> str:
    """Session s1 asked about a 401 and met the error; the question that repeats it."""
    run(project, "UserPromptSubmit", "s1", prompt="why does the weather API return 401?")
    run(
        project,
        "PostToolUseFailure",
        "s1",
        tool_name="WebFetch",
        tool_input={"url": "https://api.weather.example/today"},
        error="HTTP 401 Unauthorized: weather API token expired",
    )
    run(project, "UserPromptSubmit", "s1", prompt="list the files")
    return "why does the weather API return 401 again?"


@pytest.mark.model
def test_a_repeated_question_gets_the_cold_block_from_a_warm_server(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _asked_before(project)
    cold = _block(run(project, "UserPromptSubmit", "s2", prompt=asked))
    assert cold is not None and "weather API token expired" in cold
    # the same history in a twin project, whose repeat a warm server answers (an answer changes
    # what the next one finds: the question itself is a memory then)
    twin = tmp_path / "twin"
    (twin / ".hindsight").mkdir(parents=True)
    trust.allow(twin / ".hindsight")
    _asked_before(twin)
    answered: list[bool] = []

    def spy(*args: Any) -> tuple[bool, str | None]:
        found = real(*args)
        answered.append(found[0])
        return found

    real = warm.ask
    monkeypatch.setattr(warm, "ask", spy)
    # the server's store searches its in-memory index; the hook's cold one, the ledger
    server_store = Store(twin / ".hindsight", warm=True)
    server_store.warm_up()
    with warm.listening(server_store):
        assert _block(run(twin, "UserPromptSubmit", "s2", prompt=asked)) == cold
    assert answered == [True]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("face", "args"), [("ui", ("--no-open", "--port", "0")), ("mcp", ())], ids=["ui", "mcp"]
)
def test_a_server_answers_and_removes_its_socket_on_ctrl_c(
    store: Store, project: Path, face: str, args: tuple[str, ...]
) -> None:
    cold = _block(fail(project, "s2"))
    server = _serve(store.path, *args, face=face)
    try:
        assert _ask(store, "s3") == (True, cold)
        if face == "mcp":
            # the socket answers before the MCP server is up; Ctrl-C here is the serving one's
            _initialized(server)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(60)
    assert rendezvous.connect(str(store.path), 1.0) is None
    assert not os.path.lexists(str(rendezvous.socket_path(str(store.path))))
    assert _records(store, "s3") == 1
