"""A plain Okapi BM25 over a growing list of texts: the baseline ``hindsight eval replay`` sets beside
hindsight's recall (no embeddings, no ranking signals, no gate)."""

from __future__ import annotations

import math
import re
from collections import Counter

_WORD = re.compile(r"[a-z0-9_]+")


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class BM25:
    """Texts are added one by one; ``top`` ranks them all for a query (k1 1.2, b 0.75)."""

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs: list[Counter[str]] = []
        self.lengths: list[int] = []
        self.df: Counter[str] = Counter()

    def add(self, text: str) -> None:
        counts = Counter(tokens(text))
        self.docs.append(counts)
        self.lengths.append(sum(counts.values()))
        self.df.update(counts.keys())

    def top(self, query: str, k: int) -> list[tuple[int, float]]:
        """The ``k`` best (position, score) pairs with a score above zero, best first."""
        n = len(self.docs)
        if not n:
            return []
        average = sum(self.lengths) / n or 1.0
        words = set(tokens(query)) & self.df.keys()
        idf = {w: math.log(1 + (n - self.df[w] + 0.5) / (self.df[w] + 0.5)) for w in words}
        scored = []
        for position, counts in enumerate(self.docs):
            norm = self.k1 * (1 - self.b + self.b * self.lengths[position] / average)
            score = sum(
                idf[w] * counts[w] * (self.k1 + 1) / (counts[w] + norm)
                for w in words
                if w in counts
            )
            if score > 0:
                scored.append((position, score))
        scored.sort(key=lambda pair: (-pair[1], pair[0]))
        return scored[:k]
