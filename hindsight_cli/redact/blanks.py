"""Long runs of blanks, shortened for the rules to read (``redact._apply``).

A rule that reads blanks in two runs with only what may be empty between them (``[ \\t]*:?[ \\t]+``)
splits a run every way before a word that does not come, in its square; forty-odd rules of the
redactor's had that shape and each review found more of them (64 KB of blanks after ``1/3``,
``4827`` or ``unlock code`` took one to four minutes). The rules now read a view of the text in
which every run of more than ``KEEP`` blanks (spaces, tabs, line ends) keeps only its first and
last ``KEEP // 2``, so no rule ever splits more than ``KEEP``; what they find is mapped back onto
the text, which keeps its own blanks. A secret is never split by such a run, and a label is never
that far from its value in any format the rules know (column-aligned files pad with a few dozen at
most: ``KEEP`` is 64).
"""

from __future__ import annotations

KEEP = 64
_BLANKS = str.maketrans("\t\r\n", "   ")


def view(text: str) -> tuple[str, list[int] | None]:
    """``text`` with each run of more than ``KEEP`` blanks cut to its ends, and where each of the
    view's positions (and its end) lies in ``text``; ``text`` and None when it has no such run."""
    if len(text) <= KEEP:
        return text, None
    flat = text.translate(_BLANKS)
    run = " " * (KEEP + 1)
    start = flat.find(run)
    if start < 0:
        return text, None
    half = KEEP // 2
    pieces: list[str] = []
    where: list[int] = []
    last = 0
    while start >= 0:
        end = start + KEEP + 1
        while end < len(flat) and flat[end] == " ":
            end += 1
        pieces += [text[last : start + half], text[end - half : end]]
        where += range(last, start + half)
        where += range(end - half, end)
        last = end
        start = flat.find(run, end)
    pieces.append(text[last:])
    where += range(last, len(text) + 1)
    return "".join(pieces), where
