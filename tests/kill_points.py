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
