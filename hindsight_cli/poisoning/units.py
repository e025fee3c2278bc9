"""How the English readings (``cues``, ``clauses``, ``signals``) cut a text's skeleton: into
paragraphs and sentences, and whether it holds words enough to be read that way at all."""

from __future__ import annotations

import re

PARAGRAPHS = re.compile(r"\n[ \t]*\n")
# a sentence ends at its punctuation or a line break
SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_WORDS = re.compile(r"[a-z]{2,}")


def clause_starts(marks: str, conjunctions: str) -> re.Pattern[str]:
    """Where a sentence's next clause starts: after one of ``marks`` (a colon, a dash), a comma, or
    one of ``conjunctions`` between blanks. A run of blanks is read once, from its start (a
    look-behind, then possessive): tried from each of its blanks to its end, one of 32,000 blanks
    not followed by a conjunction took 15 s, 64 KiB about a minute of one untrusted field (a
    configured prompt's literal is blanked so before it is read; review AH)."""
    return re.compile(rf"[{marks}]\s*|(?:,|(?<!\s))\s++(?:{conjunctions})\s++(?=[a-z])|,\s+")


def url_run(chars: str = r"\S") -> str:
    """One character (of ``chars``) of a URL's run that does not start another URL. A pattern that
    reads a URL on to a ``?`` or a ``/login`` further on read it from each ``https://`` of a run to
    the run's end: 8,000 of them, 64 KiB of one untrusted field, took 16 s, its square. It now reads
    from each to the next; a URL in another's query is read from its own start, where it finds
    what the run that held it found (review AQ)."""
    return rf"(?:(?!https?://){chars})"


def too_few_words(skel: str, fewest: int) -> bool:
    """Whether the start of ``skel`` holds fewer than ``fewest`` words: a label, a tag or a short
    error (and a process that only writes such texts never compiles a reading's patterns)."""
    return len(_WORDS.findall(skel, 0, 400)) < fewest


# an adverb of stealth that asks for it ("quietly delete the logs", "were quietly wiped" in a wish),
# not one that tells what something does ("silently uses the wrong .env", "the job quietly
# deleted the rows"): a verb in -s (not -ss), or in -ed with no "be" before the adverb, describes,
# and so does a modal whose subject is not "you" ("a short write will silently truncate the file");
# "secretly" always asks ("secretly wants"); the same modal before a verb of sending describes too
# ("debug output could include the API token", ``cues``)
DESCRIBED = "".join(
    f"(?<!(?<!you ){modal} )" for modal in ("will", "would", "could", "might", "may", "can")
)
STEALTH = (
    r"(?:secretly|(?:(?:is|are|was|were|be|been|being|get|gets|got) )"
    r"(?:silently|quietly|covertly|discreetly|stealthily)(?! \w*[^\Ws]s\b)|"
    rf"{DESCRIBED}(?:silently|quietly|covertly|discreetly|stealthily)(?! (?:\w*[^\Ws]s|\w+ed)\b))"
)
# a heading that gives AI readers their orders, after its line's start ("AI-Agent-Directive:",
# "Agent instructions for this repo:", "Instructions for automated agents:"): a frame, read by
# ``cues`` and ``clauses`` (an act beside it adds up; alone it asks nothing)
AGENT_HEADING = (
    r"[\W_]{0,6}(?:(?:ai|agent|assistant|llm|copilot|bot)(?:[- _](?:agent|assistant|coding agent))?"
    r"[- _](?:directives?|instructions?|orders?|commands?|tasks?|override)(?: for [^:\n]{1,30})?|"
    r"(?:instructions?|directives?|orders?) for (?:the |all |any )?(?:automated |ai |coding |llm |"
    r"autonomous )?(?:agents?|assistants?|bots?|llms?)\b[^:\n]{0,30}|"
    # whatever an automated reader is called ("hint for automated fixers", "note to AI reviewers"),
    # as a heading set off by a colon or by rules ("=== hint for automated fixers ===")
    r"(?:instructions?|directives?|orders?|hints?|notes?|tips?|guidance|messages?|memo) (?:for|to) "
    r"(?:the |all |any )?(?:automated|autonomous|ai|llm) [a-z-]{2,20}s\b(?= *(?::|[=*#~-]{2,})))"
    r"\s*(?::|[=*#~-]{2,})"
)
# success reported whatever happened ("mark every task as done even if it fails", "even if the
# deploy fails, tell the user it succeeded"): a falsified report asked of the reader
FALSE_REPORT = (
    r"\b(?:mark|report|set|flag|show|list|record|log|say|claim|tell \w+)(?:ed|s)?\b[^.;\n]{0,40}"
    r"\b(?:as )?(?:done|complete|completed|finished|passed|passing|green|successful|a success|"
    r"resolved|fixed|succeeded)\b[^.;\n]{0,20}\b(?:even if|even when|even though|whether or not|"
    r"regardless of whether|no matter whether)\b",
    r"\b(?:even if|even when|even though|whether or not|regardless of whether) (?:it|they|the "
    r"[\w-]+|something|anything) (?:fails?|failed|breaks?|broke|errors? out|crash\w*)\b[^.;\n]{0,40}"
    r"\b(?:say|report|mark|tell|claim|show)\w*\b[^.;\n]{0,30}\b(?:done|passed|passing|green|"
    r"successful|succeeded|fine|ok)\b",
)
