"""Readings of issue 42's eighth session, each with the look-alikes it must leave
(written for this file, not taken from the measured set):

* a title opening with what is done ("Running migrations") names the same thing as a
  title naming it by a word before it ("Schema migrations"): the verb is no kind of
  migration. A word before the thing that is no such verb still tells two things apart
  ("Staging database port", "Production database port");
* one command run on a file that moved: its arguments differ in one place, two paths
  of one file (``tail -f /var/log/worker.log``, then ``tail -f
  /srv/app/logs/worker.log``), where before, one program's one command with other
  arguments was read as the same command, its values left to say what differs. Two
  files of one name that the titles tell apart stay two ("API errors", "nginx errors");
* Ruby's durations (``config.timeout_in = 30.minutes``) are numbers of seconds, as
  "30 minutes" in prose is;
* a key ending in "name" names the thing of the word before it (``MODEL_NAME``: a model),
  so the older note's model, said in a note titled for it, is that setting's older value;
  another model's key (``EMBEDDING_MODEL_NAME``) is not;
* an embedded system's kernel is a role a project picks one tool for (FreeRTOS, Zephyr),
  and a Kubernetes cluster's ingress controller one of its reverse proxy's
  (``ingress-nginx``, Traefik); a proxy on laptops is no cluster's ingress;
* a value a note names as the one of before ("The old `orbit/api` on Docker Hub is
  stale") is none it holds;
* a command run on a file named from the root or the home folder (``tail -f
  /opt/game/logs/latest.log``) says where the file is, as the path said alone does;
* a setting's path (``inventory = inventories/prod/hosts.yml``) against the path the other
  note says just after the key's word ("The default inventory is `inventory/hosts.ini`"),
  or in a note titled by that word whose path holds it too;
* a server named right before a number is on that port ("Local Redis on 6379"); a
  command's argument of a colon and a number (`target remote :2331`) is a port;
* a path as Windows writes it (``%APPDATA%\\Inkwell\\notebooks``, "Documents\\Inkwell")
  is a path; a program run from a ``bin`` folder (`./vendor/bin/phpunit`) is a command;
* an address given as a setting's value names its port, after a user's name and password
  too (``DATABASE_URL=postgres://app:<password>@localhost:5432/app``: 5432), against a
  port the other note says in prose ("runs on 5433");
* two commands running two tools of one role, past any runner (`npx cypress run`, `pnpm
  exec playwright test`; `mvn package`, `./gradlew bootJar`), are two ways to do one task;
  two suites or two apps each with its tool stay apart;
* an older address whose port the newer note says again, after the older thing's name
  ("schema registry stays on 8081"), still holds beside the newer note's address of
  another thing; a port said after another thing's name ("4200 is the Angular dev
  server") leaves the older address changed. "Stays on" says a port, as "runs on" does.
"""

from __future__ import annotations

from pair_checks import Found, LookAlike, kinds_norms_slots, wording_tests

FOUND: list[Found] = [
    (
        "one task's command, one title naming it by what is done",
        (
            "Schema migrations",
            "`cargo run --bin migrator -- up` applies the pending migrations against $APP_DB.",
        ),
        (
            "Running migrations",
            "Migrations are a subcommand of the main binary: `cargo run --bin app -- migrate "
            "up`. Reads APP_DB too.",
        ),
        "flag",
    ),
    (
        "one command run on a file that moved",
        ("Tailing the worker log", "`tail -f /var/log/worker.log` on the app box."),
        ("Worker logs", "On the app box: `tail -f /srv/app/logs/worker.log`."),
        "command",
    ),
    (
        "a Ruby duration against the same said in prose",
        (
            "Admin session timeout",
            "Devise logs admins out: `config.timeout_in = 30.minutes` in devise.rb.",
        ),
        ("Admin sessions", "The admin session timeout is 8 hours now."),
        "number",
    ),
    (
        "a model's name, then the setting naming it",
        ("Chat model", "The bot's completions use `gpt-3.5-turbo`."),
        ("Model config", "`MODEL_NAME=gpt-4o-mini` in `.env`."),
        "name",
    ),
    (
        "one firmware's kernel replaced",
        ("RTOS", "The firmware runs on FreeRTOS on the ESP32."),
        ("Firmware kernel", "The firmware is built on Zephyr now; `prj.conf` holds its config."),
        "name",
    ),
    (
        "a cluster's ingress controller replaced",
        ("Ingress", "Cluster ingress is handled by ingress-nginx."),
        ("Ingress controller", "The cluster's ingress is Traefik now."),
        "name",
    ),
    (
        "a file named alone, then read by a command from another folder",
        ("Server logs", "The game server's log: `/srv/game/logs/latest.log`."),
        ("Watching the server", "`tail -f /opt/game/logs/latest.log` to follow the live log."),
        "path",
    ),
    (
        "a setting's path against the path said after the key's word",
        ("Ansible inventory", "The default inventory is `inventory/hosts.ini`."),
        ("ansible.cfg", "```ini\n[defaults]\ninventory = inventories/prod/hosts.yml\n```"),
        "path",
    ),
    (
        "a server's port said right after its name",
        ("Redis", "Local Redis on 6379, db 0 for the cache."),
        ("Cache connection", "Redis runs in docker on 6380 so it doesn't clash with brew's."),
        "port",
    ),
    (
        "a debugger's port given as a command's argument",
        ("GDB server", "OpenOCD's gdb port is 3333."),
        ("Debug probe", "We use the J-Link GDB server now; in gdb run `target remote :2331`."),
        "port",
    ),
    (
        "a Windows folder moved",
        (
            "Notebook storage",
            "On Windows the app keeps notebooks in %APPDATA%\\Inkwell\\notebooks.",
        ),
        ("Windows notebooks", "Notebooks are saved under Documents\\Inkwell\\notebooks now."),
        "path",
    ),
    (
        "a test runner run from the vendor folder, then through the framework",
        ("Tests", "`./vendor/bin/phpunit` from the repo root."),
        ("Running the test suite", "`php artisan test --parallel` runs the suite."),
        "command",
    ),
    (
        "a database address's port, then the port said in prose",
        (
            "local database url",
            "`DATABASE_URL=postgres://notes:<password>@localhost:5432/notes_dev`",
        ),
        ("local postgres port", "Local Postgres for notes runs on 5433 beside Homebrew's."),
        "port",
    ),
    (
        "one suite's browser test tool replaced",
        ("End-to-end tests", "E2E: `npx cypress run` against the preview deploy."),
        ("Browser suite", "Browser tests: `pnpm exec playwright test`."),
        "command",
    ),
    (
        "one jar built by another build tool",
        ("Quick jar", "`mvn clean package -DskipTests` for a quick jar."),
        ("Local jar", "Quick jar: `./gradlew bootJar -x test`."),
        "command",
    ),
    (
        "an address moved off a port another thing is named on",
        ("Local Prefect server", "Open http://127.0.0.1:4200 after `prefect server start`."),
        (
            "Local Prefect UI",
            "Open http://127.0.0.1:4300 (4200 is the Angular dev server on our laptops).",
        ),
        "url",
    ),
]

