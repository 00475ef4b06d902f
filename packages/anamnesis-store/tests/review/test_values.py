"""What the contradiction finder reads as a value, and what it does not: each kind, with
what it is a value of (its slot) and its compared form."""

from __future__ import annotations

import pytest

from anamnesis.store.review.reading.text import clauses
from anamnesis.store.review.reading.value import Value
from anamnesis.store.review.reading.values import clause_values


def _values(body: str, *, ports: bool = False) -> list[Value]:
    return [value for clause in clauses("", body) for value in clause_values(clause, ports)]


def _read(body: str, **options: bool) -> list[tuple[str, str, str]]:
    return [(value.kind, value.norm, value.slot) for value in _values(body, **options)]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("Tokens expire after 15 minutes.", ("number", "900", "s")),
        ("Tokens expire after 2 hours.", ("number", "7200", "s")),
        ("Files are capped at 128 MiB.", ("number", str(128 * 1024**2), "byte")),
        ("We send 14 emails per second.", ("number", "14", "/s")),
        ("We send 50 messages/second.", ("number", "50", "/s")),
        ("Retried up to 5 times.", ("number", "5", "attempt")),
        ("It gets 3 attempts in total.", ("number", "3", "attempt")),
        ("The index has 6 primary shards.", ("number", "6", "shard")),
        ("Set `max_connections = 200` there.", ("number", "200", "max_connections")),
        # under a key of a size an m is megabytes, as nginx reads it, not minutes
        ("`client_max_body_size 10m` in nginx.", ("number", "10485760", "client_max_body_size")),
        ("`resources.limits.memory: 1Gi`", ("number", "1073741824", "resources.limits.memory")),
        ("`cpu: 500m`", ("number", "0.5", "cpu")),
        ("`timeout: 5m` there.", ("number", "300", "timeout")),
        ("`token_ttl` is 43200 here.", ("number", "43200", "token_ttl")),
    ],
)
def test_numbers_with_their_units(body: str, expected: tuple[str, str, str]) -> None:
    assert expected in _read(body)


def test_a_minimum_and_a_maximum_are_marked() -> None:
    (least,) = _values("Passwords need at least 12 characters.")
    (most,) = _values("Passwords are capped at 128 characters.")
    assert (least.bound, most.bound) == (">=", "<=")
    (plain,) = _values("Retried up to 5 times.")
    assert plain.bound == ""  # "up to" states a policy's number as it is


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("The app runs Ruby 3.3.", ("version", "3.3", "ruby")),
        ("Services build from `node:20-alpine`.", ("version", "20-alpine", "node")),
        ("Pinned with `go 1.22.2` in go.mod.", ("version", "1.22.2", "go")),
        ('requires-python = ">=3.11,<3.12"', ("version", ">=3.11,<3.12", "requires-python")),
        ("Stacks pin Terraform `~> 1.7.5`.", ("version", ">=1.7.5,<1.8", "terraform")),
        ("The SDK supports Node 18 and newer.", ("version", ">=18", "node")),
        ("Run `go install x/y/cmd/lint@v1.59.1`.", ("version", "1.59.1", "lint")),
    ],
)
def test_versions_and_their_tools(body: str, expected: tuple[str, str, str]) -> None:
    assert expected in _read(body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("The exporter listens on :9300.", ("port", "9300", "")),
        ("Open http://localhost:3000 in a browser.", ("port", "3000", "")),
        ("Redis is at `redis.internal:6379`.", ("port", "6379", "")),
        ("Redis is at `redis.internal:6379`.", ("url", "redis.internal", "")),
        ("sshd listens on 2222 since the hardening.", ("port", "2222", "")),
        ("Keys are mounted at `/etc/auth/keys/`.", ("path", "/etc/auth/keys", "")),
        ("Settings go in `.env.local` at the root.", ("path", ".env.local", "")),
        ("The issuer is `https://auth.acme.dev/realms/acme`.",
         ("url", "auth.acme.dev/realms/acme", "")),
        ("CI runs `pytest -n 4 --maxfail=5`.", ("flag", "4", "pytest -n")),
        ("CI runs `pytest -n 4 --maxfail=5`.", ("flag", "5", "pytest -maxfail")),
        ("Run jest with `--runInBand`.", ("flag", "on", "jest -runinband")),
        ("Start it with `gunicorn app:api --workers 8`.", ("flag", "8", "gunicorn -workers")),
        ("The cookie is `SameSite=Lax; Secure`.", ("flag", "lax", "samesite")),
        ("Run `make proto` first.", ("command", "make proto", "")),
        ("The client reads `STRIPE_SECRET_KEY`.", ("name", "stripe_secret_key", "")),
        ("Global state lives in Redux Toolkit slices.", ("name", "redux toolkit", "")),
    ],
)  # fmt: skip
def test_ports_paths_urls_flags_commands_and_names(
    body: str, expected: tuple[str, str, str]
) -> None:
    assert expected in _read(body, ports=True)


@pytest.mark.parametrize(
    "body",
    [
        "Retry on 502/503/504 only.",  # status codes, no path
        "Fixed in ticket API-11848.",  # a reference, no name
        "It failed with ERR_62141 again.",  # an error code, no setting
        "Step 2 of the runbook.",  # a step, no tool's version
        "Macs are fine for this.",  # a plural noun capitalised, no name
        "The window is 02:00 to 04:00.",  # clock times, no ports
    ],
)
def test_what_is_not_a_value(body: str) -> None:
    kinds = {kind for kind, _norm, _slot in _read(body, ports=True)}
    assert not kinds & {"path", "name", "version", "port"}, _read(body, ports=True)


def test_the_words_around_a_value_leave_its_own_out() -> None:
    (value,) = [v for v in _values("The API serves HTTP on port 8080 here.") if v.kind == "port"]
    assert "serv" in value.stems and "http" in value.named
    (path,) = _values("dbt models live in `analytics/dbt/models/`.")
    assert path.own >= {"dbt", "model"} and "dbt" in path.stems  # "dbt models live in"
    (alone,) = _values("The tool writes `src/api/handler_5991.py`.")
    assert "src" not in alone.stems


def test_a_value_moved_to_another_clause_keeps_every_other_field() -> None:
    # at_clause spells out Value's fields for speed: a field added to Value and not to it
    # would come back as its default here
    value = Value(
        "number", "30", "30 s", slot="timeout", keyed=True, low=(1,), high=(2,), bound="max",
        clause=1, stems=frozenset({"retry"}), near=("after",), changed=True,
        own=frozenset({"s"}), named=frozenset({"redis"}),
    )  # fmt: skip
    assert value.at_clause(7) == value.replace(clause=7)
    assert Value.__slots__ == (
        "kind", "norm", "shown", "slot", "keyed", "low", "high", "bound", "clause", "stems",
        "near", "changed", "own", "named",
    )  # fmt: skip


def test_a_clause_repeated_in_two_places_gives_each_its_own_values() -> None:
    # values are kept per text and shared: each clause gets copies with its own index
    values = _values("Timeout is 30 s. Timeout is 30 s.")
    assert [value.clause for value in values] == [0, 1]
    assert values[0] is not values[1]
