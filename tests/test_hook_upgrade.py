"""Hooks written from an installed environment (a ``uv tool`` or ``pipx`` one) survive a rebuild of
that environment on another Python: the command names the environment's ``bin/python`` and
``bin/hindsight-hook``, not ``lib/python3.X/site-packages``. A command whose files are gone (hooks
written before, or by an environment since removed) is named by ``hooks status`` and ``doctor`` with
the fix.

The environments are made the way an installer lays them out (``python -m venv``, the package in
``site-packages``, the launcher in ``bin/``) without downloading anything: the CLI's dependencies
come from this test environment through a ``.pth`` line, and after the rebuild only the recording
hook runs, which needs none."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX environment layout"),
]


def _other_python() -> str | None:
    """A Python of another minor version (3.11+), as ``uv tool upgrade --python`` would use."""
    current = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for minor in ("3.12", "3.13", "3.11"):
        if minor == current:
            continue
        for candidate in (
            shutil.which(f"python{minor}"),
            *sorted(
                str(p) for p in Path.home().glob(f".pyenv/versions/{minor}*/bin/python{minor}")
            ),
        ):
            if (
                candidate
                and subprocess.run([candidate, "-c", "pass"], capture_output=True).returncode == 0
            ):
                return candidate
    return None


def _environment(env: Path, python: str, with_dependencies: bool) -> None:
    """An installed hindsight: a venv, the package in its site-packages, ``bin/hindsight-hook``."""
    shutil.rmtree(env, ignore_errors=True)
    subprocess.run([python, "-m", "venv", "--without-pip", str(env)], check=True)
    version = subprocess.run(
        [str(env / "bin" / "python"), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    site = env / "lib" / f"python{version}" / "site-packages"
    shutil.copytree(
        ROOT / "hindsight_cli", site / "hindsight_cli", ignore=shutil.ignore_patterns("__pycache__")
    )
    launcher = env / "bin" / "hindsight-hook"
    source = (ROOT / "hindsight_cli" / "hooks" / "launcher.py").read_text()
    # what an installer does to a script's "#!python" line
    launcher.write_text(f"#!{env / 'bin' / 'python'}\n" + source.split("\n", 1)[1])
    launcher.chmod(0o755)
    if with_dependencies:
        (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")


def _failure(project: Path) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": str(project),
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest tests/test_api.py"},
            "error": "Exit code 1\nE   ModuleNotFoundError: No module named 'requestz'",
        }
    )


def test_hooks_written_from_an_environment_survive_its_rebuild_on_another_python(
    tmp_path: Path,
) -> None:
    other = _other_python()
    if other is None:
        pytest.skip("no Python of another minor version on this machine")
    env, home, project = tmp_path / "tools" / "hindsight-cli", tmp_path / "home", tmp_path / "p"
    project.mkdir()
    run_env = {
        **os.environ,
        "HOME": str(home),
        "HINDSIGHT_HOME": str(tmp_path / "hindsight-home"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    run_env.pop("HINDSIGHT_STORE", None)
    _environment(env, sys.executable, with_dependencies=True)
    for args in (["init"], ["hooks", "install", "--client", "claude-code"]):
        done = subprocess.run(
            [str(env / "bin" / "python"), "-m", "hindsight_cli", *args],
            capture_output=True,
            text=True,
            env=run_env,
            cwd=project,
        )
        assert done.returncode == 0, done.stderr
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PostToolUseFailure"][0]["hooks"][0]["command"]
    assert shlex.split(command) == [
        str(env / "bin" / "python"),
        "-S",
        str(env / "bin" / "hindsight-hook"),
        "tool-failure",
        "--client",
        "claude-code",
    ]

    # `uv tool upgrade --python 3.12`: the same directory, another lib/python3.X
    _environment(env, other, with_dependencies=False)
    assert not list(env.glob(f"lib/python{sys.version_info[0]}.{sys.version_info[1]}"))
    hook = subprocess.run(
        command, shell=True, input=_failure(project), capture_output=True, text=True, env=run_env
    )
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")
    spooled = (project / ".hindsight" / "spool" / "events.jsonl").read_text()
    assert "No module named 'requestz'" in spooled
    assert not (project / ".hindsight" / "spool" / "hooks.log").exists()


def test_status_and_doctor_name_a_hook_command_whose_files_are_gone(cli, home: Path) -> None:
    gone = home / "old-env"
    old = (
        f"{gone}/bin/python -S {gone}/lib/python3.11/site-packages/hindsight_cli/hooks/"
        "__main__.py tool --client claude-code"
    )
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PostToolUse": [
                        {"matcher": "*", "hooks": [{"type": "command", "command": old}]}
                    ]
                }
            }
        )
    )
    status = cli("hooks", "status", store=False)
    assert status.exit_code == 0
    assert (
        f"Warning: claude-code's user hooks ({settings}) run {gone}/bin/python, "
        f"{gone}/lib/python3.11/site-packages/hindsight_cli/hooks/__main__.py, which no longer "
        "exist (hindsight was reinstalled or moved): every hook fails until you run `hindsight "
        "hooks install --client claude-code --scope user` again."
    ) in " ".join(status.stderr.split())
    row = next(
        r
        for r in json.loads(cli("hooks", "status", "--json", store=False).stdout)["clients"]
        if r["client"] == "claude-code" and r["scope"] == "user"
    )
    assert row["events"] == ["PostToolUse"] and row["missing"] == [
        f"{gone}/bin/python",
        f"{gone}/lib/python3.11/site-packages/hindsight_cli/hooks/__main__.py",
    ]
    doctor = cli("doctor", "--no-probe", "--json", store=False)
    check = next(c for c in json.loads(doctor.stdout)["checks"] if c["id"] == "hooks.command")
    assert doctor.exit_code == 1 and check["status"] == "fail"
    assert check["fix"] == "hindsight hooks install --client claude-code --scope user"
    assert str(gone / "bin" / "python") in check["evidence"]

    # installing again replaces the old command with one that runs
    assert cli("hooks", "install", "--client", "claude-code", store=False).exit_code == 0
    fixed = json.loads(cli("doctor", "--no-probe", "--json", store=False).stdout)["checks"]
    assert [c["status"] for c in fixed if c["id"] == "hooks.command"] == ["ok"]
    commands = json.dumps(json.loads(settings.read_text()))
    assert str(gone) not in commands and "bin/hindsight-hook" in commands
