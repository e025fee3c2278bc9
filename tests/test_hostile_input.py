"""Hostile and odd input: stored exactly (after the documented cleaning) or refused whole, never
half-written.

Property-based with hypothesis where the input space is large (any Unicode, any JSON), fixed cases
where the point is one known trap (the 16 KiB edge, injection strings, symlinks).
"""

from __future__ import annotations

import json
import os
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings, strategies as st

from hindsight_cli.core.transfer import dump_jsonl
from hindsight_cli.errors import InvalidInput
from hindsight_cli.models import Filters
from hindsight_cli.store import Store
from hindsight_cli.text import clean, without_surrogates
from tests.conftest import FakeEmbedder, fresh_local_store

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
FEW = settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))

# Every code point hypothesis can draw, lone surrogates and control characters included.
ANY_CHAR = st.characters(exclude_categories=())
ANY_TEXT = st.text(ANY_CHAR, max_size=80)
ODD = [
    "👩‍👩‍👧‍👦 family",
    "שלום עולם",
    "مرحبا بالعالم",
    "e\u0301 combining",
    "zero\u200bwidth",
    "tab\there",
    "nul\x00byte",
    "bell\x07",
    "line\u2028separator",
    "para\u2029graph",
    "next\x85line",
    "\ufeffbom first",
    "[bold]not markup[/bold]",
    "$(rm -rf /) `id`",
    "fancy “quotes” and ‘single’",
    "中文内容测试",
]

INJECTIONS = [
    "a'b",
    "' OR 1=1 --",
    '"; DROP TABLE memories;',
    "x' OR agent_id IS NOT NULL OR 'a",
    "') OR ('1'='1",
    "back\\slash",
    "back\\'quote",
    "trailing\\",
    "100%",
    "%",
    "_",
    "a_b%c",
    "*",
    "?",
    "NULL",
    "null",
    "$1",
    ":name",
    "x'; DELETE FROM memories WHERE 'a'='a",
    "tag' IS NOT NULL OR array_has(tags, 'x",
    "\u02bcmodifier apostrophe",
    "new\tline tab",
    "a" * 200,
]


def fresh_store() -> Store:
    """A new store (hypothesis shares function-scoped fixtures across examples, so tests make their
    own), as the ``store`` fixture makes it."""
    path = Path(tempfile.mkdtemp(prefix="hostile-")) / "store"
    return Store(fresh_local_store(path), embedder=FakeEmbedder())


_STORES: dict[str, Store] = {}
_COUNTER = iter(range(10**9))


def shared_store(name: str) -> Store:
    """One store for all the examples of one property; each example writes unique content to it."""
    if name not in _STORES:
        _STORES[name] = fresh_store()
    return _STORES[name]


def unique(text: str) -> str:
    return f"{text} {next(_COUNTER)}"


def snapshot(store: Store) -> list[dict[str, Any]]:
    return list(store.export())


def refused_whole(store: Store, action: Callable[[], Any], message: str) -> None:
    """``action`` raises InvalidInput naming the problem, and the store holds what it held
    before."""
    before = snapshot(store)
    with pytest.raises(InvalidInput, match=message):
        action()
    assert snapshot(store) == before


# --- text: stored exactly after cleaning, or refused whole
# -----------------------------------------


@SETTINGS
@given(text=ANY_TEXT)
def test_any_text_is_stored_cleaned_or_refused_whole(text: str) -> None:
    store = shared_store("text")
    expected = clean(text)
    if not expected:
        refused_whole(store, lambda: store.record(text), "content is empty")
        return
    # no merging into an earlier example's memory
    result = store.record(text, merge=False)
    # a random "password=…" is the secrets suite's business
    assume(result.redactions == 0)
    assert result.memory.content == expected
    assert store.get(result.memory.id).content == expected
    assert not any(unicodedata.category(c) in ("Cc", "Cs") for c in expected if c not in "\n\t")
    assert expected == unicodedata.normalize("NFC", expected) and expected == expected.strip()


