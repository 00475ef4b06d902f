"""Values of the kinds number, version, port, URL and flag that two notes state for one
thing in constructions issue 42's tuning splits showed missed, and the look-alikes each
rule must leave alone:

* a setting said in prose "key is value", the value as code writes one: quoted
  ("log_format is 'json'") or an enum's constant ("id_strategy is ANY");
* a port the newer note says clashed with another thing on it ("collided with the
  dashboard on 3000") or another thing owns ("the sidecar owns 8080") is given up: what
  it states beside is the new port;
* a command given as a setting's value (a Procfile's ``web: ...``, a JSON field's
  ``"command": "serve --port=4010"``) gives its flags and ports as a command does;
* a tool's version and its package's of one more word (``ollama`` and the
  ``ollama-cuda`` image) are one tool's, when of one major version (``fastapi`` 0.115
  and ``fastapi-users`` 13 are two tools);
* a plural in -ings stems as its singular ("readings", "a reading");
* a number with its setting's key in parentheses after it ("every 45s
  (sync_interval)") is keyed by it, as a setting in code is;
* two titles' words before one kind of thing ("memory limits", "bandwidth limits") tell
  no two things apart when the values name their thing alike themselves: one key of
  joined words, two addresses of one service's name (a plain key, ``timeout``, names
  no thing);
* a line of code setting a camelCase key, key then value, is a setting, the
  statement's end (``;``) left off (``maxIter 200;``);
* the older value the newer note says did something ("15s hammered the upstream") is
  what it was, not a value the newer note states again for something else;
* a dependency written as TOML's inline table (``name = { version = "..." }``) pins the
  version of ``name``;
* a span in code that is one setting whose value is one token of any characters (a list
  joined by ``,`` or ``;``, a pattern) is that setting;
* an INI section written without a fence (``[core]`` then indented ``autocrlf =
  input``) sets its keys under the section's name, as a fenced one does;
* a plain word said to be a quoted value holding a mark no prose word does ("strategy
  is 'cache-first'") is a setting of that word;
* a block as HCL writes one on a line (``port "grpc" { static = 9090 }``) gives its
  settings under its name, a port block's number a port.

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from anamnesis.store.review.reading.text import stem
from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a setting said in prose as key is an enum's constant",
        ("Session store of the admin app", "settings.yaml: `session.store_kind: MEMORY`,"
         " fine while we run one replica."),
        ("Admin app replicas", "With three replicas the store_kind is REDIS in"
         " settings.yaml; sessions survive a pod restart."),
        "flag",
    ),
    (
        "a setting said in prose as key is a quoted value",
        ("Request logs of the gateway", "gateway.toml has `log_format = \"text\"` for"
         " people reading the console."),
        ("Gateway logs in Loki", "The log_format is 'json' now, so Loki can parse the"
         " fields of every request."),
        "flag",
    ),
    (
        "a port the newer note says clashed with another thing on it",
        ("Webhook receiver in development", "The receiver listens on port 4000;"
         " `cloudflared tunnel --url localhost:4000` exposes it."),
        ("Webhook receiver locally", "The receiver's port is 4100 in .env.local (it"
         " clashed with the admin UI on 4000). Point the tunnel at 4100."),
        "port",
    ),
    (
        "a port the newer note says another thing owns",
        ("Billing API port", "billing.http.port=9000 in application.conf."),
        ("Ports inside the billing pod", "The API answers on 9010 - the log shipper owns"
         " 9000 in that pod. Readiness probes go to the same port."),
        "port",
    ),
    (
        "a command given as a Procfile's line",
        ("Docs server port", "`hugo server` shows the docs at"
         " http://localhost:1313 while you edit."),
        ("Docs server in Procfile.dev", "```\ndocs: hugo server --port 1400"
         " --buildDrafts\napi: uvicorn app:main --reload\n```"),
        "port",
    ),
    (
        "a command given as a JSON field's value",
        ("Mock API in the workspace", "The workspace forwards 4010 for the Prism mock;"
         " open http://127.0.0.1:4010/docs."),
        ("workspace.json", "```json\n{\n  \"name\": \"shop-workspace\",\n"
         "  \"startCommand\": \"prism mock openapi.yaml --port=4020 --host=0.0.0.0\"\n}\n```"),
        "port",
    ),
    (
        "a tool's version and its image's of one more word",
        ("Model server pin", "requirements.txt pins `ollama==0.3.1`; later ones changed"
         " the pull API."),
        ("Model server image", "The compose file runs `ollama/ollama-cuda:0.5.4` with"
         " the GPU reserved."),
        "version",
    ),
    (
        "a plural in -ings and its singular are one word",
        ("Buoy telemetry", "Buoys buffer their readings and upload every 10 minutes to"
         " keep the modem asleep."),
        ("How often a buoy reports", "A buoy sends one reading every 30 minutes; the"
         " solar panel can't keep up with more."),
        "number",
    ),
    (
        "a number with its setting's key in parentheses after it",
        ("Mirror sync settings", "```yaml\nsync_interval: 15s\nsync_timeout: 5s\n```"),
        ("How often the mirror pulls upstream", "The mirror pulls from upstream every"
         " 45s (sync_interval) and gives up on a pull after 5s."),
        "number",
    ),
    (
        "one key of joined words under two titles' words",
        ("Uploader memory limits", "```ini\nchunk_size_mb = 8\nparallel_parts = 4\n```"),
        ("Uploader bandwidth limits", "The uploader sends chunk_size_mb = 32 per part"
         " over the fibre line."),
        "number",
    ),
    (
        "two addresses of one service's name under two titles' words",
        ("Help center site", "Articles are published to"
         " https://northwind.zendesk.com/hc/widgets."),
        ("Widgets support site", "Customers read the articles at"
         " https://support.northwind.io/widgets."),
        "url",
    ),
    (
        "a config line setting a camelCase key, ended by a semicolon",
        ("Solver settings for the coarse mesh", "```\nsolver      PCG;\nmaxIter     200;\n"
         "tolerance   1e-06;\n```"),
        ("Solver settings after the mesh refinement", "```\nsolver      PCG;\nmaxIter"
         "     800;\n```\nThe fine mesh needs the extra sweeps."),
        "number",
    ),
    (
        "the older value the newer note says did something, in the past",
        ("Mirror sync settings", "```yaml\nsync_interval: 15s\nsync_timeout: 5s\n```"),
        ("How often the mirror pulls upstream", "The mirror pulls from upstream every 45s"
         " (sync_interval); 15s hammered the upstream's rate limit."),
        "number",
    ),
    (
        "a dependency's version in a TOML inline table",
        ("ORM version", "```toml\n[tool.poetry.dependencies]\nsqlalchemy = { version ="
         " \"2.0.25\", extras = [\"asyncio\"] }\n```"),
        ("The ORM is on SQLAlchemy 2.0.31", "The lock file and pyproject moved to"
         " SQLAlchemy 2.0.31 for the async session fix."),
        "version",
    ),
    (
        "a setting whose value is a list joined by a comma",
        ("Display backend for the kiosk app", "The kiosk's unit sets `GDK_BACKEND=x11`;"
         " the touch overlay broke elsewhere."),
        ("Kiosk launcher environment", "The launcher exports `GDK_BACKEND=wayland,x11`"
         " now that the overlay works on both."),
        "flag",
    ),
    (
        "a setting whose value is a pattern",
        ("What the backup skips", "backup.yml: `exclude_regex: ^(tmp|cache)$` so"
         " scratch space stays out."),
        ("Backup exclusions", "```yaml\nexclude_regex: ^(tmp|cache|node_modules)$\n```"),
        "flag",
    ),
    (
        "an INI section written without a fence",
        ("Line endings on my machines", "Run `git config --global core.autocrlf true`"
         " on every machine."),
        ("My global git settings", "[core]\n    autocrlf = input\n    editor = nvim\n\n"
         "Line endings stay as committed."),
        "flag",
    ),
    (
        "a plain word said to be a quoted value as code writes one",
        ("Service worker caching", "sw.config.js: `runtimeCaching: { strategy:"
         " 'stale-while-revalidate' }` for the article pages."),
        ("Offline article pages", "For the article pages the strategy is 'cache-first'"
         " in the service worker config, so they open offline."),
        "flag",
    ),
    (
        "a block as HCL writes one on a line, a port block's number",
        ("Port of the api job", "jobs/api.nomad.hcl pins the port so the balancer finds"
         " it: `port \"grpc\" { static = 9090 }`."),
        ("Balancer targets for the api job", "The balancer's pool for the api job"
         " points at port 9095 on every client."),
        "port",
    ),
]  # fmt: skip

LEFT: list[tuple[str, Note, Note]] = [
    (
        "a plain word said to be an upper-case name is no setting",
        ("Who owns the billing service", "The billing service belongs to the payments"
         " team; page them for refunds."),
        ("Billing service on-call", "The contact is PAYMENTS on the rota; the team is"
         " small, so page one person."),
    ),
    (
        "a port the newer note still gives its thing, owned by no other",
        ("Billing API port", "billing.http.port=9000 in application.conf."),
        ("Who runs the billing pod", "The payments team owns the pod; its API answers on"
         " 9000 and the admin console on 9901."),
    ),
    (
        "a flag given in code without its program, with the same value",
        ("Encoding the tutorial videos", "`ffmpeg -i talk.mov -c:v libx264 -preset slow"
         " talk.mp4` for every recording."),
        ("Video encode settings", "The encode script keeps `-preset slow`; the files stay"
         " small enough for the CDN."),
    ),
    (
        "a value said for production, the other for staging",
        ("Production docs site", "The live docs are served from"
         " https://acme-docs.netlify.app (Netlify, main branch)."),
        ("Staging docs site", "Staging docs are served from https://docs.acme.io, built"
         " from the release branch."),
    ),
    (
        "a host given as a setting's value, the same host as the other's address",
        ("Syslog target", "Every host forwards syslog to"
         " https://logs.kestrel.lan:6514 over TLS."),
        ("Syslog forwarding config", "The forwarder's `target = logs.kestrel.lan`, port"
         " 6514, TLS on."),
    ),
    (
        "a command given as a JSON field's value, on the same port",
        ("Mock API in the workspace", "The workspace forwards 4010 for the Prism mock;"
         " open http://127.0.0.1:4010/docs."),
        ("workspace.json", "```json\n{\n  \"name\": \"shop-workspace\",\n"
         "  \"startCommand\": \"prism mock openapi.yaml --port=4010 --host=0.0.0.0\"\n}\n```"),
    ),
    (
        "a word of one title naming another thing still tells two things apart",
        ("Search engine for the catalog", "docker-compose.yml runs the"
         " `opensearchproject/opensearch:2.11.1` image for the catalog."),
        ("Search engine for audit logs", "the audit logs cluster pins"
         " `opensearchproject/opensearch:2.13.0`."),
    ),
    (
        "a scope's word naming one of two things the clauses both name",
        ("Preview server port", "The preview server listens on port 4173."),
        ("Mock API port", "The mock API server listens on port 4010."),
    ),
    (
        "a tool and a package of one more word, of two major versions",
        ("Backend package pins", "requirements.txt pins `fastapi==0.115.0` for the API."),
        ("Backend package pins after the audit", "requirements.txt pins"
         " `fastapi-users==13.0.0` for the API."),
    ),
    (
        "a number with another setting's key in parentheses after it",
        ("Mirror sync settings", "```yaml\nsync_interval: 15s\nsync_timeout: 5s\n```"),
        ("How long the mirror waits for upstream", "A pull gives up after 20s"
         " (connect_timeout) when the upstream is down."),
    ),
    (
        "a plain key under two titles' words",
        ("Unit test timeout", "pytest.ini sets `timeout = 30` for the unit suite."),
        ("End-to-end test timeout", "The browser suite's `timeout = 300` in its own"
         " pytest.ini."),
    ),
    (
        "the older value the newer note states again for something else",
        ("Report workers", "```yaml\nreport_workers: 8\n```"),
        ("Report workers after the split", "Reports run on 12 workers; 8 workers are"
         " dedicated to the nightly exports."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def test_a_plural_in_ings_stems_as_its_singular() -> None:
    """ "readings" and "a reading", "settings" and "setting" meet; "things" stays a
    thing, and a word in -ing is still stemmed as before."""
    assert stem("readings") == stem("reading") == stem("read")
    assert stem("settings") == stem("setting")
    assert stem("things") == stem("thing") == "thing"
