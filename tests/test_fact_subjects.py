"""A different fact never hides a true one (issue 30, point 2): a number, version or id that names
what a statement is about ("Sprint 21", "PR #482", "Node 16 support") makes another subject, and
both memories stay; a changed value of one subject ("port 7000 → 7443") still supersedes. The
pairs are this test's own, not the issue's: distinct subjects and real changes, in several
phrasings and languages, decided as the write path decides (``resolve``, the bundled model's
cosine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from hindsight_cli import Filters
from hindsight_cli.core.facts import resolve
from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store

# Two statements about two things, both true: the second must not supersede the first.
DISTINCT = [
    ("Sprint 21 ends on March 14", "Sprint 22 ends on March 28"),
    ("Room 305 has the projector with HDMI", "Room 412 has the projector with HDMI"),
    (
        "Milestone 3 was signed off by the client on May 2",
        "Milestone 4 was signed off by the client on June 9",
    ),
    (
        "Build 1893 of the Android app crashed on launch",
        "Build 1894 of the Android app crashed on launch",
    ),
    ("INFRA-2210 is waiting on the network team", "INFRA-2291 is waiting on the network team"),
    ("The fix for bug 7731 landed in main", "The fix for bug 7790 landed in main"),
    ("PR #482 adds retries to the uploader", "PR #517 adds retries to the uploader"),
    (
        "Incident 88 was caused by an expired certificate",
        "Incident 91 was caused by an expired certificate",
    ),
    ("Chapter 7 covers connection pooling", "Chapter 9 covers connection pooling"),
    ("Gate 14 is closed for renovation", "Gate 22 is closed for renovation"),
    (
        "The 4.0 release of the parser dropped YAML 1.1",
        "The 4.1 release of the parser dropped YAML 1.1",
    ),
    ("Node 16 support ends in April", "Node 18 support ends in April"),
    (
        "The driver dropped support for PostgreSQL 11",
        "The driver dropped support for PostgreSQL 12",
    ),
    ("Season 2 of the show was filmed in Prague", "Season 3 of the show was filmed in Prague"),
    (
        "Step 4 of the runbook restarts the queue workers",
        "Step 6 of the runbook restarts the queue workers",
    ),
    ("Order 55120 shipped on Tuesday", "Order 55138 shipped on Tuesday"),
    ("Invoice 9917 was paid by bank transfer", "Invoice 9923 was paid by bank transfer"),
    (
        "Version 5 of the onboarding survey has 12 questions",
        "Version 6 of the onboarding survey has 12 questions",
    ),
    ("CVE-2024-3094 affects xz 5.6.0", "CVE-2024-6387 affects xz 5.6.0"),
    (
        "The migration in story 310 needs a downtime window",
        "The migration in story 344 needs a downtime window",
    ),
    ("Sprint 8 endet am Freitag", "Sprint 9 endet am Freitag"),
    ("Ticket 3307 wurde gestern geschlossen", "Ticket 3312 wurde gestern geschlossen"),
    ("La version 2.0 de l'API est obsolète", "La version 3.0 de l'API est obsolète"),
    ("El pedido 7781 llegó dañado", "El pedido 7790 llegó dañado"),
    ("工单 5521 已经关闭", "工单 5530 已经关闭"),
    ("第3期迭代在周五结束", "第4期迭代在周五结束"),
    ("La stagione 2 è stata girata a Roma", "La stagione 3 è stata girata a Roma"),
]
# One thing whose value changed: the second supersedes the first.
CHANGES = [
    ("The CI runners use Node 18.19.0", "The CI runners use Node 20.11.1"),
    ("The billing API listens on port 7000", "The billing API listens on port 7443"),
    ("The upload size limit is 25 MB", "The upload size limit is 50 MB"),
    ("Sessions expire after 30 minutes", "Sessions expire after 45 minutes"),
    (
        "The staging database host is db-stg-1.internal",
        "The staging database host is db-stg-2.internal",
    ),
    ("Our Postgres version is 14.9", "Our Postgres version is 16.2"),
    ("The nightly backup runs at 02:00 UTC", "The nightly backup runs at 03:30 UTC"),
    ("The team standup is at 9:30", "The team standup is at 10:00"),
    ("The default page size is 50 items", "The default page size is 100 items"),
    ("We deploy with Terraform 1.5.7", "We deploy with Terraform 1.7.4"),
    ("The cache TTL is set to 300 seconds", "The cache TTL is set to 600 seconds"),
    (
        "The retry limit for the mailer is 3 attempts",
        "The retry limit for the mailer is 5 attempts",
    ),
    ("The frontend is served from /var/www/app", "The frontend is served from /srv/www/app"),
    ("Max connections in the pool is 20", "Max connections in the pool is 40"),
    ("The mobile app requires iOS 15 or later", "The mobile app requires iOS 16 or later"),
    ("The repo's Go toolchain is 1.21", "The repo's Go toolchain is 1.22"),
    (
        "The API rate limit is 1000 requests per hour",
        "The API rate limit is 5000 requests per hour",
    ),
    ("The app is at version 3.2.1", "The app is at version 3.3.0"),
    ("Der Server lauscht auf Port 8443", "Der Server lauscht auf Port 9443"),
    ("Le délai d'expiration est de 30 secondes", "Le délai d'expiration est de 60 secondes"),
    ("El límite de subida es de 10 MB", "El límite de subida es de 20 MB"),
    ("数据库连接池大小是 20", "数据库连接池大小是 50"),
    ("服务监听端口 8080", "服务监听端口 8081"),
    ("タイムアウトは 30 秒です", "タイムアウトは 60 秒です"),
    # a word that names things, but the number is the value it now has
    ("We are on sprint 14 now", "We are on sprint 15 now"),
    ("The office is on floor 3", "The office is on floor 5"),
    ("The current release is 2.3", "The current release is 2.4"),
    ("Node 18 is required by the build", "Node 20 is required by the build"),
    ("Python 3.11 is what CI uses", "Python 3.12 is what CI uses"),
]


def _share(pairs: list[tuple[str, str]], want: str, model: Any) -> float:
    texts = sorted({t for pair in pairs for t in pair})
    vectors = dict(zip(texts, model.embed(texts)))
    right = [
        resolve(new, [("old", old, float(vectors[old] @ vectors[new]))]).action == want
        for old, new in pairs
    ]
    return sum(right) / len(right)


def test_the_labelled_set_is_large_varied_and_not_the_issues() -> None:
    assert len(DISTINCT) + len(CHANGES) >= 40 and min(len(DISTINCT), len(CHANGES)) >= 20
    issue = ("Release 2.3", "v1.4", "PAY-101", "ticket 4411", "issue #12", "Python 3.8", "pnpm")
    assert not any(word in text for pair in DISTINCT + CHANGES for text in pair for word in issue)
    foreign = [p for p in DISTINCT + CHANGES if not p[0].isascii()]
    assert len(foreign) >= 8


@pytest.mark.model
def test_distinct_subjects_are_kept_and_real_changes_supersede(real_embedder: Any) -> None:
    assert _share(DISTINCT, "insert", real_embedder) >= 0.95
    assert _share(CHANGES, "supersede", real_embedder) >= 0.95


def _record(cli, text: str) -> Any:
    result = cli("record", text, "--type", "semantic")
    assert result.exit_code == 0, result.stderr
    return result


@pytest.mark.model
@pytest.mark.parametrize(("old", "new"), [DISTINCT[0], DISTINCT[6], DISTINCT[24]])
def test_a_record_about_another_subject_keeps_both_and_says_so(cli, old: str, new: str) -> None:
    first = _record(cli, old).stdout.strip()
    result = _record(cli, new)
    second = result.stdout.strip()
    assert result.stderr.startswith("Kept both (")
    assert result.stderr.endswith(f"Recorded {second}.\n")
    assert f"): --supersedes {first} if this replaces {first}." in result.stderr
    assert "[write] on_change" in result.stderr
    assert {m.id for m in cli.open().list(Filters(), limit=None)} == {first, second}


@pytest.mark.model
def test_a_real_change_supersedes_and_names_the_setting(cli) -> None:
    first = _record(cli, CHANGES[1][0]).stdout.strip()
    result = _record(cli, CHANGES[1][1])
    assert f"Updated: 7000 → 7443 (supersedes {first};" in result.stderr
    assert '[write] on_change = "keep_both" keeps both' in result.stderr
    assert [m.id for m in cli.open().list(Filters(), limit=None)] == [result.stdout.strip()]


@pytest.mark.model
def test_keep_both_says_why_and_how_to_supersede(cli) -> None:
    assert _record(cli, CHANGES[2][0]).exit_code == 0
    config = Path(cli.store_path) / "config.toml"
    text = config.read_text()
    setting = '[write]\non_change = "keep_both"\n'
    config.write_text(
        text.replace("[write]\n", setting, 1) if "[write]\n" in text else text + "\n" + setting
    )
    result = _record(cli, CHANGES[2][1])
    assert 'reads like an update, but [write] on_change = "keep_both"' in result.stderr
    assert len(cli.open().list(Filters(), limit=None)) == 2


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.model
@pytest.mark.anyio
async def test_memory_write_says_it_kept_both(tmp_path: Path) -> None:
    store = Store(tmp_path / "s")
    store.init()
    async with Client(build_server(store), raise_exceptions=True) as client:
        first = await client.call_tool(
            "memory_write", {"content": DISTINCT[1][0], "type": "semantic"}
        )
        second = await client.call_tool(
            "memory_write", {"content": DISTINCT[1][1], "type": "semantic"}
        )
    old = first.structured_content["id"]
    assert second.structured_content["kept_beside"] == old
    assert second.structured_content["superseded"] == []
    text = second.content[0].text
    assert "Kept both (" in text and "[write] on_change" in text
    assert text.endswith(f"write it with supersedes={old} if it replaces {old}.")
