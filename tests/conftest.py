"""Isolation for every test (HINDSIGHT_HOME and cwd in tmp_path) and the shared fixtures."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pytest
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.store import Store
from hindsight_cli.text import terms

REPO = Path(__file__).resolve().parent.parent


class FakeEmbedder:
    """Deterministic: a text's vector is the normalised sum of one pseudo-random vector per keyword term,
    so texts that share words are similar and ranking assertions are exact."""

    name = "test/fake-embedder"
    dim = 32

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            vec = np.zeros(self.dim, dtype=np.float64)
            for term in terms(text) or [text]:
                seed = int.from_bytes(hashlib.sha256(term.encode()).digest()[:4], "little")
                vec += np.random.default_rng(seed).standard_normal(self.dim)
            rows.append(vec / max(np.linalg.norm(vec), 1e-12))
        return np.asarray(rows, dtype=np.float32)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    work = tmp_path / "work"
    work.mkdir()
    for name in list(os.environ):
        if name.startswith("HINDSIGHT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(work)
    return work


@pytest.fixture(scope="session")
def real_embedder(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The bundled model, loaded once per test session from a session cache dir."""
    previous = os.environ.get("HINDSIGHT_HOME")
    os.environ["HINDSIGHT_HOME"] = str(tmp_path_factory.mktemp("model-home"))
    try:
        model = embedding.BundledEmbedder()
    finally:
        if previous is None:
            del os.environ["HINDSIGHT_HOME"]
        else:
            os.environ["HINDSIGHT_HOME"] = previous
    return model


@pytest.fixture(autouse=True)
def _share_model(real_embedder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every Store that loads the default model in this process gets the session's instance.
    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, real_embedder)


@pytest.fixture
def fake() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def store(tmp_path: Path, fake: FakeEmbedder) -> Store:
    """A fresh store with the fake embedder."""
    s = Store(tmp_path / "store", embedder=fake)
    s.init()
    return s


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home directory for tests of client config files, with the OS overrides cleared."""
    home = tmp_path / "fake-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "APPDATA", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


class Cli:
    """Runs `hindsight` in-process through the real error boundary, with stdout and stderr apart."""

    def __init__(self, store_path: Path) -> None:
        self.runner = CliRunner()
        self.store_path = store_path

    def __call__(self, *args: str, input: str | None = None, store: bool = True) -> Any:
        from hindsight_cli.cli import app

        argv = list(args)
        if store and "--store" not in argv and argv and argv[0] not in ("where", "--help", "--version"):
            argv += ["--store", str(self.store_path)]
        return self.runner.invoke(app, argv, input=input, prog_name="hindsight")

    def open(self) -> Store:
        return Store(self.store_path)


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path / "cli-store")
