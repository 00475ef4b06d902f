"""Secrets are masked before anything is written; everything else survives untouched."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anamnesis.store.secrets.redact import MASK, count_secrets, find_secrets, redact_secrets
from redaction_growth import cpu_seconds, superlinear

# Synthetic secrets in every supported shape (none of them is real).
SECRETS = {
    "pem": (
        "-----BEGIN RSA PRIVATE KEY-----\n"
        "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
        "-----END RSA PRIVATE KEY-----"
    ),
    "openssh": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
        "-----END OPENSSH PRIVATE KEY-----"
    ),
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "aws-sts": "ASIAY34FZKBOKMUTVV7A",
    "openai": "sk-9uQmFpLx2ZbN4rT7wYcE1aGdHjKsVbNm3Qp",
    "openai-proj": "sk-proj-AbCdEf1234567890GhIjKlMnOpQrStUvWx",
    "anthropic": "sk-ant-api03-kF8sL2mN9pQ4rS7tU1vW3xY6zA0bC5dE",
    "github": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "github-oauth": "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    "github-pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "slack": "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
    "stripe": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "stripe-test": "rk_test_51H8dKfLkdIwHu7ixj4Yb2q",
    "google": "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
    "jwt": (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    ),
    "slack-refresh": "xoxe-1-My0xLTEyMzQ1Njc4OTAtYWJjZGVmZ2hpams",
    "slack-refresh-dotted": "xoxe.xoxp-1-Mi0yLTEyMzQ1Njc4OTAxMi1hYmNk",
    "slack-app": "xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef",
    "gitlab": "glpat-Xy7zQ2wR9tK4mN8pL3vB",
    "npm": "npm_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "huggingface": "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
}
CONTEXTUAL = [
    ("Authorization: Bearer 7f3c9a1e5b2d8f4a6c0e1b3d5f7a9c2e", "7f3c9a1e5b2d8f4a6c0e1b3d5f7a9c2e"),
    ("curl -H 'Authorization: Basic dXNlcjpzM2NyZXRwYXNz' https://api", "dXNlcjpzM2NyZXRwYXNz"),
    ("git remote add origin https://deploy:Tr0ub4dor3@git.example.com/r.git", "Tr0ub4dor3"),
    ("DATABASE_URL=postgres://app:pa55w0rd!@db:5432/app", "pa55w0rd!"),
    ("password: hunter2", "hunter2"),
    ('{"api_key": "abc123def456"}', "abc123def456"),
    ("export DEEPSEEK_API_KEY=ds-0123456789abcdef", "ds-0123456789abcdef"),
    ("client_secret='f00ba4-secret-value'", "f00ba4-secret-value"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG"),
    ("SLACK_TOKEN=xoxp-123456789012-abcdefabcdef", "xoxp-123456789012"),
    # A plain word is still a secret when the key says password, secret or api key.
    ("password: hunter", "hunter"),
    ("secret=swordfish", "swordfish"),
    ("api_key=abcdefgh", "abcdefgh"),
    ("use --password=letmein to log in", "letmein"),
    ("DB_PASSWORD=hunter2", "hunter2"),
    ("apiKey: 'Zq9vX2'", "Zq9vX2"),
    ("redis://:s3cretpassw0rd@localhost:6379/0", "s3cretpassw0rd"),
    ("postgres://u:p@ss@host/db", "p@ss"),
    ("see https://example.com/path?token=abc123xyz", "abc123xyz"),
    ("Authorization: Bearer abcdefghijklmnop.qrst", "abcdefghijklmnop"),
    ("curl -H 'Authorization: Basic dGVzdDp0ZXN0MTIz'", "dGVzdDp0ZXN0MTIz"),
]
# Things that look a little like secrets but are not, and must be left alone.
HARMLESS = [
    "01J9Z8YPM7Q3X2V4WT6B5N0KGD",  # ULID
    "3bf75f14-4c3f-4a2b-9d1e-7f3c9a1e5b2d",  # UUID
    "commit e83e3333b5770815e9c2e3aee48c305257385bbb fixed it",  # git SHA
    "Rotate the signing key with the rotate-keys script and update the vault path.",
    "The token is stored in Vault under secret/app; ask ops for access.",
    "token: see the runbook",
    "password = None  # set by the caller",
    "api_key = os.environ['API_KEY']",
    "token = get_token(session)",
    "secret: ${APP_SECRET}",
    "password: <your password here>",
    "https://github.com/acme/api.git and git@github.com:acme/api.git",
    "skip-ci and sk-short and task-tracker",
    "Set busy_timeout on every SQLite connection to avoid database is locked errors.",
    "src/api/handler_1038.py:42 raised KeyError('token')",
    "Bearer tokens are checked by the gateway.",
    "The bearer of bad news left.",
    "This requires basic understanding of the system.",
    "Basic troubleshooting steps follow.",
    "max_tokens=4096",
    "input_tokens: 1500",
    "tokenizer: bert-base-uncased",
    "pwd: /home/me/src",
    "tokens=[1,2,3]",
    "num_tokens = len(messages)",
    "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "Ask the team about the secret: none of us know",
    "The secret to good code: simplicity.",
    "Password reset: emailed",
    "token_count: 12 and password_min_length: 12",
    "if password == expected:",
    "AKIA at the start of a sentence",
    "the task-management-system-for-teams works",
]


@pytest.mark.parametrize(("kind", "secret"), sorted(SECRETS.items()))
def test_every_known_secret_format_is_masked(kind: str, secret: str) -> None:
    text = f"before {secret} after"
    out = redact_secrets(text)
    assert secret not in out, kind
    assert MASK in out
    assert out.startswith("before ") and out.endswith(" after")
    assert find_secrets(text)
    assert count_secrets(text) == 1  # overlapping patterns count one secret once
    assert count_secrets(f"{text} and again {secret}") == 2


@pytest.mark.parametrize(("text", "secret"), CONTEXTUAL)
def test_secrets_in_context_are_masked_and_keys_kept(text: str, secret: str) -> None:
    out = redact_secrets(text)
    assert secret not in out
    assert MASK in out


def test_key_names_survive() -> None:
    assert redact_secrets("password: hunter2") == f"password: {MASK}"
    assert redact_secrets('"api_key": "abc123def456"') == f'"api_key": "{MASK}"'
    assert redact_secrets("https://me:pw12345@host/x") == f"https://me:{MASK}@host/x"
    assert redact_secrets("postgres://u:p@ss@host/db") == f"postgres://u:{MASK}@host/db"
    assert redact_secrets("redis://:pw@localhost:6379/0") == f"redis://:{MASK}@localhost:6379/0"
    assert redact_secrets("--password=letmein") == f"--password={MASK}"
    assert redact_secrets("Authorization: Bearer 7f3c9a1e5b2d8f4a6c") == (
        f"Authorization: Bearer {MASK}"
    )


@pytest.mark.parametrize("text", HARMLESS)
def test_ordinary_text_survives_untouched(text: str) -> None:
    assert redact_secrets(text) == text
    assert find_secrets(text) == []
    assert count_secrets(text) == 0


def test_redaction_is_idempotent() -> None:
    text = " ".join([*SECRETS.values(), *(t for t, _ in CONTEXTUAL), *HARMLESS])
    once = redact_secrets(text)
    assert redact_secrets(once) == once
    for secret in SECRETS.values():
        assert secret not in once
    for harmless in HARMLESS[:6]:
        assert harmless in once


# Each unit repeated to 1 MB. The first three took 2.7 s for 5 KB, 45 s for 20 KB and 1.4 s
# for 4 KB before: the key-value pattern went back over the same characters from every
# position. The others probe every other pattern the same way.
ADVERSARIAL = [
    "a-",
    "a.b.",
    "a-b.",
    "a=",
    "a:",
    "a='",
    'a="',
    "password=",
    'password="',
    "password=<",
    "token: ",
    "token=${{",
    "api_key_",
    "keykey",
    "eyJ-",
    "eyJaaaaaaaaa.",
    "sk-",
    "sk-ant-",
    "xoxb-",
    "AKIA",
    "x",
    " ",
    "\n",
    "a://",
    "a://x:",
    "https://u:",
    "Bearer ",
    "Basic ",
    "-----BEGIN PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----x-----END PRIVATE KEY-----",
    # The rules for glued tokens, raw URL passwords, key bodies and invisible characters.
    "xsk-",
    "xsk-a",
    "Dghp_",
    "aghp_a",
    "%3D",
    "token%3D",
    "AKIAAKIA",
    "pat",
    "SK0",
    "\u200b",
    "a\u200b",
    "ghp_\u200ba",
    "a://b:c d",
    "a://b:c@",
    "://:@",
    "a://b:c/@",
    "-----END PRIVATE KEY-----",
    "a\n-----END PRIVATE KEY-----",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
    "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEA\n",
    "MHcCAQEEIaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\n",
]


@pytest.mark.slow
def test_redaction_takes_linear_time_on_adversarial_input() -> None:
    # 250 KB and 1 MB of each unit: a linear pattern costs about 4x more on the larger, a
    # quadratic one 16x (and a catastrophic one meets the child's deadline).
    timings = cpu_seconds(ADVERSARIAL, (250_000, 1_000_000), deadline_s=120)
    assert len(timings) == len(ADVERSARIAL)
    assert superlinear(timings, growth=8.0, floor_s=0.05) == {}


FRAGMENTS = st.sampled_from(
    [
        *SECRETS.values(),
        *(text for text, _ in CONTEXTUAL),
        *HARMLESS,
        "password",
        "token",
        ": ",
        "=",
        '"',
        "'",
        "@",
        "://",
        "Bearer ",
        MASK,
        "\n",
        " ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=12), st.sampled_from([" ", "\n", "\t", ", "]))
def test_redaction_is_idempotent_and_counts_what_it_masks(fragments: list[str], glue: str) -> None:
    text = glue.join(fragments)
    once = redact_secrets(text)
    assert redact_secrets(once) == once
    assert (once != text) == (count_secrets(text) > 0)
    for secret in SECRETS.values():
        assert secret not in once


def test_a_token_glued_to_another_secret_is_masked_too() -> None:
    # "sk-..." right after "-----END ... KEY-----" is not at a token boundary until the key
    # block is masked; it must not leak, and a second redaction must find nothing more.
    text = SECRETS["pem"] + SECRETS["openai"] + " and " + SECRETS["google"] + SECRETS["aws"]
    once = redact_secrets(text)
    assert once == f"{MASK}{MASK} and {MASK}{MASK}"
    assert redact_secrets(once) == once
    assert count_secrets(text) == 4


@given(
    st.lists(
        st.one_of(
            st.uuids().map(str),
            st.text("0123456789abcdef", min_size=40, max_size=40),  # git SHAs
            st.text("0123456789ABCDEFGHJKMNPQRSTVWXYZ", min_size=25, max_size=25).map(
                lambda tail: "0" + tail  # ULIDs: the first character is 0-7
            ),
            st.sampled_from(HARMLESS),
        ),
        max_size=8,
    ).map(" ".join)
)
def test_identifiers_and_prose_survive(text: str) -> None:
    assert redact_secrets(text) == text


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('Enter your password:  $env:PGPASSWORD = "knog90LWgj5t"', "PGPASSWORD"),  # hypothesis
        ('Enter your password:    DB_PASS: "knog90LWgj5t"', "DB_PASS"),  # found by it too
        ("token: API_TOKEN := knog90LWgj5t", "API_TOKEN"),
        ('password: {"credentials": "knog90LWgj5t"}', "credentials"),
    ],
)
def test_a_variable_standing_where_a_value_would_is_read_as_the_next_key(
    text: str, name: str
) -> None:
    masked = redact_secrets(text)
    assert "knog90LWgj5t" not in masked
    assert name in masked  # the variable's name is kept: it is a key, not the secret
    assert redact_secrets(masked) == masked


# The characters the issue names (zero-width space, non-joiner, joiner, word joiner, BOM,
# soft hyphen), and two more that show nothing (a bidi mark, a variation selector).
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u200e", "\ufe0f"]


@pytest.mark.parametrize("char", INVISIBLE, ids=[f"U+{ord(c):04X}" for c in INVISIBLE])
@pytest.mark.parametrize("kind", ["github", "aws", "slack", "anthropic", "stripe"])
def test_a_token_split_by_an_invisible_character_is_masked_whole(char: str, kind: str) -> None:
    secret = SECRETS[kind]
    for cut in (1, len(secret) // 2, len(secret) - 1):
        split = secret[:cut] + char + secret[cut:]
        text = f"{char}before {split} after{char}"
        masked = redact_secrets(text)
        assert masked == f"{char}before {MASK} after{char}"  # the rest keeps its bytes
        assert count_secrets(text) == 1
        assert redact_secrets(masked) == masked


def test_invisible_characters_around_a_pair_and_in_a_url_are_read_through() -> None:
    assert redact_secrets("pass\u200bword: hunter2") == f"pass\u200bword: {MASK}"
    assert redact_secrets("DB_\u2060PASS=s3cr3tpw") == f"DB_\u2060PASS={MASK}"
    text = "postgres://app:pa\u00ad55w0rd@db/app"
    assert redact_secrets(text) == f"postgres://app:{MASK}@db/app"
    # Several in a row, and one inside the mask's span: all inside it go with the secret.
    split = SECRETS["github"][:8] + "\u200b\u200c\u200d" + SECRETS["github"][8:]
    assert redact_secrets(f"\u200b{split}\u200b") == f"\u200b{MASK}\u200b"


@pytest.mark.parametrize(
    "text",
    [
        "a" * 40,
        "token: " + "a" * 40,
        "password: aaaaaaaa",
        "secret=" + "Z" * 64,
        "ghp_" + "a" * 36,
        "AKIA" + "A" * 16,
        "sk-" + "x" * 48,
        "https://hooks.slack.com/services/" + "X" * 40,
        "postgres://app:" + "x" * 12 + "@db/app",
        "Authorization: Bearer " + "0" * 32,
    ],
)
def test_a_run_of_one_repeated_character_is_a_placeholder(text: str) -> None:
    assert find_secrets(text) == []
    assert redact_secrets(text) == text


def test_a_filler_run_does_not_hide_a_secret_beside_it() -> None:
    # Mostly one character is a placeholder; a random token with a run appended is not.
    token = SECRETS["github"]
    assert redact_secrets(f"{token}{'a' * 10}") == MASK
    assert redact_secrets(f"token: {token[4:]}{'a' * 30}") == f"token: {MASK}"


@pytest.mark.parametrize(
    "text",
    [
        "sent as ?hapikey= on every request",
        "api_key: off in the test profile",
        "AUTH_TOKEN=yes",
        "password: disabled for the kiosk account",
        "permissions: id-token: write, contents: read",
    ],
)
def test_a_switch_word_is_no_secret(text: str) -> None:
    """A key that names a credential, set to a switch's state ("on", "off", "yes",
    "disabled") or a permission's level (GitHub Actions' ``id-token: write``), holds no
    secret: no credential is such a word of English."""
    assert find_secrets(text) == []
    assert redact_secrets(text) == text


def test_a_secret_beside_a_switch_word_is_still_masked() -> None:
    assert redact_secrets("api_key: onion-ring-42x and feature: on") == (
        f"api_key: {MASK} and feature: on"
    )
