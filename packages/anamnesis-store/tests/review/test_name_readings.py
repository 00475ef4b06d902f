"""What makes two notes' names (a queue's, a topic's, a tool's) the older and the newer
name of one thing when their sentences share few words (issue 42's tuning splits showed
each wording), and the look-alikes each rule must leave alone:

* an identifier renamed: each note's only identifier, the last word of one among the
  other's words (what it holds: ``billing.invoices``, ``invoices-billing.v3``), each note
  saying of it the same kind of named thing ("queue", "topic", "table"); two identifiers
  of one service ending in two words (``payments.refunds.raw``, ``payments.refunds.dlq``),
  or a queue and a table, are two things;
* two identifiers each named by its own note's title, by a word the other title and
  the other identifier lack ("Invoices stream" ``invoices.issued``, "Refunds stream"
  ``refunds.settled``), are two things, unless the newer is said as a change;
* an identifier written in prose without code marks is a name: a dotted one holding a
  joined word or of three parts (``web.click_events``), and a joined one said just after
  the kind of thing it names ("the workspace core-staging"); a version
  (``perl-5.36.1``), a call, a host and "e.g." are not;
* a name said just after the word of the thing its note's title names ("logs in as
  account ExportBot", "Service account for the exporter"), then a setting whose key
  ends in that word (``account: EXPORT_SVC``), are that thing's two values; a setting
  of it in a note of another subject (the importer's account) is not;
* an environment variable, then another ending in its word set to a value the older
  note gives (``UPLOAD_BUCKET`` "(media-eu-1 in prod)", ``STORAGE_BUCKET=media-eu-1``), is
  one setting renamed; set to a value the older note never gives, it is another's;
* a setting one note gives a name (``serviceAccountName: release-bot``, ``group.id`` is
  `ingest-main`), and a name the other note says beside every word of the setting's key
  ("the `ci-deployer` ServiceAccount", "a fresh consumer group, `ingest-replay-2`"), are
  that thing's two names, whichever note sets it; a name beside the key's words that is of
  another thing ("queue binding JOBS" against an R2 bucket's ``binding``), or one the
  older note says not to run, is not;
* a line that is a command without code marks (a lower-case program, code's words, a
  long flag, no sentence's mark: "cargo flamegraph --bin renderer --release") is a
  command, and so is a line opening with a package manager running a script ("yarn
  docs, then browse to ..."); a sentence in lower case ("run it with --fast") is not;
* "locally" is said of what is local ("Run the docs site locally", "Local docs
  preview").

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from anamnesis.store.review.reading.text import stem
from pair_checks import Note, names_read, values_read, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "an identifier renamed, the kind of thing said in both notes",
        ("Invoice queue", "The mailer worker drains `billing.invoices` and retries"
         " three times."),
        ("Where invoices are queued", "Invoices go onto the queue"
         " `invoices-billing.v3` (quorum, durable) since the broker move."),
        "name",
    ),
    (
        "a dotted identifier in prose, renamed",
        ("Clickstream output table", "The nightly job writes the Hive table"
         " web.click_events, partitioned by day."),
        ("Moving clicks to Delta", "The job now writes lakehouse.raw_click_events; the old"
         " table stays read-only for two weeks."),
        "name",
    ),
    (
        "a hyphenated identifier in prose after the kind of thing it names",
        ("Staging workspace", "Staging infra lives in the Terraform Cloud workspace"
         " `stg-core`."),
        ("Changing staging infra", "Merge to main and the workspace core-staging plans and"
         " applies it."),
        "name",
    ),
    (
        "a command on a line of its own without code marks",
        ("Profiling the render loop", "cargo flamegraph --bin renderer --release"),
        ("Render loop profiling", "We use `samply record ./target/profiling/renderer`"
         " these days; it opens the Firefox profiler."),
        "command",
    ),
    (
        "a package manager's script opening a line",
        ("Run the docs site locally", "yarn docs, then browse to http://localhost:4000."),
        ("Local docs preview", "`pnpm docs` from the repo root; it serves on localhost:4000"
         " and reloads on save."),
        "command",
    ),
    (
        "a name after its thing's word, then a setting of that thing",
        ("Service account for the exporter", "The nightly exporter logs in as account"
         " ExportBot, which can read every bucket."),
        ("exporter.yaml", "```yaml\nschedule: nightly\naccount: EXPORT_SVC\nregion:"
         " eu-central-1\n```"),
        "name",
    ),
    (
        "an environment variable renamed, set to a value the older note gives",
        ("Which bucket the uploader writes to", "The uploader picks its bucket from"
         " UPLOAD_BUCKET (media-eu-1 in prod, media-dev locally)."),
        ("Uploader service unit", "The unit file sets STORAGE_BUCKET=media-eu-1 and"
         " RUST_LOG=info."),
        "name",
    ),
    (
        "a name beside its setting's words, then the setting in config",
        ("Deploy job's service account", "Deploys run as the `ci-deployer` ServiceAccount,"
         " which can patch Deployments."),
        ("deploy-job.yaml", "```yaml\nspec:\n  serviceAccountName: release-bot\n```\n"
         "release-bot also holds the image pull secret."),
        "name",
    ),
    (
        "a setting in prose, then a name beside its key's word",
        ("Ingest consumer group", "group.id is `ingest-main`; offsets commit after each"
         " batch."),
        ("Replaying the ingest topic", "We moved the ingester onto a fresh consumer group,"
         " `ingest-replay-2`, and that is the one dashboards watch now."),
        "name",
    ),
]  # fmt: skip

# (rule, older, newer)
LEFT: list[tuple[str, Note, Note]] = [
    (
        "two identifiers of one service ending in two words",
        ("Raw refunds topic", "Refunds are published to `payments.refunds.raw`."),
        ("Dead letter topic", "Messages the ledger cannot book go to"
         " `payments.refunds.dlq`, which keeps them 5 days."),
    ),
    (
        "two identifiers sharing their last word, of two kinds of thing",
        ("Refund queue", "The ledger consumes `ledger.refunds` from RabbitMQ."),
        ("Refund reporting table", "The nightly export reads `warehouse.refunds`"
         " for the finance dashboard."),
    ),
    (
        "two identifiers each named by its own note's title",
        ("Invoices stream", "The mailer reads `invoices.issued` from Kafka."),
        ("Refunds stream for the billing service", "A second consumer in billing-svc reads"
         " `refunds.settled` and closes invoices; it has its own group id."),
    ),
    (
        "a name after its thing's word, then that thing's setting in a note of another"
        " subject",
        ("Service account for the exporter", "The nightly exporter logs in as account"
         " ExportBot, which can read every bucket."),
        ("Importer config", "```yaml\nschedule: hourly\naccount: IMPORT_SVC\n```"),
    ),
    (
        "another environment variable ending in the same word, set to a value the older"
        " note never gives",
        ("Which bucket the uploader writes to", "The uploader picks its bucket from"
         " UPLOAD_BUCKET (media-eu-1 in prod, media-dev locally)."),
        ("Thumbnailer service unit", "The unit file sets THUMBS_BUCKET=thumbs-eu-1 and"
         " RUST_LOG=info."),
    ),
    (
        "a name beside a setting's word, of another thing than the setting",
        ("Queue binding", "Jobs: queue binding JOBS."),
        ("Blob bucket binding", "Exports go to R2: `[[r2_buckets]] binding = \"EXPORTS\"`,"
         " bucket_name = \"acme-exports\"."),
    ),
    (
        "a name listed beside a setting's key, as another field than the setting",
        ("Finding failed payments in the logs", "In Grafana Explore run"
         " `{app=\"payments\"} | json | level=\"error\"` and narrow the time range first."),
        ("Payment log fields", "Every JSON log line of the payments app carries `ts`,"
         " `level`, `msg` and `trace_id`; Grafana shows them as fields."),
    ),
    (
        "a name the older note says not to run, beside the newer note's setting",
        ("No warm-up per deploy", "We don't run WARM_CACHE in POST_DEPLOY."),
        ("POST_DEPLOY hook", "```\n[deploy_hook POST_DEPLOY]\nsteps:\n    MIGRATE\n"
         "    RESTART_WORKERS\n```\n(no warm-up here: the cache fills on first use)"),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def test_an_identifier_in_prose_is_a_name_a_version_call_or_host_is_not() -> None:
    assert names_read("Rows land in web.click_events and pg.public.refunds.") == [
        "web.click_events",
        "pg.public.refunds",
    ]
    assert names_read("Consumers read the queue billing-invoices.v3 today.") == [
        "billing-invoices.v3"
    ]
    assert names_read("Hosts run perl-5.36.1 and graphql-engine v2.44.0.") == []
    assert names_read("Keep a cache, e.g. the one in app.config, and call vim.uv there.") == []
    assert names_read("It calls vim.loop.new_fs_event() once, then api.acme.io answers.") == []
    assert names_read("The read-only replica is well-known.") == []


def test_a_line_that_is_a_command_is_read_as_one() -> None:
    assert values_read("command", "Profile it.\n- cargo flamegraph --bin renderer --release") == [
        "cargo flamegraph --bin renderer --release"
    ]
    assert values_read("command", "See the docs.\n- run it with --fast") == []
    assert values_read("command", "Commit, then\npass --no-verify, and push.") == []
    assert values_read("command", "Run the tests with --fast.") == []
    assert values_read("command", "yarn docs, then browse to the site.") == ["yarn docs"]
    assert values_read("command", "Intro.\n- npm run test:e2e - needs Chrome") == [
        "npm run test:e2e"
    ]
    assert values_read("command", "yarn is what we use; yarn install to get deps.") == []


def test_said_locally_is_said_of_what_is_local() -> None:
    assert stem("locally") == stem("local")
    assert stem("globally") == stem("global")
