"""The tests' stand-in embedder, in a module of its own: the processes tests start (a driver
running the CLI, a server) import it alone, not conftest's fixtures, pytest and the store (a
sixth of a second a process)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hindsight_cli.text import terms

if TYPE_CHECKING:
    import numpy as np


class FakeEmbedder:
    """Deterministic: a text's vector is the normalised sum of one pseudo-random vector per keyword
    term, so texts that share words are similar and ranking assertions are exact."""

    name = "test/fake-embedder"
    dim = 32

    def __init__(self, name: str | None = None, dim: int | None = None) -> None:
        # under another model's name and dimension: a stand-in for it
        self.name, self.dim = name or self.name, dim or self.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        rows = []
        for text in texts:
            vec = np.zeros(self.dim, dtype=np.float64)
            for term in terms(text) or [text]:
                seed = int.from_bytes(hashlib.sha256(term.encode()).digest()[:4], "little")
                vec += np.random.default_rng(seed).standard_normal(self.dim)
            rows.append(vec / max(np.linalg.norm(vec), 1e-12))
        return np.asarray(rows, dtype=np.float32)
