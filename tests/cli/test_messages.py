"""What forget, restore, record, search and the top-level help say to a person (issue 20)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight_cli.models import short_id


def _record(cli, text: str, *more: str) -> str:
    result = cli("record", text, *more)
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def test_forget_names_each_id_to_restore(cli) -> None:
    one = _record(cli, "the staging deploy needs the --force flag")
    two = _record(cli, "the nightly backup runs at 02:00 UTC")
    single = cli("forget", one)
    assert single.exit_code == 0
    assert single.stderr.strip() == f"Forgot 1 memory. Undo with `hindsight restore {one}`."
    restored = cli("restore", short_id(one))
    assert restored.exit_code == 0
    both = cli("forget", short_id(one), two, "--archive")
    assert both.stderr.strip() == (
        f"Archived 2 memories. Undo with `hindsight restore {short_id(one)}` and "
        f"`hindsight restore {two}`."
    )
    assert {m["status"] for m in json.loads(cli("list", "--json").stdout)} == {"archived"}


def test_nothing_forgotten_says_so_and_offers_no_undo(cli) -> None:
    kept = _record(cli, "a memory of another task", "--task", "t-1")
    for args in (
        ["--task", "t-none"],
        ["--task", "t-none", "--archive"],
        ["--task", "t-none", "--hard"],
    ):
        # no -y: there is nothing to confirm
        result = cli("forget", *args)
        assert result.exit_code == 0, result.stderr
        assert "Undo" not in result.stderr and "-y" not in result.stderr
        done_to = (
            "purged" if "--hard" in args else "archived" if "--archive" in args else "forgotten"
        )
        assert result.stderr.strip() == f"No memory matched, so none was {done_to}."
    assert cli("forget", kept).exit_code == 0
    again = cli("forget", kept)
    assert again.stderr.strip() == "No memory was forgotten (already forgotten or archived)."
    _record(cli, "a second memory of that task", "--task", "t-1")
    # something matches: it asks for -y
    asked = cli("forget", "--task", "t-1")
    assert (
        asked.exit_code == 1
        and "This would forget up to 1 memory; add -y to confirm." in asked.stderr
    )


def test_restore_of_an_active_memory_says_there_is_nothing_to_restore(cli) -> None:
    memory_id = _record(cli, "a memory nobody forgot")
    result = cli("restore", memory_id)
    assert result.exit_code == 0
    assert result.stderr.strip() == f"{memory_id} is active already; nothing to restore."
    assert cli("log", "--action", "restore", "--json").stdout.strip() == "[]"


@pytest.mark.slow
def test_record_in_a_terminal_prints_the_id_once(tmp_path: Path) -> None:
    """stdout a real terminal (a pty): the id on it and a message without the id on stderr."""
    leader, follower = pty.openpty()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "hindsight_cli",
            "record",
            "a note typed in a terminal",
            "--store",
            str(tmp_path / "store"),
        ],
        stdout=follower,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        env={**os.environ, "TERM": "dumb"},
    )
    os.close(follower)
    shown = b""
    try:
        while chunk := os.read(leader, 4096):
            shown += chunk
    # the terminal's other end is closed: all is read
    except OSError:
        pass
    os.close(leader)
    assert done.returncode == 0, done.stderr
    memory_id = shown.decode().strip()
    assert len(memory_id) == 36
    assert done.stderr.strip() == "Recorded."
    piped = subprocess.run(
        [
            sys.executable,
            "-m",
            "hindsight_cli",
            "record",
            "a note from a script",
            "--store",
            str(tmp_path / "store"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # a log has the id with the message
    assert piped.stderr.strip() == f"Recorded {piped.stdout.strip()}."


def test_search_dash_reads_the_query_from_stdin(cli) -> None:
    _record(
        cli,
        "ECONNREFUSED 127.0.0.1:5432 because postgres was not started",
        "--outcome",
        "failure",
        "--resolution",
        "started the postgres service",
    )
    _record(cli, "the weather API wants an X-Api-Key header")
    error = "psql: error: connection to server failed: ECONNREFUSED 127.0.0.1:5432\n"
    result = cli("search", "-", "--troubleshoot", "--json", input=error)
    assert result.exit_code == 0, result.stderr
    hits = json.loads(result.stdout)
    assert hits and "postgres was not started" in hits[0]["content"]
    empty = cli("search", "-", input="  \n")
    assert empty.exit_code != 0 and "empty" in empty.stderr


def test_the_internal_hook_command_is_hidden_but_works(cli) -> None:
    top = cli("--help", store=False)
    commands = [
        line.split()[0] for line in top.stdout.split("Commands:", 1)[1].splitlines() if line.strip()
    ]
    assert "hooks" in commands and "hook" not in commands
    assert cli("hook", "--help", store=False).exit_code == 0


_LINES = [
    "Recorded 01a2f3c4.",
    "",
    "  leading and trailing spaces  ",
    "[bold]not markup[/bold] :smile: $HOME \\n",
    "错误：连接被拒绝 — café — 🚀 — שלום",
    "a long line " * 40,
    "a tab\there",
    "a carriage\rreturn and a bell\a",
    "zero\u200bwidth",
    "an escape\x1b[2K and an override\u202e",
]


@pytest.mark.parametrize("text", _LINES)
@pytest.mark.parametrize("kind", ["message", "warning", "error"])
def test_a_message_to_a_file_is_the_bytes_rich_writes(
    text: str, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Messages to a pipe or file are written without Rich (a cold start ~35 ms less), and are
    exactly what Rich wrote, whatever the text (its control characters shown as escapes, review
    AE); FORCE_COLOR still styles them."""
    import io

    from rich.console import Console
    from rich.text import Text

    from hindsight_cli.cli import render

    style = {"message": "", "warning": "yellow", "error": "bold red"}[kind]
    shown = {"message": text, "warning": f"Warning: {text}", "error": f"Error: {text}"}[kind]
    for force in (None, "1"):
        if force:
            monkeypatch.setenv("FORCE_COLOR", force)
        expected = io.StringIO()
        Console(file=expected, highlight=False, soft_wrap=True).print(
            Text(render.visible(shown), style=style)
        )
        written = io.StringIO()
        monkeypatch.setattr(sys, "stderr", written)
        monkeypatch.setattr(render, "_CONSOLES", {})
        if kind == "error":
            render.error(RuntimeError(text))
        else:
            getattr(render, kind)(text)
        monkeypatch.undo()
        assert written.getvalue() == expected.getvalue(), (kind, text, force)


