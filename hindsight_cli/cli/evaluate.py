"""`hindsight eval`: measure retrieval quality on third-party benchmark data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .options import JsonFlag

eval_app = typer.Typer(name="eval", no_args_is_help=True, rich_markup_mode=None, help=(
    "Measure retrieval quality on benchmark data (LoCoMo).\n\n"
    "Results and how they compare with other systems: docs/benchmarks.md.\n\n"
    "\b\nExample:\n    hindsight eval locomo ../shared/bench/locomo/dev.json"))

Mode = Annotated[str, typer.Option("--mode", help="hybrid, vector or keyword.")]
Settings = Annotated[list[str] | None, typer.Option(
    "--set", metavar="NAME=VALUE", help="Change a ranking setting for this run (repeatable), e.g. vector_weight=0.6.",
    show_default=False)]
Limit = Annotated[int | None, typer.Option(
    "--limit-conversations", min=1, help="Use only the first N conversations.", show_default=False)]
StoreDir = Annotated[Path | None, typer.Option(
    "--store-dir", help="Build the evaluation store here and keep it; a later run reuses it (no re-embedding).",
    show_default=False)]


@eval_app.command()
def locomo(
    file: Annotated[Path, typer.Argument(help="A LoCoMo-format JSON file, e.g. locomo10.json.", show_default=False)],
    mode: Mode = "hybrid",
    set_: Settings = None,
    limit_conversations: Limit = None,
    store_dir: StoreDir = None,
    json_: JsonFlag = False,
) -> None:
    """Evidence recall@5/@10/@25 on LoCoMo-format data, per question category and overall.

    Each conversation is recorded in a scope of its own (one memory per turn) in a temporary
    store, every question is searched as of the conversation's last session, and recall is the
    share of the question's evidence turns among the top k hits. any@k: at least one evidence
    turn found; all@k: every one. The data is read, never copied.

    \b
    Example:
        hindsight eval locomo ../shared/bench/locomo/dev.json
        hindsight eval locomo dev.json --mode keyword --set candidates=100 --json
    """
    from .. import evaluation
    from ..errors import InvalidInput
    from . import render

    if mode not in ("hybrid", "vector", "keyword"):
        raise InvalidInput(f"mode must be hybrid, vector or keyword, not {mode!r}.")
    overrides = evaluation.ranking_overrides(set_ or [])
    conversations = evaluation.load_locomo(file, limit_conversations)
    with render.phased_progress() as update:
        report = evaluation.evaluate(conversations, mode=mode, overrides=overrides, store_dir=store_dir,
                                     progress=update)
    if json_:
        render.json_doc(report.to_dict())
    else:
        render.recall_table(report.to_dict())
