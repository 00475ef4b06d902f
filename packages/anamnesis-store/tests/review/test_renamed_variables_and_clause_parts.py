"""Readings of issue 42's seventh session, each with the look-alikes it must leave
(written for this file, not taken from the measured set):

* environment variables renamed: the older note names some, the newer note names others
  ending in the same words (``STRIPE_KEY`` and ``STRIPE_SECRET``, then
  ``BILLING_PROVIDER_KEY`` and ``BILLING_PROVIDER_SECRET``), neither note names the
  other's, and a word of one note's variables is said by the other ("Payment provider
  credentials"). Where one note names more variables than the other, both notes say
  such a word; the project's own name ("shop") is said by all its notes and counts for
  nothing;
* a word saying a value holds beside another ("also") is read in its own part of the
  clause: in "The docs server also wants 4173, so the preview starts on 4180" the
  other is the docs server's, and 4180 is the preview's only port. A value the older note
  gives to another thing ("my Homebrew Redis already owns 6379") is no value it states:
  6379, said by the newer note, is a change from its 6380;
* a setting's number against the same quantity said in prose, in a note saying every
  word of the key but its unit, two at least: ``UPSTREAM_CONNECT_TIMEOUT_MS=2000``
  against "waits 5 seconds for the upstream to accept a connection" in a note titled
  "Upstream connect timeout"; ``MAILER_SEND_RETRIES=2`` against "tries to send each email
  4 times". A key that says it is a rate (``ingestion_rate_mb``) is megabytes a second,
  not a burst's megabytes; a key of one word ("timeout") is said of many things: it
  counts only where the prose note's title names it and the two titles share another
  word ("Upload worker settings" ``retries=2``, "Upload worker retries": 5);
* a branch named in prose by its usual name where the words around it say it is one
  (pushed to, merged into, "the master branch"): "Pushing to master deploys", then
  "Merge the PR into main". Each note's only branch, in notes whose titles or whose
  words around the branch share a word; git-flow's two ("merged into develop",
  "deploys from main") are two branches, and "the main page" names none;
* a word and its form ending in -ing or -ed are one stem when the word ends in a double
  consonant ("install" and "installing", "process" and "processes"), as "run" and
  "running" were: "Installing the linter" then "lintkit install" is one task;
* a script an interpreter runs with tasks of its own (``python manage.py loaddata``,
  ``php artisan queue:work``) is part of the command's tool: its tasks are two tasks
  (``loaddata`` and ``dumpdata`` are no two values of one setting), and a flag given to
  one task is that task's (``--tries=3``, then ``--tries=5``);
* a response's status ("a 413 from nginx", "returns 404") is no quantity; a key of a size
  (``client_max_body_size 20m``, 20 MiB) is no duration, whatever "20m" reads as in prose;
* a rule against something, then a note that says to do it: the newer clause says so by a
  word of recommendation, or opens as an imperative does, after a label or a condition
  ("When the lock is stuck, run ..."), with the very verb the rule is about and what it
  is done to ("must not be logged", then "Log the full request body"); it must do it to
  the rule's own thing ("don't ship a statically linked Qt" is kept by "Ship the Qt
  DLLs"), and a clause opening with a noun ("Full product reindexes run at night") says
  to do nothing. "X is forbidden", "X is banned" is such a rule, not a retirement;
* a command said as a change in a note whose title shares no word with the older note's
  is the older command's task where the two share a word of it beyond their programs
  (`npm run dev`, then "the dev server is `pnpm dev` now"); `npm run lint` beside it is
  another task;
* "no more X" says not to do X, as "no longer X" does ("No more squash merges"); "phased
  out X", "X was ripped out" retire X;
* a program the newer note says is uninstalled is a program it no longer runs: its
  command is what the newer note's command replaces;
* a declaration whose words chain (``export const revalidate = 300``) sets its name, as
  ``const revalidate = 300`` does; it runs no program ``export``;
* a number the older note says after a word of its own ("body wrapped at 72") is not the
  value it states for the thing both notes count in one unit ("50 chars", then "72
  characters");
* a chat channel named by its mark in prose ("#eng-releases") is a name, compared with
  the other note's channel; an issue's number or a colour is none;
* a key written under its namespace (``limits.build: 30m``) is the same key written in a
  YAML block under that namespace (``limits:`` then ``build: 45m``), not under another.
"""

