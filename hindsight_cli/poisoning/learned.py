"""A second reading of a text the rules let through: a linear model over its character and word
n-grams, trained on the detector's corpus and on real agent text (``benchmarks/train_injection_model.py``).

The rules (``detect``) know how an instruction is built; the model knows what injections and the
texts around an agent look like, and it reads paraphrases the rules' vocabulary has not met. It can
only add a quarantine, never take one away (a linear model is easy to steer down by padding a text
with ordinary words, so it is not trusted to clear what the rules flag), and only to a text in which
the rules found one signal of the two a quarantine needs: alone it reads cheerful chat ("You've got
this, keep it up!") as an address to the reader. docs/reliability.md gives what it adds, held out.

The features are hashed (``zlib.crc32``, no vocabulary to ship): character 2- to 5-grams of each
word with a space on both sides, and word 1- and 2-grams, both lowercased, with sublinear term
frequencies, inverse document frequencies of the training corpus, and each kind L2-normalised, as
scikit-learn's ``char_wb`` and word ``TfidfVectorizer`` do. ``features`` is the one definition the
training script and the detector share."""

from __future__ import annotations

import math
import re
import zlib
from collections import Counter
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# buckets per kind of feature; a power of two
BITS = 18
DIM = 1 << BITS
# the model reads a text's first characters only: the rules read all of it, and a page of text
# says what it is long before its end (reading 4,000 characters takes a few milliseconds)
MAX_CHARS = 4000
# what the model must reach to complete a half-flagged text: the lowest of 0.5-0.9 that quarantined no
# benign text of two blind sets (tune-9, tune-11) with the model trained without them
THRESHOLD = 0.8
MODEL = Path(__file__).with_name("learned.npy")

_WORDS = re.compile(r"\w+|[^\w\s]")


def _buckets(grams: Counter[str]) -> dict[int, float]:
    """Each gram's bucket with its sublinear frequency (grams of one bucket add up)."""
    out: dict[int, float] = {}
    mask = DIM - 1
    for gram, count in grams.items():
        bucket = zlib.crc32(gram.encode("utf-8", "surrogatepass")) & mask
        out[bucket] = out.get(bucket, 0.0) + 1.0 + math.log(count)
    return out


def features(text: str) -> tuple[dict[int, float], dict[int, float]]:
    """The character and the word features of ``text`` (bucket -> sublinear term frequency)."""
    text = text[:MAX_CHARS].lower()
    chars: Counter[str] = Counter()
    for word in text.split():
        padded = f" {word} "
        size = len(padded)
        for n in range(2, 6):
            if size < n:
                break
            chars.update(padded[i : i + n] for i in range(size - n + 1))
    tokens = _WORDS.findall(text)
    words: Counter[str] = Counter(tokens)
    words.update(f"{a} {b}" for a, b in pairwise(tokens))
    return _buckets(chars), _buckets(words)


@cache
def _model() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float] | None:
    """The inverse document frequencies and the weights of each kind, and the bias: one float16
    array, mapped rather than read (a hook that needs it pays no load). None when the file is
    missing or of another shape: the rules then judge alone, as before the model (it only adds)."""
    import numpy as np

    try:
        with MODEL.open("rb") as file:
            if file.read(6) != b"\x93NUMPY":
                return None
        data = np.load(MODEL, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if data.shape != (4 * DIM + 1,) or data.dtype != np.float16:
        return None
    char_idf, word_idf, char_w, word_w = (data[i * DIM : (i + 1) * DIM] for i in range(4))
    return char_idf, word_idf, char_w, word_w, float(data[4 * DIM])


def _part(found: dict[int, float], idf: np.ndarray, weights: np.ndarray) -> float:
    """The dot product of one kind's normalised tf-idf vector with its weights."""
    if not found:
        return 0.0
    import numpy as np

    at = np.fromiter(found, dtype=np.int64, count=len(found))
    values = np.fromiter(found.values(), dtype=np.float64, count=len(found)) * idf[at]
    norm = float(np.sqrt(values @ values))
    return float(values @ weights[at].astype(np.float64)) / norm if norm > 0 else 0.0


def probability(text: str) -> float:
    """How sure the model is that ``text`` is an injection, 0 to 1 (0 without a model)."""
    model = _model()
    if model is None:
        return 0.0
    char_idf, word_idf, char_w, word_w, bias = model
    chars, words = features(text)
    z = bias + _part(chars, char_idf, char_w) + _part(words, word_idf, word_w)
    return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
