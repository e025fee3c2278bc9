"""Issue 31's lows that were still open: store paths the engines misread, a killed `mine` that
owed summaries, a key that collides with a part's, and one odd field in a transcript."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import transcript_fixtures as tf
from fake_embedder import FakeEmbedder
from transcript_fixtures import agents_fixture  # noqa: F401  (the `agents` fixture)
from typer.testing import CliRunner

from hindsight_cli import InvalidInput, embedding
from hindsight_cli.cli import app
from hindsight_cli.errors import BadUsage
from hindsight_cli.models import Filters
from hindsight_cli.store import Store

MODEL = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
CWD = "/work/weather"


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


# -- store paths: refused in one line (exit 2) when an engine would misread them ------------------


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("a\\b", "a backslash"),
        ("a?b", "'?'"),
        ("a\nb", "a control character"),
        ("a\tb", "a control character"),
        ("a\x1bb", "a control character"),
    ],
)
def test_a_store_path_the_engines_misread_is_refused(tmp_path: Path, name: str, said: str) -> None:
    # what DuckDB opened for `a\b`: another directory's ledger
    other = Store(tmp_path / "a" / "b", embedder=MODEL)
    other.init()
    other.record("the other directory's memory")
    path = tmp_path / name
    for command in (["record", "x"], ["init"], ["list"], ["search", "memory"]):
        done = _invoke(*command, "--store", str(path))
        assert done.exit_code == 2, (command, done.output)
        line = _one_line(done.stderr)
        assert said in line and "choose a directory" in line
    assert not path.exists()
    with pytest.raises(BadUsage):
        Store(path, embedder=MODEL)
    assert [m.content for m in other.list(limit=None)] == ["the other directory's memory"]


@pytest.mark.parametrize("name", ["a*b", "a[x]b", "a{b,c}", "a%41b", "a#b", "a b", "é~$"])
def test_a_store_path_with_glob_and_other_characters_works(tmp_path: Path, name: str) -> None:
    store = str(tmp_path / name)
    for text in ("the cache is redis", "the queue is rabbitmq", "deploys run on fridays"):
        assert _invoke("record", text, "--store", store).exit_code == 0
    assert "redis" in _invoke("search", "cache redis", "--store", store).stdout
    assert _invoke("reindex", "--store", store).exit_code == 0
    gone = Store(Path(store), embedder=MODEL).list(Filters(), limit=None)[0].id
    done = _invoke("forget", gone, "--hard", "-y", "--store", store)
    assert done.exit_code == 0, done.output
    assert len(Store(Path(store), embedder=MODEL).list(limit=None)) == 2


# -- a mine killed before its summaries writes them on the next run -------------------------------


class _Killed(BaseException):
    """Stands for SIGKILL at a seam: nothing after it runs (no handler catches a BaseException)."""


def _summaries(store: Path) -> list[str]:
    found = Store(store, embedder=MODEL).list(Filters(tags=("summary",)), limit=None)
    return sorted(str(m.task_id) for m in found)


@pytest.mark.parametrize("seam", ["summarising", "before-state"])
def test_a_mine_killed_before_its_summaries_writes_them_when_rerun(
    tmp_path: Path, agents: Path, monkeypatch: pytest.MonkeyPatch, seam: str
) -> None:
    from hindsight_cli.transcripts import state

    tf.claude_code(agents, CWD)
    full = tmp_path / "full"
    assert _invoke("mine", "claude-code", "--store", str(full)).exit_code == 0
    expected = _summaries(full)
    assert expected

    store = tmp_path / "s"
    with monkeypatch.context() as patch:
        if seam == "summarising":
            # killed as the first summary is being written: every exchange is in
            def kill(*args: Any, **kwargs: Any) -> Any:
                raise _Killed

            patch.setattr(Store, "summarize", kill)
        else:
            # killed after the exchanges were committed, before the state that says so was saved
            patch.setattr(state, "save", lambda *a, **k: (_ for _ in ()).throw(_Killed()))
        with pytest.raises(_Killed):
            CliRunner().invoke(
                app, ["mine", "claude-code", "--store", str(store)], catch_exceptions=False
            )
    assert _summaries(store) == []
    done = _invoke("mine", "claude-code", "--store", str(store), "--json")
    assert done.exit_code == 0, done.output
    assert _summaries(store) == expected
    # owed once: a third run writes none again
    done = _invoke("mine", "claude-code", "--store", str(store), "--json")
    assert json.loads(done.stdout)["total"]["summaries"] == 0
    assert _summaries(store) == expected


# -- a key that collides with a part's derived key is refused, never half-written -----------------


@pytest.mark.parametrize("taken", ["k#1", "k#2"])
def test_a_key_that_collides_with_a_parts_key_is_refused_in_one_line(
    tmp_path: Path, taken: str
) -> None:
    store = Store(tmp_path / "s", embedder=MODEL)
    store.init()
    store.record("the short memory", idempotency_key=taken)
    long = "the long text, word after word. " * 1000
    with pytest.raises(InvalidInput, match="another memory's"):
        store.record(long, idempotency_key="k")
    with pytest.raises(InvalidInput, match="Nothing was imported"):
        store.import_records([{"content": long, "idempotency_key": "k"}])
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"content": long, "idempotency_key": "k"}) + "\n")
    done = _invoke("import", str(path), "--store", str(tmp_path / "s"))
    assert done.exit_code == 1 and "another memory's" in _one_line(done.stderr)
    assert [m.content for m in store.list(limit=None)] == ["the short memory"]
    # every memory reads back whole: no ledger damage
    assert _invoke("doctor", "store", "--store", str(tmp_path / "s")).exit_code == 0
    # the same long text twice is one memory, as before
    other = Store(tmp_path / "t", embedder=MODEL)
    first = other.record(long, idempotency_key="k")
    again = other.record(long, idempotency_key="k")
    assert again.memory.id == first.memory.id and not first.deduplicated and again.deduplicated
    assert other.import_records([{"content": long, "idempotency_key": "k"}]).added == 0


# -- one odd field in a transcript: that exchange is cleaned (or skipped, and said so), never the run


def _oddly(path: Path, field: str, odd: Any) -> None:
    """Every ``field`` of every line of ``path`` (at any depth) set to ``odd``."""

    def put(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (odd if k == field else put(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [put(v) for v in value]
        return value

    lines = []
    for line in path.read_text().splitlines():
        try:
            lines.append(json.dumps(put(json.loads(line))))
        except ValueError:
            lines.append(line)
    path.write_text("\n".join(lines) + "\n")


_MAKE: dict[str, tuple[Callable[..., Path], str, str, str]] = {
    "claude-code": (tf.claude_code, "timestamp", "sessionId", "text"),
    "codex": (tf.codex, "timestamp", "id", "text"),
    "gemini": (tf.gemini, "timestamp", "sessionId", "text"),
}
_ODD: list[tuple[str, Any]] = [
    ("time", {"$date": 1}),
    ("time", 10**400),
    ("time", 1e308),
    ("time", "2026-99-99T99:99:99Z"),
    ("time", ["2026-01-05"]),
    ("session", "s" * 300),
    ("session", "two\nlines"),
    ("text", "half an emoji \ud83d"),
    ("session", "\udc00"),
]


_CLEAN: dict[str, int] = {}


def _clean_added(client: str, store: Path) -> int:
    """What mining the client's unchanged transcript (just written to the test's home) adds: the
    same fixed story every time, so mined once per test process and client."""
    if client not in _CLEAN:
        clean = _invoke("mine", client, "--store", str(store), "--json")
        assert clean.exit_code == 0, clean.output
        _CLEAN[client] = json.loads(clean.stdout)["total"]["added"]
    return _CLEAN[client]


def _odd_runs() -> list[Any]:
    """Each odd field in each client's transcript: the inner loop mines every odd field in one
    client's (the clients in turn, each three times), the full suite every pair (a mine run takes
    a second)."""
    clients = sorted(_MAKE)
    return [
        pytest.param(
            client,
            kind,
            odd,
            id=f"{kind}-{repr(odd)[:12]}-{client}",
            marks=() if m == n % len(clients) else pytest.mark.slow,
        )
        for n, (kind, odd) in enumerate(_ODD)
        for m, client in enumerate(clients)
    ]


@pytest.mark.parametrize(("client", "kind", "odd"), _odd_runs())
def test_one_odd_field_never_aborts_a_mine_run(
    tmp_path: Path, agents: Path, client: str, kind: str, odd: Any
) -> None:
    make, time_field, session_field, text_field = _MAKE[client]
    path = make(agents, CWD)
    expected = _clean_added(client, tmp_path / "clean")
    field = {"time": time_field, "session": session_field, "text": text_field}[kind]
    _oddly(path, field, odd)
    store = tmp_path / "s"
    done = _invoke("mine", client, "--store", str(store), "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    total = json.loads(done.stdout)["total"]
    # cleaned, not lost: the time left out, a session id made a task id, the half emoji dropped
    assert total["added"] + total["refused"] >= expected - 1 and total["added"] > 0
    stored = Store(store, embedder=MODEL).list(limit=None)
    assert all("\ud83d" not in m.content and "\n" not in (m.task_id or "") for m in stored)


def test_an_exchange_the_store_refuses_is_skipped_and_named(
    tmp_path: Path, agents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tf.claude_code(agents, CWD)
    expected = _clean_added("claude-code", tmp_path / "clean")
    tf.refuse_mined_at(monkeypatch, 2)
    done = _invoke("mine", "claude-code", "--store", str(tmp_path / "s"), "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    total = json.loads(done.stdout)["total"]
    assert total["refused"] == 1 and total["added"] == expected - 1
    assert "skipped exchange 2: tag must be one line" in done.stderr
    stored = Store(tmp_path / "s", embedder=MODEL).list(limit=None)
    # the exchanges, not the lessons mined beside them (a failed call of a known kind)
    steps = {m.step for m in stored if not m.metadata.get("signature")}
    assert 2 not in steps and {0, 1, 3} <= steps


@pytest.mark.parametrize(
    "odd", [{"$date": 1}, 10**400, "2026-99-99", "\ud800"], ids=["object", "huge", "bad", "half"]
)
def test_one_odd_time_in_an_export_never_aborts_an_import(tmp_path: Path, odd: Any) -> None:
    import export_fixtures as ex

    path = ex.mem0(tmp_path / "mem0.json", "list")
    clean = _invoke("import", str(path), "--from", "mem0", "--store", str(tmp_path / "c"), "--json")
    expected = json.loads(clean.stdout)["added"]
    items = json.loads(path.read_text())
    items[0]["created_at"] = odd
    path.write_text(json.dumps(items))
    done = _invoke("import", str(path), "--from", "mem0", "--store", str(tmp_path / "s"), "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    assert json.loads(done.stdout)["added"] == expected


def test_agent_names_are_compared_cleaned_through_the_cli(tmp_path: Path) -> None:
    """Already held (tests/test_trust.py covers the Python API): through the command line too, bob
    plus a control character is bob, as the write stores it, and nobody else."""
    store = str(tmp_path / "s")
    assert _invoke("record", "bob: the vault is /v/prod", "--agent", "bob", "--store", store)
    for raw in ("bob\x07", "bob\x1b", "bo\x00b"):
        done = _invoke("list", "--agent", raw, "--store", store, "--json")
        assert [m["agent_id"] for m in json.loads(done.stdout)] == ["bob"]
    done = _invoke("list", "--agent", "alice", "--store", store, "--json")
    assert json.loads(done.stdout) == []
    done = _invoke("record", "mine", "--agent", "alice\x07", "--store", store, "--json")
    assert json.loads(done.stdout)["agent_id"] == "alice"
