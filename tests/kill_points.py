"""Running hindsight in a new process for the kill-point tests (tests/test_crash_points_*.py): the
CLI with the tests' stand-in embedder, and a driver that SIGKILLs the process at a chosen point."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

TESTS = str(Path(__file__).parent)

# the CLI with the tests' stand-in embedder (no model load): ``CLI.format(tests=TESTS)``
CLI = """
import sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding
for name, dim in ((embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM),
                  (embedding.MULTILINGUAL_MODEL, embedding.MULTILINGUAL_DIM)):
    embedding._CACHE[name] = FakeEmbedder(name, dim)
sys.argv = ["hindsight", *sys.argv[1:]]
from hindsight_cli.cli import main
main()
"""


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``hindsight ARGS`` in a new process."""
    return subprocess.run(
        [sys.executable, "-c", CLI.format(tests=TESTS), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def made(*args: str) -> str:
    """``hindsight ARGS`` in this process, through the CLI's own error boundary, with the stand-in
    embedder for both models; its stdout. For building a store before a kill: a new process costs
    seconds, and what is under test is the killed command and what runs after it, which run in new
    processes."""
    import pytest
    from fake_embedder import FakeEmbedder
    from typer.testing import CliRunner

    from hindsight_cli import embedding
    from hindsight_cli.cli import app

    with pytest.MonkeyPatch.context() as patch:
        for name, dim in (
            (embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM),
            (embedding.MULTILINGUAL_MODEL, embedding.MULTILINGUAL_DIM),
        ):
            patch.setitem(embedding._CACHE, name, FakeEmbedder(name, dim))
        done = CliRunner().invoke(app, list(args), prog_name="hindsight")
    assert done.exit_code == 0, (args, done.output)
    return done.stdout


def killed(driver: str, point: str, *args: str) -> None:
    """Run ``driver`` (a template taking ``tests``) with ``point`` and ``hindsight ARGS``; it must
    end killed by SIGKILL."""
    done = subprocess.run(
        [sys.executable, "-c", driver.format(tests=TESTS), point, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, (point, done.returncode, done.stderr)
