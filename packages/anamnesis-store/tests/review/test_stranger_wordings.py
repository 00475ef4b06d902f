"""How the finder reads the wordings a stranger's notes use (issue 42's blind splits
showed them): a number said in prose against a setting's key, a key that names its
unit, a hyphenated unit, a JVM property, a switched setting, a home folder, the port a
server runs on, a value the newer note says is gone, two spellings of one setting, two
addresses of one service, the task both titles name; and the look-alikes each rule must
leave alone (a command said never to run, a rate and its period, an idle limit and a
ceiling, a path still used, two variables' roles, a name still named, two scopes'
titles, a burst limit and a quota). The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from anamnesis.store import Memory
from anamnesis.store.review.alignment_by_context import counts_alike, urls_alike
from anamnesis.store.review.reading.facts import NoteFacts
from anamnesis.store.review.reading.quantities import key_unit
from pair_checks import Note, compared, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a setting's key names what a number said in prose counts",
        ("Postgres connection limit", "`max_connections = 200` in postgresql.conf on the primary."),
        ("Primary accepts more clients", "The primary takes 400 connections since the RAM"
         " upgrade."),
        "number",
    ),
    (
        "a key that names its unit scales its number",
        ("HTTP client timeout", "The HTTP timeout for outbound calls is 30 seconds."),
        ("HTTP client timeout setting", "Set `HTTP_TIMEOUT_MS=45000` in the service env."),
        "number",
    ),
    (
        "a unit hyphenated to its number",
        ("Embedding chunk size", "Docs are split into 512-token chunks before embedding."),
        ("Chunking after the eval", "Docs are split into 800-token chunks before embedding"
         " since the eval."),
        "number",
    ),
    (
        "a JVM property and a long option set one key",
        ("Local profile", "Run the app with `--spring.profiles.active=local` on laptops."),
        ("Local profile for the app", "Start it with `-Dspring.profiles.active=dev` on"
         " laptops."),
        "flag",
    ),
    (
        "a setting switched in its config file's words",
        ("SSH root login", "The base image leaves PermitRootLogin yes for the rescue console."),
        ("SSH hardening", "The base image sets PermitRootLogin no on every host."),
        "flag",
    ),
    (
        "a folder under the home folder",
        ("Scratch notes", "Throwaway notes go in ~/scratch on my laptop."),
        ("Scratch notes folder", "Throwaway notes live in ~/notes/tmp on my laptop."),
        "path",
    ),
    (
        "the port a server runs on, in a note that never says port",
        ("Storybook", "Storybook runs on 6006 for the design system."),
        ("Storybook for the design system", "Start Storybook with `storybook dev -p 6010`."),
        "port",
    ),
    (
        "a value the newer note says is gone",
        ("MQTT broker", "Mosquitto listens on 1883 for the sensors."),
        ("Broker for sensors", "Sensors connect over TLS on 8883; nothing listens on 1883"
         " anymore."),
        "port",
    ),
    (
        "a value the newer note says another thing took",
        ("API dev server", "The API dev server listens on 8000."),
        ("API dev server port", "The API dev server listens on 8100; the docs preview took"
         " 8000."),
        "port",
    ),
    (
        "a plural scope is its singular",
        ("Partner API rate limit", "Each partner gets 100 requests per minute."),
        ("Rate limit for partners", "Partners get 50 requests per minute now."),
        "number",
    ),
    (
        "a duration is no rival of a count: the count still differs",
        ("Payout webhook retries", "Failed payout webhooks are retried 5 times, backoff"
         " from 2s."),
        ("Payout webhook attempts", "Payout webhooks get at most 3 attempts (backoff from"
         " 2s)."),
        "number",
    ),
    (
        "a qualifying word between a number and what it counts",
        ("Pull request size", "Keep pull requests under 400 changed lines."),
        ("Pull request size agreed", "Pull requests stay below 250 changed lines."),
        "number",
    ),
    (
        "commands of the task both titles name",
        ("Flashing the board", "Flash with `openocd -f board.cfg -c program`."),
        ("Flash steps", "`probe-rs flash fw.elf` programs and resets the board."),
        "command",
    ),
    (
        "two spellings of one setting's environment variable",
        ("Kafka brokers setting", "Brokers come from KAFKA_BROKERS in the env file."),
        ("Kafka env var", "Set APP_KAFKA_BROKERS_LIST for the consumer."),
        "name",
    ),
    (
        "a port after an IP address",
        ("Shop upstream", "nginx proxies the shop to `server 127.0.0.1:8080;`."),
        ("Shop upstream target", "The shop's Node process binds 127.0.0.1:3000 for nginx."),
        "port",
    ),
    (
        "a hash entry's key and value",
        ("Report worker timeout", "The report supervisor runs with 'timeout' => 90."),
        ("Report worker timeout raised", "Big reports died, so the report supervisor has"
         " 'timeout' => 300."),
        "number",
    ),
    (
        "a JSON field's key keeps its first letter",
        ("Startup migrations", 'appsettings.json has `"MigrateOnStartup": true` for the'
         " API."),
        ("Startup migrations off", "The API runs with MigrateOnStartup: false; a job"
         " migrates before the rollout."),
        "flag",
    ),
    (
        "a setting said in prose as code writes it",
        ("Rendering mode", "The admin renders on the client only: `ssr: false` in the"
         " config."),
        ("Admin rendering", "ssr: true for the whole admin; charts opt out."),
        "flag",
    ),
    (
        "a flag given with its program and without",
        ("Shared library build", "Configure with -DWITH_SHARED=ON for the plugin host."),
        ("Plugin host build", "The plugin host links statically: `cmake -B out"
         " -DWITH_SHARED=OFF`."),
        "flag",
    ),
    (
        "a camelCase key's words name what a number said in prose counts",
        ("Snapshot retention", "The stack sets `snapshotRetentionDays: 7` on the cluster."),
        ("Cluster snapshot retention", "Auditors asked for more: the cluster keeps"
         " snapshots for 14 days now."),
        "number",
    ),
    (
        "a tool pinned in a setting's value",
        ("Yarn version", 'package.json has `"packageManager": "yarn@3.6.4"` for Corepack.'),
        ("Yarn for the monorepo", "Corepack fetches yarn 4.1.0 for the monorepo."),
        "version",
    ),
    (
        "a tool and its version in one word",
        ("Ruby on the build hosts", "The build hosts install ruby-3.1.4 through rbenv."),
        ("Build host Ruby", "The build hosts run ruby 3.3.0 from rbenv."),
        "version",
    ),
    (
        "a setting said in prose as key is value",
        ("Session store", "session.store_type is `redis` on the web nodes."),
        ("Web sessions", "On the web nodes session.store_type is `database` since the"
         " Redis outage."),
        "flag",
    ),
    (
        "a setting's key that names a port",
        ("Gateway port", "The gateway has `server.port=8080` in application.properties."),
        ("Gateway port in the mesh", "The gateway listens on 8090; the mesh proxy owns"
         " the rest."),
        "port",
    ),
    (
        "a declaration in code",
        ("Jump buffer", "Player.gd: `const JUMP_BUFFER := 0.1` for the jump buffer."),
        ("Jump buffer feel", "Player.gd: `const JUMP_BUFFER := 0.15` after playtests."),
        "number",
    ),
    (
        "two abbreviations of one unit",
        ("Branch name length", "Branch names stay under 40 characters."),
        ("Branch names", "Branch names: 30 chars max."),
        "number",
    ),
    (
        "a list item's label says what its number counts",
        ("Room size cap", "A room holds at most 300 guests."),
        ("Room limits cheat sheet", "- guests per room: 1000\n- rooms per host: 40"),
        "number",
    ),
    (
        "the project's name is no thing of its own",
        ("Minimum Emacs for shop", "shop supports Emacs 28.1 and newer."),
        ("README requirements", "Requirements: Emacs >= 29.1 (we call treesit) and"
         " ripgrep."),
        "version",
    ),
    (
        "a number in a code object's field",
        ("Search server port", "Meili listens on :7700 on the search host."),
        ("Where the search server listens", "search.yaml: `server: { http_port: 7710,"
         " grpc_port: 7711 }` on the search host."),
        "port",
    ),
    (
        "a key under its namespace and without it",
        ("Store optimisation", "`nix.settings.auto-optimise-store = true;` in common.nix."),
        ("Nix store settings", "auto-optimise-store is `false` on every host now."),
        "flag",
    ),
    (
        "a setting and its environment variable with the app's prefix",
        ("Late acks", "celery.py sets `app.conf.task_acks_late = True` for the reports"
         " worker."),
        ("Reports worker acks", "Set REPORTS_TASK_ACKS_LATE=False for the reports worker"
         " until the task is idempotent."),
        "flag",
    ),
    (
        "a command that does what the older note's title names",
        ("Deploying the edge worker", "`npx wrangler publish` from the repo root."),
        ("Shipping the worker", "`npx wrangler deploy` from the repo root."),
        "command",
    ),
    (
        "an address given to a call",
        ("Plugin API repository", 'build.gradle.kts: `maven("https://maven.acme.dev/releases/")`'
         " for the plugin API."),
        ("Where the plugin API comes from", "Gradle resolves the plugin API from"
         " https://repo.acme.dev/maven/releases/."),
        "url",
    ),
    (
        "a requirement pinned with ==",
        ("Flask version", "The API is on Flask 2.3 for now."),
        ("Pinned API dependencies", "requirements.txt pins `Flask==3.0.3` and"
         " `gunicorn==22.0.0` for the API."),
        "version",
    ),
    (
        "a setting's value naming a tool and its version",
        ("Compiler for the API", "The API builds with GHC 9.4.8."),
        ("API toolchain", "cabal.project has `with-compiler: ghc-9.6.6` for the API."),
        "version",
    ),
    (
        "never turning on a setting the older note sets, by its key's words",
        ("Mailer in tests", "settings/test.py sets `MAILER_SEND_SYNCHRONOUSLY = True` so"
         " mails go out inline in tests."),
        ("Testing mail", "Don't turn on send_synchronously: it hides template bugs; use"
         " the outbox fixture."),
        "negation",
    ),
    (
        "an image's tag in a compose file",
        ("Message broker image", "Local brokers run `nats:2.9-alpine`."),
        ("Broker in docker-compose", "```yaml\nnats:\n  image: nats:2.10-alpine\n"
         '  ports: ["4222:4222"]\n```'),
        "version",
    ),
    (
        "a scope named only inside an identifier is mentioned, not said",
        ("Retries on sync_partner_feeds", "`@task(retries=3)` on sync_partner_feeds in"
         " flows/sync.py."),
        ("Partner feed resets at night", "The partner's server resets connections at night;"
         " sync_partner_feeds now has `@task(retries=5)`."),
        "number",
    ),
    (
        "two addresses of one service's host name",
        ("Error tracking", "Errors are sent to https://sentry.io/organizations/acme/web/."),
        ("Sentry project", "We self-host it: https://sentry.acme.dev/organizations/acme/web/."),
        "url",
    ),
    (
        "a port set in a config block against a server's",
        ("Admin API port", "The admin server starts in AdminServer.kt:"
         " `embeddedServer(CIO, port = 7000, module = Admin::module)`."),
        ("Server settings", "application.conf:\n```hocon\nadmin {\n  server {\n    port ="
         " 7010\n    idleTimeout = 30000\n  }\n}\n```\nThe ingress targets the same port."),
        "port",
    ),
    (
        "a websocket address",
        ("Telemetry socket", "The dashboard streams from ws://gateway.lan:8765 with the"
         " browser client."),
        ("Dashboard telemetry stream", "The dashboard opens its stream to"
         " ws://gateway.lan:8766 (`--ws-port 8766` on the gateway)."),
        "url",
    ),
    (
        "a setting alone in a TypeScript block is what its note's title names",
        ("Docs site dev server", "`pnpm dev` -> Astro on http://localhost:4321 with hot"
         " reload."),
        ("astro.config.ts server block", "```ts\nserver: {\n  port: 4400,\n  host: true,\n},"
         "\n```\nThe docs site's dev server listens there."),
        "port",
    ),
    (
        "a value in a markdown table",
        ("Fine-tuning hyperparameters", "| param | value |\n|---|---|\n| micro batch | 16 |\n"
         "| learning rate | 2e-5 |\n| epochs | 3 |\n| warmup ratio | 0.1 |"),
        ("Fine-tune run config", "train.py sets `micro_batch_size=8`, learning rate 2e-5 over"
         " 3 epochs, warmup ratio 0.1."),
        "number",
    ),
    (
        "one image's version, titled by where it is pinned",
        ("Keycloak version in compose", "docker-compose.yml pins"
         " `quay.io/keycloak/keycloak:24.0.5` for both auth nodes."),
        ("auth nodes image tag", "```yaml\nservices:\n  auth1:\n    image:"
         " quay.io/keycloak/keycloak:26.0.7\n  auth2:\n    image:"
         " quay.io/keycloak/keycloak:26.0.7\n```"),
        "version",
    ),
    (
        "what a clause is for is not what it says to do",
        ("Long builds on the build box", "Run long builds inside screen so a dropped SSH"
         " session doesn't kill them."),
        ("Terminal sessions on the build box", "Not screen anymore: I use tmux on the build"
         " box, with tmux-resurrect."),
        "replacement",
    ),
    (
        "a clause that starts with what was removed",
        ("Fixtures in the test image", "Bake the test fixtures into the image so jobs start"
         " without a download step."),
        ("Slow test jobs", "Every runner pulled a 4 GB image cold. Removed the fixtures from"
         " the image; jobs fetch them from the cache in ~40 s."),
        "replacement",
    ),
    (
        "a clause that starts by saying a thing is not there",
        ("lint hook", "husky runs `eslint --fix` on staged files pre-commit."),
        ("pre-commit hook in the web app", "No eslint in the pre-commit hook (it rewrote"
         " half-staged files). CI runs `eslint .` instead."),
        "negation",
    ),
    (
        "a camelCase key said to be false in prose",
        ("schema sync at startup", "ORM config has `autoSchemaSync: true`, so every boot"
         " alters tables to match the entities."),
        ("Schema changes in production", "Never from the app: autoSchemaSync is false. The"
         " release job runs the migrations before the rollout."),
        "flag",
    ),
    (
        "a laptop's local is the dev environment",
        ("billing-api local URL", "`npm run start:dev` -> http://localhost:4000/api,"
         " GraphiQL at /api/graphql."),
        ("Calling the billing API in dev", "main.ts does `await app.listen(4100)` (we moved"
         " off 4000 for the docs site). Base URL http://localhost:4100/api; GraphiQL under"
         " /api/graphql."),
        "port",
    ),
    (
        "an address said beside the key the other note sets",
        ("Upstream behind the edge", "Misses go to `https://shop-api.internal/v2`"
         " (UPSTREAM_URL var in wrangler.toml)."),
        ("wrangler.toml vars", "```toml\n[vars]\nUPSTREAM_URL ="
         " \"https://origin.example.net/v2\"\nCACHE_SECONDS = \"300\"\n```"),
        "url",
    ),
    (
        "a number said beside the key the other note sets",
        ("psql history", "In ~/.psqlrc: HISTSIZE=2000 so every session keeps its queries."),
        ("psql settings", "I keep 20000 lines of psql history (HISTSIZE in .psqlrc)."),
        "number",
    ),
    (
        "two spellings of one variable's words (DATABASE and DB)",
        ("database connection env var", "orders-api reads `DATABASE_URL` (postgres://...) in"
         " the Prisma client."),
        ("env for the orders DB", ".env.example:\n```\nORDERS_DB_URL=postgres://orders@"
         "localhost:5432/orders\nCACHE_URL=redis://localhost:6379\n```\nThe config module"
         " checks ORDERS_DB_URL at boot."),
        "name",
    ),
    (
        "one variable's words in another order, whatever the titles call it",
        ("Raw schema for the CRM sync", "Connection `crm -> warehouse` writes to schema"
         " FIVETRAN_RAW in the ANALYTICS database."),
        ("crm sync destination namespace", "Destination namespace: RAW_FIVETRAN. dbt sources"
         " point at raw_fivetran.* ."),
        "name",
    ),
    (
        "one file in two folders",
        ("Pin map", "All GPIO assignments are in include/gpio_map.h."),
        ("Where to change the buzzer pin", "Buzzer, LED and button pins are #defines in"
         " src/hw/gpio_map.h; the buzzer is on D7."),
        "path",
    ),
    (
        "a camelCase key in a long note's config block holds the other note's subject word",
        ("Postgres pool for the chat service", "HikariCP via Exposed, configured in"
         " application.conf:\n\n```hocon\ndatabase {\n  poolSize = 8\n  connectionTimeout"
         " = 3000\n}\n```\nEight is plenty for the message writer; reads hit the Redis cache"
         " first."),
        ("How many DB connections each chat node opens", "Each chat instance keeps 20"
         " connections in its Hikari pool (connection timeout still 3 s). We run 3 instances,"
         " so 60 of the 100 `max_connections` Postgres allows."),
        "number",
    ),
    (
        "an image's tag with a suffix after its version",
        ("Image for the training cluster",
         "The RayCluster uses `rayproject/ray:2.20.0-py310-gpu` for head and workers."),
        ("Training cluster image upgrade",
         "head + worker groups: rayproject/ray:2.35.0-py311-gpu since the CUDA bump."),
        "version",
    ),
    (
        "a runtime and its version before a colon",
        ("JDK for the pricing service",
         "pricing-svc builds and runs on Java 11: the Dockerfile uses a JRE image."),
        ("JDK baseline for pricing-svc",
         "pricing-svc needs Java 17 at minimum since the framework upgrade."),
        "version",
    ),
    (
        "a key under its INI section",
        ("Fetch pruning", "`git config --global fetch.prune true`."),
        ("~/.gitconfig [fetch]",
         "```ini\n[fetch]\n\tprune = false\n\tparallel = 8\n```\nI prune by hand once "
         "a week."),
        "flag",
    ),
    (
        "\"no\" before a flag",
        ("Compiler flags for the crate", "Cargo config: `rustflags: -Wunused -Dwarnings`."),
        ("Warnings policy for the crate",
         "The crate builds with -Wunused and no -Dwarnings; a new toolchain's lints "
         "shouldn't break a build."),
        "negation",
    ),
    (
        "a key in code said to be a value in code",
        ("Lint mode on the build servers",
         "build.conf on the build servers has `lint = warn`: lint findings only log."),
        ("Lint findings fail the build",
         "On the new build servers `lint` is `strict` (the new default), so any "
         "finding fails the job."),
        "flag",
    ),
    (
        "a key naming a tool's version, and a list of tools and versions",
        ("CI toolchain for the notifier",
         ".github/workflows/test.yml uses setup-beam with `elixir-version: "
         "\"1.15.7\"` and `otp-version: \"26.1\"`."),
        ("notifier builds with",
         "- elixir 1.17.2\n- erlang 26.1\n(.tool-versions and the setup-beam step "
         "agree)"),
        "version",
    ),
    (
        "an address a command is run against",
        ("billing staging",
         "Staging API: https://staging-billing.example.app"),
        ("Smoke test against staging",
         "`curl -fsS https://billing.staging.example.app/health && curl -fsS "
         "https://billing.staging.example.app/v1/version`"),
        "url",
    ),
    (
        "an image's tag inside a command",
        ("search container",
         "search box runs getmeili/meilisearch:v1.5 with a volume on /meili_data. "
         "Dumps before any upgrade!"),
        ("Running search locally",
         "`docker run -p 7700:7700 -v $(pwd)/meili_data:/meili_data "
         "getmeili/meilisearch:v1.10` - same tag as the server, otherwise the data "
         "dir won't open."),
        "version",
    ),
    (
        "a UDP port in a note that never says port",
        ("Voice traffic port",
         "Clients reach the voice relay over UDP 3478."),
        ("Opening the firewall for a new relay",
         "For each new relay host: allow UDP 3479 inbound (voice traffic) and TCP "
         "9090 from the load balancer only (health)."),
        "port",
    ),
]  # fmt: skip

# (rule, older, newer): look-alikes each rule must leave alone
LEFT: list[tuple[str, Note, Note]] = [
    (
        "a key that names its unit: one quantity",
        ("HTTP client timeout", "The HTTP timeout for outbound calls is 30 seconds."),
        ("HTTP client timeout setting", "Set `HTTP_TIMEOUT_MS=30000` in the service env."),
    ),
    (
        "a setting's bare number is a duration in another unit",
        ("Backup retention", "Nightly database backups are kept for 4 weeks."),
        ("Backup retention setting", "The database backup retention is"
         " `backup_retention_period = 28`."),
    ),
    (
        "two settings of one service share its name alone",
        ("Postgres host variable", "The app reads the database host from POSTGRES_HOST."),
        ("Postgres port variable", "The app reads the database port from POSTGRES_PORT."),
    ),
    (
        "two switches of two keys",
        ("SSH password login", "The base image sets PasswordAuthentication no."),
        ("SSH key login", "The base image sets PubkeyAuthentication yes."),
    ),
    (
        "two services of one company's domain",
        ("Dashboards", "Dashboards are at https://grafana.acme.dev/d/main."),
        ("Status page", "Outages are posted at https://status.acme.dev/incidents."),
    ),
    (
        "a clock time after a key is no number of it",
        ("Backup retention", "`retentionDays: 7` for the nightly backups."),
        ("Backup settings checked", "The nightly backups are kept 7 days, backupWindow"
         " 03:00-04:00 UTC."),
    ),
    (
        "a warning and a page both hold",
        ("Memory warning", "The memory alert warns at 75% on any worker."),
        ("Memory paging threshold", "At 90% on any worker the memory alert pages on-call."),
    ),
    (
        "a floor and a ceiling both hold",
        ("Worker autoscaling floor", "The worker pool never goes below 2 workers"
         " (minWorkers)."),
        ("Worker autoscaling ceiling", "maxWorkers is 12 for the worker pool."),
    ),
    (
        "a number said again after its setting is that setting",
        ("Upload retry window", "upload.retry.timeout=600000: a failed upload is retried"
         " for up to ten minutes."),
        ("Upload retry backoff", "upload.retry.delay.max.ms=30000 caps the wait between"
         " two upload retries at 30 s."),
    ),
    (
        "two scopes are no two names of one thing",
        ("Editor on the Mac", "On the Mac I use Zed with vim mode."),
        ("Editor on Linux boxes", "On Linux boxes stay in vim; don't install Zed there."),
    ),
    (
        "two keys that end alike are two settings",
        ("Task soft limit", "The export task has `soft_time_limit=300`."),
        ("Task hard limit", "The export task has `time_limit=360`."),
    ),
    (
        "two services' settings of one name after their prefixes are two settings",
        ("Connection pool size", "The API runs with `ORDERS_POOL_SIZE=10`."),
        ("Connection pool sizes", "The API runs with `USERS_POOL_SIZE=20` as well."),
    ),
    (
        "a value of another key is no restatement",
        ("Insert settings", "Inserts run with `async_insert=1, wait_for_async_insert=1`."),
        ("Insert settings for the collector", "The collector inserts with"
         " `async_insert=1, wait_for_async_insert=1` too, flushing every 200 ms."),
    ),
    (
        "a value the newer note only says is not exposed, not gone",
        ("Metrics listener", "The API listens on 8080 and serves metrics on it."),
        ("Metrics listener port", "Metrics are served on their own listener, 9100, not"
         " exposed through 8080."),
    ),
    (
        "a command the older note says never to run is no command it runs",
        ("Rebasing shared branches", "Never `git rebase main` on a branch others pulled."),
        ("Updating a shared branch", "On a branch others pulled I run `git merge main`;"
         " no rebasing there."),
    ),
    (
        "a rate and its period are one quantity",
        ("Telemetry loop period", "The telemetry loop samples every 100 ms."),
        ("Telemetry loop rate", "`sample_rate_hz = 10` for the telemetry loop."),
    ),
    (
        "an idle limit and a ceiling both hold",
        ("Admin session idle timeout", "Admin sessions time out after 20 minutes idle."),
        ("Longest admin session", "Busy or not, admin sessions end after 8 hours"
         " (adminSessionMaxAge 28800)."),
    ),
    (
        "a path the newer note still uses, under it or in a command",
        ("Where the build cache lives", "Build cache root `cache/`, this repo's entry"
         " `cache/web`."),
        ("Inspecting the web build cache", "List it with `ls -la cache/web`. A build writes"
         " under `cache/web/objects` (the build cache root keeps objects/ and refs/"
         " apart)."),
    ),
    (
        "two variables of one service that hold two roles",
        ("search URI", "SEARCH_CLUSTER_URI=https://search.internal.example"),
        ("Reaching the search cluster from CI", "URI https://search.internal.example behind"
         " the VPN. CI sets SEARCH_CLUSTER_TOKEN from `vault read search/ci`."),
    ),
    (
        "a name the newer note still names, in another form",
        ("where retries happen", "Never retry from a Consumer process; the scheduler"
         " retries after the failure is logged."),
        ("Scheduler and retries", "Scheduler.retry/2 re-enqueues the job itself once"
         " Repo.insert succeeds - Consumers only ack and never call Oban.retry."),
    ),
    (
        "notes titled for two scopes, whatever the values' own words",
        ("log level in production", "LOG_MODE=production drops everything below warnings."),
        ("log level locally", "In development no filtering is needed; the local compose"
         " runs LOG_MODE=development."),
    ),
    (
        "a burst limit and a daily quota",
        ("invite rate per IP", "POST /invites: 20 per minute per IP."),
        ("daily invite quota for API keys", "An API key may send 3000 invites a day; the"
         " per-IP limit still applies."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def test_a_key_names_its_unit_by_its_last_word_only() -> None:
    assert key_unit("HTTP_TIMEOUT_MS") == "ms"
    assert key_unit("retention.ms") == "ms"
    assert key_unit("cacheTtlSeconds") == "seconds"
    assert key_unit("pool_min") == ""  # a minimum, not minutes
    assert key_unit("timeout") == ""  # no last word to read
    assert key_unit("max_overflow") == ""


def test_urls_alike_by_a_host_name_that_is_not_only_the_shared_domain() -> None:
    assert urls_alike("https://sentry.io/a", "https://sentry.acme.net/b")
    assert urls_alike("https://x.io/org/acme/projects/web", "https://y.dev/org/acme/projects/ios")
    assert not urls_alike("https://grafana.acme.dev/", "https://status.acme.dev/")
    assert not urls_alike("https://api.openai.com/v1", "https://llm.acme.internal/v1")


def test_a_keyed_number_counts_what_its_key_names() -> None:
    from anamnesis.store.review.reading.value import Value

    keyed = Value("number", "200", "max_connections=200", slot="max_connections", keyed=True)
    said = Value("number", "400", "400", slot="connection", stems=frozenset({"primari", "take"}))
    other = Value("number", "400", "400", slot="worker", stems=frozenset({"primari"}))
    bare = Value("number", "7", "7")
    assert counts_alike(keyed, said)
    assert not counts_alike(keyed, other)  # ``max`` alone says nothing of which
    assert not counts_alike(bare, bare)  # a number with nothing beside it counts nothing


def test_a_fenced_block_of_configuration_is_read_a_setting_a_line() -> None:
    from anamnesis.store.review.reading.text import fenced_as_spans

    block = '```json\n"Simulation": {\n  "TickRate": 30,\n  "MaxPlayers": 16\n}\n```'
    assert fenced_as_spans(block) == '`"Simulation": {`\n`"TickRate": 30`\n`"MaxPlayers": 16`\n'
    assert fenced_as_spans("```python\nimport os\n```") == "```python\nimport os\n```"


def test_an_identifier_opening_its_sentence_names_what_a_value_is_of() -> None:
    """``TRANSFORM_WH auto-suspends after 300 s``: the warehouse is named, though a
    sentence's first capitalised word is otherwise read as no name."""
    note = Memory(
        id="01J0000000000000000000000A", type="semantic", title="Warehouse idle timeout",
        body="TRANSFORM_WH suspends after 300 s.",
    )  # fmt: skip
    facts = NoteFacts(note)
    named = {value.shown: value.named for value in facts.values(facts.clauses)}
    assert "transform_wh" in named["300 s"]


def test_a_setting_key_is_no_name_of_its_note() -> None:
    """``backupRetentionPeriod: 7`` keys a number: the key is not also a name to compare
    with another note's names (``preferredBackupWindow``)."""
    older = ("Prod database backups", "backupRetentionPeriod: 14 on prod.")
    newer = ("Checked the prod backup settings", "Prod keeps 14 days of automated backups,"
             " preferredBackupWindow 02:00-03:00 UTC, and deletionProtection is on.")  # fmt: skip
    assert compared(older, newer) == ()
