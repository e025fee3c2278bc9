"""`hindsight eval locomo`: loading LoCoMo-format data, the recall figures, the command's output."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli.errors import InvalidInput
from hindsight_cli.evals import locomo as evaluation

# the CLI here never uses the fixture's store
pytestmark = pytest.mark.no_store


def _turn(speaker: str, dia_id: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"speaker": speaker, "dia_id": dia_id, "text": text, **extra}


# A tiny conversation pair in LoCoMo's shape, with the data's quirks: split and malformed evidence
# ids, ids that point at no turn, a question without evidence, a category-5 question, a session with
# a date-time but no turns, and an image caption.
CONVERSATIONS = [
    {
        "sample_id": "conv-a",
        "conversation": {
            "speaker_a": "Alice",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                _turn("Alice", "D1:1", "I adopted a puppy named Biscuit last weekend."),
                _turn("Bob", "D1:2", "Congrats! I started learning the violin."),
                _turn(
                    "Alice",
                    "D1:3",
                    "My sister lives in Lisbon now.",
                    blip_caption="a photo of a tram on a hill",
                    img_url=["https://example.invalid/tram.jpg"],
                    query="lisbon tram",
                ),
                _turn("Bob", "D1:4", "I'm training for a marathon in October."),
            ],
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": [
                _turn("Alice", "D2:1", "Biscuit chewed my running shoes."),
                _turn("Bob", "D2:2", "The violin teacher says I'm improving."),
                _turn("Alice", "D2:3", "We visited my sister in Lisbon."),
            ],
            "session_3_date_time": "9:00 am on 1 January, 2024",
            "session_3": [],
        },
        "qa": [
            {
                "question": "What is the name of Alice's puppy?",
                "answer": "Biscuit",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "Where does Alice's sister live?",
                "answer": "Lisbon",
                "evidence": ["D1:3; D2:3"],
                "category": 1,
            },
            {
                "question": "What instrument is Bob learning?",
                "answer": "violin",
                "evidence": ["D:2:2", "D1:02", "D7:1"],
                "category": 2,
            },
            {
                "question": "Did Alice mention her tram photo?",
                "adversarial_answer": "no",
                "evidence": ["D1:3"],
                "category": 5,
            },
            {
                "question": "What did Alice adopt, and what does Zed eat?",
                "answer": "a puppy",
                "evidence": ["D1:1 D1:4"],
                "category": 3,
            },
            {
                "question": "Would Zed enjoy opera?",
                "answer": "unknown",
                "evidence": ["D1:4"],
                "category": 3,
            },
            {
                "question": "What is Bob's favourite colour?",
                "answer": "blue",
                "evidence": [],
                "category": 3,
            },
            {
                "question": "What happened in session nine?",
                "answer": "?",
                "evidence": ["D9:9", "D"],
                "category": 4,
            },
        ],
    },
    {
        "sample_id": "conv-b",
        "conversation": {
            "speaker_a": "Carol",
            "speaker_b": "Dan",
            "session_1_date_time": "8:00 pm on 3 March, 2022",
            "session_1": [
                _turn("Carol", "D1:1", "My puppy is called Rex."),
                _turn("Dan", "D1:2", "Rex is a great name for a puppy."),
            ],
        },
        "qa": [
            {
                "question": "What is the name of Carol's puppy?",
                "answer": "Rex",
                "evidence": ["D1:1"],
                "category": 4,
            }
        ],
    },
]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(CONVERSATIONS))
    return path


def test_loading_repairs_evidence_and_skips_what_cannot_be_scored(data: Path) -> None:
    first, second = evaluation.load_locomo(data)
    assert first.sample_id == "conv-a" and first.agent == "locomo-conv-a"
    assert [q.evidence for q in first.questions] == [
        ("D1:1",),
        ("D1:3", "D2:3"),
        ("D2:2", "D1:2"),
        ("D1:3",),
        ("D1:1", "D1:4"),
        ("D1:4",),
    ]
    assert [q.category for q in first.questions] == [4, 1, 2, 5, 3, 3]
    # no evidence; evidence that points at no turn
    assert first.skipped == 2
    # the last session with turns, not session_3
    assert first.now == datetime(2023, 6, 20, 10, 0)
    assert len(first.records) == 7 and len(second.records) == 2
    tram = first.records[2]
    assert (
        tram["content"]
        == "Alice: My sister lives in Lisbon now. [image: a photo of a tram on a hill]"
    )
    assert (tram["task_id"], tram["step"], tram["metadata"]["dia_id"]) == ("session_1", 3, "D1:3")
    assert tram["event_at"] == datetime(2023, 5, 8, 13, 56)
    assert first.records[4]["task_id"] == "session_2" and first.records[4]["event_at"] == datetime(
        2023, 6, 20, 10, 0
    )


def test_keyword_recall_per_category_and_overall(data: Path, fake: Any) -> None:
    report = evaluation.evaluate(evaluation.load_locomo(data), mode="keyword", embedder=fake)
    assert (report.questions, report.skipped, report.memories, report.conversations) == (7, 2, 9, 2)
    # Conversations are scoped apart: Carol's puppy never answers the question about Alice's.
    # Every question whose evidence shares a word with it is found; "Zed" and "opera" are in no
    # turn. But Bob's marathon turn (D1:4) follows Alice's tram photo, which the adoption question
    # matches by "Alice": a neighbour, it joins the hits after the first five, so that question
    # finds both its turns at @10; the "opera" question still finds none.
    assert report.overall == {
        "recall@5": 0.7857,
        "recall@10": 0.8571,
        "recall@25": 0.8571,
        "any@5": 0.8571,
        "any@10": 0.8571,
        "any@25": 0.8571,
        "all@5": 0.7143,
        "all@10": 0.8571,
        "all@25": 0.8571,
    }
    assert report.by_category["open-domain"] == {
        "recall@5": 0.25,
        "recall@10": 0.5,
        "recall@25": 0.5,
        "any@5": 0.5,
        "any@10": 0.5,
        "any@25": 0.5,
        "all@5": 0.0,
        "all@10": 0.5,
        "all@25": 0.5,
        "questions": 2,
    }
    for name in ("multi-hop", "temporal", "single-hop", "adversarial"):
        assert report.by_category[name]["recall@5"] == 1.0
    assert report.by_category["single-hop"]["questions"] == 2


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_the_figures_are_those_of_one_plain_search_per_question(
    data: Path, fake: Any, tmp_path: Path, mode: str
) -> None:
    # The evaluation embeds the questions up front and keeps one ledger connection open; neither may
    # change a figure: the same searches, one `Store.search` at a time, give the same report.
    from hindsight_cli.models import Filters
    from hindsight_cli.store import Store

    conversations = evaluation.load_locomo(data)
    report = evaluation.evaluate(
        conversations, mode=mode, embedder=fake, store_dir=tmp_path / "kept"
    )
    store = Store(tmp_path / "kept", embedder=fake)
    scores = []
    for conv in conversations:
        for question in conv.questions:
            hits = store.search(
                question.text,
                filters=Filters(agent_ids=(conv.agent,)),
                k=25,
                mode=mode,
                now=conv.now,
            ).hits
            scores.append(
                evaluation._scores(question.evidence, [h.memory.metadata["dia_id"] for h in hits])
            )
    assert report.overall == evaluation._mean(scores)


def test_recall_counts_the_share_of_evidence_in_the_top_k() -> None:
    scores = evaluation._scores(
        ("D1:1", "D1:2", "D1:3", "D1:4"), ["D1:1", "D2:1", "D2:2", "D2:3", "D2:4", "D1:2"]
    )
    assert (scores["recall@5"], scores["recall@10"], scores["any@5"], scores["all@10"]) == (
        0.25,
        0.5,
        1.0,
        0.0,
    )


def test_store_dir_keeps_the_store_and_a_rerun_reuses_it(
    data: Path, fake: Any, tmp_path: Path
) -> None:
    conversations = evaluation.load_locomo(data, limit=1)
    first = evaluation.evaluate(
        conversations, mode="keyword", embedder=fake, store_dir=tmp_path / "kept"
    )
    again = evaluation.evaluate(
        conversations, mode="keyword", embedder=fake, store_dir=tmp_path / "kept"
    )
    assert first.overall == again.overall and first.conversations == 1
    from hindsight_cli.store import Store

    assert Store(tmp_path / "kept", embedder=fake).stats()["memories"] == 7


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_store_dir_set_up_for_postgres_is_evaluated_there(
    data: Path, fake: Any, tmp_path: Path, postgres_url: str, mode: str
) -> None:
    from conftest import postgres_store_dir

    from hindsight_cli.paths import LEDGER_FILE
    from hindsight_cli.store import Store

    conversations = evaluation.load_locomo(data)
    local = evaluation.evaluate(conversations, mode=mode, embedder=fake)
    team = postgres_store_dir(tmp_path / "team", postgres_url)
    report = evaluation.evaluate(conversations, mode=mode, embedder=fake, store_dir=team)
    store = Store(team, embedder=fake)
    assert not store.ledger.capabilities.files and store.stats()["memories"] == 9
    assert not (team / LEDGER_FILE).exists()
    assert report.overall == local.overall and report.by_category == local.by_category


def test_ranking_overrides_are_typed_and_checked() -> None:
    assert evaluation.ranking_overrides(["vector_weight=0.6", "candidates=80", "fusion=rrf"]) == {
        "vector_weight": 0.6,
        "candidates": 80,
        "fusion": "rrf",
    }
    with pytest.raises(InvalidInput, match="ranking setting"):
        evaluation.ranking_overrides(["nonsense=1"])
    with pytest.raises(InvalidInput, match="needs a int"):
        evaluation.ranking_overrides(["candidates=many"])


def test_cli_json_has_the_documented_keys(cli: Any, data: Path) -> None:
    result = cli("eval", "locomo", str(data), "--json", store=False)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    for key in (
        "recall@5",
        "recall@10",
        "recall@25",
        "any@10",
        "all@10",
        "by_category",
        "questions",
        "mode",
        "model",
        "elapsed_s",
    ):
        assert key in report
    assert list(report["by_category"]) == [
        "multi-hop",
        "temporal",
        "open-domain",
        "single-hop",
        "adversarial",
    ]
    assert report["mode"] == "hybrid" and report["model"] == "hindsight/all-MiniLM-L6-v2-int8"
    assert report["questions"] == 7 and report["skipped_questions"] == 2
    assert 0.0 <= report["recall@5"] <= report["recall@10"] <= report["recall@25"] <= 1.0


def test_cli_table_modes_and_overrides(cli: Any, data: Path) -> None:
    result = cli(
        "eval",
        "locomo",
        str(data),
        "--mode",
        "keyword",
        "--set",
        "candidates=10",
        "--limit-conversations",
        "1",
        store=False,
    )
    assert result.exit_code == 0, result.stderr
    cells = [
        line.replace("┃", " ").replace("│", " ").split() for line in result.stdout.splitlines()
    ]
    assert cells[0] == [
        "category",
        "questions",
        "recall@5",
        "recall@10",
        "recall@25",
        "any@10",
        "all@10",
    ]
    assert [row[0] for row in cells[2:7]] == [
        "multi-hop",
        "temporal",
        "open-domain",
        "single-hop",
        "adversarial",
    ]
    assert cells[4] == ["open-domain", "2", "0.250", "0.500", "0.500", "0.500", "0.500"]
    assert cells[-1] == ["overall", "6", "0.750", "0.833", "0.833", "0.833", "0.833"]
    assert (
        "keyword search" in result.stderr
        and "6 questions (2 without usable evidence skipped)" in result.stderr
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "Cannot read"),
        ("{not json", "is not JSON"),
        ('{"sample_id": "x"}', "expected a non-empty JSON list"),
        (
            json.dumps(
                [
                    {
                        "sample_id": "x",
                        "conversation": {
                            "session_1": [{"speaker": "A", "text": "hi", "dia_id": "D1:1"}],
                            "session_1_date_time": "yesterday",
                        },
                    }
                ]
            ),
            "Cannot read the session date-time 'yesterday'",
        ),
    ],
)
def test_bad_files_fail_with_one_line(
    cli: Any, tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    result = cli("eval", "locomo", str(path), store=False)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_bad_options_fail_before_any_work(cli: Any, data: Path) -> None:
    result = cli("eval", "locomo", str(data), "--mode", "fuzzy", store=False)
    assert (
        result.exit_code == 2
        and "'fuzzy' is not one of 'hybrid', 'vector', 'keyword'" in result.stderr
    )
    result = cli("eval", "locomo", str(data), "--set", "w_recency", store=False)
    assert result.exit_code == 1 and "--set expects NAME=VALUE" in result.stderr


def test_a_category_without_questions_shows_n_a_not_zero(cli: Any, tmp_path: Path) -> None:
    conversations = json.loads(json.dumps(CONVERSATIONS))
    # no adversarial question left
    for conversation in conversations:
        conversation["qa"] = [q for q in conversation["qa"] if q["category"] != 5]
    path = tmp_path / "no-adversarial.json"
    path.write_text(json.dumps(conversations))
    result = cli("eval", "locomo", str(path), "--mode", "keyword", store=False)
    assert result.exit_code == 0, result.stderr
    rows = {
        cells[0]: cells[1:]
        for cells in (line.replace("│", " ").split() for line in result.stdout.splitlines())
        if cells
    }
    assert rows["adversarial"] == ["0", *["n/a"] * 5], result.stdout
    assert rows["multi-hop"][0] != "0" and "n/a" not in rows["multi-hop"]
    assert "n/a" not in rows["overall"]


def test_session_evidence_is_read_as_mempalace_reads_it() -> None:
    # re.match(r"D(\d+):") on each evidence string, not repaired: a split string gives its first
    # session, a malformed one none, a session the conversation lacks still counts.
    assert evaluation.session_evidence(["D1:3; D2:3"]) == ("1",)
    assert evaluation.session_evidence(["D:2:2", "D1:02", "D7:1"]) == ("1", "7")
    assert evaluation.session_evidence(["D9:9", "D"]) == ("9",)
    assert evaluation.session_evidence([]) == () and evaluation.session_evidence(None) == ()


def test_session_recall_counts_evidence_sessions_among_the_first_ten_sessions_of_the_hits() -> None:
    # session 2 is the 11th distinct one
    hits = [f"D{s}:1" for s in (3, 3, 1, 4, 5, 6, 7, 8, 9, 10, 11, 2)]
    assert evaluation.session_recall(("1", "2"), hits) == 0.5
    assert evaluation.session_recall(("2",), hits, k=11) == 1.0
    # a question with no evidence session, as MemPalace scores it
    assert evaluation.session_recall((), []) == 1.0


def test_cli_reports_session_level_recall_over_every_question(cli: Any, data: Path) -> None:
    result = cli("eval", "locomo", str(data), "--mode", "keyword", "--json", store=False)
    assert result.exit_code == 0, result.stderr
    sessions = json.loads(result.stdout)["sessions"]
    # 9 questions: the 7 scored, the one without evidence (1.0) and the one whose turns do not exist
    # (0.0). Found: every question but "Would Zed enjoy opera?" (no shared word); Bob's violin has
    # sessions 1 and 7.
    assert (sessions["questions"], sessions["recall@10"]) == (9, round(6.5 / 9, 4))
    table = cli("eval", "locomo", str(data), "--mode", "keyword", store=False)
    assert "Session-level recall@10" in table.stderr and "0.722 over 9 questions" in table.stderr
