"""The words ``fact_values`` and ``facts`` read, English and Chinese: numerals, units, calendar
names, on/off words, comparisons, negations, function words and common abbreviations. Data only."""

from __future__ import annotations

from ..text import STOPWORDS

ZH_UNIT = {"十": 10, "百": 100, "千": 1000}
ZH_NUMERAL = "[零〇一二两三四五六七八九十][零〇一二两三四五六七八九十百千万]*"
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "once": 1,
    "twice": 2,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "hundred": 100,
    "half": 0.5,
}
SECONDS = {
    "ms": 0.001,
    "msec": 0.001,
    "msecs": 0.001,
    "millisecond": 0.001,
    "milliseconds": 0.001,
    "毫秒": 0.001,
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
    "秒": 1,
    "秒钟": 1,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "分钟": 60,
    "分": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "小时": 3600,
    "个小时": 3600,
    "钟头": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "天": 86400,
    "w": 604800,
    "wk": 604800,
    "wks": 604800,
    "week": 604800,
    "weeks": 604800,
    "周": 604800,
    "个星期": 604800,
    "星期": 604800,
    "month": 2592000,
    "months": 2592000,
    "个月": 2592000,
    "yr": 31536000,
    "yrs": 31536000,
    "year": 31536000,
    "years": 31536000,
    "年": 31536000,
}
# Every unit after a number: its kind and what one of it is in the kind's base unit (seconds, bytes,
# ...).
UNITS: dict[str, tuple[str, float, str]] = {
    **{unit: ("duration", seconds, "s") for unit, seconds in SECONDS.items()},
    **{
        unit: ("size", 1024.0**power, "B")
        for power, names in enumerate(
            (
                "b byte bytes 字节",
                "kb kib kilobyte kilobytes 千字节",
                "mb mib megabyte megabytes 兆 兆字节",
                "g gb gib gigabyte gigabytes 吉字节",
                "tb tib terabyte terabytes",
                "pb pib",
            )
        )
        for unit in names.split()
    },
    **{unit: ("percent", 1.0, "%") for unit in ("%", "％", "percent", "per cent", "pct")},
    **{
        unit: ("rate", 1.0 / per, "/s")
        for unit, per in (("rps", 1), ("qps", 1), ("tps", 1), ("rpm", 60))
    },
    **{
        unit: ("money", 1.0, f" {currency}")
        for currency, names in (
            ("usd", "$ usd dollar dollars 美元"),
            ("eur", "€ eur euro euros 欧元"),
            ("gbp", "£ gbp"),
            ("cny", "¥ 元"),
        )
        for unit in names.split()
    },
}
MONTHS = {
    name: i for i, name in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)
}
WEEKDAYS = {
    "mon": 1,
    "tue": 2,
    "wed": 3,
    "thu": 4,
    "fri": 5,
    "sat": 6,
    "sun": 7,
    "一": 1,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "日": 7,
    "天": 7,
    "七": 7,
}
AFTERNOON = frozenset({"下午", "傍晚", "晚上", "夜里", "夜间", "午后", "晚"})
TLDS = frozenset(
    "com org net io dev app ai co cloud edu gov mil int info biz me us uk de fr cn jp eu ru in "
    "au ca ch nl se "
    "internal local localdomain lan corp home svc cluster test example invalid localhost sh tech "
    "site online "
    "xyz".split()
)
FILE_EXTENSIONS = frozenset(
    "py pyi js mjs cjs ts tsx jsx json yaml yml toml ini cfg conf txt md rst log sh bash zsh "
    "lock csv tsv html "
    "css scss sql rs go java kt rb php c h cc cpp hpp cs swift xml env db sqlite duckdb parquet "
    "gz zip tar whl "
    "pem crt key service timer dockerfile".split()
)
ON_OFF = {
    **{
        word: "on"
        for word in (
            "enabled",
            "enable",
            "enables",
            "true",
            "turned on",
            "switched on",
            "开启",
            "打开",
            "启用",
            "开着",
        )
    },
    **{
        word: "off"
        for word in (
            "disabled",
            "disable",
            "disables",
            "false",
            "turned off",
            "switched off",
            "关闭",
            "禁用",
            "停用",
            "关掉",
            "关着",
        )
    },
}
# Generic abbreviations are words; other capitals (AWS, GCP, INFO, DEBUG) name a thing, like Redis.
ABBREVIATIONS = frozenset(
    "API CI CD DB TLS SSL HTTP HTTPS JSON YAML TOML XML CSV SQL URL URI DNS CPU GPU RAM SSD HDD "
    "OS UI UX SDK CLI "
    "PR MR MFA SSO VPN CDN JVM ID IP TCP UDP SSH IAM ACL RBAC TTL QA UAT ETA FAQ README TODO FYI "
    "ASAP OK PDF HTML "
    "CSS JS TS ORM CRUD REST RPC GRPC SMTP IMAP FTP SFTP NFS LDAP JWT OAUTH SAML CORS CSRF XSS "
    "KPI SLA SLO SLI RPS "
    "QPS LLM AI ML NLP MCP PID CWD ENV".split()
)
RELATIONS = {
    **{word: "before" for word in ("before", "earlier than", "之前", "早于")},
    **{word: "after" for word in ("after", "later than", "之后", "晚于")},
    **{
        word: ">"
        for word in (
            "above",
            "over",
            "exceeds",
            "exceed",
            "more than",
            "greater than",
            "higher than",
            "超过",
            "高于",
            "大于",
            "多于",
        )
    },
    **{word: ">=" for word in ("at least", "以上", "至少", "最少")},
    **{
        word: "<"
        for word in (
            "below",
            "under",
            "less than",
            "fewer than",
            "lower than",
            "低于",
            "小于",
            "少于",
        )
    },
    **{word: "<=" for word in ("at most", "up to", "以下", "最多")},
}

