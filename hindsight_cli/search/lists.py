"""Questions that ask for several things ("what are her hobbies", "which books has he read", "what
kinds of …"): their answers are spread over many sessions, so the first hits should not all come
from one. ``spread`` lets at most ``Ranking.list_per_task`` of a task's hits go before every other
task has had its turn; the order within each part is kept."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Hashable, Sequence

# what/which, then words that do not name the thing yet, then a plural: "what are X's hobbies",
# "which books", "what kinds of music"
_SEVERAL = re.compile(
    r"^\W*(?:what|which)\s+(?:(?:are|were|have|has|did|do|does|the|some|all|of|\w+'s|\w+s')\s+)*"
    r"(?P<plural>[a-z]+s)\b",
    re.IGNORECASE,
)
_KINDS = re.compile(r"\b(?:kinds|types|sorts)\s+of\b|\blist\b|\bname\s+(?:some|all|the)\b", re.I)
# words ending in s that are not plurals of a thing
_NOT_PLURAL = frozenset(
    "is was has does this his hers its yes us as thus always perhaps whereas less"
    " across unless".split()
)


def asks_for_several(text: str) -> bool:
    """Whether a question asks for several things of a kind (a list)."""
    if _KINDS.search(text):
        return True
    match = _SEVERAL.match(text)
    if not match:
        return False
    word = match.group("plural").lower()
    return word not in _NOT_PLURAL and not word.endswith("ss")


def spread(order: Sequence[str], task_of: Callable[[str], Hashable], per_task: int) -> list[str]:
    """``order`` with at most ``per_task`` hits of one task first (in order), then the rest (in
    order)."""
    counts: Counter[Hashable] = Counter()
    first: list[str] = []
    later: list[str] = []
    for mid in order:
        task = task_of(mid)
        if counts[task] < per_task:
            counts[task] += 1
            first.append(mid)
        else:
            later.append(mid)
    return first + later


def as_list(
    order: list[str], task_of: Callable[[str], Hashable], query: str, per_task: int
) -> list[str]:
    """``order`` spread over tasks (``spread``) when ``query`` asks for several things and
    ``per_task`` is set; else ``order`` itself."""
    if not per_task or not query or not asks_for_several(query):
        return order
    return spread(order, task_of, per_task)
