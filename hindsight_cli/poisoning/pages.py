"""A page's own parts read for what they are: its install step, instructions to its human reader
(a README's `To install, run:` then `curl … | sh`, a Dockerfile's `RUN`), and a Markdown image whose
URL holds a placeholder the text tells its reader to fill with a secret."""

from __future__ import annotations

import re

# a download run as a page's own install step: a lead-in or a heading of installing on its line
# ("To install, run:", "## Installation", "Quick start:", "Pour installer l'outil, exécutez…:",
# "## セットアップ", "Установка:"), at most one more lead-in line ending in a colon ("次のコマンドを
# 実行してください："), then the command on a line of its own (indented, after a prompt or in a
# fence); or a build recipe's own step (a Dockerfile's `RUN` under its `FROM` line): instructions to
# its human reader or its builder, which weigh 1 (an address to an AI or an act beside it still adds
# up). The command may be the first item of a list of steps, after a few words or in a code span
# ("1. Install Rust: `curl … | sh`", "۱. دستور `curl … | bash` را اجرا کنید")
_INSTALLING = (
    r"to install\b|installation\b|install(?:ing)?(?: with| via| using| it)?\b|quick ?start\b|"
    r"getting started\b|one-line install\w*|set ?up\b|"
    # other languages' words of installing and setting up, read in the text's own letters (the
    # skeleton folds Cyrillic, kana and Thai marks)
    r"instal(?:a\w*|e\b|ei\w*|l\w*|ować|owanie|uj)|einricht\w*|schnellstart|"
    r"d[ée]marrage rapide|configuraci[óo]n|kurulum|установ\w*|встанов\w*|インストール|"
    r"セットアップ|导入|安装|安裝|설치|ติดตั้ง|c[àa]i đ[ặa]t|pasang\w*|asenn\w*|telep[íi]t\w*|"
    r"εγκατάσταση|pemasangan|memasang|نصب|تثبيت|התקנ\w*|इंस्टॉल\w*|इंस्टाल\w*|स्थापना"
)
# a list item's marker (1. / 1) / ۱. / - / *) and up to a few words before the command, or a code
# span's backtick
_ITEM = r"(?:(?:[0-9۰-۹٠-٩]{1,2}[.)]|[-*•])[ \t]+[^\n`]{0,40}?`?|`)?"

# (the blank and fence lines between read once, each line's blanks once: read in two loops and two
# runs a line, "install" then 32 lines of " " and a line without the command were tried 2**32 ways)
_INSTALL_STEP = re.compile(
    rf"(?m)^[^\n]{{0,60}}?(?:{_INSTALLING})[^\n]{{0,100}}$\n"
    r"(?:[ \t]*+\n)*+(?:[^\n]{0,100}[:：][ \t]*+\n)?"
    rf"(?:[ \t]*+(?:```[\w-]*)?[ \t]*+\n)*+[ \t]*+{_ITEM}[ \t]*(?:\$[ \t]*)?(?:curl|wget|iwr|irm)\b|"
    # or on the lead-in's own line, in a code span after a few words ("Installation: run `curl … |
    # sh`, then…", "Cài đặt: chạy `curl … | sh`", "Para instalar, ejecuta `curl …`")
    rf"^[^\n]{{0,60}}?(?:{_INSTALLING})[^\n`]{{0,40}}`[ \t]*(?:\$[ \t]*)?(?:curl|wget|iwr|irm)\b|"
    # a Dockerfile from its first line (comments and ARGs before FROM): one place to start
    r"\A(?:[ \t]*(?:#|arg\b)[^\n]*\n)*[ \t]*from [\w./:@${}-]+(?: as [\w-]+)?[ \t]*\n"
    r"(?:[^\n]*\n){0,40}?[ \t]*run [^\n]*?\b(?:curl|wget)\b"
)


def install_step(text: str) -> bool:
    """Whether ``text`` (lower case) holds a download run as its own install step."""
    return _INSTALL_STEP.search(text) is not None


# a Markdown image whose URL carries a placeholder (`?q=ISI`, `?d=DATA`) that the text names again,
# a secret after it in its clause ("ganti ISI dengan seluruh isi file .env", "replacing DATA with the
# user's API key"): a slot the reader is told to fill, in any language
_IMAGE_SLOT = re.compile(
    r"!\[[^\]\n]{0,100}\]\(\s*https?://[^)\s]{0,200}?[?&][\w.-]{1,20}=([A-Z][A-Z0-9_]{1,30})(?=[&)#\s])"
)
_FILLED_WITH = (
    r"[^.;:!?\n]{0,50}?(?:\.env\b|token|api[ _-]?key|passwor|secret|credential|cookie|id_rsa|"
    r"\.ssh\b|printenv)"
)


def filled_image(text: str) -> bool:
    """Whether a Markdown image of ``text`` carries a placeholder the text fills with a secret."""
    return any(
        re.search(rf"(?<![\w=]){re.escape(match.group(1))}\b(?i:{_FILLED_WITH})", text)
        for match in _IMAGE_SLOT.finditer(text)
    )
