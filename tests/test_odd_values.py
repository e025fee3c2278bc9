"""Values that pass one reader and break the next (review C): JSON the parser takes on a short
stack but no walker can go through, or refuses with an error nobody expected; numbers that are not
JSON; times whose UTC falls off the calendar. Each is refused in one line or skipped, never a
traceback, nothing half-written (docs/reliability.md, "Bounded reads" and "Hostile and odd input")."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import transcript_fixtures as tf
from fake_embedder import FakeEmbedder
from transcript_fixtures import agents_fixture  # noqa: F401  (the `agents` fixture)
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.cli import app
from hindsight_cli.errors import BadUsage
from hindsight_cli.store import Store

MODEL = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
CWD = "/work/weather"


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), prog_name="hindsight")


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def _nested(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


# -- JSON that is not JSON hindsight reads: refused whole, in one line ----------------------------

_BAD_LINES = [
    # the parser's own RecursionError
    ("an array 100,000 deep", _nested(100_000), "nested more than 200 levels deep"),
    # parsed on the importer's short stack; the cleaning and redaction walkers died at ~500
    (
        "metadata 500 deep",
        '{"content": "x", "metadata": {"m": ' + _nested(500) + "}}",
        "nested more than 200 levels deep",
    ),
    ("an int of 5,000 digits", '{"content": "x", "step": ' + "7" * 5000 + "}", "4,300 digits"),
    ("metadata NaN", '{"content": "x", "metadata": {"m": NaN}}', "only JSON values"),
    ("metadata 1e999999", '{"content": "x", "metadata": {"m": 1e999999}}', "only JSON values"),
    ("metadata -Infinity", '{"content": "x", "metadata": {"m": [-Infinity]}}', "only JSON values"),
]


@pytest.mark.parametrize(
    ("bad", "message"), [c[1:] for c in _BAD_LINES], ids=[c[0] for c in _BAD_LINES]
)
def test_an_import_line_hindsight_cannot_read_refuses_the_file_in_one_line(
    tmp_path: Path, bad: str, message: str
) -> None:
    store = str(tmp_path / "s")
    assert _invoke("record", "kept from before", "--store", store).exit_code == 0
    before = _invoke("export", "--store", store).stdout
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"content": "a good line"}) + "\n" + bad + "\n")
    done = _invoke("import", str(source), "--store", store)
    assert done.exit_code == 1, done.output
    line = _one_line(done.stderr)
    assert line.startswith("Error: ") and message in line and "2" in line, line
    assert "othing was imported" in line
    assert _invoke("export", "--store", store).stdout == before


def test_metadata_nested_within_the_limit_goes_through_every_walker_and_back(
    tmp_path: Path,
) -> None:
    # 190 levels, a lone surrogate at the bottom: cleaning, redaction, export and import walk it
    metadata = {"m\ud800": json.loads(_nested(190, '"deep \\ud800 value"'))}
    store = Store(tmp_path / "s", embedder=MODEL)
    store.record("deeply nested metadata", metadata=metadata)
    out = tmp_path / "out.jsonl"
    assert _invoke("export", "-o", str(out), "--store", str(tmp_path / "s")).exit_code == 0
    done = _invoke("import", str(out), "--store", str(tmp_path / "t"), "--json")
    assert done.exit_code == 0, done.output
    again = json.loads(_invoke("export", "--store", str(tmp_path / "t")).stdout)
    assert again["metadata"]["m"] == json.loads(out.read_text())["metadata"]["m"]
    assert json.dumps(again["metadata"]["m"]).count("[") == 190
    listed = _invoke("list", "--json", "--store", str(tmp_path / "t"))
    assert listed.exit_code == 0 and "deep  value" in listed.stdout


@pytest.mark.parametrize(
    "metadata",
    [
        {"m": float("nan")},
        {"m": [float("inf")]},
        {"m": 10**5000},
        {"m": json.loads(_nested(300))},
    ],
    ids=["nan", "inf", "huge-int", "300-deep"],
)
def test_the_python_api_refuses_metadata_that_is_not_json_it_stores(
    tmp_path: Path, metadata: dict[str, Any]
) -> None:
    store = Store(tmp_path / "s", embedder=MODEL)
    store.init()
    with pytest.raises(BadUsage, match="metadata"):
        store.record("x", metadata=metadata)
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    with pytest.raises(BadUsage, match="metadata"):
        store.record("x", metadata=cycle)
    assert store.list(limit=None) == []


# -- a tool's output that is deep JSON in a transcript: that exchange is read as text -------------

_DEEP_OUTPUTS = {
    "brackets": "[" * 50_000,
    "an object's value": '{"output": ' + "[" * 50_000,
    "deep but closed": _nested(5_000),
}


def _codex_raw(path: Path, deep: str) -> None:
    """The brackets call's arguments and output in a Codex rollout as the raw text (JSON strings
    that Codex decodes again), not wrapped as the fixture writes them."""
    lines = []
    for line in path.read_text().splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            # the fixture's torn line
            value = None
        payload = value.get("payload", value) if isinstance(value, dict) else None
        if isinstance(payload, dict) and payload.get("call_id") == "call_0_0":
            key = "arguments" if "arguments" in payload else "output"
            payload[key] = '{"command": ' + deep if deep.startswith("[") else deep
            line = json.dumps(value)
        lines.append(line)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("output", sorted(_DEEP_OUTPUTS))
@pytest.mark.parametrize("client", ["claude-code", "codex", "codex-legacy", "gemini", "opencode"])
def test_a_tool_output_of_deep_json_never_aborts_a_mine_run(
    tmp_path: Path, agents: Path, client: str, output: str
) -> None:
    # an agent that `cat`s a file of brackets: the output is read for an error as JSON
    odd = tf.Call("shell", {"command": "cat brackets.json"}, True, _DEEP_OUTPUTS[output])
    turns = [tf.Turn("Show the brackets file", "It is brackets.", [odd]), *tf.STORY]
    if client.startswith("codex"):
        path = tf.codex(agents, CWD, legacy=client == "codex-legacy", turns=turns)
        _codex_raw(path, _DEEP_OUTPUTS[output])
    else:
        {"claude-code": tf.claude_code, "gemini": tf.gemini, "opencode": tf.opencode}[client](
            agents, CWD, turns=turns
        )
    store = tmp_path / "s"
    done = _invoke("mine", client.removesuffix("-legacy"), "--store", str(store), "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output[-800:]
    stored = Store(store, embedder=MODEL).list(limit=None)
    assert any("Show the brackets file" in m.content for m in stored)
    assert any("weather" in m.content for m in stored)


# -- a file from outside whose JSON is too deep: one line ----------------------------------------


def test_a_project_client_config_of_deep_json_is_refused_in_one_line(
    home: Path, tmp_path: Path
) -> None:
    config = Path.cwd() / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text('{"mcpServers": ' + _nested(100_000) + "}")
    before = config.read_bytes()
    done = _invoke(
        "mcp", "install", "--client", "cursor", "--scope", "project", "--store", str(tmp_path / "s")
    )
    assert done.exit_code == 1, done.output
    assert "not valid JSON" in _one_line(done.stderr)
    assert config.read_bytes() == before


def test_a_token_file_of_deep_json_is_refused_in_one_line(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text('{"tokens": ' + _nested(100_000) + "}")
    tokens.chmod(0o600)
    done = _invoke("mcp", "token", "ci-bot", "--tokens", str(tokens))
    assert done.exit_code == 1, done.output
    assert "Cannot read the token file" in _one_line(done.stderr)


# -- times whose UTC is outside years 1 to 9999 ---------------------------------------------------

_LATE, _EARLY = "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00"


@pytest.mark.parametrize("stamp", [_LATE, _EARLY], ids=["late", "early"])
def test_a_time_off_the_calendar_in_utc_is_a_usage_error(tmp_path: Path, stamp: str) -> None:
    store = str(tmp_path / "s")
    for command in (
        ["record", "x", "--event-at", stamp],
        ["search", "x", "--since", stamp],
        ["search", "x", "--until", stamp],
        ["list", "--since", stamp],
    ):
        done = _invoke(*command, "--store", store)
        assert done.exit_code == 2, (command, done.output)
        assert "outside the years 1 to 9999" in _one_line(done.stderr), command
    zone = timezone(timedelta(hours=-14 if stamp == _LATE else 14))
    moment = datetime.fromisoformat(stamp).replace(tzinfo=zone)
    api = Store(tmp_path / "api", embedder=MODEL)
    api.init()
    with pytest.raises(BadUsage, match="outside the years 1 to 9999"):
        api.record("x", event_at=moment)
    assert api.list(limit=None) == []


@pytest.mark.parametrize("field", ["created_at", "event_at", "valid_until", "expires_at"])
def test_an_import_time_off_the_calendar_refuses_the_file_in_one_line(
    tmp_path: Path, field: str
) -> None:
    store = str(tmp_path / "s")
    assert _invoke("record", "kept from before", "--store", store).exit_code == 0
    before = _invoke("export", "--store", store).stdout
    source = tmp_path / "in.jsonl"
    lines = [{"content": "fine"}, {"content": "late", field: _LATE}]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = _invoke("import", str(source), "--store", store)
    assert done.exit_code == 1, done.output
    line = _one_line(done.stderr)
    assert "Record 2" in line and field in line and "outside the years 1 to 9999" in line
    assert _invoke("export", "--store", store).stdout == before


# -- a number setting that is not a finite number in range: one line, never a wait without end -----


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e999", "soon"])
def test_a_lock_timeout_from_the_environment_out_of_range_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    store = str(tmp_path / "s")
    assert _invoke("record", "x", "--store", store).exit_code == 0
    monkeypatch.setenv("HINDSIGHT_LOCK_TIMEOUT", value)
    done = _invoke("list", "--store", store)
    assert done.exit_code == 1, done.output
    line = _one_line(done.stderr)
    assert "HINDSIGHT_LOCK_TIMEOUT must be a number of seconds from 0 to 86,400" in line


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        ("lock_timeout = nan\n", "lock_timeout must be a finite number"),
        ("lock_timeout = inf\n", "lock_timeout must be a finite number"),
        ("lock_timeout = -5.0\n", "lock_timeout must be a number of seconds from 0"),
        ("[limits]\nmax_content_bytes = inf\n", "max_content_bytes must be a finite number"),
        ("[limits]\nmax_content_bytes = 0\n", "max_content_bytes must be at least 256 bytes"),
        ("[limits]\nmax_content_bytes = -5\n", "max_content_bytes must be at least 256 bytes"),
        ("[ranking]\nuse_half_life = nan\n", "use_half_life must be a finite number"),
    ],
)
def test_a_config_number_that_is_not_finite_is_one_line(
    tmp_path: Path, toml: str, said: str
) -> None:
    from hindsight_cli import paths

    store = str(tmp_path / "s")
    assert _invoke("record", "x", "--store", store).exit_code == 0
    user = paths.user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(toml)
    done = _invoke("list", "--store", store)
    assert done.exit_code == 1, done.output
    assert said in _one_line(done.stderr)


def test_config_set_refuses_a_number_that_is_not_finite(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    assert _invoke("record", "x", "--store", store).exit_code == 0
    config = tmp_path / "s" / "config.toml"
    before = config.read_bytes() if config.exists() else None
    for key, value in (("lock_timeout", "nan"), ("lock_timeout", "inf"), ("lock_timeout", "1e999")):
        done = _invoke("config", "set", key, value, "--store", store)
        assert done.exit_code in (1, 2), done.output
        assert "lock_timeout" in _one_line(done.stderr)
        assert (config.read_bytes() if config.exists() else None) == before


# -- an export whose metadata holds what the store refuses: imported without those values ---------


def _strict(text: str) -> list[Any]:
    """Each line of an export as a strict JSON reader (jq, Postgres) takes it."""

    def refuse(word: str) -> Any:
        raise ValueError(f"{word} is not JSON")

    return [json.loads(line, parse_constant=refuse) for line in text.splitlines()]


@pytest.mark.parametrize(
    "odd", [float("nan"), float("inf"), [float("-inf")]], ids=["nan", "inf", "-inf"]
)
def test_a_mem0_export_with_non_json_numbers_imports_without_them(tmp_path: Path, odd: Any) -> None:
    import export_fixtures as ex

    path = ex.mem0(tmp_path / "mem0.json", "list")
    clean = _invoke("import", str(path), "--from", "mem0", "--store", str(tmp_path / "c"), "--json")
    expected = json.loads(clean.stdout)["added"]
    items = json.loads(path.read_text())
    items[0]["metadata"] = {"odd": odd, "kept": "yes"}
    items[1]["hash"] = odd
    # Python writes NaN and Infinity as mem0's own json.dumps would
    path.write_text(json.dumps(items))
    store = str(tmp_path / "s")
    done = _invoke("import", str(path), "--from", "mem0", "--store", store, "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    assert json.loads(done.stdout)["added"] == expected
    exported = _strict(_invoke("export", "--store", store).stdout)
    assert any(m["metadata"].get("kept") == "yes" for m in exported)
    assert not any("odd" in m["metadata"] for m in exported)


# -- a whole number past what the ledger's integers hold; a wait that never ends -------------------


def test_a_step_past_the_ledgers_integers_is_a_usage_error(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    for step in ("99999999999999999999999", "9223372036854775808", "1000000001"):
        done = _invoke("record", "a new memory", "--step", step, "--store", store)
        assert done.exit_code == 2, done.output
        # before: `The ledger … failed: Conversion Error …; run hindsight doctor store`
        assert _one_line(done.stderr) == "Error: step must be at most 1,000,000,000."
    assert (
        _invoke("record", "a new memory", "--step", "1000000000", "--store", store).exit_code == 0
    )


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("step", 10**22, "step must be at most 1,000,000,000"),
        ("step", "²", "step must be a whole number"),
        ("seen_count", 10**22, "seen_count must be a whole number from 1 to 1,000,000,000"),
        ("version", 2**31 - 1, "version must be a whole number from 1 to 1,000,000,000"),
        # review BO: past a float's range (OverflowError), and an agent that is no text
        ("importance", 10**400, "importance must be a number between 0 and 1"),
        ("confidence", -(10**400), "confidence must be a number between 0 and 1"),
        ("agent_id", 42, "agent_id must be text, not int 42"),
        ("agent_id", ["bob"], "agent_id must be text, not list"),
        ("agent_id", {"name": "bob"}, "agent_id must be text, not dict"),
    ],
)
def test_an_import_number_past_the_ledgers_integers_refuses_the_file_in_one_line(
    tmp_path: Path, field: str, value: Any, said: str
) -> None:
    store = str(tmp_path / "s")
    assert _invoke("record", "kept from before", "--store", store).exit_code == 0
    before = _invoke("export", "--store", store).stdout
    source = tmp_path / "in.jsonl"
    lines = [{"content": "fine"}, {"content": "odd number", field: value}]
    source.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    done = _invoke("import", str(source), "--store", store)
    assert done.exit_code == 1, done.output
    line = _one_line(done.stderr)
    assert "Record 2" in line and said in line
    assert _invoke("export", "--store", store).stdout == before


def test_a_log_limit_past_the_ledgers_integers_is_a_usage_error(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    assert _invoke("record", "x", "--store", store).exit_code == 0
    done = _invoke("log", "-n", "99999999999999999999", "--store", store)
    assert done.exit_code == 2, done.output
    assert "The limit must be a whole number from 0 (all) to 1,000,000" in _one_line(done.stderr)


@pytest.mark.parametrize("value", ["nan", "inf"])
@pytest.mark.parametrize(
    "command", [["mcp", "health"], ["doctor", "mcp"], ["doctor"]], ids=" ".join
)
def test_a_timeout_that_never_ends_is_a_usage_error(
    home: Path, command: list[str], value: str
) -> None:
    # a range check lets NaN through (every comparison with it is false)
    done = _invoke(*command, "--timeout", value)
    assert done.exit_code == 2, done.output
    assert "--timeout must be a number of seconds above 0 and at most 3600" in _one_line(
        done.stderr
    )


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_mcp_write_whose_step_is_past_the_ledgers_integers_is_an_error_result(
    tmp_path: Path, anyio_backend: str
) -> None:
    from mcp import Client

    from hindsight_cli.mcp_server import build_server

    store = Store(tmp_path / "s", embedder=MODEL)
    store.init()
    async with Client(build_server(store)) as client:
        answer = await client.call_tool("memory_write", {"content": "x", "step": 10**22})
    assert answer.is_error
    text = " ".join(c.text for c in answer.content)
    assert "step" in text and "ledger" not in text, text
    assert store.list(limit=None) == []


# -- one spooled event or transcript ingestion cannot read never blocks the spool ------------------


def _hooked_project(tmp_path: Path) -> tuple[Path, Store]:
    project = tmp_path / "weather"
    (project / ".hindsight").mkdir(parents=True)
    store = Store(project / ".hindsight", embedder=MODEL)
    store.init()
    return project, store


def _flushed(project: Path) -> Any:
    done = _invoke("hooks", "flush", "--json", "--store", str(project / ".hindsight"))
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output[-800:]
    spool = project / ".hindsight" / "spool"
    assert not list(spool.glob("claimed-*")) and not (spool / "events.jsonl").exists()
    return json.loads(done.stdout)


def test_a_transcript_path_holding_a_nul_never_blocks_the_spool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hook_calls

    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, MODEL)
    project, store = _hooked_project(tmp_path)
    # before: every ingestion died on `ValueError: embedded null byte`, the event never set aside
    hook_calls.run(project, "Stop", "s1", transcript_path="/tmp/a\x00b.jsonl")
    hook_calls.fail(project, "s2")
    _flushed(project)
    assert any(hook_calls.FAILED in m.content for m in store.list(limit=None))
    rejected = (project / ".hindsight" / "spool" / "rejected.jsonl").read_text()
    assert "holds a NUL byte" in rejected
    # and what comes later goes in too
    hook_calls.fix(project, "s2")
    assert _flushed(project)["fixed"] == 1


_ODD_TYPES = [["user"], {"user": 1}, [{"type": "tool_result"}]]


@pytest.mark.parametrize("odd", _ODD_TYPES, ids=["list", "object", "blocks"])
# (Gemini CLI's reader turns every such field into text first: it held)
@pytest.mark.parametrize("client", ["claude-code", "codex"])
def test_a_line_whose_type_is_a_list_or_an_object_never_aborts_mining(
    tmp_path: Path, agents: Path, monkeypatch: pytest.MonkeyPatch, client: str, odd: Any
) -> None:
    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, MODEL)
    path = {"claude-code": tf.claude_code, "codex": tf.codex}[client](agents, CWD)
    lines = path.read_text().splitlines()
    # one line's `type` (the field every reader looks up first) made a list or an object
    at = next(i for i, line in enumerate(lines) if '"type": "' in line and i > 2)
    value = json.loads(lines[at])
    value["type"] = odd
    lines[at] = json.dumps(value)
    path.write_text("\n".join(lines) + "\n")
    done = _invoke("mine", client, "--store", str(tmp_path / "s"), "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output[-800:]
    assert json.loads(done.stdout)["total"]["added"] > 0
    # and through a hook's ingestion, which mines the transcript a closing event names
    project, store = _hooked_project(tmp_path)
    payload = {"session_id": "s1", "cwd": str(project), "transcript_path": str(path)}
    from hindsight_cli import hooks

    hooks.run("session-end", client, json.dumps(payload))
    _flushed(project)
    assert store.list(limit=None)


def test_a_reader_that_fails_on_one_transcript_skips_it_and_mines_the_rest(
    tmp_path: Path, agents: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A stand-in for a reader's bug on a value no transcript was seen to hold."""
    from hindsight_cli.transcripts import claude_code

    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, MODEL)
    tf.claude_code(agents, CWD, session="good-one")
    bad = tf.claude_code(agents, CWD, session="bad-one")
    read = claude_code.read

    def failing(unit: Any, *args: Any) -> Any:
        if unit.path == bad:
            raise KeyError("a field no transcript had")
        return read(unit, *args)

    monkeypatch.setattr(claude_code, "read", failing)
    done = _invoke("mine", "claude-code", "--store", str(tmp_path / "s"), "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output[-800:]
    assert "bad-one" in done.stderr and "could not read it (KeyError" in done.stderr
    stored = Store(tmp_path / "s", embedder=MODEL).list(limit=None)
    assert {m.task_id for m in stored if m.task_id} >= {"good-one"}
    assert "bad-one" not in {m.task_id for m in stored}
    # a hook's ingestion of it: set aside in the log, the spool drained
    project, _ = _hooked_project(tmp_path)
    payload = {"session_id": "bad-one", "cwd": str(project), "transcript_path": str(bad)}
    from hindsight_cli import hooks

    with caplog.at_level("WARNING", logger="hindsight.hooks"):
        hooks.run("session-end", "claude-code", json.dumps(payload))
        _flushed(project)
    assert any("bad-one" in r.message and "(KeyError" in r.message for r in caplog.records)


# -- an export whose field has another JSON type than the format's: imported without it ------------


def _mem0_with(tmp_path: Path, **odd: Any) -> Path:
    import export_fixtures as ex

    path = ex.mem0(tmp_path / "mem0.json", "results")
    value = json.loads(path.read_text())
    value["results"][0].update(odd)
    if "relations" in odd:
        value["relations"] = odd.pop("relations")
    path.write_text(json.dumps(value))
    return path


def _mcp_memory_with(tmp_path: Path, **odd: Any) -> Path:
    import export_fixtures as ex

    path = ex.mcp_memory(tmp_path / "memory.jsonl")
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first.update(odd)
    lines[0] = json.dumps(first)
    path.write_text("\n".join(lines) + "\n")
    return path


def _claude_with(tmp_path: Path, **odd: Any) -> Path:
    import export_fixtures as ex

    path = ex.claude_ai(tmp_path / "claude.json")
    value = json.loads(path.read_text())
    value[0]["chat_messages"][0].update(odd)
    path.write_text(json.dumps(value))
    return path


_ODD_EXPORTS = [
    ("mem0 metadata a list", "mem0", lambda p: _mem0_with(p, metadata=[1, 2])),
    ("mem0 metadata a number", "mem0", lambda p: _mem0_with(p, metadata=7)),
    ("mem0 categories a number", "mem0", lambda p: _mem0_with(p, categories=3.5)),
    ("mem0 relations a number", "mem0", lambda p: _mem0_with(p, relations=5)),
    (
        "mcp-memory observations a number",
        "mcp-memory",
        lambda p: _mcp_memory_with(p, observations=1),
    ),
    ("claude attachments a number", "claude", lambda p: _claude_with(p, attachments=1.5)),
]


@pytest.mark.parametrize(
    ("fmt", "make"), [c[1:] for c in _ODD_EXPORTS], ids=[c[0] for c in _ODD_EXPORTS]
)
def test_one_field_of_another_type_in_an_export_never_aborts_an_import(
    tmp_path: Path, fmt: str, make: Any
) -> None:
    path = make(tmp_path)
    done = _invoke("import", str(path), "--from", fmt, "--store", str(tmp_path / "s"), "--json")
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output[-800:]
    assert json.loads(done.stdout)["added"] > 0


def test_a_readers_failure_on_an_export_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in for a reader's bug on a value no export was seen to hold."""
    import export_fixtures as ex

    from hindsight_cli.transcripts import importer

    def failing(path: Path, reading: Any) -> Any:
        yield {"content": "read before the failure", "key": "before"}
        raise TypeError("'float' object is not iterable")

    monkeypatch.setitem(importer._NOTES, "mem0", failing)
    path = ex.mem0(tmp_path / "mem0.json")
    done = _invoke("import", str(path), "--from", "mem0", "--store", str(tmp_path / "s"))
    assert done.exit_code == 1, done.output
    line = _one_line(done.stderr)
    assert "stopped being a valid mem0 export (TypeError: 'float' object is not iterable)" in line
    # nothing half-written: what was read before is written whole, or not at all
    if (tmp_path / "s").exists():
        assert len(Store(tmp_path / "s", embedder=MODEL).list(limit=None)) in (0, 1)


# -- an opencode.db that is not OpenCode's SQLite database ----------------------------------------


def _zip_bytes() -> bytes:
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("a", "b")
    return out.getvalue()


def _tables_without_columns(path: Path) -> None:
    import sqlite3

    with sqlite3.connect(path) as conn:
        for table in ("session", "message", "part"):
            conn.execute(f"CREATE TABLE {table} (x)")
    conn.close()


@pytest.mark.parametrize("kind", ["text", "zip", "tables-without-columns"])
def test_an_opencode_db_that_is_not_opencodes_database_is_one_line(
    tmp_path: Path, agents: Path, kind: str
) -> None:
    database = agents / ".local" / "share" / "opencode" / "opencode.db"
    database.parent.mkdir(parents=True)
    if kind == "text":
        database.write_text("not a database\n" * 100)
    elif kind == "zip":
        database.write_bytes(_zip_bytes())
    else:
        _tables_without_columns(database)
    done = _invoke("mine", "opencode", "--store", str(tmp_path / "s"))
    assert done.exit_code == 1, done.output
    # before: `DatabaseError: file is not a database` / `OperationalError: no such column` tracebacks
    assert "Cannot read the OpenCode database" in _one_line(done.stderr)


# -- times at the calendar's edges, once stored ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "event_at"),
    [
        ("last week it broke", "0001-01-02"),
        ("two years ago it broke", "0001-06-01"),
        ("it broke yesterday", "0001-01-01"),
    ],
)
def test_a_relative_time_past_the_calendars_edge_is_left_unresolved(
    tmp_path: Path, text: str, event_at: str
) -> None:
    store = str(tmp_path / "s")
    done = _invoke("record", text, "--event-at", event_at, "--store", store)
    # before: `OverflowError: date value out of range` / `ValueError: year 10000 is out of range`
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output[-600:]
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"content": text + " (imported)", "event_at": event_at}) + "\n")
    imported = _invoke("import", str(source), "--store", store)
    assert imported.exit_code == 0, imported.output[-600:]
    assert len(Store(tmp_path / "s", embedder=MODEL).list(limit=None)) == 2


