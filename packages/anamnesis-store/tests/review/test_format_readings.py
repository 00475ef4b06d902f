"""Values written in formats the readers had not taken (issue 42's read splits showed
each, where a contradiction had no two values of one kind to compare), and the
look-alikes each reading must leave alone:

* a broker's, a directory's or a socket's address (``mqtt://``, ``ldaps://``, ``tcp://``)
  is a URL, and its explicit port a port, as a web address's is;
* a flag given in code with its value and without its program (`-r cubic`,
  `--compression zstd,6`) is that flag's value, as it is inside the whole command;
* a length of time written as a clock writes it (``"00:02:00"``) is that many seconds,
  unless its key names a moment (``at``, ``start_time``): a time of day;
* R's assignment (``B <- 200``) sets its name as ``=`` does, and a one-letter name
  set to a number ("B = 2000 resamples") is a key;
* a whole number under a key naming a tool's version (``javaVersion=21``) is that
  tool's version, as "Java 21" is;
* a schedule as cron writes it (`0 6 * * *`) is a value, compared as written;
* a storage address (``s3://acme-backups/db/``) is also a path, the place files are
  kept, as a local folder is; two of them differ on one line, as URLs;
* a file pinning a tool's version "bumped to" one states that version;
* a YAML key that says nothing alone (``all``, ``default``) is keyed by the mappings
  above it (``expose_stack_traces.all``); a bind address with its port is one value
  (``listen: 0.0.0.0:7100``); a dotted key in parentheses after a number keys it
  ("(limits.max_payload_kb)"); a language's version written onto its name
  (``python3.10``) is its version;
* a dependency's version as a manifest declares it: each field of a JSON line of
  several (``{"vue": "^3.3.4", ...}``; an engine's floor, ``"node": ">=18"``, is not
  read so), go.mod's ``require`` (the module by its last part), a Gemfile's ``gem``;
  "bumped chi to v5.1.0" names chi; an endpoint of one part (`/ready`) is a path;
  Terraform's ``backend "s3"`` block is its backend setting;
* a list of ``- name: KEY`` / ``value: V`` items is a list of settings; an INI file
  fenced with no language is read as one (``[merge]`` then ``ff = false``);
* a developer tool named in lower case in prose ("hashed with bcrypt", "runs flake8") is
  a name, as a capitalised one is; not a word that is also plain English ("black");
* a line opening with ``sudo`` is a command, to its clause's end or a dash set off by
  spaces ("sudo /etc/init.d/mailer restart - the init script waits").

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from anamnesis.store import MemoryStore
from pair_checks import Note, kinds_norms_slots, values_read, wording_tests, write

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a broker's address with its port, and the port said alone",
        (
            "MQTT broker for the sensors",
            "Sensors publish to `mqtts://hub.farm.lan:8883` with client certificates.",
        ),
        (
            "Sensor firmware MQTT settings",
            "- broker: hub.farm.lan\n- port: 1883, plain TCP on the farm VLAN\n- QoS 0",
        ),
        "port",
    ),
    (
        "a flag given alone with its value, and inside its whole command",
        (
            "Thumbnail resizing",
            "Thumbnails are made with `convert in.png -resize 320x -filter Lanczos out.png`.",
        ),
        (
            "Thumbnail filter",
            "Thumbnails resize with the Mitchell filter now (`-filter Mitchell`); Lanczos"
            " ringed on logos.",
        ),
        "flag",
    ),
    (
        "a length of time as a clock writes it, and in minutes",
        ("Runner job timeout", 'runner.yml: `job_timeout: "00:30:00"` for every job.'),
        (
            "Runner settings",
            "runner.yml has `job_timeout: 45m` so the slow integration suite fits.",
        ),
        "number",
    ),
    (
        "a one-letter name set in prose, and assigned as R assigns",
        ("Power analysis sample size", "The power analysis in power.R assumes n = 120 per arm."),
        (
            "Sample size after the pilot",
            "power.R now has `n <- 80` per arm; the pilot's effect was larger.",
        ),
        "number",
    ),
    (
        "a local folder, then a bucket, for one place",
        ("Backups location", "Nightly backups are written to /mnt/backup/db."),
        ("Backup target", "Backups go to s3://acme-backups/db/ now; the NAS mount is gone."),
        "path",
    ),
    (
        "a password hash named in lower case",
        ("Password hashing", "Passwords are hashed with bcrypt (cost 12)."),
        ("Password hashing algorithm", "New passwords are hashed with argon2id."),
        "name",
    ),
    (
        "linters named in lower case",
        ("Linting in pre-commit", "pre-commit runs flake8 and isort."),
        ("pre-commit hooks", "pre-commit runs ruff (lint and format) only."),
        "name",
    ),
    (
        "a YAML key that says nothing alone, under its mapping, and the dotted key in prose",
        (
            "Stack traces in responses",
            "```yaml\nexpose_stack_traces:\n  all: true\n```\nClients see"
            " the stack traces, which helps the app team debug.",
        ),
        (
            "Stack traces hidden",
            "The gateway hides stack traces in production responses now:"
            " expose_stack_traces.all is false.",
        ),
        "flag",
    ),
    (
        "a bind address in YAML, and the same setting in prose",
        (
            "Where the gateway listens",
            "gateway.listen is 0.0.0.0:7000 in gateway.yaml; the load balancer forwards to it.",
        ),
        (
            "gateway.yaml",
            "```yaml\ngateway:\n  listen: 0.0.0.0:7100\n  path: /api\n```\nThe"
            " load balancer's target port was changed to match.",
        ),
        "port",
    ),
    (
        "a limit in YAML, and the same key named in parentheses after a number",
        ("Gateway limits", "```yaml\nlimits:\n  max_payload_kb: 512\n  max_fields: 40\n```"),
        ("Payload limit", "The gateway now refuses bodies over 256 KB (limits.max_payload_kb)."),
        "number",
    ),
    (
        "a language's version written onto its name",
        ("Grader image", "setup.sh installs python3.10 from the distribution's packages."),
        ("Python in the grader", "The grading image runs Python 3.12 this term."),
        "version",
    ),
    (
        "a dependency's range in a manifest of several, and alone",
        (
            "Vue in package.json",
            '```json\n{"dependencies": {"vue": "^3.3.4", "pinia": "^2.1.0"}}\n```',
        ),
        ("Vue upgrade", 'package.json: `"vue": "^3.5.0"` since the upgrade.'),
        "version",
    ),
    (
        "a Go module required in go.mod, then bumped in prose",
        ("Chi router version", "go.mod: `require github.com/go-chi/chi/v5 v5.0.10`"),
        ("Chi upgrade", "Bumped chi to v5.1.0."),
        "version",
    ),
    (
        "a gem's range in a Gemfile",
        ("Sidekiq version", "Gemfile: `gem 'sidekiq', '~> 6.5'`"),
        ("Sidekiq 7", 'The Gemfile now says `gem "sidekiq", "~> 7.2"`.'),
        "version",
    ),
    (
        "an endpoint of one part, and one of two",
        ("Readiness probe", "The load balancer checks `/ready`."),
        ("LB probe path", "The load balancer probe hits `/health/live` now."),
        "path",
    ),
    (
        "Terraform's backend, by its block's label",
        ("Terraform backend", 'backend.tf: `backend "local" {}`'),
        ("Terraform state", 'State is in GCS: `backend "gcs" { bucket = "acme-tfstate" }`.'),
        "flag",
    ),
    (
        "a setting in a list of names and values, as Kubernetes writes one",
        ("Worker log level", "The worker runs with `LOG_LEVEL: info`."),
        (
            "Worker env",
            "```yaml\nenv:\n  - name: LOG_LEVEL\n    value: debug\n  - name: TZ\n"
            "    value: UTC\n```\nDebug logging stays on until the leak is found.",
        ),
        "flag",
    ),
    (
        "an INI section fenced with no language",
        ("my gitconfig: merge", "```\n[merge]\n    ff = false\n```"),
        ("Merges fast-forward again", "merge.ff is true again in ~/.gitconfig."),
        "flag",
    ),
    (
        "a schedule as cron writes it",
        ("Report schedule", "The report job runs at `0 6 * * *` (06:00 UTC)."),
        ("Report schedule", "Reports are generated at `30 4 * * *` so they land before standup."),
        "flag",
    ),
    (
        "a version file bumped to a version",
        ("Node version", "The repo pins Node in `.nvmrc`: 18.19.0."),
        ("Node upgrade", "Bumped `.nvmrc` to 20.11.1; CI reads it too."),
        "version",
    ),
    (
        "a whole number under a key naming a tool's version",
        ("Java for the build", "The Gradle build compiles for Java 17."),
        ("Java version in Gradle", "gradle.properties sets `javaVersion=21` for every module."),
        "version",
    ),
    (
        "a line opening with sudo, no code marks, prose after a dash",
        (
            "Restarting the mailer",
            "sudo /etc/init.d/mailer restart - the init script waits for the pidfile.",
        ),
        (
            "Mailer restart after a deploy",
            "`sudo systemctl restart mailer`, then `journalctl -u mailer -f` until it says ready.",
        ),
        "command",
    ),
]

LEFT: list[tuple[str, Note, Note]] = [
    (
        "a broker's address with its port, and the same port said alone",
        (
            "MQTT broker for the sensors",
            "Sensors publish to `mqtts://hub.farm.lan:8883` with client certificates.",
        ),
        ("Sensor firmware MQTT settings", "- broker: hub.farm.lan\n- port: 8883, TLS\n- QoS 1"),
    ),
    (
        "a flag given alone with the value its whole command gives it",
        (
            "Thumbnail resizing",
            "Thumbnails are made with `convert in.png -resize 320x -filter Lanczos out.png`.",
        ),
        ("Thumbnail filter", "Thumbnails keep the Lanczos filter (`-filter Lanczos`)."),
    ),
    (
        "a length of time as a clock writes it, and the same in minutes",
        ("Runner job timeout", 'runner.yml: `job_timeout: "00:30:00"` for every job.'),
        ("Runner settings", "runner.yml has `job_timeout: 30m` for every job."),
    ),
    (
        "a one-letter name set in prose, and the same assigned as R assigns",
        ("Power analysis sample size", "The power analysis in power.R assumes n = 120 per arm."),
        ("Sample size in power.R", "power.R has `n <- 120` per arm, from the pilot's effect."),
    ),
    (
        "a line opening with sudo that runs what the other note runs",
        ("Restarting the mailer", "sudo systemctl restart mailer - it waits for the pidfile."),
        (
            "Mailer restart after a deploy",
            "`sudo systemctl restart mailer`, then `journalctl -u mailer -f` until it says ready.",
        ),
    ),
]


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


_read = kinds_norms_slots


def test_a_brokers_address_is_a_url_with_its_port() -> None:
    assert values_read("url", "Publish to `mqtt://broker.lan:1883`.") == ["mqtt://broker.lan:1883"]
    assert values_read("port", "Publish to `mqtt://broker.lan:1883`.") == [":1883"]
    assert values_read("url", "Bind with `ldaps://dc1.corp.lan:636`.") == [
        "ldaps://dc1.corp.lan:636"
    ]


def test_a_flag_alone_in_code_takes_the_value_after_it() -> None:
    assert values_read("flag", "Resampling is cubic (`-r cubic`).") == ["-r cubic"]
    assert values_read("flag", "Backups compress with `--compression zstd,6`.") == [
        "--compression=zstd,6"
    ]
    # a path after a flag is where it runs, no value of the flag's
    assert values_read("flag", "Then `--config ./ci/app.yml`.") != ["--config=./ci/app.yml"]


def test_a_clock_length_is_seconds_unless_its_key_names_a_moment() -> None:
    assert ("number", "120", "for") in _read('`for: "00:02:00"`')
    assert ("number", "5400", "timeout") in _read("`Timeout=01:30:00`")
    assert ("flag", "03:00:00", "at") in _read('`at: "03:00:00"`')
    assert ("flag", "02:30:00", "start_time") in _read('`start_time: "02:30:00"`')


def test_r_assignments_and_one_letter_keys_are_settings() -> None:
    assert ("number", "200", "b") in _read("The chunk uses `B <- 200`.")
    assert ("number", "2000", "b") in _read("It runs with B = 2000 bootstrap resamples.")
    # a one-letter name takes only a number: "a = b" in prose is no setting
    assert not any(slot == "a" for _kind, _norm, slot in _read("Here a = b holds."))


def test_a_whole_number_under_a_version_key_is_a_version() -> None:
    assert ("version", "21", "java") in _read("`javaVersion=21`")


def test_a_flag_alone_is_shown_as_its_programs(store: MemoryStore) -> None:
    """The pair names the flag with the program the older note gives it to, as written:
    "convert -filter", not the bare word "flag"."""
    older = write(store, FOUND[1][1])
    newer = write(store, FOUND[1][2])
    [pair] = [pair for pair in store.contradictions() if pair.ids == (older.id, newer.id)]
    assert [(d.subject, d.old, d.new) for d in pair.differs if d.kind == "flag"] == [
        ("convert -filter", "-filter Lanczos", "-filter Mitchell")
    ]


def test_a_cron_schedule_is_read_and_prose_numbers_are_not() -> None:
    assert values_read("flag", "Runs at `*/15 9-17 * * 1-5`.") == ["*/15 9-17 * * 1-5"]
    assert values_read("flag", "Runs at `0 0 * * MON-FRI`.") == ["0 0 * * MON-FRI"]
    assert values_read("flag", "`5 apples and more things`") == []


def test_a_storage_address_is_a_url_and_a_path(store: MemoryStore) -> None:
    assert values_read("path", "Backups go to s3://acme/db/ now.") == ["s3://acme/db/"]
    assert values_read("url", "Backups go to s3://acme/db/ now.") == ["s3://acme/db/"]
    older = write(store, ("Backup bucket", "Backups are written to `s3://acme/db/` nightly."))
    newer = write(store, ("Backup bucket", "Backups are written to `s3://acme-archive/db/` now."))
    [pair] = [pair for pair in store.contradictions() if pair.ids == (older.id, newer.id)]
    assert [d.kind for d in pair.differs] == ["url"]


def test_tools_in_lower_case_are_names_and_english_words_are_not() -> None:
    assert values_read("name", "Passwords are hashed with bcrypt.") == ["bcrypt"]
    assert values_read("name", "We switched from npm to pnpm.") == ["npm", "pnpm"]
    assert values_read("name", "The dashboard is black and white.") == []
    # a file or a key named after a tool is a path or a key, no tool
    assert values_read("name", "Delete poetry.lock and run again.") == []


def test_a_languages_literal_capitalised_is_no_name() -> None:
    names = values_read("name", "Orders are sent with postOnly True to Binance.")
    assert "True" not in names and "Binance" in names


def test_yaml_nesting_keys_only_what_says_nothing_alone() -> None:
    block = "```yaml\nlimits:\n  default: soft\n  max_depth: 15\nsteps:\n  - all: x\n```"
    assert ("flag", "soft", "limits.default") in _read(block)
    assert ("number", "15", "max_depth") in _read(block)
    assert not any(slot.startswith("steps.") for _kind, _norm, slot in _read(block))


def test_an_address_with_its_port_is_one_setting_value() -> None:
    assert ("port", "7100", "") in _read("`listen: 0.0.0.0:7100`")
    assert ("flag", "cache-a:6379", "redis") in _read("`redis: cache-a:6379`")


def test_a_language_version_glued_to_its_name() -> None:
    assert ("version", "3.10", "python") in _read("It installs python3.10 first.")
    assert ("version", "8.1", "php") in _read("The image is php8.1-fpm.")


def test_manifest_lines_declare_a_dependencys_version() -> None:
    assert ("version", ">=3.3.4,<4", "vue") in _read('`{"vue": "^3.3.4", "pinia": "^2.1.0"}`')
    assert not any(kind == "version" for kind, *_ in _read('`{"engines": {"node": ">=18"}}`'))
    assert ("version", "5.0.10", "chi") in _read("`require github.com/go-chi/chi/v5 v5.0.10`")
    assert ("version", ">=6.5,<7", "sidekiq") in _read("`gem 'sidekiq', '~> 6.5'`")
    assert ("version", "5.1.0", "chi") in _read("Bumped chi to v5.1.0.")


def test_a_tools_name_changed_with_its_command_is_one_change(store: MemoryStore) -> None:
    """ "asdf -> mise" is not said again beside `asdf install` -> `mise install`."""
    older = write(
        store,
        ("Tool versions with asdf", "Tool versions are managed with asdf: run `asdf install`."),
    )
    newer = write(
        store,
        ("Tool versions with mise", "Tool versions are managed with mise: run `mise install`."),
    )
    [pair] = [pair for pair in store.contradictions() if pair.ids == (older.id, newer.id)]
    assert [d.kind for d in pair.differs] == ["command"]
