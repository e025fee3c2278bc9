"""`hindsight bench`: the shape of its output and its errors (timings vary, so none is asserted)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli.evals import benchmark, floor as bench_floor
from hindsight_cli.store import Store

# the CLI here never uses the fixture's store
pytestmark = pytest.mark.no_store

FIGURES = {
    "size",
    "vectors",
    "import_s",
    "import_per_s",
    "embed_batch_per_s",
    "import_share_of_embed",
    "storage_alone_per_s",
    "record_p50_ms",
    "warm_up_s",
    "warm_search_p50_ms",
    "warm_search_p95_ms",
    "warm_after_embedding_p50_ms",
    "warm_after_embedding_p95_ms",
    "floor_embed_p50_ms",
    "floor_topk_p50_ms",
    "floor_bm25_p50_ms",
    "floor_p50_ms",
    "warm_ratio_to_floor",
    "floor_p95_ms",
    "warm_p95_ratio_to_floor_p95",
    "hot_index_mb",
    "hot_bytes_per_memory",
    "index_search_p50_ms",
    "index_search_p95_ms",
    "index_fragments_before_compaction",
    "store_mb_before_compaction",
    "index_fragments_after_compaction",
    "store_mb",
    "index_search_compacted_p50_ms",
    "index_search_compacted_p95_ms",
    "ledger_search_p50_ms",
    "ledger_search_p95_ms",
    "peak_memory_mb",
    "cold_search_median_s",
    "cold_search_peak_memory_mb",
    "cold_record_median_s",
    "cold_help_median_s",
    "floor_python_s",
    "floor_imports_s",
    "floor_query_embedding_s",
    "mcp_initialize_s",
    "floor_mcp_sdk_import_s",
    "mcp_tools_list_ms",
    "mcp_first_search_s",
    "mcp_search_p50_ms",
    "mcp_search_p95_ms",
    "mcp_peak_memory_mb",
    *benchmark.VECTOR_FIGURES,
}


def test_synthetic_memories_are_varied_and_repeatable() -> None:
    memories = benchmark.synthetic(400)
    assert memories == benchmark.synthetic(400)
    assert {m["agent_id"] for m in memories} == {f"agent-{i}" for i in range(5)}
    assert len({m["task_id"] for m in memories}) == 10
    # some Chinese
    assert any("\u4e00" <= ch <= "\u9fff" for m in memories for ch in m["content"])
    assert {m.get("outcome") for m in memories} >= {"failure", "success"}
    assert any(m.get("resolution") for m in memories) and any(
        m.get("type") == "semantic" for m in memories
    )


@pytest.fixture(scope="module")
def report(module_isolated: Path) -> dict[str, Any]:
    """One real run through the CLI, two sizes, the larger with stand-in vectors, that the figure
    tests below read: a run starts processes for its cold figures (each test ran one: 40 s)."""
    from typer.testing import CliRunner

    from hindsight_cli.cli import app

    # without the suite's shared allow-list: the bench's processes must find their store approved
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("HINDSIGHT_ALLOWED_DIR", raising=False)
        result = CliRunner().invoke(
            app,
            ["bench", "--sizes", "20,30", "--runs", "1", "--stand-in-above", "20", "--json"],
            prog_name="hindsight",
        )
    assert result.exit_code == 0, result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.mark.slow
@pytest.mark.xdist_group("bench-report")
def test_bench_json_has_every_figure_per_size(report: dict[str, Any]) -> None:
    assert set(report) == {"machine", "model", "runs", "sizes", "elapsed_s"}
    assert report["runs"] == 1 and report["model"] == "hindsight/all-MiniLM-L6-v2-int8"
    assert [figures["size"] for figures in report["sizes"]] == [20, 30]
    for figures in report["sizes"]:
        assert set(figures) == FIGURES
        # 20 and 30 rows: flat search only
        assert all(figures[name] is None for name in benchmark.VECTOR_FIGURES)
        assert all(
            isinstance(value, (int, float)) and value >= 0
            for name, value in figures.items()
            if value is not None and name != "vectors"
        )
        assert (
            figures["index_fragments_after_compaction"]
            <= figures["index_fragments_before_compaction"]
        )
    assert report["sizes"][0]["vectors"] == "model"
    assert report["sizes"][0]["import_share_of_embed"] > 0


@pytest.mark.slow
@pytest.mark.xdist_group("bench-report")
def test_sizes_above_stand_in_above_are_stored_with_stand_in_vectors(
    report: dict[str, Any],
) -> None:
    small, large = report["sizes"]
    assert (small["vectors"], large["vectors"]) == ("model", "stand-in")
    assert small["embed_batch_per_s"] > 0 and small["import_share_of_embed"] > 0
    # no model to compare with
    assert large["embed_batch_per_s"] is None and large["import_share_of_embed"] is None
    assert (
        large["storage_alone_per_s"] > 0
        and large["warm_search_p50_ms"] > 0
        and large["floor_embed_p50_ms"] > 0
    )


def test_seeded_vectors_are_unit_length_repeatable_and_named_as_the_model(fake: Any) -> None:
    seeded = bench_floor.Seeded(fake)
    first = seeded.embed(["weather API 401", "kubectl timed out"])
    assert (seeded.name, seeded.dim, first.shape) == (fake.name, fake.dim, (2, fake.dim))
    assert abs(float((first * first).sum(axis=1).max()) - 1.0) < 1e-5
    assert (seeded.embed(["kubectl timed out"])[0] == first[1]).all() and not (
        first[0] == first[1]
    ).all()


@pytest.mark.slow
@pytest.mark.xdist_group("bench-report")
def test_bench_table_names_each_figure(
    cli: Any, report: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table of the run above, through the CLI (the same command; only the run is shared)."""
    asked: list[tuple[Any, ...]] = []

    def run(sizes: list[int], runs: int, progress: Any, stand_in_above: int | None) -> Any:
        asked.append((sizes, runs, stand_in_above))
        return report

    monkeypatch.setattr(benchmark, "run", run)
    result = cli("bench", "--sizes", "20,30", "--runs", "1", "--stand-in-above", "20", store=False)
    assert result.exit_code == 0, result.stderr
    assert asked == [([20, 30], 1, 20)]
    rows = [line.replace("┃", " ").replace("│", " ").split() for line in result.stdout.splitlines()]
    assert rows[0] == ["figure", "20", "30"]
    assert {row[0] for row in rows[2:]} == FIGURES - {"size"}
    assert "cold figures are the median of 1 processes" in result.stderr


