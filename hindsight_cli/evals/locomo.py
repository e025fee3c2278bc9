"""Retrieval quality on LoCoMo-format data (``hindsight eval locomo``): evidence recall@k per
category.

Each conversation is recorded into a scope of its own (agent ``locomo-<sample_id>``): one memory per
turn, content ``"<speaker>: <text>"`` plus the image caption, event time the session's date-time,
task the session, the turn's ``dia_id`` in metadata. Every question with resolvable evidence is then
searched as of the conversation's last session, and we count how many evidence turns the top k hold.

Beside it, the session-level recall@10 as MemPalace's ``benchmarks/locomo_bench.py`` counts it for
LoCoMo (``--granularity session``), so figures can be set beside its published ones: per question,
the share of the evidence *sessions* among the first 10 sessions retrieved, averaged over every
question.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Config, Ranking, load as load_config
from ..errors import InvalidInput
from ..models import Filters
from ..text import clean

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..embedding import Embedder
    from ..store import Store

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
KS = (5, 10, 25)
Progress = Callable[[str, int, int], None]

_DIA_ID = re.compile(r"D:?(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")
# MemPalace's evidence_to_session_ids, read with re.match
_EVIDENCE_SESSION = re.compile(r"D(\d+):")
SESSION_K = 10


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    # resolvable dia_ids only
    evidence: tuple[str, ...]
    # the evidence sessions as MemPalace reads them (``session_evidence``)
    sessions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    # for Store.import_records
    records: list[dict[str, object]]
    questions: list[Question]
    # the last session's date-time: the present the questions are asked in
    now: datetime
    # questions without resolvable evidence
    skipped: int = 0
    # those skipped questions: the session-level figure counts them
    session_only: tuple[Question, ...] = ()

    @property
    def agent(self) -> str:
        return f"locomo-{self.sample_id}"


@dataclass
class Report:
    """The numbers ``hindsight eval locomo`` prints; ``to_dict`` is its ``--json``."""

    mode: str
    model: str
    conversations: int
    memories: int
    questions: int
    skipped: int
    overall: dict[str, float]
    by_category: dict[str, dict[str, float]]
    # the ranking settings used
    ranking: dict[str, object] = field(default_factory=dict)
    elapsed_s: float = 0.0
    # MemPalace's session-level recall@10
    sessions: dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            **self.overall,
            "by_category": self.by_category,
            "sessions": self.sessions,
            "mode": self.mode,
            "model": self.model,
            "conversations": self.conversations,
            "memories": self.memories,
            "questions": self.questions,
            "skipped_questions": self.skipped,
            "ranking": self.ranking,
            "elapsed_s": round(self.elapsed_s, 1),
        }


def parse_time(text: object) -> datetime:
    """LoCoMo's ``"1:56 pm on 8 May, 2023"`` as a naive datetime, read as UTC like every time in a
    store."""
    try:
        if not isinstance(text, str):
            raise TypeError(text)
        return datetime.strptime(" ".join(text.split()), "%I:%M %p on %d %B, %Y")
    except (TypeError, ValueError):
        raise InvalidInput(
            f"Cannot read the session date-time {text!r}; expected e.g. '1:56 pm on 8 May, 2023'."
        ) from None


def parse_evidence(raw: object, known: set[str]) -> tuple[str, ...]:
    """Evidence ids, repaired as the data needs: ``"D8:6; D9:17"`` → two ids, ``"D:11:26"`` →
    ``D11:26``, ``"D30:05"`` → ``D30:5``; ids that point at no turn are dropped."""
    out: list[str] = []
    for item in raw if isinstance(raw, list) else []:
        for session, turn in _DIA_ID.findall(str(item)):
            dia_id = f"D{int(session)}:{int(turn)}"
            if dia_id in known and dia_id not in out:
                out.append(dia_id)
    return tuple(out)


def session_evidence(raw: object) -> tuple[str, ...]:
    """The evidence sessions of a question exactly as MemPalace's LoCoMo bench reads them: the
    number after a leading ``D`` of each evidence string, so ``"D8:6; D9:17"`` gives session 8 only
    and ``"D:11:26"`` none; the question's evidence is not repaired first."""
    out: list[str] = []
    for item in raw if isinstance(raw, list) else []:
        match = _EVIDENCE_SESSION.match(str(item))
        if match and match.group(1) not in out:
            out.append(match.group(1))
    return tuple(out)


