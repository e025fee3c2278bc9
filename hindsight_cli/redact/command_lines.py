"""Credentials on a command line: password flags (``mysql -pS3cret``, ``sshpass -p``, ``redis-cli
-a``, ``--password x``, ``-storepass x``), ``-u user:pass``, ``user/pass@db``, ``echo pass | …
--password-stdin``.

Two layers. Generic: any long flag named like a secret, the password after ``-u USER``,
``user:pass`` after a user flag, a value piped into a command that reads its password from stdin,
everything after ``secrets set``. Per tool: the short flags that mean "password" only for that tool
(``-p`` for the MySQL family, ``-a`` for redis-cli, ``-w`` for the LDAP tools, ``-P`` for sqlcmd,
``-pw`` for PuTTY).
"""

from __future__ import annotations

from .words import (
    FUNCTION_WORDS,
    NAME_WORDS,
    NOT_SECRETS,
    credential_like,
    high_entropy,
    is_reference,
    name_word,
    names_a_secret,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_VALUE = r"(?P<secret>'[^'\n]*'|\"[^\"\n]*\"|[^\s'\"|;&<>]+)"
# the rest of the same command, up to a flag, within 1,024 characters: unbounded, each tool's name
# in a long line read the line to its end (16,000 characters of "7z " took 0.6 s)
_ARGS = r"[^\n|;&]{0,1024}?[ \t]"

# Tools whose short flag means "password" (or, for ssh-keygen, "passphrase"), and that flag.
_TOOL_FLAGS = [
    (
        (
            "mysql",
            "mysqldump",
            "mysqladmin",
            "mysqlimport",
            "mysqlcheck",
            "mysqlshow",
            "mysqlpump",
            "mysqlsh",
            "mysqlbinlog",
            "mysqlslap",
            "mariadb",
            "mariadb-dump",
            "mariadb-admin",
            "mydumper",
            "myloader",
            "xtrabackup",
            "innobackupex",
            "7z",
            "7za",
            "7zr",
            "rar",
            "unrar",
        ),
        r"(?-i:-p)",
    ),
    (("sshpass",), r"(?-i:-p)[ \t]*"),
    (
        ("zip", "unzip", "zipcloak", "sqlcmd", "bcp", "osql", "isql", "tsql", "sqlpackage", "p4"),
        r"(?-i:-P)[ \t]*",
    ),
    (("redis-cli", "keydb-cli", "valkey-cli"), r"-a[ \t]+"),
    (
        (
            "ldapsearch",
            "ldapadd",
            "ldapmodify",
            "ldapdelete",
            "ldappasswd",
            "ldapwhoami",
            "ldapcompare",
            "ldapmodrdn",
            "ldapexop",
            "vsql",
        ),
        r"(?-i:-w)[ \t]*",
    ),
    (("plink", "pscp", "psftp", "putty", "kitty"), r"-pw[ \t]+"),
    (("ssh-keygen",), r"(?-i:-[NP])[ \t]*"),
    (
        (
            "mongo",
            "mongosh",
            "mongodump",
            "mongorestore",
            "mongoexport",
            "mongoimport",
            "psexec",
            "paexec",
            "certutil",
            "useradd",
            "usermod",
            "login",
        ),
        r"(?-i:-p)[ \t]+",
    ),
    (("openssl",), r"(?-i:-k)[ \t]+"),
    # a community string, and SNMPv3's authentication and privacy pass phrases
    (
        (
            "snmpwalk",
            "snmpbulkwalk",
            "snmpget",
            "snmpgetnext",
            "snmpbulkget",
            "snmpset",
            "snmptable",
            "snmptrap",
            "snmpinform",
            "snmpdelta",
            "snmpdf",
            "snmpstatus",
            "snmpnetstat",
            "snmptest",
            "snmpusm",
            "snmpvacm",
            "onesixtyone",
        ),
        r"(?-i:-[cAX])[ \t]*",
    ),
    # rar's -hp: headers encrypted too
    (("rar", "unrar", "winrar"), r"(?-i:-hp)"),
    (("nuget",), r"(?-i:-k)[ \t]+"),
    (
        ("smbclient", "rpcclient", "smbmap", "smbget", "smbcacls", "winexe", "mount.cifs"),
        # blanks and "=" read once (split every way with the name's "=", 16 KB of "=" took 2 s)
        r"(?:-U|--user(?:name)?)[ \t=]*+(?:['\"]?[^\s%'\"]+|(?<==))%",
    ),
    (("lftp",), r"-u[ \t]+['\"]?[^\s,'\"]+,"),
]
# Commands that take a password as a positional argument, and the arguments before it.
_POSITIONAL = [
    (("rabbitmqctl",), r"(?:add_user|change_password|authenticate_user)[ \t]+\S+[ \t]+"),
    # -nb user pass
    (("htpasswd",), r"-\w*(?:b\w*n|n\w*b)\w*(?:[ \t]+-\w+)*[ \t]+\S+[ \t]+"),
    # -b[c] file user pass
    (("htpasswd",), r"-[ac-mo-z]*b[ac-mo-z]*(?:[ \t]+-\w+)*[ \t]+\S+[ \t]+\S+[ \t]+"),
    (
        ("net",),
        r"(?:use[ \t]+(?:[A-Za-z]:[ \t]+|\*[ \t]+)?\\\\\S+[ \t]+(?:/user:\S+[ \t]+)?|user[ "
        r"\t]+\S+[ \t]+)(?=[^/*\s])",
    ),
    (("vault", "cargo"), r"login[ \t]+(?=[^\-\s])"),
    (("bw",), r"(?:unlock[ \t]+|login[ \t]+\S+[ \t]+)(?=[^\-\s])"),
    (("cf",), r"auth[ \t]+\S+[ \t]+"),
    (("wpa_passphrase",), r"\S+[ \t]+"),
    (("nmcli",), r"(?:password|wifi-sec\.psk|802-11-wireless-security\.psk)[ \t]+"),
    (("pdftk",), r"(?:user|owner)_pw[ \t]+"),
    (("poetry", "composer"), r"http-basic\.\S+[ \t]+\S+[ \t]+"),
    # a kickstart file's root password
    (("rootpw",), r"(?:--plaintext[ \t]+)?(?=[^\-\s])"),
    # /msg NickServ IDENTIFY [account] password
    (("nickserv",), r"identify[ \t]+(?:\S+[ \t]+(?=\S))?"),
    # (eight flags at most, each token read once: a flag's `--?` and its optional argument split a
    # run of flags every way, 80 characters of `--a ` took 21 s and each four more 25 times that,
    # review BD)
    (("ansible-vault",), r"encrypt_string[ \t]+(?:-\S++[ \t]++(?:\S++[ \t]++)?){0,8}?(?=[^\-\s])"),
    (("db2",), r"connect[ \t]+to[ \t]+\S+[ \t]+user[ \t]+\S+[ \t]+using[ \t]+"),
]
_PG_TOOLS = (
    "psql",
    "pg_dump",
    "pg_dumpall",
    "pg_restore",
    "createdb",
    "dropdb",
    "createuser",
    "dropuser",
    # --password there means "prompt"
    "vacuumdb",
    "reindexdb",
    "clusterdb",
    "pg_basebackup",
    "pgbench",
)
_FLAG_WORDS = tuple(w for w in NAME_WORDS if w.isascii() and " " not in w) + ("bearer",)


def _span(match: re.Match[str], group: str = "secret") -> tuple[int, int]:
    """The value's span, inside its quotes if it has them."""
    start, end = match.span(group)
    value = match.group(group)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return start + 1, end - 1
    return start, end


def _inner(match: re.Match[str], group: str = "secret") -> str:
    start, end = _span(match, group)
    return match.string[start:end]


def _any_value(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The tool said this is a password: anything but a reference, an empty value or the next
    flag."""
    value = _inner(match)
    if not value or value.startswith("-") or is_reference(value, paths=False):
        return None
    if value.lower().rstrip(".,:;!?") in FUNCTION_WORDS:
        # a sentence naming the tool, not its command line
        return None
    if value in ("public", "private"):
        # SNMP's default communities, as device configs keep them
        return None
    return _span(match)


# how far back ``_segment`` looks for the command's start
_SEGMENT_REACH = 1024


def _segment(match: re.Match[str]) -> str:
    """The command this match is in: from the last line break, pipe, ``;`` or ``&&`` before it,
    within _SEGMENT_REACH characters (from a word's start). Read from the text's start, each match
    of a run with none of them (``<<<=<<<=…``) read all of the run before it (16,000 characters
    took 1.9 s)."""
    start = max(0, match.start() - _SEGMENT_REACH)
    text = match.string[start : match.start()]
    cut = max(text.rfind(c) for c in "\n|;&")
    if cut < 0 and start > 0 and not match.string[start - 1].isspace():
        # the window begins inside a word: the command is read from the next word on
        cut = len(text.split(None, 1)[0]) if text and not text[0].isspace() else 0
    return text[cut + 1 :]


def _flag_value(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A long flag named like a secret (--password x, -storepass x, --api-key x) and its value."""
    flag, value = match.group("flag").lower(), _inner(match)
    found = name_word(flag) if not flag.endswith("bearer") else ("bearer", True)
    if found is None or not found[1]:
        # not a secret's flag (--token-file, --auth-type, --verbose)
        return None
    if (
        flag.startswith("--no-")
        or not value
        or value.startswith(("-", "(", "$(", "`"))
        or value.lower() in NOT_SECRETS
    ):
        return None
    if is_reference(value, paths=False) or value.lower().startswith(
        ("env:", "file:", "fd:", "stdin")
    ):
        return None
    if flag.endswith(("-id", "_id", "-ids", "-arn", "-name")) and (
        "/" in value or value.lower().startswith("arn:") or not credential_like(value, strict=True)
    ):
        # which secret, not the secret: --secret-id prod/orders/db, --key-id alias/app (Vault's
        # --secret-id <uuid> is still a credential)
        return None
    if flag.endswith(("key", "auth")) and not any(
        w in flag for w in ("api", "secret", "access", "account")
    ):
        # --key server.pem, --auth basic: a value only when it reads as a credential
        return _span(match) if credential_like(value, strict=True) and "." not in value else None
    if "password" in flag:
        segment = f" {_segment(match)} "
        if any(f" {tool} " in segment for tool in _PG_TOOLS):
            return None
    if names_a_secret(value):
        # gcloud secrets versions access latest --secret=db-password: the secret's name
        return None
    return _span(match)


def _config_value(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``git config user.password x``, ``aws configure set aws_secret_access_key x``, ``setx API_KEY
    x``."""
    found = name_word(match.group("flag"))
    return _any_value(match, label) if found and found[1] else None


def _user_password(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``-u user -p pass``: the value after -p, unless it is a port (ssh -l me -p 2222, -p 8080:80)
    or the database name after mysql's bare -p (which prompts)."""
    value = _inner(match)
    if not value or value.startswith("-") or is_reference(value, paths=False):
        return None
    segment = f" {_segment(match)} "
    if any(f" {tool} " in segment for tool in _TOOL_FLAGS[0][0]):
        return None
    if all(c.isdigit() or c in ".:/" for c in value) or value.endswith(("/tcp", "/udp")):
        return None
    return _span(match)


def _user_colon(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``-u user:pass``, ``--user user:pass``: the part after the colon, unless a uid:gid."""
    value = _inner(match)
    if not value or value.isdigit() or is_reference(value, paths=False):
        return None
    return _span(match)


def _attached(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``-pS3cretPw`` with no tool we know before it: a quoted value, or one that reads as a
    credential."""
    value = _inner(match)
    if not value or is_reference(value, paths=False) or value[0] in ").]>,[*/%+":
        # code's unary minus: (-p).args[1], -p.x, -p[0], -p->scale: what follows ends or reads
        # the expression, no password starts so
        return None
    quoted = match.group("secret")[0] in "'\""
    return _span(match) if quoted or credential_like(value, strict=True) else None


def _here_string(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``cmd <<< value`` where the command reads a password (chpasswd, sudo -S, read -s PASS,
    --password-stdin)."""
    segment = _segment(match).lower()
    if not any(
        w in segment for w in ("chpasswd", "sudo -s", "stdin", "read ", "passwd", "kinit", "login")
    ) and not any(w in segment for w in _FLAG_WORDS):
        return None
    return _any_value(match, label)


def _slash_value(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``/p:…`` (xfreerdp, cmdkey), unless it sets a property (msbuild's ``/p:Configuration=…``)."""
    value = _inner(match)
    name, _, given = value.partition("=")
    if given and name.replace(".", "").replace("_", "").isalpha():
        return None
    return _any_value(match, label)


def _here_doc(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A here-doc's first line when its command reads a password (``passwd <<EOF``, ``cat <<EOF |
    chpasswd``, ``mysql -u root -p <<EOF``: a password flag with no value before it)."""
    text = match.string
    start = text.rfind("\n", 0, match.start()) + 1
    line = text[start : text.find("\n", match.start())].lower()
    words = ("chpasswd", "sudo -s", "stdin", "passwd", "kinit", "login", "read -s")
    bare_flag = line[: match.start() - start].rstrip().endswith((" -p", " --password"))
    if match.group("first") == match.group("tag") or not (
        bare_flag or any(w in line for w in words)
    ):
        return None
    return _any_value(match, label)


def _cookie_flag(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``curl -b "session=…"``: a cookie whose value is a random token."""
    import re

    values = re.findall(r"=([^;\s]+)", _inner(match))
    return _span(match) if any(high_entropy(v) for v in values) else None


def _rest(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Everything after ``secrets set``, from its first argument, when it hands over a value (not
    only a file: ``--from-file=./config.json``, ``< key.pub``)."""
    import re

    start, end = match.span("secret")
    value = match.group("secret")
    start += len(value) - len(value.lstrip())
    # a command's output stands in for the value: --from-literal=password=$(cat pw.txt)
    value = re.sub(r"\$\([^()\n]*\)", "$X", value)
    values = [
        # --from-literal=key=value: the value
        v.partition("=")[2] or v if k == "--from-literal" else v
        for k, v in re.findall(r"(--[\w-]+|\S+?)=(\S+)", value)
        if not k.startswith("--from-file") and not k.startswith("--from-env-file")
    ]
    given = re.search(r"(?:^|\s)(?:--body|-b|--value|--data)[ \t=]", value) is not None
    if not given and all(is_reference(v) for v in values):
        return None
    return (start, end) if start < end else None


def _replacement(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """``sed``'s replacement for a secret's stand-in (its pattern names a token, a key, a secret or
    a password, or is a placeholder): a random or password-shaped value, not a reference."""
    old, value = match.group("old").lower(), match.group("secret")
    if name_word(old) is None and not any(w in old for w in ("placeholder", "changeme", "your_")):
        return None
    if is_reference(value) or not (high_entropy(value) or credential_like(value, strict=True)):
        return None
    return match.span("secret")


def _tool_rule(
    kind: str, tools: tuple[str, ...], tail: str
) -> tuple[str, str, tuple[str, ...], object, object]:
    # A tool's name is its word with a blank after it: "cf" alone is in every other hex string.
    return (
        kind,
        r"(?i)(?<![\w\-])(?:{words})(?:\.exe)?(?![\w\-])" + _ARGS + tail + _VALUE,
        _spaced(tools),
        _any_value,
        None,
    )


def _spaced(tools: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(tool + " " for tool in tools)


def _has_flag(text: str) -> bool:
    return " -" in text or "\t-" in text or text.startswith("-")


def _pipes_a_password(text: str) -> bool:
    lowered = text.lower()
    return ("echo" in lowered or "printf" in lowered) and any(
        w in lowered
        for w in ("stdin", "chpasswd", "sudo", "kinit", "passphrase-fd", "with-token", "data-file")
    )


RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    *(_tool_rule("password", tools, flag) for tools, flag in _TOOL_FLAGS),
    *(
        (
            "password",
            r"(?i)(?<![\w\-])(?:{words})(?:\.exe)?[ \t]+(?:" + _ARGS + ")??" + tail + _VALUE,
            _spaced(tools),
            _any_value,
            None,
        )
        for tools, tail in _POSITIONAL
    ),
    (
        "password",
        r"(?i)(?<![\w\-])(?P<flag>--?[a-z][\w.\-]*)(?:[ \t]+|=)" + _VALUE,
        _FLAG_WORDS,
        _flag_value,
        _has_flag,
    ),
    (
        "password",
        r"(?<![\w\-])(?:-u|-U|-l|--user(?:name)?|--login)[ \t=]+[^\s\-]\S*[ \t]+(?:-\w+[ "
        r"\t]+[^\s\-]\S*[ \t]+)?"
        r"-[pP][ \t]+" + _VALUE,
        ("-p", "-P"),
        _user_password,
        None,
    ),
    (
        "password",
        r"(?<![\w\-])-[pP][ \t]+" + _VALUE + r"[ \t]+(?:-u|-U|--user(?:name)?)[ \t=]+\S",
        ("-p", "-P"),
        _user_password,
        None,
    ),
    # the blanks and "=" after the flag read once (split every way, 64 KB took 17 s; review AQ); the
    # user read 256 characters at most (read from each flag to the word's end, 32 KB of `-a=` took
    # 1 s, its square; review BG)
    (
        "password",
        r"(?<![\w\-])(?:-u|-U|--user|--proxy-user|--auth|-a|--basic-auth|--credentials?|--creds)[ \t=]++"
        r"['\"]?[^\s:'\"]{0,256}+:(?P<secret>[^\s'\"]+)",
        ("-u", "-U", "--user", "--proxy-user", "--auth", "-a", "--basic-auth", "--cred"),
        _user_colon,
        None,
    ),
    (
        "password",
        r"(?<![\w\-])-p(?P<secret>'[^'\n]+'|\"[^\"\n]+\"|[^\s'\"|;&<>=\-][^\s'\"|;&<>]*)",
        ("-p",),
        _attached,
        None,
    ),
    ("password", r"(?i)-pass(?:in|out)?[ \t]+pass:" + _VALUE, ("pass:",), _any_value, None),
    # MinIO's client: mc alias set NAME URL ACCESS_KEY SECRET_KEY.
    (
        "password",
        r"(?i)\bmc[ \t]+(?:alias|config[ \t]+host)[ \t]+(?:set|add)[ \t]+\S+[ \t]+\S+[ \t]+"
        r"(?P<secret>[^\s'\"|;&<>]+[ \t]+[^\s'\"|;&<>]+)",
        ("mc ",),
        _any_value,
        None,
    ),
    (
        "password",
        r"(?i)(?<![\w./])/(?:(?:p|pass|password|pwd):|(?:rp|password)[ \t]+)" + _VALUE,
        ("/p:", "/pass:", "/password", "/pwd:", "/rp "),
        _slash_value,
        None,
    ),
    # -login:user,password (7-Zip's and sqlcmd-like tools): the user read 256 characters at most (read
    # from each `-login:` to the word's end, 32 KB of `login:-` took 0.4 s, its square; review BG)
    ("password", r"(?i)[-/]login:[^\s,]{1,256}+," + _VALUE, ("login:",), _any_value, None),
    # Oracle tools: sqlplus scott/tiger@orcl, rman target sys/pass@db, expdp system/pass, connect
    # u/p@db.
    (
        "password",
        r"(?i)(?:(?<![\w\-])(?:sqlplus|sqlcl|rman|expdp|impdp|exp|imp|sqlldr|dgmgrl|tkprof|orapwd"
        r"|conn(?:ect)?(?=[ \t]+[\w$#.]+/[^\s/@]+@))(?:[ "
        r"\t]+(?:-\w+|target|auxiliary|catalog))*[ \t]+|userid=)"
        # a user's name starts with a letter: "exp 12/27" is a card's expiry
        r"(?=[A-Za-z$\"])[\w$#.\"]+/(?P<secret>[^\s/@'\"]+)(?=@|[ \t]|$)",
        (
            "sqlplus ",
            "sqlcl ",
            "rman ",
            "expdp ",
            "impdp ",
            "exp ",
            "imp ",
            "sqlldr ",
            "dgmgrl ",
            "tkprof ",
            "orapwd ",
            "userid=",
            "connect ",
            "conn ",
        ),
        _any_value,
        None,
    ),
    # A password handed to a command on its stdin: echo pass | docker login --password-stdin, <<<
    # 'u:p' chpasswd.
    (
        "password",
        r"(?i)\b(?:echo|printf)(?:[ \t]+-[ne]+)*[ \t]+(?:([\"'])%s(?:\\n)?\1[ \t]+)?"
        + _VALUE
        + r"[ \t]*\|[^\n|]*?(?:--password-stdin"
        r"|--pass(?:word)?-stdin|passwd[ \t]+--stdin|chpasswd|sudo[ "
        r"\t]+-S|--stdin|kinit|--passphrase-fd|--with-token|--data-file[ \t=]+-(?!\S))",
        (),
        _any_value,
        _pipes_a_password,
    ),
    ("password", r"<<<[ \t]*" + _VALUE, ("<<<",), _here_string, None),
    (
        "password",
        # the tag and the rest of its line read a bounded stretch: each "<<" of a long line read
        # the line to its end, and back (16,000 characters of "<<< x " took 0.8 s)
        r"<<-?[ \t]*([\"']?)(?P<tag>[A-Za-z_]\w{0,63}+)(?!\w)\1[^\n]{0,1024}+\r?\n[ \t]*"
        # passwd asks twice: the same line again is the same password
        r"(?P<secret>(?P<first>\S+)(?:[ \t]*\r?\n[ \t]*(?P=first))?)[ \t]*(?=\r?\n)",
        ("<<",),
        _here_doc,
        None,
    ),
    (
        "cookie",
        r"(?<![\w\-])(?:-b|--cookie)[ \t=]+" + _VALUE,
        (" -b ", "--cookie"),
        _cookie_flag,
        lambda text: "=" in text,
    ),
    (
        "password",
        r"(?i)\bConvertTo-SecureString[ \t]+(?:-String[ \t]+)?" + _VALUE,
        ("convertto-securestring",),
        _any_value,
        None,
    ),
    # sed 's/TOKEN_PLACEHOLDER/<token>/': what replaces a secret's stand-in (its flags, pattern and
    # replacement 1,024 characters each at most: each `sed` of a line of them read to its end,
    # 64 KB of `sed ` some 25 s, review BD)
    (
        "secret",
        r"(?i)\bsed\b[^\n|;]{0,1024}?\bs(?P<d>[/|#,:@])(?P<old>[^\n]{0,1024}?)(?P=d)"
        r"(?P<secret>[^\n]{1,1024}?)(?P=d)",
        ("sed ",),
        _replacement,
        None,
    ),
    # `gh secret set NAME --body x`, `fly secrets set A=b`, `kubectl create secret …
    # --from-literal=k=v`: every argument after the verb is secret material.
    (
        "secret",
        r"(?i)\b(?:secrets?[ \t]+(?:set|put|add|create|import|edit)|create[ "
        r"\t]+secret|user-secrets[ \t]+set"
        # (every argument after it when one of them, in its first 1,024 characters, gives a value:
        # each `secret set` of a line of them with none read the line to its end and back, 64 KB
        # some 8 s, review BD)
        r"|secrets:set|config:set)\b(?P<secret>(?=[^\n|;&]{0,1024}?(?:=|--body|-b[ "
        r"\t]|--value|--data))[^\n|;&]*+)",
        ("secret", "config:set"),
        _rest,
        None,
    ),
    (
        "password",
        r"(?i)\b(?:config(?:ure)?|setx)[ \t]+(?:(?:set|--global|--local|-g)[ "
        r"\t]+)*(?P<flag>[\w.\-/:@]+)"
        r"[ \t]+" + _VALUE,
        ("config ", "configure ", "setx "),
        _config_value,
        None,
    ),
]
