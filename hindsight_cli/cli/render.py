"""All terminal output: Rich tables on stdout for people, JSON for scripts, messages on stderr.

The only module of hindsight that imports Rich. User text is never parsed as markup.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..models import Hit, Memory, short_id

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from ..doctor import Check
    from ..models import AuditEntry, PatternChange
from ..timeutil import age, parse_time

# what prints JSON lives beside (no Rich there); commands call it as render.json_doc
from .json_output import json_doc as json_doc, json_lines as json_lines
from .options import QUIET

out = Console(soft_wrap=False, highlight=False)
# messages stay one line
err = Console(stderr=True, highlight=False, soft_wrap=True)


def memories(count: int) -> str:
    """``1 memory``, ``3 memories``."""
    return f"{count} memor{'y' if count == 1 else 'ies'}"


def error(exc: BaseException) -> None:
    err.print(Text(f"Error: {exc}", style="bold red"))


def message(text: str) -> None:
    if not QUIET[0]:
        err.print(Text(text))


def warning(text: str) -> None:
    err.print(Text(f"Warning: {text}", style="yellow"))


def plain(text: str) -> None:
    sys.stdout.write(text + "\n")


def _age(stamp: str) -> str:
    return age(parse_time(stamp)) if stamp else ""


def _outcome(memory: Memory) -> str:
    if memory.outcome == "failure" and memory.resolution:
        return "failure→fixed"
    return memory.outcome


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# below this many columns a table's content column would be a few letters wide (it was 2 at 50):
# each row is printed as a short head line and its text below, wrapped at words
_NARROW = 80


def _rows(rows: Sequence[tuple[str, Text]]) -> None:
    """Rows for a narrow terminal: the head on its line, the content below it, indented."""
    for head, content in rows:
        for line in Text(head, style="bold").wrap(out, out.width):
            line.rstrip()
            out.print(line, soft_wrap=True)
        for line in content.wrap(out, max(out.width - 3, 20)):
            line.rstrip()
            out.print(Text("   ") + line, soft_wrap=True)


def hits_table(hits: Sequence[Hit], explain: bool = False) -> None:
    if not hits:
        message("No memories matched.")
        return
    if out.width < _NARROW:
        _rows(
            [
                (
                    f"{rank}. {_outcome(hit.memory)} · {hit.memory.type} · "
                    f"{_age(hit.memory.event_at)} · score {hit.score:.3f}",
                    _hit_text(hit.memory, explain),
                )
                for rank, hit in enumerate(hits, 1)
            ]
        )
        if explain:
            for rank, hit in enumerate(hits, 1):
                out.print(Text(explain_line(rank, hit)), soft_wrap=True)
        return
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for name, justify in (
        ("rank", "right"),
        ("score", "right"),
        ("age", "right"),
        ("type", "left"),
        ("outcome", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    table.add_column("content", min_width=24, overflow="fold", ratio=1)
    for rank, hit in enumerate(hits, 1):
        memory = hit.memory
        table.add_row(
            str(rank),
            f"{hit.score:.3f}",
            _age(memory.event_at),
            memory.type,
            _outcome(memory),
            _hit_text(memory, explain),
        )
    out.print(table)
    if explain:
        for rank, hit in enumerate(hits, 1):
            out.print(Text(explain_line(rank, hit)), soft_wrap=True)


def _hit_text(memory: Memory, explain: bool) -> Text:
    content = Text(_one_line(memory.content) if not explain else memory.content)
    if memory.resolution:
        content.append(f"\n→ fix: {_one_line(memory.resolution)}")
    content.append(f"\n{short_id(memory.id)}", style="dim")
    return content


def explain_line(rank: int, hit: Hit) -> str:
    e = hit.explain
    parts = ", ".join(f"{name} {value:+.3f}" for name, value in e["contributions"].items())
    vec, kw = e["vector"], e["keyword"]
    matched = []
    if vec["rank"]:
        matched.append(f"vector #{vec['rank']} (cos {vec['cosine']:.3f})")
    if kw["rank"]:
        matched.append(f"keyword #{kw['rank']} (bm25 {kw['bm25']:.2f})")
    notes = "; " + "; ".join(e["notes"]) if e["notes"] else ""
    diversity = f" − {-e['diversity']:.3f} (like a hit above it)" if e.get("diversity") else ""
    return (
        f"#{rank} {short_id(hit.memory.id)}: matched {' + '.join(matched) or 'nothing'}; {parts}; "
        f"× {e['factor']:.2f} (confidence {hit.memory.confidence:.2f}{notes}){diversity} = "
        f"{hit.score:.3f}"
    )


def memories_table(memories: Sequence[Memory]) -> None:
    if not memories:
        message("No memories.")
        return
    if out.width < _NARROW:
        _rows(
            [
                (
                    f"{_outcome(m)} · {m.type} · {m.status} · {_age(m.created_at)}",
                    _memory_text(m),
                )
                for m in memories
            ]
        )
        return
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for name in ("age", "type", "status", "outcome"):
        table.add_column(name, no_wrap=True)
    table.add_column("content", min_width=24, overflow="fold", ratio=1)
    for memory in memories:
        table.add_row(
            _age(memory.created_at),
            memory.type,
            memory.status,
            _outcome(memory),
            _memory_text(memory),
        )
    out.print(table)


def _memory_text(memory: Memory) -> Text:
    content = Text(_one_line(memory.content, 200))
    # the id first: never broken
    scope = " · ".join(filter(None, [short_id(memory.id), memory.agent_id, memory.task_id]))
    content.append(f"\n{scope}", style="dim")
    return content


def chain(levels: Sequence[tuple[int, Memory]]) -> None:
    """A summary and its sources as an indented outline."""
    for depth, memory in levels:
        text = Text("  " * depth + "- ")
        text.append(short_id(memory.id), style="dim")
        text.append(f" [{memory.type}] {_one_line(memory.content, 160)}")
        out.print(text, soft_wrap=True)


def memory_detail(memory: Memory) -> None:
    table = Table(show_header=False, show_edge=False, pad_edge=False, box=None)
    table.add_column("field", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    for name, value in memory.to_dict().items():
        if value in (None, [], {}, ""):
            continue
        shown = (
            json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value)
        )
        table.add_row(name, Text(shown))
    out.print(table)


def history(versions: Sequence[Memory], current: str) -> None:
    """A supersede chain, oldest first; the memory being shown is marked."""
    out.print(Text("history (oldest first):", style="bold"))
    for memory in versions:
        text = Text("→ " if memory.id == current else "  ")
        text.append(f"{memory.created_at[:19].replace('T', ' ')} ")
        text.append(short_id(memory.id), style="dim")
        text.append(f" [{memory.status}] {_one_line(memory.content, 120)}")
        out.print(text, soft_wrap=True)


def patterns(changes: Sequence[PatternChange], dry_run: bool = False) -> None:
    """Consolidation's plan: one block per pattern, what happens to it, its confidence and evidence.
    A pattern a dry run would create has no id yet."""
    for change in changes:
        memory = change.memory
        # consolidate's result gives every pattern its memory
        if memory is None:
            continue
        head = Text(
            f"{change.action:<9}",
            style={"create": "green", "update": "yellow"}.get(change.action, "dim"),
        )
        head.append(
            f" confidence {memory.confidence:.2f}, from {len(change.evidence_ids)} episodic "
            f"memories  "
        )
        head.append(
            "(new)" if dry_run and change.action == "create" else short_id(memory.id), style="dim"
        )
        out.print(head, soft_wrap=True)
        for line in memory.content.splitlines():
            out.print(Text(f"    {line}"), soft_wrap=True)


def audit_table(entries: Sequence[AuditEntry]) -> None:
    if not entries:
        message("The audit log is empty.")
        return
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for name in ("when (UTC)", "action", "who"):
        table.add_column(name, no_wrap=True)
    table.add_column("memories", overflow="fold", ratio=1)
    table.add_column("why", overflow="fold")
    for entry in entries:
        ids = ", ".join(map(short_id, entry.ids[:3])) + (
            f" (+{len(entry.ids) - 3} more)" if len(entry.ids) > 3 else ""
        )
        table.add_row(
            entry.at[:19].replace("T", " "),
            entry.action,
            entry.actor or "",
            Text(ids),
            Text(entry.reason or ""),
        )
    out.print(table)


def key_values(data: Mapping[str, object]) -> None:
    table = Table(show_header=False, show_edge=False, pad_edge=False, box=None)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    for key, value in data.items():
        shown = (
            json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value)
        )
        table.add_row(key, Text(shown))
    out.print(table)


_STATUS_STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def checklist(checks: Sequence[Check]) -> None:
    """Doctor's findings: one line each, then the evidence and the fix indented under it."""
    for check in checks:
        line = Text(f"{check.status:>4} ", style=_STATUS_STYLE[check.status])
        line.append(f"{check.id}: {check.summary}")
        out.print(line, soft_wrap=True)
        if check.evidence:
            out.print(Text(f"     saw: {check.evidence}", style="dim"), soft_wrap=True)
        if check.fix:
            out.print(Text(f"     fix: {check.fix}"), soft_wrap=True)
    counts = {s: sum(c.status == s for c in checks) for s in ("ok", "warn", "fail", "skip")}
    message(", ".join(f"{n} {s}" for s, n in counts.items()))