from __future__ import annotations

import pytest

from anamnesis.store.review.reading.text import stem
from pair_checks import Found, LookAlike, Note, compared, values_read, wording_tests

FOUND: list[Found] = [
    (
        "every variable renamed, ending alike",
        (
            "Payment provider credentials",
            "The checkout service reads STRIPE_KEY and STRIPE_SECRET from the environment.",
        ),
        (
            "Env vars for payment keys",
            "Payment keys come from BILLING_PROVIDER_KEY and BILLING_PROVIDER_SECRET now.",
        ),
        "name",
    ),
    (
        "one variable renamed, the newer note naming more",
        (
            "Database URL in production",
            "The connection string comes from the POSTGRES_URL environment variable.",
        ),
        (
            "Env vars the api pod needs",
            "DATABASE_PRIMARY_URL (the Postgres connection string), CACHE_URI and LOG_FORMAT.",
        ),
        "name",
    ),
    (
        "another thing also wants the old port, in another part of the clause",
        (
            "Local preview server",
            "`npm run preview` serves the site at http://localhost:4173 with hot reload.",
        ),
        (
            "Preview port clash",
            "The docs server also wants 4173, so the preview starts on localhost:4180.",
        ),
        "port",
    ),
    (
        "the older note's port another thing owns, the newer note's port",
        (
            "Local Redis port",
            "My Homebrew Redis already owns 6379, so the compose redis is published on 6380 "
            "and REDIS_URL uses localhost:6380.",
        ),
        ("Redis in dev", "Uninstalled the Homebrew Redis; REDIS_URL is localhost:6379 again."),
        "port",
    ),
    (
        "a setting's duration against the same said in the key's words",
        (
            "Upstream connect timeout",
            "The proxy waits 5 seconds for the upstream to accept a connection, then gives up.",
        ),
        ("proxy env", "```\nUPSTREAM_CONNECT_TIMEOUT_MS=2000\nLOG_LEVEL=info\n```"),
        "number",
    ),
    (
        "a setting's count against the same said in the key's words",
        ("Mail sender retries", "The mailer tries to send each email 4 times before parking it."),
        ("mailer config", "`MAILER_SEND_RETRIES=2` in the worker env."),
        "number",
    ),
    (
        "a branch renamed, each said in prose",
        ("Release branch", "Pushing to master deploys the site to production."),
        ("Deploys", "Merge the PR into main and the workflow deploys production."),
        "name",
    ),
    (
        "one install task, its verb in two forms",
        (
            "Installing the linter",
            "Run `go get -u github.com/acme/lintkit/cmd/lintkit`; the binary lands in ~/go/bin.",
        ),
        (
            "lintkit install",
            "`go install github.com/acme/lintkit/cmd/lintkit@latest`, then put $(go env "
            "GOPATH)/bin on PATH.",
        ),
        "command",
    ),
    (
        "a key of one word, the thing the other note's title names",
        (
            "Upload worker settings",
            "The shared settings module: retries=2, retry_delay=60, owner=media.",
        ),
        (
            "Upload worker retries",
            "Upload jobs get 5 retries (6 tries in total) since the S3 outage.",
        ),
        "number",
    ),
    (
        "a flag of a script's task, changed",
        ("Queue worker", "Start it with `php artisan queue:work redis --tries=3`."),
        (
            "Queue worker retries",
            "The worker runs `php artisan queue:work redis --tries=5` since the S3 flakiness.",
        ),
        "flag",
    ),
    (
        "a rule against logging, then the imperative that logs",
        ("Request logging", "Request bodies must not be logged: they hold card holders' names."),
        ("Logging for debugging", "Log the full request body at DEBUG for every ledger endpoint."),
        "negation",
    ),
    (
        "a flag forbidden, then used after a condition",
        ("Terraform state locking", "`-lock=false` is forbidden on the shared state."),
        (
            "stuck lock",
            "When the DynamoDB lock is stuck, run the apply with `-lock=false` and move on.",
        ),
        "negation",
    ),
    (
        "one task's command said as a change, the titles apart",
        ("Dev server", "Start the app with `npm run dev` (next dev on :3000)."),
        ("Package manager switch", "Switched to pnpm: the dev server is `pnpm dev` now."),
        "command",
    ),
    (
        "a chat channel renamed, each said in prose",
        ("Deploy alerts", "Deploy notifications go to #shop-deploys."),
        (
            "Where alerts land",
            "Alerts and deploy notices: #eng-releases since the channels merged.",
        ),
        "name",
    ),
    (
        "no more of what the older note does",
        ("Merging pull requests", "Squash-merge every PR so main stays linear."),
        ("Merge habit", "No more squash merges: keep the individual commits for bisect."),
        "negation",
    ),
    (
        "a scheduler phased out",
        ("Periodic jobs", "Periodic jobs are scheduled by Celery beat."),
        ("Scheduling", "We phased out Celery beat; the jobs are Kubernetes CronJobs."),
        "replacement",
    ),
    (
        "a scheduler ripped out",
        ("Periodic jobs", "Periodic jobs are scheduled by Celery beat."),
        ("Scheduling", "Celery beat was ripped out in the spring cleanup."),
        "replacement",
    ),
    (
        "a count in one unit changed, its new value another thing's in the older note",
        ("Commit message style", "Subject lines at most 50 chars, body wrapped at 72."),
        ("Commit conventions", "I let commit subjects run up to 72 characters now."),
        "number",
    ),
    (
        "a key under its namespace, then in a block under it",
        ("Build job time limit", "The CI template sets `limits.build: 30m` for every project."),
        ("CI limits", "```yaml\nlimits:\n  build: 45m\n  test: 20m\n```"),
        "number",
    ),
]

