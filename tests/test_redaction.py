"""The redaction rules on the corpus in tests/data (secrets that must go, look-alikes that must
stay), the per-field API the write path calls, and every CLI field of a memory grepped on disk.

Every secret is fake and assembled from a seeded random body (tests/secret_corpus.py), so the
repository holds no string a secret scanner would flag. benchmarks/redaction_corpus.py prints the
same figures, with times and the rules of an older commit beside them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import stored_data
from secret_corpus import Item, leaks, load

from hindsight_cli.redact import FIELDS, redact, redact_field, redact_label, redact_value
from hindsight_cli.redact.words import NAME_WORDS, fold

SECRETS = load("secrets.txt")
LOOKALIKES = load("lookalikes.txt")


def test_the_corpus_is_large_and_every_item_is_named_once() -> None:
    assert len(SECRETS) >= 150 and len(LOOKALIKES) >= 150
    assert all(item.secrets for item in SECRETS) and not any(item.secrets for item in LOOKALIKES)
    for items in (SECRETS, LOOKALIKES):
        names = [item.name for item in items]
        assert len(names) == len(set(names))


@pytest.mark.parametrize("item", SECRETS, ids=[i.name for i in SECRETS])
def test_no_secret_survives(item: Item) -> None:
    redacted, count = redact(item.text)
    assert count >= 1
    assert leaks(redacted, item) == [], redacted


@pytest.mark.parametrize("item", LOOKALIKES, ids=[i.name for i in LOOKALIKES])
def test_look_alikes_stay_as_written(item: Item) -> None:
    assert redact(item.text) == (item.text, 0)


def test_the_leak_check_sees_a_partial_leak() -> None:
    """A positive control for ``leaks``: half a password left behind is a leak."""
    item = Item("control", "amqp://u:Ab3xY9@Zq7Lm2@host/v", ("Ab3xY9@Zq7Lm2",))
    # shorter than 8: whole only
    assert leaks("amqp://u:[REDACTED:password]@Zq7Lm2@host/v", item) == []
    long = Item("control", "pw: Ab3xY9kL@Zq7Lm2Wp", ("Ab3xY9kL@Zq7Lm2Wp",))
    assert leaks("pw: [REDACTED:password]@Zq7Lm2Wp", long) == ["Ab3xY9kL@Zq7Lm2Wp"]


def test_the_fold_table_is_what_re_ignorecase_matches() -> None:
    """A word found in the folded text is what a case-blind pattern can match, in every script:
    every character that (?i) matches with a letter of a word folds to that letter."""
    import re._casefix as casefix

    from hindsight_cli.redact import words as redact_words

    for low, others in casefix._EXTRA_CASES.items():
        assert len({fold(chr(low)), *(fold(chr(o)) for o in others)}) == 1, chr(low)
    every = "".join(chr(c) for c in range(0x20, 0x10000) if not 0xD800 <= c <= 0xDFFF)
    letters = {c for word in NAME_WORDS for c in word if c.isalpha()}
    for letter in letters:
        for match in re.finditer(f"(?i){re.escape(letter)}", every):
            assert letter in fold(match.group()), (letter, match.group(), hex(ord(match.group())))
    assert redact_words.fold("ŞİFRE") == "şifre" and redact_words.fold("ΚΩΔΙΚΌΣ") == "κωδικόσ"


# --- the per-field API
# ------------------------------------------------------------------------------


def test_each_field_goes_through_its_rule_set() -> None:
    assert redact_field("fixed it; mysql -u root -pS3cretPw9 works", "resolution") == (
        "fixed it; mysql -u root -p[REDACTED:password] works",
        1,
    )
    assert (
        redact_field("reason: curl -u admin:hunter2 leaked", "reason")[0]
        == "reason: curl -u admin:[REDACTED:password] leaked"
    )
    assert redact_field(["password=hunter2", "auth:oauth2", "token:Xk9fL2mQ8rT4vB7n"], "tags") == (
        ["password=[REDACTED:secret]", "auth:oauth2", "token:[REDACTED:secret]"],
        2,
    )
    assert (
        redact_field("deploy: sshpass -p S3cret!Pw9 x", "task_id")[0]
        == "deploy: sshpass -p [REDACTED:password] x"
    )
    assert redact_field(
        {"DB_PASS": "hunter2", "LOG_LEVEL": "debug", "CMD": "mysql -pS3cretPw9"}, "env"
    ) == (
        {
            "DB_PASS": "[REDACTED:secret]",
            "LOG_LEVEL": "debug",
            "CMD": "mysql -p[REDACTED:password]",
        },
        2,
    )
    assert redact_field(
        {"nested": [{"Passwort": "Sommer2024!"}], "max_tokens": "4096"}, "metadata"
    ) == ({"nested": [{"Passwort": "[REDACTED:secret]"}], "max_tokens": "4096"}, 1)
    assert redact_field(None, "resolution") == (None, 0)


def test_labels_are_stricter_than_text() -> None:
    """In text, "auth: oauth2" and "password: hunter2" read as statements; in a label a colon is a
    namespace, so only an assignment or a credential-shaped value goes."""
    for kept in (
        "auth:oauth2",
        "password:reset",
        "token:expired",
        "secret:rotation",
        "lang:python",
        "max_tokens=4096",
    ):
        assert redact_label(kept) == (kept, 0)
    assert redact_label("password=hunter2") == ("password=[REDACTED:secret]", 1)
    assert redact_label("db_pass=x9z") == ("db_pass=[REDACTED:secret]", 1)
    assert redact_label("Passwort=geheim") == ("Passwort=[REDACTED:secret]", 1)
    assert redact("password: hunter2") == ("password: [REDACTED:secret]", 1)


def test_an_unknown_field_is_an_error_not_a_leak() -> None:
    with pytest.raises(ValueError, match="no redaction rule for field 'titel'"):
        redact_field("x", "titel")
    assert {
        "content",
        "resolution",
        "reason",
        "tags",
        "task_id",
        "agent_id",
        "trigger",
        "metadata",
        "env",
    } <= set(FIELDS)


def test_mapping_keys_are_labels_and_secret_named_values_go_whole() -> None:
    value, count = redact_value(
        {
            "sk-proj-" + "Zq7Vx3Lm9Pk2Wr8Tn4Bc6Hy1Jd5Fg0Ks3Qe7Ua9W": "x",
            "api_key": "plainword",
            "key": "user:42:profile",
        }
    )
    assert value == {
        "[REDACTED:openai_key]": "x",
        "api_key": "[REDACTED:secret]",
        "key": "user:42:profile",
    }
    assert count == 2


# --- every CLI field, grepped on disk
# ---------------------------------------------------------------

_FIELD_SECRETS = {
    "tag": "Hunter2Tag9x",
    "task": "S3cretTask7q",
    "env": "EnvPass8Wq2z",
    "meta": "MetaPw5Lk3j",
    "resolution": "ResoPw4Nb6h",
    "content": "ContentPw3Xc",
}


def test_every_field_of_a_recorded_memory_is_redacted_on_disk(cli, tmp_path: Path) -> None:
    s = _FIELD_SECRETS
    result = cli(
        "record",
        f"deploy failed: sshpass -p {s['content']} ssh root@db",
        "--json",
        "--tag",
        f"password={s['tag']}",
        "--tag",
        "auth:oauth2",
        "--task",
        f"deploy mysql -u root -p{s['task']}",
        "--env",
        f"DB_PASS={s['env']}",
        "--meta",
        f"cmd=curl -u admin:{s['meta']} https://ci",
        "--resolution",
        f"Passwort: {s['resolution']}",
    )
    assert result.exit_code == 0, result.output
    recorded = json.loads(result.stdout)
    assert recorded["redactions"] == 6 and "auth:oauth2" in recorded["tags"]
    # builds the index too
    assert cli("search", "deploy failed", "--json").exit_code == 0
    out = tmp_path / "export.jsonl"
    assert cli("export", "-o", str(out)).exit_code == 0
    places = [*stored_data(cli.store_path), (str(out), out.read_bytes())]
    assert [
        (name, field)
        for name, data in places
        for field, secret in s.items()
        if secret.encode() in data
    ] == []
    # the grep sees what was kept
    assert any(b"auth:oauth2" in data for _, data in places)
