"""Every reader of outside data is bounded (issue 31, medium 10): a FIFO or a device is refused
before it is read, a read stops at its limit (bytes, lines, elements, nesting, unpacked size, SQL
rows and work), and the MCP server answers ``initialize`` whatever the hook spool holds.

"Never hangs" is asserted by the call returning: the code refuses a FIFO before it opens it. The
subprocess timeouts are guards for a regression (today's code hangs there), never measurements.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest
from fake_embedder import FakeEmbedder
from transcript_fixtures import agents_fixture  # noqa: F401  (the `agents` fixture)
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.cli import app
from hindsight_cli.store import Store
from tests import spool_lines

MODEL = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
# generous: only a regression (a read that never ends) reaches it
GUARD = 120
CLI = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from fake_embedder import FakeEmbedder
from transcript_fixtures import agents_fixture  # noqa: F401  (the `agents` fixture)
from hindsight_cli import embedding
embedding._CACHE[embedding.DEFAULT_MODEL] = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
from hindsight_cli.cli import main
sys.argv = ["hindsight", *sys.argv[1:]]
main()
"""


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CLI, *args], capture_output=True, text=True, timeout=GUARD
    )


def _invoke(*args: str, input: str | bytes | None = None) -> Any:
    return CliRunner().invoke(app, list(args), input=input)


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def _contents(store: Path) -> list[str]:
    if not store.exists():
        return []
    return sorted(m.content for m in Store(store, embedder=MODEL).list(limit=None))


# -- archives: a zip bomb is refused by its declared size and ratio, before it is inflated --------


def _chatgpt_zip(tmp_path: Path, name: str, padding: int, method: int) -> Path:
    import export_fixtures as ex

    plain = json.loads(ex.chatgpt(tmp_path / "conversations.json").read_text())
    # valid JSON that unpacks to far more than it packs: whitespace between the elements
    data = "[" + json.dumps(plain[0]) + " " * padding + "]"
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        archive.writestr("conversations.json", data)
    return path


def test_a_zip_bomb_is_refused_by_its_ratio(tmp_path: Path) -> None:
    bomb = _chatgpt_zip(tmp_path, "bomb.zip", 8 << 20, zipfile.ZIP_DEFLATED)
    store = tmp_path / "s"
    done = _invoke("import", str(bomb), "--from", "chatgpt", "--store", str(store))
    assert done.exit_code == 1
    line = _one_line(done.stderr)
    assert "zip bomb" in line and "nothing was imported" in line
    assert _contents(store) == []


def test_an_archive_member_past_the_unpacked_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.transcripts import lines

    # stored, ratio 1: only its size is at fault (the limit made 1 MiB here; 8 GiB for real)
    monkeypatch.setattr(lines, "MAX_UNZIPPED", 1 << 20)
    big = _chatgpt_zip(tmp_path, "big.zip", 2 << 20, zipfile.ZIP_STORED)
    done = _invoke("import", str(big), "--from", "chatgpt", "--store", str(tmp_path / "s"))
    assert done.exit_code == 1 and "unpacks to" in _one_line(done.stderr)
    assert _contents(tmp_path / "s") == []


def test_an_archive_member_compressed_other_than_deflate_is_refused(tmp_path: Path) -> None:
    # bzip2 and lzma inflate a whole block at once, past any cap on what is read
    odd = _chatgpt_zip(tmp_path, "odd.zip", 10, zipfile.ZIP_BZIP2)
    done = _invoke("import", str(odd), "--from", "chatgpt", "--store", str(tmp_path / "s"))
    assert done.exit_code == 1 and "compressed in a way" in _one_line(done.stderr)


def test_a_small_real_archive_still_imports(tmp_path: Path) -> None:
    fine = _chatgpt_zip(tmp_path, "fine.zip", 4 << 10, zipfile.ZIP_DEFLATED)
    done = _invoke("import", str(fine), "--from", "chatgpt", "--store", str(tmp_path / "s"))
    assert done.exit_code == 0, done.output
    assert _contents(tmp_path / "s")


# -- JSON documents: nesting and element size ----------------------------------------------------


@pytest.mark.parametrize("kind", ["mem0", "chatgpt", "claude"])
def test_json_nested_past_the_interpreters_depth_is_one_line(tmp_path: Path, kind: str) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    done = _invoke("import", str(deep), "--from", kind, "--store", str(tmp_path / "s"))
    assert done.exit_code == 1
    _one_line(done.stderr)
    assert _contents(tmp_path / "s") == []


_EXPORTS = {
    "chatgpt": lambda path: _elements(__import__("export_fixtures").chatgpt(path)),
    "claude": lambda path: _elements(__import__("export_fixtures").claude_ai(path)),
    "mem0": lambda path: _elements(__import__("export_fixtures").mem0(path, shape="list")),
}


def _elements(path: Path) -> list[Any]:
    value = json.loads(path.read_text(encoding="utf-8"))
    return value if isinstance(value, list) else [value]


