"""The secrets corpus: every labelled secret is masked with its surroundings intact, every
look-alike survives, and no rule takes more than linear time on near-matches."""

from __future__ import annotations

import random
import string
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anamnesis.store.secrets.redact import MASK, count_secrets, find_secrets, redact_secrets
from anamnesis.store.secrets.redact_rules import looks_random
from redaction_growth import cpu_seconds, superlinear
from secrets_corpus import NEGATIVES, POSITIVES, Negative, Positive


def _expected(case: Positive) -> str:
    if case.expected is not None:
        return case.expected
    out = case.text
    for secret in case.secrets:
        out = out.replace(secret, MASK)
    return out


def test_the_corpus_is_large_and_varied() -> None:
    assert len(POSITIVES) >= 80
    assert len(NEGATIVES) >= 80
    assert len(Counter(case.kind for case in POSITIVES)) >= 50
    # The six forms are all in it.
    kinds = {case.kind for case in POSITIVES}
    assert {"pgpassword", "db-pass", "smtp-pass", "azure-account-key", "sendgrid"} <= kinds
    assert "aws-bare-secret" in kinds


@pytest.mark.parametrize("case", POSITIVES, ids=[f"{i}-{c.kind}" for i, c in enumerate(POSITIVES)])
def test_every_secret_in_the_corpus_is_masked_and_the_rest_kept(case: Positive) -> None:
    out = redact_secrets(case.text)
    for secret in case.secrets:
        assert secret not in out
    assert out == _expected(case)
    assert count_secrets(case.text) == _expected(case).count(MASK)
    assert redact_secrets(out) == out


@pytest.mark.parametrize("case", NEGATIVES, ids=[f"{i}-{c.kind}" for i, c in enumerate(NEGATIVES)])
def test_every_look_alike_in_the_corpus_survives(case: Negative) -> None:
    assert redact_secrets(case.text) == case.text
    assert find_secrets(case.text) == []
    assert count_secrets(case.text) == 0


def test_the_corpus_as_one_document() -> None:
    # Secrets and look-alikes side by side, as in a transcript: neither leaks into the other.
    text = "\n\n".join(
        [c.text for c in POSITIVES if c.expected is None] + [c.text for c in NEGATIVES]
    )
    out = redact_secrets(text)
    for case in POSITIVES:
        if case.expected is None:
            assert _expected(case) in out, case.kind
    for negative in NEGATIVES:
        assert negative.text in out, negative.kind


def test_a_bare_aws_secret_needs_company() -> None:
    secret = next(c for c in POSITIVES if c.kind == "aws-bare-secret").secrets[-1]
    assert redact_secrets(f"the build id is {secret}") == f"the build id is {secret}"
    assert redact_secrets(f"AWS build id {secret}") == f"AWS build id {MASK}"
    far = "x " * 200
    assert redact_secrets(f"aws {far}{secret}") == f"aws {far}{secret}"