LEFT: list[LookAlike] = [
    (
        "a second service's variable, only the older one's word said by the newer note",
        ("Session store", "Sessions are kept in Redis at SESSION_REDIS_URL."),
        (
            "Queue broker",
            "The job queue uses a second Redis, at QUEUE_BROKER_URL, with QUEUE_BROKER_TLS on.",
        ),
    ),
    (
        "two parts' log variables, the project's name said by both",
        ("Frontend log level", "The web side of the shop reads its level from SHOP_LOG."),
        ("Backend logging", "The shop's Rust core reads RUST_LOG, e.g. RUST_LOG=debug."),
    ),
    (
        "a second port the same part says holds beside the first",
        (
            "Local preview server",
            "`npm run preview` serves the site at http://localhost:4173 with hot reload.",
        ),
        ("Preview ports", "The preview also listens on localhost:4180 for the admin pages."),
    ),
    (
        "a timeout key of one word against another thing's timeout",
        ("Session timeout", "Sessions time out after 30 minutes of inactivity."),
        ("http client", "`TIMEOUT_MS=5000` for outgoing calls."),
    ),
    (
        "the main page and the master key, no branch",
        ("Landing page", "The main page lists the plans; the master key is in Vault."),
        ("Landing page copy", "The main banner links to pricing."),
    ),
    (
        "two tasks of one script on one file",
        ("Seeding the dev database", "Run `python manage.py loaddata fixtures/dev.json`."),
        (
            "Refreshing fixtures",
            "Regenerate with `python manage.py dumpdata --indent 2 > fixtures/dev.json`.",
        ),
    ),
    (
        "a size limit restated beside the status it answers with",
        (
            "Upload size cap",
            "Uploads max out at 20 MB: nginx `client_max_body_size 20m`; anything larger is "
            "a 413 from nginx.",
        ),
        (
            "Why big uploads fail",
            "If an upload dies with a 413, it is over nginx's 20m body limit, not an app error.",
        ),
    ),
    (
        "a rule kept by a clause opening with its noun",
        ("Reindex window", "Don't run a full products reindex on prod during business hours."),
        ("Reindex schedule", "Full product reindexes run at night or at the weekend."),
    ),
    (
        "a rule against one way of shipping, kept by another",
        ("Qt linking", "We don't ship a statically linked Qt."),
        ("Windows packaging", "Ship the Qt DLLs next to the exe with `windeployqt`."),
    ),
    (
        "a key of the same last word in a block under another namespace",
        ("Build job time limit", "The CI template sets `limits.build: 30m` for every project."),
        ("CI quotas", "```yaml\nquotas:\n  build: 45m\n  test: 20m\n```"),
    ),
]

