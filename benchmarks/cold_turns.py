"""Cold ``hindsight search`` / ``record`` / ``--help`` of this checkout and another, in turns with
the query-embedding floor: new processes, wall and CPU time (user + system) of each, medians. Not a
test; run it by hand:

    python benchmarks/cold_turns.py --compare /path/to/other/checkout --runs 25 [--command search]

Each round runs the floor, this checkout and the other (the order reversed every other round), so
a change in the machine's load hits all three alike; each search asks new words (search remembers
recent query vectors in process only, but a benchmark asks what a user would). The store holds
``--size`` synthetic memories with stand-in vectors (``hindsight bench --stand-in-above``), in a
temporary directory removed at the end. A checkout runs from its own tree on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
from hindsight_cli.evals import floor  # noqa: E402
from hindsight_cli.evals.benchmark import synthetic  # noqa: E402
from hindsight_cli.store import Store  # noqa: E402

EMBED = (
    "from hindsight_cli.embedding import OnnxEmbedder, bundled_model_dir; "
    "OnnxEmbedder(bundled_model_dir()).embed(['why did the weather API return 401'])"
)


def command(which: str, store: Path, round_: int, tree: str) -> list[str]:
    cli = [sys.executable, "-m", "hindsight_cli"]
    if which == "search":
        return [*cli, "search", floor.new_query(round_ + 8), "--store", str(store)]
    if which == "record":
        note = f"bench note {round_} of {tree}: kafka consumer lag spiked after the deploy"
        return [*cli, "record", note, "--no-merge", "--store", str(store)]
    return [*cli, "--help"]


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one new process, started in ``cwd``: ``python -m`` and ``-c`` put
    the working directory before ``PYTHONPATH``, so a process started in a checkout runs that
    checkout's code whatever ``PYTHONPATH`` says (run from this checkout, both sides were this)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", type=Path, required=True, help="the other checkout")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--command", choices=("search", "record", "help"), default="search")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cold-turns-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["HINDSIGHT_HOME"] = str(work / "home")
    os.environ["HINDSIGHT_HOME"] = env["HINDSIGHT_HOME"]
    try:
        store = work / "store"
        model = Store(store).embedder
        Store(store, embedder=floor.Seeded(model)).import_records(synthetic(args.size))
        trees = {"this": HERE, "other": args.compare.resolve()}
        subprocess.run(
            [sys.executable, "-m", "hindsight_cli", "allow", str(store)],
            env={**env, "PYTHONPATH": str(HERE)},
            cwd=work,
            check=True,
            capture_output=True,
        )
        taken: dict[str, list[tuple[float, float]]] = {"floor": [], "this": [], "other": []}
        load = os.getloadavg()[0]
        for round_ in range(args.runs):
            order = ["floor", "this", "other"][:: 1 if round_ % 2 == 0 else -1]
            for name in order:
                tree = trees.get(name, HERE)
                cmd = (
                    [sys.executable, "-c", EMBED]
                    if name == "floor"
                    else command(args.command, store, round_, name)
                )
                taken[name].append(timed(cmd, {**env, "PYTHONPATH": str(tree)}, work))
        print(f"{args.command}, {args.runs} rounds, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
        base_wall = statistics.median(w for w, _ in taken["floor"])
        base_cpu = statistics.median(c for _, c in taken["floor"])
        for name, values in taken.items():
            wall = statistics.median(w for w, _ in values)
            cpu = statistics.median(c for _, c in values)
            print(
                f"  {name:6s} wall {wall:.3f} s ({wall - base_wall:+.3f} over the floor), "
                f"CPU {cpu:.3f} s ({cpu - base_cpu:+.3f})"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