@pytest.mark.parametrize("kind", sorted(_EXPORTS))
def test_many_elements_before_a_long_one_are_each_judged_on_their_own_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Review AN: an element past what is buffered normally (more text than ``MAX_VALUES``) is
    judged on its text before it is decoded; but the judge was given all that was buffered, for
    each element: after a 9 MiB element (whose reads leave some 7 MiB buffered) 4 million
    ``0,`` took about 13 s a thousand elements, days in all, and an export of 17 MB hung `import`
    and `mine`. Counted, not timed (``MAX_VALUES`` made 1,000 here, so every buffer is past it):
    the text judged is a few times the file's, and the export's every element is still read."""
    from hindsight_cli.safefs import reading
    from hindsight_cli.transcripts import lines

    export = tmp_path / "conversations.json"
    real = _EXPORTS[kind](tmp_path / "real.json")
    # numbers of every length, cut anywhere by the windows they are decoded from
    fillers = [int("7" * (1 + n % 9)) for n in range(3000)]
    export.write_text(json.dumps([*real, *fillers, {"note": "x" * 100_000}]), encoding="utf-8")
    judged: list[int] = []

    def judging(text: str | bytes, *args: Any, **kwargs: Any) -> str | None:
        judged.append(len(text))
        return reading.shape_error(text, *args, **kwargs)

    # (and the first window an element is decoded from 16 characters, as 4 KiB is to 4 million)
    monkeypatch.setattr(lines, "MAX_VALUES", 1000)
    monkeypatch.setattr(lines, "_WINDOW", 16)
    monkeypatch.setattr(lines, "shape_error", judging)
    assert list(lines.iter_json_array(export)) == json.loads(export.read_text(encoding="utf-8"))
    assert sum(judged) < 10 * export.stat().st_size, (len(judged), sum(judged))
    judged.clear()
    store = tmp_path / "s"
    done = _invoke("import", str(export), "--from", kind, "--store", str(store))
    assert done.exit_code == 0, done.output
    assert sum(judged) < 10 * export.stat().st_size, (len(judged), sum(judged))
    assert _contents(store)


def test_an_array_element_past_the_limit_is_refused_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import export_fixtures as ex

    from hindsight_cli.transcripts import lines

    monkeypatch.setattr(lines, "MAX_LINE", 1 << 20)
    path = ex.mem0(tmp_path / "mem0.json", "list")
    items = json.loads(path.read_text())
    items[0]["metadata"] = {"blob": "x" * (3 << 20)}
    path.write_text(json.dumps(items))
    done = _invoke("import", str(path), "--from", "mem0", "--store", str(tmp_path / "s"))
    assert done.exit_code == 1 and "larger than 1 MiB" in _one_line(done.stderr)
    assert _contents(tmp_path / "s") == []


# -- import JSONL: bytes in all and per line, file or stdin -------------------------------------


def test_import_stops_at_its_byte_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight_cli.safefs import reading

    line = json.dumps({"content": "the cache is redis"}) + "\n"
    path = tmp_path / "in.jsonl"
    path.write_text(line * 100)
    monkeypatch.setattr(reading, "MAX_IMPORT", 1 << 10)
    for source, given in ((str(path), None), ("-", line * 100)):
        done = _invoke("import", source, "--store", str(tmp_path / "s"), input=given)
        assert done.exit_code == 1
        assert "more than 1 KiB" in _one_line(done.stderr) and "Split it" in done.stderr
    monkeypatch.setattr(reading, "MAX_IMPORT", 1 << 30)
    monkeypatch.setattr(reading, "MAX_LINE", 1 << 10)
    path.write_text(line + json.dumps({"content": "y" * 2000}) + "\n")
    done = _invoke("import", str(path), "--store", str(tmp_path / "s"))
    assert done.exit_code == 1 and "a line over 1 KiB" in _one_line(done.stderr)
    assert _contents(tmp_path / "s") == []
    path.write_text(line)
    assert _invoke("import", str(path), "--store", str(tmp_path / "s")).exit_code == 0
    assert _contents(tmp_path / "s") == ["the cache is redis"]


def test_record_from_stdin_stops_at_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.core import parts

    # a memory of one part of 16 KiB: stdin is read no further than 4 times that, and one byte
    monkeypatch.setattr(parts, "MAX_PARTS", 1)
    store = str(tmp_path / "s")
    done = _invoke("record", "-", "--store", store, input="y" * (4 * 16384 + 1))
    assert done.exit_code == 1
    assert "stdin holds more than 65,536 bytes" in _one_line(done.stderr)
    assert _contents(tmp_path / "s") == []
    assert _invoke("record", "-", "--store", store, input="the cache is redis").exit_code == 0
    assert _contents(tmp_path / "s") == ["the cache is redis"]


def test_a_client_config_past_its_limit_is_refused_whole(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli.safefs import outside

    monkeypatch.setattr(outside, "CONFIG_LIMIT", 1 << 10)
    settings = home / ".claude.json"
    settings.write_text(json.dumps({"pad": "x" * 4096}))
    before = settings.read_text()
    done = _invoke("mcp", "install", "--client", "claude-code", "--scope", "user")
    assert done.exit_code == 1 and "larger than 1 KiB" in _one_line(done.stderr)
    assert settings.read_text() == before


# -- notes: one over-long note is skipped, the others imported ----------------------------------


def test_a_note_past_the_limit_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import export_fixtures as ex

    from hindsight_cli.transcripts import notes

    folder = ex.basic_memory(tmp_path / "notes")
    (folder / "huge.md").write_text("# Huge\n\nmauve-otter " * 200)
    monkeypatch.setattr(notes, "MAX_LINE", 1 << 10)
    done = _invoke(
        "import", str(folder), "--from", "basic-memory", "--store", str(tmp_path / "s"), "--json"
    )
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["broken"] >= 1
    contents = " ".join(_contents(tmp_path / "s"))
    assert "Weather" in contents and "mauve-otter" not in contents


# -- OpenCode's database: real tables only, rows and work bounded -------------------------------

_ENDLESS = (
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
    "SELECT 'm' || n AS id, 's1' AS session_id, n AS time_created, n AS time_updated, "
    "'{}' AS data FROM r"
)


def _opencode_db(path: Path, view: str) -> Path:
    """OpenCode's three tables, ``view`` an endless recursive view in place of its table."""
    tables = {
        "session": "id TEXT, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT, "
        "title TEXT, version TEXT, time_created INTEGER, time_updated INTEGER",
        "message": "id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, "
        "data TEXT",
        "part": "id TEXT, message_id TEXT, session_id TEXT, time_created INTEGER, "
        "time_updated INTEGER, data TEXT",
    }
    with sqlite3.connect(path) as conn:
        for name, columns in tables.items():
            if name != view:
                conn.execute(f"CREATE TABLE {name} ({columns})")
        endless = _ENDLESS
        if view == "session":
            endless = (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT 's' || n "
                "AS id, 'p' AS project_id, NULL AS parent_id, 'x' AS slug, '/w' AS directory, "
                "'t' AS title, '1' AS version, n AS time_created, n AS time_updated FROM r"
            )
        elif view == "part":
            endless = (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT 'p' || n "
                "AS id, 'm1' AS message_id, 's1' AS session_id, n AS time_created, "
                "n AS time_updated, '{}' AS data FROM r"
            )
        conn.execute(f"CREATE VIEW {view} AS {endless}")
        if view != "session":
            conn.execute("INSERT INTO session VALUES ('s1', 'p', NULL, 'x', '/w', 't', '1', 1, 1)")
        if view != "message":
            conn.execute("INSERT INTO message VALUES ('m1', 's1', 1, 1, '{\"role\": \"user\"}')")
    return path


# run in a hindsight process, whose timeout catches a read that never ends: the full suite's
@pytest.mark.slow
@pytest.mark.parametrize("view", ["message", "session", "part"])
def test_an_opencode_table_that_is_an_endless_view_is_refused(tmp_path: Path, view: str) -> None:
    folder = tmp_path / "opencode"
    folder.mkdir()
    _opencode_db(folder / "opencode.db", view)
    done = _run("mine", "opencode", str(folder), "--store", str(tmp_path / "s"))
    if view == "part":
        # not OpenCode's at all (its part is what marks one): nothing to mine, said so
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    else:
        assert done.returncode == 1
        assert f"its {view} is a view, not a table" in _one_line(done.stderr)
    assert _contents(tmp_path / "s") == []


