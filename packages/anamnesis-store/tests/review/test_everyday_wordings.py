"""Everyday facts as a user writes them down, in two notes that disagree, and the
look-alikes beside them (issue 42: short probes of the kind every project's memory
holds, written for this file, not taken from the measured set):

* a word whose stem is not the start of it ("retries": ``retry``) is a word the other
  note says: "the sender retries five times" and ``max_retries: 3`` are one count;
* a route of one part is a path ("the load balancer checks /health", then
  ``/healthz``); it is no rival of a source file's path (``/login`` beside
  ``src/auth/session_check.py``);
* "replaced X with Y" and "swapped X for Y" retire X, not "X with Y";
* a thing said in prose to be on or off ("`new_checkout` flag, off by default",
  "MAINTENANCE_MODE is on", "we turned `new_checkout` on", "TypeScript strict mode is
  off") is a switch, one with its key in config however it is spelled (``DEBUG_TOOLBAR``,
  ``"strict": true``); "true" and "enabled" are one state. A state said for something
  the other note never mentions ("on for the API", "off for the workers"), or while
  something happens ("During the migration ..."), is that thing's; "for every role", "for
  the whole app" are for everything. "Run it with tracing enabled against staging"
  switches nothing;
* a setting said in prose by its words ("the default locale is en-US", "the log level in
  prod is info", "we renamed the default branch to main") is keyed by them, as its key
  in config folds (``DEFAULT_LOCALE``, ``LOG_LEVEL``); its value is written as code
  writes one, or is a plain word where the key's last word names a thing picked by name
  (a level, a branch): "the build is green" sets nothing. The same setting said for two
  scopes, or two settings' words, is no pair;
* how often a thing runs, in a word or after "every" ("backups run nightly", "pg_dump runs
  every 6 hours"), is a period: each note's only one, in notes whose titles share a word,
  is that job's. "The daily log index" and "the hourly jobs" say no period;
* a size as Kubernetes writes it (``1Gi``, ``512Mi``) is in bytes (see test_values.py);
  a setting whose key names its unit of size (``MAX_UPLOAD_BYTES=104857600``) said again
  in prose in thousands ("(100 MB)") is one value, compared as the setting.
"""

from __future__ import annotations

from pair_checks import Note, kinds_norms_slots, values_read, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a count said in prose with a word whose stem it does not start with",
        ("Retries for the webhook sender", "The sender retries five times before giving up."),
        ("Webhook retries", "Config: `max_retries: 3`."),
        "number",
    ),
    (
        "a route of one part, changed",
        ("Health check path", "The load balancer checks /health."),
        ("ALB health check", "Health check path is /healthz."),
        "path",
    ),
    (
        "a thing replaced with another",
        ("Job queue library", "Background jobs use Celery."),
        ("Background jobs", "We replaced Celery with RQ."),
        "replacement",
    ),
    (
        "a thing swapped for another",
        ("Job queue library", "Background jobs use Celery."),
        ("Background jobs", "We swapped Celery for RQ last sprint."),
        "replacement",
    ),
    (
        "a feature flag off by default, then enabled",
        ("Feature flag for checkout", "The new checkout is behind the `new_checkout` flag,"
         " off by default."),
        ("Checkout flag", "new_checkout is enabled for everyone now."),
        "flag",
    ),
    (
        "a switch turned on, the verb first",
        ("Feature flag for checkout", "`new_checkout` is off in production."),
        ("Checkout flag", "We turned `new_checkout` on in production last week."),
        "flag",
    ),
    (
        "a switch said by its words, then set by its key",
        ("Debug toolbar", "The debug toolbar is enabled in staging."),
        ("Staging settings", "DEBUG_TOOLBAR=false on staging."),
        "flag",
    ),
    (
        "a mode said by its words, then its key in a config file",
        ("Strict mode", "TypeScript strict mode is off for the legacy package."),
        ("tsconfig", "`\"strict\": true` in packages/legacy/tsconfig.json."),
        "flag",
    ),
    (
        "an environment variable said on, then set off",
        ("Maintenance mode", "MAINTENANCE_MODE is on during the migration."),
        ("Maintenance", "MAINTENANCE_MODE=off since the migration finished."),
        "flag",
    ),
    (
        "a setting said by its words, then by its key",
        ("Default locale", "The app's default locale is en-US."),
        ("Localization", "DEFAULT_LOCALE=en-GB"),
        "flag",
    ),
    (
        "a level said by its words, then by its key",
        ("Log level in prod", "The log level in prod is info."),
        ("Logging config", "LOG_LEVEL=debug in the prod env file now."),
        "flag",
    ),
    (
        "a setting said by its words, then renamed to another value",
        ("Default branch", "Our default branch is master."),
        ("Renaming the default branch", "We renamed the default branch to main."),
        "flag",
    ),
    (
        "two Python build backends",
        ("Build tool", "The library is built with setuptools."),
        ("Build backend", "pyproject uses hatchling as the build backend."),
        "name",
    ),
    (
        "a size in prose, then a setting in bytes said again in megabytes",
        ("Max upload size", "Users can upload files up to 25 MB."),
        ("Upload limits", "MAX_UPLOAD_BYTES=104857600 (100 MB)."),
        "number",
    ),
    (
        "how often a job runs, in a word, then after every",
        ("Backup schedule", "Database backups run nightly at 02:00 UTC."),
        ("Backups", "pg_dump now runs every 6 hours."),
        "number",
    ),
]  # fmt: skip

