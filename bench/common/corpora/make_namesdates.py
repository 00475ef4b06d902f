"""Generate the names-and-dates recall corpus (bench/common/corpora/namesdates/).

devmemory (../shared/eval/devmemory) is made of paraphrases, where vectors shine. This
corpus is the opposite kind: many notes share their wording and differ only in an exact
name, error code, config key, ticket, host, version or date, and the queries name that
exact thing. Keyword search should win here; a hybrid that lets vectors push out exact
matches loses. Tuning fusion on both keeps it from overfitting either.

Deterministic (fixed seed): `python -m bench.common.corpora.make_namesdates` rewrites the
same files. The output is committed so results are comparable across commits.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).parent / "namesdates"
SEED = 20261123

PROJECTS = [
    "github.com/acme/payments-api",
    "github.com/acme/search-indexer",
    "github.com/acme/mobile-bff",
    "github.com/acme/infra",
    "github.com/acme/ingest-worker",
    "global",
]
PEOPLE = [
    "Priya Raman", "Tomasz Kowalski", "Aiyana Begay", "Mei Lin", "Oluwaseun Adeyemi",
    "Sven Lindqvist", "Camila Restrepo", "Hiroshi Tanaka", "Fatima Zahra Benali",
    "Dmitri Volkov", "Ngozi Okafor", "Luca Bianchi", "Ananya Iyer", "Mateus Carvalho",
    "Ingrid Haugen", "Kwame Mensah",
]  # fmt: skip
SERVICES = ["checkout", "search", "login", "webhooks", "ledger", "notifications", "catalog"]
CAUSES = [
    "an expired TLS certificate on the internal load balancer",
    "a connection pool exhausted by a slow report query",
    "a bad feature-flag rollout that disabled retries",
    "a DNS change that dropped the private zone",
    "a full disk on the primary database host",
    "a deploy that shipped a migration before the code that needed it",
    "a noisy neighbour saturating the shared Redis",
    "a cron job that ran twice after the DST change",
]
PG_ERRORS = [
    ("40P01", "deadlock_detected", "order row locks by account id before updating balances"),
    ("40001", "serialization_failure", "retry the whole transaction up to 3 times with jitter"),
    ("23505", "unique_violation", "upsert with ON CONFLICT (external_id) DO NOTHING"),
    ("53300", "too_many_connections", "route the job through pgbouncer instead of direct"),
    ("57014", "query_canceled", "the statement_timeout fired; add the missing index"),
    ("55P03", "lock_not_available", "use lock_timeout and retry the DDL off-peak"),
    ("22P02", "invalid_text_representation", "validate UUIDs before they reach the query"),
    ("42P01", "undefined_table", "the search_path lacks the tenant schema; set it per session"),
]
NODE_ERRORS = [
    ("ECONNRESET", "the upstream closes idle keep-alive sockets after 5s; set keepAliveTimeout 4s"),
    ("ETIMEDOUT", "the egress proxy drops SYNs under load; raise its conntrack table"),
    ("EADDRINUSE", "a zombie dev server holds port 3000; kill it with `lsof -ti:3000`"),
    ("EMFILE", "the file watcher opens one fd per file; switch chokidar to polling in CI"),
    ("ENOSPC", "inotify watches ran out; raise fs.inotify.max_user_watches"),
    (
        "ERR_OSSL_EVP_UNSUPPORTED",
        "webpack 4 md4 hashing on Node 17+; set --openssl-legacy-provider",
    ),
    ("ERR_REQUIRE_ESM", "a dependency went ESM-only; pin it or switch the loader to import()"),
    ("ERR_HTTP_HEADERS_SENT", "the error handler writes after next(); return after res.send"),
]
EXIT_CODES = [
    ("137", "OOMKilled: the container hit its memory limit; raise it to 2Gi or cap the heap"),
    ("139", "a segfault in the native image library; pin libvips to 8.14"),
    ("143", "SIGTERM during rollout; the app ignores it, so add a preStop sleep of 10s"),
    ("127", "command not found in the slim image; install curl in the build stage"),
]
CONFIG_KEYS = [
    ("KAFKA_CONSUMER_MAX_POLL_RECORDS", "50", "batches of 500 exceeded max.poll.interval.ms"),
    ("spring.datasource.hikari.maximum-pool-size", "12", "the database allows 400 in total"),
    ("default_pool_size", "40", "pgbouncer in transaction mode per database"),
    ("statement_timeout", "15s", "for the reporting role only, so dashboards cannot hang"),
    ("NODE_OPTIONS", "--max-old-space-size=3072", "the build ran out of heap at 2 GB"),
    ("GOMAXPROCS", "2", "the pod has a 2-core limit and Go saw 64 host cores"),
    ("worker_connections", "4096", "nginx dropped connections during the sale"),
    ("vm.max_map_count", "262144", "Elasticsearch refuses to start below it"),
    ("client_max_body_size", "25m", "uploads of scanned invoices were rejected with 413"),
    ("fs.inotify.max_user_watches", "524288", "the monorepo watcher needs one per file"),
    ("maxmemory-policy", "allkeys-lru", "the session cache must evict, never error"),
    ("ES_JAVA_OPTS", "-Xms4g -Xmx4g", "equal heap bounds avoid resize pauses"),
    ("idle_in_transaction_session_timeout", "60s", "leaked transactions held vacuum back"),
    ("wal_keep_size", "2GB", "replicas fell out of the WAL window during long copies"),
    ("RAILS_MAX_THREADS", "5", "must match the database pool per Puma worker"),
    ("proxy_read_timeout", "120s", "report exports take up to 90 seconds"),
]
HOSTS = [
    ("db-replica-03.eu-west-1", "lags up to 40 minutes during the nightly VACUUM FULL"),
    ("db-replica-07.us-east-2", "is the only replica with the pg_trgm index for search"),
    ("redis-cache-02", "listens on port 6380 with TLS only; plain 6379 is closed"),
    ("build-runner-11", "has the GPU and runs the image-model tests"),
    ("bastion-eu.acme.internal", "is the only host allowed to reach the primary on 5432"),
    ("kafka-broker-05", "holds the partitions of payments.events after the rebalance"),
    ("es-data-09", "was replaced after disk errors; its shards moved to es-data-12"),
    ("vault-2.acme.internal", "is the standby; unseal keys are with two of the five holders"),
]
TICKETS = ["PAY", "SRCH", "BFF", "INFRA", "ING"]
DECISIONS = [
    "keep idempotency keys for 48 hours instead of 24",
    "drop support for API version 2021-04 at the end of the quarter",
    "move the nightly export from cron to the workflow engine",
    "store money as integer cents, never floats",
    "page the secondary on-call only after 10 minutes",
    "rate-limit the public search endpoint to 20 requests per second per key",
    "run database migrations in a separate deploy step",
    "shard the events topic by merchant id, not by event type",
    "encrypt webhook payloads at rest with the per-tenant key",
    "use feature flags for every change to the checkout flow",
]


def iso_date(rng: random.Random) -> str:
    return f"2026-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d}"


def unique(rng: random.Random, make: object, seen: set[str]) -> str:
    assert callable(make)
    while True:
        value = str(make(rng))
        if value not in seen:
            seen.add(value)
            return value


def build() -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    rng = random.Random(SEED)
    notes: list[dict[str, object]] = []
    queries: list[dict[str, object]] = []
    dates: set[str] = set()

    def note(
        note_type: str, title: str, body: str, project: str, tags: list[str], supersedes: str = ""
    ) -> str:
        note_id = f"n{len(notes) + 1:03d}"
        notes.append(
            {
                "id": note_id,
                "type": note_type,
                "title": title,
                "body": body,
                "project": project,
                "tags": tags,
                "supersedes": supersedes,
            }
        )
        return note_id

    def ask(query: str, relevant: str, kind: str, project: str | None = None) -> None:
        qid = f"q{len(queries) + 1:03d}"
        queries.append(
            {"qid": qid, "query": query, "relevant": [relevant], "project": project, "kind": kind}
        )

    # Incidents: same shape, told apart by date, ticket and people.
    for number in range(24):
        day = unique(rng, iso_date, dates)
        service = rng.choice(SERVICES)
        cause = rng.choice(CAUSES)
        commander, scribe = rng.sample(PEOPLE, 2)
        inc = f"INC-{2200 + number * 7}"
        minutes = rng.randint(6, 95)
        nid = note(
            "episodic",
            f"{service.capitalize()} outage on {day}",
            f"On {day} {service} returned 502s for {minutes} minutes. Cause: {cause}. "
            f"Incident commander {commander}, notes by {scribe}. Postmortem in {inc}.",
            rng.choice(PROJECTS),
            ["incident", service],
        )
        ask(f"what happened on {day}", nid, "date")
        if number % 2 == 0:
            ask(inc, nid, "identifier")
        if number % 3 == 0:
            ask(f"{service} incident {commander} was commander of", nid, "name")

    # Error codes: same remedy-shaped notes, told apart by the exact code.
    for code, name, fix in PG_ERRORS:
        project = rng.choice(PROJECTS[:5])
        nid = note(
            "procedural",
            f"Postgres SQLSTATE {code} in the ledger writer",
            f"`SQLSTATE {code}` ({name}) shows up in the ledger writer logs. Fix: {fix}.",
            project,
            ["postgres", "errors"],
        )
        ask(f"SQLSTATE {code}", nid, "error-code")
        ask(name, nid, "error-code")
    for code, fix in NODE_ERRORS:
        nid = note(
            "procedural",
            f"Node error {code} in the API gateway",
            f"The gateway crashes with `Error: {code}`. Cause and fix: {fix}.",
            rng.choice(PROJECTS[:5]),
            ["node", "errors"],
        )
        ask(code, nid, "error-code")
    for code, fix in EXIT_CODES:
        nid = note(
            "semantic",
            f"Pods exiting with code {code}",
            f"A container that exits with code {code} in the cluster: {fix}.",
            "github.com/acme/infra",
            ["kubernetes", "errors"],
        )
        ask(f"exit code {code}", nid, "error-code")

    # Config keys: one value each, with the reason; some values were changed later.
    for index, (key, value, reason) in enumerate(CONFIG_KEYS):
        project = rng.choice(PROJECTS[:5])
        owner = rng.choice(PEOPLE)
        nid = note(
            "semantic",
            f"Why {key} is {value}",
            f"`{key}` is set to `{value}` because {reason}. Changed by {owner}.",
            project,
            ["config"],
        )
        if index % 5 == 0:  # a later change supersedes it: recall must find the new value
            day = unique(rng, iso_date, dates)
            newer = note(
                "semantic",
                f"{key} raised on {day}",
                f"Since {day} `{key}` is doubled from `{value}` after load tests; {reason}.",
                project,
                ["config"],
                supersedes=nid,
            )
            ask(f"what is {key} set to", newer, "config-key")
        else:
            ask(key, nid, "config-key")

    # Hosts.
    for host, fact in HOSTS:
        nid = note(
            "semantic",
            f"About {host}",
            f"`{host}` {fact}.",
            "github.com/acme/infra",
            ["hosts"],
        )
        ask(host, nid, "identifier")

    # People: ownership notes, one per person, same wording.
    areas = [
        "the Terraform state",
        "schema changes in payments-api",
        "search relevance tuning",
        "the PagerDuty schedule",
        "the Kafka clusters",
        "mobile release trains",
        "the billing migration",
        "the SOC 2 evidence folder",
        "the design system tokens",
        "the data warehouse models",
        "the CDN configuration",
        "the fraud rules engine",
        "the SDK release process",
        "the status page",
        "the load-test harness",
        "the on-call handbook",
    ]
    for person, area in zip(PEOPLE, areas, strict=True):
        nid = note(
            "semantic",
            f"{person} owns {area}",
            f"{person} is the owner of {area}: ask {person.split()[0]} before changing it. "
            "Reviews within one working day.",
            "global",
            ["ownership", "people"],
        )
        ask(f"what does {person} own", nid, "name")
        ask(person.split()[1], nid, "name")

    # Tickets with decisions and dates.
    for number, decision in enumerate(DECISIONS):
        ticket = f"{TICKETS[number % len(TICKETS)]}-{1400 + number * 23}"
        day = unique(rng, iso_date, dates)
        person = rng.choice(PEOPLE)
        nid = note(
            "semantic",
            f"Decision {ticket}",
            f"{ticket} ({day}, {person}): we decided to {decision}.",
            rng.choice(PROJECTS[:5]),
            ["decision"],
        )
        ask(ticket, nid, "identifier")
        ask(f"decision from {day}", nid, "date")

    # Releases: same shape, told apart by version and date.
    for number in range(14):
        app = rng.choice(["mobile-bff", "acmectl", "search-indexer", "payments-api"])
        version = f"{rng.randint(1, 6)}.{rng.randint(0, 19)}.{rng.randint(0, 9)}"
        day = unique(rng, iso_date, dates)
        change = rng.choice(
            [
                "removed the deprecated /v1/cart endpoint",
                "switched the HTTP client to connection pooling",
                "added the --dry-run flag to every destructive command",
                "raised the minimum TLS version to 1.2",
                "moved feature flags to the new provider",
                "dropped Python 3.9 support",
            ]
        )
        nid = note(
            "episodic",
            f"{app} {version} released",
            f"{app} {version} shipped on {day}: {change}.",
            rng.choice(PROJECTS[:5]),
            ["release"],
        )
        ask(f"{app} {version}", nid, "identifier")
        if number % 2:
            ask(f"release shipped {day}", nid, "date")

    # Distractors: generic notes on the same topics, naming no exact identifier.
    generic = [
        ("Postgres errors in general", "Most Postgres errors in the ledger come from locks."),
        ("Node errors in the gateway", "Gateway crashes are usually network errors upstream."),
        ("Outage reviews", "Every outage gets a postmortem within five working days."),
        ("Config changes", "Config values change through pull requests with a reason."),
        ("Hosts inventory", "The host inventory lives in the infra repository."),
        ("Ownership", "Every area has one owner; the list is in the handbook."),
        ("Release notes", "Release notes are generated from conventional commits."),
        ("Decisions log", "Decisions are recorded with a ticket, a date and a person."),
    ]
    for title, body in generic:
        note("semantic", title, body, "global", ["overview"])

    return notes, queries


def main() -> None:
    notes, queries = build()
    OUT.mkdir(exist_ok=True)
    for name, rows in (("notes.jsonl", notes), ("queries.jsonl", queries)):
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
        (OUT / name).write_text(text, encoding="utf-8")
    print(f"{len(notes)} notes, {len(queries)} queries -> {OUT}")


if __name__ == "__main__":
    main()
