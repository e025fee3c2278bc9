"""Docs, generated files and CI stay true to the program."""

from __future__ import annotations

import re

import generate_docs
import pytest

from hindsight_cli import paths

REPO = generate_docs.REPO


def _quick_start() -> list[str]:
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "README's Quick start has no sh block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_is_two_commands_and_ci_runs_exactly_them() -> None:
    install, tests = _quick_start()
    assert (
        "pip install ." in install
        and "hindsight record" in install
        and "hindsight search" in install
    )
    assert "pytest" in tests
    ci = (REPO / ".ci" / "run").read_text()
    assert f"INSTALL_AND_RUN='{install}'" in ci
    assert f"RUN_TESTS='{tests}'" in ci
    assert 'bash -c "$INSTALL_AND_RUN"' in ci and 'bash -c "$RUN_TESTS"' in ci


@pytest.mark.parametrize("shell", generate_docs.SHELLS)
def test_completions_are_current(shell: str) -> None:
    stored = (REPO / "completions" / f"hindsight.{shell}").read_text()
    assert stored == generate_docs.completion(shell), "run: python tests/generate_docs.py"


def test_reference_is_current() -> None:
    assert (REPO / "docs" / "reference.md").read_text() == generate_docs.reference(), (
        "run: python tests/generate_docs.py"
    )


def test_every_command_has_help_and_is_in_the_cli_guide() -> None:
    guide = (REPO / "docs" / "cli.md").read_text()
    for name in generate_docs.command_names():
        assert f"hindsight {name}" in guide, f"docs/cli.md does not mention `hindsight {name}`"
        help_text = generate_docs._run([name, "--help"])
        assert "Example:" in help_text, f"`hindsight {name} --help` has no example"


def test_every_environment_variable_is_documented() -> None:
    storage = (REPO / "docs" / "storage.md").read_text()
    documented = set(re.findall(r"`(HINDSIGHT_[A-Z_]+)`", storage))
    assert documented == set(paths.ENV_VARS)
    source = "\n".join(p.read_text() for p in (REPO / "hindsight_cli").rglob("*.py"))
    used = set(re.findall(r"\"(HINDSIGHT_[A-Z_]+)\"", source))
    assert used <= set(paths.ENV_VARS), used - set(paths.ENV_VARS)


def test_docs_link_to_existing_files() -> None:
    for page in [REPO / "README.md", *(REPO / "docs").glob("*.md")]:
        for target in re.findall(r"\]\(((?:docs/)?[\w.-]+\.md)\)", page.read_text()):
            base = REPO if page.name == "README.md" else page.parent
            assert (base / target).exists(), f"{page.name} links to missing {target}"


def test_python_api_examples_run_and_print_what_they_say(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every runnable block of docs/python-api.md, in order, on one throw-away store: a `print(...)`
    whose line ends in `# text` must print that text (unless the comment says `e.g.` or elides with
    …)."""
    import ast

    text = (REPO / "docs" / "python-api.md").read_text()
    namespace: dict[str, object] = {}
    checked = 0
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        try:
            tree = ast.parse(block)
        except SyntaxError:
            # a signature listing, not an example
            continue
        lines = block.splitlines()
        for statement in tree.body:
            code = compile(ast.Module([statement], []), "python-api.md", "exec")
            exec(code, namespace)  # noqa: S102 - the documented examples are the test
            printed = capsys.readouterr().out.strip()
            last = lines[statement.end_lineno - 1]
            is_print = (
                isinstance(statement, ast.Expr)
                and isinstance(statement.value, ast.Call)
                and getattr(statement.value.func, "id", "") == "print"
            )
            if is_print and "  # " in last:
                expected = last.split("  # ", 1)[1].strip()
                if "…" not in expected and not expected.startswith("e.g."):
                    assert printed == expected, f"docs/python-api.md: {last.strip()}"
                    checked += 1
    assert checked >= 15


@pytest.mark.slow
@pytest.mark.model
def test_readme_usage_block_runs_top_to_bottom_as_written(tmp_path) -> None:
    """The Usage block, pasted into bash in an empty directory: every command succeeds (``set -e``),
    none prints a traceback, and the store holds what it says it recorded."""
    import json
    import os
    import subprocess
    import sys

    readme = (REPO / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", readme.split("## Usage", 1)[1], re.S)
    assert block, "README's Usage has no sh block"
    env = {**os.environ, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]}
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block.group(1)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "Error:" not in done.stderr, done.stderr
    assert "it supersedes" in done.stderr and "Restored" in done.stderr and "Purged" in done.stderr
    exported = [json.loads(line) for line in (tmp_path / "mem.jsonl").read_text().splitlines()]
    contents = {m["content"] for m in exported}
    assert {"long note from a pipe", "User prefers short answers in Chinese"} <= contents
    weather = next(m for m in exported if m["content"].startswith("调用天气API"))
    assert (weather["status"], weather["agent_id"]) == ("superseded", "agent-001")
