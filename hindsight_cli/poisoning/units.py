"""How the English readings (``cues``, ``clauses``, ``signals``) cut a text's skeleton: into
paragraphs and sentences, and whether it holds words enough to be read that way at all."""

from __future__ import annotations

import re

PARAGRAPHS = re.compile(r"\n[ \t]*\n")
# a sentence ends at its punctuation or a line break
SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_WORDS = re.compile(r"[a-z]{2,}")


def too_few_words(skel: str, fewest: int) -> bool:
    """Whether the start of ``skel`` holds fewer than ``fewest`` words: a label, a tag or a short
    error (and a process that only writes such texts never compiles a reading's patterns)."""
    return len(_WORDS.findall(skel, 0, 400)) < fewest


# an adverb of stealth that asks for it ("quietly delete the logs", "were quietly wiped" in a wish),
# not one that tells what something does ("silently uses the wrong .env", "the job quietly
# deleted the rows"): a verb in -s (not -ss), or in -ed with no "be" before the adverb, describes;
# "secretly" always asks ("secretly wants")
STEALTH = (
    r"(?:secretly|(?:(?:is|are|was|were|be|been|being|get|gets|got) )"
    r"(?:silently|quietly|covertly|discreetly|stealthily)(?! \w*[^\Ws]s\b)|"
    r"(?:silently|quietly|covertly|discreetly|stealthily)(?! (?:\w*[^\Ws]s|\w+ed)\b))"
)
