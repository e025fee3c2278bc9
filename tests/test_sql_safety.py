"""No SQL text is ever built from a value: SQL lives only under storage/, every value is a bound
parameter, and the few names an engine cannot bind (a vector type's size, a table, a schema) go
through a checked quoting function. And a store whose path is hostile SQL works like any other."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from hindsight_cli.storage.sql.common import integer
from hindsight_cli.storage.sql.duckdb_rewrite import identifier

ROOT = Path(__file__).resolve().parent.parent / "hindsight_cli"
SQL_CALLS = {"execute", "executemany", "sql", "copy"}
# Names that hold SQL text the storage modules assemble from fixed pieces (never from a value).
FRAGMENTS = {
    "sql",
    "where",
    "names",
    "marks",
    "scope",
    "_BM25",
    "order",
    "column",
    "dim",
    "shown",
    "statement",
    "_INSERT",
}
QUOTERS = {"integer", "identifier", "marks"}


def _sql_calls() -> list[tuple[Path, ast.Call]]:
    found = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in SQL_CALLS
            ):
                found.append((path, node))
    return found


def _allowed(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Name):
        return expr.id in FRAGMENTS
    # the dialect's fixed forms: self.dialect.vector, ...
    if isinstance(expr, ast.Attribute):
        return "dialect" in ast.unparse(expr)
    if isinstance(expr, ast.Call):
        name = ast.unparse(expr.func)
        if name.split(".")[-1] in QUOTERS or name.startswith("self.dialect."):
            return True
        # ", ".join("?" for _ in values): placeholders, one per value
        return name == "', '.join" and "'?'" in ast.unparse(expr)
    return False


@pytest.mark.no_store
def test_no_sql_is_run_outside_storage() -> None:
    outside = [
        f"{p.relative_to(ROOT)}:{n.lineno}"
        for p, n in _sql_calls()
        if "storage" not in p.relative_to(ROOT).parts and n.func.attr in ("execute", "executemany")
    ]  # type: ignore[attr-defined]
    assert outside == []


@pytest.mark.no_store
def test_sql_text_interpolates_only_fragments_and_checked_names() -> None:
    bad = []
    for path, node in _sql_calls():
        if not node.args:
            continue
        text = node.args[0]
        if isinstance(text, ast.BinOp) and isinstance(text.op, ast.Mod):
            bad.append(f"{path.name}:{node.lineno} % formatting")
        for part in ast.walk(text):
            if isinstance(part, ast.FormattedValue) and not _allowed(part.value):
                bad.append(f"{path.name}:{node.lineno} {ast.unparse(part.value)}")
            if (
                isinstance(part, ast.Call)
                and ast.unparse(part.func).endswith(".format")
                and "Identifier" not in ast.unparse(part)
                and not ast.unparse(part.func).startswith("self.dialect.")
            ):
                bad.append(f"{path.name}:{node.lineno} .format without a quoting Identifier")
    assert bad == []


@pytest.mark.no_store
@pytest.mark.parametrize(
    "name",
    ["plain", "o'brien", 'say "hi"', "back\\slash", "semi;colon -- x", "new\nline", "ünïcode 名前"],
)
def test_identifiers_are_quoted_so_no_name_can_end_them(name: str) -> None:
    import duckdb

    conn = duckdb.connect()
    conn.execute(f"CREATE TABLE {identifier(name)} (v INTEGER)")
    conn.execute(f"INSERT INTO {identifier(name)} VALUES (1)")
    assert conn.execute(f"SELECT v FROM {identifier(name)}").fetchall() == [(1,)]
    assert [r[0] for r in conn.execute("SELECT table_name FROM duckdb_tables()").fetchall()] == [
        name
    ]


@pytest.mark.no_store
def test_quoting_functions_refuse_what_they_cannot_quote() -> None:
    with pytest.raises(ValueError):
        identifier("nul\x00byte")
    for value in ("5", 5.0, True, "1; DROP TABLE memories"):
        with pytest.raises(TypeError):
            integer(value)  # type: ignore[arg-type]
    assert integer(384) == "384"


@pytest.mark.local_only
def test_a_store_whose_path_holds_sql_works_end_to_end(tmp_path: Path, cli) -> None:
    # quotes, a statement separator, a comment, a space and non-ASCII: every way out of a string
    # literal
    hostile = tmp_path / "o'brien \"x\"; COPY memories TO 'leak.csv' -- ünï" / ".hindsight"
    run = lambda *args: cli(*args, "--store", str(hostile))  # noqa: E731
    first = run("record", "the staging cache lives on host cache-7.internal", "--json")
    assert first.exit_code == 0, first.stderr
    memory_id = json.loads(first.stdout)["id"]
    assert run("record", "the build cache is warmed by make warm").exit_code == 0
    hits = json.loads(run("search", "staging cache host", "--json").stdout)
    assert hits and hits[0]["id"] == memory_id
    # rewrites the ledger file
    assert run("forget", memory_id, "--hard", "-y").exit_code == 0
    assert not list(tmp_path.rglob("leak.csv"))
    exported = run("export")
    assert exported.exit_code == 0 and "cache-7.internal" not in exported.stdout
    assert json.loads(run("stats", "--json").stdout)["memories"] == 1
    for path in hostile.rglob("*"):
        if path.is_file():
            assert b"cache-7.internal" not in path.read_bytes(), path
