"""Long memories in chunks (issue 17, point 3): the model reads 256 word pieces, so a longer text is
embedded in overlapping windows and searched by its best one; without this, everything after the
first window is invisible to the vector side (docs/benchmarks.md: 0.21 of answers late in a long
memory found in the top 3 by its first window, 0.69 by its best chunk, 0.60 by the mean of its
chunks).

The windows follow the bundled model's own word pieces (its tokenizer's offsets); other models get
windows of characters of about the same length.
"""

from __future__ import annotations

import functools
from typing import Any

from ..config import DEFAULT_MODEL

# word pieces in a window (256 less [CLS] and [SEP])
WINDOW = 254
# a window starts this many pieces after the one before: 62 pieces of overlap
STRIDE = 192
# for models whose tokenizer we do not hold
_CHARS, _CHAR_STRIDE = 1000, 768


@functools.cache
def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    from ..embedding import bundled_model_dir

    tokenizer = Tokenizer.from_file(str(bundled_model_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _by_pieces(text: str) -> list[str]:
    encoding = _tokenizer().encode(text, add_special_tokens=False)
    offsets, words = encoding.offsets, encoding.word_ids
    if len(offsets) <= WINDOW:
        return [text]

    # the first piece of the word the piece at ``at`` is part of
    def whole(at: int) -> int:
        while 0 < at < len(words) and words[at] is not None and words[at] == words[at - 1]:
            at -= 1
        return at

    out, start = [], 0
    while True:
        end = len(offsets) if start + WINDOW >= len(offsets) else whole(start + WINDOW)
        # one word longer than a window
        end = end if end > start else min(start + WINDOW, len(offsets))
        out.append(text[offsets[start][0] : offsets[end - 1][1]])
        if end == len(offsets):
            return out
        start = max(whole(start + STRIDE), start + 1)


def _by_chars(text: str) -> list[str]:
    if len(text) <= _CHARS:
        return [text]
    out, start = [], 0
    while start < len(text):
        end = min(start + _CHARS, len(text))
        # end at white space, so no word is cut in two
        if end < len(text) and not text[end].isspace():
            space = text.rfind(" ", start + 1, end)
            end = space if space > start else end
        out.append(text[start:end].strip())
        if end >= len(text):
            break
        nxt = min(start + _CHAR_STRIDE, end)
        # start at a word's start
        if nxt > 0 and not text[nxt - 1].isspace():
            space = text.rfind(" ", start + 1, nxt)
            nxt = space + 1 if space > start else nxt
        start = nxt
    return [piece for piece in out if piece]


def split(text: str, model: str) -> list[str]:
    """The windows ``text`` is embedded in: one for a text the model reads whole."""
    # every word piece covers at least one character
    if len(text) <= WINDOW:
        return [text]
    return _by_pieces(text) if model == DEFAULT_MODEL else _by_chars(text)
