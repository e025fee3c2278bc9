"""Time the recording hook the way a client runs it: a fresh process per call, payload on stdin.

    python tests/bench/bench_hooks.py [--runs 30]

Prints the median and p90 wall time of a failing-tool hook (spooled, store untouched) and, for scale,
of a bare `python -c pass` and of `python -m hindsight_cli.hooks` (the same hook through the package's
__init__). No timing is asserted anywhere in the unit tests.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENTRY = Path(__file__).resolve().parents[2] / "hindsight_cli" / "hooks" / "__main__.py"


def _time(argv: list[str], payload: dict, runs: int, env: dict[str, str]) -> list[float]:
    out = []
    for _ in range(runs):
        # A new error each time: a repeat of an earlier session's error would (rightly) trigger recall.
        payload = {**payload, "session_id": os.urandom(4).hex(),
                   "error": " ".join(os.urandom(4).hex() for _ in range(6))}
        start = time.perf_counter()
        subprocess.run(argv, input=json.dumps(payload), capture_output=True, text=True, check=True, env=env)
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        (project / ".hindsight").mkdir(parents=True)
        env = {"HINDSIGHT_HOME": str(Path(tmp) / "home"), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
        payload = ({"session_id": "bench", "cwd": str(project), "hook_event_name": "PostToolUseFailure",
                              "tool_name": "Bash", "tool_input": {"command": "pytest tests/test_api.py"},
                              "error": ""})
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "recording hook (entry file, as installed)": [sys.executable, str(ENTRY), "tool-failure"],
            "recording hook (python -m hindsight_cli.hooks)": [sys.executable, "-m", "hindsight_cli.hooks",
                                                               "tool-failure"],
        }
        for name, argv in cases.items():
            times = sorted(_time(argv, payload, runs, env))
            p90 = times[max(0, int(len(times) * 0.9) - 1)]
            print(f"{name:<48} median {statistics.median(times) * 1000:6.1f} ms   p90 {p90 * 1000:6.1f} ms")
        lines = (project / ".hindsight" / "spool" / "events.jsonl").read_text().count("\n")
        print(f"spooled events: {lines}; store opened: {(project / '.hindsight' / 'ledger.duckdb').exists()}")


if __name__ == "__main__":
    main()
