"""`hindsight eval` and `hindsight bench`: measure retrieval quality on benchmark data and on replayed
agent sessions, and speed at scale."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from . import app
from .options import JsonFlag, Mode as ModeChoice

eval_app = typer.Typer(
    name="eval",
    no_args_is_help=True,
    rich_markup_mode=None,
    help=(
        "Measure retrieval quality on LoCoMo and on replayed sessions.\n\n"
        "Results and how they compare with other systems: docs/benchmarks.md.\n\n"
        "\b\nExample:\n    hindsight eval locomo ../shared/bench/locomo/dev.json\n"
        "    hindsight eval replay ~/runs/swebench/trajs"
    ),
)

Mode = Annotated[
    ModeChoice, typer.Option("--mode", help="Vector and keyword matches fused, or one of them.")
]
Settings = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="NAME=VALUE",
        help="Change a ranking setting for this run (repeatable), e.g. vector_weight=0.6.",
        show_default=False,
    ),
]
Limit = Annotated[
    int | None,
    typer.Option(
        "--limit-conversations",
        min=1,
        help="Use only the first N conversations.",
        show_default=False,
    ),
]
StoreDir = Annotated[
    Path | None,
    typer.Option(
        "--store-dir",
        help="Build the evaluation store here and keep it; a later run reuses it (no "
        "re-embedding). "
        "Its storage settings and model count: a directory set up with init --backend postgres (or "
        "HINDSIGHT_DATABASE_URL) evaluates on that database, one set up with --embedding-model "
        "with that model.",
        show_default=False,
    ),
]


@eval_app.command()
def locomo(
    file: Annotated[
        Path,
        typer.Argument(help="A LoCoMo-format JSON file, e.g. locomo10.json.", show_default=False),
    ],
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
    turn found; all@k: every one. Beside them, session-level recall@10 as MemPalace counts it
    for LoCoMo: the share of the evidence sessions among the first 10 sessions the hits come
    from. The data is read, never copied.

    \b
    Example:
        hindsight eval locomo ../shared/bench/locomo/dev.json
        hindsight eval locomo dev.json --mode keyword --set candidates=100 --json
    """
    from ..evals import locomo as evaluation
    from . import render, report_tables

    overrides = evaluation.ranking_overrides(set_ or [])
    conversations = evaluation.load_locomo(file, limit_conversations)
    with render.phased_progress() as update:
        report = evaluation.evaluate(
            conversations, mode=str(mode), overrides=overrides, store_dir=store_dir, progress=update
        )
    if json_:
        render.json_doc(report.to_dict())
    else:
        report_tables.recall_table(report.to_dict())


@eval_app.command()
def replay(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="mini-swe-agent trajectories (*.traj.json), Claude Code transcripts (*.jsonl), "
            "or directories holding them.",
            show_default=False,
        ),
    ],
    budget: Annotated[
        int,
        typer.Option(
            "--budget",
            min=50,
            help="Tokens of the block for mine, bm25 and recency (the hooks use their own "
            "[hooks] repeat_budget).",
        ),
    ] = 800,
    systems: Annotated[
        str,
        typer.Option(
            "--systems",
            metavar="NAMES",
            help="Systems to ask at each probe, comma-separated: hooks, mine, bm25, recency.",
        ),
    ] = "hooks,mine,bm25,recency",
    reinforce: Annotated[
        bool,
        typer.Option(
            "--reinforce",
            help="Judge each session's injections when it ends, as the hooks do from a "
            "transcript, so reinforcement ranks the later sessions (off: figures comparable with "
            "earlier runs).",
        ),
    ] = False,
    json_: JsonFlag = False,
) -> None:
    """Replay agent sessions: would memory have handed back the earlier fix at a repeated error?

    Sessions (mini-swe-agent trajectories: the project is the instance's repository; Claude Code,
    Codex, Gemini CLI and OpenCode sessions: the session's directory; a client's folder is searched
    for them) are replayed project by project in the order they started, each project into new
    temporary stores, through hindsight's real write paths. A probe
    is the first failure of its kind in a session (command family and normalised error signature);
    it is positive when an earlier session of the project fixed a failure of that kind, negative
    otherwise. At each probe every system is asked with what the agent sees: hooks (the hook path as
    Claude Code calls it), mine (earlier sessions mined, then search --troubleshoot), and two
    baselines over the earlier fixed failures, bm25 and recency. Figures per system and project:
    hit@1, hit@3, the earlier fix in the block, block tokens, false recall on new errors, p50
    latency. Definition: docs/benchmarks.md.

    \b
    Example:
        hindsight eval replay ~/runs/swebench/trajs
        hindsight eval replay ~/.claude/projects ~/.codex/sessions --systems bm25,mine
        hindsight eval replay trajs --systems mine,bm25 --budget 400 --json
    """
    from ..errors import InvalidInput
    from ..evals import replay as replaying, sessions
    from . import render, report_tables

    chosen = [name.strip() for name in systems.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(replaying.SYSTEMS))
    if unknown or not chosen:
        raise InvalidInput(
            f"--systems takes some of {', '.join(replaying.SYSTEMS)}, comma-separated; "
            f"not {systems!r}."
        )
    found = sessions.load(paths, warn=render.warning)
    if not found:
        raise InvalidInput(
            "No sessions found: give mini-swe-agent *.traj.json files, Claude Code, Codex or "
            "Gemini CLI session files, an OpenCode data folder or opencode.db, or folders holding "
            "them."
        )
    with render.phased_progress() as update:
        report = replaying.replay(
            found,
            systems=[name for name in replaying.SYSTEMS if name in chosen],
            budget=budget,
            send=_hook_sender() if "hooks" in chosen else None,
            progress=update,
            log=render.message,
            reinforce=reinforce,
        )
    if json_:
        render.json_doc(report)
    else:
        report_tables.replay_table(report)


