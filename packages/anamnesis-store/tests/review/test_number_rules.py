"""The finder's rules for numbers, ports, versions, negations and replacements written the
ways developers write them: a setting's key in plain text with its value, a bound said
after its number, a call's one argument, a tool named ``Name.js``, a version with a
wildcard, a published port, a value the newer note names as what it left, a project's
name that is no scope, a gerund's object as what a replacement retires. The notes
are written here, not taken from the measured set (bench/contradictions)."""

from __future__ import annotations

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.review.agreement import agree
from anamnesis.store.review.reading.text import clauses
from anamnesis.store.review.reading.value import Value
from anamnesis.store.review.reading.values import clause_values
from pair_checks import Note, differing_kinds, wording_tests, write
from store_testing import write_note


def _read(body: str) -> list[tuple[str, str, str, bool, str]]:
    return [
        (value.kind, value.norm, value.slot, value.keyed, value.bound)
        for clause in clauses("", body)
        for value in clause_values(clause, False)
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("The gateway sets ConnectTimeout 3s and IdleTimeout 90s.",
         ("number", "3", "connecttimeout", True, "")),
        ("The client uses maxRetries 4 on every call.", ("number", "4", "maxretries", True, "")),
        ("The default of pool_size in config/db.yml is 25 now.",
         ("number", "25", "pool_size", True, "")),
        ("keepalive_timeout 75 seconds in the proxy.",
         ("number", "75", "keepalive_timeout", True, "")),
    ],
)  # fmt: skip
def test_a_key_in_plain_text_keys_its_number(
    body: str, expected: tuple[str, str, str, bool, str]
) -> None:
    assert expected in _read(body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("Pools are built with `HikariConfig().setMaximumPoolSize(20)` in Db.kt.",
         ("number", "20", "setmaximumpoolsize", True, "")),
        ("The thumbnails get a third of it now (fractionOfHeap(0.33)).",
         ("number", "0.33", "fractionofheap", True, "")),
        ("Sessions are limited by `throttle.window(10, \"90 s\")` per user.",
         ("number", "90", "s", False, "")),
    ],
)  # fmt: skip
def test_a_call_sets_what_it_names(body: str, expected: tuple[str, str, str, bool, str]) -> None:
    assert expected in _read(body)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("The docs site runs on Vue.js 2.7 still.", ("version", "2.7", "vue")),
        ("The API is on Express.js 4 for now.", ("version", "4", "express")),
        ("package.json pins vite 5.2.8 since the upgrade.", ("version", "5.2.8", "vite")),
        ("We stay on 4.2.x of the SDK until the fix ships.", ("version", ">=4.2,<4.3", "")),
        ("Any 3.x release of it is fine.", ("version", ">=3,<4", "")),
    ],
)  # fmt: skip
def test_how_a_tool_and_its_version_are_written(body: str, expected: tuple[str, str, str]) -> None:
    assert expected in [value[:3] for value in _read(body)]


def test_a_port_published_alone_is_the_hosts() -> None:
    assert ("port", "9091", "", False, "") in _read("The exporter publishes `9091:9090` now.")


def test_a_calls_parenthesis_is_no_clause_cut() -> None:
    said = [clause.text for clause in clauses("", "Set it with limit(5) here (see the docs).")]
    assert said == ["Set it with limit(5) here", "see the docs"]


def test_a_product_and_its_version_is_no_key() -> None:
    read = _read("The web app is on TypeScript 5 now.")
    assert ("version", "5", "typescript", True, "") in read
    assert not [value for value in read if value[0] == "number"]


@pytest.mark.parametrize(
    ("body", "bound"),
    [
        ("Branch names: 40 characters at most.", "<="),
        ("Keep 3 replicas minimum.", ">="),
        ("Uploads are 25 MB max.", "<="),
        ("Give it 12 characters at least.", ">="),
        ("Wait 30 min before retrying.", ""),  # a unit, not a minimum
    ],
)
def test_a_bound_said_after_its_number(body: str, bound: str) -> None:
    (number,) = [value for value in _read(body) if value[0] == "number"]
    assert number[4] == bound


# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a key in plain text against the same key in code",
        ("Gateway timeouts", "The gateway is built with ConnectTimeout 3s and IdleTimeout"
         " 90s."),
        ("Longer gateway connect timeout", "Slow upstreams in the EU made us raise"
         " `ConnectTimeout` to 8s now."),
        "number",
    ),
    (
        "a key with where it is set, then its value",
        ("Worker pool size", "Every worker starts with `pool_size = 10` from"
         " settings/base.py."),
        ("Bigger worker pools", "After the queue backed up, pool_size in settings/base.py"
         " is 30 now."),
        "number",
    ),
    (
        "a call's one number, in code and in plain text",
        ("Thumbnail cache size", "App.kt sets `Cache.Builder(ctx).fractionOfHeap(0.3).build()`"
         " for the gallery."),
        ("Thumbnail cache after the OOMs", "The gallery cache gets less heap now"
         " (fractionOfHeap(0.12)) on small phones."),
        "number",
    ),
    (
        "a duration quoted in code against one in words",
        ("Login throttle", "The login route is throttled with `limiter.fixedWindow(5,"
         " \"60 s\")` per account."),
        ("Login throttle window", "Login is limited to 5 attempts in a sliding window of"
         " 15 min per account (`limiter.slidingWindow(5, \"15 m\")`)."),
        "number",
    ),
    (
        "a tool named Name.js against its name",
        ("Docs site framework", "The docs site is built on Vue.js 2.7 with Vuex."),
        ("Vue 3 for the docs site", "The docs site migration landed: package.json pins vue"
         " 3.4.21 and pinia."),
        "version",
    ),
    (
        "the port the newer note says it left",
        ("Local API server", "`make api` serves the API on http://localhost:5000 for the"
         " frontend."),
        ("Local API port changed", "5000 clashed with AirPlay on the Macs, so the api"
         " container publishes `5050:5000`. Use localhost:5050."),
        "port",
    ),
    (
        "the older note names the newer value only as one to avoid",
        ("Redis container for local dev", "Map the dev redis container to host port 6380"
         " so it does not clash with the system Redis on 6379. REDIS_URL points at"
         " localhost:6380."),
        ("Local redis port", "The system Redis is uninstalled, so the dev container"
         " publishes 6379:6379 and REDIS_URL points at localhost:6379."),
        "port",
    ),
    (
        "what a replacement retires, after a gerund",
        ("Starting the worker", "Start the worker with `python worker.py --queue default`."),
        ("Worker started by the supervisor", "Invoking worker.py directly is deprecated;"
         " `supervisorctl start worker` runs it."),
        "replacement",
    ),
]  # fmt: skip

# notes of a project whose name holds a scope word: (older, newer)
PROJECT_NAMED_FOR_A_PLATFORM: tuple[Note, Note] = (
    ("Kotlin version", 'gradle/libs.versions.toml sets kotlin = "1.9.0" for the app.'),
    ("Kotlin 2.0 in shop-android", 'The catalog has kotlin = "2.0.0" with the K2 compiler.'),
)

# (rule, older, newer): notes that look alike and both hold.
LEFT_ALONE: list[tuple[str, Note, Note]] = [
    (
        "a soft target under a maximum",
        ("Pull request title length", "PR titles: 70 characters at most (the bot checks)."),
        ("Pull request title style", "Aim for titles around 45 characters, in the"
         " imperative."),
    ),
    (
        "two things each named in its sentence, an aside between",
        ("Orders database schema", "The orders database (OrdersDb) is at schema version 12;"
         " each bump needs a migration."),
        ("Billing store schema", "The billing DataStore (billing.proto) is at schema"
         " version 4; old files are migrated on read."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT_ALONE)


def test_a_projects_name_is_no_scope(store: MemoryStore) -> None:
    """``shop-android`` names the project, not a platform the newer value is for."""
    old, new = PROJECT_NAMED_FOR_A_PLATFORM
    project = "github.com/acme/shop-android"
    older = write_note(store, title=old[0], body=old[1], project=project)
    newer = write_note(store, title=new[0], body=new[1], project=project)
    found = differing_kinds(store, older, newer)
    assert found and "version" in found[0], found


def test_a_negation_of_where_a_thing_goes(store: MemoryStore) -> None:
    """ "X never go in Y" turns against a note that keeps such things in Y."""
    older = write(store, ("Scraper API keys", "Keep the scraper's API keys in Consul KV"
                          " under scraper/keys."))  # fmt: skip
    newer = write(store, ("Keys never go in Consul KV", "Every service can read Consul"
                          " KV; the Vault agent hands out the scraper's secrets."))  # fmt: skip
    found = differing_kinds(store, older, newer)
    assert found and "negation" in found[0], found


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Workers get 2 GB of RAM.", "Workers get 2048 MB of RAM."),
        ("The cache holds 1.5 GB.", "The cache holds 1536 MB."),
        ("Workers get 2 GB of RAM.", "Workers get 2 GiB of RAM."),
        ("Uploads are capped at 100MB.", "Uploads are capped at 100 megabytes."),
    ],
)
def test_a_size_counted_in_thousands_or_in_1024s_is_one_size(older: str, newer: str) -> None:
    """People write GB for 1,000 or 1,024 megabytes: the two readings agree; a size said
    in words is in its unit."""
    [a] = [value for value in _values(older) if value.kind == "number"]
    [b] = [value for value in _values(newer) if value.kind == "number"]
    assert agree(a, b)