def session_of(dia_id: str) -> str:
    """``"D3:5"`` → ``"3"``: the session a turn belongs to."""
    return dia_id[1:].partition(":")[0]


def session_recall(sessions: tuple[str, ...], hits: Sequence[str], k: int = SESSION_K) -> float:
    """MemPalace's ``compute_retrieval_recall`` at session level: the share of the evidence sessions
    among the first ``k`` distinct sessions of the hits (in rank order); 1.0 for a question without
    evidence."""
    if not sessions:
        return 1.0
    ranked = list(dict.fromkeys(session_of(h) for h in hits))[:k]
    return sum(1 for s in sessions if s in ranked) / len(sessions)


def _sessions(conv: Mapping[str, object]) -> list[tuple[int, list[object], datetime]]:
    out = []
    for key, turns in conv.items():
        match = _SESSION.fullmatch(key)
        # some sessions have a date but no turns
        if match and isinstance(turns, list) and turns:
            stamp = conv.get(f"{key}_date_time")
            if not stamp:
                raise InvalidInput(f"{key} has turns but no {key}_date_time.")
            out.append((int(match.group(1)), turns, parse_time(stamp)))
    return sorted(out, key=lambda s: s[0])


def _conversation(item: object, number: int) -> Conversation:
    if not isinstance(item, Mapping) or not isinstance(item.get("conversation"), Mapping):
        raise InvalidInput(
            f"Conversation {number} has no 'conversation' object; is this LoCoMo data?"
        )
    sample_id = str(item.get("sample_id") or f"conv-{number}")
    records: list[dict[str, object]] = []
    known: set[str] = set()
    sessions = _sessions(item["conversation"])
    if not sessions:
        raise InvalidInput(f"Conversation {sample_id} has no sessions with turns.")
    for session, turns, when in sessions:
        for step, turn in enumerate(turns, 1):
            if not isinstance(turn, Mapping) or not turn.get("dia_id"):
                raise InvalidInput(
                    f"Conversation {sample_id}, session {session}: turn {step} has no dia_id."
                )
            content = f"{turn.get('speaker', '?')}: {turn.get('text', '')}"
            if turn.get("blip_caption"):
                content += f" [image: {turn['blip_caption']}]"
            known.add(str(turn["dia_id"]))
            records.append(
                {
                    "content": content,
                    "agent_id": f"locomo-{sample_id}",
                    "task_id": f"session_{session}",
                    "step": step,
                    "event_at": when,
                    "source": "import",
                    "key": f"locomo:{sample_id}:{turn['dia_id']}",
                    "metadata": {"dia_id": str(turn["dia_id"]), "sample_id": sample_id},
                }
            )
    questions: list[Question] = []
    session_only: list[Question] = []
    skipped = 0
    for qa in item.get("qa") or []:
        category = qa.get("category") if isinstance(qa, Mapping) else None
        if category not in CATEGORIES or not str(qa.get("question") or "").strip():
            skipped += 1
            continue
        question = Question(
            str(qa["question"]),
            int(category),
            parse_evidence(qa.get("evidence"), known),
            session_evidence(qa.get("evidence")),
        )
        if not question.evidence:
            skipped += 1
            session_only.append(question)
            continue
        questions.append(question)
    return Conversation(
        sample_id, records, questions, sessions[-1][2], skipped, tuple(session_only)
    )


