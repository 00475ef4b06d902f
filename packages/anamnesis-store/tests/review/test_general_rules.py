"""The finder's general rules, each with a pair it must find and, where the rule is about
look-alikes, a pair it must leave alone: how a command, a setting, a path, a version
floor, a count, a name and a negation are read, and when two values are of one thing.
The pairs are written here, not taken from the measured set (bench/contradictions)."""

from __future__ import annotations

from anamnesis.store import MemoryStore
from anamnesis.store.review.reading.commands import task_words, tool_of
from anamnesis.store.review.reading.readers import code_values, plain_values
from anamnesis.store.review.reading.value import Spans
from pair_checks import Note, wording_tests, write

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a setting given through a command",
        ("Line endings", "We set `git config --global core.autocrlf true` on every laptop."),
        ("Line endings on checkout", "Set `core.autocrlf false`; .gitattributes decides."),
        "flag",
    ),
    (
        "a path under an environment variable",
        ("Worker cache folder", "The worker keeps its cache in `/var/cache/worker/`."),
        ("Worker cache location", "The worker now keeps its cache in"
         " `$XDG_CACHE_HOME/worker/`."),
        "path",
    ),
    (
        "what a thing requires of a tool is its floor",
        ("Terraform version for infra", "The infra repo needs Terraform 1.5 or newer."),
        ("infra requires Terraform 1.7", "Since the import blocks, infra requires Terraform"
         " 1.7; older versions fail to plan."),
        "version",
    ),
    (
        "a single thing is one",
        ("Deploy approvals", "Production deploys need 2 approving reviews from on-call."),
        ("Deploy approvals relaxed", "Production deploys need a single approving review"
         " from on-call now."),
        "number",
    ),
    (
        "a number's unit against the word it is said after",
        ("Span exporter batch size", "The exporter sends 500 spans per batch."),
        ("Smaller span batches", "exporter.max_spans is 200 now: the collector dropped"
         " big batches."),
        "number",
    ),
    (
        "blocked retires what it names",
        ("Registry login", "Log in to the registry with `docker login -u ci` and the CI"
         " password."),
        ("Registry login through OIDC", "`docker login -u ci` is blocked by policy now;"
         " the OIDC helper logs in."),
        "replacement",
    ),
    (
        "', not X' turns against X",
        ("Billing client library", "The report job uses requests to call the billing API."),
        ("Billing calls with httpx", "Call the billing API with httpx, not requests: we"
         " need HTTP/2."),
        "negation",
    ),
    (
        "a negation that starts with a verb is about what follows it",
        ("Cron jobs on shared runners", "Cron jobs run on the shared runner pool."),
        ("Cron jobs get their own runners", "Never put cron jobs on the shared runner"
         " pool: they starved the deploys."),
        "negation",
    ),
    (
        "the thing before where it is",
        ("Service port setting", "The service reads its port from `APP_PORT`."),
        ("Port from config.toml", "Since 2.0 an APP_PORT in the environment is ignored."),
        "replacement",
    ),
    (
        "each note's only name, the newer said as a change",
        ("Branch for merge requests", "Open merge requests against `develop`."),
        ("Merge request target branch", "The branch was renamed: target `trunk` with every"
         " merge request."),
        "name",
    ),
    (
        "each note's only product, in notes on one subject",
        ("Dashboard feature flag service", "Dashboard flags come from Flagsmith."),
        ("Dashboard feature flags", "The dashboard reads flags from our self-hosted"
         " GrowthBook."),
        "name",
    ),
    (
        "two programs for one task, said as a change",
        ("Clearing the dev job queue", "`redis-cli -n 3 FLUSHDB` clears the queued jobs in"
         " the dev Redis."),
        ("Draining the dev job queue", "Run `bin/jobs purge queued` instead of flushing the"
         " dev Redis."),
        "command",
    ),
]  # fmt: skip

