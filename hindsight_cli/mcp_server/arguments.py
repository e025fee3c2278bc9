"""What a model reads when it sent a tool or prompt the wrong arguments: one sentence per mistake
that names the argument, says what was wrong and what to send instead, in the tool's own argument
names. Never pydantic's dump (its error codes, ``input_type``, its documentation links), never the
CLI's spelling (``--task``, ``-`` for stdin), which the core's shared messages use."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

# what a value is, in the model's (JSON's) words
_KINDS = ((bool, "a boolean"), (int, "a number"), (float, "a number"), (str, "a string"))
# at most this many mistakes in one answer: the first few are enough to fix the call
MOST = 3
# shown values longer than this are cut
SHOWN = 40


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return next((word for type_, word in _KINDS if isinstance(value, type_)), "another type")


def shown(value: Any) -> str:
    """``value`` as JSON, cut to SHOWN characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _where(loc: Sequence[Any]) -> str:
    """``tags[0]``, ``env["tool_version"]``: the argument, then the place inside it."""
    name = str(loc[0]) if loc else "arguments"
    for part in loc[1:]:
        name += f"[{part}]" if isinstance(part, int) else f"[{json.dumps(str(part))}]"
    return name


def _list_example(value: Any) -> str:
    """The list a caller meant, its first items each cut as ``shown`` cuts a value (a string of
    50,000 tags was told back whole, a 589 KB sentence; review BT)."""
    if isinstance(value, str):
        items = [item.strip() for item in value.split(",", MOST) if item.strip()] or ["…"]
        if len(items) > MOST:
            items[MOST:] = ["…"]
        return "[" + ", ".join(shown(item) for item in items) + "]"
    return f"[{shown(value)}]" if value is not None else '["…"]'


_JSON_TYPES = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a JSON object",
}


def expected(schema: Mapping[str, Any]) -> str:
    """What a parameter's JSON schema asks for, in words ("a string")."""
    options = [schema, *schema.get("anyOf", ())]
    for option in options:
        if "enum" in option:
            return "one of " + ", ".join(json.dumps(value) for value in option["enum"])
        if option.get("type") in _JSON_TYPES:
            return _JSON_TYPES[option["type"]]
    return "a value"


def _problem(kind: str, value: Any, ctx: Mapping[str, Any], msg: str) -> str:
    """What is wrong with one value and what to send instead (after "NAME ")."""
    not_this = f", not {shown(value)}"
    if kind == "missing":
        return f"is missing: it is required ({ctx.get('expected', 'a value')})"
    if kind == "extra_forbidden":
        return "is not an argument of this tool"
    if kind == "list_type":
        return f"must be a list, e.g. {_list_example(value)}, not {_kind(value)}"
    if kind == "dict_type":
        return f'must be a JSON object, e.g. {{"key": "value"}}, not {_kind(value)}'
    if kind == "string_type":
        example = f" e.g. {json.dumps(str(value))}," if isinstance(value, (int, float)) else ""
        return f"must be a string,{example} not {_kind(value)}"
    if kind in ("int_type", "int_parsing", "int_from_float", "int_parsing_size"):
        return f"must be a whole number{not_this}"
    if kind in ("float_type", "float_parsing", "finite_number"):
        return f"must be a number{not_this}"
    if kind in ("bool_type", "bool_parsing"):
        return f"must be true or false{not_this}"
    if kind in ("literal_error", "enum"):
        return f"must be one of {ctx.get('expected', '…')}{not_this}"
    bounds = {
        "greater_than_equal": ("at least", "ge"),
        "greater_than": ("more than", "gt"),
        "less_than_equal": ("at most", "le"),
        "less_than": ("less than", "lt"),
    }
    if kind in bounds:
        words, key = bounds[kind]
        bound = ctx.get(key)
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        return f"must be {words} {bound}{not_this}"
    if kind in ("too_long", "string_too_long"):
        return f"is too long: at most {ctx.get('max_length')} {'characters' if 'string' in kind else 'items'}"
    if kind in ("too_short", "string_too_short"):
        return f"is too short: at least {ctx.get('min_length')}"
    # anything else in pydantic's own one-line words (its msg has no link)
    return f"is not valid ({msg[:1].lower() + msg[1:]}){not_this}"


