"""Category words and their instances: a query that asks for a kind of thing ("hobbies", "sick",
"pets") also asks, on its keyword side, for the things of that kind ("photography", "flu", "dog"),
which a memory names without ever naming the kind. A small lexicon of general knowledge, offline,
no model (``Ranking.expand_categories``)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from ..config import Ranking
from ..text import terms
from .lists import asks_for_several
from .query import keyword_terms

_HOBBIES = (
    "photography painting drawing piano guitar violin drums singing dancing hiking camping "
    "fishing cooking baking gardening knitting pottery reading writing poetry yoga running "
    "swimming cycling surfing skiing climbing kickboxing boxing chess gaming volunteering"
)
_SPORTS = (
    "football soccer basketball baseball tennis golf hockey volleyball rugby cricket swimming "
    "running marathon cycling skiing snowboarding surfing boxing wrestling climbing"
)
_ILLNESS = (
    "flu cold fever infection virus covid cough injury injured hospital surgery doctor allergy "
    "cancer pain headache migraine diabetes asthma broken sprained"
)
_FAMILY = (
    "mother father mom dad parents sister brother son daughter kids children wife husband "
    "grandmother grandfather grandma grandpa aunt uncle cousin"
)
_PETS = "dog dogs puppy cat cats kitten hamster rabbit bunny parrot bird fish turtle horse"
_INSTRUMENTS = "piano guitar violin drums flute cello saxophone trumpet ukulele clarinet"
_FOOD = (
    "pasta pizza sushi salad soup curry tacos burger sandwich cake cookies bread pie steak "
    "noodles rice chicken dessert"
)
_ART = "painting drawing sculpture pottery photography sketch canvas mural ceramics"
_OUTDOORS = "hiking camping fishing kayaking canoeing climbing beach mountains trail lake park"
_EVENTS = "party concert festival wedding conference parade fair show exhibition game"
_TRAVEL = "trip vacation holiday flight visited travelled traveled abroad tour road"
_EXERCISE = "gym running yoga lifting weights cycling swimming pilates workout jogging"
_FEELINGS = "happy sad excited nervous anxious stressed proud grateful angry scared lonely"
_MEDIA = "movie film book novel show series album song podcast documentary"
_WORK = "job career work company office boss promotion business startup project"

# a category word (as the keyword side spells it) → its instances
_LEXICON = {
    "hobby": _HOBBIES,
    "hobbies": _HOBBIES,
    "activity": _HOBBIES,
    "activities": _HOBBIES,
    "interests": _HOBBIES,
    "pastime": _HOBBIES,
    "sport": _SPORTS,
    "sports": _SPORTS,
    "sick": _ILLNESS,
    "ill": _ILLNESS,
    "illness": _ILLNESS,
    "health": _ILLNESS,
    "medical": _ILLNESS,
    "family": _FAMILY,
    "relatives": _FAMILY,
    "pet": _PETS,
    "pets": _PETS,
    "animal": _PETS,
    "animals": _PETS,
    "instrument": _INSTRUMENTS,
    "instruments": _INSTRUMENTS,
    "food": _FOOD,
    "dish": _FOOD,
    "dishes": _FOOD,
    "meal": _FOOD,
    "cuisine": _FOOD,
    "art": _ART,
    "artwork": _ART,
    "outdoor": _OUTDOORS,
    "outdoors": _OUTDOORS,
    "event": _EVENTS,
    "events": _EVENTS,
    "travel": _TRAVEL,
    "places": _TRAVEL,
    "exercise": _EXERCISE,
    "fitness": _EXERCISE,
    "feel": _FEELINGS,
    "feeling": _FEELINGS,
    "feelings": _FEELINGS,
    "emotions": _FEELINGS,
    "media": _MEDIA,
    "entertainment": _MEDIA,
    "career": _WORK,
    "profession": _WORK,
}


@cache
def _instances() -> dict[str, tuple[str, ...]]:
    """The lexicon keyed and valued by keyword terms (stemmed as the keyword side stems)."""
    out: dict[str, tuple[str, ...]] = {}
    for word, instances in _LEXICON.items():
        for key in terms(word):
            out[key] = tuple(dict.fromkeys([*out.get(key, ()), *terms(instances)]))
    return out


def expand(words: Sequence[str]) -> list[str]:
    """``words`` and then the instances of every category word among them, each once."""
    lexicon = _instances()
    out = list(words)
    seen = set(out)
    for word in words:
        for instance in lexicon.get(word, ()):
            if instance not in seen:
                seen.add(instance)
                out.append(instance)
    return out


def search_terms(text: str, weights: Ranking) -> list[str]:
    """The keyword side of a query as search asks it: ``query.keyword_terms``, then (with
    ``expand_categories``) the instances of its category words."""
    words = keyword_terms(text, weights.derived_forms)
    return expand(words) if weights.expand_categories and asks_for_several(text) else words