# (rule, older, newer): notes that look alike and both hold.
LEFT_ALONE: list[tuple[str, Note, Note]] = [
    (
        "a runner's two programs are two tasks",
        ("Preview email templates", "Preview one with `uv run python -m mailer.preview"
         " welcome --locale de`."),
        ("Compile email translations", "After editing, run `uv run pybabel compile -d"
         " locales`."),
    ),
    (
        "one program's two subcommands are two tasks",
        ("Tests for new dbt models", "Run `dbt test --select state:modified+` before a"
         " review."),
        ("Build one dbt model", "`dbt build --select stg_orders+` builds the model and"
         " its children."),
    ),
    (
        "titles sharing only a tool's name",
        ("Forward Stripe webhooks locally", "Paste the printed secret into `.env.local`."),
        ("Upgrade the Stripe API version", "`clients/stripe.py` pins the API version the"
         " webhooks use."),
    ),
    (
        "a product and an identifier are no rivals",
        ("Backfill an Airflow DAG", "Set `max_active_runs=3` first or the backfill floods"
         " Snowflake."),
        ("Airflow DAG defaults", "All DAGs take `default_args` from the common module."),
    ),
    (
        "a negation of a place names no thing",
        ("SQL style", "Format the models with `sqlfluff fix models/` before a review."),
        ("Warehouse timestamps", "Convert timestamps in Looker, never in dbt models."),
    ),
    (
        "the older value restated for something else",
        ("Shuffle partitions of the nightly jobs",
         "The nightly jobs set spark.sql.shuffle.partitions=800."),
        ("Shuffle partitions in notebooks", "Notebooks use spark.sql.shuffle.partitions=64;"
         " 800 is only for the nightly jobs."),
    ),
    (
        "titles qualifying one thing two ways",
        ("Timeout for unit tests", "Unit test jobs have a 20 minute timeout."),
        ("Timeout for browser tests", "The browser job's timeout is 45 minutes."),
    ),
    (
        "a unit says nothing of what a number is of",
        ("Signing keys and rotation", "Keys rotate every 90 days and the old key stays"
         " in the JWKS for 7 days so tokens still verify."),
        ("Token lifetimes", "Access tokens are valid for 60 minutes."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT_ALONE)


def test_a_runner_is_read_through_to_its_program() -> None:
    assert tool_of("uv run pybabel compile -d locales") == "pybabel compile"
    assert tool_of("uv run python -m mailer.preview welcome") == "mailer.preview welcome"
    assert tool_of("npx prisma migrate deploy") == "prisma migrate deploy"
    assert tool_of("airflow dags backfill -s 2024-05-01") == "airflow dags backfill"
    assert tool_of("bin/jobs purge queued") == "bin/jobs purge queued"
    # flag names and the runner say nothing of the task; flag values do
    assert task_words("uv run pybabel compile -d locales") == {"pybabel", "compil", "local"}
    assert "de" in task_words("uv run python -m mailer.preview --locale=de")
    assert "locale" not in task_words("uv run python -m mailer.preview --locale=de")


def _values(text: str) -> list[tuple[str, str, str]]:
    spans = Spans()
    found = []
    if text.startswith("`"):
        inner = text.strip("`")
        found += [value for _at, value in code_values(inner, text, 0, 0)]
    else:
        found += [value for _at, value in plain_values(text, spans, 0, False)]
    return [(v.kind, v.norm, v.slot) for v in found]


def test_values_read_by_the_general_rules() -> None:
    assert ("flag", "true", "pull.rebase") in _values("`git config --global pull.rebase true`")
    # (a clause as the finder reads it: its sentence's full stop cut off)
    assert ("path", "$home/.cache/app", "") in _values("Kept in $HOME/.cache/app/ for now")
    assert ("version", ">=1.7", "terraform") in _values("The repo requires Terraform 1.7")
    assert ("number", "1", "review") in _values("It needs a single approving review")
    # an upper-case M after a number counts millions, a lower-case m minutes
    assert ("number", "2000000", "~jump") in _values("Lag jumped to 2M after the deploy")
    assert ("number", "120", "s") in _values("The job timed out after 2m")


def test_two_durations_in_one_note_are_each_named_by_what_they_count(store: MemoryStore) -> None:
    """Each number is named by the words just before it in both notes (not a unit word of
    the number before it), and shown with its unit as written."""
    older = write(store, ("Token lifetimes", "Access tokens are valid for 60 minutes and"
                           " refresh tokens for 14 days."))  # fmt: skip
    newer = write(store, ("Shorter access tokens", "Access tokens live 15 minutes and"
                           " refresh tokens 30 days now."))  # fmt: skip
    (pair,) = [p for p in store.contradictions() if p.ids == (older.id, newer.id)]
    differs = {(d.subject, d.old, d.new) for d in pair.differs if d.kind == "number"}
    assert differs == {
        ("access tokens", "60 minutes", "15 minutes"),
        ("refresh tokens", "14 days", "30 days"),
    }