def test_sizes_a_fortieth_apart_and_no_more_still_differ() -> None:
    [a] = [value for value in _values("Workers get 2 GB of RAM.") if value.kind == "number"]
    [b] = [value for value in _values("Workers get 3 GB of RAM.") if value.kind == "number"]
    [c] = [value for value in _values("Workers get 2100 MB of RAM.") if value.kind == "number"]
    assert not agree(a, b) and not agree(a, c)


def test_a_lower_case_k_after_a_number_is_thousands() -> None:
    assert ("number", "10000", "message", False, "") in _read("The queue keeps 10k messages.")
    assert ("number", "1500", "connection", False, "") in _read("The pool has 1.5k connections.")


def _values(body: str) -> list[Value]:
    return [value for clause in clauses("", body) for value in clause_values(clause, False)]


def test_a_number_refused_beyond_is_a_maximum() -> None:
    """ "Attachments over 10 MiB are rejected" allows 10 MiB at most, as "rejects
    attachments over 10 MiB" does."""
    assert ("number", "10485760", "byte", False, "<=") in _read(
        "Attachments over 10 MiB are rejected by the API."
    )
    assert ("number", "10485760", "byte", False, ">=") in _read(
        "Attachments over 10 MiB are kept in cold storage."
    )


def test_a_rate_over_a_unit_of_time_is_per_second_and_no_path() -> None:
    assert ("number", "0.5", "/s", False, "") in _read("The limit is 30/min per IP.")
    assert ("number", "0.5", "anonymous", True) in [
        (v.kind, v.norm, v.slot, v.keyed) for v in _values("```yaml\nanonymous: 30/min\n```")
    ]
    assert not any(kind == "path" for kind, *_rest in _read("Anonymous: 30/min, burst 50."))


RATE_AND_LIMIT_PAIRS: list[tuple[str, Note, Note, str]] = [
    (
        "a maximum said as what is refused beyond it",
        ("Max file size for attachments", "Attachments over 10 MiB are rejected by the API."),
        ("Attachment limit", "The API accepts attachments up to 25 MB."),
        "number",
    ),
    (
        "a rate as a number over a unit of time, and per minute in words",
        ("Rate limiter settings", "limits:\n  anonymous: 30/min\n  authenticated: 300/min"),
        (
            "Anonymous rate limit",
            "Anonymous clients get 60 requests a minute since the docs site started calling"
            " the API.",
        ),
        "number",
    ),
]
RATE_AND_LIMIT_PAIRS += [
    (
        "a threshold raised, the old one said to have been too much",
        ("Disk alerts", "Disk usage warns at 80%."),
        ("Disk warning threshold", "The disk warning now fires at 85%, 80% was too noisy."),
        "number",
    ),
]
SAME_LIMITS_MORE: list[tuple[str, Note, Note]] = [
    (
        "a size in gigabytes, and the same setting in G",
        ("Cache memory cap", "The page cache is capped at 4 GB on the db host."),
        ("Restoring the db host", "Remember postgresql.conf: `effective_cache_size = 4G`."),
    ),
    (
        "a tick rate, and its period rounded",
        ("Server tick rate", "`ServerMaxTickRate=60`"),
        ("Server frame budget", "A server frame has about 17 ms; profiling targets that."),
    ),
]
SAME_LIMITS: list[tuple[str, Note, Note]] = [
    (
        "a maximum in kilobytes and the same in bytes",
        ("Max chat message size", "Messages over 16 KB are rejected with an error."),
        ("Frame size", "The socket's max frame size is 16384 bytes, the message limit."),
    ),
    (
        "a second limit said to hold also",
        ("Session length", "Sessions expire after 8 hours of inactivity."),
        ("Absolute session lifetime", "Sessions also end 24 hours after login, however active."),
    ),
]

test_each_rate_and_limit_is_found, test_each_same_limit_is_left_alone = wording_tests(
    RATE_AND_LIMIT_PAIRS, SAME_LIMITS + SAME_LIMITS_MORE
)


def test_a_setting_in_g_is_gibibytes_and_a_unit_is_no_name() -> None:
    assert ("number", "8589934592", "arc_max", True, "") in _read('`arc_max="8G"`')
    assert not any(kind == "name" for kind, *_rest in _read("Lines go into a 64 KiB buffer."))
