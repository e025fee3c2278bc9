"""`consolidate` over episodes that are all alike: what it holds to group them is bounded (review
O). Anyone who can write memories can write thousands of near-identical ones (an export the user
imports, a token holder of a shared server, whose `memory_consolidate` runs in that server)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight_cli.store import Store

DRIVER = """
import sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding
from hindsight_cli.core import patterns
embedding._CACHE[embedding.DEFAULT_MODEL] = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
pairs = {pairs}
if pairs is not None:
    patterns.MAX_PAIRS = pairs
sys.argv = ["hindsight", *sys.argv[1:]]
from hindsight_cli.cli import main
main()
"""


def _run(
    *args: str, pairs: int | None = None, memory: int = 4 << 30
) -> subprocess.CompletedProcess[str]:
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    driver = DRIVER.format(tests=str(Path(__file__).parent), pairs=pairs)
    return subprocess.run(
        [sys.executable, "-c", driver, *args],
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=limit,
    )


def _alike(tmp_path: Path, count: int) -> Path:
    export = tmp_path / "alike.jsonl"
    export.write_text(
        "".join(
            json.dumps(
                {
                    "content": f"the deploy failed again on host number {i} with the same error",
                    "type": "episodic",
                }
            )
            + "\n"
            for i in range(count)
        )
    )
    store = tmp_path / "s"
    done = _run("import", str(export), "--store", str(store))
    assert done.returncode == 0, done.stderr
    return store


# The driver, saying as it exits the most memory its process held (`VmHWM`: the peak resident size
# of this program, which a fork's `ru_maxrss` is not: that counts the parent's before the exec).
PEAK_DRIVER = DRIVER.replace(
    "main()\n",
    """import os
exit_ = os._exit
def _exit(code):
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    sys.stderr.write(f"peak {{peak}} kB\\n")
    sys.stderr.flush()
    exit_(code)
os._exit = _exit
main()
""",
)


def _peak(*args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """``hindsight ARGS`` in a new process, and the most memory it held, in bytes."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PEAK_DRIVER.format(tests=str(Path(__file__).parent), pairs=None),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    *rest, last = done.stderr.rstrip("\n").split("\n")
    assert last.startswith("peak "), done.stderr[-2000:]
    done.stderr = "\n".join(rest)
    return done, int(last.split()[1]) * 1024


@pytest.mark.slow
def test_thousands_of_alike_episodes_consolidate_in_bounded_memory(tmp_path: Path) -> None:
    """Before: 6,000 near-identical episodes held 4.4 GB (each one's neighbours as a set of
    Python ints, some 120 bytes a pair) for 33 s: `MemoryError` under 4 GB of address space, the
    machine's memory without. Now 4 bytes a pair: one pattern. 2,500 of them here: 6.25 million
    pairs, 0.75 GB more than the process itself at 120 bytes a pair, 25 MB at 4."""
    store = _alike(tmp_path, 2500)
    done, peak = _peak("consolidate", "--store", str(store))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert peak < 700 << 20, f"{peak >> 20} MiB"
    patterns = [m for m in Store(store).list(limit=None) if m.type == "semantic"]
    assert len(patterns) == 1


@pytest.mark.slow
@pytest.mark.parametrize("dry_run", [False, True])
def test_episodes_too_alike_to_group_are_refused_in_one_line(tmp_path: Path, dry_run: bool) -> None:
    """Past the pairs `groups` holds (`patterns.MAX_PAIRS`, made small here), one line naming what
    to do, exit 1, nothing written."""
    store = _alike(tmp_path, 120)
    before = list(Store(store).export())
    done = _run(
        "consolidate", *(["--dry-run"] if dry_run else []), "--store", str(store), pairs=2000
    )
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "too alike to group at once" in lines[0], done.stderr
    assert "--similarity" in lines[0]
    assert list(Store(store).export()) == before
