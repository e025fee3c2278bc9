"""Docs, generated files and CI stay true to the program."""

from __future__ import annotations

import re

import pytest

import generate_docs
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
    assert "pip install ." in install and "hindsight record" in install and "hindsight search" in install
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
    assert (REPO / "docs" / "reference.md").read_text() == generate_docs.reference(), \
        "run: python tests/generate_docs.py"


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
