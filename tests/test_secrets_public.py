"""Random-looking values whose name or shape says they are public are stored as written, while the
same shapes under a secret's name, in a key file or given to a service's bare name are redacted
(``redact/public.py``, ``keyfiles.py``, ``services.py``). The corpus in tests/data holds more of
each kind; these pin the pairs a user would notice side by side."""

from __future__ import annotations

import random
import string

import pytest

from hindsight_cli.redact import redact

_RNG = random.Random(31)


def _token(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    while True:
        value = "".join(_RNG.choice(alphabet) for _ in range(n))
        if sum(c.isdigit() for c in value) >= 3 and any(c.isupper() for c in value):
            return value


KEY = _token(40)
HEX40 = "".join(_RNG.choice("0123456789abcdef") for _ in range(40))


@pytest.mark.parametrize(
    ("public", "secret"),
    [
        (f"RECAPTCHA_SITE_KEY={KEY}", f"RECAPTCHA_SECRET_KEY={KEY}"),
        (f"STRIPE_PUBLISHABLE_KEY=pk_live_{KEY[:24]}", f"STRIPE_KEY={KEY}"),
        (f"[Peer]\nPublicKey = {KEY[:43]}=", f"[Interface]\nPrivateKey = {KEY[:43]}="),
        (f"CIRCLE_SHA1={HEX40}", f"circleci: {HEX40}"),
        (
            f"spec:\n  encryptedData:\n    password: AgB{KEY}",
            f"spec:\n  stringData:\n    password: {KEY}",
        ),
    ],
)
def test_a_public_value_stays_where_its_secret_sibling_goes(public: str, secret: str) -> None:
    assert redact(public) == (public, 0)
    assert redact(secret)[1] >= 1


def test_an_armoured_key_file_goes_and_a_public_armour_stays() -> None:
    body = "\n".join("".join(_RNG.choice("0123456789abcdef") for _ in range(32)) for _ in range(4))
    label = "OpenVPN Static key V1"
    static = f"<tls-auth>\n-----BEGIN {label}-----\n{body}\n-----END {label}-----\n</tls-auth>"
    out, count = redact(static)
    assert count >= 1 and body.splitlines()[1] not in out
    public = f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n{body}\n-----END PGP PUBLIC KEY BLOCK-----"
    assert redact(public) == (public, 0)


def test_a_file_shown_with_cat_goes_when_its_name_says_secret() -> None:
    cookie = "".join(_RNG.choice(string.ascii_uppercase) for _ in range(20))
    assert cookie not in redact(f"$ cat ~/.erlang.cookie\n{cookie}")[0]
    assert redact(f"$ cat notes.txt\n{cookie}")[1] == 0


def test_a_bare_token_in_prose_goes_but_an_address_after_its_word_stays() -> None:
    assert KEY not in redact(f"I pasted {KEY} into the dashboard")[0]
    assert redact(f"send it to wallet address {KEY} on devnet")[1] == 0


@pytest.mark.parametrize(
    "measure",
    ["took 1234 ms.", "ran for 4500 sec.", "uses 2048 MB", "at 7200 rpm!", "grew 1500 %."],
)
def test_a_measure_beside_a_redacted_secret_stays(measure: str) -> None:
    """Review BD: the siblings rule (round t17) took a duration beside a redaction for a second
    secret of the line: `took [REDACTED:pin] ms.`. A number a unit follows measures something; a
    code given beside the secret in the same words still goes."""
    text, count = redact(f"DB_PASSWORD={KEY} # request {measure}")
    assert KEY not in text and count == 1 and measure in text, text
    coded, _ = redact(f"DB_PASSWORD={KEY} # gate code 4821.")
    assert "4821" not in coded, coded


@pytest.mark.parametrize(
    "shape",
    [
        "<password>{}</password>",
        "<db><password>{}</password><user>bob</user></db>",
        "<add key='smtp'><Secret>{}</Secret></add><!-- kept -->",
        "<ns:apiKey>{}</ns:apiKey><region>eu-west-1</region>",
        "<credentials><client_secret>{}</client_secret></credentials> and the rest of the line",
    ],
)
def test_an_elements_value_goes_and_its_closing_tag_stays(shape: str) -> None:
    # a one-line element's random value was read on through its closing tag to the line's end
    # (the rest of an unquoted random word: `password: 8X(h>u2;Lq5e}Wm9`), so the tags after it,
    # and the text after them, were lost with it; and a namespaced closing tag's `:` read as a
    # separator after the marker's word (`[REDACTED:secret]</ns:apiKey><region>…`)
    value = "q" + _token(20, string.ascii_letters + string.digits + "#%!")
    assert redact(shape.format(value)) == (shape.format("[REDACTED:secret]"), 1)


@pytest.mark.parametrize("shape", ["password = {}", "DB_PASSWORD={}", "<password>{}</password>"])
def test_a_random_value_starting_with_a_percent_sign_goes_and_a_reference_stays(shape: str) -> None:
    # a `%` opened a reference whatever followed, so `%N8HNXYBC0gFEg0PInhP` was stored in clear
    value = "%" + _token(18, string.ascii_letters + string.digits + "!#")
    assert value[1:] not in redact(shape.format(value))[0]
    for reference in ("%DB_PASSWORD%", "%(password)s", "%s", "%{DB_PASS}", "%PASSWORD", "%24ext"):
        assert redact(shape.format(reference)) == (shape.format(reference), 0)


@pytest.mark.parametrize(
    "shape",
    [
        "DB password:\n\n\n\n{}",
        "smtp_password =\n\n\n  '{}'",
        'password =\n"{}";',
        "api_secret:\n{};  # prod",
    ],
)
def test_a_value_a_few_blank_lines_under_its_name_or_ending_a_statement_goes(shape: str) -> None:
    # the eighteenth review's lows: three blank lines between the name and its value, or a `;`
    # after it, left the value in clear
    value = "q" + _token(16)
    assert value not in redact(shape.format(value))[0]