@pytest.mark.parametrize(
    ("text", "event_at"),
    [
        ("see you tomorrow at the deploy", "9999-12-31"),
        ("the day after tomorrow we ship", "9999-12-30T12:00:00Z"),
        ("next year we migrate", "9999-06-01"),
    ],
)
def test_a_time_at_the_calendars_far_edge_is_refused_as_the_future(
    tmp_path: Path, text: str, event_at: str
) -> None:
    """Resolving "tomorrow" against 9999-12-31 overflowed (review C); a time that far ahead is now
    refused before anything reads it (review B: a time in the future is no time a memory happened)."""
    store = str(tmp_path / "s")
    assert _invoke("record", "a note", "--store", store).exit_code == 0
    done = _invoke("record", text, "--event-at", event_at, "--store", store)
    assert done.exit_code == 2 and "Traceback" not in done.output, done.output[-600:]
    assert "is in the future" in _one_line(done.stderr)
    assert [m.content for m in Store(tmp_path / "s", embedder=MODEL).list(limit=None)] == ["a note"]


def test_a_memory_of_year_one_never_breaks_a_search_or_a_listing(tmp_path: Path) -> None:
    store = str(tmp_path / "s")
    assert _invoke("record", "the deploy key rotated", "--store", store).exit_code == 0
    source = tmp_path / "in.jsonl"
    old = {"content": "the deploy key was first made", "event_at": "0001-01-02T00:00:00Z"}
    source.write_text(json.dumps(old) + "\n")
    assert _invoke("import", str(source), "--store", store).exit_code == 0
    # before: `Error: Invalid time '1-01-02T00:00:00.000000Z'` for every search and listing of the
    # store (glibc's %Y does not pad a year before 1000, and the table reads the time back)
    for command in (["search", "deploy key"], ["list"], ["search", "deploy key", "--json"]):
        done = _invoke(*command, "--store", store)
        assert done.exit_code == 0, (command, done.output)
        assert "first made" in done.stdout
    exported = _invoke("export", "--store", store).stdout
    assert '"event_at": "0001-01-02T00:00:00.000000Z"' in exported
    again = tmp_path / "again.jsonl"
    again.write_text(exported)
    copy = _invoke("import", str(again), "--store", str(tmp_path / "t"), "--json")
    assert copy.exit_code == 0 and json.loads(copy.stdout)["added"] == 2, copy.output


