"""All terminal output: Rich tables on stdout for people, JSON for scripts, messages on stderr.

The only module of hindsight that imports Rich, and only when it prints with it: a message to a
file or a pipe is written as it is. User text is never parsed as markup.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..models import Hit, Memory, short_id
from ..text import visible

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID
    from rich.table import Table
    from rich.text import Text

    from ..doctor import Check
    from ..models import AuditEntry, PatternChange
from ..timeutil import age, parse_time
from . import plain_table

# what prints JSON lives beside (no Rich there); commands call it as render.json_doc
from .json_output import json_doc as json_doc, json_lines as json_lines
from .options import QUIET

# Rich is imported when a table (or a styled line) is printed, not by every command: it costs a
# cold start ~35 ms, and a message to a file or pipe is the same bytes without it
_CONSOLES: dict[str, Console] = {}


def out_console() -> Console:
    if "out" not in _CONSOLES:
        from rich.console import Console

        _CONSOLES["out"] = Console(soft_wrap=False, highlight=False)
    return _CONSOLES["out"]


def err_console() -> Console:
    if "err" not in _CONSOLES:
        from rich.console import Console

        # messages stay one line
        _CONSOLES["err"] = Console(stderr=True, highlight=False, soft_wrap=True)
    return _CONSOLES["err"]


def __getattr__(name: str) -> Console:
    # ``render.out`` and ``render.err``, the two consoles
    if name in ("out", "err"):
        return out_console() if name == "out" else err_console()
    raise AttributeError(name)


def memories(count: int) -> str:
    """``1 memory``, ``3 memories``."""
    return f"{count} memor{'y' if count == 1 else 'ies'}"


def error(exc: BaseException) -> None:
    _say(f"Error: {exc}", "bold red")


def message(text: str) -> None:
    if not QUIET[0]:
        _say(text)


def warning(text: str) -> None:
    _say(f"Warning: {text}", "yellow")


def _say(text: str, style: str = "") -> None:
    """One line on stderr: as it is where Rich would write the same bytes (no terminal, nothing
    forcing one, no character Rich rewrites), else through Rich (styled, or cleaned). Control
    characters are shown as escapes (``\\x1b``), never sent to the terminal."""
    if (text := visible(text)).isprintable() and not _terminal(sys.stderr):
        print(text, file=sys.stderr, flush=True)
        return
    from rich.text import Text

    err_console().print(Text(text, style=style))


def _terminal(stream: Any) -> bool:
    """Rich's own answer (``Console.is_terminal``): ``TTY_COMPATIBLE``, then ``FORCE_COLOR``,
    then the stream."""
    compatible = os.environ.get("TTY_COMPATIBLE", "")
    if compatible in ("0", "1"):
        return compatible == "1"
    force = os.environ.get("FORCE_COLOR")
    if force is not None:
        return force != ""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def plain(text: str) -> None:
    sys.stdout.write(text + "\n")


def _age(stamp: str) -> str:
    return age(parse_time(stamp)) if stamp else ""


def _outcome(memory: Memory) -> str:
    if memory.outcome == "failure" and memory.resolution:
        return "failure→fixed"
    # a ledger a checkout ships holds what its author wrote in every column (review BS2)
    return visible(memory.outcome)


def _one_line(text: str, limit: int = 300) -> str:
    # a store a checkout ships holds the text its author wrote: escapes shown (review BS)
    flat = visible(" ".join(text.split()))
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# below this many columns a table's content column would be a few letters wide (it was 2 at 50):
# each row is printed as a short head line and its text below, wrapped at words
_NARROW = 80


def _rows(rows: Sequence[tuple[str, Text]]) -> None:
    """Rows for a narrow terminal: the head on its line, the content below it, indented."""
    from rich.text import Text

    out = out_console()
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
    if not explain and (plain_text := _plain_hits(hits)) is not None:
        # flushed as Rich does, before any warning on stderr
        sys.stdout.write(plain_text)
        sys.stdout.flush()
        return
    from rich.text import Text

    if out_console().width < _NARROW:
        _rows(
            [
                (
                    f"{rank}. {_outcome(hit.memory)} · {visible(hit.memory.type)} · "
                    f"{_age(hit.memory.event_at)} · score {hit.score:.3f}",
                    _hit_text(hit.memory, explain),
                )
                for rank, hit in enumerate(hits, 1)
            ]
        )
        if explain:
            for rank, hit in enumerate(hits, 1):
                out_console().print(Text(explain_line(rank, hit)), soft_wrap=True)
        return
    out_console().print(_hits_table(hits, explain))
    if explain:
        for rank, hit in enumerate(hits, 1):
            out_console().print(Text(explain_line(rank, hit)), soft_wrap=True)


def _hits_table(hits: Sequence[Hit], explain: bool) -> Table:
    from rich.table import Table

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
            visible(memory.type),
            _outcome(memory),
            _hit_text(memory, explain),
        )
    return table


def _plain_hits(hits: Sequence[Hit]) -> str | None:
    """The table as Rich would print it to a pipe or a file, without importing Rich (~20 ms of a
    cold search); None where Rich must draw it (``plain_table``)."""
    # a console made already has its width (a test sets one); else Rich's rule for a new one
    total = _CONSOLES["out"].width if "out" in _CONSOLES else plain_table.width()
    if _terminal(sys.stdout) or total < _NARROW:
        return None
    return plain_table.table(plain_rows(hits), total, sys.stdout)


def plain_rows(hits: Sequence[Hit]) -> list[plain_table.Row]:
    """The cells of ``_hits_table`` as text: five short ones, then the content's lines."""
    return [
        (
            str(rank),
            f"{hit.score:.3f}",
            _age(hit.memory.event_at),
            visible(hit.memory.type),
            _outcome(hit.memory),
            [
                _one_line(hit.memory.content),
                *([f"→ fix: {_one_line(hit.memory.resolution)}"] if hit.memory.resolution else []),
                visible(short_id(hit.memory.id)),
            ],
        )
        for rank, hit in enumerate(hits, 1)
    ]


