"""Helpers of the hostile-shared-directory tests: another user (uid 65534) and what it leaves
behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

# nobody: root can give files to it; a test that needs that skips for other users
OTHER = 65534


def give_away(*paths: Path) -> None:
    """Make ``paths`` another user's (links themselves, not what they point to)."""
    try:
        for path in paths:
            os.chown(path, OTHER, OTHER, follow_symlinks=False)
    except PermissionError:
        pytest.skip("giving a file to another user needs root")


def snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry under ``root`` (links not followed): kind and size, mode and mtime, to show
    nothing changed."""
    out = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            st = os.lstat(os.path.join(directory, name))
            out[os.path.relpath(os.path.join(directory, name), root)] = (
                st.st_mode,
                st.st_size,
                st.st_mtime_ns,
            )
    st = os.lstat(root)
    out["."] = (st.st_mode, 0, st.st_uid)
    return out


def hindsight(
    *args: str, cwd: Path | None = None, input: str = ""
) -> subprocess.CompletedProcess[str]:
    """The installed command in a process of its own: real exit codes and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "hindsight_cli", *args],
        capture_output=True,
        text=True,
        input=input,
        cwd=cwd,
        timeout=120,
        env=dict(os.environ),
    )


def cli(*args: str, input: str | None = None) -> Any:
    """The same command in this process (the session's model), through its error boundary."""
    from hindsight_cli.cli import app

    return CliRunner().invoke(app, list(args), input=input, prog_name="hindsight")


def refused(result: Any, start: str, *parts: str) -> str:
    """Assert a refusal: exit 1, one stderr line starting ``Error: start``, holding every part."""
    code = result.returncode if hasattr(result, "returncode") else result.exit_code
    lines = result.stderr.strip().splitlines()
    assert code == 1 and len(lines) == 1, (code, result.stderr, getattr(result, "stdout", ""))
    assert lines[0].startswith(f"Error: {start}"), lines[0]
    for part in parts:
        assert part in lines[0], (part, lines[0])
    assert result.stdout == ""
    return lines[0]


def doctor(store: Path) -> tuple[int, dict[str, dict[str, str]]]:
    result = cli("doctor", "store", "--store", str(store), "--json")
    return result.exit_code, {c["id"]: c for c in json.loads(result.stdout)["checks"]}
