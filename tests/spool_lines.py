"""Spool lines as this user's hooks write them: tagged with the store's spool secret
(``safefs/spool_key.py``), which ingestion checks. Tests that plant a raw line in
``spool/events.jsonl`` (one nested deep, one the store refuses) write it through here, so the line
is refused for what it holds, not for a missing tag."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hindsight_cli.safefs import spool_key
from hindsight_cli.storage import spool


def tagged(store: Path, line: str | dict[str, Any]) -> str:
    """``line`` (a JSON object's text, or the object) as the hooks spool it into ``store``."""
    text = line if isinstance(line, str) else json.dumps(line, separators=(",", ":"))
    key = spool_key.of(store, create=True)
    assert key is not None, f"{store} has no id: no spool secret"
    return key.tag(text)


def write(store: Path, *lines: str | dict[str, Any], name: str = spool.EVENTS) -> Path:
    """Append ``lines``, tagged, to ``store``'s spool file ``name`` (its events by default)."""
    path = store / spool.SPOOL_DIR / name
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.writelines(tagged(store, line) + "\n" for line in lines)
    return path
