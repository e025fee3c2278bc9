"""Tables of evaluation, benchmark and mining reports (``eval``, ``bench``, ``mine``): Rich, imported
when one is printed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .render import message, out_console, warning


def rows_table(
    columns: Sequence[str], rows: Sequence[Sequence[object]], total: bool = False
) -> None:
    """A plain table; numbers right-aligned; with ``total`` the last row is set apart as the
    total."""
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for position, name in enumerate(columns):
        numeric = bool(rows) and all(isinstance(r[position], (int, float)) for r in rows)
        table.add_column(name, justify="right" if numeric else "left", no_wrap=position == 0)
    for number, row in enumerate(rows):
        table.add_row(*(Text(str(v)) for v in row), end_section=total and number == len(rows) - 2)
    out_console().print(table)


def recall_table(report: Mapping[str, Any]) -> None:
    """``hindsight eval``'s figures per category and overall: recall at each k, any and all at 10
    (``--json`` has any and all at every k)."""
    from rich.table import Table

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
    out_console().print(table)
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
    from rich.table import Table
    from rich.text import Text

    systems = list(report["systems"])
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for name in ("system", "pos", "neg", *_REPLAY_COLUMNS.values()):
        table.add_column(name, justify="left" if name == "system" else "right", no_wrap=True)
    for name, figures in report["systems"].items():
        shown = [_figure(figures[c], c not in ("block_tokens", "p50_ms")) for c in _REPLAY_COLUMNS]
        table.add_row(name, str(figures["positives"]), str(figures["negatives"]), *shown)
    out_console().print(table)
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
    out_console().print(projects)
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
    from rich.table import Table

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
    out_console().print(table)
