"""The hits table written without Rich is byte for byte the table Rich prints to a pipe."""

from __future__ import annotations

import io
import random
import string

import pytest
from rich.console import Console

from hindsight_cli.cli import plain_table, render
from hindsight_cli.models import Hit, Memory

WORDS = [
    "a",
    "to",
    "the",
    "kafka",
    "consumer",
    "lag",
    "spiked",
    "ECONNREFUSED",
    "127.0.0.1:5432",
    "café",
    "naïve",
    "Ωmega",
    "данные",
    "→",
    "…",
    "[brackets]",
    "key=value",
    "https://example.com/a/very/long/path/that/keeps/going/and/going?with=query&and=more",
]
TYPES = ("episodic", "semantic", "procedural")
OUTCOMES = ("success", "failure", "neutral", "unknown")
AGES = ("2026-03-15T09:30:00.000000Z", "2025-01-01T00:00:00.000000Z", "")


def _word(rng: random.Random) -> str:
    if rng.random() < 0.1:
        # a token longer than any column: folded across lines
        return "".join(rng.choices(string.ascii_letters + string.digits, k=rng.randint(20, 160)))
    if rng.random() < 0.2:
        return "".join(rng.choices(string.ascii_letters, k=rng.randint(1, 30)))
    return rng.choice(WORDS)


def _text(rng: random.Random, most: int) -> str:
    return " ".join(_word(rng) for _ in range(rng.randint(1, most)))


def _hits(rng: random.Random) -> list[Hit]:
    hits = []
    for _ in range(rng.randint(1, 12)):
        memory = Memory(
            id="".join(rng.choices("0123456789abcdef", k=32)),
            content=_text(rng, 70),
            type=rng.choice(TYPES),
            outcome=rng.choice(OUTCOMES),
            resolution=_text(rng, 25) if rng.random() < 0.4 else None,
            event_at=rng.choice(AGES),
        )
        hits.append(Hit(memory, rng.random()))
    return hits


def _rich(hits: list[Hit], width: int) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, soft_wrap=False, highlight=False, force_terminal=False)
    console.print(render._hits_table(hits, False))
    return out.getvalue()


def test_the_plain_table_is_the_table_rich_prints() -> None:
    rng = random.Random(35)
    drawn = 0
    for _ in range(600):
        hits = _hits(rng)
        width = rng.choice((80, 81, 99, 100, 120, 160, rng.randint(80, 260)))
        written = plain_table.table(render.plain_rows(hits), width)
        if written is None:
            continue
        drawn += 1
        assert written == _rich(hits, width), (width, [h.memory for h in hits])
    # most tables are written without Rich
    assert drawn > 500


@pytest.mark.parametrize(
    "content",
    ["日本語のメモ", "emoji 🎉 here", "e\u0301", "zero\u200bwidth", "soft\xadhyphen"],
)
def test_characters_rich_measures_with_its_tables_go_to_rich(content: str) -> None:
    hits = [Hit(Memory(id="0" * 32, content=content), 0.5)]
    assert plain_table.table(render.plain_rows(hits), 100) is None


@pytest.mark.parametrize("field", ["content", "type", "outcome", "id"])
def test_control_characters_are_cells_as_rich_prints_them(field: str) -> None:
    """A control character (a store a checkout ships: its author's ledger) is shown as its escape
    in every cell (reviews BS, BS2), the same table with or without Rich."""
    hits = [Hit(Memory(**{"id": "0" * 32, "content": "a memory", field: "bell\x07\x1b[2K"}), 0.5)]
    written = plain_table.table(render.plain_rows(hits), 100)
    drawn = _rich(hits, 100)
    assert written in (None, drawn) and "\\x1b[2K" in drawn and "\x1b" not in drawn


def test_narrow_widths_go_to_rich() -> None:
    hits = [Hit(Memory(id="0" * 32, content="a short memory"), 0.5)]
    assert plain_table.table(render.plain_rows(hits), 40) is None