@pytest.mark.slow
@pytest.mark.model
def test_record_and_a_search_for_scripts_load_no_rich(tmp_path: Path) -> None:
    """A cold record, and a search printed as JSON, context, "No memories matched." or a table to a
    pipe, print without importing Rich; a table for a terminal (colour forced here) still uses
    it."""
    env = {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home")}
    store = str(tmp_path / "s")
    probe = (
        "import sys, json; sys.argv = ['hindsight', *json.loads(sys.argv[1])]\n"
        "from hindsight_cli import cli\n"
        "try:\n    cli.app(prog_name='hindsight', standalone_mode=False)\n"
        "finally:\n    sys.stderr.write('RICH=%s\\n' % ('rich' in sys.modules))\n"
    )

    def run(*argv: str, **more: str) -> tuple[str, bool]:
        done = subprocess.run(
            [sys.executable, "-c", probe, json.dumps([*argv, "--store", store])],
            capture_output=True,
            text=True,
            env={**env, **more},
        )
        assert done.returncode == 0, done.stderr
        return done.stderr, "RICH=True" in done.stderr

    said, rich = run("record", "the nightly backup runs at 02:00 UTC")
    assert said.startswith("Recorded ") and not rich
    assert not run("search", "nightly backup", "--json")[1]
    assert not run("search", "nightly backup", "--format", "context")[1]
    said, rich = run("search", "zzyzx qwv")
    assert said.startswith("No memories matched.") and not rich
    assert not run("search", "nightly backup")[1]
    assert run("search", "nightly backup", FORCE_COLOR="1")[1]
