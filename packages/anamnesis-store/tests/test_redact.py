"""Secrets are masked before anything is written; everything else survives untouched."""

from __future__ import annotations

import pytest

from anamnesis.store.redact import MASK, count_secrets, find_secrets, redact_secrets

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
