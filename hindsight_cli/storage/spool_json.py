"""JSON for the recording hooks without the json package, whose import (it compiles regular
expressions, and so loads ``re`` and ``enum``) costs ~15 ms, a third of a recording hook's budget.

Decoding runs the C scanner that json itself runs; encoding is a short walk over JSON values with
json's C string escaper. Anything else (a value json would need a ``default`` for, text that does
not parse, an interpreter without ``_json``) goes to the json package, so results and errors are
json's own. tests/test_hooks.py compares both ways with json on a corpus.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..models import JSONValue

# json's whitespace, and nothing else (str.strip() would take more)
_SPACE = " \t\n\r"
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_FLOAT_WORDS = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}

try:
    from _json import encode_basestring as _string, make_scanner
# not CPython: the json package does it all
except ImportError:
    _scan = _string = None  # type: ignore[assignment]
else:

    class _Context:
        """What the C scanner reads from a ``json.JSONDecoder``: json.loads's defaults."""

        strict, object_hook, object_pairs_hook = True, None, None
        parse_float, parse_int, parse_constant = float, int, _CONSTANTS.__getitem__

    _scan = make_scanner(_Context())  # type: ignore[arg-type]  # the C scanner reads these attributes


def loads(text: str) -> JSONValue:
    """``json.loads(text)``; JSON nested deeper than the parser can go, or holding more values
    than hindsight decodes (``safefs.reading.shape_error``: judged on the text, before a value is
    built), is bad JSON (``ValueError``), not a ``RecursionError`` or gigabytes of dicts."""
    from ..safefs.reading import shape_error

    refused = shape_error(text)
    if refused:
        import json

        raise json.JSONDecodeError(refused, "", 0)
    if _scan is not None:
        start = len(text) - len(text.lstrip(_SPACE))
        try:
            value: JSONValue
            value, end = _scan(text, start)
        except Exception:  # noqa: BLE001  (not JSON: json.loads below raises its own error)
            pass
        else:
            if not text[end:].strip(_SPACE):
                return value
    import json

    try:
        decoded: JSONValue = json.loads(text)
    except RecursionError:
        # a line nested deeper than the parser's stack: not JSON hindsight reads
        # (``safefs.reading.parse_json`` says the same), never an error nobody catches
        raise json.JSONDecodeError("nested too deep", "", 0) from None
    return decoded


def whole_characters(value: JSONValue) -> JSONValue:
    """``value`` without lone surrogates in its strings and keys: JSON's escapes (``"\\ud83d"``,
    half an emoji: a string a client cut inside a surrogate pair) decode to them, and UTF-8
    cannot hold one, so a hook's event holding one could not be spooled and was lost (review BU).
    Removed, as the store removes them from what it stores; a value without any comes back as it
    is."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "ignore").decode("utf-8")
        return value
    if isinstance(value, list):
        return [whole_characters(item) for item in value]
    if isinstance(value, dict):
        return {str(whole_characters(key)): whole_characters(item) for key, item in value.items()}
    return value


def dumps(value: object, *, sort_keys: bool = False, compact: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=False, sort_keys=sort_keys)``, with ``separators=(",",
    ":")`` if ``compact``."""
    if _string is not None:
        out: list[str] = []
        try:
            _encode(value, out, sort_keys, ("," if compact else ", ", ":" if compact else ": "))
        except (_Unsupported, RecursionError):
            pass
        else:
            return "".join(out)
    import json

    return json.dumps(
        value, ensure_ascii=False, sort_keys=sort_keys, separators=(",", ":") if compact else None
    )


class _Unsupported(Exception):
    pass


def _encode(value: object, out: list[str], sort_keys: bool, separators: tuple[str, str]) -> None:
    if isinstance(value, str):
        out.append(_string(value))
    elif value is None or value is True or value is False:
        out.append({None: "null", True: "true", False: "false"}[value])
    elif type(value) is int:
        out.append(int.__repr__(value))
    elif type(value) is float:
        text = float.__repr__(value)
        out.append(_FLOAT_WORDS.get(text, text))
    elif isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        out.append("[")
        for position, item in enumerate(value):
            if position:
                out.append(separators[0])
            _encode(item, out, sort_keys, separators)
        out.append("]")
    elif isinstance(value, dict) and type(value) is dict and all(type(key) is str for key in value):
        out.append("{")
        for position, key in enumerate(sorted(value) if sort_keys else value):
            if position:
                out.append(separators[0])
            out += [_string(key), separators[1]]
            _encode(value[key], out, sort_keys, separators)
        out.append("}")
    else:
        # subclasses, keys that are not strings, other types: json decides
        raise _Unsupported