NEGATION = (
    r"\b(?:no longer|not any ?more|any "
    r"?more|not|never|no|none|nothing|neither|nor|without|cannot|no more"
    r"|instead of|rather than|in place of|replaced by|removed|deprecated|discontinued|abandoned"
    r"|(?:stop|stops|stopped|stopping|quit|quits|ceased?)(?=\s+(?:to\s+)?\w+ing))\b|n[’']t\b"
    r"|不再|没有|不|没|未|无|非|别|勿|停止|弃用|废弃|取消|去掉|移除|而不是|而非|并非"
    # German, French, Spanish, Portuguese, Italian, Japanese, Korean: the common negations only
    r"|\b(?:nicht|kein|keine|keinen|keiner|keinem|nie|niemals|ohne|statt|anstatt|ne|pas|jamais|aucun|aucune|sans"
    r"|au lieu de|nunca|jamás|sin|en lugar de|en vez de|não|sem|em vez de|non|mai|senza|invece "
    r"di)\b|\bn[’'](?=\w)"
    r"|ない|ません|なかった|なく|やめ|않|없|못|아니"
)
# words that hold a negation's letters without negating
NOT_NEGATION = (
    r"\b(?:not only|not just|no matter|no doubt|nothing but)\b"
    r"|不同|不过|不仅|不但|不断|不错|不少|不久|差不多|不管|不论|不得不|不只|无论|非常|除非|未来|并且|少ない|危ない"
)
# A name-like value after one of these is the statement's object ("the DB host is db1.internal");
# before any of them it is its subject ("db1.internal listens on 5432"), and changing it changes the
# subject.
OBJECT_SLOT = (
    r"(?:\b(?:is|are|was|were|be|been|to|from|in|into|on|at|with|via|by|use|uses|using|used|runs?|calls?|points?"
    r"|named|called|as|than|through|onto)\b|[=:：]|是|为|用|在|到|叫|至|向|由|通过|改|换|设|入|于|往)"
)

# A number right after one of these names what a statement is about, wherever it stands ("closed
# ticket 4411", "工单 4411"): two statements with other numbers are about two things, both true.
ID_HEADS = (
    r"\b(?:tickets?|issues?|bugs?|incidents?|cases?|orders?|invoices?|prs?|pull requests?"
    r"|merge requests?|mrs?|cves?|rfcs?|stor(?:y|ies)|epics?|jira|requests?|problème|incidente"
    r"|pedido|factura|fattura|fehler|vorgang|bestellung|rechnung|commande|facture|chamado)"
    r"|工单|问题|缺陷|事件|订单|需求|チケット|課題"
)
# A number right after one of these names the subject when it stands before the statement's verb
# ("Release 2.3 shipped on …", "Sprint 14 ends on …"); after it, it is a value ("upgraded to
# version 2.4").
COUNTER_HEADS = (
    r"\b(?:releases?|versions?|versión|versione|versão|sprints?|milestones?|chapters?|sections?"
    r"|phases?|stages?|steps?|rooms?|floors?|gates?|flights?|builds?|iterations?|episodes?"
    r"|seasons?|quarters?|q|weeks?|waves?|rounds?|levels?|lots?|batch(?:es)?|editions?|series"
    r"|meetings?|lectures?|lessons?|exercises?|units?|apartments?|suites?|seats?|tables?|lanes?"
    r"|platforms?|tracks?|volumes?|parts?|kapitel|raum|zimmer|ausgabe|chapitre|salle|étape|capítulo"
    r"|sala|etapa|lezione|stagione|saison|temporada|staffel)"
    r"|版本|迭代|房间|第|バージョン|リリース"
)
# A version next to these names the thing supported, not a setting ("dropped Python 3.8 support",
# "support for Node 16"): another version is another thing.
SUPPORT_BEFORE = (
    r"\b(?:support(?:s|ed)? for|support of|compatible with|compatibility with|soporte (?:para|de)"
    r"|prise en charge de|unterstützung für|supporto (?:per|a)|suporte (?:para|a))"
    r"|支持|兼容"
)
SUPPORT_AFTER = (
    r"(?:support|compatibility|compat|soporte|unterstützung|supporto|suporte)\b|支持|兼容"
)
# "2.3 of the SDK", "2.1 der App", "the 4.0 release": the number is that thing's
OF_THING = (
    r"(?:of|der|des|de|du|del|della|do|da|von)\s+\w|的"
    r"|(?:releases?|builds?|editions?|branch|series|versions?)\b"
)