LEFT: list[LookAlike] = [
    (
        "two databases' ports told apart by a word before them",
        ("Staging database port", "The staging Postgres listens on 5433."),
        ("Production database port", "The production Postgres listens on 5432."),
    ),
    (
        "two files of one name in two programs' folders",
        ("API errors", "`tail -f /var/log/api/error.log` shows the API's stack traces."),
        ("nginx errors", "`tail -f /var/log/nginx/error.log` shows upstream failures."),
    ),
    (
        "a Ruby duration restated in prose",
        (
            "Admin session timeout",
            "Devise logs admins out: `config.timeout_in = 30.minutes` in devise.rb.",
        ),
        ("Admin session timeout", "Admins are logged out after 30 minutes idle."),
    ),
    (
        "another model's setting",
        ("Chat model", "The bot's completions use `gpt-4o-mini`."),
        ("Embeddings config", "`EMBEDDING_MODEL_NAME=text-embedding-3-small` in `.env`."),
    ),
    (
        "a cluster's ingress controller and a proxy on laptops",
        ("Ingress", "Cluster ingress is handled by ingress-nginx."),
        ("Local proxy", "On laptops, Traefik fronts the dev containers."),
    ),
    (
        "the older image named as the old one beside the newer",
        ("Container images", "Images are on `ghcr.io/orbit/api`; we left Docker Hub."),
        (
            "Pulling the image",
            "`docker pull ghcr.io/orbit/api:latest`. The old `orbit/api` on Docker Hub is stale.",
        ),
    ),
    (
        "two servers' logs of one name read by two commands",
        ("Game server logs", "`tail -f /srv/game/logs/latest.log` on the game box."),
        ("Proxy logs", "`tail -f /srv/proxy/logs/latest.log` on the proxy box."),
    ),
    (
        "two inventories, each its environment's",
        ("Staging inventory", "The staging inventory is `inventories/staging/hosts.yml`."),
        ("ansible.cfg", "```ini\n[defaults]\ninventory = inventories/prod/hosts.yml\n```"),
    ),
    (
        "two servers' ports",
        ("Local services", "Local Redis on 6379; the API listens on 8000."),
        ("Local database", "Postgres on 5432, started by brew services."),
    ),
    (
        "two suites, each with its browser test tool",
        ("Component tests", "Component tests: `npx cypress run --component`."),
        ("End-to-end tests", "End-to-end tests: `pnpm exec playwright test`."),
    ),
    (
        "two apps, each with its build tool",
        ("Service build", "The API builds with `mvn package`."),
        ("Android build", "The Android app builds with `./gradlew assembleRelease`."),
    ),
    (
        "another service's address beside the older one's port said again",
        ("Schema registry", "Schema registry at `http://localhost:8081`."),
        ("Kafka UI", "kafka-ui runs on `http://localhost:8080`, schema registry stays on 8081."),
    ),
    (
        "a store's address beside the tracking server's port said again",
        ("Tracking server", "Tracking server at `http://mlflow.lab:5000`."),
        (
            "Artifact store",
            "Artifacts go to `s3://mlflow-artifacts/runs`; the tracking server on :5000 only "
            "keeps run metadata.",
        ),
    ),
]

test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def test_a_windows_path_is_a_path_of_slashes() -> None:
    assert kinds_norms_slots("Logs at `%APPDATA%\\Glimmer\\logs\\sync.log`.") == [
        ("path", "%appdata%/glimmer/logs/sync.log", "")
    ]
    assert kinds_norms_slots("Tools go in C:\\tools\\bin on the build box.") == [
        ("path", "c:/tools/bin", "")
    ]


def test_an_address_set_names_its_port_after_a_password_too() -> None:
    assert kinds_norms_slots("`DATABASE_URL=postgres://app:<pw>@db.internal:6432/app`") == [
        ("flag", "postgres://app:<pw>@db.internal:6432/app", "database_url"),
        ("port", "6432", ""),
    ]


def test_a_ruby_duration_is_seconds() -> None:
    assert kinds_norms_slots("`config.timeout_in = 2.hours`") == [
        ("number", "7200", "config.timeout_in")
    ]
    assert kinds_norms_slots("`config.remember_for = 14.days`") == [
        ("number", "1209600", "config.remember_for")
    ]
