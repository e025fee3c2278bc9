"""Import rules and start-up weight, checked in fresh interpreters."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("lancedb", "fastembed", "onnxruntime", "mcp", "duckdb", "_duckdb", "pyarrow")


def _loaded(code: str, top: bool = True) -> set[str]:
    probe = code + "\nimport sys, json\nsys.stdout.write(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    names = json.loads(result.stdout.splitlines()[-1])
    return {name.split(".")[0] if top else name for name in names}


@pytest.mark.slow
def test_the_library_does_not_load_faces_or_adapters() -> None:
    loaded = _loaded("import hindsight_cli")
    assert not loaded & {"typer", "rich", "mcp", *HEAVY}


@pytest.mark.slow
def test_help_loads_no_heavy_library() -> None:
    code = (
        "import sys, io\n"
        "from hindsight_cli.cli import app\n"
        "out = sys.stdout; sys.stdout = io.StringIO()\n"
        "try:\n    app(['--help'], prog_name='hindsight')\nexcept SystemExit:\n    pass\n"
        "try:\n    app(['search', '--help'], prog_name='hindsight')\nexcept SystemExit:\n    pass\n"
        "sys.stdout = out\n"
    )
    loaded = _loaded(code)
    assert not loaded & set(HEAVY), loaded & set(HEAVY)


@pytest.mark.slow
def test_cold_search_path_skips_lancedb_and_fastembed(tmp_path) -> None:
    code = (
        "import os, sys, io\n"
        f"os.environ['HINDSIGHT_HOME'] = {str(tmp_path)!r}\n"
        "from hindsight_cli.store import Store\n"
        f"s = Store(__import__('pathlib').Path({str(tmp_path / 's')!r}))\n"
        "s.record('a memory about vector search')\n"
        "assert s.search('vector search').hits\n"
    )
    loaded = _loaded(code)
    assert loaded & {"duckdb", "_duckdb"} and "onnxruntime" in loaded
    assert not loaded & {"lancedb", "fastembed", "mcp", "typer", "rich"}
    # the injection detector's hundred-odd patterns are for untrusted writes only (issue 35)
    modules = _loaded(code, top=False)
    assert "hindsight_cli.poisoning" in modules
    assert "hindsight_cli.poisoning.detect" not in modules
    untrusted = code + "s.record('a memory from a web page', source='web')\n"
    assert "hindsight_cli.poisoning.detect" in _loaded(untrusted, top=False)


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("_duckdb") is None, reason="a DuckDB without a separate engine"
)
def test_a_cold_search_reads_through_the_duckdb_engine_alone(tmp_path) -> None:
    """The ``duckdb`` package's Python layer (relations, expressions, a version lookup) is ~40 ms
    of a cold search's CPU, beside the model's load; a search needs DuckDB's engine only."""
    from hindsight_cli.store import Store

    Store(tmp_path / "s").record("a memory about vector search")
    code = (
        "import os\n"
        f"os.environ['HINDSIGHT_HOME'] = {str(tmp_path)!r}\n"
        "from hindsight_cli.store import Store\n"
        f"assert Store(__import__('pathlib').Path({str(tmp_path / 's')!r})).search('vector').hits\n"
    )
    loaded = _loaded(code)
    assert "_duckdb" in loaded and "duckdb" not in loaded


def test_core_modules_never_import_faces() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "hindsight_cli"
    for path in root.rglob("*.py"):
        if path.relative_to(root).parts[0] in ("cli", "mcp_server"):
            # the faces
            continue
        text = path.read_text()
        for face in (
            "import typer",
            "from typer",
            "import rich",
            "from rich",
            "import mcp",
            "from mcp",
        ):
            assert face not in text, f"{path.name} imports a face library ({face})"


@pytest.mark.slow
def test_doctor_modules_load_no_heavy_library() -> None:
    loaded = _loaded(
        "import hindsight_cli.doctor.store_checks, hindsight_cli.doctor.mcp_checks, "
        "hindsight_cli.cli.doctor"
    )
    assert not loaded & {"lancedb", "fastembed", "onnxruntime", "mcp", "duckdb", "_duckdb"}


def test_modules_and_functions_stay_small() -> None:
    """STYLE §3.4: modules and functions small enough that a reader finds their room.

    Counted in statements, which the formatter does not change: 300 a module and 45 a function are
    what 400 and 60 lines held before the code was formatted at 100 columns (the largest module then
    had 298 statements in 358 lines, the largest function 43 in 45).
    """
    import ast
    from pathlib import Path

    def statements(node: ast.AST) -> int:
        return sum(isinstance(child, ast.stmt) for child in ast.walk(node))

    root = Path(__file__).resolve().parent.parent / "hindsight_cli"
    big_modules, big_functions = [], []
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text())
        if statements(tree) > 300:
            big_modules.append(str(path.relative_to(root)))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and statements(node) > 45:
                big_functions.append(f"{path.relative_to(root)}:{node.lineno} {node.name}")
    assert (big_modules, big_functions) == ([], [])


def _package() -> Path:
    return Path(__file__).resolve().parent.parent / "hindsight_cli"


def test_only_the_cli_registration_imports_in_a_cycle() -> None:
    """No two modules import each other, directly or through others (issue 29). Typer's add_typer
    registration is the one cycle left: ``cli/__init__`` builds the app the command modules attach
    to. An import under ``if TYPE_CHECKING:`` never runs and does not count."""
    import grimp

    graph = grimp.build_graph("hindsight_cli", exclude_type_checking_imports=True)
    cycles = [
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if graph.chain_exists(importer=imported, imported=importer)
    ]
    assert {a for pair in cycles for a in pair} <= {
        "hindsight_cli.cli",
        *(
            f"hindsight_cli.cli.{name}"
            for name in ("evaluate", "forgetting", "hooks", "memory", "store_admin")
        ),
    }, sorted(cycles)


def test_the_top_level_reads_as_a_map() -> None:
    """At most 12 modules beside the role packages (cli, mcp_server, hooks, doctor, evals, core,
    search, storage, transcripts, redact, poisoning)."""
    modules = sorted(p.name for p in _package().glob("*.py"))
    assert len(modules) <= 12, modules


def test_the_package_exports_the_documented_api() -> None:
    """``hindsight_cli.__all__`` is the list docs/python-api.md gives, and every name resolves."""
    import hindsight_cli

    text = (_package().parent / "docs" / "python-api.md").read_text()
    paragraph = text[text.index("The names `hindsight_cli` exports") :].split("\n\n")[0]
    documented = set(re.findall(r"`(\w+)`", paragraph.split(":", 1)[1])) - {"__all__"}
    assert set(hindsight_cli.__all__) == documented
    assert all(getattr(hindsight_cli, name) is not None for name in hindsight_cli.__all__)
