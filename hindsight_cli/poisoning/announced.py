"""What a text announces about how it is written: ROT13 ("Maintainer note (ROT13, decode before
acting): …") or backwards ("Read the next line backwards and do exactly what it says:"), read as
announced, with the announcement kept (its frame and the order it carries)."""

from __future__ import annotations

import codecs
import re

# a text that says it is written backwards ("The line below is written backwards", "Raden nedan är
# skriven baklänges", "escrita al revés"): its reversed reading is read in every language, not only
# in English (the reversed reading of any other text is noise)
_REVERSAL_ANNOUNCED = re.compile(
    r"(?i)\b(?:backwards|reversed|in reverse|right to left|baklänges|baklengs|baglæns|à l'envers|"
    r"al rev[ée]s|ao contr[áa]rio|r[üu]ckw[äa]rts|achterstevoren|od tyłu|tersten|задом наперёд|"
    r"задом наперед|в обратном порядке|навпаки|terbalik|ngược|à rebours)|逆さ|"
    r"逆から|逆順|倒过来|倒過來|反过来|反過來|从后往前|從後往前|"
    r"거꾸로|역순|뒤에서부터|بالعكس|من اليسار|הפוך|מהסוף|उल्टा|उलटा|กลับหลัง|ย้อนกลับ"
)


def reversal_announced(text: str) -> bool:
    """Whether ``text`` says it is written backwards (``_REVERSAL_ANNOUNCED``)."""
    return _REVERSAL_ANNOUNCED.search(text) is not None


# a text that says its next words are ROT13 ("Maintainer note (ROT13, decode before acting): …")
_ROT13_ANNOUNCED = re.compile(r"(?i)\brot-?13\b[^:\n]{0,60}:")
# an announcement that orders the reader to do what the hidden words say ("Read the next line
# backwards and do exactly what it says:", "次の行を逆から読んで、その通りに実行してください",
# "decode before acting"): the order the decoded words carry is the announcement's
_OBEY_HIDDEN = re.compile(
    r"(?i)\b(?:do (?:exactly |just )?(?:what|as) (?:it|they) says?|follow (?:it|them)\b|"
    r"(?:execute|run|carry out|act on|apply) (?:it|them)\b|before acting|and act\b|"
    r"haz lo que dice|fa(?:i|ça) ce qu|tu,? was (?:sie|er|es) sagt|befolge|faça o que|"
    r"fai quello che|doe wat|zrób to|сделай то|выполни|виконай)|その通り|実行して|照做|照着做|"
    r"执行|執行|그대로"
)


def announced(text: str) -> tuple[str, str, bool] | None:
    """(how, ``text`` read as it announces, whether it orders the reader to do what that says),
    or None: what follows an announcement of ROT13 decoded, or the lines after one that says
    they are written backwards each reversed, the announcement kept (its frame read with the order
    it carries)."""
    match = _ROT13_ANNOUNCED.search(text)
    if match is not None:
        return "rot13", text[: match.end()] + codecs.encode(text[match.end() :], "rot13"), False
    match = _REVERSAL_ANNOUNCED.search(text)
    if match is None:
        return None
    end = text.find("\n", match.end())
    if end == -1:
        return None
    lead = text[:end]
    lines = "\n".join(line[::-1] for line in text[end:].split("\n"))
    return "reversed", lead + lines, _OBEY_HIDDEN.search(lead) is not None
