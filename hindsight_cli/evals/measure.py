"""Measuring tools the benchmarks share: percentiles, new processes' wall time and peak memory, this
process's peak, the machine."""

from __future__ import annotations

import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TypeAlias

# one measurement run's figures by name: times, rates and sizes, a few labels, None where not taken
Figures: TypeAlias = dict[str, float | str | None]


def percentiles(times_ms: Sequence[float]) -> tuple[float, float]:
    ordered = sorted(times_ms)
    return round(statistics.median(ordered), 2), round(
        ordered[max(0, math.ceil(len(ordered) * 0.95) - 1)], 2
    )


def median_wall(cmd: Sequence[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """Median wall time (s) of ``runs`` new processes running ``cmd``, and their peak memory (MB).

    The peak is the child's own ``VmHWM``, sampled while it runs: the rusage of a forked child also
    counts the (much larger) benchmark process it was forked from.
    """
    times, peaks = [], []
    for _ in range(runs):
        with tempfile.TemporaryFile() as errors:
            started = time.perf_counter()
            child = subprocess.Popen(list(cmd), env=env, stdout=subprocess.DEVNULL, stderr=errors)
            peak = 0.0
            while child.poll() is None:
                peak = max(peak, hwm_mb(child.pid))
                time.sleep(0.002)
            times.append(time.perf_counter() - started)
            peaks.append(peak)
            if child.returncode != 0:
                from ..errors import HindsightError

                errors.seek(0)
                message = errors.read().decode(errors="replace").strip()[-300:]
                raise HindsightError(f"`{' '.join(cmd)}` failed during the benchmark: {message}")
    return round(statistics.median(times), 3), round(max(peaks), 1)


def median_walls(
    commands: dict[str, list[str]], env: dict[str, str], runs: int
) -> dict[str, tuple[float, float]]:
    """``median_wall`` of each command, the commands run in turns (one of each, ``runs`` times)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, float] = dict.fromkeys(commands, 0.0)
    for _ in range(runs):
        for name, cmd in commands.items():
            wall, peak = median_wall(cmd, env, 1)
            times[name].append(wall)
            peaks[name] = max(peaks[name], peak)
    return {name: (round(statistics.median(times[name]), 3), peaks[name]) for name in commands}


def hwm_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        # exited meanwhile, or no /proc (the figure is then 0)
        pass
    return 0.0


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB (kilobytes on Linux)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def executable() -> list[str]:
    """How to start ``hindsight`` in a new process: the console script beside this interpreter."""
    script = Path(sys.executable).with_name("hindsight")
    return [str(script)] if script.exists() else [sys.executable, "-m", "hindsight_cli"]


def machine() -> dict[str, str | int | None]:
    """What the figures were measured on."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "processor": platform.processor() or platform.machine(),
    }