def explain(
    what: str,
    errors: Iterable[Mapping[str, Any]],
    properties: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """One sentence for a ``ValidationError``'s ``errors()``: "Invalid arguments for memory_search:
    top_k must be at least 1, not 0.". ``properties``: the input schema's, for what a missing
    argument should be."""
    # the sentences kept once each, in a dict: a list's ``in`` compared each with all before it, so
    # a call whose list argument held 20,000 items of the wrong type took 3.8 s in the server's
    # event loop, 200,000 (a 1 MB request) minutes, every principal's calls waiting (review BT)
    seen: dict[str, None] = {}
    for error in errors:
        loc = [part for part in error.get("loc", ()) if part != "__root__"]
        kind = str(error.get("type", ""))
        ctx = dict(error.get("ctx") or {})
        if kind == "missing" and loc and properties and str(loc[0]) in properties:
            ctx["expected"] = expected(properties[str(loc[0])])
        sentence = f"{_where(loc)} " + _problem(
            kind, error.get("input"), ctx, str(error.get("msg", ""))
        )
        seen.setdefault(sentence)
    shown = list(seen)[:MOST]
    more = f" (and {len(seen) - MOST} more)" if len(seen) > MOST else ""
    return f"Invalid arguments for {what}: {'; '.join(shown)}{more}."


def unknown(what: str, given: Iterable[str], accepted: Sequence[str]) -> str | None:
    """The sentence for arguments ``what`` does not take, with the nearest name when one is close;
    None when every argument is known."""
    strangers = [name for name in given if name not in accepted]
    if not strangers:
        return None
    parts = []
    for name in strangers[:MOST]:
        close = difflib.get_close_matches(name, accepted, n=1, cutoff=0.6)
        parts.append(f'"{name}" (did you mean "{close[0]}"?)' if close else f'"{name}"')
    noun = "argument" if len(strangers) == 1 else "arguments"
    return (
        f"Invalid arguments for {what}: it has no {noun} {', '.join(parts)}; it takes "
        f"{', '.join(accepted) or 'no arguments'}."
    )


# the CLI's words in the core's shared messages, and the tool's
_COMMANDS = (
    (re.compile(r"`hindsight record TEXT --supersedes (\S+)`"), r"memory_write with supersedes \1"),
    (re.compile(r"`hindsight edit (\S+)`"), r"memory_write with id \1"),
    (re.compile(r"`hindsight list` or `hindsight search`"), "memory_search"),
    (re.compile(r" \(or `-` to read it from stdin\)"), ""),
    (re.compile(r"\(use --meta KEY=VALUE\)"), '(e.g. {"key": "value"})'),
)
_FLAGS = {
    "task": "task_id",
    "agent": "agent_id",
    "tag": "tags",
    "meta": "metadata",
    "budget": "budget_tokens",
    "limit": "top_k",
    "no-merge": "merge=false",
    "hard": "hard=true",
    "archive": "archive=true",
}
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z-]*[a-z])(?![\w-])")


def tool_words(text: str, arguments: Collection[str]) -> str:
    """``text`` with each CLI option that stands for one of ``arguments`` written as that argument
    (``--task`` → ``task_id``, ``--no-merge`` → ``merge=false``); other options (``--store``,
    which configures the server) stay."""
    for pattern, words in _COMMANDS:
        text = pattern.sub(words, text)

    def argument(match: re.Match[str]) -> str:
        flag = match.group(1)
        name = _FLAGS.get(flag, flag.replace("-", "_"))
        return name if name.split("=")[0] in arguments else match.group(0)

    return _FLAG.sub(argument, text)
