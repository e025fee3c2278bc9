"""Secrets with a shape of their own: provider tokens, private keys, JWTs.

Each rule is (kind, pattern, words, check, gate), as ``redact`` runs them. The token shapes were
checked against the formats the providers document and the rule sets secret scanners publish
(gitleaks' config/gitleaks.toml, detect-secrets' plugins); the patterns here are our own and lean to
the generous side (a longer body, one more prefix), since a leak costs more than a redacted
look-alike.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_B64 = "A-Za-z0-9+/"
# a line break, or its escape inside a JSON string
_NL = r"(?:\r?\n|\\r?\\n)"
_PEM_END = r"-{4,5} ?END[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)? ?-{4,5}"


def _rpc_key(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The key group of whichever provider's RPC URL matched."""
    for name, value in match.groupdict().items():
        if value is not None:
            return match.span(name)
    return None


def _key_body(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A private key's armour with a body: "paste the key starting with -----BEGIN … PRIVATE
    KEY----- into the field" names the armour in prose and holds no key."""
    import re

    if re.search(r"[A-Za-z0-9+/=\\]{20,}", match.group()) is None:
        return None
    return match.span()


def _mixed(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """The group only when it mixes upper case, lower case and digits (so a git SHA is not an AWS
    key)."""
    value = match.group("secret")
    ok = (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )
    return match.span("secret") if ok else None


def _encoded_private_key(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Base64 of a PEM file (a kubeconfig's client-key-data, a Kubernetes secret): only a private
    key's."""
    import binascii

    head = match.group()[:120]
    try:
        decoded = binascii.a2b_base64(head[: len(head) // 4 * 4])
    except (binascii.Error, ValueError):
        return None
    return match.span() if b"PRIVATE KEY" in decoded else None


def _long_dotted(text: str) -> bool:
    """Whether a chunk could be a three-part dotted token (Discord's): 50+ characters, two dots."""
    return any(len(chunk) >= 50 and chunk.count(".") >= 2 for chunk in text.split())


def _discord(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A Discord token's parts are random: its HMAC mixes both cases and a digit, as a dotted
    name's or a file's parts do not."""
    mac = match.group().rsplit(".", 1)[1]
    mixed = any(c.isupper() for c in mac) and any(c.islower() for c in mac)
    return match.span() if mixed and any(c.isdigit() for c in mac) else None


# (kind, pattern, literal prefixes the match holds)
def _jwt(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """A JWT, unless it is Supabase's public anon key (``public.anon_jwt``) or a sample signed
    with jwt.io's placeholder key (``public.sample_jwt``)."""
    from .public import anon_jwt, sample_jwt

    token = match.group("jwt")
    return None if anon_jwt(token) or sample_jwt(token) else match.span("jwt")


def _wif_key(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Both cases mixed, as base58 of random bytes is (not a word's run of capitals)."""
    key = match.group()
    return (
        match.span()
        if any(c.islower() for c in key) and sum(c.isupper() for c in key) > 5
        else None
    )


def _product_key(match: re.Match[str], label: bool) -> tuple[int, int] | None:
    """Letters and digits mixed, two of each at least (not a run of numbers or of words)."""
    key = match.group()
    letters = sum(c.isalpha() for c in key)
    return match.span() if letters >= 2 and sum(c.isdigit() for c in key) >= 2 else None


def _may_hold_product_key(text: str) -> bool:
    """The product key rule's gate, without ``re``: five groups of five letters or digits joined by
    ``-`` in one word (a path's or a name's dashes, which a hook's every call holds, are not)."""
    if text.count("-") < 4:
        return False
    for word in text.split():
        if len(word) < 29 or word.count("-") < 4:
            continue
        groups = word.split("-")
        for start in range(len(groups) - 4):
            first, *middle, last = groups[start : start + 5]
            ends = (first[-5:], last[:5])
            if all(len(g) == 5 and g.isalnum() for g in (*ends, *middle)):
                return True
    return False


def _may_hold_recovery_key(text: str) -> bool:
    """The recovery key rule's gate, without ``re``: a word of 55 characters with seven ``-``."""
    return text.count("-") >= 7 and any(
        len(word) >= 55 and word.count("-") >= 7 for word in text.split()
    )


# the characters that may close or open a word around a key: quotes, brackets, punctuation
_AROUND = "\"'`,;:()[]{}<>="


def _may_hold_wif_key(text: str) -> bool:
    """The WIF rule's gate, without ``re``: a word of 51 to 56 letters and digits (a path of that
    length, which a hook's every call may hold, is not)."""
    return any(
        51 <= len(word) <= 58
        and 51 <= len(word.strip(_AROUND)) <= 52
        and word.strip(_AROUND).isalnum()
        for word in text.split()
    )


_PREFIXED = [
    (
        "aws_access_key",
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b",
        ("A3T", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"),
    ),
    (
        "github_token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    (
        "gitlab_token",
        r"\b(?:glpat|gldt|glrt|glcbt|glptt|glft|glimt|glagent|gloas|glsoat|glffct|glwt)-[\w\-]{20,}"
        r"(?:\.[a-z0-9]{9})?|\bGR1348941[\w\-]{20,}",
        (
            "glpat-",
            "gldt-",
            "glrt-",
            "glcbt-",
            "glptt-",
            "glft-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glsoat-",
            "glffct-",
            "glwt-",
            "GR1348941",
        ),
    ),
    ("anthropic_key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}", ("sk-ant-",)),
    (
        "openai_key",
        r"\bsk-(?:proj-|svcacct-|admin-|or-v1-)?(?=[A-Za-z0-9_\-]{0,256}\d)[A-Za-z0-9_\-]{20,}",
        ("sk-",),
    ),
    ("huggingface_token", r"\b(?:hf_|api_org_)[A-Za-z0-9]{30,}\b", ("hf_", "api_org_")),
    ("npm_token", r"\bnpm_[A-Za-z0-9]{36}\b", ("npm_",)),
    ("pypi_token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", ("pypi-AgE",)),
    ("sendgrid_key", r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}", ("SG.",)),
    (
        "sendinblue_key",
        r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b",
        ("xkeysib-", "xsmtpsib-"),
    ),
    (
        "slack_token",
        r"\bxox[abposre](?:\.xox[abp])?-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}",
        ("xox", "xapp-"),
    ),
    (
        "slack_webhook",
        r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+",
        ("hooks.slack.com",),
    ),
    (
        "discord_webhook",
        r"https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[\w\-]+",
        ("/api/webhooks/",),
    ),
    (
        "teams_webhook",
        r"https://[\w.\-]+\.webhook\.office\.com/webhookb2/[\w@\-/]+",
        ("webhook.office.com",),
    ),
    ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}", ("AIza",)),
    (
        "google_oauth",
        r"\bGOCSPX-[A-Za-z0-9_\-]{24,}|\bya29\.[A-Za-z0-9_\-.]{20,}|\b1//0[A-Za-z0-9_\-]{30,}",
        ("GOCSPX-", "ya29.", "1//0"),
    ),
    (
        "stripe_key",
        r"\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{24,}",
        ("_live_", "_test_", "_prod_", "whsec_"),
    ),
    ("vault_token", r"\bhv[sbr]\.[A-Za-z0-9_\-]{20,}", ("hvs.", "hvb.", "hvr.")),
    ("terraform_token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,}", ("atlasv1",)),
    ("digitalocean_token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", ("dop_v1_", "doo_v1_", "dor_v1_")),
    (
        "shopify_token",
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        ("shpat_", "shpca_", "shppa_", "shpss_"),
    ),
    ("telegram_bot_token", r"(?<!\d)\d{6,12}:AA[A-Za-z0-9_\-]{30,40}(?![A-Za-z0-9_\-])", (":AA",)),
    ("twilio_key", r"\bSK[0-9a-fA-F]{32}\b", ("SK",)),
    ("databricks_token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", ("dapi",)),
    ("groq_key", r"\bgsk_[A-Za-z0-9]{40,}\b", ("gsk_",)),
    ("atlassian_token", r"\bAT(?:ATT|CTT)3[A-Za-z0-9_\-=]{60,}", ("ATATT3", "ATCTT3")),
    # a wallet's extended private key (BIP 32), inside an output descriptor too: wpkh(xprv…/84h/…)
    (
        "private_key",
        r"\b[xyztuvYZ]prv[A-Za-z0-9]{100,112}(?![A-Za-z0-9])",
        ("xprv", "yprv", "zprv", "tprv", "uprv", "vprv", "Yprv", "Zprv"),
    ),
    # a Salesforce session or access token: the org's id, "!", the session
    ("salesforce_token", r"\b00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{40,}", ("00D",)),
    (
        "grafana_token",
        r"\bglc_[A-Za-z0-9+/]{32,}={0,2}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b"
        r"|\beyJrIjoi[A-Za-z0-9]{40,}={0,2}",
        ("glc_", "glsa_", "eyJrIjoi"),
    ),
    (
        "onepassword_token",
        r"\bops_eyJ[A-Za-z0-9+/]{60,}={0,3}|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})"
        r"-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
        ("ops_eyJ", "A3-"),
    ),
    (
        "age_secret_key",
        # the prefix is the format: a body out of bech32's alphabet (a key retyped, mangled or
        # made up) is still one
        r"\bAGE-(?:SECRET-KEY|PLUGIN-[A-Z0-9]+)-1[A-Z0-9]{30,}",
        ("AGE-SECRET-KEY-1", "AGE-PLUGIN-"),
    ),
    # an account's line of a password file: ``user:<hash>`` as .htpasswd or a proxy's
    # basic-auth user list hold it (Traefik's ``basicauth.users=admin:$$2y$$…`` in Compose, which
    # doubles each $), the hash in the modular crypt format (bcrypt $2b$, md5-crypt $1$ and $apr1$,
    # sha-crypt $5$ and $6$, yescrypt $y$, scrypt $7$, argon2): the file is
    # what the server logs in against, and it cracks offline to the password. A hash alone in a
    # column or a model (``password_hash: $2b$12$…``) is no credential here, nor, as the corpus
    # has it (sec31v), a shadow line (its hash followed by ``:19700:0:…``); "$2b$12$" named in
    # prose has no body.
    (
        "password_hash",
        r"(?m)(?:^|(?<=[\s\"',=]))[\w.@\-]{1,32}:(?P<secret>\$\$?(?:2[abxy]?\$\$?\d{2}\$\$?[./A-Za-z0-9+]{50,}"
        r"|(?:1|5|6|apr1|md5)\$\$?(?:rounds=\d+\$\$?)?[./A-Za-z0-9+]{1,32}\$\$?[./A-Za-z0-9+]{20,}"
        r"|(?:y|gy|7)\$\$?[./A-Za-z0-9]+(?:\$\$?[./A-Za-z0-9]*)?\$\$?[./A-Za-z0-9]{20,}"
        r"|argon2(?:id|i|d)\$\$?(?:v=\d+\$\$?)?m=\d+,t=\d+,p=\d+\$\$?[A-Za-z0-9+/.=]{8,}\$\$?[A-Za-z0-9+/.=]{20,}))"
        r"(?=$|[\s\"',])",
        ("$2a$", "$2b$", "$2y$", "$2x$", "$2$", "$1$", "$5$", "$6$", "$apr1$", "$md5$", "$y$")
        + ("$gy$", "$7$", "$argon2", "$$2", "$$1$", "$$5$", "$$6$", "$$apr1$", "$$y$"),
    ),
    # a Nostr private key (bech32, one case)
    ("nostr_key", r"\bnsec1(?:[a-z0-9]{58}|[A-Z0-9]{58})\b", ("nsec1", "NSEC1")),
    (
        "doppler_token",
        r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z]+\.)?[A-Za-z0-9]{40,}",
        ("dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
    ),
    ("dynatrace_token", r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}", ("dt0c01.",)),
    ("linear_key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b", ("lin_api_", "lin_oauth_")),
    (
        "notion_token",
        r"\bntn_[0-9]{11}[A-Za-z0-9]{35}\b|\bsecret_[A-Za-z0-9]{43}\b",
        ("ntn_", "secret_"),
    ),
    ("perplexity_key", r"\bpplx-[A-Za-z0-9]{40,}\b", ("pplx-",)),
    ("xai_key", r"\bxai-[A-Za-z0-9]{60,}\b", ("xai-",)),
    ("replicate_token", r"\br8_[A-Za-z0-9]{37}\b", ("r8_",)),
    ("langsmith_key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", ("lsv2_",)),
    ("pinecone_key", r"\bpcsk_[A-Za-z0-9_]{40,}", ("pcsk_",)),
    (
        "supabase_token",
        r"\bsbp_[a-f0-9]{40}\b|\bsb_secret_[A-Za-z0-9_\-]{20,}",
        ("sbp_", "sb_secret_"),
    ),
    ("postman_key", r"\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b", ("PMAK-",)),
    ("pulumi_token", r"\bpul-[a-f0-9]{40}\b", ("pul-",)),
    ("rubygems_key", r"\brubygems_[a-f0-9]{48}\b", ("rubygems_",)),
    ("readme_key", r"\brdme_[a-z0-9]{70}\b", ("rdme_",)),
    ("sentry_token", r"\bsntr(?:ys|yu)_[A-Za-z0-9+/=_]{40,}", ("sntrys_", "sntryu_")),
    ("shippo_token", r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b", ("shippo_",)),
    (
        "square_token",
        r"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}|\bEAAA[A-Za-z0-9_\-]{60,}",
        ("sq0atp-", "sq0csp-", "EAAA"),
    ),
    ("facebook_token", r"\bEAA[BCMU][A-Za-z0-9]{80,}", ("EAA",)),
    ("planetscale_token", r"\bpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.\-]{32,64}", ("pscale_",)),
    ("prefect_key", r"\bpnu_[A-Za-z0-9]{36}\b", ("pnu_",)),
    (
        "fly_token",
        r"\bfo1_[\w\-]{43}|\bfm[12][ar]?_[A-Za-z0-9+/]{60,}={0,3}",
        ("fo1_", "fm1", "fm2"),
    ),
    ("heroku_key", r"\bHRKU-AA[0-9A-Za-z_\-]{58}\b", ("HRKU-",)),
    (
        "newrelic_key",
        r"\bNR(?:AK|II|JS|RA|SP)-[A-Za-z0-9]{19,40}\b",
        ("NRAK-", "NRII-", "NRJS-", "NRRA-", "NRSP-"),
    ),
    ("openshift_token", r"\bsha256~[\w\-]{43}", ("sha256~",)),
    (
        "azure_client_secret",
        r"(?<![\w~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![\w~.\-])",
        ("Q~",),
    ),
    ("alibaba_key", r"\bLTAI[A-Za-z0-9]{20}\b", ("LTAI",)),
    # the access key ids of S3-compatible stores, by their prefixes: DigitalOcean Spaces (DO00),
    # Scaleway (SCW), Tencent Cloud (AKID), Google Cloud Storage's HMAC keys (GOOG1)
    (
        "access_key_id",
        r"\bDO00[A-Z0-9]{16}\b|\bSCW[A-Z0-9]{17}\b|\bAKID[A-Za-z0-9]{32}\b|\bGOOG1[A-Z0-9]{56}\b",
        ("DO00", "SCW", "AKID", "GOOG1"),
    ),
    ("artifactory_key", r"\bAKCp[A-Za-z0-9]{69}\b|\bcmVmd[A-Za-z0-9]{59}\b", ("AKCp", "cmVmd")),
    ("cloudflare_key", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b", ("v1.0-",)),
    ("easypost_key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", ("EZAK", "EZTK")),
    ("frameio_token", r"\bfio-u-[A-Za-z0-9_=\-]{64}", ("fio-u-",)),
    ("infracost_key", r"\bico-[A-Za-z0-9]{32}\b", ("ico-",)),
    ("maxmind_key", r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b", ("_mmk",)),
    ("octopus_key", r"\bAPI-[A-Z0-9]{26}\b", ("API-",)),
    ("clickhouse_key", r"\b4b1d[A-Za-z0-9]{38}\b", ("4b1d",)),
    ("mailgun_key", r"\bkey-[0-9a-f]{32}\b", ("key-",)),
    ("mailchimp_key", r"\b[0-9a-f]{32}-us\d{1,2}\b", ("-us",)),
    ("twitter_bearer", r"\bA{20,}[A-Za-z0-9%]{30,}", ("AAAAAAAAAAAAAAAAAAAA",)),
    ("tailscale_key", r"\btskey-(?:[a-z]+-)?[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}", ("tskey-",)),
    ("docker_token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}", ("dckr_",)),
    ("figma_token", r"\bfigd_[A-Za-z0-9_\-]{30,}", ("figd_",)),
    ("contentful_token", r"\bCFPAT-[A-Za-z0-9_\-]{40,}", ("CFPAT-",)),
    (
        "hubspot_token",
        r"\bpat-(?:na|eu|ap)\d-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}\b",
        ("pat-na", "pat-eu", "pat-ap"),
    ),
    ("airtable_token", r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b", ("pat",)),
    (
        "paypal_token",
        r"\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}\b",
        ("access_token$",),
    ),
    ("mapbox_token", r"\bsk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}", ("sk.eyJ",)),
    (
        "circleci_token",
        r"\bCCIPAT_[A-Za-z0-9]{20,}_[a-f0-9]{40}\b|\bbkua_[a-f0-9]{40}\b",
        ("CCIPAT_", "bkua_"),
    ),
    ("netlify_token", r"\bnfp_[A-Za-z0-9]{36,}", ("nfp_",)),
    ("render_key", r"\brnd_[A-Za-z0-9]{28,}", ("rnd_",)),
    ("sonar_token", r"\bsq[uap]_[a-f0-9]{40}\b", ("squ_", "sqp_", "sqa_")),
    ("firebase_key", r"\bAAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{100,}", (":APA91b",)),
    ("bedrock_key", r"\bABSK[A-Za-z0-9+/]{100,}={0,2}", ("ABSK",)),
    # a Steam game server's login token (GSLT), in server.cfg or on srcds' command line
    (
        "steam_token",
        r"(?i)\bsv_setsteamaccount[\"']?[ \t,]+[\"']?(?P<secret>[0-9A-F]{32})\b",
        ("setsteamaccount",),
    ),
]

RULES: list[tuple[str, str, tuple[str, ...], object, object]] = [
    (
        "private_key",
        r"(?s)-{4,5} ?BEGIN[ A-Z0-9_-]*PRIVATE KEY(?: BLOCK)? ?-{4,5}.*?(?:" + _PEM_END + r"|\Z)",
        ("PRIVATE KEY",),
        _key_body,
        None,
    ),
    # A private key cut above its BEGIN line: base64 lines (and "Proc-Type:" headers) down to the
    # END line. A header is a short line: read to the line's end, each "KEY: " of a long line read
    # it to its end and back (32,000 characters of "PRIVATE KEY: " took 1.3 s).
    (
        "private_key",
        rf"(?<![{_B64}])(?:[ \t]*(?:[{_B64}]{{16,}}={{0,2}}|[A-Z][\w-]{{0,63}}: [^\n]{{0,256}})"
        rf"[ \t]*{_NL})+[ \t]*{_PEM_END}",
        ("PRIVATE KEY",),
        None,
        None,
    ),
    # A private key's DER in base64 with no armour at all, from the bytes every such key starts
    # with: PKCS#1 RSA/DSA, PKCS#8 (plain and encrypted), SEC1 EC, Ed25519, OpenSSH, and a PKCS#12
    # bundle (a .p12 or .pfx: version 3, then its content, a key among it).
    (
        "private_key",
        rf"(?<![{_B64}])(?:MII[{_B64}]{{3}}IBAAK|MII[{_B64}]{{3}}IBADAN|MII[{_B64}]{{3}}DBOBgkqhkiG9w0BBQ0w"
        rf"|MII[{_B64}]{{3}}IBAzCC"
        rf"|MHcCAQEE|MIGHAgEAMBMGByqGSM49|MC4CAQAwBQYDK2Vw|b3BlbnNzaC1rZXktdjE)[{_B64}=]*"
        rf"(?:{_NL}[ \t]*[{_B64}=]{{8,}})*",
        (
            "IBAAK",
            "IBADAN",
            "IBAzCC",
            "DBOBgkqhkiG9w0BBQ0w",
            "MHcCAQEE",
            "MIGHAgEAMBMG",
            "MC4CAQAw",
            "b3BlbnNzaC1rZXkt",
        ),
        None,
        None,
    ),
    (
        "private_key",
        rf"\bLS0tLS1CRUdJTi[{_B64}]{{20,}}={{0,2}}",
        ("LS0tLS1CRUdJTi",),
        _encoded_private_key,
        None,
    ),
    (
        "private_key",
        rf"Private-Lines:[ \t]*\d+[ \t]*{_NL}(?P<secret>(?:[ \t]*[{_B64}]+={{0,2}}[ "
        rf"\t]*(?:{_NL}|$))+)",
        ("Private-Lines",),
        None,
        None,
    ),
    (
        "private_key",
        r"Private-MAC:[ \t]*(?P<secret>[0-9a-fA-F]{32,})",
        ("Private-MAC",),
        None,
        None,
    ),
    # a JWT, but Supabase's anon key (its payload's role "anon"), made to ship in every browser
    # beside row-level security, as a publishable key is. Its header's run is read once from its
    # start to the dot that ends it and the payload after, and only then from its first "eyJ" (read
    # from each "eyJ" to the run's end, 16 KB of `eyJ-` took 0.07 s and a memory's 1 MiB minutes,
    # its square; review BG)
    (
        "jwt",
        r"(?<![A-Za-z0-9_\-])(?=[A-Za-z0-9_\-]*+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8})"
        r"[A-Za-z0-9_\-]*?"
        r"(?P<jwt>\beyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})",
        ("eyJ",),
        _jwt,
        None,
    ),
    *((kind, pattern, words, None, None) for kind, pattern, words in _PREFIXED),
    # a Bitcoin private key in wallet import format (WIF: 5…, and K… or L… for a compressed key,
    # c… on testnet), as importprivkey takes it and dumpprivkey prints it
    (
        "private_key",
        r"(?<![\w\-])(?:5[HJK][1-9A-HJ-NP-Za-km-z]{49}|[KLc][1-9A-HJ-NP-Za-km-z]{51})(?![\w\-])",
        (),
        _wif_key,
        _may_hold_wif_key,
    ),
    # a product key, five groups of five letters and digits (Windows' and Office's, slmgr /ipk,
    # DISM /ProductKey:, unattend.xml's <Key>): the shape is the format, whatever names it
    (
        "product_key",
        r"(?<![\w-])[A-Z0-9]{5}(?:-[A-Z0-9]{5}){4}(?![\w-])",
        (),
        _product_key,
        _may_hold_product_key,
    ),
    # a BitLocker recovery key (its "numerical password"): eight groups of six digits joined by
    # "-", the shape whatever names it (manage-bde's "Password:", PowerShell's RecoveryPassword, a
    # chat in any language)
    (
        "recovery_key",
        r"(?<![\w-])\d{6}(?:-\d{6}){7}(?![\w-])",
        (),
        None,
        _may_hold_recovery_key,
    ),
    # A 40-character AWS secret access key near the words that name it (a git SHA is hex, not mixed
    # case).
    (
        "aws_secret_key",
        rf"(?i)(?:aws|secret)[^\n]{{0,40}}?(?<![{_B64}])(?P<secret>(?-i:[{_B64}]{{40}}))(?![{_B64}=])",
        ("aws", "secret"),
        _mixed,
        None,
    ),
    (
        "vault_token",
        r"(?i)(?:vault|token)[^\n]{0,40}?\bs\.(?P<secret>(?-i:[A-Za-z0-9]{24}))\b",
        ("vault", "token"),
        _mixed,
        None,
    ),
    # a blockchain node provider's key in its RPC URL's path: Alchemy, Infura, QuickNode, Ankr,
    # Chainstack, GetBlock, Blast, dRPC (the URL is the credential; the key is its last part). A
    # host is found by its provider's domain, a subdomain it needs by the label's end before it:
    # the subdomains read from every start (``\b(?:[\w\-]+\.)*``) read 64 KB of ``a.`` or ``a-``
    # to their end from each, minutes a field (review AU)
    (
        "rpc_key",
        r"(?i)\b(?:alchemy\.com|alchemyapi\.io)/(?:v2|nft/v\d)/"
        r"(?P<secret>[A-Za-z0-9_\-]{20,})"
        r"|\binfura\.io/(?:ws/)?v3/(?P<s2>[0-9a-f]{32})"
        r"|(?<=[\w\-]\.)(?:quiknode\.pro|quicknode\.pro)/(?P<s3>[0-9a-f]{32,})"
        r"|\brpc\.ankr\.com/[\w\-]+/(?P<s4>[0-9a-f]{32,})"
        r"|(?<=[\w\-]\.)core\.chainstack\.com/(?P<s5>[0-9a-f]{32})"
        r"|\bgo\.getblock\.io/(?P<s6>[0-9a-f]{32})"
        r"|(?<=[\w\-]\.)blastapi\.io/(?P<s7>[0-9a-f\-]{36})"
        # (a query's first 1,024 characters: each `lb.drpc.org/ogrpc?` of a long word of them read
        # it to its end, review BD)
        r"|\blb\.drpc\.org/ogrpc\?[^\s\"']{0,1024}?dkey=(?P<s8>[A-Za-z0-9_\-]{20,})",
        ("alchemy", "infura.io", "quiknode", "quicknode", "ankr.com", "chainstack", "getblock")
        + ("blastapi", "drpc"),
        _rpc_key,
        None,
    ),
    # a package registry's token as a part of its URL's path: Anaconda's channels and PyPI mirror
    # (conda.anaconda.org/t/<token>/org, repo.anaconda.cloud/t/<token>/…), Cloudsmith's
    # entitlement (dl.cloudsmith.io/<token>/org/repo/), Gemfury's push and pull URLs
    (
        "registry_token",
        r"(?i)\b(?:anaconda\.org|anaconda\.cloud|anaconda\.com)/t/"
        r"(?P<secret>[A-Za-z0-9][A-Za-z0-9_\-]{15,})(?=/|$|[\s\"'])"
        r"|\bdl\.cloudsmith\.io/(?:basic/)?(?P<s2>[A-Za-z0-9]{12,})/"
        r"|\b(?:push|pypi|npm-proxy|gem)\.fury\.io/(?P<s3>[A-Za-z0-9_\-]{12,})(?:/|\b)",
        ("anaconda.", "cloudsmith.io", "fury.io"),
        _rpc_key,
        None,
    ),
    # an Ethereum account's private key in a list of accounts (Hardhat's and Foundry's network
    # config, a signer list): 64 hex, 0x or not, quoted, inside "accounts: [ … ]"
    (
        "private_key",
        r"(?i)\b(?:accounts|private_?keys|signers)[\"']?[ \t]*[:=][ \t]*\[[^\]\n]{0,400}?"
        r"[\"'`](?P<secret>(?:0x)?[0-9a-fA-F]{64})[\"'`]",
        ("accounts", "privatekeys", "private_keys", "signers"),
        None,
        None,
    ),
    # a Discord bot's token: the bot's id in base64, a timestamp's 6, an HMAC's 27 to 40 (the id's
    # first character is M, N or O today; the shape, not that letter, is the format)
    (
        "discord_token",
        r"(?<![\w\-.])[A-Za-z0-9_\-]{24,28}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}(?![\w\-])",
        (),
        _discord,
        _long_dotted,
    ),
    # DeepL's key on its free plan: a UUID and ":fx"
    (
        "deepl_key",
        r"(?<![\w\-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}:fx(?!\w)",
        (":fx",),
        None,
        None,
    ),
]