def test_a_store_holding_nan_from_an_older_version_exports_json_every_reader_takes(
    tmp_path: Path,
) -> None:
    import duckdb

    store = str(tmp_path / "s")
    assert (
        _invoke("record", "kept with odd metadata", "--meta", "k=v", "--store", store).exit_code
        == 0
    )
    # what an import wrote before metadata refused NaN and Infinity
    with duckdb.connect(str(tmp_path / "s" / "ledger.duckdb")) as conn:
        conn.execute("UPDATE memories SET metadata = ?", ['{"k": NaN, "n": [Infinity]}'])
    for command in (["export"], ["list", "--json"], ["list", "--nl"], ["search", "odd", "--json"]):
        done = _invoke(*command, "--store", store)
        assert done.exit_code == 0, (command, done.output)
        text = done.stdout if command[-1] != "--json" else done.stdout.replace("\n", " ")
        # before: `"k": NaN`, which jq, Postgres and hindsight's own import refuse
        assert "NaN" not in text and "Infinity" not in text, (command, text)
        if command[-1] == "--json":
            json.loads(text, parse_constant=lambda word: pytest.fail(word))
        else:
            _strict(text)
    again = tmp_path / "again.jsonl"
    again.write_text(_invoke("export", "--store", store).stdout)
    copy = _invoke("import", str(again), "--store", str(tmp_path / "t"), "--json")
    assert copy.exit_code == 0 and json.loads(copy.stdout)["added"] == 1, copy.output


