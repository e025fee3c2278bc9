"""JSON and TOML that someone else wrote (a client config or a store config a repository ships, a
file to import, a tool's output in a transcript), parsed with a bound on nesting.

Python's parsers recurse: text nested a few thousand levels deep (a few kilobytes of ``[``) raised
RecursionError, which no caller expected, so a command showed a traceback, and a value nested a few
hundred levels parsed but broke whatever walked it next. Nesting past ``MAX_DEPTH`` is refused as the
format's own parse error (``json.JSONDecodeError``, ``tomllib.TOMLDecodeError``, both ValueError),
which every caller already turns into its one-line message or skips.

Standard library only.
"""

from __future__ import annotations

from typing import Any

# levels of arrays and objects (tables); no config, export or tool output hindsight reads needs more
MAX_DEPTH = 64


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON or TOML) nests lists and dicts deeper than ``limit``; walked
    without recursion."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth >= limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _deep(limit: int) -> str:
    return f"nested deeper than {limit} levels"


def json_loads(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """``json.loads(text)``; nesting past ``limit`` raises ``json.JSONDecodeError``."""
    import json

    try:
        value = json.loads(text)
    except RecursionError:
        value = None
        deep = True
    else:
        deep = too_deep(value, limit)
    if deep:
        shown = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError(_deep(limit), shown, 0)
    return value


def toml_loads(text: str, limit: int = MAX_DEPTH) -> dict[str, Any]:
    """``tomllib.loads(text)``; nesting past ``limit`` raises ``tomllib.TOMLDecodeError``."""
    import tomllib

    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(_deep(limit)) from None
    if too_deep(value, limit):
        raise tomllib.TOMLDecodeError(_deep(limit))
    return value