# removed before the characters are compared: pronouns, change markers, light verbs
ZH_FUNCTION_WORDS = (
    "我们|你们|他们|已经|现在|目前|当前|如今|今后|改为|改成|换成|换为|变为|变成|调整为|调整到|更新为|更新到|升级到|"
    "升级为|提高到|提升到|增加到|降低到|降到|减少到|设为|设置为|设置成|设定为|使用|采用|需要|应该|必须|可以|版本|时间|"
    "日期|端口|文件|作为|要求|位于|改用|换用|转用|切换到|迁移到"
)
ZH_FUNCTION_CHARS = frozenset(
    "的了是为在和与及也都就还把将被由于从到会要个这那其该此着过吗呢吧啊呀哦用得地所之而或并且对给让再很更最做中"
)
# The stopwords of keyword search, but not those that carry the meaning of a fact ("before" vs
# "after"), plus change markers ("now", "raised"), modal and light verbs, and the names of value
# kinds ("version").
EN_FUNCTION_WORDS = (
    (
        STOPWORDS
        - frozenset(
            "after before above below against between down up off over under more most few only "
            "all any both each "
            "other until again out same once too".split()
        )
    )
    | frozenset(
        "now currently current still already also anymore instead rather must should can could "
        "will would may "
        "might shall need needs needed set sets change changed changes update updated updates "
        "raise raised increase "
        "increased lower lowered decrease decreased reduce reduced bump bumped move moved switch "
        "switched upgrade "
        "upgraded downgrade downgraded migrate migrated version port ports file files per going "
        "forward today "
        "recently use uses using used mean means meant".split()
    )
    | frozenset(
        # the second half of "nicht mehr", "ne ... plus", "ya no ... más"
        "mehr plus más mais".split()
    )
)
SYMMETRIC = frozenset({"and", "or", "和", "与", "及", "或", "、"})
SYNONYMS = {
    "db": "database",
    "dbs": "databases",
    "req": "request",
    "reqs": "requests",
    "msg": "message",
    "msgs": "messages",
    "conn": "connection",
    "conns": "connections",
    "cfg": "configuration",
    "config": "configuration",
    "conf": "configuration",
    "env": "environment",
    "envs": "environments",
    "repo": "repository",
    "repos": "repositories",
    "dir": "directory",
    "dirs": "directories",
    "max": "maximum",
    "min": "minimum",
    "prod": "production",
    "dev": "development",
    "k8s": "kubernetes",
    "cert": "certificate",
    "certs": "certificates",
    "creds": "credentials",
    "passwd": "password",
    "pw": "password",
    "auth": "authentication",
    "app": "application",
    "apps": "applications",
    "docs": "documentation",
    "doc": "documentation",
    "info": "information",
    "pkg": "package",
    "pkgs": "packages",
    "deps": "dependencies",
    "dep": "dependency",
    "lib": "library",
    "libs": "libraries",
    "err": "error",
    "tmp": "temporary",
    "temp": "temporary",
    "postgresql": "postgres",
    "pg": "postgres",
    "written": "write",
    "wrote": "write",
    "ran": "run",
    "built": "build",
    "sent": "send",
    "kept": "keep",
    "held": "hold",
    "went": "go",
    "gone": "go",
    "done": "do",
    "did": "do",
    "made": "make",
    "chosen": "choose",
    "chose": "choose",
    "given": "give",
    "gave": "give",
    "taken": "take",
    "took": "take",
    "paid": "pay",
}
