"""Secrets never reach the disk: a corpus recorded through the CLI, import and MCP, then every file
grepped.

Every secret here is fake but has the real format, and is assembled at run time from pieces and a
seeded random body, so the repository holds no string a secret scanner would flag.
"""

from __future__ import annotations

import base64
import json
import random
import string
from pathlib import Path

import pytest
from conftest import stored_data

from hindsight_cli.redact import redact, redact_value
from hindsight_cli.store import Store
from hindsight_cli.text import clean

_RNG = random.Random(7)
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"


def rand(n: int, alphabet: str = ALNUM) -> str:
    """A random body that has a digit, an upper- and a lower-case letter wherever the alphabet
    does."""
    while True:
        body = "".join(_RNG.choice(alphabet) for _ in range(n))
        kinds = [
            any(c.isdigit() for c in body),
            any(c.isupper() for c in body),
            any(c.islower() for c in body),
        ]
        wanted = [
            any(c.isdigit() for c in alphabet),
            any(c.isupper() for c in alphabet),
            any(c.islower() for c in alphabet),
        ]
        if kinds == wanted:
            return body


def pem(kind: str, lines: int = 6) -> tuple[str, list[str]]:
    body = [rand(64, B64) for _ in range(lines)] + [rand(24, B64) + "=="]
    label = f"{kind} PRIVATE KEY".strip()
    text = "\n".join([f"-----BEGIN {label}-----", *body, f"-----END {label}-----"])
    return text, body