# -- a damaged zip export ------------------------------------------------------------------------


def _damaged_zip(tmp_path: Path, fmt: str, damage: str) -> Path:
    import zipfile

    import export_fixtures as ex

    source = tmp_path / "conversations.json"
    (ex.chatgpt if fmt == "chatgpt" else ex.claude_ai)(source)
    kind = zipfile.ZIP_STORED if damage == "stored crc" else zipfile.ZIP_DEFLATED
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", kind) as archive:
        archive.writestr("conversations.json", source.read_bytes())
    data = bytearray(path.read_bytes())
    start = data.find(b"conversations.json") + len("conversations.json")
    if damage == "truncated":
        data = data[: len(data) // 2] + data[-22:]
    else:
        # a byte of the member's data flipped: bad deflate data, or a stored member's bad CRC
        data[start + 40] ^= 0xFF
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("damage", ["deflate data", "truncated", "stored crc"])
@pytest.mark.parametrize("fmt", ["chatgpt", "claude"])
def test_a_damaged_zip_export_is_one_line(tmp_path: Path, fmt: str, damage: str) -> None:
    path = _damaged_zip(tmp_path, fmt, damage)
    done = _invoke("import", str(path), "--from", fmt, "--store", str(tmp_path / "s"))
    assert done.exit_code == 1, done.output
    # before: `zlib.error: Error -3 while decompressing data` / `BadZipFile` tracebacks
    assert "the archive is damaged" in _one_line(done.stderr)


# -- a writer killed between its temp file and the rename: a hard forget leaves no copy -----------

_KILLED_MINE = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding
embedding._CACHE[embedding.DEFAULT_MODEL] = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
replace = os.replace
def dying(source, target, *args, **kwargs):
    # the mining state written to its temp file, the rename not done: SIGKILL
    if os.sep + "mined" + os.sep in str(target) and str(target).endswith(".json"):
        os.kill(os.getpid(), signal.SIGKILL)
    return replace(source, target, *args, **kwargs)
os.replace = dying
from hindsight_cli.cli import main
sys.argv = ["hindsight", "mine", "claude-code", "--store", {store!r}]
main()
"""


@pytest.mark.slow
def test_a_mine_killed_while_saving_its_state_leaves_nothing_a_hard_forget_misses(
    tmp_path: Path, agents: Path
) -> None:
    import os
    import signal
    import subprocess
    import sys

    secret = "quokkadeploy"
    failing = tf.Call(
        "shell", {"command": f"./{secret}.sh --target tangerine"}, False, f"{secret}: refused"
    )
    later = tf.Call("shell", {"command": "pytest tests/weather"}, True, "3 passed")
    turns = [
        tf.Turn(f"Run {secret}", "It was refused; I stopped there.", [failing]),
        tf.Turn("Now check the weather tests", "They pass.", [later]),
    ]
    tf.claude_code(agents, "/work/moon", turns=turns)
    store = tmp_path / "s"
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILLED_MINE.format(tests=str(Path(__file__).parent), store=str(store)),
        ],
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-800:]
    # the killed run's temp file holds the open failure (its command), as the state would
    leftovers = [p for p in (store / "mined").iterdir() if p.name.endswith(".tmp")]
    assert leftovers and any(secret in p.read_text() for p in leftovers)
    mined = Store(store, embedder=MODEL).list(limit=None)
    assert any(secret in m.content for m in mined)
    done = _invoke("forget", *[m.id for m in mined], "--hard", "-y", "--store", str(store))
    assert done.exit_code == 0, done.output
    traces = [
        str(p.relative_to(store))
        for p in store.rglob("*")
        if p.is_file() and secret.encode() in p.read_bytes()
    ]
    # before: mined/tmpXXXX.tmp still held `./quokkadeploy.sh --target tangerine`
    assert traces == []


def test_a_spool_temp_file_a_killed_rewrite_left_is_swept_by_a_hard_forget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys

    import hook_calls

    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, MODEL)
    project, store = _hooked_project(tmp_path)
    hook_calls.fail(project, "s1")
    spool = project / ".hindsight" / "spool"
    events = (spool / "events.jsonl").read_text()
    _flushed(project)
    [memory] = [m for m in store.list(limit=None) if hook_calls.FAILED in m.content]
    # what a rewrite of a spool file killed before its rename leaves: a whole copy, under a dead pid
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    pid = int(dead.stdout)
    (spool / f".events.jsonl.{pid}-0123456789ab.tmp").write_text(events)
    # and one of a live writer (this process): left to it
    live = spool / f".seen.jsonl.{os_getpid()}-abcdef012345.tmp"
    live.write_text("a live writer's file\n")
    done = _invoke("forget", memory.id, "--hard", "-y", "--store", str(project / ".hindsight"))
    assert done.exit_code == 0, done.output
    assert not (spool / f".events.jsonl.{pid}-0123456789ab.tmp").exists()
    assert live.exists()


def os_getpid() -> int:
    import os

    return os.getpid()


# -- a default agent no write would take ----------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "agent"),
    [
        ("env", "a\nb"),
        ("env", "a" * 300),
        ("env", "\x01\x02"),
        ("config", "two\nlines"),
    ],
    ids=["two-lines", "300-characters", "control-only", "config-two-lines"],
)
def test_a_default_agent_that_is_no_label_is_one_line_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, agent: str
) -> None:
    from hindsight_cli import paths

    store = str(tmp_path / "s")
    assert _invoke("record", "kept from before", "--store", store).exit_code == 0
    if where == "env":
        monkeypatch.setenv("HINDSIGHT_AGENT", agent)
    else:
        user = paths.user_config_path()
        user.parent.mkdir(parents=True, exist_ok=True)
        user.write_text(f"default_agent = {json.dumps(agent)}\n")
    done = _invoke("record", "written under the default agent", "--store", store)
    # before: stored under that agent, which `--agent` and an import of the export refuse
    assert done.exit_code == 1, done.output
    assert "The default agent" in _one_line(done.stderr)
    monkeypatch.delenv("HINDSIGHT_AGENT", raising=False)
    if where != "env":
        paths.user_config_path().unlink()
    contents = [m.content for m in Store(tmp_path / "s", embedder=MODEL).list(limit=None)]
    assert contents == ["kept from before"]


# -- one entry of an export the store refuses: skipped and counted, the others imported -----------

_RUN = "q" * 1_500_000


def _bm_title(folder: Path) -> Path:
    folder.mkdir()
    (folder / "a.md").write_text("- [fact] alpha walrus-17 #x\n")
    # (a title is cut to a label's length since review Q9: the odd field is the item's tags)
    tags = " ".join(f"#y{n}" for n in range(1001))
    (folder / "b.md").write_text(f"---\ntitle: beta\n---\n- [fact] beta {tags}\n")
    (folder / "c.md").write_text("- [fact] gamma zebra-42 #z\n")
    return folder


def _mem0_items(path: Path, odd: dict[str, Any]) -> Path:
    items = [
        {"id": "1", "memory": "alpha walrus-17"},
        {"id": "2", "memory": "beta", **odd},
        {"id": "3", "memory": "gamma zebra-42"},
    ]
    path.write_text(json.dumps(items))
    return path


@pytest.mark.parametrize(
    ("kind", "make"),
    [
        # more tags than a memory takes
        ("basic-memory", lambda p: _bm_title(p / "notes")),
        ("mem0", lambda p: _mem0_items(p / "mem0.json", {"memory": _RUN})),
        # metadata past the store's limit
        ("mem0", lambda p: _mem0_items(p / "mem0.json", {"metadata": {"m": "w " * 700_000}})),
    ],
    ids=["bm-title", "mem0-memory", "mem0-metadata"],
)
def test_an_export_entry_the_store_refuses_is_skipped_and_the_rest_imported(
    tmp_path: Path, kind: str, make: Any
) -> None:
    """Review U. Before: the importer wrote each batch of 1,000 entries whole, so one entry the
    store refused (text of one unbroken run, clipped to nothing; metadata past 1 MiB) stopped the
    import (`Error: Record 2: content is empty …. Nothing was imported.`): an export holding one
    such entry could never be imported."""
    source = make(tmp_path)
    store = str(tmp_path / "s")
    done = _invoke("import", str(source), "--from", kind, "--store", store)
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    said = " ".join(done.output.split())
    assert "refused 1 entries the store cannot take" in said, said
    contents = " ".join(m["content"] for m in _strict(_invoke("export", "--store", store).stdout))
    assert "walrus-17" in contents and "zebra-42" in contents
    again = _invoke("import", str(source), "--from", kind, "--store", store, "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["added"] == 0, again.output
