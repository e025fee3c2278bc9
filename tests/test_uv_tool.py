"""The README's install, for real: `uv tool install` of this checkout, hooks installed from the tool
environment, the environment rebuilt on another Python (what `uv tool upgrade --python` or a
reinstall does), and the written hook command still records. Offline only (uv's cache must hold the
dependencies, say from an earlier online install); skipped, with the reason, when uv, another
Python or the cache is missing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_hook_upgrade import _failure, _other_python

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX environment layout"),
]


def _install(uv: str, python: str, env: dict[str, str]) -> None:
    done = subprocess.run(
        [uv, "tool", "install", "--offline", "--reinstall", "--python", python, str(ROOT)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    if done.returncode != 0:
        pytest.skip(
            f"uv tool install --offline failed (uv's cache lacks a package?): "
            f"{done.stderr.strip().splitlines()[-1:]}"
        )


def test_hooks_from_a_uv_tool_survive_its_reinstall_on_another_python(tmp_path: Path) -> None:
    uv = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if uv is None:
        pytest.skip("uv is not installed (pip install uv)")
    other = _other_python()
    if other is None:
        pytest.skip("no Python of another minor version on this machine")
    tools, home, project = tmp_path / "tools", tmp_path / "home", tmp_path / "p"
    project.mkdir()
    env = {
        **os.environ,
        "UV_TOOL_DIR": str(tools),
        "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
        "UV_PYTHON_DOWNLOADS": "never",
        "HOME": str(home),
        "HINDSIGHT_HOME": str(tmp_path / "hindsight-home"),
    }
    env.pop("HINDSIGHT_STORE", None)
    env.pop("VIRTUAL_ENV", None)
    _install(uv, sys.executable, env)
    hindsight = tools / "hindsight-cli" / "bin" / "hindsight"
    for args in (["init"], ["hooks", "install", "--client", "claude-code"]):
        done = subprocess.run(
            [str(hindsight), *args], capture_output=True, text=True, env=env, cwd=project
        )
        assert done.returncode == 0, done.stderr
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PostToolUseFailure"][0]["hooks"][0]["command"]
    assert "lib/python" not in command and "/bin/hindsight-hook " in command

    _install(uv, other, env)
    version = subprocess.run(
        [
            str(tools / "hindsight-cli" / "bin" / "python"),
            "-c",
            "import sys; print('%d.%d' % sys.version_info[:2])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version != f"{sys.version_info[0]}.{sys.version_info[1]}"
    hook = subprocess.run(
        command, shell=True, input=_failure(project), capture_output=True, text=True, env=env
    )
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
    spooled = (project / ".hindsight" / "spool" / "events.jsonl").read_text()
    assert "No module named 'requestz'" in spooled