def test_bad_sizes_fail_with_one_line(cli: Any) -> None:
    for sizes in ("ten", "0", ","):
        result = cli("bench", "--sizes", sizes, store=False)
        assert result.exit_code == 1 and result.stderr.startswith("Error: --sizes"), result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_vector_figures_compare_the_index_with_flat_search(tmp_path: Path, fake: Any) -> None:
    path = tmp_path / "store"
    path.mkdir()
    (path / "config.toml").write_text("[index]\nvector_index_rows = 100\n")
    store = Store(path, embedder=fake, warm=True)
    store.import_records(benchmark.synthetic(400))
    store.sync_index()
    store.index().wait()
    figures = benchmark.vector_figures(store, searches=3, queries=20)
    assert set(figures) == set(benchmark.VECTOR_FIGURES) and figures["vector_index"] == "IVF_SQ"
    assert (
        0.9 <= figures["vector_recall_at_10"] <= 1 and 0.9 <= figures["vector_recall_at_100"] <= 1
    )
    # times are measured, whatever they come to on this machine (a fast one may round to 0)
    timed = [name for name in benchmark.VECTOR_FIGURES[1:] if "recall" not in name]
    assert all(isinstance(figures[name], float) and figures[name] >= 0 for name in timed)


def test_the_model_floor_embeds_every_imported_text_as_import_batches_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The import's share is read against the model doing exactly the import's embedding: every
    record's text once, in import batches sorted by length, a model batch per call (a sample of the
    first records was shorter than the rest, so it flattered the model)."""
    from hindsight_cli.core import embedding_jobs, transfer

    monkeypatch.setattr(transfer, "IMPORT_BATCH", 10)
    monkeypatch.setattr(embedding_jobs, "BATCH", 4)
    calls: list[list[str]] = []

    class Model:
        def embed(self, texts: list[str]) -> None:
            calls.append(list(texts))

    records = [
        {"content": "x" * (25 - i), **({"resolution": "fixed"} if i == 3 else {})}
        for i in range(25)
    ]
    assert bench_floor.embed_rate(Model(), records) > 0
    texts = [r["content"] + ("\nFix: fixed" if r.get("resolution") else "") for r in records]
    # each text once, the fix included
    assert sorted(t for call in calls for t in call) == sorted(texts)
    # batches of 10, 10, 5; calls of 4
    assert [len(call) for call in calls] == [4, 4, 2] * 2 + [4, 1]
    for block in range(3):
        embedded = [t for call in calls[3 * block : 3 * block + 3] for t in call]
        assert embedded == sorted(texts[10 * block : 10 * block + 10], key=len)