@pytest.mark.no_store
def test_printable_text_has_nothing_clean_removes() -> None:
    # clean() passes printable text through whole; this is why that is the same as reading each
    # character.
    removed = {"Cc", "Cs", "Co", "Cn"}
    assert not [
        cp
        for cp in range(0x110000)
        if chr(cp).isprintable() and unicodedata.category(chr(cp)) in removed
    ]
    assert clean(" a\u200db\x00c\td\r\n ") == "a\u200dbc\td"


@pytest.mark.parametrize("text", ODD)
def test_odd_unicode_is_kept_apart_from_control_characters(store: Store, text: str) -> None:
    memory = store.record(text).memory
    assert memory.content == clean(text)
    assert store.get(memory.id).content == clean(text)
    assert (
        "\x00" not in memory.content
        and "\x07" not in memory.content
        and "\x85" not in memory.content
    )


@pytest.mark.parametrize(
    "text", ["", "   ", "\n\t \n", "\x00\x01\x1b", "\ud800\udfff", " \u200b"[:1]]
)
def test_empty_after_cleaning_is_refused(store: Store, text: str) -> None:
    refused_whole(store, lambda: store.record(text), "content is empty")


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("a" * 16384, True),
        ("a" * 16385, False),
        # 4 bytes each: the limit is UTF-8 bytes, not characters
        ("😀" * 4096, True),
        ("😀" * 4096 + "a", False),
        ("é" * 8192, True),
        ("é" * 8192 + "a", False),
        # measured after trimming
        ("  " + "a" * 16384 + "\n\n", True),
        # measured after stripping control characters
        ("\x00" * 100 + "a" * 16384, True),
    ],
)
def test_the_16_kib_limit_is_exact(store: Store, text: str, stored: bool) -> None:
    """Up to the limit a text is one memory; one byte more and it is two linked parts, losing
    nothing."""
    result = store.record(text)
    if stored:
        assert not result.parts and store.get(result.memory.id).content == clean(text)
    else:
        contents = [store.get(i).content for i in result.parts]
        assert len(contents) == 2 and all(len(c.encode("utf-8")) <= 16384 for c in contents)
        assert "".join(contents) == clean(text)


def test_one_bad_field_refuses_the_whole_record(store: Store) -> None:
    store.record("already here")
    for fields, message in [
        ({"tags": ["ok", "two\nlines"]}, "tag must be one line"),
        ({"task_id": "t" * 201}, "task must be one line of at most 200"),
        ({"metadata": {"when": object()}}, "metadata must contain only JSON values"),
        ({"tags": "not-a-list"}, "tags must be a list"),
        ({"env": ["A=1"]}, "env must be an object"),
        ({"importance": float("nan")}, "importance must be between 0 and 1"),
    ]:
        refused_whole(store, lambda fields=fields: store.record("a new memory", **fields), message)


# --- labels, metadata and env -------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
    max_leaves=12,
)


@SETTINGS
@given(
    metadata=st.dictionaries(ANY_TEXT, JSON_VALUES, max_size=5),
    env=st.dictionaries(st.text(ANY_CHAR, min_size=1, max_size=20), ANY_TEXT, max_size=3),
)
def test_metadata_and_env_are_kept_exactly_except_lone_surrogates(
    metadata: dict[str, Any], env: dict[str, str]
) -> None:
    store = shared_store("metadata")
    env_keys = [clean(k) for k in env]
    if any(not k or "\n" in k or len(k) > 200 for k in env_keys):
        refused_whole(store, lambda: store.record(unique("with env"), env=env), "env key")
        return
    result = store.record(unique("with metadata"), metadata=metadata, env=env, merge=False)
    assume(result.redactions == 0)
    stored = store.get(result.memory.id)
    assert stored.metadata == json.loads(json.dumps(without_surrogates(metadata)))
    assert stored.env == {clean(k): clean(v) for k, v in env.items()}


