"""Regenerate the generated files: completions/ and docs/reference.md.

    python tests/generate_docs.py

tests/test_docs.py runs the same functions and fails when the checked-in files are stale.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

REPO = Path(__file__).resolve().parent.parent
SHELLS = ("bash", "zsh", "fish")


def _run(args: list[str], env: dict[str, str] | None = None) -> str:
    from hindsight_cli.cli import app

    result = CliRunner().invoke(
        app, args, prog_name="hindsight", env={"COLUMNS": "100", **(env or {})}
    )
    assert result.exit_code == 0, result.output
    return result.stdout


def completion(shell: str) -> str:
    return _run([], env={"_HINDSIGHT_COMPLETE": f"source_{shell}"})


def command_names() -> list[str]:
    from typer.main import get_command

    from hindsight_cli.cli import app

    return list(get_command(app).commands)  # type: ignore[attr-defined]


def reference() -> str:
    parts = [
        "# Command reference\n",
        "Generated from the program by `python tests/generate_docs.py`; do not edit by hand.\n",
        "```\n$ hindsight --help\n" + _run(["--help"]) + "```\n",
    ]
    for name in command_names():
        parts.append(
            f"## hindsight {name}\n\n```\n$ hindsight {name} --help\n"
            + _run([name, "--help"])
            + "```\n"
        )
    return "\n".join(parts)


def main() -> None:
    for shell in SHELLS:
        (REPO / "completions" / f"hindsight.{shell}").write_text(completion(shell))
    (REPO / "docs" / "reference.md").write_text(reference())


if __name__ == "__main__":
    main()
