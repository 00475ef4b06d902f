"""Look-alikes the contradiction finder must leave alone, by family (issue 42's tuning
splits showed each family in two or more splits), each beside a pair of the same shape
that does contradict and is still found:

* a floor beside a ceiling, one of them said through a negation or a refusal before
  its bound: what "doesn't start a batch with fewer than 8 jobs" or "refuses a cooldown
  under 7 days" allows is a floor, what "rejects uploads above 50 MB" allows a ceiling
  (two floors that differ still differ);
* two files that each hold the value the notes agree on (the manifest allows PHP
  ">=8.1", the version file pins 8.3.4; a worker config and ``database.yml`` both size
  the pool 5): where one fact is written, both hold, unless the newer note says the
  value moved;
* one thing for two places or cases, titled alike but for the place ("Tests on a
  laptop", "Tests on the build farm"), neither place said in the other note's prose:
  each note's values, flags and what it says not to use are its place's;
* a setting's key is no name, also when its number reads as a version of it
  (``targetCPUPercent 65``): the floor's key is no rival of another setting's key;
* a period said after "every" beside a delay said after "after" ("a reminder every 12
  hours", "links expire after 48 hours"): how often is no rival of how long until; two
  periods, or two delays, that differ still differ;
* a value given as an exception, the older one still holding: under a condition that
  is a setting the older note never names ("With LAB_MODE = 1 ... a sensor on the bench
  polls every 20 s"), or beside what the rest keep ("the rest use the default batch");
* two of the things a project keeps side by side, each with its settings, told apart by
  the word before them in the title or the value's clause ("main branch", "LTS branch";
  "search cluster", "reporting cluster"), neither word said in the other note;
* a layer over what the older note's title names ("goes on top of the global rules",
  "adds 4 processes on top of the worker pool"): the older value holds beneath it; a
  noun ("local overrides in .env") says nothing of it;
* a percentage is a number, never a version ("above 0.5%"): a threshold said above it
  beside a ceiling said "at most" both hold, as numbers' bounds do;
* a day or a month, capitalised, is no name ("ran it on db2 on Friday" names no rival
  of the product the other note names);
* a multiplier ("5x the wall time") is a ratio: no count of a setting's key
  (``maxSteps 800``) unless the key names a factor (``upscale_factor``);
* two identifiers titling one kind of thing ("nightly_export schedule",
  "report_rollup schedule") are two things, though the newer note names the older one
  ("after nightly_export has finished");
* a value's clause that a parenthesis cut from its subject ("the storefront (cart,
  checkout, search) | is at http://127.0.0.1:4000") is said of that subject: a
  storefront's address and the docs' address are two things' addresses.

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from pair_checks import Note, names_read, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "two floors that differ, one said through a refusal",
        ("Withdrawal cooldown", "Withdrawals wait a cooldown of at least 3 days."),
        ("Withdrawal cooldown change", "The vault refuses a withdrawal cooldown under 7"
         " days now."),
        "number",
    ),
    (
        "two ceilings that differ, one said through a refusal",
        ("Upload limit", "The gateway rejects uploads above 50 MB."),
        ("Largest upload allowed", "Uploads are capped at 200 MB since the video"
         " feature."),
        "number",
    ),
    (
        "a value moved to another file, said as a change",
        ("Where the pool is set", "config/puma.rb sets the pool to 5."),
        ("Pool setting", "The pool is set in config/database.yml now, still 5."),
        "path",
    ),
    (
        "a flag for one place, where the newer note says the older place too",
        ("Tests on a laptop", "`pytest -n 4` runs the whole suite in about three minutes."),
        ("Tests on the build farm", "`pytest -n 32 --dist loadfile` spreads the suite over"
         " the farm's cores, and laptops use -n 8 now."),
        "flag",
    ),
    (
        "one setting's number read as a version, that differs",
        ("Worker CPU target", "The worker autoscaler aims at targetCPUPercent 50."),
        ("Worker autoscaler ceiling", "scaling.maxPods is 12 for the worker,"
         " targetCPUPercent 65."),
        "version",
    ),
    (
        "two delays said after \"after\" that differ",
        ("Password reset links", "Reset links expire after 48 hours."),
        ("Reset link lifetime", "Reset links now expire after 24 hours, per the security"
         " review."),
        "number",
    ),
    (
        "two periods said after \"every\" that differ",
        ("Cache refresh", "The cache refreshes every 60 s."),
        ("Cache refresh after the incident", "Since the outage the cache refreshes every"
         " 300 s."),
        "number",
    ),
    (
        "one exception said for everyone else too",
        ("Uploader batch size", "The uploader sends 500 rows per request."),
        ("Uploader batch size for Corvex", "The uploader sends 50 rows per request to"
         " Corvex, and to everyone else now."),
        "number",
    ),
    (
        "a value under a condition that is no setting",
        ("Sensor poll interval", "Deployed sensors poll every 15 minutes."),
        ("Sensor polling", "When the battery is low, a sensor polls every 60 minutes."),
        "number",
    ),
    (
        "one branch's version, changed",
        ("Python in the library's CI", "main branch CI: Python 3.12."),
        ("CI after the runner upgrade", "The main branch CI runs Python 3.13 now."),
        "version",
    ),
    (
        "a changed value, the note speaking of overrides as things",
        ("Worker pool size", "The worker pool runs 8 processes."),
        ("Worker pool after the upgrade", "The worker pool runs 12 processes now; local"
         " overrides in .env still work."),
        "number",
    ),
    (
        "two thresholds in percent that differ",
        ("Checkout error alert", "Notify the team when the checkout error rate goes above"
         " 0.5%."),
        ("Checkout alert after the noise review", "Notify the team when the checkout error"
         " rate goes above 1.5% now."),
        "number",
    ),
    (
        "a factor's key and a multiplier",
        ("Thumbnail upscaling", "The thumbnailer upscales images with upscale_factor 2."),
        ("Thumbnail upscaling after the retina fix", "The thumbnailer upscales images 3x"
         " now."),
        "number",
    ),
    (
        "one job's schedule, changed",
        ("nightly_export schedule", 'nightly_export runs daily at 01:00 UTC (`cron="0 1 *'
         ' * *"`).'),
        ("nightly_export after the move", "nightly_export runs daily at 02:30 UTC"
         ' (`cron="30 2 * * *"`) since the warehouse moved.'),
        "flag",
    ),
    (
        "one thing's address, its subject cut off by a parenthesis",
        ("Local storefront", "After `make dev` the storefront (cart, checkout, search) is"
         " at http://127.0.0.1:4000."),
        ("Local storefront port", "After `make dev` the storefront (cart, checkout,"
         " search) is at http://127.0.0.1:4100 now."),
        "url",
    ),
]  # fmt: skip

# (rule, older, newer)
LEFT: list[tuple[str, Note, Note]] = [
    (
        "a floor beside a ceiling said through a refusal",
        ("Withdrawal cooldown", "Withdrawals wait a cooldown of at least 3 days."),
        ("Longest cooldown", "setCooldown() reverts when a withdrawal cooldown is above 60"
         " days."),
    ),
    (
        "a ceiling beside a floor said through a negation",
        ("Batch size", "A batch holds at most 200 jobs."),
        ("Small batches", "The scheduler doesn't start a batch with fewer than 8 jobs"
         " unless a deadline is near."),
    ),
    (
        "a version range in the manifest, the version pinned in a version file",
        ("PHP versions supported", 'composer.json require: "php": ">=8.1".'),
        ("PHP for local work", "Everyone develops on PHP 8.3.4 from .php-version (the"
         " Symfony CLI reads it)."),
    ),
    (
        "a version range in the manifest, the version CI's action is given beside it",
        ("PHP versions supported", 'composer.json require: "php": ">=8.1".'),
        ("PHP in CI", "CI runs PHP 8.3 (shivammathur/setup-php with php-version 8.3)."),
    ),
    (
        "two files that size one pool alike",
        ("Puma threads and the pool", "config/puma.rb runs 5 threads and the pool is 5,"
         " one connection per thread."),
        ("Web threads against DB pool", "Each Puma worker has 5 threads; database.yml's"
         " pool of 5 matches them."),
    ),
    (
        "a flag of one command for two places",
        ("Tests on a laptop", "`pytest -n 4` runs the whole suite in about three minutes."),
        ("Tests on the build farm", "`pytest -n 32 --dist loadfile` spreads the suite over"
         " the farm's cores."),
    ),
    (
        "what one place's command uses, the other place's note says it goes without",
        ("Rendering on the farm", "`render --scheduler slurm -j 50` queues up to 50 frames"
         " at once."),
        ("Rendering on a workstation", "For a quick look: `render --threads 8` (no"
         " scheduler, every frame local)."),
    ),
    (
        "a floor's key named in prose, beside another setting's key and number",
        ("Worker autoscaler floor", "The worker autoscaler never goes below 3 pods"
         " (scaling.minPods)."),
        ("Worker autoscaler ceiling", "scaling.maxPods is 12 for the worker,"
         " targetCPUPercent 65."),
    ),
    (
        "a delay beside a period",
        ("Password reset links", "Reset links expire after 48 hours."),
        ("Reset reminders", "If the user hasn't reset yet, a reminder about the link goes"
         " out every 12 hours."),
    ),
    (
        "a value under a setting the older note never names",
        ("Sensor poll interval", "Deployed sensors poll every 15 minutes."),
        ("Lab setup", "With LAB_MODE = 1 in settings.ini a sensor on the bench polls every"
         " 20 s, so you can watch the dashboard move."),
    ),
    (
        "an exception beside what the rest keep",
        ("Uploader batch size", "The uploader sends 500 rows per request."),
        ("Uploader batch size for Corvex", "The uploader sends 50 rows per request to"
         " Corvex; the rest use the default batch."),
    ),
    (
        "two branches' versions",
        ("Python in the library's CI", "main branch CI: Python 3.12 and 3.13."),
        ("The 2.x LTS branch", "release-2.x still gets security fixes; its CI runs Python"
         " 3.9."),
    ),
    (
        "two clusters' shard counts",
        ("Primary shards", "The search cluster keeps 6 primary shards per index."),
        ("Reporting store", "The reporting cluster keeps 2 primary shards per index; its"
         " data is small."),
    ),
    (
        "a project's config file on top of the global one",
        ("Global lint rules", "ruff reads the shared rules from ~/.config/ruff/ruff.toml."),
        ("Repository lint rules", "Each repository's pyproject.toml [tool.ruff] section"
         " goes on top of the global rules and wins on conflicts."),
    ),
    (
        "a burst on top of the pool, and the total at peak",
        ("Worker pool size", "The worker pool runs 8 processes."),
        ("Burst workers", "The autoscaler adds up to 4 processes on top of the worker"
         " pool, so 12 processes at peak."),
    ),
    (
        "an alert's threshold in percent beside a budget's ceiling",
        ("Checkout error alert", "Notify the team when the checkout error rate goes above"
         " 0.5%."),
        ("Checkout error budget", "The SLO allows a checkout error rate of at most 2.0%"
         " over 30 days."),
    ),
    (
        "a step count's key and how many times longer a run takes",
        ("First full run of the solver", "Ran the solver to maxSteps 800 on the coarse"
         " grid; residuals flat after ~600."),
        ("Solver settings that converge", "The coarse grid converges before 800"
         " iterations; the fine grid needs the same maxSteps but takes 5x the wall time."),
    ),
    (
        "two jobs' schedules, the newer job run after the older",
        ("nightly_export schedule", 'nightly_export runs daily at 01:00 UTC (`cron="0 1 *'
         ' * *"`).'),
        ("report_rollup schedule", 'report_rollup runs daily at 03:15 UTC (`cron="15 3 *'
         ' * *"`), after nightly_export has finished.'),
    ),
    (
        "two things' addresses, one subject cut off by a parenthesis",
        ("Local storefront", "After `make dev` the storefront (cart, checkout, search) is"
         " at http://127.0.0.1:4000."),
        ("Docs and mail catcher locally", "Docs: http://127.0.0.1:4010. Mailpit (the fake"
         " inbox) on 8025."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def test_a_day_or_a_month_is_no_name() -> None:
    assert names_read("Someone ran `yum update` on db2 on Friday and it broke.") == []
    assert names_read("The orders service moved off Rocky in March.") == ["Rocky"]
