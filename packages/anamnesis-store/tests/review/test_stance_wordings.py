"""How a newer note's negation or replacement is read against an older note that states
what it turns against (issue 42's tuning splits showed each wording), and the look-alikes
each rule must leave alone:

* a word that says not to ("never", "not") before a thing names no kind of that thing:
  "the parser never raises" is about the raising "invalid input raises" states, while
  "release branches are never rebased" still speaks of other branches than "feature
  branches are rebased";
* the first word of a thing's name may only say which or how much of it ("the whole
  integration suite", "the standalone upload step is gone"): the rest of its name, two
  words at least, in one clause of the older note states it; not when the first word is
  an action ("never carries admin traffic" does not turn against "admin traffic: 9443"),
  nor when it says of what it is ("ownership of disk.yaml moved" is no move of the file);
* a thing said not to be used ("Provider isn't used"), or not to be done or be something
  any more ("APKs are not signed any more", "Backblaze isn't the backup target any
  more"): the thing is not (or no longer) used, and a doing said over is over; still not
  against a note of another scope;
* "with or without" after a negation says either way, no condition ("never hard-reset,
  with or without a backup branch"), while "without" alone still makes one ("never
  change the schema without a migration"); a compound word the negation is about first is
  named by all its parts ("hard-reset" by `git reset --hard`);
* a thing that "must never be" done to ("Jenkins must never be exposed") is the thing
  before, as after "must not be"; not another thing of its kind ("Prometheus must never
  be exposed" beside "Grafana is open to the internet");
* "moved the thumbnail jobs from Sidekiq to GoodJob" retires Sidekiq (what moved is said
  between), not GoodJob: a note that already used what things moved to still holds;
* "X was replaced by Y", "X is deprecated in favour of Y" retire X, never Y: a note that
  uses Y still holds;
* a retired package is named by the members of it the older note uses
  ("golang.org/x/exp/slices" by ``slices.SortFunc``); not by another package's members;
* a "no" in what an older clause's action is for ("so `go build` needs no network") does
  not negate the action, when that purpose starts with code as when it starts with a word;
  "stopped", like "never", names no kind of the thing after it;
* a thing kept or turned off ("I keep auto-import off", "the registry mirror is off") is
  negated, a compound named by its words ("auto import"); not a thing off only by default,
  and an older note that sets it off itself ("allow_signups: false") agrees;
* a thing that stays out of somewhere ("coverage/ stays out of git") is kept out, as
  said not to be there: a newer note that ignores it agrees;
* a tool named for its doing is named by the doing ("no compiler in the pre-push hook"
  against "the pre-push hook compiles the TypeScript");
* a negation of where to ("the exporter talks to that, never to the AMQP port") says
  where, not what: no negation of the AMQP port, as "never in Slack" is none of Slack;
* an older note's title naming all of a thing says what its body is about ("esbuild
  minifier" over "so esbuild shrinks the output" states the esbuild minifier); not for
  an action ("never send more than 50 emails" beside a title "Email sending rate");
* a word after a thing's name that only says its kind ("the old squash flag", "the npm
  step") is no part of what it names; another tool's flag of the same name is still
  another thing;
* the same for "property", "setting", "variable" in lower case ("no rabbitmq property is
  set any more" retires rabbitmq), not in a name ("Jenkins Variables");
* a thing named before a cue runs on past "to the", "of the" ("hand edits to the lock
  are not allowed" are edits, as "never edit Gemfile.lock by hand" says: the
  notes agree);
* "there's no yarn step any more" retires yarn, as "no yarn step any more" does; not
  what another scope still has;
* "stopped auto-merging X" stops a hyphenated doing, as "stopped merging X" does; "never
  point tests at X": the verb after "never" is what not to do, no kind of tests;
* a file "in .gitignore" or "git-ignored" is not to be committed; "X was renamed"
  retires the name X; "since we dropped X" retires X, said after its doer, not what
  came before;
* a name a note says it replaced ("Replaced nvm with fnm") is no state of that note to
  compare with another note's names;
* an older note saying not to use a thing agrees with a newer one saying it is obsolete;
* a thing that "reached end of support" (or of life) is retired;
* "them" in a negation may stand for what its own sentence names ("generate source maps
  and don't upload them"), not only for the title's subject: the words it says are asked
  for as written when the title's do not match;
* "for this board" (project, repo, app ...) after a negation's thing is the project
  itself, no part of the thing ("don't use the hotplate for this board").

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a negation word before a thing is no kind of it",
        ("Config errors in loader", "A malformed file raises loader::ParseError (a"
         " subclass of ValueError)."),
        ("loader and exceptions", "loader never raises. Callers get a Result with the"
         " parse error, since the CLI runs with panics disabled."),
        "negation",
    ),
    (
        "a negated thing named after a word for how much of it",
        ("Before tagging", "Run the complete test suite on the laptop before every tag."),
        ("Tagging a release", "Before tagging, never the entire test suite; the release"
         " job runs it on eight runners."),
        "negation",
    ),
    (
        "a retired thing named after a word for which one",
        ("Source maps", "After the build, a sentry-cli step uploads the source maps."),
        ("Source map upload", "The standalone sentry-cli step is gone: the Vite plugin"
         " uploads the maps during the build."),
        "replacement",
    ),
    (
        "a thing said not to be used",
        ("Screen state", "New screens wrap their state in a Provider."),
        ("State in the mobile app", "Provider isn't used in the app: screens read Riverpod"
         " notifiers."),
        "negation",
    ),
    (
        "a thing said not to be done any more",
        ("Release APKs", "CI signs the release APKs with the upload key."),
        ("Play App Signing", "Release APKs are not signed any more in CI; Play App Signing"
         " does it."),
        "replacement",
    ),
    (
        "a thing said not to be something any more",
        ("Nightly backups", "Nightly backups are copied to Backblaze B2."),
        ("Backup target", "Backblaze isn't the backup target any more; backups go to the"
         " NAS in the office."),
        "replacement",
    ),
    (
        "a negation either way, of a compound word named by its parts",
        ("Build host", "Deploy bots may run `git reset --hard origin/main` on the build"
         " host."),
        ("Rules for deploy bots", "- never hard-reset, with or without a backup branch:"
         " ask first\n- never edit files on the host"),
        "negation",
    ),
    (
        "a thing that must never be done to",
        ("CI server access", "Jenkins listens on 0.0.0.0:8080 so contractors can reach it"
         " from home."),
        ("After the audit", "We closed the firewall rule; Jenkins must never be exposed to"
         " the internet again. Contractors use the VPN."),
        "negation",
    ),
    (
        "what moved said between the cue and what it moved from",
        ("Thumbnails", "Thumbnails are generated by Sidekiq workers on the Redis queue."),
        ("Background jobs", "Moved the thumbnail and export jobs from Sidekiq to GoodJob;"
         " they run out of Postgres now."),
        "replacement",
    ),
    (
        "a retired package named by a member of it",
        ("Sorting rows", "internal/report orders the rows with slices.SortFunc before"
         " writing."),
        ("x/exp in the report service", "`golang.org/x/exp/slices` is deprecated since Go"
         " 1.21; the standard library has it."),
        "replacement",
    ),
    (
        "an action whose purpose, starting with code, holds a 'no'",
        ("Vendored modules", "The repo vendors its dependencies under vendor/ so `go"
         " build` needs no network access."),
        ("Module downloads", "We stopped vendoring dependencies; the module proxy cache"
         " serves every build."),
        "negation",
    ),
    (
        "a thing kept off, a compound named by its words",
        ("Editor setup", "Auto import is on in every workspace of the monorepo."),
        ("Imports in the editor", "I keep auto-import off: it pulls symbols from the wrong"
         " packages."),
        "negation",
    ),
    (
        "a thing said to be off",
        ("Image pulls", "Image pulls go through the registry mirror on every node."),
        ("After the mirror outage", "The registry mirror is off since the outage; nodes"
         " pull from Docker Hub directly."),
        "negation",
    ),
    (
        "a thing said to stay out of somewhere",
        ("Generated client", "Commit the generated client in gen/ so consumers skip the"
         " codegen step."),
        ("Client generation", "gen/ stays out of the repo from now on; consumers run the"
         " codegen themselves."),
        "negation",
    ),
    (
        "a tool named for its doing",
        ("Pre-push checks", "The pre-push hook compiles the TypeScript with `tsc --noEmit`"
         " before every push."),
        ("Pre-push hook, lighter", "No compiler in the pre-push hook: it took a minute;"
         " CI type-checks every branch."),
        "negation",
    ),
    (
        "a thing named whole by the older note's title",
        ("esbuild minifier", "Bundle with `minify: true` so esbuild shrinks the output."),
        ("Bundle size", "We don't use the esbuild minifier: terser runs after bundling and"
         " saves another 8%."),
        "negation",
    ),
    (
        "a retired thing named with the kind of thing it is",
        ("Image builds", "The Dockerfile is built with `docker build --squash` to keep"
         " the layers few."),
        ("Smaller images", "The old squash flag is deprecated in BuildKit; multi-stage"
         " builds keep the image small."),
        "replacement",
    ),
    (
        "a thing there is none of any more",
        ("Web build", "Deploys run `cd web && yarn install && yarn build`, then copy dist/"
         " to the bucket."),
        ("Web build in the release", "`mix assets.deploy` builds the web app with the"
         " Vite plugin; there's no yarn step any more."),
        "replacement",
    ),
    (
        "a thing set no more, named with the kind of setting it is",
        ("Broker address", "The app reads its broker from `spring.rabbitmq.addresses` in"
         " application.yml."),
        ("Broker config", "No rabbitmq property is set in application.yml any more; the"
         " address comes from BROKER_URL."),
        "negation",
    ),
    (
        "a negated place, named with a kind word in a name",
        ("Secrets for pipelines", "Keep the deploy tokens that pipelines need as Jenkins"
         " Variables and read them with env.get()."),
        ("Tokens never go in Jenkins Variables", "Do not put tokens in Variables: every"
         " job log can print them. Use the credentials store."),
        "negation",
    ),
    (
        "a hyphenated doing stopped",
        ("Auto-merge", "Dependabot PRs are auto-merged when CI is green."),
        ("Dependabot", "We stopped auto-merging Dependabot PRs after a broken minor release."),
        "negation",
    ),
    (
        "a thing said never to be pointed at, its verb no kind of it",
        ("Tests against prod data", "Integration tests run against a copy of prod data."),
        ("Test data", "Never point tests at prod data, not even a copy; use the seeded"
         " fixtures."),
        "negation",
    ),
    (
        "a file the newer note says is in .gitignore",
        ("Committing lockfiles", "Commit package-lock.json with every dependency change."),
        ("Lockfile policy", "package-lock.json is in `.gitignore`; this library ships"
         " without a lockfile."),
        "negation",
    ),
    (
        "a branch the newer note says we dropped, its new one before",
        ("Release branch", "Production deploys come from `release/next`; cut it from main"
         " on Tuesdays."),
        ("Production branch", "Production deploys from `trunk` since we dropped the release"
         " branch: merge main into trunk to release."),
        "replacement",
    ),
    (
        "a framework the newer note says reached its end of support",
        ("Desktop stack", "The desktop client is Electron 22 with a React renderer."),
        ("Desktop client stack", "The client was rebuilt on Tauri 2. Electron 22 reached end of"
         " support in 2023 and the old repo is archived."),
        "replacement",
    ),
    (
        "a name the newer note says was renamed",
        ("Deploy branch", "Merges to `master` deploy to production."),
        ("Release branch", "Production deploys from `main`; `master` was renamed."),
        "replacement",
    ),
    (
        "a negation of doing something to them, what its own sentence names",
        ("Source maps in production", "Upload the source maps beside the web bundle to the"
         " CDN, so stack traces resolve in the browser."),
        ("Building the web bundle", "Generate source maps at build time and don't upload"
         " them to the CDN; the error tracker gets them in CI."),
        "negation",
    ),
    (
        "a negation of a thing for this board",
        ("Reflow", "Assemble with the hotplate: paste through the stencil, then reflow at"
         " 235 C."),
        ("Assembly", "Don't use the hotplate for this board; JLC assembles it."),
        "negation",
    ),
]  # fmt: skip

LEFT: list[tuple[str, Note, Note]] = [
    (
        "an older note says not to use what the newer says is obsolete",
        ("Emacs libraries", "We don't require cl; only cl-lib."),
        ("Byte-compile warnings", "If the compiler warns that `cl` is obsolete, someone added"
         " (require 'cl) again."),
    ),
    (
        "two notes each replacing a tool, the one each replaced no state to compare",
        ("Tool versions are managed with mise", "Replaced asdf with mise; it reads the"
         " existing `.tool-versions`, so repos didn't change. Run `mise install` in a repo"
         " to get its pinned versions. Use `mise activate zsh` rather than shims, since"
         " shims confused Neovim's LSP."),
        ("Fixed slow zsh startup", "New shells took 1.8s to start; `zprof` showed nvm init"
         " costing 1.2s. Replaced nvm with fnm (`eval \"$(fnm env --use-on-cd)\"`) and"
         " lazy-loaded kubectl completion; startup is now around 140ms."),
    ),
    (
        "two kinds of one thing, one of them never done",
        ("Branch hygiene", "Feature branches are rebased onto main before the merge."),
        ("Release branch rules", "Release branches are never rebased; hotfixes are"
         " cherry-picked onto them."),
    ),
    (
        "an action its note never does, on a thing the other note states",
        ("Admin port", "Admin traffic: TCP 9443."),
        ("Health probe endpoint", "The probe server answers /healthz on 8081 for the"
         " load balancer; it never carries admin traffic."),
    ),
    (
        "a thing said not to be used in another scope",
        ("Staging deploys", "The staging deploy uses the blue-green script."),
        ("Production deploys", "Blue-green isn't used in production: prod deploys roll"
         " the pods one at a time."),
    ),
    (
        "a negation with a condition",
        ("Schema changes", "Change the schema through Alembic migrations."),
        ("Schema rules", "Never change the schema without a migration that can be rolled"
         " back."),
    ),
    (
        "another thing of its kind that must never be done to",
        ("Dashboards from outside", "Grafana is open to the internet behind SSO."),
        ("Metrics store", "Prometheus must never be exposed to the internet; Grafana"
         " queries it inside the VPC."),
    ),
    (
        "what things moved to, which the older note already used",
        ("Report exports", "Report exports run as GoodJob jobs."),
        ("Background jobs", "Moved the thumbnail jobs from Sidekiq to GoodJob as well."),
    ),
    (
        "what a thing was replaced by, which the older note already used",
        ("Search backend", "Search queries go to the Typesense cluster."),
        ("Search history", "Algolia was replaced by the Typesense cluster last spring."),
    ),
    (
        "what a thing is deprecated in favour of, which the older note already used",
        ("Date handling", "Dates are parsed with date-fns everywhere."),
        ("Moment in the web app", "moment is deprecated in favour of date-fns in new"
         " code."),
    ),
    (
        "a retired package beside another package's members",
        ("Reading files", "The loader reads the manifest with os.ReadFile."),
        ("ioutil in the loader", "`io/ioutil` is deprecated since Go 1.16."),
    ),
    (
        "a thing off only by default",
        ("Chasing a bug", "Turn on debug logging with LOG_DEBUG=1 when chasing a bug."),
        ("Logging defaults", "Debug logging is off by default in every service."),
    ),
    (
        "a thing off, which the older note sets off too",
        ("Gitea accounts", "`allow_signups: false` in the Gitea config; accounts come from"
         " LDAP."),
        ("Creating Gitea users", "Signups are off: every account is created from LDAP."),
    ),
    (
        "a thing kept out, which the newer note ignores",
        ("Coverage reports", "coverage/ stays out of git; CI uploads the report."),
        ("Running tests", "Run `pytest --cov` locally; no report is ever committed"
         " (coverage/ is ignored)."),
    ),
    (
        "a negation of where to",
        ("Broker port", "Workers connect to the AMQP port, 5672, in dev."),
        ("Metrics port", "Prometheus scrapes 15692; the exporter talks to that, never to"
         " the AMQP port."),
    ),
    (
        "an action named by the older note's title",
        ("Email sending rate", "The sender throttles SES at 50 emails a second."),
        ("Email throughput", "We never send more than 50 emails a second; that is the SES"
         " quota and the sender enforces it."),
    ),
    (
        "another tool's flag of the same name",
        ("Debugging deploys", "Pass `--verbose` to the deploy script when debugging."),
        ("Test output", "The test runner's verbose flag is deprecated; set the log level"
         " instead."),
    ),
    (
        "a thing there is none of any more in another scope",
        ("Staging deploys", "The staging deploy waits for a manual approval in the"
         " pipeline."),
        ("Production deploys", "Production merges deploy on their own; there's no manual"
         " approval in production any more."),
    ),
    (
        "a thing's owner moved, not the thing",
        ("Disk alerts", "The disk alert rule lives in infra/alerts/disk.yaml."),
        ("Alert ownership", "Ownership of infra/alerts/disk.yaml moved to the SRE team in"
         " March."),
    ),
    (
        "one negation said twice, once before its cue",
        ("Gemfile.lock", "Never edit Gemfile.lock by hand; change the Gemfile and run"
         " `bundle install`."),
        ("Updating a gem", "Bump the version in the Gemfile, then `bundle install` to"
         " regenerate the lock. Hand edits to the lock are not allowed."),
    ),
    (
        "a negation of doing something to them, elsewhere than the older note does it",
        ("Source maps in production", "Upload the source maps beside the web bundle to the"
         " CDN, so stack traces resolve in the browser."),
        ("Building the web bundle", "Upload the source maps to the CDN as before; don't"
         " upload them to the staging bucket."),
    ),
    (
        "the same thing for this board, another thing negated",
        ("Reflow", "Assemble with the hotplate: paste through the stencil, then reflow at"
         " 235 C."),
        ("Assembly", "Use the hotplate for this board too; don't use the hot air station."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)
