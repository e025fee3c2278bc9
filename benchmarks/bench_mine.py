"""Measure `hindsight mine` (issue 19): parse + write rate with a stand-in embedder, the embedding
rate with the bundled model against the model's own batch rate on the same texts, the summary chain,
reruns, and peak memory on a 1 GB transcript. Not a test (pytest does not collect it); run it by
hand:

    python benchmarks/bench_mine.py [--messages 20000] [--big-mb 1024] [--json]

The transcript is synthetic but shaped like Claude Code's (tool calls and results, failures and
their fixes, Chinese, secrets, web fetches, varied lengths). Everything lives in a temporary
directory.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import transcript_fixtures as tf  # noqa: E402

from hindsight_cli.store import Store  # noqa: E402
from hindsight_cli.transcripts import reader  # noqa: E402
from hindsight_cli.transcripts.base import Reading, Resume, file_unit  # noqa: E402
from hindsight_cli.transcripts.miner import Miner  # noqa: E402
from hindsight_cli.transcripts.records import to_record  # noqa: E402

TOPICS = [
    "weather client",
    "billing service",
    "auth middleware",
    "search index",
    "CI pipeline",
    "CLI parser",
    "数据库迁移",
    "缓存层",
    "payment webhook",
    "log shipper",
]
COMMANDS = [
    "pytest -q tests/test_{m}.py",
    "npm test -- {m}",
    "cargo test {m}",
    "go test ./{m}/...",
    "make {m}",
    "ruff check src/{m}.py",
    "mypy src/{m}.py",
]
ERRORS = [
    "E   AssertionError: expected 200, got 401",
    "ModuleNotFoundError: No module named '{m}'",
    "error[E0308]: mismatched types",
    "FAIL: Test{m} (0.02s) timeout",
    "npm ERR! missing script: {m}",
    "Traceback (most recent call last):\n  File \"src/{m}.py\", line 12\nKeyError: 'token'",
]


class StandIn:
    """An embedder that costs (almost) nothing: measures everything but the embedding."""

    name, dim = "bench/stand-in", 384

    def __init__(self) -> None:
        self.seconds = 0.0

    def embed(self, texts: list[str]) -> np.ndarray:
        started = time.perf_counter()
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            vectors[row, hash(text) % self.dim] = 1.0
        self.seconds += time.perf_counter() - started
        return vectors


class Timed:
    """Wraps a real embedder, counting the time spent in it."""

    def __init__(self, model: Any) -> None:
        self.model, self.name, self.dim, self.seconds = model, model.name, model.dim, 0.0

    def embed(self, texts: list[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.model.embed(texts)
        finally:
            self.seconds += time.perf_counter() - started


def story(messages: int, seed: int = 19) -> list[tf.Turn]:
    """Turns whose messages (prompt, tool calls, tool results, answer) add up to ``messages``."""
    rng, turns, count = random.Random(seed), [], 0
    while count < messages:
        module, topic = f"mod{rng.randint(1, 400)}", rng.choice(TOPICS)
        command = rng.choice(COMMANDS).format(m=module)
        calls = []
        # a failure, fixed in the same exchange or left for a later one
        if rng.random() < 0.2:
            calls.append(
                tf.Call(
                    "shell",
                    {"command": command},
                    False,
                    rng.choice(ERRORS).format(m=module)
                    + "\n"
                    + "stack line\n" * rng.randint(0, 40)
                    + "Exit code 1",
                )
            )
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice(
                ["shell", "read", "edit", "read", "web"]
                if rng.random() < 0.1
                else ["shell", "read", "edit"]
            )
            args = (
                {"command": command}
                if kind == "shell"
                else {"file_path": f"src/{module}.py"}
                if kind != "web"
                else {"url": f"https://docs.example.com/{module}"}
            )
            output = "x = 1\n" * rng.randint(1, 300) + (
                f"token={tf.SECRET}\n" if rng.random() < 0.02 else ""
            )
            calls.append(tf.Call(kind, args, True, output))
        prompt = f"Fix the {topic} in {module}: " + tf.STORY[rng.randrange(5)].prompt * rng.randint(
            1, 4
        )
        answer = f"Done with {module}: the {topic} now passes its checks. " * rng.randint(1, 12)
        turns.append(tf.Turn(prompt, answer, calls))
        count += 2 + 2 * len(calls)
    return turns


def write_transcript(folder: Path, turns: list[tf.Turn]) -> Path:
    path = folder / "-work-bench" / "bench-session.jsonl"
    return tf._jsonl(path, tf.claude_lines(turns, "bench-session", "/work/bench"))


def parse_rate(path: Path) -> dict[str, Any]:
    module, started = reader("claude-code"), time.perf_counter()
    found = [
        to_record(e, client="claude-code", agent=None, max_bytes=16384)
        for e in module.read(file_unit("claude-code", path), Resume(), Reading())
    ]
    seconds = time.perf_counter() - started
    return {
        "exchanges": len(found),
        "parse_s": round(seconds, 3),
        "parse_per_s": round(len(found) / seconds),
    }


def import_floor(store_dir: Path, path: Path) -> float:
    """The store's own rate on the same records: ``import_records`` of all of them (index sync
    included)."""
    records = [
        to_record(e, client="claude-code", agent=None, max_bytes=16384)
        for e in reader("claude-code").read(file_unit("claude-code", path), Resume(), Reading())
    ]
    store = Store(store_dir, embedder=StandIn())
    store.init()
    started = time.perf_counter()
    store.import_records(records)
    store.sync_index()
    return len(records) / (time.perf_counter() - started)


def mine_once(
    store_dir: Path, path: Path, embedder: Any, summaries: bool = False
) -> tuple[Any, float]:
    store = Store(store_dir, embedder=embedder)
    started = time.perf_counter()
    tally = Miner(store, summaries=summaries).mine(
        reader("claude-code"), [file_unit("claude-code", path)]
    )
    return tally, time.perf_counter() - started


def _batch_rate(model: Any, texts: list[str]) -> float:
    """The model's own rate on ``texts``: batches of 256 of similar length, as the store embeds
    them."""
    ordered, started = sorted(texts, key=len), time.perf_counter()
    for start in range(0, len(ordered), 256):
        model.embed(ordered[start : start + 256])
    return len(texts) / (time.perf_counter() - started)


def model_figures(work: Path, messages: int) -> dict[str, Any]:
    """Mining with the bundled model, against the model's batch rate on the same texts, measured
    just before and just after (the machine's load drifts)."""
    from hindsight_cli.embedding import load_embedder

    path = write_transcript(work / "model", story(messages, seed=5))
    model = Timed(load_embedder("default"))
    texts = [
        to_record(e, client="claude-code", agent=None, max_bytes=16384)["content"]
        for e in reader("claude-code").read(file_unit("claude-code", path), Resume(), Reading())
    ]
    # load and warm the model outside the figures
    model.model.embed(texts[:8])
    before = _batch_rate(model.model, texts)
    tally, seconds = mine_once(work / "store-model", path, model)
    batch_rate = (before + _batch_rate(model.model, texts)) / 2
    in_mine = tally.added / model.seconds
    return {
        "model_exchanges": tally.added,
        "model_batch_per_s": round(batch_rate, 1),
        "mine_with_model_per_s": round(tally.added / seconds, 1),
        "embedding_share": round(model.seconds / seconds, 3),
        "embedding_rate_in_mine_per_s": round(in_mine, 1),
        "embedding_vs_batch_rate": round(in_mine / batch_rate, 2),
    }


def peak_memory_mb(work: Path, megabytes: int) -> dict[str, Any]:
    """Mine a transcript of about ``megabytes`` (exchanges whose tool output is 4 MB, which Claude
    Code writes twice: the result and ``toolUseResult``) in a fresh process, and report its peak
    memory."""
    path = work / "big" / "-work-bench" / "big-session.jsonl"
    path.parent.mkdir(parents=True)
    path.touch()
    # written one exchange at a time: the bench stays small too
    for n in range(max(1, megabytes // 8)):
        turn = tf.Turn(
            f"Dump the logs, part {n}",
            "Dumped.",
            [
                tf.Call(
                    "shell",
                    {"command": f"cat log{n}.txt"},
                    n % 7 != 0,
                    "log line of output\n" * 220_000,
                )
            ],
        )
        tf.append(path, tf.claude_lines([turn], "big-session", "/work/bench", offset=n))
    # VmHWM is this process's own peak; ru_maxrss would carry the parent's over fork and exec.
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from bench_mine import StandIn, mine_once\nfrom pathlib import Path\n"
        f"t, s = mine_once(Path({str(work / 'store-big')!r}), Path({str(path)!r}), StandIn())\n"
        "peak = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
        "print(t.added, s, peak)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    return {
        "big_transcript_mb": round(path.stat().st_size / 1e6),
        "big_exchanges": int(out[0]),
        "big_mine_s": round(float(out[1]), 1),
        "big_peak_rss_mb": round(int(out[2]) / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument(
        "--big-mb", type=int, default=0, help="also mine a transcript this big, for peak memory"
    )
    parser.add_argument(
        "--model-messages",
        type=int,
        default=4000,
        help="transcript size for the real model's figures",
    )
    parser.add_argument(
        "--no-model", action="store_true", help="skip the figures with the real model"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hindsight-bench-mine-") as tmp:
        work = Path(tmp)
        turns = story(args.messages)
        path = write_transcript(work / "projects", turns)
        figures: dict[str, Any] = {
            "messages": args.messages,
            "transcript_mb": round(path.stat().st_size / 1e6, 1),
            **parse_rate(path),
        }
        # loads lancedb once for both, as one CLI run would
        floor = import_floor(work / "store-floor", path)
        stand_in = StandIn()
        tally, seconds = mine_once(work / "store", path, stand_in)
        figures.update(
            mine_added=tally.added,
            mine_s=round(seconds, 2),
            mine_per_s=round(tally.added / seconds),
            store_import_per_s=round(floor),
            mine_vs_store_import=round(tally.added / seconds / floor, 2),
            mine_vs_300=round(tally.added / seconds / 300, 2),
            stand_in_embed_s=round(stand_in.seconds, 3),
            fixes=tally.fixes,
            redactions=tally.redactions,
        )
        _, rerun = mine_once(work / "store", path, stand_in)
        tf.append(
            path, tf.claude_lines([tf.EXTRA], "bench-session", "/work/bench", offset=len(turns))
        )
        appended, after_append = mine_once(work / "store", path, stand_in)
        figures.update(
            rerun_nothing_new_s=round(rerun, 3),
            rerun_one_appended_s=round(after_append, 3),
            rerun_one_appended_added=appended.added,
        )
        started = time.perf_counter()
        Store(work / "store", embedder=stand_in).summarize(task_id="bench-session")
        figures["summary_chain_s"] = round(time.perf_counter() - started, 2)
        if not args.no_model:
            figures.update(model_figures(work, args.model_messages))
        if args.big_mb:
            figures.update(peak_memory_mb(work, args.big_mb))
        figures["bench_peak_rss_mb"] = round(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        )
    print(
        json.dumps(figures, indent=2)
        if args.json
        else "\n".join(f"{k:32} {v}" for k, v in figures.items())
    )


if __name__ == "__main__":
    main()