@SETTINGS
@given(tags=st.lists(ANY_TEXT, max_size=4), task=ANY_TEXT)
# a label's colon is a namespace: a value of every kind of character after it is no password
@example(tags=["0:00000A.a", "build:Xy7k2Lmq.9"], task="ns:00000A.a")
def test_labels_are_cleaned_or_refused(tags: list[str], task: str) -> None:
    store = shared_store("labels")
    bad_tag = any(not clean(t) or "\n" in clean(t) or len(clean(t)) > 200 for t in tags)
    bad_task = "\n" in clean(task) or len(clean(task)) > 200
    if bad_tag or bad_task:
        refused_whole(
            store, lambda: store.record(unique("labelled"), tags=tags, task_id=task), "must"
        )
        return
    memory = store.record(unique("labelled"), tags=tags, task_id=task, merge=False).memory
    assert memory.tags == list(dict.fromkeys(clean(t) for t in tags))
    assert memory.task_id == (clean(task) or None)


def test_lone_surrogates_from_json_are_dropped_everywhere(store: Store) -> None:
    record = json.loads(
        '{"content": "half an emoji \\ud83d here", "task_id": "t\\udc00", "tags": ["x\\ud800"],'
        ' "metadata": {"k\\udfff": ["v\\ud800"]}, "env": {"E": "\\udead1"}, "resolution": '
        '"r\\ud800"}'
    )
    memory = store.record(**record).memory
    assert (memory.content, memory.task_id, memory.tags) == ("half an emoji  here", "t", ["x"])
    assert (memory.metadata, memory.env, memory.resolution) == ({"k": ["v"]}, {"E": "1"}, "r")
    assert store.search("emoji", filters=Filters(task_id="t\ud800")).hits[0].memory.id == memory.id
    assert b"\\ud8" not in b"".join(line.encode() for line in dump_jsonl(store.export()))


# --- export -> import -> export
# --------------------------------------------------------------------

RECORDS = st.lists(
    st.fixed_dictionaries(
        {
            "content": ANY_TEXT.filter(lambda t: bool(clean(t))),
            "tags": st.lists(
                st.text(ANY_CHAR, max_size=12).filter(
                    lambda t: bool(clean(t)) and "\n" not in clean(t)
                ),
                max_size=3,
            ),
            "metadata": st.dictionaries(ANY_TEXT, JSON_VALUES, max_size=3),
            "env": st.dictionaries(st.sampled_from(["OS", "PY", "TOOL"]), ANY_TEXT, max_size=2),
            "task_id": st.none()
            | st.text(ANY_CHAR, max_size=20).filter(lambda t: "\n" not in clean(t)),
            "type": st.sampled_from(["working", "episodic", "semantic", "procedural"]),
            "outcome": st.sampled_from(["success", "failure", "neutral", "unknown"]),
        }
    ),
    min_size=1,
    max_size=5,
    # merge=False refuses a text stored already with the same agent, task and step (by design): the
    # round trip is of distinct memories
    unique_by=lambda r: (clean(r["content"]), clean(r["task_id"] or "")),
)


def _export_text(store: Store) -> str:
    return "".join(dump_jsonl(store.export()))


@FEW
@given(records=RECORDS)
def test_export_import_export_is_byte_for_byte(records: list[dict[str, Any]]) -> None:
    first = fresh_store()
    for fields in records:
        first.record(merge=False, **fields)
    exported = _export_text(first)
    second = fresh_store()
    result = second.import_records([json.loads(line) for line in exported.split("\n") if line])
    assert result.added == len(exported.split("\n")) - 1
    assert _export_text(second) == exported
    # and again adds nothing
    assert second.import_records(list(second.export())).added == 0


