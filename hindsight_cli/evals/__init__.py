"""Benchmarks and evaluations: tools that measure the library, not part of it.

``benchmark``: speed and scale (``hindsight bench``); ``floor``: the floors its figures are read
against; ``locomo``: retrieval quality on LoCoMo-format data (``hindsight eval locomo``);
``measure``: the measuring tools they share.
"""