class Bar:
    """One progress bar: ``bar(done, total)`` moves it; ``bar.phase(text)`` names the step a long
    job is on (with no count until it gives one), so no step sits at ``0/?`` or a finished count
    unexplained."""

    def __init__(self, progress: Progress | None = None, task: TaskID | None = None) -> None:
        self._progress, self._task = progress, task

    def __call__(self, done: int, total: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=done, total=total)

    def phase(self, text: str) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, description=text, completed=0, total=None)


@contextmanager
def progress(description: str) -> Iterator[Bar]:
    """A progress bar on stderr (none when stderr is not a terminal)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    # Rich would leave a blank line in a log or ahead of a one-line error
    if not err.is_terminal:
        yield Bar()
        return
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as bar:
        yield Bar(bar, bar.add_task(description, total=None))


@contextmanager
def phased_progress() -> Iterator[Callable[[str, int, int], None]]:
    """Progress bars on stderr, one per phase of a long job; yields ``update(phase, done,
    total)``."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    # as in progress(): no bars in a log
    if not err.is_terminal:
        yield lambda phase, done, total: None
        return
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as bar:
        tasks: dict[str, TaskID] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total)
            bar.update(tasks[phase], completed=done, total=total)

        yield update


@contextmanager
def file_progress(total: int) -> Iterator[Callable[[str, int, int], None]]:
    """Two bars on stderr: files done of ``total``, and the current file (bytes or messages read);
    yields ``update(file, done, size)``, where ``done == size`` finishes that file."""
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    # as in progress(): no bars in a log
    if not err.is_terminal:
        yield lambda name, done, size: None
        return
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as bar:
        files = bar.add_task("files", total=total)
        current: dict[str, Any] = {}

        def update(name: str, done: int, size: int) -> None:
            if current.get("name") != name:
                if "task" in current:
                    bar.remove_task(current["task"])
                current.update(
                    name=name, task=bar.add_task(escape(name[-40:]), total=size or None), done=False
                )
            bar.update(current["task"], completed=done)
            if done >= size and not current["done"]:
                current["done"] = True
                bar.advance(files)

        yield update