# (rule, older, newer)
LEFT: list[tuple[str, Note, Note]] = [
    (
        "a route beside a source file",
        ("Auth middleware redirect", "The auth middleware redirects to /login when the"
         " session cookie is missing."),
        ("Auth middleware checks", "To reproduce the missing-cookie redirect, run the"
         " auth middleware against src/auth/session_check.py."),
    ),
    (
        "a route of one part beside another service's",
        ("Health check path", "The load balancer checks /health."),
        ("Readiness probe", "Kubernetes readiness hits /ready."),
    ),
    (
        "a switch on for one thing, off for another",
        ("Autoscaling", "Autoscaling is on for the API."),
        ("Worker scaling", "Autoscaling is off for the workers: they run a fixed 4"
         " replicas."),
    ),
    (
        "a flag on for some users, off for the rest",
        ("Checkout flag", "`new_checkout` is on for internal users."),
        ("Checkout flag rollout", "`new_checkout` is off for everyone else until the A/B"
         " test ends."),
    ),
    (
        "a switch on while something happens",
        ("Maintenance", "MAINTENANCE_MODE is off."),
        ("Migration runbook", "During the migration MAINTENANCE_MODE is on; turn it off"
         " after."),
    ),
    (
        "one setting said by its words for two scopes",
        ("Log level in prod", "The log level in prod is info."),
        ("Log level locally", "The log level in dev is debug."),
    ),
    (
        "two settings' words ending in one word",
        ("Default region", "The default region is eu-west-1."),
        ("Backup region", "The backup region is us-east-1."),
    ),
    (
        "two jobs' periods in notes of two subjects",
        ("Backup schedule", "Database backups run nightly at 02:00 UTC."),
        ("Log shipping", "Logs are shipped every 5 minutes."),
    ),
    (
        "a mode said on by its words, and true in a config file",
        ("Strict mode", "TypeScript strict mode is on."),
        ("tsconfig", "`\"strict\": true` in tsconfig.json."),
    ),
    (
        "a thing run with something enabled",
        ("Reproducing the slow checkout", "Run the load test with tracing enabled against"
         " staging."),
        ("Tracing", "Tracing is off in production."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def _read(kind: str, text: str) -> list[tuple[str, str]]:
    """The values of ``kind`` read in a note's body: what each compares as, and what it is
    a value of (a switch's state and key, a number in its unit's base and the unit)."""
    return [(norm, slot) for read, norm, slot in kinds_norms_slots(text) if read == kind]


def _switches(text: str) -> list[tuple[str, str]]:
    return _read("flag", text)


def test_a_switch_said_in_prose_is_keyed_by_its_thing() -> None:
    assert _switches("The debug toolbar is enabled in staging.") == [("on", "debug_toolbar")]
    assert ("off", "new_checkout") in _switches("Behind the `new_checkout` flag, off by default.")
    assert ("on", "public_signups") in _switches("Last week we enabled public signups.")
    # a participle after "with" switches nothing; "on" before a number or a word of place
    # is no state
    assert _switches("Run the load test with tracing enabled against staging.") == []
    assert _switches("The API is on 8080.") == []
    assert _switches("The export is on the roadmap.") == []


def test_a_setting_said_by_its_words_is_keyed_by_them() -> None:
    assert _read("flag", "The app's default locale is en-US.") == [("en-us", "default_locale")]
    assert _read("flag", "The log level in prod is info.") == [("info", "log_level")]
    assert _read("flag", "We renamed the default branch to main.") == [("main", "default_branch")]
    assert _read("flag", "The new region is eu-west-1 for buckets.") == [("eu-west-1", "region")]
    assert _read("flag", "The build is green.") == []
    assert _read("flag", "The API is slow today.") == []


def test_a_number_said_in_words_is_shown_with_its_unit_once() -> None:
    assert values_read("number", "1% of carts took six seconds.") == ["1%", "six seconds"]
    assert values_read("number", "The job took 6 seconds.") == ["6 seconds"]


def test_how_often_a_thing_runs_is_a_period_in_seconds() -> None:
    def numbers(text: str) -> list[tuple[str, str]]:
        return _read("number", text)

    assert numbers("Database backups run nightly at 02:00 UTC.") == [("86400", "s")]
    assert numbers("The sync runs hourly.") == [("3600", "s")]
    assert numbers("dbt runs on it every hour.") == [("3600", "s")]
    assert numbers("Each daily log index gets 6 primaries.") == [("6", "primary")]
    assert numbers("Batches wait between the hourly dbt jobs.") == []
