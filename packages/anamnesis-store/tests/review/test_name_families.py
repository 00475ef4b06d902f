"""Families of names, paths and commands two notes give for one thing in two wordings
(issue 42's tuning splits showed each family in two or more splits), and the look-alikes
each rule must leave alone:

* a file said to sit at a root ("`lint.toml` at the repo root", "sdkconfig in the
  project root") is the root's file, whatever its extension: a path to a file of its
  name in a folder is the file moved, while a bare mention of the name (no root said)
  may be any file of that name; and a bare name the note also gives with its folder
  ("kiosk.ini" in the title, ``/etc/kiosk/kiosk.ini`` in the body) is that file said
  short, stating no other folder's file of that name;
* two environment variables are one setting's two spellings when the words the prose
  says just before one, naming what it holds, are spelled in the other ("the cache
  server address comes from ``CACHE_ADDR``", then ``VALKEY_SERVER_ADDR``), as when the
  two share two words; a variable whose last word names no role (``MAP_TILES_BASE``)
  conflicts with no role, while two roles (an address, a secret) are two settings;
* one program's subcommand said in two orders (``acme get token``, then ``acme token
  get`` as its next version writes it) is one task, whatever the titles say; two
  subcommands sharing a word (``get token``, ``token list``) are still two tasks;
* one command run on the same thing, told to do it elsewhere by one other word
  (``tsx seed.ts small --reset``, then ``tsx seed.ts full --reset``), differs; run on
  another thing (another script) it is another task;
* a plural noun in -ations stems as its verb, as the singular does ("Migrations in
  staging", "Migrating the ledger"): two titles naming one task share its word;
* a name the older note gives a kind of thing a project names (a queue, a stream, a
  topic) and the newer note's setting whose key names that kind (``--queues``,
  ``STREAM = ...``) are one thing's two values: the name said just after the kind's
  word, or the older note's only identifier when its title names the kind; a name
  joined by colons (``sessions:live``) is read as one; and the notes share a word
  anywhere in the older one (a key said in a code block has no words around it). A
  kind that no project names by an identifier (a URL) pairs no identifier so; a key
  in camelCase names its thing by its last word (``gitflow.releaseBranch``: a branch),
  and the word the notes share may be anywhere in either;
* an identifier renamed (``invoices-billing``, then ``billing-invoices-v2``, in notes
  that both speak of a queue) is one thing's name, whatever proper names each note
  says beside it (HCP Terraform, the AWS console);
* a name that is a plain lower-case word (the remote `mirror`) is still named by the
  newer note only in its code: "the remote of my mirror" in prose uses the word, it
  names no remote;
* two folders (or files of a type a project holds few of) that pass through the same
  folders (``src/main/resources/db/...``) are where one thing lives, in notes whose
  titles share a word, each folder they share counting half a shared word, and a
  folder's own name said around the other path counting one (``db/upgrades/``, then
  ``schema/steps/`` "read by `dbtool upgrade`"); two source files in one folder are two
  files (a folder holds many);
* a shell command continued over lines (a line ending in ``\\``) is one command, its
  flags all its own;
* a thing said not to work at all ("legacy labextensions don't install in JupyterLab
  4", "X no longer parses") is retired, and a word that only says how old it is
  ("legacy", "classic") is none of its words: the older note named it without;
* a setting whose value is a path (``KILN_DUMP_FILE=data/kiln.bin``) or
  a storage address (``registry: s3://...``) is read whole, as a path keyed by its
  setting, and compared with the other note's paths; a key naming a pattern
  (``path_regex``) holds no path; a setting whose value sets an environment variable
  (systemd's ``Environment=KEY=value``) is that variable's setting; a list of one
  path (``seed-paths: ["data/seeds"]``) is that path; and a folder said at the root
  (```seeds/` at the repo root``) is the root's, as a file is.

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from anamnesis.store.review.reading.text import clauses, stem
from anamnesis.store.review.reading.values import clause_values
from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a file in code said to sit at the repo root, then in a folder",
        ("Lint rules", "`lint.toml` sits at the repo root; every package inherits it."),
        (
            "Where the lint config went",
            "The shared rules are in tools/lint/lint.toml and each package points at it.",
        ),
        "path",
    ),
    (
        "a file in prose with an extension no reader knows, at the project root",
        (
            "Firmware build options",
            "Menuconfig writes its choices to sdkconfig.defaults in the project root.",
        ),
        (
            "ESP-IDF options per board",
            "The options for the sensor board are in"
            " boards/sensor/sdkconfig.defaults; menuconfig edits that one.",
        ),
        "path",
    ),
    (
        "a file named short in the title and in full in the body, then in another folder",
        (
            "Screen settings in kiosk.ini",
            "Brightness and rotation live in"
            " `/etc/kiosk/kiosk.ini`:\n```\nbrightness=80\nrotate=90\n```",
        ),
        (
            "Where the kiosk config is",
            "On the new image edit `/etc/kiosk/conf.d/kiosk.ini`;"
            " the file at the old place is a stub that points there.",
        ),
        "path",
    ),
    (
        "one task's two commands, titled by the task's verb and its plural noun",
        (
            "Migrating the ledger database",
            "`cargo run --bin ledger migrate` against the ledger db after each pull.",
        ),
        (
            "Running migrations",
            "`docker compose run --rm migrate`: the compose service"
            " builds the image and runs them against the db container.",
        ),
        "command",
    ),
    (
        "one program's subcommand in two orders",
        (
            "Reading a secret from the vault",
            "`acme get item payments-key --field value` prints it; log in first with `acme login`.",
        ),
        (
            "Fetching one field",
            "`acme item get payments-key --field value --plain` (v3)."
            " No separate login step with the desktop app.",
        ),
        "command",
    ),
    (
        "one command on the same script, one argument changed",
        ("Seeding the demo database", "`npx tsx seed.ts small --reset` fills it in a minute."),
        (
            "Demo database seed",
            "`npx tsx seed.ts full --reset`: the small set missed the billing screens.",
        ),
        "command",
    ),
    (
        "the only identifier of a note titled for a queue, then a flag naming the queue",
        (
            "Thumbnail worker queue",
            "The thumbnail worker consumes `thumbs-high`; the uploader must publish there.",
        ),
        (
            "Running the thumbnail worker",
            "`celery -A media worker --queues thumbnails-v2 --concurrency 4` on each media box.",
        ),
        "name",
    ),
    (
        "a stream's name joined by colons, then the stream's constant in a code block",
        (
            "Session stream names",
            "Sessions are written to the stream"
            " `sessions:live`; the reaper reads them as group `reapers`.",
        ),
        ("reaper.py settings", '```python\nSTREAM = "live-sessions"\nGROUP = "reapers"\n```'),
        "name",
    ),
    (
        "a branch named in prose, then a camelCase key naming the branch in a command",
        ("Release branch for hotfixes", "Hotfixes are cut from `stable` as the release branch."),
        (
            "gitflow branch config",
            "`git config gitflow.releaseBranch prod` is set in every clone."
            " Hotfixes are cut from prod by the release manager.",
        ),
        "name",
    ),
    (
        "an identifier renamed, each note naming other products beside it",
        (
            "Billing events queue",
            "Invoices are published by the Rails app on the SQS queue `invoices-billing`.",
        ),
        (
            "Re-driving a failed invoice",
            "Failed invoices sit in the DLQ; redrive them into"
            " the queue billing-invoices-v2 from the AWS console and Lambda picks them up.",
        ),
        "name",
    ),
    (
        "a remote named by a plain word, the newer note saying the word only in prose",
        (
            "My mirror remote",
            "In every clone the upstream remote is `origin` and my mirror is `mirror`.",
        ),
        (
            "Pushing a branch to my mirror",
            "`git push -u backup my-branch`: I call the"
            " remote of my mirror `backup` and keep `origin` for upstream.",
        ),
        "name",
    ),
    (
        "one layout's folders, where changelogs live, then where a new one goes",
        (
            "Changelog location",
            "Changelogs are in config/liquibase/db/changelog (the tool's"
            " default), one per release.",
        ),
        (
            "Adding a changelog for billing",
            "Put the new file under config/liquibase/db/billing-changes and run the tests.",
        ),
        "path",
    ),
    (
        "a folder named for what it holds, then another folder said beside that word",
        (
            "Where upgrade scripts live",
            "Numbered SQL scripts are kept in `db/upgrades/` (001_init.sql, ...).",
        ),
        (
            "How dbtool upgrade finds its scripts",
            "`dbtool upgrade` reads every `*.sql` under `schema/steps/` in name order.",
        ),
        "path",
    ),
    (
        "a command continued over lines, then given without one of its flags",
        (
            "Submitting the nightly pipeline",
            "```sh\nnextflow run main.nf \\\n  -profile slurm \\\n  -resume\n```",
        ),
        (
            "Nightly pipeline, the current way",
            "`nextflow run main.nf -profile slurm -with-tower` from the login node.",
        ),
        "flag",
    ),
    (
        "a file said in prose, then a setting whose value is a path",
        (
            "Where the local dump file lives",
            "The daemon writes `.cache/dump.bin` by default"
            " (KILN_DUMP_FILE unset). Delete it to start clean.",
        ),
        (
            "kiln dump file",
            ".env: `KILN_DUMP_FILE=data/kiln.bin` - out of .cache so a clean doesn't remove it.",
        ),
        "path",
    ),
    (
        "one setting's value a local file, then a bucket's object",
        ("Model registry location", "`registry: models/registry.db` in serve.yaml, a local file."),
        (
            "serve.yaml registry",
            "```yaml\nregistry: s3://acme-models/registry.db\nprovider: aws\n```",
        ),
        "path",
    ),
    (
        "a variable set in prose, then through a unit file's Environment= line",
        (
            "borg passphrase file",
            "BORG_PASSCOMMAND_FILE=~/.config/borg/passphrase (mode"
            " 600), read by the timer's service.",
        ),
        (
            "borg-backup.service",
            "```ini\n[Service]\nType=oneshot\nEnvironment="
            "BORG_PASSCOMMAND_FILE=/etc/borg/passphrase\nExecStart=/usr/local/bin/borg-run\n```",
        ),
        "path",
    ),
    (
        "a folder at the repo root, then a setting listing one folder of its name",
        ("Where fixtures live", "Fixture JSON files are in `fixtures/` at the repo root."),
        (
            "project.yml settings",
            '```yaml\nfixture-dirs: ["tests/data/fixtures"]\n'
            'marker-dirs: ["markers"]\n```\nThe loader reads every fixture JSON file from'
            " there.",
        ),
        "path",
    ),
    (
        "an environment variable said after the words the other one spells",
        (
            "Cache connection",
            "The cache server address comes from `CACHE_ADDR`, mapped in settings.py.",
        ),
        (
            "Cache env vars in the chart",
            "The Deployment sets VALKEY_SERVER_ADDR directly plus"
            " VALKEY_PASSWORD; nothing else is needed for the cache.",
        ),
        "name",
    ),
    (
        "two spellings of one setting, one with no role word",
        ("Map tiles config", "The app fetches tiles from the server in `MAP_TILES_URL`."),
        (
            "Env for the map app",
            "Required: `MAP_TILES_BASE`, `SENTRY_DSN`, `APP_PORT`. Nothing else is read from env.",
        ),
        "name",
    ),
]

# (rule, older, newer)
LEFT: list[tuple[str, Note, Note]] = [
    (
        "a bare file name, said at no root, and a path to a file of that name",
        ("Lint rules", "Every package inherits the rules in `lint.toml`."),
        (
            "Where the lint config is",
            "The shared rules are in tools/lint/lint.toml and each package points at it.",
        ),
    ),
    (
        "one file at the root said in both notes",
        ("Lint rules", "`lint.toml` sits at the repo root; every package inherits it."),
        (
            "Lint config",
            "Rules stay in lint.toml at the repository root; add a package override next to it.",
        ),
    ),
    (
        "a note titled for a URL, its only identifier, and a setting naming a URL",
        ("Site URL", "Canonical links are built from `hazel-blog` in the config."),
        ("Preview deploys", "Previews set SITE_URL=preview-site so the links stay on the preview."),
    ),
    (
        "two source files in one folder, in notes titled for one subject",
        (
            "Invoice handler",
            "Creating an invoice is handled in config/liquibase/db/create_invoice.py.",
        ),
        (
            "Invoice handler for refunds",
            "Refunds go through config/liquibase/db/refund_invoice.py and its tests.",
        ),
    ),
    (
        "a thing said not to run at some time: a scope, no retirement",
        ("Invoice worker schedule", "The invoice worker processes the queue every night at 02:00."),
        (
            "Invoice worker on holidays",
            "The invoice worker doesn't run on public holidays;"
            " the queue waits for the next night.",
        ),
    ),
    (
        "a key naming a pattern of paths, beside the file it is written in",
        (
            "What the encryptor covers",
            "`encrypted_regex: ^(data)$` in .sops.yaml, so the metadata stays readable.",
        ),
        (
            "Encryptor rules for manifests",
            "```yaml\ncreation_rules:\n  - path_regex:"
            " k8s/.*\\.yaml$\n    encrypted_regex: ^(data)$\n```",
        ),
    ),
    (
        "a remote named by a plain word, the newer note still pushing to it in code",
        (
            "My mirror remote",
            "In every clone the upstream remote is `origin` and my mirror is `mirror`.",
        ),
        (
            "Pushing a branch to my mirror",
            "`git push -u mirror my-branch`; `backup` is another remote I add for the NAS.",
        ),
    ),
    (
        "one program's two subcommands sharing a word, not the same words reordered",
        (
            "Reading a secret from the vault",
            "`acme get item payments-key --field value` prints it.",
        ),
        (
            "Auditing who holds access",
            "`acme item list payments-key --field owner` shows who holds one.",
        ),
    ),
    (
        "one program running two scripts with one argument each",
        ("Seeding the demo database", "`npx tsx seed.ts small --reset` fills it in a minute."),
        (
            "Demo database checks",
            "`npx tsx check.ts small --reset` verifies the counts after seeding.",
        ),
    ),
    (
        "two environment variables of one service, each of its own role",
        ("Map tiles config", "The app fetches tiles from the server in `MAP_TILES_URL`."),
        (
            "Env for the map app",
            "Required: `MAP_TILES_TOKEN`, `SENTRY_DSN`, `APP_PORT`. Nothing else is read from env.",
        ),
    ),
    (
        "an environment variable said after one word the other spells",
        ("Search connection", "The search cluster address comes from `SEARCH_ADDR`."),
        (
            "Search env vars in the chart",
            "The Deployment sets SEARCH_INDEX directly; nothing else is needed for search.",
        ),
    ),
]


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def test_a_file_at_a_root_is_read_as_the_roots_file() -> None:
    """ "`memory.x` sits at the repo root" and "refs.bib in the crate root" name paths at
    the root, whatever their extension; a bare name said at no root stays as written."""
    said = (
        "`memory.x` sits at the repo root and refs.bib is in the crate root; see notes.txt;"
        " `seeds/` lives at the project root."
    )
    paths = {
        value.shown: value.norm
        for clause in clauses("Files", said)
        for value in clause_values(clause, ports=False)
        if value.kind == "path"
    }
    assert paths == {
        "memory.x": "./memory.x",
        "refs.bib": "./refs.bib",
        "notes.txt": "notes.txt",
        "seeds/": "./seeds",
    }


def test_a_plural_in_ations_stems_as_its_verb() -> None:
    """ "Migrations", "migration" and "migrating" meet; "stations" is too short to be one."""
    assert stem("migrations") == stem("migration") == stem("migrating") == stem("migrated")
    assert stem("notifications") == stem("notification")
    assert stem("stations") == "station"