def rows_table(
    columns: Sequence[str], rows: Sequence[Sequence[object]], total: bool = False
) -> None:
    """A plain table; numbers right-aligned; with ``total`` the last row is set apart as the
    total."""
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for position, name in enumerate(columns):
        numeric = bool(rows) and all(isinstance(r[position], (int, float)) for r in rows)
        table.add_column(name, justify="right" if numeric else "left", no_wrap=position == 0)
    for number, row in enumerate(rows):
        table.add_row(*(Text(str(v)) for v in row), end_section=total and number == len(rows) - 2)
    out.print(table)


def recall_table(report: Mapping[str, Any]) -> None:
    """``hindsight eval``'s figures per category and overall: recall at each k, any and all at 10
    (``--json`` has any and all at every k)."""
    columns = [key for key in report if key.startswith("recall@")] + ["any@10", "all@10"]
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("category", no_wrap=True)
    table.add_column("questions", justify="right")
    for column in columns:
        table.add_column(column, justify="right")
    rows = list(report["by_category"].items()) + [("overall", report)]
    for position, (name, figures) in enumerate(rows):
        # no questions: no score
        shown = [f"{figures[c]:.3f}" if figures["questions"] else "n/a" for c in columns]
        table.add_row(
            name, str(figures["questions"]), *shown, end_section=position == len(rows) - 2
        )
    out.print(table)
    message(
        f"{report['mode']} search with {report['model']}: {report['questions']} questions "
        f"({report['skipped_questions']} without usable evidence skipped) over "
        f"{report['memories']} turns "
        f"of {report['conversations']} conversations in {report['elapsed_s']:.0f} s."
    )
    sessions = report.get("sessions") or {}
    if sessions:
        message(
            f"Session-level recall@10 (MemPalace's LoCoMo measure: evidence sessions among the "
            f"first 10 "
            f"sessions of the hits): {sessions['recall@10']:.3f} over {sessions['questions']} "
            f"questions."
        )


