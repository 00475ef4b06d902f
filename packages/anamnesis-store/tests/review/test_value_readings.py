"""How a setting's value is read and paired with the other note's (issue 42's tuning
splits showed each wording), and the look-alikes each rule must leave alone:

* a key in camelCase has its words as one in snake_case has: ``strictMode`` under a
  dotted namespace and ``strictMode`` alone are one key, while a namespace's one-word
  key (``enabled``) is still said of many things;
* a rate of a size is a size per second in bytes: "4 MB/s" is what ``rate_mb: 4``
  holds, not 4 of something;
* a key said before the thing it is set on ("maxHits on `catalogue` is 2000") is the
  key, the thing in code its scope: one key set on two things is two settings;
* a .NET configuration key, its sections joined by colons ("Cache:UseRedis is false"),
  is the key its JSON nests, matched by its own words; a one-word key (``Enabled``)
  under two sections is still two settings;
* in ``section: KEY: value`` written on one line the section's name is no value: the
  setting is ``KEY``'s;
* what a file pinning one tool's version says (".python-version is 3.11") is that
  tool's version, not a number the file says; another tool's version is left alone;
* a language's literal capitalised (``durable=True``) is no name of what a value is
  of: it does not make two notes' values two things' when the other note never says it;
* a version after a key saying a tool's version is required (``cmake_minimum_required``,
  ``python_requires``) is that tool's version;
* a call's labelled arguments (OCaml's ``~workers:4``) are settings, each its label's;
* two addresses are one service's when a name in one's host, not the other's, is said
  just before the other ("Drone: https://ci.acme.dev", ``drone.tools.acme.dev``);
* a setting said in prose with its unit after its number ("idleTimeout is 30 minutes")
  is in that unit: it agrees with ``1800s``;
* a whole number joined to a tool's whole version ("Java 17 installed alongside 21") is
  another version of that tool: a note keeping the older one beside the newer one
  restates the newer;
* a setting as Erlang's config writes it (``{http_port, 8080}``) is a setting, its key
  the tuple's first element;
* a tool's version as a module system names it (``cuda/12.1.1``, in a command or in
  prose) is that tool's version, not a path; ``api/v1`` is still a path;
* a version just after a package named in code is that package's ("`rxjs` 7.8"); a
  framework's core package (``@nestjs/core``) is the framework's;
* a rate over a window of many units ("250 requests per 5 minutes") is a rate per one
  unit: it differs from "100 requests per minute", agrees with "60 requests per minute"
  (900 per 15 minutes);
  a rate "in any 60 s window" is one per minute; two windows are a burst limit and a
  quota (both held) only when one is a week to a day or further from the other;
* a setting binding a port on any address or this machine's (``0.0.0.0:7700``) states
  that port; another host's address (``redis-a:6379``) stays an address.

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from anamnesis.store.review.reading.text import clauses
from anamnesis.store.review.reading.values import clause_values
from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a camelCase key under its namespace and alone is one key",
        (
            "Null checks in the web app",
            "`compilerOptions.strictNullChecks` is false in"
            " tsconfig.json because the old table widgets return undefined everywhere.",
        ),
        (
            "tsconfig compilerOptions",
            '```json\n"compilerOptions": {\n'
            '  "noImplicitAny": true,\n  "strictNullChecks": true\n}\n```',
        ),
        "flag",
    ),
    (
        "a key said before the thing it is set on, the thing in code",
        (
            "Search depth of the catalogue",
            "search.maxHits on `catalogue` is 2000; the shop never pages further.",
        ),
        ("Catalogue search tuning", "`search.maxHits=8000` since the CSV export reads through it."),
        "number",
    ),
    (
        "a .NET configuration key said in prose, its sections joined by colons",
        (
            "Response caching in the API",
            'appsettings.json: `"Caching": { "UseDistributedCache": true }` so every pod'
            " shares one cache.",
        ),
        (
            "API caching after the Redis outage",
            "Caching:UseDistributedCache is false in appsettings.json; each pod keeps its"
            " own memory cache.",
        ),
        "flag",
    ),
    (
        "a section and its setting written on one line",
        (
            "Pipeline cache policy",
            "Top of .gitlab-ci.yml: `variables: CACHE_POLICY: pull` so jobs never upload.",
        ),
        (
            "Cache uploads in CI",
            "Every job now runs with CACHE_POLICY push-pull (cache key per branch).",
        ),
        "flag",
    ),
    (
        "what a file pinning a tool's version says",
        (
            "Python for the data scripts",
            "`.python-version` is 3.10; pandas 1.5 and the old pyarrow wheels need it.",
        ),
        ("Interpreter for the scripts", "The scripts run on Python 3.12 now (pyenv picks it up)."),
        "version",
    ),
    (
        "a capitalised literal beside a setting is no name of a thing",
        (
            "Billing consumer prefetch",
            "The billing consumer calls `channel.basic_qos(prefetch_count=20, global_qos=False)`"
            " and acks after the DB write.",
        ),
        (
            "Billing consumer throughput",
            "The billing consumer prefetch is 100 messages on RabbitMQ; acks still follow the"
            " DB write.",
        ),
        "number",
    ),
    (
        "a version after a key saying a tool's version is required",
        (
            "Python floor of the client library",
            "setup.py declares python_requires >=3.7 for the old Debian users.",
        ),
        ("Supported Pythons", "The client library supports Python 3.10 and later only."),
        "version",
    ),
    (
        "a call's labelled arguments",
        (
            "Job runner workers",
            'bin/runner.ml starts it with `Runner.start ~workers:4 ~queue:"jobs"`.',
        ),
        (
            "Job runner after the load test",
            'The runner is started as `Runner.start ~workers:16 ~queue:"jobs"` now.',
        ),
        "number",
    ),
    (
        "a name in one address's host said just before the other address",
        ("Build server", "Drone: https://ci.fernhill.dev, one pipeline per repo."),
        (
            "Release pipeline",
            "Open https://drone.tools.fernhill.dev/acme/release and press Restart on the last"
            " build.",
        ),
        "url",
    ),
    (
        "a setting written as an Erlang tuple",
        (
            "Metrics endpoint",
            "The exporter serves /metrics on 9568 (`{port, 9568}` in sys.config).",
        ),
        (
            "relay sys.config",
            "```erlang\n{relay, [\n  {metrics_port, 9600},\n  {pool_size, 20}\n]}\n```",
        ),
        "port",
    ),
    (
        "a tool's version as a module system names it",
        (
            "GPU jobs on the cluster",
            "Job scripts run `module load cuda/11.8.0 cudnn/8.6` before launching training.",
        ),
        (
            "Training image on the new nodes",
            "On the H100 nodes the jobs load cuda/12.4.1 instead; the old toolkit has no sm_90.",
        ),
        "version",
    ),
    (
        "a version just after a framework's core package named in code",
        ("NestJS version", "billing-api runs NestJS 9.4 until the guards are rewritten."),
        (
            "Dependencies in package.json",
            "`@nestjs/core` 10.3.x, `@nestjs/config` 3.2, `rxjs` 7.8.",
        ),
        "version",
    ),
    (
        "a rate over a window of many units",
        ("API quota for partners", "Partners may send 250 requests per 5 minutes per key."),
        (
            "Partner rate limit",
            "Partners get 100 requests per minute per key since the abuse incident.",
        ),
        "number",
    ),
    (
        "a rate in any window of seconds against one per minute",
        ("Login attempts", "The login endpoint allows 10 attempts a minute per account."),
        ("Login throttling", "Accounts get 30 attempts in any 60 s window now."),
        "number",
    ),
    (
        "one limit said over six hours, then per hour",
        ("Export limits", "Free workspaces may run 12 exports per 6 hours."),
        ("Free plan exports", "Free workspaces may run 1 export per hour."),
        "number",
    ),
    (
        "a setting binding a port on any address",
        ("Typesense on the search box", "`.env`: `TYPESENSE_LISTEN=0.0.0.0:8108`."),
        (
            "Search box ports",
            "Typesense on the search box listens on 8118 since the old instance kept 8108"
            " for the archive.",
        ),
        "port",
    ),
]

LEFT: list[tuple[str, Note, Note]] = [
    (
        "a namespace's one-word key is said of many things",
        (
            "Tracing in the web app",
            "`tracing.enabled` is false in settings.json until the collector is up.",
        ),
        ("Web app settings", '```json\n"metrics": {\n  "enabled": true\n}\n```'),
    ),
    (
        "a rate of a size and a setting of the same size in its key's unit",
        ("Log ingestion cap", "The collector accepts 4 MB/s of logs per tenant."),
        ("Collector limits", "`ingest_rate_mb=4` per tenant, with a burst of 8."),
    ),
    (
        "one key set on two things",
        (
            "Database pools",
            "pool.maxConnections on `reports` is 40, sized for the nightly exports.",
        ),
        ("Database pools", "pool.maxConnections on `billing` is 80 for the invoice run."),
    ),
    (
        "a one-word .NET key under two sections",
        ("Request logging", "Logging:Enabled is false in appsettings.Production.json."),
        (
            "Tracing in production",
            'appsettings.Production.json: `"Tracing": { "Enabled": true }` since the'
            " collector came up.",
        ),
    ),
    (
        "a file pinning one tool's version, and another tool's version",
        ("Node for the site", ".nvmrc says 20 and the Netlify build reads it."),
        ("Site build image", "The Netlify build image ships Python 3.11 for the docs plugin."),
    ),
    (
        "a setting's number said in prose with its unit, and the same in seconds",
        ("Session idle timeout", "sessions.idleTimeout is 30 minutes for every user."),
        ("Auth settings", "Auth config: `sessions.idleTimeout=1800s`, `sessions.rolling=true`."),
    ),
    (
        "a tool's older version kept beside the newer one",
        ("Default JDK on the build agents", "SDKMAN's default on the agents is Java 21."),
        (
            "Java 17 kept on the agents",
            "Keep Java 17 installed alongside 21; the legacy billing jobs still need it.",
        ),
    ),
    (
        "one rate over a window and per one unit",
        ("API quota for partners", "Partners may send 900 requests per 15 minutes per key."),
        ("Partner rate limit", "Partners get 60 requests per minute per key."),
    ),
    (
        "a burst limit and a daily quota",
        ("Upload rate", "Uploads: 30 per minute per user."),
        (
            "Daily upload quota",
            "Each user may upload 2000 files a day; the per-minute limit applies on top.",
        ),
    ),
]


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def _read(body: str) -> list[tuple[str, str]]:
    return [
        (value.kind, value.norm)
        for clause in clauses("", body)
        for value in clause_values(clause, False)
    ]


def test_a_port_bound_on_any_address_is_a_port_and_another_hosts_an_address() -> None:
    assert ("port", "7700") in _read("`MEILI_HTTP_ADDR=0.0.0.0:7700`")
    assert ("port", "8080") in _read("`LISTEN=:8080`")
    assert ("flag", "cache-a:6379") in _read("`CACHE_ADDR=cache-a:6379`")
    assert ("flag", "12:30") in _read("`start=12:30`")


def test_a_dimension_is_no_number_of_days() -> None:
    """ "2D physics" and "a 3D model" count dimensions; "7d" and "7D" of logs are days."""
    assert ("number", "2") in _read("2D physics is fine for the platformer.")
    assert ("number", "3") in _read("Export a 3D model of the enclosure.")
    assert ("number", str(7 * 86400)) in _read("`retention: 7d`")
    assert ("number", str(7 * 86400)) in _read("Keep 7D of logs.")
