"""Train the injection detector's second reading (``hindsight_cli/poisoning/learned.py``).

    pip install scikit-learn     # not a dependency of hindsight: only this script needs it
    python benchmarks/train_injection_model.py --real /work/replay-data/dev
    python benchmarks/train_injection_model.py --real DIR --exclude t9,t11 --out /tmp/m.npy --score FILE…

What it learns from: every text of the detector's corpus (``tests/data/poisoning``: injections as 1,
benign look-alikes and chat look-alikes as 0), every string of the detector's tests that the rules
alone do not quarantine (the look-alikes the tests decided, as 0; a look-alike weighs 5) and, as 0
at a tenth of the weight, every paragraph of the agent sessions under ``--real`` (mini-swe-agent
trajectories, as ``hindsight eval replay`` reads them: each message's text split at blank lines, the
replay's held-out project never read). Injections weigh as much as all the benign texts together.
A logistic regression (L2, C = 100) over the hashed features ``learned.features`` gives, with the
corpus's inverse document frequencies, the weights written to ``--out`` (one float16 array; the
default is the shipped model).

``--exclude`` leaves the corpus rounds named out and ``--exclude-tests`` the test files written from
them, to measure the model on a blind set those rounds came from; ``--score FILE`` prints, for each
JSON Lines file of ``{"text", …}`` records (an ``injections.jsonl`` or ``benign.jsonl``), how many
reach each threshold. ``--real-half even|odd`` trains on half of the real paragraphs (by their hash)
and reports how many of the other half the model flags.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hindsight_cli.poisoning import learned  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "poisoning"
HELD_OUT_PROJECT = "django"  # the replay's held-out project: never read
REAL_WEIGHT = 0.1
# a decided look-alike weighs five real paragraphs' worth more than one: at 1, C = 100 left three
# of the corpus's look-alikes above the threshold
LOOKALIKE_WEIGHT = 5.0


def _text(record: dict[str, Any]) -> str:
    text = record.get("text")
    if isinstance(text, str):
        return text
    fields = record.get("fields") or {}
    return "\n".join(str(value) for value in fields.values() if value is not None)


def corpus(exclude: set[str]) -> list[tuple[str, int]]:
    out = []
    for name, label in (("injections", 1), ("benign", 0), ("chat_lookalikes", 0)):
        for line in (CORPUS / f"{name}.jsonl").open(encoding="utf-8"):
            if line.strip():
                record = json.loads(line)
                if record.get("round") not in exclude:
                    out.append((_text(record), label))
    return out


# the test files whose strings are the rules' decided cases (the learned reading's own file holds
# injections the rules alone miss, on purpose)
TESTS = ("test_poisoning*.py", "test_injections.py", "test_detector_shortcuts.py")
OWN_TEST = "test_poisoning_learned.py"


def decided_benign(exclude: set[str]) -> list[str]:
    """The strings of the detector's tests that the rules alone do not quarantine: the look-alikes
    the tests decided are benign (and ids, code and the like, benign too). ``exclude`` names test
    files left out."""
    import ast

    from hindsight_cli.poisoning import assess, detect

    saved = learned.MODEL
    learned.MODEL = Path("/nonexistent/learned.npy")
    learned._model.cache_clear()
    detect._short_kinds.cache_clear()
    out: list[str] = []
    try:
        for pattern in TESTS:
            for path in sorted((ROOT / "tests").glob(pattern)):
                if path.name == OWN_TEST or path.name in exclude:
                    continue
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    if (
                        isinstance(node, ast.Constant)
                        and isinstance(node.value, str)
                        and len(node.value) >= 24
                        and assess({"content": node.value}, "web") is None
                    ):
                        out.append(node.value)
    finally:
        learned.MODEL = saved
        learned._model.cache_clear()
        detect._short_kinds.cache_clear()
    return sorted(set(out))


def real_paragraphs(root: Path) -> list[str]:
    """Each paragraph of each message of each session under ``root``, once."""
    seen: set[str] = set()
    out = []
    for session in sorted(root.iterdir()):
        if HELD_OUT_PROJECT in session.name:
            continue
        for path in sorted(session.glob("*.json")):
            for message in json.loads(path.read_text(encoding="utf-8")).get("messages", []):
                content = message.get("content")
                if isinstance(content, list):
                    content = "\n".join(
                        part.get("text", "") for part in content if isinstance(part, dict)
                    )
                for paragraph in str(content or "").split("\n\n"):
                    paragraph = paragraph.strip()[: learned.MAX_CHARS]
                    if paragraph and paragraph not in seen:
                        seen.add(paragraph)
                        out.append(paragraph)
    return out


def _half(text: str) -> str:
    return (
        "even"
        if hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest()[0] % 2 == 0
        else "odd"
    )


def matrices(texts: list[str]) -> tuple[Any, Any]:
    """The char and word term-frequency matrices (sparse, rows = texts)."""
    from scipy.sparse import csr_matrix

    out = []
    rows: list[list[tuple[dict[int, float], dict[int, float]]]] = [
        [learned.features(t) for t in texts]
    ]
    for kind in (0, 1):
        indptr, indices, values = [0], [], []
        for found in rows[0]:
            part = found[kind]
            indices.extend(part)
            values.extend(part.values())
            indptr.append(len(indices))
        out.append(csr_matrix((values, indices, indptr), shape=(len(texts), learned.DIM)))
    return out[0], out[1]


def _idf(tf: Any) -> np.ndarray:
    df = np.bincount(tf.indices, minlength=learned.DIM)
    n = tf.shape[0]
    return np.log((1 + n) / (1 + df)) + 1.0


def _weighted(tf: Any, idf: np.ndarray) -> Any:
    from sklearn.preprocessing import normalize

    return normalize(tf.multiply(idf).tocsr())


def train(texts: list[str], labels: np.ndarray, weights: np.ndarray, c: float) -> np.ndarray:
    from scipy.sparse import hstack
    from sklearn.linear_model import LogisticRegression

    chars, words = matrices(texts)
    char_idf, word_idf = _idf(chars), _idf(words)
    x = hstack([_weighted(chars, char_idf), _weighted(words, word_idf)]).tocsr()
    model = LogisticRegression(C=c, max_iter=5000).fit(x, labels, sample_weight=weights)
    w = model.coef_[0]
    return np.concatenate(
        [char_idf, word_idf, w[: learned.DIM], w[learned.DIM :], model.intercept_[:1]]
    ).astype(np.float16)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", type=Path, required=True, help="agent sessions (benign text)")
    parser.add_argument("--exclude", default="", help="corpus rounds left out, comma-separated")
    parser.add_argument("--exclude-tests", default="", help="test files left out, comma-separated")
    parser.add_argument("--real-half", choices=("even", "odd"))
    parser.add_argument("--c", type=float, default=100.0)
    parser.add_argument("--lookalike-weight", type=float, default=LOOKALIKE_WEIGHT)
    parser.add_argument("--out", type=Path, default=learned.MODEL)
    parser.add_argument("--score", type=Path, nargs="*", default=[])
    args = parser.parse_args()
    labelled = corpus({r for r in args.exclude.split(",") if r})
    labelled += [(t, 0) for t in decided_benign(set(args.exclude_tests.split(",")))]
    real = real_paragraphs(args.real)
    kept = [t for t in real if args.real_half is None or _half(t) == args.real_half]
    texts = [t for t, _ in labelled] + kept
    labels = np.array([y for _, y in labelled] + [0] * len(kept))
    weights = np.array(
        [1.0 if y else args.lookalike_weight for _, y in labelled] + [REAL_WEIGHT] * len(kept)
    )
    benign = weights[labels == 0].sum()
    weights = np.where(labels == 1, benign / max(int(labels.sum()), 1), weights)
    print(
        f"{int(labels.sum())} injections, {len(labelled) - int(labels.sum())} look-alikes, "
        f"{len(kept)} real paragraphs",
        file=sys.stderr,
    )
    np.save(args.out, train(texts, labels, weights, args.c))
    learned._model.cache_clear()
    learned.MODEL = args.out
    thresholds = (0.9, 0.95, 0.97, 0.98, 0.99)

    def reached(items: list[str]) -> str:
        p = np.array([learned.probability(t) for t in items])
        return "  ".join(f"≥{t}: {int((p >= t).sum())}" for t in thresholds)

    if args.real_half is not None:
        other = [t for t in real if _half(t) != args.real_half]
        print(f"real paragraphs not trained on ({len(other)}): {reached(other)}")
    for path in args.score:
        items = [_text(json.loads(line)) for line in path.open(encoding="utf-8") if line.strip()]
        print(f"{path} ({len(items)}): {reached(items)}")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)


if __name__ == "__main__":
    main()
