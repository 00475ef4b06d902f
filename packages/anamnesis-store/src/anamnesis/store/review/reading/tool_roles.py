"""What developer tools are for: two tools of one role, named by two notes of one project
for one thing, are two answers to one question ("Koin wires everything", "dependencies
are wired with kotlin-inject"), though no word of one note says so of the other.

Each role lists the tools a project picks one of for it (a terminal emulator, a Kotlin
dependency injector, a JavaScript test runner), each tool once, with its other spellings
after ``/`` (``postgres/postgresql``) and a multi-word name's words joined by ``+``
(``github+actions``). A role holds only tools one project does not run side by side for
one purpose: a linter and a formatter are two roles (ruff beside black is common), and
tools built on another one are left out (SQLModel on SQLAlchemy, Click under Typer).
A role's cue words name what it is for: a note that says them is about that role
whatever tool it names.

A tool whose name is also a common English word (``fish``, ``rocket``, ``express``) is
read only when written capitalised (:data:`WORDS`); the rest in lower case too, as a
command names them (:func:`.tool_names.tool_names`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

# role: (cue words, tools)
_ROLES: Final[dict[str, tuple[str, str]]] = {
    # tools on a developer's machine
    "terminal emulator": (
        "terminal emulator",
        "kitty wezterm alacritty iterm2/iterm ghostty konsole tilix gnome+terminal"
        " windows+terminal hyper",
    ),
    "terminal multiplexer": ("multiplexer", "tmux zellij byobu"),
    "interactive shell": ("shell", "zsh fish nushell/nu xonsh"),
    "editor": (
        "editor ide",
        "neovim/nvim emacs vscode/vs+code/visual+studio+code sublime+text helix zed"
        " intellij/intellij+idea pycharm webstorm goland rubymine cursor",
    ),
    "neovim plugin manager": ("plugin manager", "lazy.nvim vim-plug packer.nvim dein.vim"),
    "monospace font": (
        "font",
        "jetbrains+mono jetbrainsmono fira+code firacode cascadia+code iosevka"
        " source+code+pro sf+mono menlo monaco ubuntu+mono",
    ),
    "version manager": ("version manager", "asdf mise/rtx proto"),
    "node version manager": ("node version", "nvm fnm volta"),
    "ruby version manager": ("ruby version", "rbenv rvm chruby"),
    "container runtime on a laptop": (
        "docker desktop",
        "docker+desktop colima orbstack rancher+desktop podman+desktop",
    ),
    "local kubernetes": ("local cluster", "minikube kind k3d microk8s"),
    "dotfiles manager": ("dotfiles", "chezmoi yadm stow/gnu+stow dotbot"),
    # packaging and building
    "python package manager": (
        "package manager dependencies lock",
        "poetry pdm uv pipenv hatch rye pixi conda mamba micromamba",
    ),
    "javascript package manager": ("package manager lockfile", "npm yarn pnpm bun"),
    "python cli installer": ("cli tools", "pipx"),
    "javascript bundler": ("bundler bundle", "webpack vite rollup parcel rspack turbopack"),
    "javascript monorepo tool": ("monorepo", "turborepo/turbo nx lerna rush"),
    "jvm build tool": ("build tool", "maven/mvn gradle/gradlew ant sbt"),
    "c++ build system": ("build system", "cmake meson scons premake xmake"),
    "ios dependency manager": ("dependencies pods", "cocoapods carthage"),
    "container image builder": ("image build", "kaniko buildah jib ko buildpacks"),
    "git hooks manager": ("git hooks hook", "husky lefthook overcommit"),
    "dependency update bot": ("dependency updates", "dependabot renovate"),
    "python task runner": ("sessions", "nox tox"),
    # checking code
    "javascript test runner": ("test runner tests", "jest vitest mocha jasmine ava"),
    "browser test tool": (
        "e2e end-to-end browser tests",
        "cypress playwright puppeteer selenium webdriverio testcafe nightwatch",
    ),
    "python test runner": ("test runner tests", "pytest unittest nose nose2 ward"),
    "php test framework": ("tests", "phpunit pest codeception"),
    "ruby test framework": ("tests specs", "rspec minitest"),
    ".net test framework": ("tests", "xunit nunit mstest"),
    "jvm test framework": ("tests", "junit junit5 testng spock kotest"),
    "python build backend": (
        "build backend packaging",
        "setuptools hatchling flit-core/flit_core poetry-core pdm-backend maturin"
        " scikit-build-core",
    ),
    "python linter": ("linter lint", "flake8 pylint pyflakes"),
    "python formatter": ("formatter format", "black yapf autopep8 blue"),
    "python type checker": ("type checker types", "mypy pyright pytype pyre basedpyright"),
    "javascript linter": ("linter lint", "eslint tslint biome oxlint jshint standard"),
    "javascript formatter": ("formatter format", "prettier dprint"),
    "php static analyser": ("static analysis", "phpstan psalm phan"),
    "secret scanner": ("secret scanning secrets", "gitleaks trufflehog detect-secrets"),
    "coverage service": ("coverage", "codecov coveralls"),
    # continuous integration and delivery
    "ci service": (
        "ci pipeline pipelines",
        "github+actions gitlab+ci circleci travis/travis+ci jenkins buildkite drone woodpecker"
        " azure+pipelines teamcity bamboo concourse semaphore appveyor",
    ),
    "gitops controller": ("gitops", "argo+cd/argocd flux/fluxcd"),
    "infrastructure as code": (
        "infrastructure iac",
        "terraform opentofu pulumi cloudformation crossplane",
    ),
    "configuration management": ("configuration management", "ansible chef puppet saltstack"),
    "application host": (
        "hosting deploy deployed",
        "heroku vercel netlify fly.io/fly render railway",
    ),
    "service mesh": ("mesh", "istio linkerd"),
    "api gateway": ("gateway", "kong tyk krakend apigee"),
    # services a project runs or calls
    "relational database": (
        "database db",
        "postgres/postgresql mysql mariadb cockroachdb mssql/sql+server",
    ),
    "cache": ("cache", "redis memcached valkey keydb dragonfly"),
    "message broker": ("broker queue", "rabbitmq kafka nats pulsar activemq redpanda"),
    "search engine": (
        "search",
        "elasticsearch opensearch meilisearch typesense solr algolia",
    ),
    "vector database": ("vector", "pinecone weaviate qdrant milvus chroma pgvector"),
    "reverse proxy": ("proxy reverse proxy", "nginx caddy traefik haproxy envoy ingress-nginx"),
    "error tracker": ("errors error tracking", "sentry rollbar bugsnag honeybadger airbrake"),
    "metrics backend": ("metrics", "prometheus victoriametrics influxdb graphite datadog"),
    "tracing backend": ("traces tracing", "jaeger zipkin tempo honeycomb"),
    "feature flag service": ("feature flags flags", "launchdarkly unleash flagsmith growthbook"),
    "identity provider": ("auth login sso", "auth0 okta keycloak cognito clerk"),
    "payment provider": ("payments payment", "stripe braintree adyen paddle"),
    "email provider": (
        "email mail",
        "sendgrid mailgun postmark ses/amazon+ses mandrill resend sparkpost",
    ),
    "chat": ("chat channel", "slack discord mattermost zulip"),
    "issue tracker": ("issues tickets tracker", "jira linear youtrack shortcut"),
    "vpn mesh": ("vpn", "tailscale zerotier netbird"),
    "tunnel": ("tunnel", "ngrok cloudflared localtunnel"),
    "backup tool": ("backup backups", "restic borg/borgbackup kopia duplicity duplicati"),
    "workflow orchestrator": ("orchestrator dags pipelines", "airflow dagster prefect luigi"),
    "experiment tracker": ("experiments tracking", "mlflow wandb neptune clearml comet"),
    # libraries inside the code
    "python web framework": (
        "web framework",
        "django flask fastapi tornado pyramid sanic litestar quart bottle",
    ),
    "python asgi server": ("server", "uvicorn hypercorn daphne granian"),
    "node web framework": ("web framework server", "express koa fastify hapi nestjs hono"),
    "ruby web server": ("app server", "puma unicorn passenger thin falcon"),
    "ruby background jobs": ("jobs background", "sidekiq resque delayed_job good_job solid_queue"),
    "python task queue": ("task queue tasks workers", "celery rq dramatiq huey arq taskiq"),
    "node job queue": ("job queue jobs", "bull bullmq bee-queue agenda"),
    "python orm": ("orm models", "sqlalchemy peewee tortoise pony"),
    "node orm": ("orm", "prisma typeorm sequelize drizzle knex mikro-orm kysely objection"),
    "go orm": ("orm", "gorm ent sqlc sqlx"),
    ".net data access": ("data access orm", "entity+framework ef+core dapper nhibernate"),
    "database migration tool": (
        "migrations migration",
        "alembic flyway liquibase goose dbmate sqitch atlas",
    ),
    "python http client": ("http client", "requests httpx urllib3"),
    "javascript http client": ("http client", "axios ky got superagent ofetch"),
    "python data validation": ("validation schemas", "pydantic marshmallow cerberus voluptuous"),
    "javascript schema validation": ("validation schema", "zod yup joi valibot superstruct"),
    "python dataframe": ("dataframe dataframes", "pandas polars"),
    "python logging": ("logging logs", "structlog loguru"),
    "go logging": ("logging logger", "zap zerolog logrus slog"),
    "node logging": ("logging logger", "winston pino bunyan"),
    "jvm logging": ("logging", "logback log4j log4j2"),
    "python cli framework": ("cli", "argparse typer fire docopt"),
    "go cli framework": ("cli", "cobra kingpin"),
    "rust cli parser": ("cli arguments", "clap structopt argh"),
    "go web framework": ("router web framework", "gin echo chi fiber"),
    "rust web framework": ("web framework", "actix-web/actix axum rocket warp poem tide"),
    "rust async runtime": ("async runtime", "tokio async-std smol"),
    "ruby web framework": ("web framework", "rails sinatra hanami roda"),
    "php framework": ("framework", "laravel symfony codeigniter cakephp yii slim"),
    "frontend framework": ("frontend ui framework", "react vue angular svelte solid preact ember"),
    "frontend meta-framework": ("framework", "next.js/nextjs nuxt remix sveltekit gatsby"),
    "css framework": ("css styling", "tailwind/tailwindcss bootstrap bulma foundation"),
    "css preprocessor": ("css", "sass/scss less stylus"),
    "state management": (
        "state store",
        "redux mobx zustand recoil jotai pinia vuex ngrx xstate",
    ),
    "react data fetching": (
        "data fetching queries",
        "react-query/tanstack+query swr apollo+client rtk+query",
    ),
    "react forms": ("forms form", "formik react-hook-form final-form"),
    "date library": ("dates date", "moment dayjs date-fns luxon"),
    "i18n library": ("translations i18n", "i18next react-intl lingui"),
    "map library": ("map maps", "leaflet mapbox openlayers maplibre"),
    "chart library": ("charts chart", "chart.js recharts echarts highcharts nivo"),
    "docs site generator": (
        "docs documentation",
        "mkdocs sphinx docusaurus vitepress mdbook",
    ),
    "static site generator": ("site generator", "hugo jekyll eleventy/11ty zola hexo"),
    "mobile framework": (
        "mobile app",
        "flutter react+native xamarin maui/.net+maui cordova capacitor nativescript",
    ),
    "desktop app framework": ("desktop app", "electron tauri wails neutralino"),
    "game engine": ("engine", "unity unreal godot"),
    "scientific workflow manager": ("workflow pipeline", "snakemake nextflow cromwell cwltool"),
    "embedded rtos": ("rtos kernel", "freertos zephyr threadx/azure+rtos nuttx chibios riot"),
    "bevy physics": ("physics", "bevy_rapier2d bevy_rapier3d avian2d avian3d bevy_xpbd"),
    "kotlin dependency injection": (
        "dependency injection di",
        "koin kotlin-inject hilt dagger kodein",
    ),
    "jvm json library": ("json serialization", "jackson gson moshi kotlinx.serialization"),
    "android image loader": ("images image loading", "glide picasso coil fresco"),
    "machine learning framework": ("training models", "pytorch tensorflow jax"),
    "password hash": ("password hashing passwords", "bcrypt argon2/argon2id scrypt pbkdf2"),
    "compression codec": ("compression codec", "gzip brotli zstd lz4 snappy"),
    "serialization format": ("serialization schema", "protobuf avro thrift msgpack flatbuffers"),
}

# Tools named by a common English word (or a word of prose), read only when capitalised.
WORDS: Final = frozenset(
    """
    fish hyper helix zed cursor proto stow kind ant rush standard drone bamboo concourse
    semaphore flux chef puppet render railway kong tyk tempo sentry unleash okta clerk
    stripe paddle postmark resend slack discord linear shortcut borg prefect luigi comet
    neptune django flask tornado pyramid sanic quart bottle express koa hapi puma unicorn
    passenger thin falcon bull agenda pony ent atlas goose requests got fire chi echo fiber
    gin rocket warp poem tide smol rails sinatra hanami roda slim react vue angular svelte
    solid preact ember remix foundation less stylus recoil swr moment leaflet jekyll zola
    hexo flutter capacitor electron unity unreal ember koin hilt dagger jackson glide coil
    fresco jax snappy thrift ko rq arq huey zap nu pest ward ava blue rye pixi black
    bootstrap chroma dragonfly fly graphite honeycomb jasmine maui monaco mocha nose
    objection parcel pulsar sphinx spock tortoise turbo husky clap slog cobra travis hugo
    riot
    """.split()  # noqa: SIM905 - a word list reads best as words
)


def _spellings(names: str) -> dict[str, str]:
    """Each spelling of each tool in ``names``, lower case, to the tool's first one."""
    out: dict[str, str] = {}
    for tool in names.split():
        forms = [form.replace("+", " ") for form in tool.split("/")]
        for form in forms:
            out[form] = forms[0]
    return out


# every spelling, lower case: (role, the tool's first spelling)
TOOL_ROLES: Final[dict[str, tuple[str, str]]] = {
    spelling: (role, tool)
    for role, (_cues, names) in _ROLES.items()
    for spelling, tool in _spellings(names).items()
}
# each role's cue words, as said in prose (lower case)
ROLE_CUES: Final[dict[str, tuple[str, ...]]] = {
    role: tuple(cues.split()) for role, (cues, _names) in _ROLES.items()
}


def role_of(name: str) -> tuple[str, str] | None:
    """The role of a tool named ``name`` (any case) and the tool's one spelling, or None
    for a name no role holds."""
    return TOOL_ROLES.get(name.lower())