def _corpus() -> list[tuple[str, str, list[str]]]:
    """(name, text as an agent would record it, the secret values that must never be stored)."""
    items: list[tuple[str, str, list[str]]] = []

    def add(name: str, text: str, *secrets: str) -> None:
        items.append((name, text, list(secrets)))

    akid = "AK" + "IA" + rand(16, UPPER_DIGITS)
    aws_secret = rand(40, B64)
    add(
        "aws key id in prose",
        f"deploy to s3 failed with key {akid}: access denied on bucket logs",
        akid,
    )
    add(
        "aws credentials file",
        f"[default]\naws_access_key_id = {akid}\naws_secret_access_key = {aws_secret}\n"
        "region = eu-west-1",
        akid,
        aws_secret,
    )
    secret2 = rand(40, B64)
    add("aws secret env", f"export AWS_SECRET_ACCESS_KEY={secret2}", secret2)
    secret3 = rand(40, B64)
    add(
        "aws secret in prose",
        f"rotated the AWS secret access key, new one {secret3} is in the vault",
        secret3,
    )
    session = "IQoJb3JpZ2luX2Vj" + rand(120, B64)
    sts = "AS" + "IA" + rand(16, UPPER_DIGITS)
    add(
        "aws session token", f"temporary creds {sts} with aws_session_token={session}", sts, session
    )

    gcp_key, gcp_body = pem("")
    gcp = json.dumps(
        {
            "type": "service_account",
            "project_id": "demo-project",
            "private_key_id": rand(40, HEX),
            "private_key": gcp_key + "\n",
            "client_email": "bot@demo-project.iam.gserviceaccount.com",
        },
        indent=2,
    )
    add("gcp service account json", "service account for the exporter:\n" + gcp, *gcp_body)
    gkey = "AI" + "za" + rand(35, ALNUM + "_-")
    add("google api key", f"maps calls use key={gkey} from the console", gkey)

    account_key = rand(86, B64) + "=="
    add(
        "azure storage connection string",
        f"DefaultEndpointsProtocol=https;AccountName=demostore;AccountKey={account_key};"
        "EndpointSuffix=core.windows.net",
        account_key,
    )
    sb_key = rand(43, B64) + "="
    add(
        "azure service bus",
        f"Endpoint=sb://demo.servicebus.windows.net/;SharedAccessKeyName=root;"
        f"SharedAccessKey={sb_key}",
        sb_key,
    )
    sql_pw = "Az" + rand(14, ALNUM) + "!9"
    add(
        "azure sql ado",
        f"Server=tcp:demo.database.windows.net,1433;Database=app;User ID=admin;"
        f"Password={sql_pw};Encrypt=true",
        sql_pw,
    )
    sig = rand(43, B64).replace("/", "%2F") + "%3D"
    add(
        "azure sas url",
        f"download from https://demo.blob.core.windows.net/c/f.zip?sv=2022-11-02&se=2030-01-01"
        f"&sr=b&sp=r&sig={sig}",
        sig,
    )

    ghp = "gh" + "p_" + rand(36)
    add("github classic token", f"git push failed until I set GH_TOKEN to {ghp}", ghp)
    pat = "github" + "_pat_" + rand(22) + "_" + rand(59)
    add("github fine-grained token", f"the workflow uses {pat} for the api", pat)
    gho = "gh" + "o_" + rand(36)
    add("github oauth token", f"oauth flow returned access token {gho}", gho)
    ghs = "gh" + "s_" + rand(36)
    add(
        "github token in a remote url",
        f"git remote set-url origin https://x-access-token:{ghs}@github.com/o/r.git",
        ghs,
    )

    oai = "sk" + "-" + rand(48)
    add("openai key", f"OPENAI_API_KEY is {oai} for the eval run", oai)
    proj = "sk" + "-proj-" + rand(64, ALNUM + "_-")
    add("openai project key", f'client = OpenAI(api_key="{proj}")', proj)
    ant = "sk" + "-ant-api03-" + rand(93, ALNUM + "_-") + "AA"
    add("anthropic key", f"anthropic calls 401 until the key {ant} was rotated", ant)

    xoxb = "xo" + "xb-" + rand(12, string.digits) + "-" + rand(13, string.digits) + "-" + rand(24)
    add("slack bot token", f"the bot posts with {xoxb}", xoxb)
    xoxp = (
        "xo" + "xp-" + rand(12, string.digits) + "-" + rand(12, string.digits) + "-" + rand(32, HEX)
    )
    add("slack user token", f"user token: {xoxp}", xoxp)
    hook_tail = "T" + rand(8, UPPER_DIGITS) + "/B" + rand(10, UPPER_DIGITS) + "/" + rand(24)
    hook = "https://hooks.slack" + ".com/services/" + hook_tail
    add("slack webhook", f"alerts go to {hook}", hook_tail)

    stripe = "sk" + "_live_" + rand(24)
    add("stripe secret key", f"charge failed; STRIPE_KEY={stripe}", stripe)
    restricted = "rk" + "_live_" + rand(24)
    add("stripe restricted key", f"read-only key {restricted}", restricted)
    whsec = "wh" + "sec_" + rand(32)
    add("stripe webhook secret", f"verify signatures with {whsec}", whsec)

    def b64url(data: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    jwt = ".".join(
        [
            b64url({"alg": "HS256", "typ": "JWT"}),
            b64url({"sub": "42", "name": "demo", "iat": 1700000000}),
            rand(43, ALNUM + "_-"),
        ]
    )
    add("jwt", f"session cookie was {jwt}", jwt.split(".")[1], jwt.split(".")[2])

    for kind in ("RSA", "EC", "OPENSSH", "ENCRYPTED", "DSA"):
        key, body = pem(kind)
        add(
            f"pem {kind.lower()} private key",
            f"{kind} deploy key for the runner:\n{key}\nkeep it out of git",
            *body,
        )
    key, body = pem("PGP", 4)
    key = key.replace("PGP PRIVATE KEY-----", "PGP PRIVATE KEY BLOCK-----")
    add("pgp private key block", key, *body)

    pg_pw = rand(16)
    add("postgres url", f"DATABASE_URL=postgres://app:{pg_pw}@db.internal:5432/app", pg_pw)
    mongo_pw = rand(12) + "%40" + rand(6)
    add(
        "mongodb srv url",
        f"connect with mongodb+srv://admin:{mongo_pw}@cluster0.example.net/test",
        mongo_pw,
    )
    redis_pw = rand(20)
    add("redis url without user", f"cache at redis://:{redis_pw}@cache:6379/0", redis_pw)
    amqp_pw = rand(8) + "@" + rand(8)
    add(
        "amqp url with @ in the password",
        f"broker amqp://guest:{amqp_pw}@rabbit:5672/vhost",
        amqp_pw,
    )

    env_pw = rand(18)
    add(".env password", f"DB_HOST=localhost\nDB_PASSWORD={env_pw}\nDB_PORT=5432", env_pw)
    api_token = rand(32, HEX)
    add("export api token", f"export API_TOKEN={api_token}", api_token)
    json_pw = "correct horse " + rand(10)
    add("json password with spaces", json.dumps({"user": "svc", "password": json_pw}), json_pw)
    yaml_secret = rand(40, ALNUM + "-_")
    add(
        "yaml client secret",
        f"oauth:\n  client_id: demo-app\n  client_secret: {yaml_secret}\n",
        yaml_secret,
    )
    bearer = rand(48, ALNUM + "-_.")
    add(
        "bearer header",
        f"curl -H 'Authorization: Bearer {bearer}' https://api.example.com/v1/me",
        bearer,
    )
    basic = base64.b64encode(f"svc:{rand(14)}".encode()).decode()
    add("basic auth header", f"request had Authorization: Basic {basic}", basic)
    npm = "np" + "m_" + rand(36)
    add(".npmrc auth token", f"//registry.npmjs.org/:_authToken={npm}", npm)
    pypi = "py" + "pi-AgEIcHlwaS5vcmc" + rand(70, ALNUM + "_-")
    add(".pypirc token", f"[pypi]\nusername = __token__\npassword = {pypi}", pypi)
    glpat = "gl" + "pat-" + rand(20, ALNUM + "_-")
    add("gitlab token", f"CI_JOB uses {glpat}", glpat)
    hf = "h" + "f_" + rand(34)
    add("hugging face token", f"huggingface-cli login --token {hf}", hf)
    sg = "S" + "G." + rand(22, ALNUM + "_-") + "." + rand(43, ALNUM + "_-")
    add("sendgrid key", f"mail via SENDGRID={sg}", sg)
    docker_auth = base64.b64encode(f"robot:{rand(20)}".encode()).decode()
    add(
        "docker config auth",
        json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": docker_auth}}}),
        docker_auth,
    )
    x_api = rand(40, HEX)
    add("x-api-key header", f"x-api-key: {x_api}", x_api)
    prose_pw = rand(6) + "9!" + rand(4)
    add("password in prose", f"the staging admin password is {prose_pw} (rotate monthly)", prose_pw)
    php = rand(24)
    add("php array secret", f"'secret' => '{php}',", php)
    return items


CORPUS = _corpus()
SECRETS = sorted({s for _, _, secrets in CORPUS for s in secrets}, key=len)

# Ordinary text that mentions the same words and shapes: stored exactly as given.
ORDINARY = [
    "Fixed in commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 on main; the aws cli bump caused it.",
    "sha256 of the empty file is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.",
    "md5 d41d8cd98f00b204e9800998ecf8427e matches the release tarball",
    "request id 123e4567-e89b-12d3-a456-426614174000 timed out after 30 s",
    "Decode it with: echo aGVsbG8gd29ybGQ= | base64 -d   (prints hello world)",
    "Our password policy requires 12 characters and a rotation every 90 days.",
    "The token bucket refills 10 tokens per second; burst is 50.",
    "Bearer of bad news: the nightly deploy failed again.",
    "Docs: https://docs.python.org/3/library/re.html and http://localhost:8080/api?page=2",
    "Clone over https://user@example.com/repo.git (no password in the URL).",
    "LOG_LEVEL=debug\nMAX_TOKENS=4096\nTOKEN_URL=https://auth.example.com/oauth/token\nNODE_ENV=production",
    "set max_tokens=4096 and tokens_used=512 in the request",
    "The token is stored in the OS keychain, never in the repo.",
    "password: must be rotated by the on-call engineer",
    "author: Jane Doe\nsecretary: John Roe",
    'api_key = os.environ["OPENAI_API_KEY"]  # read from the environment',
    "password = getpass.getpass()",
    "token = request.headers.get('Authorization')",
    "PASSWORD=${DB_PASSWORD} comes from the compose file",
    "GOOGLE_APPLICATION_CREDENTIALS=/etc/gcp/key.json",
    "pass --password <your-password> or set api_key: null to disable",
    "PWD=/home/dev/project when the hook ran",
    "AKIA is the prefix of AWS access key ids; ghp_ marks GitHub personal tokens.",
    'A JWT header starts with eyJ, which is base64 for {"',
    "sk-learn is not a package; install scikit-learn",
    "The secret is patience: wait for the lock and retry.",
    "export PATH=$HOME/.local/bin:$PATH",
    "Connect to postgres://localhost:5432/app as the app user",
    "ssh git@github.com:org/repo.git works once the deploy key is added",
    "UUIDs in the log: 0b9f7c5e-2a41-4c3e-9d2b-8f1e6a7c3d10, 550e8400-e29b-41d4-a716-446655440000",
    "auth: handled by the gateway, see the oauth section",
    "Use --meta KEY=value pairs; KEY must not be empty",
]


def _batches(size: int = 8) -> list[tuple[str, int]]:
    """The corpus as a few long memories (text, items in it), so the slow faces (CLI, MCP) see every
    secret in a few calls."""
    texts = [text for _, text, _ in CORPUS]
    return [
        ("\n\n---\n\n".join(texts[i : i + size]), len(texts[i : i + size]))
        for i in range(0, len(texts), size)
    ]


def _files(root: Path) -> list[tuple[str, bytes]]:
    """What the store holds: its files and, on Postgres, every row of its tables."""
    return stored_data(root)


def _leaks(items: list[Path | tuple[str, bytes]]) -> list[tuple[str, str]]:
    """(place, secret prefix) for every secret found in any of the files or tables, as UTF-8 or its
    JSON escape."""
    found = []
    for item in items:
        name, data = (str(item), item.read_bytes()) if isinstance(item, Path) else item
        for secret in SECRETS:
            forms = {secret.encode(), json.dumps(secret)[1:-1].encode()}
            if any(form in data for form in forms):
                found.append((name, secret[:12]))
    return found


def test_corpus_is_large_and_the_grep_can_see_what_is_stored(store: Store) -> None:
    assert len(CORPUS) >= 40 and len(SECRETS) >= 60
    # a positive control: the same grep finds what *was* stored
    # letters only: a random token of letters and digits after "written:" is redacted as one
    marker = "plainmarker" + rand(24, string.ascii_lowercase)
    store.record(f"kept as written: {marker}")
    store.sync_index()
    hits = [name for name, data in _files(store.path) if marker.encode() in data]
    if store.ledger.capabilities.files:
        assert any(Path(name).name == "ledger.duckdb" or name.endswith(".wal") for name in hits)
        assert any("index.lance" in Path(name).parts for name in hits)
    else:
        assert "table memories" in hits


@pytest.mark.parametrize(("name", "text", "secrets"), CORPUS, ids=[c[0] for c in CORPUS])
def test_each_secret_is_redacted(name: str, text: str, secrets: list[str]) -> None:
    redacted, count = redact(text)
    assert count >= 1
    assert [s for s in secrets if s in redacted] == [], redacted


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_not_mangled(text: str) -> None:
    assert redact(text) == (text, 0)


# Case-blind matches with no ASCII spelling ("ſecret" matches "secret" under (?i)), and the corpus
# in non-ASCII surroundings: such texts skip the word filter, so they must come out redacted all the
# same.
UNICODE = [
    "ſecret=hunter2-Xy9 and tokEn: ıamAsecret42",
    "export DB_PASSWORD=s3cr3t-ValUe → “deploy”",
    "Authorization: Bearer q8Zr3VtK7mWx2LcNſ",
    "AWS ſecret " + "Zq7Vx3Lm9Pk2Wr8Tn4Bc6Hy1Jd5Fg0Ks3Qe7Ua9W",
]


def _texts() -> list[str]:
    return (
        [text for _, text, _ in CORPUS]
        + ORDINARY
        + UNICODE
        + [f"« {text} »" for _, text, _ in CORPUS]
    )


def test_every_match_holds_one_of_its_rule_words() -> None:
    """The word filter only skips a rule that cannot redact: every match that a rule would replace,
    in the corpus, holds one of the rule's words (case-folded as the filter folds it) and passes its
    gate. A pattern built from words ("{words}") is built here from all of them."""
    from hindsight_cli import redact as module
    from hindsight_cli.redact.words import fold

    for text in _texts():
        for kind, pattern, words, check, gate in module._RULES:
            blind = pattern.startswith("(?i")
            assert not blind or all(word == fold(word) for word in words), kind
            for match in module._compiled(pattern, words, " ".join(words)).finditer(text):
                if (check(match, False) if check else module._secret_span(match)) is None:
                    continue
                found = fold(match.string) if blind else match.string
                assert not words or any(word in found for word in words), (kind, match.group())
                assert gate is None or gate(text), (kind, match.group())


def test_the_word_filter_never_changes_a_result(monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight_cli import redact as module

    texts = _texts()
    values = [
        {"x": t, "password": t, "ſecret": "plainword", "headers": {"Auth-Token": t}} for t in texts
    ]
    filtered = [redact(t) for t in texts], [redact_value(v) for v in values]
    monkeypatch.setattr(module, "_may_match", lambda *args: True)
    # every rule
    monkeypatch.setattr(module, "_rules_for", lambda *args: list(range(len(module._RULES))))
    # every word in every pattern
    monkeypatch.setattr(module, "_present", lambda words, folded, known=None: words)
    # the labels (the mappings' keys) are redacted again, unfiltered
    module._CLEAN_LABELS.clear()
    assert filtered == ([redact(t) for t in texts], [redact_value(v) for v in values])
    # and what needs the regex without the filter is redacted
    assert redact(UNICODE[0])[1] == 2


def test_ordinary_text_is_stored_unchanged(store: Store) -> None:
    for text in ORDINARY:
        result = store.record(
            text,
            merge=False,
            metadata={"note": text, "max_tokens": "4096"},
            env={"LOG_LEVEL": "debug"},
        )
        assert result.redactions == 0
        assert result.memory.content == clean(text)
        assert result.memory.metadata == {"note": text, "max_tokens": "4096"}


def test_secret_named_metadata_and_env_values_go_whole() -> None:
    value, count = redact_value(
        {
            "password": "letmein",
            "nested": [{"api_key": "plainword"}],
            "token_count": "12",
            "db_password": "${DB_PASSWORD}",
        }
    )
    assert value == {
        "password": "[REDACTED:secret]",
        "nested": [{"api_key": "[REDACTED:secret]"}],
        "token_count": "12",
        "db_password": "${DB_PASSWORD}",
    }
    assert count == 2


def _secret_of(name: str) -> str:
    return next(secrets[0] for n, _, secrets in CORPUS if n == name)


def test_labels_lose_token_shaped_secrets_but_keep_their_shape(store: Store) -> None:
    ghp, xoxb, npm = (
        _secret_of("github classic token"),
        _secret_of("slack bot token"),
        _secret_of(".npmrc auth token"),
    )
    result = store.record(
        "labels carry secrets too",
        tags=[ghp, "auth:oauth2", "max_tokens=4096"],
        task_id=f"deploy-{xoxb}",
        agent_id=npm,
        trigger="token=abc123def",
    )
    memory = store.get(result.memory.id)
    assert result.redactions == 4
    assert memory.tags == ["[REDACTED:github_token]", "auth:oauth2", "max_tokens=4096"]
    assert (memory.task_id, memory.agent_id) == (
        "deploy-[REDACTED:slack_token]",
        "[REDACTED:npm_token]",
    )
    # Issue 16: a label that assigns a secret-named key (--tag password=hunter2) loses the value
    # too; auth:oauth2 is a namespace, not an assignment, and stays.
    assert memory.trigger == "token=[REDACTED:secret]"
    store.sync_index()
    assert _leaks(_files(store.path)) == []


def test_cli_record_and_export_keep_no_secret(cli, tmp_path: Path) -> None:
    for text, items in _batches():
        result = cli("record", "-", "--no-merge", "--json", input=text)
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["redactions"] >= items
    extra = SECRETS[-1]
    result = cli(
        "record",
        "fields carry secrets too",
        "--meta",
        f"token={extra}",
        "--env",
        f"API_KEY={extra}",
        "--resolution",
        f"rotated; new key {SECRETS[-2]}",
        "--json",
    )
    assert json.loads(result.stdout)["redactions"] == 3
    # builds the LanceDB index too
    assert cli("search", "deploy key runner", "--json").exit_code == 0
    out = tmp_path / "export.jsonl"
    assert cli("export", "-o", str(out)).exit_code == 0
    assert len(out.read_text().splitlines()) == len(_batches()) + 1
    assert _leaks([*_files(cli.store_path), out]) == []


def test_import_keeps_no_secret(cli, tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    lines = [
        json.dumps(
            {
                "content": text,
                "metadata": {"raw": text, "secret": "plain"},
                "env": {"TOKEN": "abcd1234"},
            }
        )
        for _, text, _ in CORPUS
    ]
    source.write_text("\n".join(lines) + "\n")
    result = cli("import", str(source), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["added"] == len(CORPUS) and summary["redactions"] >= 3 * len(CORPUS)
    assert cli("search", "aws credentials", "--json").exit_code == 0
    out = tmp_path / "export.jsonl"
    assert cli("export", "-o", str(out)).exit_code == 0
    assert _leaks([*_files(cli.store_path), out]) == []
    # the grep would have seen them
    assert _leaks([source]) != []


@pytest.mark.anyio
async def test_mcp_write_and_its_log_keep_no_secret(store: Store, tmp_path: Path) -> None:
    """Through the SDK client, with the server's logging set up as `hindsight mcp --log-file`
    does."""
    import logging

    from mcp import Client

    from hindsight_cli.mcp_server import build_server, configure_logging

    log = tmp_path / "mcp.log"
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    configure_logging(log)
    try:
        async with Client(build_server(store)) as client:
            for text, items in _batches():
                written = await client.call_tool(
                    "memory_write",
                    {
                        "content": text,
                        "merge": False,
                        "metadata": {"copy": text},
                        "resolution": "fix: " + text,
                    },
                )
                assert not written.is_error, written.content
                assert written.structured_content["redactions"] >= 3 * items
            refused = await client.call_tool(
                "memory_write", {"content": CORPUS[0][1], "importance": 7}
            )
            # refusals are logged: the log must not carry the input either
            assert refused.is_error
            found = await client.call_tool("memory_search", {"query": "private key deploy runner"})
            assert not found.is_error
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:], root.level = saved
    # the log was written to
    assert "memory_write refused" in log.read_text()
    store.sync_index()
    assert _leaks([*_files(store.path), log]) == []


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_a_label_that_held_a_secret_is_not_remembered_in_clear() -> None:
    from hindsight_cli import redact as module

    secret = "sk-ant-api03-" + "Zq7Lm2Xc9Vb4Nt6Rw1Ys8Pk3Hd5Jf0Ga2EuQ9Xm"
    # the second time it is redacted again, not answered from memory
    for _ in range(2):
        value, count = redact_value({secret: "on", "deploy-agent": "on"})
        assert count == 1 and secret not in str(value) and "deploy-agent" in value
    assert "deploy-agent" in module._CLEAN_LABELS
    assert not any(secret in label for label in module._CLEAN_LABELS)