_REPLAY_COLUMNS = {
    "hit@1": "hit@1",
    "hit@3": "hit@3",
    "in_block": "in block",
    "block_tokens": "tokens",
    "false_recall": "false recall",
    "p50_ms": "p50 ms",
}


def _figure(value: Any, share: bool) -> str:
    if value is None:
        return "-"
    return f"{value:.0%}" if share else f"{value:g}"


def replay_table(report: Mapping[str, Any]) -> None:
    """``hindsight eval replay``: one row per system, then per project each system's earlier fix
    in the block and false recall."""
    systems = list(report["systems"])
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for name in ("system", "pos", "neg", *_REPLAY_COLUMNS.values()):
        table.add_column(name, justify="left" if name == "system" else "right", no_wrap=True)
    for name, figures in report["systems"].items():
        shown = [_figure(figures[c], c not in ("block_tokens", "p50_ms")) for c in _REPLAY_COLUMNS]
        table.add_row(name, str(figures["positives"]), str(figures["negatives"]), *shown)
    out.print(table)
    projects = Table(show_edge=False, pad_edge=False, header_style="bold")
    projects.add_column("project", overflow="fold")
    projects.add_column("sessions", justify="right")
    projects.add_column("pos/neg", justify="right")
    for name in systems:
        projects.add_column(name, justify="right", no_wrap=True)
    for project, data in report["projects"].items():
        first = data["systems"][systems[0]]
        projects.add_row(
            Text(project),
            str(data["sessions"]),
            f"{first['positives']}/{first['negatives']}",
            *(
                f"{_figure(data['systems'][n]['in_block'], True)} / "
                f"{_figure(data['systems'][n]['false_recall'], True)}"
                for n in systems
            ),
        )
    out.print(projects)
    budgets = ", ".join(f"{k} {v}" for k, v in report["budgets"].items())
    message(
        f"Per project: the earlier fix in the block / false recall. {report['sessions']} sessions, "
        f"{report['steps']} commands, {report['failures']} failures; block budgets (tokens): "
        f"{budgets}; {report['seconds']['total']:.0f} s."
    )
    if report.get("hook_errors"):
        warning(
            f"{report['hook_errors']} hook calls failed (the hooks log them and print nothing)."
        )


def figures_table(records: Sequence[Mapping[str, Any]], key: str) -> None:
    """One column per record (headed by its ``key``), one row per figure."""
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("figure", no_wrap=True)
    for record in records:
        table.add_column(
            f"{record[key]:,}" if isinstance(record[key], int) else str(record[key]),
            justify="right",
        )
    for name in [n for n in records[0] if n != key] if records else []:
        table.add_row(
            name, *("-" if record.get(name) is None else str(record[name]) for record in records)
        )
    out.print(table)
