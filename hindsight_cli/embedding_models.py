"""The embedding models by name: the one list that config, ``init``, the runtime, search and
``doctor`` consult, as storage/registry.py is for the backends.

A registered model has its name, short aliases, its dimension, the languages it reads and a loader.
Any other fastembed model is named as on the Hugging Face hub (``owner/name``, e.g.
``BAAI/bge-small-en-v1.5``) and loaded through fastembed when first needed; its dimension is known
once it is loaded. Adding a model is one entry here and an ``Embedder`` (embedding.py) to load.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import InvalidInput

if TYPE_CHECKING:
    from .embedding import Embedder

DEFAULT_MODEL = "hindsight/all-MiniLM-L6-v2-int8"
MULTILINGUAL_MODEL = "hindsight/use-multilingual-v3"
BUNDLED_DIM = 384
MULTILINGUAL_DIM = 512
# a model's name on the hub; hindsight's own names are not there
_HUB_NAME = re.compile(r"[\w.-]+/[\w.-]+")
_OWN = "hindsight/"


@dataclass(frozen=True)
class EmbeddingModel:
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


def _bundled(name: str) -> Embedder:
    from .embedding import BundledEmbedder

    return BundledEmbedder()


def _multilingual(name: str) -> Embedder:
    from .embedding import MultilingualEmbedder

    return MultilingualEmbedder()


def _fastembed(name: str) -> Embedder:
    from .embedding import FastEmbedEmbedder

    return FastEmbedEmbedder(name)


# the 16 languages of the Universal Sentence Encoder, multilingual v3
_USE_LANGUAGES = (
    "ar",
    "de",
    "en",
    "es",
    "fr",
    "it",
    "ja",
    "ko",
    "nl",
    "pl",
    "pt",
    "ru",
    "th",
    "tr",
    "zh-Hans",
    "zh-Hant",
)

MODELS: dict[str, EmbeddingModel] = {
    model.name: model
    for model in (
        EmbeddingModel(
            DEFAULT_MODEL,
            ("default", "minilm"),
            BUNDLED_DIM,
            ("en",),
            "all-MiniLM-L6-v2, int8 ONNX, bundled: English, offline",
            _bundled,
        ),
        EmbeddingModel(
            MULTILINGUAL_MODEL,
            ("multilingual",),
            MULTILINGUAL_DIM,
            _USE_LANGUAGES,
            "Universal Sentence Encoder multilingual v3, from the multilingual extra: 16 "
            "languages, offline",
            _multilingual,
        ),
    )
}

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


def find(name: str) -> EmbeddingModel | None:
    """A registered model by its name or one of its aliases, in any case."""
    wanted = name.strip().lower()
    return next(
        (m for m in MODELS.values() if wanted == m.name.lower() or wanted in m.aliases), None
    )


def hub(name: str) -> EmbeddingModel:
    """A fastembed model named as on the hub, with the languages its name tells."""
    lower = name.lower()
    english = any(tag in lower for tag in _ENGLISH_MODELS)
    return EmbeddingModel(
        name,
        (),
        None,
        ("en",) if english else (),
        "a fastembed model loaded from its cache",
        _fastembed,
    )


def known() -> str:
    """The registered models and their aliases, for a message."""
    return ", ".join(f"{m.name} ({', '.join(m.aliases)})" for m in MODELS.values())


def resolve(name: str, option: str = "[embedding] model") -> EmbeddingModel:
    """The model ``name`` names: a registered one (by its name or an alias), else a fastembed model
    by its hub name (``owner/name``).

    Raises:
        InvalidInput: it is neither (``option`` says where the name was given).
    """
    found = find(name)
    if found is not None:
        return found
    text = name.strip()
    if _HUB_NAME.fullmatch(text) and not text.lower().startswith(_OWN):
        return hub(text)
    raise InvalidInput(
        f"Unknown embedding model {name!r} ({option}). Known models: {known()}; or any fastembed "
        "model by its hub name, e.g. BAAI/bge-small-en-v1.5."
    )


def english_only(name: str) -> bool:
    """Whether a model reads English only: the bundled all-MiniLM-L6-v2 and fastembed's English
    models. Models of unknown languages (an embedder handed in, whatever its name) are taken to read
    any."""
    found = find(name)
    return (found or hub(name)).english_only
