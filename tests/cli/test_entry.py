"""The console entry builds only the command it runs (issue 35); what a person sees is the same as
from the whole command tree: every command's help, usage errors, a mistyped name's suggestion."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from typer.main import get_command
from typer.testing import CliRunner

from hindsight_cli.cli import app, for_command


def _paths() -> list[list[str]]:
    """Every command of the whole tree, as the words that run it."""
    paths: list[list[str]] = []

    def walk(command: click.Command, words: list[str]) -> None:
        paths.append(words)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*words, name])

    walk(get_command(app), [])
    return paths[1:]


def _run(words: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(for_command(words), words, prog_name="hindsight")
    return result.exit_code, result.stdout, result.stderr


def _whole(words: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, words, prog_name="hindsight")
    return result.exit_code, result.stdout, result.stderr


def test_every_commands_help_is_the_same_from_its_own_tree() -> None:
    paths = _paths()
    # the hidden `hook` too, and every group's subcommands
    assert ["search"] in paths and ["mcp", "install"] in paths and ["hook"] in paths
    for words in paths:
        assert _run([*words, "--help"]) == _whole([*words, "--help"]), words


def test_only_the_command_run_is_built() -> None:
    search = get_command(for_command(["search", "the weather API"]))
    assert list(getattr(search, "commands", {})) == ["search"]
    mcp = get_command(for_command(["mcp", "install"]))
    assert list(getattr(mcp, "commands", {})) == ["mcp"]


@pytest.mark.parametrize(
    "words",
    [
        ["--help"],
        ["-h", "search"],
        ["serch", "the weather API"],
        ["search"],
        ["search", "x", "--limit", "many"],
        ["mcp", "nosuch"],
    ],
)
def test_help_and_usage_errors_are_the_whole_trees(words: list[str]) -> None:
    assert _run(words) == _whole(words)


def test_a_mistyped_command_is_still_told_the_near_one() -> None:
    code, _, err = _run(["serch", "the weather API"])
    assert code == 2 and "search" in err


@pytest.mark.slow
def test_the_console_entry_runs_the_command_and_its_usage_errors() -> None:
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *argv], capture_output=True, text=True)

    whole = "from hindsight_cli.cli import app; app(['search', '--help'], prog_name='hindsight')"
    helped = run("-m", "hindsight_cli", "search", "--help")
    assert helped.returncode == 0 and helped.stdout == run("-c", whole).stdout
    wrong = run("-m", "hindsight_cli", "search", "-n", "x", "y")
    assert wrong.returncode == 2 and "'x' is not a valid int" in wrong.stderr
    assert "Traceback" not in wrong.stderr