def _hit_text(memory: Memory, explain: bool) -> Text:
    from rich.text import Text

    content = Text(_one_line(memory.content) if not explain else visible(memory.content))
    if memory.resolution:
        content.append(f"\n→ fix: {_one_line(memory.resolution)}")
    content.append(visible(f"\n{short_id(memory.id)}"), style="dim")
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
    # the memories one step before and after it whose relevance it inherits a share of
    beside = "".join(
        f"; beside {short_id(b['id'])} (step {b['step']:+d}): inherits {b['share']:g} × "
        f"{b['relevance']:.3f} = {b['inherited']:.3f} relevance"
        for b in e.get("beside", [])
    )
    found = " + ".join(matched) or ("nothing itself" if beside else "nothing")
    return visible(
        f"#{rank} {short_id(hit.memory.id)}: matched {found}{beside}; {parts}; "
        f"× {e['factor']:.2f} (confidence {hit.memory.confidence:.2f}{notes}){diversity} = "
        f"{hit.score:.3f}"
    )


def memories_table(memories: Sequence[Memory]) -> None:
    if not memories:
        message("No memories.")
        return
    from rich.table import Table

    if out_console().width < _NARROW:
        _rows(
            [
                (
                    visible(f"{_outcome(m)} · {m.type} · {m.status} · {_age(m.created_at)}"),
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
            visible(memory.type),
            visible(memory.status),
            _outcome(memory),
            _memory_text(memory),
        )
    out_console().print(table)


def _memory_text(memory: Memory) -> Text:
    from rich.text import Text

    content = Text(_one_line(memory.content, 200))
    # the id first: never broken
    scope = " · ".join(filter(None, [short_id(memory.id), memory.agent_id, memory.task_id]))
    content.append(visible(f"\n{scope}"), style="dim")
    return content


def chain(levels: Sequence[tuple[int, Memory]]) -> None:
    """A summary and its sources as an indented outline."""
    from rich.text import Text

    for depth, memory in levels:
        text = Text("  " * depth + "- ")
        text.append(visible(short_id(memory.id)), style="dim")
        text.append(f" [{visible(memory.type)}] {_one_line(memory.content, 160)}")
        out_console().print(text, soft_wrap=True)


def memory_detail(memory: Memory) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(show_header=False, show_edge=False, pad_edge=False, box=None)
    table.add_column("field", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    for name, value in memory.to_dict().items():
        if value in (None, [], {}, ""):
            continue
        shown = (
            json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value)
        )
        table.add_row(name, Text(visible(shown)))
    out_console().print(table)


def history(versions: Sequence[Memory], current: str) -> None:
    """A supersede chain, oldest first; the memory being shown is marked."""
    from rich.text import Text

    out_console().print(Text("history (oldest first):", style="bold"))
    for memory in versions:
        text = Text("→ " if memory.id == current else "  ")
        text.append(f"{memory.created_at[:19].replace('T', ' ')} ")
        text.append(visible(short_id(memory.id)), style="dim")
        text.append(f" [{visible(memory.status)}] {_one_line(memory.content, 120)}")
        out_console().print(text, soft_wrap=True)


def patterns(changes: Sequence[PatternChange], dry_run: bool = False) -> None:
    """Consolidation's plan: one block per pattern, what happens to it, its confidence and evidence.
    A pattern a dry run would create has no id yet."""
    from rich.text import Text

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
        out_console().print(head, soft_wrap=True)
        for line in memory.content.splitlines():
            out_console().print(Text(visible(f"    {line}")), soft_wrap=True)


def audit_table(entries: Sequence[AuditEntry]) -> None:
    from rich.table import Table
    from rich.text import Text

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
            visible(entry.action),
            visible(entry.actor or ""),
            Text(visible(ids)),
            Text(visible(entry.reason or "")),
        )
    out_console().print(table)


def key_values(data: Mapping[str, object]) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(show_header=False, show_edge=False, pad_edge=False, box=None)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    for key, value in data.items():
        shown = (
            json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value)
        )
        table.add_row(key, Text(visible(shown)))
    out_console().print(table)