def test_cli_export_import_round_trip_keeps_line_separators(cli, tmp_path: Path) -> None:
    assert cli("init").exit_code == 0
    store = cli.open()
    for text in ODD:
        store.record(text, merge=False, metadata={"raw": text}, tags=[clean(text)[:20]])
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert cli("export", "-o", str(first)).exit_code == 0
    # raw in the file: str.splitlines() would split there
    assert "\u2028" in first.read_text(encoding="utf-8")
    other = tmp_path / "other"
    imported = cli("import", str(first), "--store", str(other), "--json")
    assert imported.exit_code == 0, imported.output
    assert json.loads(imported.stdout)["added"] == len(ODD)
    assert cli("export", "-o", str(second), "--store", str(other)).exit_code == 0
    # byte for byte but for the provenance an import sets (issue 31): the source the file claimed
    # is kept as metadata
    renamed = first.read_text(encoding="utf-8").replace('"source": "agent"', '"source": "import"')
    assert second.read_text(encoding="utf-8").replace(', "claimed_source": "agent"', "") == renamed
    assert "\u2028" in second.read_text(encoding="utf-8")


# --- JSONL with broken lines
# ------------------------------------------------------------------------

GOOD = json.dumps({"content": "a good line"})


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ('{"content": "truncated', "Line 2 is not valid JSON"),
        ('["a", "list"]', "Line 2 is not a JSON object"),
        ('"just a string"', "Line 2 is not a JSON object"),
        ('{"content": ""}', "Record 2: content is empty"),
        ('{"content": "x", "importance": 7}', "Record 2: importance must be between 0 and 1"),
        ('{"content": "x", "tags": "solo"}', "Record 2: tags must be a list"),
        ('{"content": 42}', "Record 2: content must be a string"),
        ('{"content": "x", "status": "zombie"}', "Record 2: status must be one of"),
        ('{"content": "x"} trailing', "Line 2 is not valid JSON"),
    ],
)
def test_a_broken_jsonl_line_refuses_the_whole_file(
    cli, tmp_path: Path, bad: str, message: str
) -> None:
    assert cli("record", "kept from before").exit_code == 0
    before = cli("export").stdout
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join([GOOD, bad, json.dumps({"content": "after the bad one"})]) + "\n")
    result = cli("import", str(source))
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Nothing was imported" in result.stderr.replace(
        "nothing", "Nothing"
    )
    assert cli("export").stdout == before


