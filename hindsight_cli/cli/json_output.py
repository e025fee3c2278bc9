"""JSON on stdout, for scripts (``--json``, ``--nl``), with ``--fields`` applied: no Rich here."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from ..text import json_text
from .options import FIELDS


def json_doc(value: object) -> None:
    sys.stdout.write(json_text(_only_fields(value), indent=2) + "\n")


def json_lines(values: Iterable[object]) -> None:
    for value in values:
        sys.stdout.write(json_text(_only_fields(value)) + "\n")


def _only_fields(value: object) -> object:
    """``value`` with only the ``--fields`` keys of each object (the object, or a list's objects);
    an unknown field is a usage error that lists the known ones."""
    fields = FIELDS[0]
    if not fields:
        return value
    objects = [value] if isinstance(value, dict) else value if isinstance(value, list) else []
    known = list(dict.fromkeys(k for o in objects if isinstance(o, dict) for k in o))
    unknown = [f for f in fields if f not in known]
    if unknown and known:
        from ..errors import BadUsage

        raise BadUsage(
            f"Unknown field{'s' if len(unknown) > 1 else ''} for --fields: {', '.join(unknown)}. "
            f"The fields are: {', '.join(known)}."
        )

    def only(item: object) -> object:
        return {k: item[k] for k in fields if k in item} if isinstance(item, dict) else item

    return [only(v) for v in value] if isinstance(value, list) else only(value)