# Near-matches of every rule added for the corpus, each repeated to size. Linear time is
# checked as a ratio (twice the input, at most ~2.5 times the time: a quadratic rule takes
# four), so a busy machine slows both sizes alike instead of failing a wall-clock bound.
NEAR_MATCHES = [
    "SG.aaaaaaaaaaaaaaaaaaaaaa.",
    "SG.",
    "SK0123456789abcdef",
    "key-0123456789abcdef",
    "0123456789abcdef0123456789abcdef-us",
    "dapi0123",
    "aB3Q~",
    "aB3Q~aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "?sig=",
    "&sig=aaaaaaaaaaaaaaaaa&",
    "Maaaaaaaaaaaaaaaaaaaaaaa.aaaaaa.",
    "123456789:AA",
    "glpat-aaaaaaaaaaaaaaaaaaaa.",
    "hooks.slack.com/services/",
    "discord.com/api/webhooks/123456789012345678/",
    "pypi-AgE",
    "dp.pt.",
    "abcdefghijklmn.atlasv1.",
    "PGPASSWORD=",
    "DB_PASS: ",
    "--password ",
    "--password-",
    "-p ",
    "<password>",
    "<password>a</pass",
    "<a><a><a>",
    "machine ",
    "machine h login ",
    "machine h login u password ",
    "-u a:",
    " -u ",
    "sshpass -p ",
    "Authorization: Token ",
    "AccountKey=",
    "auth: ",
    "aws ",
    "aBcD1234eFgH5678iJkL9012mNoP3456qRsT7890",
    "aBcD1234eFgH5678iJkL9012mNoP3456qRsT7890 ",
    "aBcD1234eFgH5678iJkL9012mNoP3456qRsT789/",
    "AKIAAAAAAAAAAAAAAAAA ",
    "self.a.",
    "a_password",
    "ATATT3",
    "EAAA",
    "self.token = a + ",
    "pwd=pwd ",
    "xghp_",
    "xsk-aaaaaaaaaaaaaaaaaaaaaaaaa!",
    "aAKIA",
    "%3Dghp_",
    "postgres://u:p#",
    "://u:p ss",
    "https://h:8080/@",
    "ghp_\u200b",
    "\u00ad",
    "-----END RSA PRIVATE KEY-----",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n-----END PRIVATE KEY-----",
    "MIIEowIBAAKCAQEAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
    "b3BlbnNzaC1rZXktdjEaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
]


@pytest.mark.slow
def test_new_rules_take_linear_time_on_near_matches() -> None:
    # 200 KB and 400 KB of each near match: linear doubles, quadratic quadruples.
    timings = cpu_seconds(NEAR_MATCHES, (200_000, 400_000), repeats=3)
    assert len(timings) == len(NEAR_MATCHES)
    # Sub-50 ms runs are mostly noise; a quadratic rule on 400 KB takes seconds. A suspect
    # gets up to three more looks: a quadratic rule is slow every time, a burst of load
    # on a shared machine is not.
    slow = superlinear(timings, growth=2.5, floor_s=0.05)
    for _ in range(3):
        if not slow:
            break
        slow = superlinear(
            cpu_seconds(list(slow), (200_000, 400_000), repeats=3), growth=2.5, floor_s=0.05
        )
    assert slow == {}


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([*POSITIVES, *NEGATIVES]), max_size=6),
    # Separators only: glued without one ("...sk-x" + "AKIA..."), two tokens are one word.
    st.sampled_from([" ", "\n", "\t", ", ", "; ", "\n\n"]),
)
def test_glued_cases_are_masked_once_and_for_all(
    cases: list[Positive | Negative], glue: str
) -> None:
    text = glue.join(case.text for case in cases)
    once = redact_secrets(text)
    assert redact_secrets(once) == once
    assert (once != text) == (count_secrets(text) > 0)
    for case in cases:
        if isinstance(case, Positive):
            for secret in case.secrets:
                assert secret not in once


def test_random_base64_looks_random_and_identifiers_do_not() -> None:
    # The thresholds in looks_random, checked the way they were chosen: on random strings
    # of an AWS secret's length (0.1% lack a digit, which it requires).
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + "+/"
    samples = ["".join(rng.choice(alphabet) for _ in range(40)) for _ in range(2000)]
    assert sum(map(looks_random, samples)) >= 0.995 * len(samples)
    for identifier in (
        "S3BucketReplicationConfigurationV2Helper",
        "AwsSecretsManagerClientBuilderFactoryImp",
        "01J9Z8YPM7Q3X2V4WT6B5N0KGD",  # ULID: one case
        "3bf75f14-4c3f-4a2b-9d1e-7f3c9a1e5b2d",
        "e83e3333b5770815e9c2e3aee48c305257385bbb",
        "OAuth2Provider",
        "v1.2.3-rc.1+build.5",
    ):
        assert not looks_random(identifier), identifier