_STATUS_STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def checklist(checks: Sequence[Check]) -> None:
    """Doctor's findings: one line each, then the evidence and the fix indented under it. What
    they quote from a checkout's files (a server's name, its command, a Compose service) is shown
    through ``visible``: a `.mcp.json` server named `x\\x1b[2K\\x1b[1G` erased the line saying the
    checkout chose what it runs (review BS)."""
    from rich.text import Text

    for check in checks:
        line = Text(f"{check.status:>4} ", style=_STATUS_STYLE[check.status])
        line.append(visible(f"{check.id}: {check.summary}"))
        out_console().print(line, soft_wrap=True)
        if check.evidence:
            out_console().print(
                Text(visible(f"     saw: {check.evidence}"), style="dim"), soft_wrap=True
            )
        if check.fix:
            out_console().print(Text(visible(f"     fix: {check.fix}")), soft_wrap=True)
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
    if not err_console().is_terminal:
        yield Bar()
        return
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console(),
        transient=True,
    ) as bar:
        yield Bar(bar, bar.add_task(description, total=None))


@contextmanager
def phased_progress() -> Iterator[Callable[[str, int, int], None]]:
    """Progress bars on stderr, one per phase of a long job; yields ``update(phase, done,
    total)``."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    # as in progress(): no bars in a log
    if not err_console().is_terminal:
        yield lambda phase, done, total: None
        return
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console(),
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
    if not err_console().is_terminal:
        yield lambda name, done, size: None
        return
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console(),
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
