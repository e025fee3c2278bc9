"""The ``[hooks]`` settings that decide what the hooks do, read without parsing TOML when no
config file sets a ``[hooks]`` key (a recording hook has 50 ms in all)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    # each setting: a flag or a token budget
    Value = bool | int


class Settings:
    """The ``[hooks]`` settings that decide what the hooks do. (A plain class: a recording hook
    must start fast, and importing ``dataclasses`` alone costs it ~15 ms.)"""

    recall: bool
    recall_budget: int
    repeat_recall: bool
    repeat_budget: int
    warm_recall: bool
    record_failures: bool
    record_prompts: bool
    summarize: bool
    daily_budget: int
    session_budget: int
    DEFAULTS: dict[str, Value] = {
        "recall": True,
        "recall_budget": 800,
        "repeat_recall": True,
        "repeat_budget": 400,
        "warm_recall": True,
        "record_failures": True,
        "record_prompts": True,
        "summarize": True,
        "daily_budget": 0,
        "session_budget": 0,
    }

    def __init__(self, **values: Value) -> None:
        for name, default in self.DEFAULTS.items():
            setattr(self, name, values.get(name, default))


def settings(store: str) -> Settings:
    """The effective ``[hooks]`` settings; config files without such a section cost no TOML
    parsing."""
    from .. import paths

    files = (
        os.path.join(paths.user_dir("config"), paths.CONFIG_FILE),
        os.path.join(store, paths.CONFIG_FILE),
    )
    if not any(sets_hooks(_read(path)) for path in files):
        return Settings()
    from pathlib import Path

    from ..config import load
    from ..errors import InvalidInput

    config = load(Path(store))
    for name, default in Settings.DEFAULTS.items():
        if type(getattr(config, f"hooks_{name}")) is not type(default):
            raise InvalidInput(f"[hooks] {name} must be {type(default).__name__}, fix config.toml.")
    return Settings(**{name: getattr(config, f"hooks_{name}") for name in Settings.DEFAULTS})


def sets_hooks(text: str) -> bool:
    """Whether a config file may set a ``[hooks]`` key. The file a new store gets has the section
    with every key commented out: parsing it (and importing the config module) cost every hook
    ~20 ms for nothing. Anything else that mentions hooks outside a comment is parsed."""
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and "]" in line:
            name = line.split("]", 1)[0].strip("[ \t")
            inside = name == "hooks" and not line.startswith("[[")
            if "hooks" in name and not inside:
                return True
        elif inside or "hooks" in line:
            return True
    return False


def _read(path: str) -> str:
    from ..safefs.reading import MAX_SMALL, read_regular

    try:
        return read_regular(path, MAX_SMALL).decode("utf-8", errors="replace")
    except OSError:
        return ""
