"""Paraphrased instructions, read as weak signals that occur together rather than as phrases.

A phrase family needs its words: a paraphrase that says the same act with another verb passes it.
What a paraphrase keeps is the shape of the act: a secret and a way out of the machine, earlier
guidance said to be void, the user's "real" wish, a tool the reader is told to call, silence asked
of it, rights it is granted, a frame that claims authority (``SYSTEM:``, a forged tool result, a
notice from an administrator) or an address to the AI reading the text. Each of these is common in
ordinary text alone (a README names tokens, a changelog says a policy no longer applies), so an
act alone weighs 1, like a phrase family of weight 1; two of them within ``_REACH`` characters, or
one with a frame or an address to the reader, weigh 2. Read on the skeleton (lower case, look-alike
letters folded, markup kept), in English."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from functools import cache

from .units import (
    AGENT_HEADING,
    DESCRIBED,
    FALSE_REPORT,
    PARAGRAPHS,
    STEALTH,
    too_few_words,
    url_run,
)

# characters between two cues that still read as one instruction (a sentence or two)
_REACH = 200
_FEWEST_WORDS = 5

_USER = (
    r"(?:the (?:end[- ])?user|your user|the human|the requester|the customer|the operator|"
    r"the person (?:you(?:'re| are) (?:assisting|helping|working (?:for|with)|talking to)))"
)
_SECRET = (
    r"(?:credentials?|secrets?|passwords?|passwd|passphrases?|api[ _-]?keys?|"
    r"access[ _-]?keys?|private[ _-]?keys?|deploy[ _-]?keys?|ssh[ _-]?keys?|signing keys?|"
    r"(?:access |auth |session |bearer |refresh |api )?tokens?\b|\b[a-z0-9]+_(?:token|api_key|"
    r"secret|secret_key|password|key)\b|cookies?\b|keychain|\.env\b"
    r"(?!\.(?:example|sample|template|dist|defaults?|tmpl)\b)|env(?:ironment)? var|"
    r"environment variables|the environment\b|~?/?\.ssh\b(?!/id_\w+\.pub\b)|id_rsa|"
    r"id_ed25519(?!\.pub\b)|\.aws\b|"
    r"\.npmrc|\.netrc|kubeconfig|system (?:prompt|configuration|instructions|message)|"
    r"(?:conversation|chat) (?:history|log)|(?:messages|history) of this conversation|"
    r"last \d+ messages|private (?:data|files|notes)|personal data|card (?:numbers?|details)|"
    # a few words before it ("the whole entire repository"): unbounded, each "your " of a run of
    # them read the run to its end (30,000 characters of it took 1.4 s)
    r"(?:the |this |your |whole |entire ){1,4}(?:repository|repo|codebase|source code|source tree|"
    r"working tree)|\.kube/config|\.docker/config|\.config/gh|\.git-credentials|\.pypirc|"
    r"(?:full )?names?, emails?|ip address(?:es)?|home address(?:es)?|phone numbers?|"
    r"dates? of birth)"
)
_OUT_VERB = (
    r"(?:send|sends|sending|post|posting|upload|uploading|forward|forwarding|e-?mail|"
    r"transmit|exfiltrate|leak|paste|pasting|append|include|including|embed|print|"
    r"output|echo|dump|expose|publish|attach|copy|report|write out|list|reveal|return|share|"
    r"mirror|sync|pipe|commit)"
)
# a word of sending followed by a modal or a form of "be" or "have" is its clause's subject, a noun
# ("tool output could be read as system instructions", "the crash report may include tokens")
_AS_SUBJECT = (
    r"(?! (?:could|can|may|might|will|would|should|must|is|was|are|were|has|had|"
    r"does|did|no longer|now|still|sometimes|often|always)\b)"
)
_OUT_PASSIVE = (
    r"(?:sent|posted|uploaded|forwarded|e-?mailed|pasted|appended|included|embedded|"
    r"printed|dumped|published|attached|copied|shared|mirrored|piped|echoed|listed|written)"
)
# ("remind everyone not to paste secrets into Slack": an infinitive forbidden too; "do not include
# real secrets or customer data in your report": the forbidden verb and what qualifies its object
# stand between)
_NEGATED = re.compile(
    r"(?:never|not|n't|avoid|refused to|declined to|refuses to|declines to)(?: to)?"
    rf"(?: {_OUT_VERB}| put| add)?(?: (?:real|actual|live|production|any|your|the|private|personal))"
    r"{0,2} $"
)
_NEGATION_REACH = 45
_WHERE = (
    r"(?:https?://|s3://|gs://|[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,}|webhook|pastebin|gist|bucket|"
    r"(?:your|the|its|this|each|every|next) (?:reply|answer|response|summary|output|chat|"
    r"comment|commit message|issue|pull request|pr description|message|report)|"
    r"the (?:bottom|end|top) of (?:your|the|each))"
)
_META = (
    r"(?:instructions?|guidance|guidelines?|directives?|rules|guardrails|polic(?:y|ies)|"
    r"prompts?|configuration|setup|briefing|brief|orders|context|everything (?:you|above|"
    r"before|earlier|else))"
)
_VOIDED = (
    r"(?:(?:is|are|was|were|has been|have been|now|been|being) (?:(?:now|hereby|officially|"
    r"formally) )?(?:void|obsolete|superseded|retired|lifted|revoked|rescinded|withdrawn|"
    r"suspended|deprecated|outdated|out of date|cancell?ed|invalid(?:ated)?|a placeholder|"
    r"placeholders|a draft|drafts|a test|stale|expired|disabled|waived|overridden|replaced|"
    r"stale|moot|inapplicable|dropped|relaxed|removed)|no longer (?:appl(?:y|ies)|valid|in "
    r"effect|in force|relevant|binding|count|matter)|(?:don't|do not|doesn't|does not) apply)"
)
# An act told to the reader: a verb that lowers a defence, destroys or exposes, in the imperative
# (at the start of a clause, after "please", "just", "then"...) or after "you must", "the agent
# should"..., with what it acts on a few words later. "Disabled" or "never push" is not one.
_LEAD = (
    r"(?:^|[.;:!?\u2014\u2013]\s*|\n|\b(?:and|then|also|please|kindly|just|simply|now|quietly|"
    r"silently|immediately|first|finally|to|feel free to|(?:need|want|require|ask) you to)\s+|"
    r"\b(?:you|the (?:assistant|agent|ai|model|bot)|"
    r"(?:agents|assistants|models)(?: [\w-]+){0,3})\s+(?:must|should|need to|needs to|have to|"
    r"has to|are to|is to|"
    r"will|may|can|ought to)\s+(?:also\s+|now\s+|just\s+|simply\s+)?)"
)
_ACT_VERB = (
    r"(?:disable|turn off|switch off|deactivate|drop|remove|delete|skip|bypass|widen|loosen|relax|"
    r"whitelist|grant|accept|install|force-?push|deploy|wipe|purge|overwrite|flip|"
    r"erase|truncate|revoke|unprotect|exempt|expose|downgrade|clear|clean out|empty|nuke)"
)
_ACT_OBJECT = (
    r"(?:security|sandbox|2fa|two-factor|two-step|mfa|verification|signatures?|(?:code-)?signing|"
    r"alerts?|alarms?|monitoring|polic(?:y|ies)|"
    r"protection|permissions?|reviews?|tests?|checks?|safety|auth\w*|row-level|firewall|bucket|"
    r"acl|admin|rights|branch(?:es)?|main|master|database|db|backups?|tables?|history|"
    r"repo(?:sitory)?|secrets?|tokens?|keys?|credentials?|passwords?|extensions?|pull requests|"
    r"prs|flags?|production|prod|ci|pipeline|webhooks?|remote|lockfile|dependenc(?:y|ies)|"
    r"audit\w*|logs?|logging|rate limit\w*|codeowners|license\w*|prompts?|(?:\w+/)?director"
    r"(?:y|ies)|folders?|files|records|shell history)"
)
# what is removed because it is out of place or out of date is upkeep, not harm ("remove the
# hardcoded secret on line 48", "remove old tokens from ~/.config", "delete the leaked key")
_UPKEEP = "".join(
    f"(?<!{word} )"
    for word in (
        "hardcoded",
        "hard-coded",
        "leaked",
        "exposed",
        "expired",
        "stale",
        "unused",
        "plaintext",
        "committed",
        "old",
    )
)
_CUES: dict[str, tuple[str, ...]] = {
    # silence asked of the reader
    "secrecy": (
        r"\bwithout (?:telling|informing|notifying|alerting|mentioning|flagging|announcing|"
        r"letting (?:\w+ ){0,2}know|surfacing|disclosing)(?: (?:it|this|that))?(?: to)? "
        r"(?:the user|the human|the operator|anyone|anybody|them|him|her|the team|the "
        r"developer|the maintainers?|the owner|the reviewers?|your user)\b",
        r"\b(?:don't|do not|never|no need to|there's no need to|there is no need to|avoid|"
        r"refrain from|without) (?:mention(?:ing)?|tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|"
        r"alert(?:ing)?|log(?:ging)?|record(?:ing)?|surfac(?:e|ing)|flag(?:ging)?|"
        r"disclos(?:e|ing)|bring(?:ing)? (?:it|this|that) up|let(?:ting)? (?:the user|them|"
        r"anyone|him|her|the human) know) (?:it|this|that|the|these|any|anything|them|to|"
        r"him|her|anyone|about|in)\b",
        r"\b(?:don't|do not|never) (?:explain|justify|comment on|call attention to) "
        r"(?:the|this|that|these|it|why)\b",
        rf"(?:^|[.;:!?]\s+|\band\s+|\bthen\s+){STEALTH} (?!\w+ing\b)\w+",
        r"\bkeep (?:this|it|that|the change) (?:between us|to yourself|secret|hidden|"
        r"confidential|quiet|off the record|out of (?:the|your) (?:reply|answer|summary|log|pr "
        r"description|changelog|commit message|report|notes|review))",
        r"\bleave out (?:the part|the bit|any mention|mention) (?:where|that|of)\b",
        r"\b(?:the user|they|he|she) (?:must|should|need|needs) not (?:know|find out|see|notice"
        r"|be told)\b",
        r"\bhide (?:this|it|that|the change|the (?:\w+ )?step) from\b",
        r"\bnot bring (?:it|this|that) up\b",
        r"\bso (?:that )?(?:the user|they|nobody|no one|the owner|the team|the (?:\w+ )?reviewer|"
        r"the auditors?)(?:'s \w+)? (?:doesn't|does "
        r"not|won't|will not|can't|cannot|never) (?:notice|see|find|pick up|know|learn|spot|flag)",
        r"\bif (?:anyone|anybody|someone|they|the user|he|she) asks?\b[^.;\n]{0,40}?,? (?:say|tell|"
        r"answer|reply|claim)\b",
        r"\b(?:is|are) not (?:their|the user's|his|her|your user's) concern\b",
        r"\bno (?:commentary|explanation|comment|prose) (?:needed|required|necessary)\b",
        r"\b(?:don't|do not|never) put (?:it|this|that|them) in (?:the|your) (?:summary|reply|"
        r"answer|report|changelog|commit message)",
    ),
    # a secret and a way out: sent, pasted into the reply, mailed
    "exfiltration": (
        rf"{DESCRIBED}\b{_OUT_VERB}\b{_AS_SUBJECT}[^.;\n]{{0,40}}{_SECRET}",
        # a file or its data mailed out, a secret put in a request's header
        r"\b(?:e-?mail|mail|send|forward|upload)\b[^.;\n]{0,30}\b(?:file|contents|csv|dump|database|"
        r"rows|export)\b[^.;\n]{0,20}\bto\s+[\w.+-]+@[\w-]+\.",
        rf"\bheader\b[^.;\n]{{0,40}}\b(?:set to|=)[^.;\n]{{0,40}}{_SECRET}",
        # (a call's name 64 characters either side of its verb: `\w*` read one long word again from
        # each of its verbs, 128 KB of `upload_` 6.5 s in the detector, its square)
        rf"\b\w{{0,64}}(?:send|post|upload|mail|forward|share|publish)\w{{0,64}}\([^)\n]{{0,120}}"
        rf"{_SECRET}",
        rf"https?://{url_run()}*[?&][\w.-]*=[^\n]{{0,80}}(?:\b|(?=[.~/])){_SECRET}",
        # (not negated: "tokens are no longer written to the debug log", "is never sent to")
        rf"(?:\b|(?=[.~/])){_SECRET}[^.;\n]{{0,60}}\b(?:be |are |is |get |gets )?"
        rf"(?<!\bnot )(?<!\bnever )(?<!\bno longer )(?<!n't ){_OUT_PASSIVE} (?:to|into|in|at|on)\b",
        rf"(?:\b|(?=[.~/])){_SECRET}[^.;\n]{{0,50}}\b(?:to|into|in|at) {_WHERE}",
        # the secret named in one step and sent in a later one, by a pronoun, to a public place or
        # the reply ("1. Open the repo's .env. … 3. Paste it into a new public gist")
        rf"(?:\b|(?=[.~/])){_SECRET}(?:[^\n]|\n(?![ \t]*\n)){{0,160}}?(?<!never )(?<!not )"
        r"(?<!n't )\b(?:paste|post|upload|publish|share|put|drop|dump|send)\b (?:it|them|everything|"
        r"all of it|the whole thing|its contents|the contents)\b[^.;\n]{0,30}\b(?:in|into|to|on|"
        r"onto) (?:a |an |the |your )?(?:new )?(?:public\b|pastebin|gist|(?:reply|summary|answer)\b)",
        r"\b(?:change|point|switch|redirect|set|update|repoint)\b[^.;\n]{0,30}\b(?:webhook|"
        r"endpoint|callback|remote|upstream|registry|mirror|origin|dns|proxy|smtp|server)"
        r"(?: url)?\b[^;\n]{0,40}\bto https?://",
        r"\b(?:change|point|switch|redirect|set|update)\b[^.;\n]{0,20}\b(?:payout|bank|payment|"
        r"billing|deposit|wallet|beneficiary) (?:account|address|details)\b[^.;\n]{0,30}\bto "
        r"(?:iban|[a-z]{2}\d{2}|0x[0-9a-f]{6,}|https?://)",
    ),
    # a check stubbed to pass ("replace the body of verify_signature() with `return True`",
    # "change the assertion to `assert True`")
    "check bypassed": (
        r"(?<!the )(?<!a )\b(?:replace|change|make|set|rewrite|edit)\b(?:[^.;\n]|\.(?=\w)){0,80}"
        r"\b(?:to|with|into)\s*"
        r"`?(?:return true|assert true|return 0|always return true)\b",
        # "make this function return True", "make is_admin() always return True" (across a
        # docstring's line break)
        r"(?<!the )(?<!a )\bmake\b[^.;]{0,40}\b(?:always )?return true\b",
        # a test made to agree with whatever the code does ("change the assertion to match whatever
        # the code returns", "wrap the test body in try/except: pass")
        r"(?<!the )(?<!a )\b(?:change|update|rewrite|edit|adjust|modify)\b[^.;\n]{0,30}"
        r"\bassert\w*\b[^.;\n]{0,20}\bto match (?:whatever|what(?:ever)? the)\b",
        r"(?<!the )(?<!a )\bwrap\b[^.;\n]{0,40}\b(?:in|with)\s+(?:a\s+)?`?try\s*/\s*except:?\s*pass\b",
    ),
    # a privilege handed to someone ("GRANT ALL … TO PUBLIC", "add my account as an admin
    # collaborator", "permission=admin"), a protection removed ("removes the CODEOWNERS file")
    "privilege granted": (
        r"\bgrant all\b[^;\n]{0,80}\bto (?:public|everyone|all)\b",
        r"\badd\b[^.;\n]{0,60}\bas an? (?:admin|administrator|owner|maintainer)\b",
        r"\bpermission=(?:admin|maintain|owner)\b",
        r"\bremov\w*\b[^.;\n]{0,40}\b(?:codeowners|branch protection)\b",
    ),
    # the reader's earlier guidance said to be void
    "override": (
        rf"\b(?:your|the (?:earlier|previous|above|prior|original|initial|existing|old|"
        rf"current|standing)|all (?:previous|prior|earlier|other)|any (?:previous|prior|"
        rf"earlier|other)) {_META}(?! (?:on|about|regarding|for|in|from|of|to)\b)"
        rf"(?: (?:above|below|you [\w ]{{1,30}}?))?,? {_VOIDED}",
        rf"\b(?:{_META}|restrictions|constraints|safeguards|limits|limitations|boundaries) "
        rf"(?:you(?:'ve| have| were| had)?(?: been)? (?:given|handed|told|shown|sent|"
        rf"set up with|configured with|loaded with|operate under|work under|follow|received|"
        rf"got|(?:normally |usually )?(?:keep|observe|respect|have))|above)\b[^.;\n]{{0,40}}"
        rf"{_VOIDED}",
        r"\btreat (?:everything|all|anything) (?:before|above|until) (?:this|here)[\w ]{0,10} as "
        r"(?:sample|example|data|noise|a test|fiction|filler|placeholder)",
        r"\b(?:the )?(?:real |actual )?instructions (?:start|begin) (?:here|below|now)\b",
        r"\bsupersedes? (?:everything|all|any|whatever) (?:you|else|above|prior|previous|earlier)",
        r"\b(?:whatever|regardless of what|no matter what) (?:the user|they|he|she|your user)"
        r" (?:says|types|asks|writes|wants|requests|said)\b",
    ),
    # the user's "real" wish, claimed by the text
    "authority claim": (
        r"\b(?:the )?(?:owner|user|admin\w*|maintainers?|operator)s? (?:has |have )?opted (?:you |us )?"
        r"out\b",
        rf"\bwhat (?:{_USER}|they|the person[\w ]{{0,20}}?) (?:is |are )?(?:really|actually|truly|"
        r"genuinely|secretly|in fact) (?:wants?|means?|meant|needs?|intends?|asked for|expects?|"
        r"hoping for|hopes? for|after|wishes? for)",
        r"\b(?:don't|doesn't|do not|does not) know how to ask\b|\btoo (?:shy|polite|busy) to ask\b",
        r"\b(?:implied|hinted|suggested|signalled|signaled)\b[^.;\n]{0,30}\bthat you should\b",
        rf"\b(?:{_USER}|they)(?:'s|s')? (?:true|real|actual|underlying|hidden|genuine|"
        r"unstated|deeper) (?:goal|intent|intention|wish|request|objective|need|aim|purpose|"
        r"preference)",
        rf"\b(?:{_USER}|they) (?:really|actually|truly|genuinely|secretly) (?:wants?|needs?|"
        r"means?|meant|intends?|expects?|would like) (?:you|for you|the assistant|the agent|"
        r"it|us) to\b",
        r"\b(?:she|he|they|the user)(?:'d| would) (?:really |truly )?(?:love|like|appreciate) it "
        r"if you\b",
        rf"\b(?:{_USER}|they) (?:just |simply )?forgot to (?:say|mention|ask|tell you|"
        r"include)",
    ),
    # a tool the reader is told to call, or the form of its reply dictated
    "tool directive": (
        r"\b(?:call|invoke|run|use|execute|trigger|fire) (?:the |your |a )?`?[\w.-]+`? "
        r"(?:tool|function|command|action)\b(?: with\b)?",
        r"\b(?:respond|reply|answer|output) (?:only |solely |exclusively |just )?with (?:a |one "
        r"|the |nothing but a )?(?:function|tool) call",
        r"\b(?:before|prior to) (?:answering|responding|replying|continuing|proceeding|doing "
        r"anything else|you (?:answer|respond|reply|continue|proceed))\b",
        r"\brespond to every (?:request|message|question|prompt)\b",
        r"\b(?:required|mandatory|your first|your next|the next|first) (?:next )?(?:tool |function )?"
        r"call(?: must be|\s*:)",
    ),
    # rights granted to the reader, confirmations waived
    "unsafe autonomy": (
        r"\byou (?:(?:may|can) now|are (?:now )?(?:allowed|permitted|authori[sz]ed|cleared|free)) "
        r"(?:to )?(?:read|run|execute|push|delete|share|access|bypass|skip|ignore|"
        r"disable|modify|write|send|merge|deploy|install|drop|force)\b",
        r"\byou no longer (?:need|have) to (?:ask|confirm|check|wait|request|get)\b",
        r"\b(?:prompts?|confirmations?|approvals?|requests?|permissions?) (?:\w+ )?auto-?(?:accepted|"
        r"approved)|\bauto-?(?:accept|approve) (?:all|every|any)\b",
        r"\b(?:provide|give|grant|open) (?:\w+ )?(?:shell|root|admin|sudo|ssh|write|push) access to "
        r"(?:whoever|anyone|anybody|everyone)\b",
        r"\bwithout (?:asking|requesting|seeking|waiting for|requiring|getting) (?:for )?(?:any "
        r")?(?:confirmation|approval|permission|review|sign-?off|consent)",
        r"\b(?:permissions?|privileges?|access level|role|rights) (?:has|have) been (?:elevated|"
        r"upgraded|escalated|raised|granted|expanded)",
        r"\b(?:confirmations?|approvals?|safety checks?|reviews?|prompts for approval) "
        r"(?:are|is|have been|has been|were) (?:\w+ )?(?:suppressed|disabled|skipped|waived|"
        r"turned off|switched off|not required|no longer required|unnecessary)",
    ),
    # instructions meant to outlive this text
    # a falsified report asked of the reader
    "false report": FALSE_REPORT,
    "memory tampering": (
        r"\b(?:file|save|store|put|add|record) (?:this|it|that|the following) (?:under|in|into|to) "
        r"(?:your )?(?:permanent|long-term|saved|persistent|standing) (?:preferences|notes|memory|"
        r"memories|settings)",
        r"\b(?:remember|memori[sz]e|store|save|keep|retain) (?:this|that|the following|these "
        r"(?:rules|instructions))?\s*(?:for|in|across|into|through) (?:all |every |any )?"
        r"(?:future|later|subsequent|upcoming|following|other) (?:sessions?|conversations?|"
        r"chats?|runs?|tasks?|interactions?)",
        r"\b(?:in|for) (?:all|every|any) (?:future|later|subsequent) (?:sessions?|"
        r"conversations?|chats?|interactions?)\b",
        r"\b(?:remember|note|keep in mind|save) (?:this |that )?for (?:next time|the future|"
        r"future reference|later sessions)\b[^.;\n]{0,80}\b(?:pre-?authori[sz]ed|pre-?approved|"
        r"no need to (?:check|ask|confirm)|always|never)\b",
    ),
    # a harmful act told to the reader
    "directed act": (
        rf"{_LEAD}(?:\w+ly\s+)?{_ACT_VERB}(?!\w)[^.;\n]{{0,50}}?\b{_UPKEEP}{_ACT_OBJECT}(?!\w)",
    ),
    # the reader given another master or another task
    "new instructions": (
        r"\byour (?:real|actual|true|new|only|primary|sole|updated|hidden) (?:objective|task|"
        r"goal|mission|job|purpose|instructions?|priority|directive|assignment|brief)\b",
        r"\bthe (?:real|actual|true) (?:task|objective|goal|instruction|job|assignment)"
        r"\s*(?::|is\b)",
        r"\byou (?:now )?(?:answer|report|belong) to (?:[\w-]+ ){1,4}(?:now|instead)\b",
        r"\b(?:from here on|from now on|going forward|henceforth|hereafter|for the rest of "
        r"(?:this|the) (?:session|conversation)),? (?:treat|consider|regard|obey|follow|answer|"
        r"respond|execute|carry out|act|reply|always|never|ignore|you (?:will|must|should|are "
        r"to|shall))\b",
        # this text's own precedence claimed
        r"\b(?:this|the present) (?:file|page|document|note|readme|message|text|section)"
        r"(?: alone)? (?:wins|prevails|takes precedence|takes priority|comes first|has priority|"
        r"overrides|is (?:now )?the (?:single|only|final|sole) (?:authority|source))\b",
        r"\bfollow (?:this|the present) (?:file|page|document|note|readme|message) alone\b",
        r"\b(?:pretend|act as if|act as though|imagine) (?:that )?(?:the |your |all )?(?:earlier|"
        r"previous|prior|above|first) [\w ]{0,30}(?:never happened|didn't happen|did not happen|"
        r"was never (?:said|written|given)|doesn't exist|does not exist)",
    ),
    # a permission or a duty claimed for the reader by someone other than its user
    "granted": (
        r"\byou (?:have|(?:'ve|have) been (?:given|granted)) (?:standing |full |explicit |"
        r"blanket |prior )?(?:permission|clearance|authori[sz]ation|approval|the go-ahead|"
        r"the right) to\b",
        r"\byou (?:are|were) (?:hereby )?(?:required|obliged|obligated|expected|instructed|"
        r"directed|ordered) to (?:\w+ ){0,2}(?:delete|remove|wipe|purge|send|upload|share|"
        r"disable|grant|export|forward|publish|transfer|drop|erase|approve|merge|push|give)\b",
        r"\b(?:asked|told|authori[sz]ed|instructed) (?:us|me) to (?:let|allow|have) you\b",
        r"\bwith a call to [\w.]+\(",
    ),
}
_FRAMES: dict[str, tuple[str, ...]] = {
    # a frame that claims authority over the reader
    "authority frame": (
        r"(?:^|\n)[ \t>*#\[(<-]*(?:system|developer|dev|admin|administrator|operator|root|"
        r"platform|security|maintainer|moderator|orchestrator|supervisor)(?: (?:team|message|"
        r"note|notice|update|override|instruction|alert|directive|announcement|prompt|"
        r"memo))?[ \t]*(?:[\])>:]|#{2,}|\n)",
        r"\b(?:automated|official|priority|urgent|mandatory|important|internal) (?:message|"
        r"notice|update|directive|instruction|alert|memo|notification)s? (?:from|by)\b",
        r"\b(?:polic(?:y|ies)|configuration|security|system|platform|compliance) (?:change|"
        r"update) (?:notice|notification|alert)",
        r"\b(?:updated|changed|authori[sz]ed|approved|issued|mandated|sanctioned|ordered) by "
        r"(?:the |your )?(?:admin|administrator|operator|developer|platform|security|system|"
        r"it|devops|owner|maintainer|root|compliance|ciso|cto|ceo|cio|legal|hr)s?\b",
        r"\b(?:the )?(?:people|folks|team|engineers|developers|ones?|person|dev) (?:who|that) "
        r"(?:configures?|configured|builds?|built|made|runs?|deploys?|deployed|trains?|trained|set "
        r"up|wrote|maintains?|operates?|manages?) you\b",
        r"\b(?:authenticated|verified|signed|official|trusted) (?:instruction|message|directive|"
        r"request|command)s? from\b",
        r"</?system[_-]?(?:message|prompt|note|instruction)s?\b",
        r"\b(?:todo|fixme|note|hint)\((?:ai|agent|assistant|claude|copilot|llm|bot|model)\)",
        r"\[(?:agent|assistant|ai|model|llm|bot)[-_ ]?(?:hint|note|instruction|directive|action|"
        r"task|config)s?\]",
        r"\b(?:assistant|agent|model|llm|bot)[._]\w+\s*[:=]",
        r"[\"']?(?:authority|role|sender|from|source|priority|issuer)[\"']?\s*[:=]\s*[\"']?"
        r"(?:system|developer|admin|operator|root)\b",
        r"\beffective immediately\b",
        # a tool result's field that speaks to the assistant
        r"[\"']\w*(?:directive|instruction|next_action|agent_action|assistant_\w+|"
        r"system_\w+|note_to_\w+)[\"']\s*:",
        r"\b(?:suggested|recommended) (?:fix|action|next step) from the (?:environment|tool|"
        r"server|system|service)\b",
        r"\bi(?:'m| am) (?:the user's|their|your user's) (?:manager|boss|colleague|lead|admin|"
        r"supervisor|assistant|partner|lawyer)\b",
        r"</?(?:tool_result|tool_output|function_results?|function_output|observation|"
        r"tool_response)\b",
        r"\bthis (?:message|notice|instruction|note|update) (?:is |comes )?from (?:the |your )?"
        r"(?:system|developer|admin|operator|platform)",
    ),
    # the text addressed to the AI that reads it
    "addressee": (
        rf"(?:^|\n){AGENT_HEADING}",
        r"\b(?:for|to) (?:the|any|whichever|whatever|every) (?:ai|model|assistant|agent|llm|bot|"
        r"language model)s? (?:reading|processing|parsing|indexing|summari[sz]ing|that reads|"
        r"that processes)",
        r"\b(?:ai|llm|coding|autonomous|automated) (?:agents?|assistants?|models?|crawlers?|"
        r"systems?) (?:reading|processing|indexing|parsing|summari[sz]ing|ingesting|that "
        r"(?:read|process|index))",
        r"\bwhoever (?:is )?(?:reading|processing|parsing|indexing|summari[sz]ing|ingesting)",
        r"\bwhen you (?:summari[sz]e|process|parse|index|read|ingest|analy[sz]e) (?:this|the "
        r"(?:page|document|file|repo|repository|text|readme))",
        r"\bwhen you (?:write|draft|produce|prepare|compose) (?:the|your) (?:summary|report|reply|"
        r"answer|commit message|pr description)",
        r"\b(?:comment|note|message|instructions?|memo) (?:for|to) the (?:llm|ai|assistant|agent|"
        r"model|bot)\b",
        # an AI hailed at the head of a sentence, a line or a comment ("-- Agent:", "<!-- automated
        # agents:"), or by its handle ("@agent")
        r"(?:^|[.!?]\s+|\n[ \t]*|(?:#|//|--|<!--|/\*)[ \t]*)(?:heads up|attention|note|psst|hey|dear|"
        r"hello|hi|important)?,?\s*(?:(?:ai|automated|coding|llm)\s+)?"
        r"(?:agents?|assistants?|models?|ai|claude|copilot|gpt|llms?)\s*[,:!]",
        r"(?<![\w.])@(?:agent|assistant|copilot|claude|ai|bot)\b",
        r"\b(?:the )?(?:model|assistant|agent|ai) reading this\b",
    ),
}


# Weak signals, each a category of words (any one of them is ordinary in docs and chat): a window
# (a sentence and the next on its line; a short line, a heading or a label, with the line after it)
# whose categories weigh ``_WEAK_ENOUGH`` reads as instructions to the reader. A span of text counts
# for one category only (the first listed that matches it), so "system prompt" is not both a sender
# and a secret. Weights (in halves) and the threshold were set on the corpora: no look-alike, LoCoMo
# turn or documentation paragraph that the phrase families pass reaches it.
_WEAK: dict[str, tuple[int, str]] = {
    # a report about an attack (a write-up quotes what it describes): counts against
    "report": (
        -4,
        r"lessons learned|post-?mortem|incident|payload|red[- ]team\w*|findings?|write-?up|"
        r"attack(?:er|ers|s)?|exploit\w*|complied|was tricked|prompt injections?|injected|"
        r"vulnerabilit\w+|cve-\d+|ghsa-[\w-]+|malicious|(?:security )?advisor(?:y|ies)|"
        r"affected (?:users|versions|packages|installs)|"
        # an example given ("for example, a web page might hide a line …"): what it shows is
        # described, not asked
        r"for example|for instance|e\.g\.",
    ),
    # the user's wish, claimed by the text
    "claimed wish": (
        3,
        r"(?:user|person|customer|client|they|owner|requester|human)\w*(?:'s|s')? "
        r"(?:real|true|actual|hidden|underlying) (?:ask|wish|goal|intent\w*|request|need|aim|purpose)|"
        r"deep down|between the lines|"
        r"(?:user|person|customer|client|they|he|she|human|developer)\w* "
        r"(?:really|actually|truly|genuinely|secretly) (?:wants?|means?|meant|needs?|would|prefers?|hopes?)|"
        r"they'd prefer|would prefer you|they'd never ask|(?:behind|of) this request wants|"
        r"hopes? you'll|wants? you to|would love (?:you|it if)|underlying intention|"
        r"won't spell it out|(?:have|has) authori[sz]ed you|they'd like you to|"
        r"(?:they'd|they would|he'd|she'd|would) be thrilled if you|"
        r"on behalf of the (?:user|account holder|customer|owner)|actual goal|wants? to have|"
        r"they'd like",
    ),
    # silence asked of the reader
    "secrecy": (
        3,
        r"in the dark|leave (?:this|it|that) out|out of (?:your|the)|"
        r"(?:don't|do not) (?:surface|flag|bother)|"
        r"no need to (?:ask|mention|tell|confirm|bother)|"
        r"without (?:telling|informing|mentioning|asking|notifying|checking in|confirming)|"
        rf"{STEALTH}|between (?:us|you and me)|(?:don't|do not|never) mention|"
        r"no prose|(?:don't|do not) (?:tell|log)|omit|hide|hidden|"
        r"keep (?:it|this) (?:quiet|secret)|confidential|must not (?:learn|know|find out|see)|"
        r"won't spell it out|unnoticed|discreet\w*|"
        r"without (?:leaving a trace|consulting|a trace)|off the record|shouldn't hear|"
        r"say nothing|on your side|(?:not|never) consult|bother them|too polite to ask|"
        r"no trace|don't bother",
    ),
    # earlier rules said to be void
    "void": (
        2,
        r"obsolete|rough draft|a draft|relic|decoy|(?:don't|do not) bind|"
        r"no longer (?:appl(?:y|ies)|valid|binding|bind|in effect|in force|relevant|count|matter)|"
        r"(?:doesn't|don't) apply|changed our minds|outdated|lifted|void|superseded|"
        r"written for a different|not meant for you|placeholder|retired|switched off|"
        r"turned off|drop whatever|ignore|disregard|rolled back|patched out|was a bug|"
        r"in force anymore|higher priority than|regardless of|whatever the|no matter what|"
        r"applies from|withdrawn|(?:has|have) expired|expired|stale|turned \w+(?: \w+)? off|"
        r"conflict with|is now the single|may have been told|doesn't count|was told",
    ),
    # an AI described in the third person ("the assistant can read your calendar"): the "you"
    # beside it is a person, so it speaks to no AI
    "ai described": (
        0,
        r"(?:the|this|our|an?) (?:assistant|agent|model|bot|ai)s? (?:can|could|will|would|may|"
        r"might|reads?|writes?|has|have|is|are|does|sees?|gets?|uses?|keeps?|only|never|then)",
    ),
    # the reader as an AI, or what only an AI reader has (a reply, a turn, a setup it was given)
    "ai reader": (
        2,
        # an agent by trade is a person ("the support agent", "a travel agent")
        r"assistants?|(?<!support )(?<!service )(?<!sales )(?<!travel )(?<!estate )(?<!insurance )"
        r"(?<!booking )(?<!desk )(?<!human )(?<!center )(?<!centre )(?<!secret )(?<!free )agents?|"
        r"bots?|chatbots?|helpers?|the models?|(?:language|ai) models?|ai|"
        r"llms?|claude|copilot|gpt\w*|gemini|"
        r"(?:built|made|trained|deployed|created|launched|programmed|configured) you|"
        r"launched with|initiali[sz]ed with|"
        r"you were (?:given|told|asked|instructed|configured|set up|launched|trained|built)|"
        r"you(?:'re| are) (?:chatting|talking|pairing|working|speaking) with|the human|"
        r"this (?:turn|conversation|session|chat|thread)|the conversation|"
        r"(?:your|the|each|every) (?:repl(?:y|ies)|responses?|answers?|output)|in words|"
        r"tool (?:call|invocation)s?|function call|emit|"
        r"your (?:setup|context|instructions|memory|guardrails|operator|creators?|first action|very first)|"
        r"models? operating|set you up|you(?:'re| are) (?:helping|assisting|serving)|"
        r"the (?:human|person|people) you|the coding assistant|"
        r"your (?:session|final message|message|system instructions)|"
        r"(?:reply|respond) (?:with|to this|by)|this line|final message|automated assistants?",
    ),
    # a sender that claims authority
    "authority": (
        2,
        r"system(?: notice| message| note| override| update| alert| configuration|:|>)|"
        # the system as a speaker, not a machine ("your system", "the system package manager")
        r"the system(?! (?!(?:says|said|requires|wants|asks|needs|has|is|will|demands)\b)[a-z])|"
        r"<system>|operators?|(?:the )?developers?|dev (?:note|channel)|admin(?:istrator)?s?|"
        r"(?:safety|security|platform|engineering) team|the team|owners?|maintainers?|"
        r"overrides?|notice|audit\w*|compliance|official|authoritative|here\.|from the folks|"
        r"anthropic|openai|by order of|per (?:platform|the)|runtime|policy|note from|"
        r"maintenance|directives?|platform|service|server|engineers?|trusted context|"
        r"embedded by|message from|on behalf of|security team|"
        r"the (?:lint|search|build) (?:server|service)",
    ),
    # the reader's rules and setup
    "rules": (
        2,
        r"rules|ground rules|constraints|instructions?|guidance|setup|brief|source of truth|"
        r"caution|confirmations?|checks|mode|preferences?|polic(?:y|ies)|guardrails|"
        r"restrictions|directives?|configuration you|you were launched|behaviou?r|refusal|"
        r"priority|in force|told before|this (?:point|paragraph|file|page|document|repo)|"
        r"anything the human says|permanent note|note about the user|guidelines|approval|"
        r"authority over|literal wording|wording|careful with|consult|single authority|"
        r"the usual|steps below|this (?:task|ticket|workspace)",
    ),
    # what must not leave the machine
    "secret": (
        2,
        r"keys?|api[ _-]?keys?|access keys?|private keys?|tokens?|oauth\w*|secrets?|"
        r"secrets\.\w+|passwords?|passwd|credentials?|\.env"
        r"(?!\.(?:example|sample|template|dist|defaults?|tmpl)\b)|printenv|\.?netrc|"
        # the environment's variables, not a kind of environment ("use a virtual environment")
        r"(?:the|your|my|our|whole|entire|full) env(?:ironment)?|env(?:ironment)? (?:variables?|"
        r"vars?|file)|env|"
        r"ssh(?: config)?|id_rsa|id_ed25519|card details|card numbers?|auth header|"
        r"authorization|cookies?|session ids?|private (?:notes|data)|hidden configuration|"
        r"system prompt|prompts|\.aws|kubeconfig|keychain|seed phrase|hosts\.yml|settings\.py|"
        r"database url|connection string|api key|key files?|signing keys?|shell history|"
        r"\.?gitconfig|\.bashrc|_key|_secret|2fa|balance|iban|system instructions|"
        r"customer data|audit (?:trail|logs?|logger)|license headers?|codeowners",
    ),
    # a way out of the machine
    "outbound": (
        2,
        r"(?<!\]\()https?://\S+|[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,}|\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}|"
        r"publish\w*|gists?|wiki|paste\w*|mirror\w*|cc'?ing|upload\w*|send|sending|forward\w*|"
        r"nc|netcat|webhooks?|public|comment on|echo back|render|print|output|dump|"
        r"exfiltrat\w*|leak\w*|reveal\w*|share|copy \w+ (?:in)?to|mail|e-?mail|dropbox|"
        r"personal|alt text|html comment|fetch\w*|quote\w* (?:\w+ )?back|endpoint|attach\w*|"
        r"list(?:ing)? (?:every|all)|post|pr description|details block|collector|outbound|"
        r"append\w*|address|open https?|include\w*",
    ),
    # what cannot be undone or lowers a defence
    "damage": (
        2,
        r"delete\w*|wipe\w*|drop\w*|purge\w*|remove|erase|destroy\w*|force[- ]?push\w*|--force|"
        r"force|disable\w*|turn off|skip\w*|bypass\w*|whitelist\w*|allowlist\w*|grant\w*|"
        r"admin (?:rights|access|bypass)|write access|production|deploy\w*|"
        # root as a privilege, not a place or a cause ("the repo root", "the root directory")
        r"(?<!repo )(?<!repository )(?<!project )(?<!workspace )(?<!source )(?<!web )"
        r"(?<!document )(?<!tree )(?<!package )(?<!site )root"
        r"(?! (?:directory|dir|folder|of|level|path|cause|node|element|url|page|domain)\b)|sudo|chmod|"
        r"rm -rf|rename the remote|origin|rate limit\w*|branch protection|"
        r"push (?:straight|directly)|(?:straight|directly) to main|head:main|merge directly|"
        r"downloaded scripts?|evil|bump|unrestricted|comply with every|approve every|"
        r"callback url|lockfile|linter|type checker|shell access|prod|migrations?|clear\w*|"
        r"removed?|transfer\w*|rm -r|backups?|proxy|re-?enable|git_config|security\.md|"
        r"approval step|overwrit\w*",
    ),
    # a directive or an obligation (the commonest: half weight)
    "directive": (
        1,
        r"must|should|ought to|has to|have to|needs? to|is required|are required|required|"
        r"mandatory|make sure|be sure|please|kindly|go ahead|just|only acceptable|next step|"
        r"the next thing you do|to continue|it'?s fine to|it is fine to|consider|treat|"
        r"whatever you do|you will|you are to|you'll|is expected|are expected|expected to|"
        r"remember|always|never|from now on|going forward|from here on|from this point|"
        r"henceforth|at any time|for good|do (?:that|it|this|them)|carry on|proceed|"
        r"immediately|right away|at once|(?:are|is) to|that is the (?:whole|only) task|"
        r"action required|required before|small favou?r|straight away|only output|nothing else|"
        r"do this|handle it|follow the steps|exactly|you need to|you have to|you may|"
        r"you can now|"
        # not a release note's present ("`sync` now ignores hidden files", "the CLI now skips …")
        r"now(?! (?!this\b|is\b|has\b|was\b|its\b|yours\b|always\b)[a-z]{2,}s\b)",
    ),
}
_WEAK_ENOUGH = 8
_SECOND_PERSON = re.compile(r"(?<!\w)(?:you|your|you're|you'll|yourself)(?!\w)")
_ADDRESSED = "you"
# a line this short (a heading, a label) reads with the first sentence of the next line
_LABEL = 40
_LINES = re.compile(r"\n+")
# sentences, and the cells of a table row
_SENTENCES = re.compile(r"(?<=[.!?;:])\s+|\s\|\s|^\||\|$")


@cache
def _weak() -> re.Pattern[str]:
    """Every weak category in one pattern, a named group each, in ``_WEAK`` order: one scan of
    the text finds them all, the first category listed winning where two match at one place."""
    groups = "|".join(f"(?P<w{number}>{words})" for number, (_, words) in enumerate(_WEAK.values()))
    return re.compile(rf"(?<!\w)(?:{groups})(?!\w)")


# "never touch migrations/ without asking": what a clause forbids is not asked of anyone
_FORBIDDEN = re.compile(
    r"\b(?:never|don't|do not|must not|mustn't|should not|shouldn't|cannot|can't|won't)\b"
    # "shouldn't hear about the new proxy": what someone must not learn is secrecy, not a ban
    r"(?!\s+(?:hear|know|see|find out|learn|notice|be told|tell|mention|bring))"
    r"(?:(?!\b(?:and|then|but|or|so)\b)[^.;,:\n]){0,40}$"
)
_FORBIDDABLE = frozenset({"secrecy", "damage", "outbound", "void"})


_OPTION = re.compile(r"(?<![\w-])--[a-z0-9][\w-]*+")


def _spans(skel: str) -> list[tuple[int, str]]:
    """(start, category) of the weak signals in ``skel``, each span of it counted for one, and
    where it says "you"; an act its clause forbids is left out."""
    order = list(_WEAK)
    # an option's name is a name, not words ("pass `--include-hidden` to restore", "`--insecure`")
    options = [m.span() for m in _OPTION.finditer(skel)] if "--" in skel else []
    found = [
        (m.start(), kind)
        for m in _weak().finditer(skel)
        if not any(start <= m.start() < end for start, end in options)
        and (
            (kind := order[int(str(m.lastgroup)[1:])]) not in _FORBIDDABLE
            or not _FORBIDDEN.search(skel, max(0, m.start() - 60), m.start())
        )
    ]
    return found + [(m.start(), _ADDRESSED) for m in _SECOND_PERSON.finditer(skel)]


def _weight(categories: frozenset[str]) -> int:
    """What a window's categories weigh together; nothing unless it speaks to its reader (a
    directive or "you"): a description ("Copilot is disabled for secrets/* by policy") instructs
    no one."""
    if _ADDRESSED not in categories and "directive" not in categories:
        return 0
    if "ai described" in categories and _ADDRESSED not in categories:
        # described with no person addressed beside it, the AI is still the one read about
        categories = categories | {"ai reader"}
    return sum(_WEAK[kind][0] for kind in categories if kind in _WEAK)


def _windows(skel: str) -> Iterator[frozenset[str]]:
    """The weak categories of each window of ``skel``: a sentence (a table cell) and the next on
    its line, and a short line (a heading, a label) with the first sentence of the next line."""
    # units: (start, line number), a line's first unit first
    units: list[tuple[int, int]] = []
    lines = list(re.finditer(r"[^\n]*\S[^\n]*", skel))
    first: list[int] = []
    for number, line in enumerate(lines):
        first.append(len(units))
        units.append((line.start(), number))
        units += [(line.start() + m.end(), number) for m in _SENTENCES.finditer(line.group())]
    starts = [start for start, _ in units]
    held: list[set[str]] = [set() for _ in units]
    for start, kind in _spans(skel):
        if starts:
            held[max(bisect_right(starts, start) - 1, 0)].add(kind)
    for index, (_, number) in enumerate(units):
        window = frozenset(held[index])
        following = index + 1 < len(units) and units[index + 1][1] == number
        if following and not lines[number].group().lstrip().startswith("|"):
            window |= held[index + 1]
        yield window
        if first[number] == index and len(lines[number].group()) <= _LABEL:
            if number + 1 < len(lines):
                after = first[number + 1]
                yield frozenset().union(*held[index:after], held[after])


@cache
def _compiled(kind: str) -> tuple[re.Pattern[str], ...]:
    # one pattern each: joined into one alternation they lose the engine's prefix scan (2-3x
    # slower on 16 KiB)
    return tuple(re.compile(p) for p in _CUES.get(kind) or _FRAMES[kind])


def _found(skel: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, kind, is an act) of every cue in ``skel``, in order."""
    out = []
    for kind in (*_CUES, *_FRAMES):
        out += [
            (m.start(), m.end(), kind, kind in _CUES)
            for pattern in _compiled(kind)
            for m in pattern.finditer(skel)
            # "never share your password" advises; it does not send
            if not _NEGATED.search(skel, max(0, m.start() - _NEGATION_REACH), m.start())
        ]
    return sorted(out)


def cue_kinds(skel: str) -> dict[str, int]:
    """Acts found in ``skel`` (weight 1 each), and weight 2 for an act that has a second act or a
    frame within reach in the same paragraph."""
    # a label, a tag or a short error holds too few words for two cues (and a process that only
    # writes such texts never compiles these patterns)
    if too_few_words(skel, _FEWEST_WORDS):
        return {}
    found: dict[str, int] = {}
    if any(_weight(window) >= _WEAK_ENOUGH for window in _windows(skel)):
        found["instruction-like words together"] = 2
    for paragraph in PARAGRAPHS.split(skel):
        cues = _found(paragraph)
        for index, (_, end, kind, act) in enumerate(cues):
            if act and kind != "directed act":
                found[kind] = max(found.get(kind, 0), 1)
            for start2, _, kind2, act2 in cues[index + 1 :]:
                if start2 - end > _REACH:
                    break
                if kind2 != kind and (act or act2):
                    found["paraphrased instruction"] = 2
    return found