def load_locomo(path: Path, limit: int | None = None) -> list[Conversation]:
    """Read a LoCoMo-format JSON file (a list of conversations).

    Raises:
        InvalidInput: the file is missing, not JSON, or not in LoCoMo's shape.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise InvalidInput(f"Cannot read {path}: {error.strerror or error}.") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InvalidInput(
            f"{path} is not JSON ({error}); expected a LoCoMo-format list of conversations."
        ) from None
    if not isinstance(data, list) or not data:
        raise InvalidInput(
            f"{path} is not a LoCoMo-format file: expected a non-empty JSON list of conversations."
        )
    return [
        _conversation(item, number)
        for number, item in enumerate(data[:limit] if limit else data, 1)
    ]


def ranking_overrides(pairs: Sequence[str]) -> dict[str, object]:
    """``NAME=VALUE`` strings as Ranking settings, each converted to the type of its default."""
    defaults = Ranking()
    names = {f.name for f in fields(Ranking)}
    out: dict[str, object] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or name not in names:
            raise InvalidInput(
                f"--set expects NAME=VALUE with a ranking setting ({', '.join(sorted(names))}), "
                f"got {pair!r}."
            )
        kind = type(getattr(defaults, name))
        if kind is bool:
            if value.strip().lower() not in ("true", "false"):
                raise InvalidInput(f"--set {name} needs true or false, got {value!r}.")
            out[name] = value.strip().lower() == "true"
            continue
        try:
            out[name] = kind(value.strip()) if kind is not str else value.strip()
        except ValueError:
            raise InvalidInput(f"--set {name} needs a {kind.__name__}, got {value!r}.") from None
    return out


def build_store(
    conversations: Sequence[Conversation],
    path: Path,
    *,
    embedder: Embedder | None = None,
    config: Config | None = None,
    progress: Progress | None = None,
) -> Store:
    """A store at ``path`` holding every conversation (recording only what it lacks: reuse is
    cheap)."""
    from ..store import Store

    store = Store(path, embedder=embedder, config=config or Config())
    records = [r for conv in conversations for r in conv.records]
    store.import_records(
        records,
        progress=(lambda done, total: progress("Embedding turns", done, total))
        if progress
        else None,
    )
    return store


def evaluate(
    conversations: Sequence[Conversation],
    *,
    mode: str = "hybrid",
    embedder: Embedder | None = None,
    # Ranking fields and values of their types (``ranking_overrides``)
    overrides: Mapping[str, Any] | None = None,
    store_dir: Path | None = None,
    progress: Progress | None = None,
) -> Report:
    """Record every conversation in a store of its own scope and search every question.

    Args:
        conversations: from ``load_locomo``.
        mode: ``hybrid``, ``vector`` or ``keyword``.
        embedder: the embedder (default: the configured default model).
        overrides: Ranking settings to change, e.g. ``{"vector_weight": 0.6}``.
        store_dir: build (or reuse) the store here and keep it; by default a temporary one is
        removed. progress: ``progress(phase, done, total)``.
    """
    from ..embedding import load_embedder
    from ..store import Store

    started = time.perf_counter()
    config = Config()
    # a store directory set up with init is evaluated on its backend and model
    if store_dir is not None:
        stored = load_config(Path(store_dir))
        config = replace(
            config,
            storage_backend=stored.storage_backend,
            database_url=stored.database_url,
            database_schema=stored.database_schema,
            embedding_model=stored.embedding_model,
        )
    config = replace(config, ranking=replace(config.ranking, **dict(overrides or {})))
    questions = _QuestionVectors(embedder or load_embedder(config.embedding_model))
    with tempfile.TemporaryDirectory(prefix="hindsight-eval-") as scratch:
        store = build_store(
            conversations,
            Path(store_dir or Path(scratch) / "store"),
            embedder=questions,
            config=config,
            progress=progress,
        )
        if mode != "keyword":
            questions.add(
                [
                    clean(q.text)
                    for conv in conversations
                    for q in [*conv.questions, *conv.session_only]
                ],
                progress,
            )
        # Searched as a long-lived process searches: from its in-memory index, which gives the
        # ledger engine's answers (a postgres store has none, and its database answers), its reads
        # through one read-only connection held for the run.
        searcher = Store(store.path, embedder=questions, config=config, warm=True)
        with searcher.ledger.held():
            found = _search_all(searcher, conversations, mode, progress)
        model = store.embedder.name
    per_question = [(q.category, _scores(q.evidence, hits)) for (q, hits) in found if q.evidence]
    overall = _mean([s for _, s in per_question])
    by_category = {
        name: _mean([s for c, s in per_question if c == number])
        for number, name in CATEGORIES.items()
    }
    for name, number in ((n, c) for c, n in CATEGORIES.items()):
        by_category[name]["questions"] = sum(1 for c, _ in per_question if c == number)
    return Report(
        mode,
        model,
        len(conversations),
        sum(len(c.records) for c in conversations),
        len(per_question),
        sum(c.skipped for c in conversations),
        overall,
        by_category,
        {f.name: getattr(config.ranking, f.name) for f in fields(Ranking)},
        time.perf_counter() - started,
        session_figures(found),
    )


def session_figures(found: Sequence[tuple[Question, Sequence[str]]]) -> dict[str, object]:
    """Session-level recall@10 overall and per category, over every question searched (MemPalace
    counts questions without evidence too, as found)."""

    def figure(rows: list[float]) -> dict[str, float]:
        return {
            f"recall@{SESSION_K}": round(sum(rows) / len(rows), 4) if rows else 0.0,
            "questions": len(rows),
        }

    per = [(q.category, session_recall(q.sessions, hits)) for q, hits in found]
    short = sum(
        1 for q, hits in found if q.sessions and len({session_of(h) for h in hits}) < SESSION_K
    )
    return {
        **figure([r for _, r in per]),
        "fewer_than_k_sessions": short,
        "by_category": {
            name: figure([r for c, r in per if c == number]) for number, name in CATEGORIES.items()
        },
    }


def _search_all(
    store: Store, conversations: Sequence[Conversation], mode: str, progress: Progress | None
) -> list[tuple[Question, list[str]]]:
    total = sum(len(c.questions) + len(c.session_only) for c in conversations)
    found: list[tuple[Question, list[str]]] = []
    for conv in conversations:
        filters = Filters(agent_ids=(conv.agent,))
        for question in [*conv.questions, *conv.session_only]:
            hits: list[str] = []
            # else nothing to find: both measures know the answer
            if question.evidence or question.sessions:
                result = store.search(
                    question.text, filters=filters, k=max(KS), mode=mode, now=conv.now
                )
                hits = [str(h.memory.metadata.get("dia_id")) for h in result.hits]
            found.append((question, hits))
            if progress:
                progress("Searching questions", len(found), total)
    return found


class _QuestionVectors:
    """The evaluation's embedder: every question is embedded up front, in batches of similar length,
    and each search looks its vector up (the model gives the same vectors batched as one at a time);
    the turns and anything else go to the model."""

    def __init__(self, model: Embedder) -> None:
        self.model, self.name, self.dim = model, model.name, getattr(model, "dim", 0)
        self._known: dict[str, npt.NDArray[np.float32]] = {}

    def add(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        todo = sorted(set(texts) - set(self._known), key=len)
        for start in range(0, len(todo), 256):
            batch = todo[start : start + 256]
            self._known.update(zip(batch, self.model.embed(batch)))
            if progress:
                progress("Embedding questions", start + len(batch), len(todo))

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if texts and all(text in self._known for text in texts):
            import numpy as np

            return np.stack([self._known[text] for text in texts])
        return self.model.embed(texts)


def _scores(evidence: tuple[str, ...], hits: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for k in KS:
        top = set(hits[:k])
        share = sum(1 for e in evidence if e in top) / len(evidence)
        out[f"recall@{k}"] = share
        out[f"any@{k}"] = float(share > 0)
        out[f"all@{k}"] = float(share == 1)
    return out


def _mean(scores: Sequence[dict[str, float]]) -> dict[str, float]:
    keys = [f"{kind}@{k}" for kind in ("recall", "any", "all") for k in KS]
    return {
        key: round(sum(s[key] for s in scores) / len(scores), 4) if scores else 0.0 for key in keys
    }