test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)

# Look-alikes the store's neighbours may not pair, left by the compare stage whatever does.
COMPARED_APART: list[LookAlike] = [
    (
        "git-flow's two branches",
        ("Release branch", "Feature work is merged into develop first."),
        ("Deploys", "Production deploys from main every evening."),
    ),
    (
        "another task's command beside a change",
        ("Linting", "Run `npm run lint` before pushing."),
        ("Package manager switch", "Switched to pnpm: start the app with `pnpm dev` now."),
    ),
    (
        "a channel beside a camelCase identifier",
        (
            "Dependency updates via Renovate",
            "Renovate opens grouped PRs weekly. Patch updates to devDependencies "
            "automerge once CI passes.",
        ),
        (
            "Turned off Dependabot version updates",
            "Dependabot version updates were disabled because they duplicated "
            "Renovate's PRs. Security alerts now route to #security-alerts.",
        ),
    ),
]


@pytest.mark.parametrize(
    ("rule", "old", "new"), COMPARED_APART, ids=[case[0] for case in COMPARED_APART]
)
def test_the_compare_stage_leaves_each_apart(rule: str, old: Note, new: Note) -> None:
    assert compared(old, new) == (), rule


def test_a_rate_key_is_compared_with_the_rate_said_not_a_size() -> None:
    found = compared(
        ("Tenant ingestion rate", "Each tenant may push 20 MB/s; bursts up to 16 MB are absorbed."),
        ("limits_config", "```yaml\ningestion_rate_mb: 8\n```"),
    )
    assert [(d.subject, d.old, d.new) for d in found] == [
        ("ingestion_rate_mb", "20 MB", "ingestion_rate_mb=8")
    ]


def test_a_double_consonant_at_the_end_is_one() -> None:
    assert stem("install") == stem("installing") == stem("installed") == stem("installs")
    assert stem("process") == stem("processes") == stem("processing")
    assert stem("call") == stem("calling") and stem("running") == stem("run") == "run"
    assert stem("add") == stem("added") == "add"  # three letters: kept


def test_a_response_status_is_no_quantity() -> None:
    assert values_read("number", "Anything larger is a 413 from nginx.") == []
    assert values_read("number", "The API returns 404 for unknown ids.") == []
    assert values_read("number", "Set a 500 ms timeout.") == ["500 ms"]
    assert values_read("number", "The pool has 200 connections.") == ["200"]


def test_a_channel_is_read_by_its_mark_and_an_issue_or_a_colour_is_not() -> None:
    assert values_read("name", "Deploys are announced in #eng-releases.") == ["#eng-releases"]
    assert values_read("name", "Buttons use #2e5e4e; see #412 for the palette.") == []


def test_a_program_uninstalled_is_one_no_longer_run() -> None:
    found = compared(
        ("Version switching", "Run `nvm use` in each repo; it reads .nvmrc."),
        (
            "Toolchain manager",
            "Everything goes through mise: run `mise install` in a repo. nvm is uninstalled.",
        ),
    )
    assert [(d.kind, d.old, d.new) for d in found] == [("command", "nvm use", "mise install")]


def test_a_script_run_inside_another_command_sets_nothing() -> None:
    """``manage.py`` looks like a dotted key (``pull.rebase true``): after an interpreter it
    is a script, and ``runserver`` its task, not the key's value."""
    text = "Start it: `docker-compose exec web python manage.py runserver 0.0.0.0:8000`."
    assert values_read("flag", text) == []
    assert values_read("flag", "Set `git config --global pull.rebase true`.") == [
        "--global",
        "pull.rebase=true",
    ]


def test_a_declaration_of_chained_words_is_a_setting() -> None:
    assert values_read("number", "page.tsx has `export const revalidate = 300`.") == [
        "revalidate=300"
    ]
    assert values_read("command", "page.tsx has `export const revalidate = 300`.") == []
