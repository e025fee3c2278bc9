"""Leaks, false positives and time per call of the redaction rules over the corpus in tests/data.

    python benchmarks/redaction_corpus.py [--baseline REV] [--detect-secrets] [--show] [--runs 5]

Secrets: tests/data/secrets.txt plus the items of tests/test_secrets.py; look-alikes:
tests/data/lookalikes.txt plus its ORDINARY texts. A leak is an item whose secret (any 8 characters
of it) survives; a false positive is a look-alike that comes out changed. Times are per ``redact``
call, warm (patterns compiled), p50 and p95 over ``--runs`` passes, and cold (a fresh process that
redacts each item once: what a recording hook pays, imports and compiling included).
``--baseline REV`` runs a commit's redact.py or redact/ the same way (say b2449a3, the rules before
issue 16, or 948414b, before issue 31's round review-3);
``--detect-secrets`` runs Yelp's detect-secrets (its default plugins and filters, each text scanned
as a file) as a redactor. No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import secret_corpus  # noqa: E402
from secret_corpus import Item  # noqa: E402

Redactor = Callable[[str], str]


def corpus() -> tuple[list[Item], list[str]]:
    """(secret items, look-alike texts), the data files and the test module's own."""
    import test_secrets

    secrets = secret_corpus.load("secrets.txt") + [
        Item(n, t, tuple(s)) for n, t, s in test_secrets.CORPUS
    ]
    lookalikes = [i.text for i in secret_corpus.load("lookalikes.txt")] + list(
        test_secrets.ORDINARY
    )
    return secrets, lookalikes


def _module(rev: str) -> types.ModuleType:
    """A commit's redaction rules: its ``redact.py``, or its ``redact/`` package (imported under
    another name, beside this checkout's)."""
    shown = subprocess.run(
        ["git", "show", f"{rev}:hindsight_cli/redact.py"], cwd=ROOT, capture_output=True, text=True
    )
    if shown.returncode == 0:
        module = types.ModuleType(f"redact_{rev}")
        exec(compile(shown.stdout, f"{rev}:redact.py", "exec"), module.__dict__)  # noqa: S102 (our own history)
        return module
    import importlib.util
    import io
    import tarfile
    import tempfile

    archive = subprocess.run(
        ["git", "archive", rev, "hindsight_cli/redact"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    folder = Path(tempfile.mkdtemp())
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / "hindsight_cli" / "redact"
    name = f"redact_{rev}"
    spec = importlib.util.spec_from_file_location(
        name, package / "__init__.py", submodule_search_locations=[str(package)]
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _detect_secrets() -> Redactor:
    """detect-secrets as a redactor: each text written to a file and scanned as the CLI scans a file
    (its default plugins and filters, the entropy limits), every value it reports replaced."""
    import tempfile

    from detect_secrets.core.scan import scan_file
    from detect_secrets.settings import default_settings

    folder = Path(tempfile.mkdtemp())

    def run(text: str) -> str:
        path = folder / "item.txt"
        path.write_text(text, encoding="utf-8")
        with default_settings():
            found = {s.secret_value for s in scan_file(str(path)) if s.secret_value}
        for value in sorted(found, key=len, reverse=True):
            text = text.replace(value, "[REDACTED]")
        return text

    return run


def evaluate(name: str, redactor: Redactor, runs: int, show: bool) -> None:
    secrets, lookalikes = corpus()
    leaked = [(i, secret_corpus.leaks(redactor(i.text), i)) for i in secrets]
    leaked = [(i, pieces) for i, pieces in leaked if pieces]
    changed = [(t, redactor(t)) for t in lookalikes]
    changed = [(t, out) for t, out in changed if out != t]
    times = []
    for _ in range(runs):
        for text in [i.text for i in secrets] + lookalikes:
            start = time.perf_counter()
            redactor(text)
            times.append((time.perf_counter() - start) * 1e6)
    times.sort()
    print(f"{name}: {len(secrets)} secret items, {len(lookalikes)} look-alikes")
    print(f"  leaks: {len(leaked)}   false positives: {len(changed)}")
    print(
        f"  warm per call: p50 {statistics.median(times):.0f} us, p95 "
        f"{times[int(len(times) * 0.95)]:.0f} us"
    )
    if show:
        for item, pieces in leaked:
            print(f"  LEAK  {item.name}: {pieces[0][:24]!r}")
        for text, out in changed:
            print(f"  FP    {text[:70]!r}\n     -> {out[:70]!r}")


def cold(rev: str | None) -> None:
    """One fresh interpreter that imports the rules and redacts every item once."""
    load = (
        f"sys.path.insert(0,'{ROOT / 'benchmarks'}');import redaction_corpus as b;"
        f"redact=b._module('{rev}').redact"
        if rev
        else "from hindsight_cli.redact import redact"
    )
    code = (
        f"import sys,time;sys.path[:0]=['{ROOT}','{ROOT / 'tests'}'];t0=time.perf_counter();{load};"
        "import secret_corpus as c;texts=[i.text for i in "
        "c.load('secrets.txt')+c.load('lookalikes.txt')];"
        "t1=time.perf_counter();[redact(x) for x in texts];t2=time.perf_counter();"
        "print(f'  cold: import {(t1-t0)*1e3:.1f} ms (with the corpus), first pass "
        "{(t2-t1)*1e3:.1f} ms'"
        " f' over {len(texts)} texts ({(t2-t1)*1e6/len(texts):.0f} us each)')"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--baseline", help="A commit whose hindsight_cli/redact.py to measure too (e.g. b2449a3)."
    )
    parser.add_argument(
        "--detect-secrets", action="store_true", help="Measure detect-secrets as a redactor too."
    )
    parser.add_argument("--show", action="store_true", help="Print each leak and false positive.")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only-detect-secrets", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    from hindsight_cli.redact import redact

    if not args.only_detect_secrets:
        evaluate("hindsight (this checkout)", lambda t: redact(t)[0], args.runs, args.show)
        cold(None)
    if args.baseline:
        module = _module(args.baseline)
        evaluate(
            f"hindsight at {args.baseline}", lambda t: module.redact(t)[0], args.runs, args.show
        )
        cold(args.baseline)
    if args.detect_secrets:
        evaluate(
            "detect-secrets (default plugins)", _detect_secrets(), max(1, args.runs // 5), args.show
        )


if __name__ == "__main__":
    main()