def test_jsonl_tolerates_blank_lines_crlf_and_a_bom(cli, tmp_path: Path) -> None:
    source = tmp_path / "windows.jsonl"
    body = "\r\n".join([GOOD, "", "   ", json.dumps({"content": "second"}), ""])
    source.write_bytes(b"\xef\xbb\xbf" + body.encode())
    result = cli("import", str(source), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["added"] == 2


def test_jsonl_that_is_not_utf8_is_refused(cli, tmp_path: Path) -> None:
    source = tmp_path / "latin1.jsonl"
    source.write_bytes(json.dumps({"content": "café"}, ensure_ascii=False).encode("latin-1"))
    result = cli("import", str(source))
    assert result.exit_code == 1 and result.stderr.startswith(f"Error: Cannot read {source}")


def test_lone_surrogate_escapes_in_an_import_line_are_dropped(cli, tmp_path: Path) -> None:
    source = tmp_path / "surrogates.jsonl"
    source.write_text(
        '{"content": "broken \\ud83d emoji", "metadata": {"m": "\\udfff!"}, "tags": ["t\\ud800"]}\n'
    )
    result = cli("import", str(source))
    assert result.exit_code == 0, result.output
    memory = json.loads(cli("export").stdout)
    assert (memory["content"], memory["metadata"], memory["tags"]) == (
        "broken  emoji",
        {"m": "!"},
        ["t"],
    )


# --- filters are data, never a query --------------------------------------------------------------


@pytest.fixture
def injected(store: Store) -> tuple[Store, dict[str, str]]:
    """One memory per hostile value (as agent, task and tag) plus a bystander that must never
    leak."""
    # in one import (a write each took seconds in all): the filters are the point, not the writes
    store.import_records(
        [
            {"content": f"widget report number {n}", "agent_id": value, "task_id": value}
            | {"tags": [value], "source": "agent"}
            for n, value in enumerate(INJECTIONS)
        ]
    )
    by_content = {m.content: m.id for m in store.list(limit=None)}
    ids = {value: by_content[f"widget report number {n}"] for n, value in enumerate(INJECTIONS)}
    store.record(
        "widget report from a bystander", agent_id="bystander", task_id="plain", tags=["plain"]
    )
    return store, ids


def test_hostile_filter_values_match_exactly_in_both_engines(injected) -> None:
    store, ids = injected
    for value, memory_id in ids.items():
        for filters in (Filters(task_id=value), Filters(agent_ids=(value,), tags=(value,))):
            for engine in ("ledger", "index"):
                hits = store.search("widget report", filters=filters, engine=engine, k=50).hits
                assert [h.memory.id for h in hits] == [memory_id], (value, filters, engine)
    # and nothing was dropped along the way
    assert len(store.list()) == len(INJECTIONS) + 1


def test_hostile_filter_values_in_list_and_forget(injected) -> None:
    store, ids = injected
    for value, memory_id in ids.items():
        assert [m.id for m in store.list(Filters(task_id=value, statuses=None))] == [memory_id]
        assert [
            m.id for m in store.list(Filters(tags=(value,), agent_ids=(value,), statuses=None))
        ] == [memory_id]
    victim = "x' OR agent_id IS NOT NULL OR 'a"
    assert store.forget(filters=Filters(task_id=victim, statuses=("active",))) == 1
    assert {m.id for m in store.list(Filters())} == {m.id for m in store.list()} - {ids[victim]}


@settings(SETTINGS, max_examples=15)
@given(value=st.text(ANY_CHAR, min_size=1, max_size=40))
def test_any_task_id_finds_exactly_its_memory_in_both_engines(value: str) -> None:
    assume(clean(value) and "\n" not in clean(value))
    store = shared_store("task ids")
    memory = store.record(unique("gadget entry"), task_id=value, merge=False).memory
    for engine in ("ledger", "index"):
        hits = store.search(
            "gadget entry", filters=Filters(task_id=value), engine=engine, k=100
        ).hits
        assert memory.id in {h.memory.id for h in hits}
        assert {h.memory.task_id for h in hits} == {clean(value)}


def test_cli_filter_flags_treat_values_as_data(cli) -> None:
    values = [
        "' OR 1=1 --",
        '"; DROP TABLE memories;',
        "x' OR agent_id IS NOT NULL OR 'a",
        "back\\'quote",
        "a_b%c",
        "$(id)",
    ]
    for value in values:
        assert (
            cli(
                "record",
                f"cli widget {value}",
                "--task",
                value,
                "--tag",
                value,
                "--agent",
                value,
                "--no-merge",
            ).exit_code
            == 0
        )
    assert cli("record", "cli widget bystander", "--task", "plain").exit_code == 0
    for value in values:
        listed = json.loads(cli("list", "--task", value, "--json").stdout)
        assert [m["task_id"] for m in listed] == [value]
        found = json.loads(
            cli("search", "cli widget", "--tag", value, "--agent", value, "--json").stdout
        )
        assert [h["task_id"] for h in found] == [value]
    result = cli("forget", "--task", "' OR 1=1 --", "-y")
    assert result.exit_code == 0, result.output
    assert len(json.loads(cli("list", "--json").stdout)) == 7
    assert len(json.loads(cli("list", "--status", "active", "--json").stdout)) == 6


# --- paths ----------------------------------------------------------------------------------------


def test_store_that_is_a_file_is_a_clear_error(cli, tmp_path: Path) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("my notes\n")
    for args in (["record", "x"], ["init"], ["list"], ["search", "x"], ["export"]):
        result = cli(*args, "--store", str(afile))
        assert result.exit_code == 1, (args, result.output)
        assert (
            result.stderr
            == f"Error: --store {afile} is a file, not a directory; give a store directory "
            "(or a path where one can be created).\n"
        )
    nested = cli("record", "x", "--store", str(afile / "inner"))
    assert nested.exit_code == 1 and "lies inside" in nested.stderr
    assert afile.read_text() == "my notes\n"


def test_store_env_that_is_a_file_is_a_clear_error(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    afile = tmp_path / "f"
    afile.write_text("")
    monkeypatch.setenv("HINDSIGHT_STORE", str(afile))
    result = cli("record", "x", store=False)
    assert result.exit_code == 1 and result.stderr.startswith(
        f"Error: $HINDSIGHT_STORE {afile} is a file"
    )


def test_relative_store_resolves_against_cwd(cli, tmp_path: Path) -> None:
    result = cli("record", "relative", "--store", "rel/store")
    assert result.exit_code == 0, result.output
    assert (Path.cwd() / "rel" / "store" / "ledger.duckdb").is_file()
    where = json.loads(cli("where", "--store", "rel/store", "--json").stdout)
    assert where["store"] == str(Path.cwd() / "rel" / "store")


def test_a_symlinked_store_directory_works(cli, tmp_path: Path) -> None:
    real = tmp_path / "real-store"
    link = tmp_path / "link-store"
    real.mkdir()
    link.symlink_to(real, target_is_directory=True)
    assert cli("record", "through the link", "--store", str(link)).exit_code == 0
    assert (real / "ledger.duckdb").is_file() and link.is_symlink()
    listed = json.loads(cli("list", "--json", "--store", str(real)).stdout)
    assert [m["content"] for m in listed] == ["through the link"]


def test_export_refuses_a_symlink_and_writes_nothing_through_it(cli, tmp_path: Path) -> None:
    assert cli("record", "to export").exit_code == 0
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("precious\n")
    link = tmp_path / "out.jsonl"
    link.symlink_to(elsewhere)
    result = cli("export", "-o", str(link))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {link} is a symbolic link (to {elsewhere})")
    assert elsewhere.read_text() == "precious\n" and link.is_symlink()
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "missing" / "target")
    assert cli("export", "-o", str(dangling)).exit_code == 1
    assert not (tmp_path / "missing").exists()


def test_export_to_a_missing_directory_or_a_directory_is_a_clear_error(cli, tmp_path: Path) -> None:
    assert cli("record", "to export").exit_code == 0
    missing = cli("export", "-o", str(tmp_path / "nope" / "out.jsonl"))
    assert missing.exit_code == 1
    assert (
        missing.stderr
        == f"Error: Directory {tmp_path / 'nope'} does not exist; create it or choose another -o "
        f"path.\n"
    )
    assert not (tmp_path / "nope").exists()
    folder = cli("export", "-o", str(tmp_path))
    assert folder.exit_code == 1 and "is a directory; give a file name" in folder.stderr


def test_export_writes_only_the_named_file(cli, tmp_path: Path) -> None:
    assert cli("record", "to export").exit_code == 0
    target = tmp_path / "out" / "memories.jsonl"
    target.parent.mkdir()
    assert cli("export", "-o", str(target)).exit_code == 0
    # no temporary file left beside it
    assert os.listdir(target.parent) == ["memories.jsonl"]
    assert json.loads(target.read_text())["content"] == "to export"
    relative = cli("export", "-o", "rel.jsonl")
    assert relative.exit_code == 0 and (Path.cwd() / "rel.jsonl").is_file()


def test_import_of_a_directory_or_missing_file_is_a_clear_error(cli, tmp_path: Path) -> None:
    missing = cli("import", str(tmp_path / "nope.jsonl"))
    assert missing.exit_code == 1 and missing.stderr.startswith("Error: No file ")
    folder = cli("import", str(tmp_path))
    assert folder.exit_code == 1 and folder.stderr.startswith(f"Error: Cannot read {tmp_path}")
    assert not cli.open().exists


def test_an_id_with_an_undecodable_byte_is_simply_not_found(cli) -> None:
    """Python passes the byte 0xff in argv as a lone surrogate; it must not reach DuckDB."""
    assert cli("record", "a memory to look past").exit_code == 0
    for command in (["show", "\udcff"], ["forget", "ab\udcffcd"], ["restore", "\udcff"]):
        result = cli(*command)
        assert result.exit_code == 1
        assert result.stderr.startswith("Error: No memory with id"), result.stderr
    assert len(cli.open().list()) == 1
