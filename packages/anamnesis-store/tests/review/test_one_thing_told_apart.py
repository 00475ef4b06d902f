"""What makes two notes' values the values of one thing when their sentences share few
words (issue 42's tuning splits showed each wording), and the look-alikes each rule must
leave alone:

* each note's only port, path or URL, in notes whose titles share a word beyond the
  kind's own, is of one thing; two paths only when they are of one type of file;
* a number said after a word is of what the other number is said after ("warms 32
  connections", "pool warm: 128"), unless the word is a variable of one or two letters;
* a value the newer note says another thing holds ("because the metrics agent grabs
  9100") is no value it states;
* a port the newer note says is closed is given up, and a note about a firewall is
  about ports;
* what a newer note retires is named after a word that only says how old it is ("the
  legacy scheduler is no longer used");
* a setting said in prose key then value, as its config file writes it ("LOG_LEVEL
  debug (...)"), not a key and the word its sentence goes on with;
* each note's one or two commands, in notes whose titles share a word that names no
  tool and no kind of value, are the older and the newer way to do one task; a note of
  many commands is a note of many tasks;
* a thing the prose says is on, then off ("logging stays enabled", "logging is
  disabled"), unless for two environments;
* a Dockerfile's base image (``FROM centos:8``) is one setting's value, whatever image
  each note names; a named stage (``AS build``) has a base of its own;
* a number hyphenated to a singular word counts it ("a 10-character code");
* an address is one service's when its host names the other address's path
  (``kibana.acme.internal``, ``logs.acme.io/kibana/``);
* flags given in code without their program are read each as a lone flag is;
* a setting's old number said again as a count of a thing its key does not name ("the
  6 clients") does not restate it;
* the options a call is given in code (``new ValidationPipe({ whitelist: true })``)
  are settings, not a command;
* a setting is the other note's only number of its kind when that note names its whole
  dotted key (``app.config.maxUploadMb``), not only its last part;
* a key naming a maximum or a minimum (``max_workers``) bounds its number: two maxima
  that differ disagree, and a minimum neither states nor pairs with a maximum;
* a noun ending in -ation stems as its verb ("simulation", "simulates");
* an address said for production, then one said for no scope, is the address now (a
  limit for one scope beside the limit for none still both hold);
* one file or one folder named by its own name in two places (``.../start/lantern``,
  ``~/code/nvim-dev/lantern``) is one thing moved, whatever words each title adds; a
  common folder's name (``src``) or a number (``binary_to_atom/2``) is not;
* an image's tag that reads as no version (``py39-slim``, ``TL2023-historic``) is still
  the image's tag;
* a duration said as a SQL interval (``INTERVAL 14 DAY``) is a duration;
* a range allows a value without stating it ("needs Node 18" and Node 20): beside it,
  two exact versions still differ;
* a number, a port, a version or a path said of what its sentence names before its
  verb ("Product pages are cached for 5 minutes", "Search results are cached for 30
  seconds") is of another thing than one said of other words, each with a word the
  other note never uses; the same subject, changed, is one thing, and a subject of all
  of a kind ("Every environment runs ...") is no thing.

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from anamnesis.store.review.agreement import agree, floor_and_ceiling_of, states
from anamnesis.store.review.alignment_by_context import urls_alike
from anamnesis.store.review.reading.text import clauses, stem
from anamnesis.store.review.reading.value import Value
from anamnesis.store.review.reading.values import clause_values
from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "each note's only port, in notes titled for one thing",
        ("Storybook on a laptop", "`pnpm storybook` opens the component gallery at"
         " http://localhost:6006."),
        ("Storybook config", "`.storybook/main.ts` sets `port: 6010` since we added"
         " the docs site."),
        "port",
    ),
    (
        "each note's only path, both of one type of file",
        ("Compose file for the shop", "The stack is described in docker-compose.yml at"
         " the repo root."),
        ("Bringing the shop stack up", "Everything is in deploy/compose.yaml now;"
         " `docker compose -f` it from the root."),
        "path",
    ),
    (
        "a number said after the word the other is said after",
        ("Connection pool", "DbPool warms 32 connections at boot."),
        ("Pool after the traffic review", "- pool warm: 128\n- max idle: 10 minutes"),
        "number",
    ),
    (
        "a number after a variable of two letters, which the other note's values after"
        " it share, is of its setting",
        ("Production mesh size", "Production runs of the solver use a 1024 x 1024 mesh"
         " (nx = ny = 1024 in the namelist). Test cases use 128 x 128."),
        ("Submitting a production run", "`sbatch jobs/prod.slurm` loads openmpi, sets"
         " nx=2048, ny=2048, 64 MPI ranks over 2 nodes."),
        "number",
    ),
    (
        "a port the newer note says another thing holds",
        ("Grafana on the ops box", "Grafana answers on localhost:3000 after `docker"
         " compose up`."),
        ("Grafana dashboard port", "Grafana is published on port 3300 because the metrics"
         " agent grabs 3000; log in with the admin password from the vault."),
        "port",
    ),
    (
        "a setting said in prose key then value, as its config file writes it",
        ("Log verbosity of the worker", "The unit file sets `LOG_LEVEL=info` for the"
         " worker."),
        ("Debugging the worker", "Switched the unit to LOG_LEVEL debug (RUST_BACKTRACE 1"
         " too) while chasing the leak."),
        "flag",
    ),
    (
        "a thing the prose says is on, then off",
        ("Query logging in production", "Slow query logging stays enabled in prod so"
         " support can trace timeouts."),
        ("Production database hardening", "Logging is disabled for every role in"
         " production; support reads the APM traces instead."),
        "flag",
    ),
    (
        "each note's one or two commands, in notes titled for one task",
        ("Regenerating the API clients", "After a spec edit run `npx openapi-generator-cli"
         " generate -i api.yaml -g typescript-fetch`."),
        ("API clients after a spec change", "Just `just codegen` from the repo root; the"
         " plugins are pinned in the justfile."),
        "command",
    ),
    (
        "a duration said as a SQL interval",
        ("How long login sessions are kept", "The nightly purge runs `DELETE FROM sessions"
         " WHERE created_at < now() - INTERVAL 14 DAY`."),
        ("Login session retention", "Login sessions are kept for 30 days, then the nightly"
         " purge deletes them."),
        "number",
    ),
    (
        "a Dockerfile's base image, whatever image each names",
        ("Base image of the API", "The API image starts `FROM python:3.11-slim` so wheels"
         " install without a compiler."),
        ("API container", "Build it FROM cgr.dev/chainguard/python:latest-dev now; the"
         " slim image had too many CVEs."),
        "flag",
    ),
    (
        "a number hyphenated to the singular word it counts",
        ("Invite code length", "Invite codes are 6 chars of base32, generated in"
         " invites/codes.py."),
        ("Generating invite codes", "invites/codes.py makes a 10-character base32 code and"
         " retries on a clash."),
        "number",
    ),
    (
        "a port the newer note says is closed, in a note about a firewall",
        ("Reaching the shop database from a laptop", "`psql -h db.acme.lan -p 5432 shop`"
         " from the VPN."),
        ("Shop database access after the firewall change", "Plain 5432 is closed on the"
         " firewall now; connections go through pgbouncer on 6432."),
        "port",
    ),
    (
        "flags given in code without their program",
        ("Profiler endpoint", "The worker exposes pprof with `--debug-addr=:6060`, on the"
         " pod network only."),
        ("Worker debug flags", "The deployment starts the worker with `--debug-addr=:7070"
         " --debug-token-file=/run/token` since 6060 clashed with the sidecar."),
        "flag",
    ),
    (
        "a port another thing keeps, in a clause about it",
        ("Docs server port", "`mkdocs serve` runs the docs on localhost:8000."),
        ("Docs preview port", "mkdocs.yml sets dev_addr to port 8010 so it can run beside"
         " the API, which keeps 8000."),
        "port",
    ),
    (
        "a setting's old number said again as a count of another thing",
        ("Cache workers", "docker-compose.yml sets `CACHE_WORKERS=6` for the cache."),
        ("Cache workers of the shop", "The cache runs 8 workers now (`CACHE_WORKERS=8`); the"
         " 6 clients in the office connect fine."),
        "number",
    ),
    (
        "the options a call is given in code, each a setting",
        ("Validation options", "`new ValidationPipe({ whitelist: true, forbidUnknown:"
         " false })` in main.ts, so old clients keep working."),
        ("Unknown fields in bodies", "The API rejects them: `new ValidationPipe({ whitelist:"
         " true, forbidUnknown: true })` in main.ts."),
        "flag",
    ),
    (
        "a setting said in prose key then quoted value",
        ("Session cookie flags", "auth.ts sets the session cookie with `{ sameSite:"
         ' "strict", secure: true }`.'),
        ("Session cookie in the embedded widget", 'Set the session cookie to sameSite'
         ' "none" (still secure) so the iframe keeps it.'),
        "flag",
    ),
    (
        "a key naming a maximum, against a maximum said in prose, beside a minimum",
        ("Worker autoscaling", "values.yaml:\n```yaml\nautoscaling:\n  min_workers: 2\n"
         "  max_workers: 6\n```"),
        ("Worker pool ceiling", "The worker pool now scales out to max 20 workers (min 2)"
         " when the queue backs up."),
        "number",
    ),
    (
        "a setting the other note names by its whole dotted key",
        ("Upload limit in the portal", "portal.py sets `app.config.maxUploadMb = 20` so"
         " clinics can send scans."),
        ("Largest scan a clinic can send", "Uploads are capped at 50 MB per file (the"
         " app.config.maxUploadMb option in portal.py)."),
        "number",
    ),
    (
        "an address said for production, then one said for no scope",
        ("Production search endpoint", "The app queries https://search.acme.io/v1 in"
         " production."),
        ("Search endpoint", "Search requests go to https://find.acme.io/v1, the new"
         " cluster."),
        "url",
    ),
    (
        "one folder by its own name in two places, whatever words each title adds",
        ("Packpath install", "The packpath install symlinks the checkout into"
         " ~/.local/share/nvim/site/pack/dev/start/lantern."),
        ("Lazy checkout", "Lazy loads the checkout from ~/code/nvim-dev/lantern."),
        "path",
    ),
    (
        "an image's tag that reads as no version",
        ("CI image for the docs", "The docs job runs in `squidfunk/mkdocs-material:py39-slim`"
         " so plugins match my laptop."),
        ("Docs job container", "The docs job uses `squidfunk/mkdocs-material:py312-slim`"
         " now, with the social plugin."),
        "version",
    ),
    (
        "what the newer note retires, after a word that says how old it is",
        ("Job scheduling", "Nightly jobs are queued through the Cron Runner (cron.yaml"
         " lists each schedule)."),
        ("Jobs", "The legacy Cron Runner is no longer used: every job is a Temporal"
         " schedule now."),
        "replacement",
    ),
]  # fmt: skip

FOUND += [
    (
        "one kind of thing, the newer side's words said in the older note too",
        ("Webhook retries", "Failed partner webhooks are retried 5 times with backoff."),
        (
            "Webhook redelivery",
            "Partners asked for fewer duplicates, so an outbound webhook gets at most 3 attempts.",
        ),
        "number",
    ),
    (
        "a version said of all environments, and of the files that set it",
        (
            "Keycloak image",
            "The staging and prod compose files both use quay.io/keycloak/keycloak:24.0.1.",
        ),
        ("Keycloak version", "Every cluster runs keycloak 25.0.2."),
        "version",
    ),
    (
        "one sentence's subject, its duration changed",
        ("Cache TTL", "Product pages are cached for 5 minutes."),
        ("Product page cache", "Product pages are cached for 10 minutes now."),
        "number",
    ),
]

# (rule, older, newer): look-alikes each rule must leave alone
LEFT: list[tuple[str, Note, Note]] = [
    (
        "two ports in notes whose titles share only the word port",
        ("Web socket port", "Browsers connect to the gateway on port 7000."),
        ("Ports between the cluster's nodes", "Gossip runs on 7946 between nodes only;"
         " keep it closed to the outside."),
    ),
    (
        "each note's only path, both source files: a project holds many",
        ("SMS provider for order updates", "Order SMS go through Twilio, only in the US"
         " and the UK. To reproduce the delay, run the worker against src/api/sms_client.py."),
        ("SMS provider for order updates, again", "Order SMS go through Twilio, only in the"
         " US and the UK. The provider change was reviewed in src/web/order_handler.py."),
    ),
    (
        "a config file and a source file, each its note's only path",
        ("Where the shop settings live", "Feature switches are read from settings.toml."),
        ("Adding to the shop settings", "Declare it in src/config.rs with its default; the"
         " loader fills it at start."),
    ),
    (
        "a thing on in one environment, off in another",
        ("Query logging in production", "Slow query logging stays enabled in prod so"
         " support can trace timeouts."),
        ("Logging in staging", "Logging is disabled in staging to keep the disks small."),
    ),
    (
        "a note of many commands is a note of many tasks",
        ("Regenerating the API clients", "Run `npx openapi-generator-cli generate -i"
         " api.yaml`, then `pnpm lint --fix` and `pnpm test` before you commit."),
        ("API clients after a spec change", "Just `just codegen` from the repo root; the"
         " plugins are pinned in the justfile."),
    ),
    (
        "two stages of one build each have their base image",
        ("Base image of the API", "The API image starts `FROM python:3.11-slim AS build`."),
        ("Runtime stage of the API", "The final stage is FROM gcr.io/distroless/python3 and"
         " copies the venv from build."),
    ),
    (
        "a limit for one scope beside the limit for none",
        ("Upload limit for admins", "Admins may upload files of up to 500 MB."),
        ("Upload limit", "Uploads are capped at 50 MB per file."),
    ),
    (
        "two functions of one arity are no folder",
        ("Elixir atoms from input", "Never call binary_to_atom/2 on client input."),
        ("Decoding client input", "Use binary_to_existing_atom/2 at most; never make atoms"
         " from client data."),
    ),
    (
        "a key followed by an adverb saying how it is set",
        ("Worker log format", "The worker unit file has `LOG_FORMAT=json`."),
        ("Worker unit settings", "The unit sets LOG_FORMAT explicitly (the default changed"
         " in 2.0) and nothing else."),
    ),
    (
        "a key followed by a word that goes on into its sentence",
        ("Feature flags backend", "The shop runs `FLAGS_BACKEND=launchdarkly` in every"
         " environment."),
        ("Feature flags backend setting", "FLAGS_BACKEND decides where flags are read"
         " from, see the ops doc."),
    ),
    (
        "two durations of two things, each the subject of its sentence",
        ("Cache TTL", "Product pages are cached for 5 minutes."),
        ("Search cache", "Search results are cached for 30 seconds."),
    ),
    (
        "two versions of one tool on two things, each the subject of its sentence",
        ("Python on the build image", "The CI image has Python 3.10 installed."),
        ("Python for the docs", "The docs build uses Python 3.12."),
    ),
    (
        "one kind of thing, each side's said with words the other note never uses",
        ("Grader time limit", "All weekly quiz graders run with a 5 minute timeout."),
        ("Capstone grader", "The capstone's grader gets 30 minutes: it builds a container"
         " per submission."),
    ),
    (
        "two config files of one kind, each said with its own words",
        ("Logging config", "Common loggers are set in src/main/resources/logback.xml."),
        ("Test loggers", "Test-only loggers live in src/test/resources/logback-test.xml so the"
         " build never ships them."),
    ),
    (
        "two pools' sizes, each the subject of its sentence",
        ("DB pool size", "The API's DB pool is 10 connections."),
        ("Worker pool", "Celery workers keep 4 DB connections each."),
    ),
    (
        "a port named as another thing's, with the note's own port the same",
        ("Grafana on the ops box", "Grafana answers on localhost:3000."),
        ("Dashboard port", "Grafana stays on 3000; the metrics agent moved to 9100"
         " because it used to take 3000 at boot."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def _version(body: str, shown: str) -> Value:
    found = [
        value
        for clause in clauses("", body)
        for value in clause_values(clause, False)
        if value.kind == "version" and value.shown == shown
    ]
    assert found, (body, shown)
    return found[0]


def test_a_range_allows_a_value_yet_does_not_state_it() -> None:
    """``"php": "^8.1"`` allows PHP 8.3 (they agree: both can hold), but a note saying it
    does not state 8.3: beside it, the older note's ``php:8.1-fpm-alpine`` against the
    newer ``php:8.3-fpm-alpine`` still differs."""
    caret = _version('composer.json: `"php": "^8.1"`.', "php=^8.1")
    floor = _version("Builds need Node 18.", "Node 18")
    exact = _version("The shop runs on PHP 8.3 now.", "8.3")
    node = _version("The docs build on Node 20 now.", "Node 20")
    assert agree(caret, exact) and not states(caret, exact)
    assert agree(floor, node) and not states(floor, node)
    assert states(exact, exact)
    assert states(caret, _version('composer.json: `"php": "^8.1"`.', "php=^8.1"))


def test_a_major_series_holds_a_range_inside_it_and_a_raised_floor_differs() -> None:
    """ "5.x" holds ``~> 5.40`` (a pin inside the series the newer note names), while a
    floor raised from 3.9 to 3.11, or a pin moved out of the series, still differs."""
    series = _version("Upgraded the AWS provider to 5.x.", "5.x")
    pinned = _version('Pin it: `version = "~> 5.40"`.', "version=~> 5.40")
    assert agree(series, pinned) and agree(pinned, series)
    old_floor = _version('`requires-python = ">=3.9"`', "requires-python=>=3.9")
    new_floor = _version('`requires-python = ">=3.11"`', "requires-python=>=3.11")
    assert not agree(old_floor, new_floor)
    assert not agree(series, _version('Pin it: `version = "~> 6.1"`.', "version=~> 6.1"))


def test_a_key_naming_a_maximum_bounds_its_number() -> None:
    """``max_workers: 6`` is at most 6: it disagrees with another maximum of 20, and a
    minimum of 2 allows 20 without stating it."""
    most = Value("number", "6", "max_workers=6", slot="max_workers", keyed=True)
    least = Value("number", "2", "min_workers=2", slot="min_workers", keyed=True)
    said = Value("number", "20", "20", slot="worker", bound="<=")
    assert not agree(most, said)
    assert agree(least, said) and not states(least, said)
    assert floor_and_ceiling_of(least, said) and not floor_and_ceiling_of(most, said)


def test_urls_alike_when_a_host_names_the_other_urls_path() -> None:
    """A service moved under another host's path: its old host's name is the new path's
    first part; a host only sharing the domain, or a path of another service, is not."""
    assert urls_alike("https://kibana.acme.internal", "https://logs.acme.io/kibana/app/")
    assert urls_alike("https://tools.acme.io/sentry/", "https://sentry.acme.lan")
    assert not urls_alike("https://kibana.acme.internal", "https://logs.acme.io/grafana/")
    assert not urls_alike("https://www.acme.io", "https://acme.io/www-old/")


def test_a_noun_in_ation_stems_as_its_verb() -> None:
    """A "simulation section" and a server that "simulates" share one word; "production"
    is still no "product"."""
    assert stem("simulation") == stem("simulates") == stem("simulated")
    assert stem("migration") == stem("migrated")
    assert stem("production") != stem("product")
    assert stem("station") != stem("stats")