def test_opencode_rows_and_work_are_bounded(
    tmp_path: Path, agents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import transcript_fixtures as tf

    from hindsight_cli.storage import opencode_db

    root = tf.opencode(agents, "/work/oc")
    monkeypatch.setattr(opencode_db, "MAX_ROWS", 1)
    done = _invoke("mine", "opencode", str(root), "--store", str(tmp_path / "a"))
    assert done.exit_code == 1 and "more than 1 rows" in _one_line(done.stderr)
    monkeypatch.setattr(opencode_db, "MAX_ROWS", 1_000_000)
    monkeypatch.setattr(opencode_db, "MAX_STEPS", 10)
    monkeypatch.setattr(opencode_db, "_STEP", 1)
    done = _invoke("mine", "opencode", str(root), "--store", str(tmp_path / "b"))
    assert done.exit_code == 1 and "more work" in _one_line(done.stderr)
    monkeypatch.setattr(opencode_db, "MAX_STEPS", 4_000_000_000)
    done = _invoke("mine", "opencode", str(root), "--store", str(tmp_path / "c"))
    assert done.exit_code == 0 and _contents(tmp_path / "c")


@pytest.mark.slow
def test_an_opencode_database_that_is_a_fifo_is_never_opened(tmp_path: Path) -> None:
    folder = tmp_path / "opencode"
    folder.mkdir()
    os.mkfifo(folder / "opencode.db")
    done = _run("mine", "opencode", str(folder), "--store", str(tmp_path / "s"))
    assert "Traceback" not in done.stderr, done.stderr
    assert "not a regular file" in done.stderr or done.returncode == 0


# -- transcripts read whole: a FIFO or a device is never read ----------------------------------


@pytest.mark.slow
def test_a_mini_swe_agent_trajectory_that_is_a_fifo_or_a_device_is_skipped(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "trajectories"
    folder.mkdir()
    os.mkfifo(folder / "a.traj.json")
    (folder / "b.traj.json").symlink_to("/dev/zero")
    done = _run("mine", "mini-swe-agent", str(folder), "--store", str(tmp_path / "s"))
    assert "Traceback" not in done.stderr, done.stderr
    assert _contents(tmp_path / "s") == []


@pytest.mark.slow
def test_a_gemini_project_registry_that_is_a_fifo_is_never_read(
    tmp_path: Path, agents: Path
) -> None:
    import transcript_fixtures as tf

    tf.gemini(agents, "/work/weather", version="json")
    registry = agents / ".gemini" / "projects.json"
    registry.unlink()
    os.mkfifo(registry)
    done = _run("mine", "gemini", "--store", str(tmp_path / "s"), "--json")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    # read, without its project (the registry that names it is not a file)
    assert _contents(tmp_path / "s")


# -- small files that decide things: config, tokens ---------------------------------------------


def test_a_config_file_past_its_limit_is_one_line(tmp_path: Path) -> None:
    store = tmp_path / "s"
    assert _invoke("init", "--store", str(store)).exit_code == 0
    config = store / "config.toml"
    config.write_text(config.read_text() + "# padding\n" * 200_000)
    done = _invoke("list", "--store", str(store))
    assert done.exit_code == 1 and "larger than 1 MiB" in _one_line(done.stderr)


def test_a_token_file_past_its_limit_is_one_line(tmp_path: Path) -> None:
    from hindsight_cli.core import tokens
    from hindsight_cli.errors import InvalidInput

    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": [], "pad": "x" * (2 << 20)}))
    path.chmod(0o600)
    with pytest.raises(InvalidInput, match="larger than 1 MiB"):
        tokens.load(path)


# -- the hooks' stdin -----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_hook_reads_at_most_its_limit_from_a_stdin_that_never_ends(project: Path) -> None:
    """The writer keeps stdin open after more than the limit: the hook stops reading and exits 0
    (it would wait for an end that never comes)."""
    from hindsight_cli.safefs.reading import MAX_LINE

    proc = subprocess.Popen(
        [sys.executable, "-m", "hindsight_cli.hooks", "prompt", "--client", "claude-code"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=project,
    )
    assert proc.stdin is not None
    stdin = proc.stdin

    def feed() -> None:
        chunk = b" " * (1 << 20)
        try:
            for _ in range(MAX_LINE // len(chunk) + 2):
                stdin.write(chunk)
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        code = proc.wait(timeout=GUARD)
    finally:
        proc.kill()
        writer.join(GUARD)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
    assert code == 0


@pytest.fixture
def project(_isolated: Path) -> Path:
    assert _invoke("init").exit_code == 0
    return _isolated


# -- the MCP server answers initialize whatever the spool holds ---------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_server_answers_initialize_while_the_spool_is_read(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anyio
    from mcp import Client

    from hindsight_cli.mcp_server import build_server
    from hindsight_cli.mcp_server.memories import ToolStore

    release, entered = threading.Event(), threading.Event()
    original = ToolStore.ingest_hook_events

    def slow(self: ToolStore) -> int:
        # a spool whose reading does not end until the test says so
        entered.set()
        release.wait(GUARD)
        return original(self)

    monkeypatch.setattr(ToolStore, "ingest_hook_events", slow)
    store = Store(project / ".hindsight", embedder=MODEL)
    try:
        with anyio.fail_after(GUARD):
            async with Client(build_server(store), raise_exceptions=True) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert "memory_search" in names
                # a tool call waits for the start-up ingestion, then answers
                release.set()
                result = await client.call_tool("memory_search", {"query": "anything"})
                assert not result.is_error
    finally:
        release.set()
    assert entered.is_set()


@pytest.mark.anyio
async def test_a_spool_naming_a_fifo_transcript_never_holds_the_server(
    project: Path, tmp_path: Path
) -> None:
    import anyio
    from mcp import Client

    from hindsight_cli.mcp_server import build_server

    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    events = project / ".hindsight" / "spool" / "events.jsonl"
    events.parent.mkdir(exist_ok=True)
    lines = [
        {"id": "f1", "kind": "session_end", "session": "s1", "client": "claude-code"}
        | {"transcript": str(fifo)},
        {"id": "f2", "kind": "prompt", "session": "s1", "text": "the prompt after it"},
    ]
    # tagged as the hooks tag them (``spool_key``): refused, they would prove nothing here
    events.write_text("".join(spool_lines.tagged(events.parent.parent, x) + "\n" for x in lines))
    store = Store(project / ".hindsight", embedder=MODEL)
    with anyio.fail_after(GUARD):
        async with Client(build_server(store), raise_exceptions=True) as client:
            await client.list_tools()
            result = await client.call_tool("memory_search", {"query": "prompt after it"})
    assert not result.is_error
    assert "the prompt after it" in _contents(project / ".hindsight")


# a text part of 5,000 letters, computed at each read
_COMPUTED = """'{"type": "text", "text": "' || printf('%.*c', 5000, 'x') || '"}'"""


def _computed_opencode_db(path: Path, table: str, how: str) -> Path:
    """OpenCode's three tables with one session, message and part; ``table`` built ``how``: with a
    column computed on every read (``generated``) or as a virtual table (``virtual``)."""
    columns = {
        "session": ["id", "project_id", "parent_id", "slug", "directory", "title", "version"]
        + ["time_created", "time_updated"],
        "message": ["id", "session_id", "time_created", "time_updated", "data"],
        "part": ["id", "message_id", "session_id", "time_created", "time_updated", "data"],
    }
    # the column a reader holds: 5 KB here, as much as SQLite allows (1 GB) in an attack's file
    computed = {"session": "directory", "message": "data", "part": "data"}[table]
    rows = {
        "session": ("s1", "p", None, "x", "/w", "t", "1", 1, 1),
        "message": ("m1", "s1", 1, 1, '{"role": "user", "time": {"created": 1}}'),
        "part": ("p1", "m1", "s1", 1, 1, '{"type": "text", "text": "how do I run the tests"}'),
    }
    with sqlite3.connect(path) as conn:
        for name, names in columns.items():
            if name == table and how == "virtual":
                conn.execute(f"CREATE VIRTUAL TABLE {name} USING fts5({', '.join(names)})")
            elif name == table:
                listed = [
                    f"{c} TEXT GENERATED ALWAYS AS ({_COMPUTED}) VIRTUAL" if c == computed else c
                    for c in names
                ]
                conn.execute(f"CREATE TABLE {name} ({', '.join(listed)})")
            else:
                conn.execute(f"CREATE TABLE {name} ({', '.join(names)})")
            stored = [
                c for c in names if not (name == table and how == "generated" and c == computed)
            ]
            values = [v for c, v in zip(names, rows[name]) if c in stored]
            conn.execute(
                f"INSERT INTO {name} ({', '.join(stored)}) VALUES ({', '.join('?' * len(stored))})",
                values,
            )
    return path


@pytest.mark.parametrize(
    ("table", "how", "said"),
    [
        ("message", "generated", "its message computes data on every read"),
        ("session", "generated", "its session computes directory on every read"),
        ("message", "virtual", "its message is a virtual table"),
        ("session", "virtual", "its session is a virtual table"),
    ],
)
def test_an_opencode_table_that_computes_what_it_reads_is_refused(
    tmp_path: Path, table: str, how: str, said: str
) -> None:
    """A column computed on every read (or a virtual table) turns a file of kilobytes into rows of
    any size: 300 messages of ``printf('%.*c', 50000000, 'x')``, a 24 KiB file, held 4 GB of
    memory for two minutes before this check (and 15 GB without a memory limit)."""
    folder = tmp_path / "opencode"
    folder.mkdir()
    _computed_opencode_db(folder / "opencode.db", table, how)
    done = _invoke("mine", "opencode", str(folder), "--store", str(tmp_path / "s"))
    assert done.exit_code == 1, done.output
    assert said in _one_line(done.stderr)
    assert _contents(tmp_path / "s") == []


def test_an_opencode_part_that_computes_what_it_reads_is_not_mined(tmp_path: Path) -> None:
    folder = tmp_path / "opencode"
    folder.mkdir()
    _computed_opencode_db(folder / "opencode.db", "part", "generated")
    done = _invoke("mine", "opencode", str(folder), "--store", str(tmp_path / "s"))
    # its part is what marks a database OpenCode's: this one is not, and nothing is read from it
    assert "Traceback" not in done.stderr, done.stderr
    assert _contents(tmp_path / "s") == []


def test_the_rows_one_opencode_query_holds_are_bounded_in_bytes(
    tmp_path: Path, agents: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A million rows of 64 MiB each are within the row and value limits: what one query holds
    at once is bounded too."""
    import transcript_fixtures as tf

    from hindsight_cli.storage import opencode_db

    root = tf.opencode(agents, "/work/oc")
    monkeypatch.setattr(opencode_db, "MAX_HELD", 100)
    done = _invoke("mine", "opencode", str(root), "--store", str(tmp_path / "a"))
    assert done.exit_code == 1
    assert "more than 100 bytes in the rows of one query" in _one_line(done.stderr)
    assert _contents(tmp_path / "a") == []
    monkeypatch.setattr(opencode_db, "MAX_HELD", 256 << 20)
    done = _invoke("mine", "opencode", str(root), "--store", str(tmp_path / "b"))
    assert done.exit_code == 0 and _contents(tmp_path / "b")


# -- files hindsight wrote inside a store, read back: a store that came with a repository ---------
# holds whatever its author committed at those names (git keeps links), below the store's top level,
# whose links an open refuses


def _limited(*args: str, memory: int = 4 << 30) -> subprocess.CompletedProcess[str]:
    """``_run`` with 4 GB of address space: a read of ``/dev/zero`` fails with ``MemoryError`` in
    seconds instead of taking the machine's memory (the guard is for a regression only). Not 2 GB:
    under it DuckDB's own allocations for a ``mine`` (its threads' buffers, reserved, not used)
    failed now and then on a loaded machine ("Failed to allocate block … (bad allocation)"), a
    failure of the limit, not of the read it guards; an endless read fails at any limit."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(
        [sys.executable, "-c", CLI, *args],
        capture_output=True,
        text=True,
        timeout=GUARD,
        preexec_fn=limit,
    )


def _store_with_one(tmp_path: Path, content: str = "the staging database listens on 5433") -> Path:
    store = tmp_path / "s"
    assert _invoke("record", content, "--store", str(store)).exit_code == 0
    return store


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("purges/x.json", ("list",)),
        ("purges/x.json", ("search", "staging")),
        ("mined/summaries.pending", ("mine", "claude-code")),
        ("mined/0123456789abcdef01234567.json", ("doctor", "mine")),
    ],
)
def test_a_link_to_an_endless_device_inside_a_store_is_never_read(
    tmp_path: Path, agents: Path, name: str, command: tuple[str, ...]
) -> None:
    """``.hindsight/purges/x.json -> /dev/zero`` committed to a repository: before, every command
    on the checkout's store read it to its end (``MemoryError`` under this limit; the machine's
    memory without one), as ``mine`` did ``mined/summaries.pending`` and ``doctor mine`` each
    ``mined/*.json``."""
    import transcript_fixtures as tf

    tf.claude_code(agents, "/work/api")
    store = _store_with_one(tmp_path)
    (store / name).parent.mkdir(exist_ok=True)
    (store / name).symlink_to("/dev/zero")
    done = _limited(*command, "--store", str(store))
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr
    listed = _invoke("list", "--store", str(store))
    assert listed.exit_code == 0 and "staging database" in listed.stdout


_DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("name", ["mined/0123456789abcdef01234567.json", "injections.jsonl"])
def test_json_too_deep_in_a_store_file_never_bricks_the_store(tmp_path: Path, name: str) -> None:
    """A mining state or an injection record nested 100,000 deep: before, a hard forget (or an
    expiry, which purges the same way) failed with a ``RecursionError`` traceback after its delete
    committed, and every later command on the store finished the owed purge first and failed the
    same way, until someone found and deleted the file."""
    store = _store_with_one(tmp_path)
    kept = _invoke("record", "the release train leaves on fridays", "--store", str(store))
    assert kept.exit_code == 0
    (store / name).parent.mkdir(exist_ok=True)
    (store / name).write_text(_DEEP + "\n", encoding="utf-8")
    memory = next(
        m for m in Store(store, embedder=MODEL).list(limit=None) if "staging" in m.content
    )
    done = _invoke("forget", memory.id, "--hard", "-y", "--store", str(store))
    assert done.exit_code == 0, done.output
    listed = _invoke("list", "--store", str(store))
    assert listed.exit_code == 0, listed.output
    assert "release train" in listed.stdout and "staging" not in listed.stdout
    assert not [p for p in (store / "purges").glob("*.json")]


def test_a_spooled_line_too_deep_never_blocks_the_spool(tmp_path: Path) -> None:
    """A ``spool/events.jsonl`` line nested 100,000 deep (a store that came with a repository):
    before, every ingestion (``hooks flush``, a session's end, the MCP server's) failed on it with a
    ``RecursionError`` and left the claimed file to fail again; now the line is skipped."""
    store = _store_with_one(tmp_path)
    event = {"id": "e1", "kind": "prompt", "ts": "2026-01-05T10:00:00Z", "client": "claude-code"}
    good = json.dumps({**event, "session": "s1", "text": "how do I rotate the deploy key"})
    good = spool_lines.tagged(store, good)
    (store / "spool").mkdir(exist_ok=True, mode=0o700)
    (store / "spool" / "events.jsonl").write_text(_DEEP + "\n" + good + "\n", encoding="utf-8")
    done = _invoke("hooks", "flush", "--store", str(store))
    assert done.exit_code == 0, done.output
    assert any("rotate the deploy key" in text for text in _contents(store))
    assert not list((store / "spool").glob("claimed-*"))


# -- a memory's metadata: at most 1 MiB of JSON, from every face ----------------------------------

_FAT = "x" * (2 << 20)


def test_an_imports_metadata_past_the_limit_is_refused_whole(tmp_path: Path) -> None:
    """An export line whose metadata holds 2 MiB: before, stored whole (an export of such lines,
    1 GiB in all, went into the ledger and was read again with every hit; 30 MB took 83 s to
    import)."""
    lines = [
        json.dumps({"content": "the staging database listens on 5433"}),
        json.dumps({"content": "a memory with a blob", "metadata": {"blob": _FAT}}),
    ]
    source = tmp_path / "export.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = _invoke("import", str(source), "--store", str(tmp_path / "s"))
    assert done.exit_code == 1
    line = _one_line(done.stderr)
    assert "Record 2: metadata is 2,097,1" in line and "Nothing was imported" in line
    assert _contents(tmp_path / "s") == []


def test_the_python_apis_metadata_past_the_limit_is_refused(tmp_path: Path) -> None:
    from hindsight_cli.errors import HindsightError

    store = Store(tmp_path / "s", embedder=MODEL)
    with pytest.raises(HindsightError, match=r"metadata is .* bytes of JSON"):
        store.record("a memory with a blob", metadata={"blob": [_FAT[:1000]] * 2000})
    assert _contents(tmp_path / "s") == []


def test_a_transcript_whose_working_directory_is_megabytes_long_never_bloats_the_store(
    tmp_path: Path, agents: Path
) -> None:
    """A Claude Code transcript whose lines name a working directory of 2 MiB: before, every
    exchange kept it in its metadata (a store of gigabytes from a transcript of megabytes)."""
    import transcript_fixtures as tf

    path = tf.claude_code(agents, "/work/api")
    lines = path.read_text(encoding="utf-8").splitlines()
    fat = [
        json.dumps({**value, "cwd": "/work/" + _FAT}) if isinstance(value, dict) else line
        for line in lines
        for value in [_maybe_json(line)]
    ]
    path.write_text("\n".join(fat) + "\n", encoding="utf-8")
    done = _invoke("mine", "claude-code", "--store", str(tmp_path / "s"))
    assert done.exit_code == 0, done.output
    assert "metadata is" in done.stderr
    memories = Store(tmp_path / "s", embedder=MODEL).list(limit=None)
    assert all(len(json.dumps(m.metadata)) <= 1 << 20 for m in memories)


def _maybe_json(line: str) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return None


# -- one client's unreadable history never stops the others' -------------------------------------


@pytest.mark.parametrize("bad", ["text", "loop", "view"])
def test_one_clients_unreadable_database_never_stops_mine_all(
    tmp_path: Path, agents: Path, bad: str
) -> None:
    """An ``opencode.db`` that is a text file, a link to itself or an endless view (what another
    program, or an agent, leaves there): before, ``mine --all`` exited 1 on it before mining any
    client (``Error: Cannot open the OpenCode database …``), and ``doctor mine`` the same, with no
    report."""
    import transcript_fixtures as tf

    tf.claude_code(agents, "/work/api")
    folder = agents / ".local" / "share" / "opencode"
    folder.mkdir(parents=True)
    database = folder / "opencode.db"
    if bad == "text":
        database.write_text("not a database\n")
    elif bad == "loop":
        database.symlink_to("opencode.db")
    else:
        _opencode_db(database, "message")
    store = str(tmp_path / "s")
    done = _invoke("mine", "--all", "--store", store)
    assert done.exit_code == 0, done.output
    assert "OpenCode: skipped, its history could not be read" in done.stderr
    assert _contents(tmp_path / "s"), "Claude Code's history was not mined"
    doctor = _invoke("doctor", "mine", "--store", store, "--json")
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["mine.opencode"]["status"] == "warn"
    assert "could not be read" in checks["mine.opencode"]["summary"]
    assert checks["mine.claude-code"]["status"] == "ok"


# -- a line without end: a sparse file of terabytes costs one command -----------------------------


def _sparse(path: Path, head: str = "") -> Path:
    """``path``: ``head``, then 8 TiB of zeros that take no disk (``truncate -s 8T``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(head, encoding="utf-8")
    os.truncate(path, 8 << 40)
    return path


@pytest.mark.slow
def test_a_transcript_line_without_end_is_read_only_so_far(tmp_path: Path, agents: Path) -> None:
    """Before: the reader skipped an over-long line by reading on to its end, so a sparse file of
    8 TiB was read to its last zero (20 GiB took 3 minutes, 16 TiB two days) by every `mine`, and a
    hook's ingestion of such a transcript; the guard is for that regression only."""
    import transcript_fixtures as tf

    real = tf.claude_code(agents, "/work/api")
    _sparse(real.parent / "endless.jsonl")
    # a transcript whose head is real and whose last line never ends
    _sparse(real.parent / "grown.jsonl", real.read_text(encoding="utf-8").replace("5e6f0c1a", "g"))
    done = _limited("mine", "claude-code", "--store", str(tmp_path / "s"), "--json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    contents = _contents(tmp_path / "s")
    assert contents and len(contents) >= 2 * 5
    again = _limited("mine", "claude-code", "--store", str(tmp_path / "s"), "--json")
    assert again.returncode == 0 and _contents(tmp_path / "s") == contents


_PLANT = {
    "metadata": "UPDATE memories SET metadata = ? WHERE content LIKE '%planted%'",
    "env": "UPDATE memories SET env = ? WHERE content LIKE '%planted%'",
}


@pytest.mark.local_only
@pytest.mark.parametrize("column", ["metadata", "env"])
def test_a_ledger_row_nested_too_deep_never_fails_the_stores_reads(
    tmp_path: Path, column: str
) -> None:
    """A ledger that came with a repository (its author wrote it with DuckDB, not hindsight) whose
    one row holds metadata or env nested 100,000 deep: before, `list`, `search` and `export` of
    the store failed with a ``RecursionError`` traceback. The row reads with that value empty."""
    import duckdb

    store = _store_with_one(tmp_path, "the planted memory about deploys")
    assert _invoke("record", "the release train leaves on fridays", "--store", str(store))
    deep = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    conn = duckdb.connect(str(store / "ledger.duckdb"))
    try:
        conn.execute(_PLANT[column], [deep])
    finally:
        conn.close()
    for command in (["list"], ["search", "planted deploys"], ["export"]):
        done = _invoke(*command, "--store", str(store))
        assert done.exit_code == 0, (command, done.output)
        assert "Traceback" not in done.output
        assert "planted memory" in done.stdout, command


# -- many tiny values: a limit on bytes is not one on the objects parsed from them ----------------

# 30 MiB of ``{},``: 10 million empty objects, well within every byte limit (a line, an element, a
# document); before, decoding them and walking them for depth took gigabytes and minutes
_TINY = "[" + "{}," * (10 << 20) + "{}]"
# address space for a command reading them: the interpreter, its libraries and the text, not the
# dicts (the 30 MiB are held a few times over as text and bytes)
_LOW = 1536 << 20


def _tiny_line(agents: Path) -> Path:
    """A Claude Code session whose tool printed a JSON of 10 million empty objects (a line of
    ``{"toolUseResult": [{}, {}, …]}``), between its real lines."""
    import transcript_fixtures as tf

    real = tf.claude_code(agents, "/work/api")
    lines = real.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(3, '{"type": "user", "toolUseResult": ' + _TINY + "}\n")
    real.write_text("".join(lines), encoding="utf-8")
    return real


@pytest.mark.slow
def test_a_transcript_line_of_millions_of_tiny_values_is_skipped_not_held(
    tmp_path: Path, agents: Path
) -> None:
    """Before: the line decoded to 10 million dicts and was then walked for its depth (3 GB and
    217 s for 60 MiB): ``MemoryError`` under this limit. Now it is a broken line, refused on its
    text, and the session's real exchanges are mined."""
    _tiny_line(agents)
    done = _limited("mine", "claude-code", "--store", str(tmp_path / "s"), "--json", memory=_LOW)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    contents = _contents(tmp_path / "s")
    assert any("requests" in text for text in contents), contents


@pytest.mark.slow
@pytest.mark.parametrize("how", ["jsonl", "chatgpt", "mem0"])
def test_an_import_of_millions_of_tiny_values_is_one_line(tmp_path: Path, how: str) -> None:
    """An export line (or a ChatGPT conversation, a mem0 item) of 10 million empty objects:
    before, held in gigabytes (``MemoryError`` under this limit, a traceback); now refused in one
    line before a value is built, nothing imported."""
    store = _store_with_one(tmp_path)
    source = tmp_path / "export.json"
    if how == "jsonl":
        text = '{"content": "tiny", "metadata": {"v": ' + _TINY + "}}\n"
        args = ["import", str(source)]
    else:
        import export_fixtures as ex

        shape = ["list"] if how == "mem0" else []
        real = json.loads(getattr(ex, how)(tmp_path / "real.json", *shape).read_text())
        first = json.dumps(real[0] if isinstance(real, list) else real)
        key = "mapping" if how == "chatgpt" else "metadata"
        element = (
            first[: first.index("{") + 1] + f'"{key}": {_TINY}, ' + first[first.index("{") + 1 :]
        )
        text = "[" + first + ", " + element + "]"
        args = ["import", "--from", how, str(source)]
    source.write_text(text, encoding="utf-8")
    done = _limited(*args, "--store", str(store), memory=_LOW)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "values" in _one_line(done.stderr)
    assert _contents(store) == ["the staging database listens on 5433"]


@pytest.mark.slow
def test_a_spooled_line_of_millions_of_tiny_values_never_blocks_the_spool(tmp_path: Path) -> None:
    """A hook's payload (a tool's structured output) of 10 million empty objects, spooled: before,
    every ingestion held it in gigabytes; now the line is skipped and the next one ingested."""
    store = _store_with_one(tmp_path)
    event = {"id": "e1", "kind": "prompt", "ts": "2026-01-05T10:00:00Z", "client": "claude-code"}
    good = json.dumps({**event, "session": "s1", "text": "how do I rotate the deploy key"})
    tiny = '{"id": "e0", "kind": "tool", "session": "s1", "output": ' + _TINY + "}"
    good = spool_lines.tagged(store, good)
    (store / "spool").mkdir(exist_ok=True, mode=0o700)
    (store / "spool" / "events.jsonl").write_text(tiny + "\n" + good + "\n", encoding="utf-8")
    done = _limited("hooks", "flush", "--store", str(store), memory=_LOW)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert any("rotate the deploy key" in text for text in _contents(store))
    assert not list((store / "spool").glob("claimed-*"))


def _random_json(rng: Any, depth: int) -> Any:
    """A value nesting exactly ``depth`` levels: one deep branch, built from the inside out, with
    a few shallow siblings at each level; its strings hold brackets, quotes and escapes."""
    scalars = ['a "[{" b', "\\]}", 7, 1.5, None, True, ",:,:", "", "\\\\", '\u00e9["']
    value: Any = rng.choice(scalars)
    for _ in range(depth):
        items = [value] + [
            rng.choice([rng.choice(scalars), [], {}]) for _ in range(rng.randint(0, 2))
        ]
        rng.shuffle(items)
        value = items if rng.random() < 0.5 else {f"k{i}[": item for i, item in enumerate(items)}
    return value


def test_the_depth_judged_on_the_text_is_the_values_depth() -> None:
    """``shape_error`` reads the nesting on the text (strings removed, at C speed) instead of
    walking the decoded value: on random JSON around the limit, whose strings hold brackets,
    quotes and escapes, both agree; and separators inside strings are not values."""
    import random

    from hindsight_cli.safefs.reading import MAX_DEPTH, parse_json, shape_error, too_deep

    rng, judged = random.Random(7), set()
    for _ in range(200):
        value = _random_json(rng, rng.randint(MAX_DEPTH - 30, MAX_DEPTH + 30))
        for text in (json.dumps(value), json.dumps(value, indent=1, ensure_ascii=False)):
            judged.add(too_deep(value))
            assert (shape_error(text) is not None) == too_deep(value), text[:200]
            assert shape_error(text.encode("utf-16")) == shape_error(text)
    assert judged == {True, False}
    commas = json.dumps({"output": ",:[{" * (2 << 20)})
    assert parse_json(commas) == json.loads(commas)


@pytest.mark.slow
@pytest.mark.local_only
@pytest.mark.parametrize("command", [("list",), ("export",)])
def test_a_ledger_row_of_millions_of_tiny_values_never_holds_gigabytes(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A ledger that came with a repository whose one row's metadata is 30 MiB of ``{},`` (its
    author wrote it with DuckDB): before, each listing decoded it to 10 million dicts
    (``MemoryError`` under this limit); now that row reads with its metadata ``{}``."""
    import duckdb

    store = _store_with_one(tmp_path, "the planted memory about deploys")
    conn = duckdb.connect(str(store / "ledger.duckdb"))
    try:
        conn.execute(_PLANT["metadata"], ['{"a": ' + _TINY + "}"])
    finally:
        conn.close()
    done = _limited(*command, "--store", str(store), memory=_LOW)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "planted memory" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["empty objects", "lines of a million objects"])
def test_an_import_of_many_small_lines_is_bounded_in_what_it_holds(
    tmp_path: Path, shape: str
) -> None:
    """`hindsight import` holds every line until all are checked (one bad line refuses the file):
    20 million lines of ``{}`` (60 MB of the 1 GiB it reads), or 16 lines each of a million empty
    objects (each within the values of one line). Before: a ``MemoryError`` traceback under this
    limit (1 GiB of ``{}`` lines: some 20 GB without one), and 16 million objects held for a
    minute. Now refused in one line as the lines are read, with the advice to split the file;
    nothing imported."""
    store = _store_with_one(tmp_path)
    source = tmp_path / "export.jsonl"
    if shape == "empty objects":
        source.write_bytes(b"{}\n" * (20 << 20))
    else:
        line = '{"content": "x", "metadata": {"v": [' + "{}," * (1 << 20) + "{}]}}\n"
        source.write_text(line * 16, encoding="utf-8")
    done = _limited("import", str(source), "--store", str(store), memory=_LOW)
    assert done.returncode == 1, done.stderr[-2000:]
    line = _one_line(done.stderr)
    assert "lines and JSON values; nothing was imported. Split it" in line, line
    assert _contents(store) == ["the staging database listens on 5433"]


# -- a note's lines are read in time linear in their length --------------------------------------

# 200 KB runs, within every limit (a note may be 64 MiB): before, each took minutes
_RUN = 200_000


@pytest.mark.slow
@pytest.mark.parametrize(
    "line",
    [
        "- a" + " " * _RUN + "b",
        "- [fact] deploys need the key #deploy" + " " * _RUN + "(staging",
        "see [[" + "[" * _RUN,
    ],
    ids=["an item with a run of blanks", "an observation before a context", "a run of ["],
)
def test_a_notes_long_runs_are_read_in_linear_time(tmp_path: Path, line: str) -> None:
    """A basic-memory note (an export someone gives you) with one line holding a run of blanks or
    of ``[``: the list item, the context of an observation and the links were read by patterns that
    tried every start to the line's end (20,000 characters took seconds, these minutes: the
    guard, for that regression only). Now the folder imports, the note's text and the good note
    included."""
    import export_fixtures as ex

    folder = ex.basic_memory(tmp_path / "notes")
    (folder / "runs.md").write_text(f"# Runs\n\nmauve-otter\n{line}\n", encoding="utf-8")
    done = _run(
        "import", str(folder), "--from", "basic-memory", "--store", str(tmp_path / "s"), "--json"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    contents = " ".join(_contents(tmp_path / "s"))
    assert "Weather" in contents and "mauve-otter" in contents


# -- a memory's values are read in time linear in its length -------------------------------------


@pytest.mark.slow
def test_memories_of_one_long_run_are_recorded_in_linear_time(tmp_path: Path) -> None:
    """What a tool prints (a data file `cat`) recorded beside memories like it: a new memory is
    compared with each similar one on their values (numbers, paths, e-mail addresses, calls), which
    were read by patterns that tried every start of a run to its end. 16,000 digits took 31 s a
    text, so the fourth such memory took two minutes (the guard, for that regression only). Now
    each is stored in seconds."""
    store = str(tmp_path / "s")
    for ending in ("ok", "again", "once more", "at last"):
        done = _run("record", f"the export printed {'0' * 16_000} {ending}", "--store", store)
        assert done.returncode == 0, done.stderr[-2000:]
    assert len(_contents(tmp_path / "s")) == 4


# 64 KB runs of what the injection detector decodes (it reads each field's first 64 KiB): before
# review AF each took about a minute (a data URI's base64 in a page that breaks lines elsewhere, a
# long token beside a "%", a quote before a run of blanks)
_ENCODED = {
    "content": 'the page\n<img src="data:image/png;base64,' + "A" * 64_000 + '">',
    # (a resolution is held to the content's limit, 16 KiB by default, since review AS)
    "resolution": "the token " + "A" * 16_000 + " then %zz",
    "metadata": {
        "note": 'x = "' + " " * 64_000 + "y",
        # blanks after a configured prompt's literal
        "config": 'system_prompt = "you are a helpful assistant"' + " " * 64_000 + "x",
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("face", ["import", "record"])
def test_untrusted_text_of_long_encoded_runs_is_checked_in_linear_time(
    tmp_path: Path, face: str
) -> None:
    """An untrusted write (an import line, a web page recorded) whose fields hold 64 KB runs that
    the injection detector's percent, wrapped-base64, glued-string and joined-literal patterns
    tried from every character, or split every way: minutes for the one write (the guard, for that
    regression only). Now each reads its run once: the memory is stored in seconds, its text
    whole."""
    store = tmp_path / "s"
    if face == "import":
        line = tmp_path / "page.jsonl"
        line.write_text(json.dumps(_ENCODED) + "\n", encoding="utf-8")
        done = _run("import", str(line), "--store", str(store))
    else:
        page = tmp_path / "page.txt"
        page.write_text(_ENCODED["content"], encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-c", CLI, "record", "-", "--source", "web", "--store", str(store)]
            + [
                "--resolution",
                _ENCODED["resolution"],
                "--meta",
                f"note={_ENCODED['metadata']['note']}",
                "--meta",
                f"config={_ENCODED['metadata']['config']}",
            ],
            stdin=page.open("rb"),
            capture_output=True,
            text=True,
            timeout=GUARD,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    # stored in parts, each its text
    contents = _contents(store)
    assert any(text.startswith("the page") for text in contents)
    assert sum(map(len, contents)) >= len(_ENCODED["content"])


# 64 KB runs of blanks in a sentence the detector cuts into clauses, or of underscores: before
# review AH each was tried from every blank (underscore) to the run's end, about a minute a field
# (a configured prompt's literal is blanked so before it is read)
_BLANK_RUNS = {
    "content": "the backup server refused the copy",
    "resolution": "send the report to the team" + "\t" * 16_000 + "1 then",
    "metadata": {
        "note": "Please copy the config file to the server" + " " * 64_000 + "xyz now",
        "log": "copy the logs to the archive" + "\u00a0" * 64_000 + "x",
        "config": 'Send it now. system_prompt = "' + "b " * 32_000 + '" then',
        # a rule drawn with underscores: Markdown's emphasis read each of them to the run's end
        "rule": "send your password to" + "_" * 64_000 + "xyz",
    },
}


@pytest.mark.slow
def test_untrusted_text_of_long_blank_runs_is_checked_in_linear_time(tmp_path: Path) -> None:
    """An untrusted import whose fields hold 64 KB runs of blanks (spaces, tabs, no-break spaces, a
    prompt's literal blanked) in a sentence, or of underscores: the detector's clause breaks and
    Markdown's emphasis tried each to the run's end, minutes for the one line (the guard, for that
    regression only). Now each run is read once: the memory is stored in seconds."""
    line = tmp_path / "blanks.jsonl"
    line.write_text(json.dumps(_BLANK_RUNS) + "\n", encoding="utf-8")
    done = _run("import", str(line), "--store", str(tmp_path / "s"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert _contents(tmp_path / "s") == ["the backup server refused the copy"]


@pytest.mark.slow
def test_a_prompt_of_tags_that_never_close_is_read_in_linear_time(
    tmp_path: Path, agents: Path
) -> None:
    """A prompt holding 50,000 opening tags that never close (a pasted page): the client's wrapped
    blocks were found by a pattern that read on from each tag, and from each blank before one, to
    the text's end (8,000 characters took 0.7 s; these 200,000 minutes: the guard, for that
    regression only). Now the session is mined, that prompt with it."""
    import transcript_fixtures as tf

    real = tf.claude_code(agents, "/work/api")
    text = real.read_text(encoding="utf-8")
    assert "Run the weather tests" in text
    real.write_text(
        text.replace("Run the weather tests", "mauve-otter " + "\\t<a>" * 50_000), encoding="utf-8"
    )
    done = _run("mine", "claude-code", "--store", str(tmp_path / "s"), "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert any("mauve-otter" in text for text in _contents(tmp_path / "s"))


def test_wrapped_blocks_found_in_linear_time_are_the_ones_the_pattern_found() -> None:
    """The linear reading of a prompt's wrapped blocks, reminders and slash commands gives what the
    single patterns gave, on random texts of tags, blanks and words (a tag whose attributes hold a
    ``<`` is not one any client writes, and is read as text now)."""
    import random
    import re

    from hindsight_cli.transcripts import exchange

    reminder = re.compile(r"<(system-reminder|system_reminder)>.*?</\1>", re.S)
    wrapped = re.compile(r"\s*<([a-zA-Z][\w-]*)(?:\s[^>]*)?>.*?</\1>\s*", re.S)
    command = re.compile(r"<command-(name|args)>(.*?)</command-\1>", re.S)

    def before(text: str) -> str:
        text = reminder.sub("", text).strip()
        if not text or text.startswith(exchange._BOILERPLATE_PREFIXES):
            return ""
        commands = dict(command.findall(text))
        if "name" in commands:
            return f"{commands['name'].strip()} {commands.get('args', '').strip()}".strip()
        return text if wrapped.sub("", text).strip() else ""

    tokens = ["<a>", "</a>", "<b x=1>", "</b>", "<system-reminder>", "</system-reminder>"]
    tokens += ["<system_reminder>", "</system_reminder>", "<command-name>", "</command-name>"]
    tokens += ["<command-args>", "</command-args>", " ", "\n", "x", "hi", ">", "</"]
    rng = random.Random(5)
    for _ in range(20_000):
        text = "".join(rng.choice(tokens) for _ in range(rng.randint(0, 12)))
        assert exchange.prompt_text(text) == before(text), text


@pytest.mark.slow
def test_the_rows_one_opencode_query_holds_are_bounded_in_values(tmp_path: Path) -> None:
    """A session of 16 messages each of 1.2 million empty objects (3.6 MiB, within the bytes and the
    values of one row and the bytes of one query): the miner decodes a session's messages together,
    19 million dicts (``MemoryError`` under this limit). Now refused in one line."""
    path = _opencode_db(tmp_path / "opencode.db", "none")
    data = '{"role": "user", "v": [' + "{}," * 1_200_000 + "{}]}"
    with sqlite3.connect(path) as conn:
        conn.executemany(
            "INSERT INTO message VALUES (?, 's1', ?, ?, ?)",
            [(f"m{n}", n, n, data) for n in range(16)],
        )
    done = _limited("mine", "opencode", str(path), "--store", str(tmp_path / "s"), memory=_LOW)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "JSON values in the rows of one query" in _one_line(done.stderr)


# -- a ChatGPT export whose conversation tree leads back up (review R) --------------------------------


def _node(
    key: str, parent: str | None, children: list[str], role: str, text: str
) -> dict[str, Any]:
    message = {"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}}
    return {"id": key, "parent": parent, "children": children, "message": message}


@pytest.mark.parametrize(
    "children",
    [
        # the answer is its own child
        {"r": ["q"], "q": ["a"], "a": ["a"]},
        # the answer's child is the question
        {"r": ["q"], "q": ["a"], "a": ["q"]},
        # the answer's child is the root
        {"r": ["q"], "q": ["a"], "a": ["r"]},
    ],
    ids=["self", "up-one", "to-the-root"],
)
def test_a_chatgpt_conversation_whose_children_lead_back_up_imports(
    tmp_path: Path, children: dict[str, list[str]]
) -> None:
    """Without a `current_node` (or one the mapping does not hold) the newest leaf is found by
    following the last child from the root. Before: a child that leads back up was followed
    forever: `import --from chatgpt` hung at full CPU (past the guard) on a 500-byte file."""
    mapping = {
        "r": {"id": "r", "parent": None, "children": children["r"], "message": None},
        "q": _node("q", "r", children["q"], "user", "how do I fix the flaky weather build"),
        "a": _node("a", "q", children["a"], "assistant", "pin node to 20 in .nvmrc"),
    }
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([{"id": "c1", "title": "build", "mapping": mapping}]))
    store = tmp_path / "store"
    done = _run("import", str(export), "--from", "chatgpt", "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert "Imported 1," in done.stderr
    (content,) = _contents(store)
    assert "flaky weather build" in content and "pin node to 20" in content


@pytest.mark.parametrize("key", ["tags: []", "tags: one", "aliases:"])
def test_a_basic_memory_note_whose_front_matter_lists_many_items_imports(
    tmp_path: Path, key: str
) -> None:
    """A note's front matter with 600,000 `- x` items under one key (3.6 MB; a note may be 64
    MiB). Before: each item copied the list so far (quadratic): 60,000 items took 2.4 s, these past
    the guard (review R)."""
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "build.md").write_text(
        f"---\ntitle: build\n{key}\n"
        + "  - x\n" * 600_000
        + "---\n# Build\n\n## Observations\n- [fact] the weather build pins node 20\n"
    )
    store = tmp_path / "store"
    done = _run("import", str(folder), "--from", "basic-memory", "--store", str(store))
    assert done.returncode == 0, done.stderr
    assert any("pins node 20" in c for c in _contents(store))


def test_a_summarys_sentences_are_each_compared_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Review Q9: a summary's key sentences (`summarize`, the hooks' session-end pass over a
    session's tool outputs) were kept unique by a list's `in` test, each sentence compared with all
    before it: 40 tool outputs of 1,500 sentences took 25 s, a session of 500 about an hour.
    Counted, not timed: each sentence is compared with a bounded number of others (here none but
    its repeats)."""
    import numpy as np

    from hindsight_cli.core import extractive

    compared = 0

    class Counted(str):
        __hash__ = str.__hash__

        def __eq__(self, other: object) -> bool:
            nonlocal compared
            compared += 1
            return str.__eq__(self, other)

    split = extractive.sentences
    monkeypatch.setattr(extractive, "sentences", lambda text: [Counted(s) for s in split(text)])
    texts = [" ".join(f"step {i} failed at check {j}." for j in range(500)) for i in range(8)]
    texts.append(texts[0])
    points = extractive.key_sentences(texts, lambda pool: np.eye(len(pool), dtype=np.float32))
    assert len(points) == 3
    # 4,000 distinct sentences and 500 repeats: before, about 8 million comparisons
    assert compared <= 2 * 500, compared