def _hook_sender() -> Any:
    """The hooks' own entry, called in this process as the installed command would be (a process
    per event would take hours for thousands of steps)."""
    import json

    from .. import hooks

    def send(event: str, payload: dict[str, Any], store: Path) -> tuple[str, bool]:
        return hooks.run(event, "claude-code", json.dumps(payload), str(store))

    return send


@app.command()
def bench(
    sizes: Annotated[
        str, typer.Option("--sizes", help="Store sizes to measure, comma-separated.")
    ] = "1000,10000",
    runs: Annotated[
        int,
        typer.Option("--runs", min=1, help="New processes per cold figure (the median is kept)."),
    ] = 5,
    stand_in_above: Annotated[
        int | None,
        typer.Option(
            "--stand-in-above",
            min=0,
            metavar="SIZE",
            help="Store sizes above SIZE with stand-in vectors (random, seeded by each text) "
            "instead of the model's: "
            "100,000 memories in minutes, not half an hour; queries are still embedded by the "
            "model.",
        ),
    ] = None,
    json_: JsonFlag = False,
) -> None:
    """Measure speed and scale on synthetic memories in temporary stores.

    For each size: bulk import rate, single record latency, warm search p50/p95 in-process (as the
    MCP server sees it, before and after compaction, and the exact ledger engine), cold `hindsight
    search` and `hindsight --help` (median of new processes), size on disk and peak memory; past
    [index] vector_index_rows, the vector index's recall@10/@100 and speed against flat search.
    Nothing is left behind. 10,000 memories take a few minutes; 100,000 take half an hour on a small
    machine, most of it embedding, unless --stand-in-above stores them with stand-in vectors.

    \b
    Example:
        hindsight bench
        hindsight bench --sizes 1000,10000,100000 --stand-in-above 10000 --json
    """
    from ..errors import InvalidInput
    from ..evals import benchmark
    from . import render, report_tables

    try:
        chosen = [int(part.replace("_", "")) for part in sizes.split(",") if part.strip()]
    except ValueError:
        raise InvalidInput(
            f"--sizes takes whole numbers separated by commas, e.g. 1000,10000; not {sizes!r}."
        ) from None
    if not chosen or min(chosen) < 1:
        raise InvalidInput("--sizes needs at least one size of 1 or more.")
    with render.phased_progress() as update:
        report = benchmark.run(chosen, runs=runs, progress=update, stand_in_above=stand_in_above)
    if json_:
        render.json_doc(report)
    else:
        report_tables.figures_table(report["sizes"], "size")
        render.message(
            f"{report['model']} on {report['machine']['cpus']} CPUs, Python "
            f"{report['machine']['python']}; "
            f"cold figures are the median of {runs} processes; {report['elapsed_s']:.0f} s in all."
        )
