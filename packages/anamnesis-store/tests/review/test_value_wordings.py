"""How developers write commands, flags, paths, URLs and names, and how the finder reads
each wording: a command the newer note says fails or is of the past, a fenced shell block,
a build tool's task, an object's fields, an address given to a flag, a setting given to a
command, an identifier renamed, a name the older note already says, an acronym's plural.
Each rule with a pair it must find and, where it could overreach, a pair it must leave
alone. The pairs are written here, not taken from the measured set (bench/contradictions)."""

from __future__ import annotations

from anamnesis.store.review.reading.commands import (
    mentions,
    retired_in,
    retiring_clauses,
    tool_of,
)
from anamnesis.store.review.reading.text import fenced_as_spans
from pair_checks import Note, kinds_norms_slots, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "an older command the newer note says fails, named in prose",
        ("Building the docs site", "Build the docs with `mkdocs build --strict` from the"
         " docs folder."),
        ("Docs site builds through just", "Use `just site`. mkdocs build alone fails since"
         " the plugins moved into the hatch env."),
        "command",
    ),
    (
        "an older command the newer note puts in the past, one program's two tasks",
        ("Checking types", "Type-check with `npm run typecheck` before pushing."),
        ("Type checks in CI", "CI type-checks with `npm run check:types`; npm run typecheck"
         " was removed from package.json."),
        "command",
    ),
    (
        "an older command the newer note says fails, named in code",
        ("Regenerating API clients", "Regenerate the clients with `openapi-generator"
         " generate -i api.yaml`."),
        ("API client generation", "Run `make clients`. A bare `openapi-generator generate"
         " -i api.yaml` fails without the templates."),
        "command",
    ),
    (
        "a fenced shell block's lines are commands",
        ("Publishing the docs", "```\ncd site\nhugo --minify\nrsync -a public/"
         " web1:/srv/docs\n```"),
        ("Docs publishing", "The docs publish with `wrangler pages deploy public`; nobody"
         " runs rsync to web1 anymore."),
        "command",
    ),
    (
        "a build tool's tasks are its subcommands",
        ("Release bundle for the store", "Build the store bundle with `./gradlew"
         " bundleRelease`."),
        ("Store bundle with flavors", "The store bundle is `./gradlew :app:bundleProdRelease`"
         " now; bundleRelease is ambiguous since the flavors."),
        "command",
    ),
    (
        "an object's fields in code are settings",
        ("CSRF cookie flags", "The CSRF cookie is sent with `httpOnly: false, sameSite:"
         " 'strict'`."),
        ("CSRF cookie for the widget", "The CSRF cookie is `sameSite: 'none'` now, for the"
         " embedded widget."),
        "flag",
    ),
    (
        "an address given to a flag in code is a URL",
        ("Private package mirror", "pip installs with `--index-url"
         " https://mirror.corp.example/pypi/simple` on the build hosts."),
        ("Private package mirror address", "The build hosts install from"
         " https://artifacts.corp.example/api/pypi/simple instead."),
        "url",
    ),
    (
        "a branch written as a path is a name",
        ("Deploy branch", "Production deploys build from `release/current`."),
        ("Production deploys come from the prod branch", "Production builds from `prod` now;"
         " the release manager fast-forwards it."),
        "name",
    ),
    (
        "an identifier alone in notes on one subject",
        ("Orders queue name", "Order events are consumed from `orders_inbound` by the"
         " fulfilment worker."),
        ("Orders queue of the fulfilment worker", "The fulfilment worker subscribes to"
         " `orders.inbound.v2`, with one consumer per pod."),
        "name",
    ),
]  # fmt: skip

# (rule, older, newer): notes that look alike and both hold.
LEFT_ALONE: list[tuple[str, Note, Note]] = [
    (
        "a command the older note itself says not to run",
        ("No manual applies", "Never run `terraform apply` by hand; the pipeline applies."),
        ("Applies from the pipeline", "Run `make plan` to preview; a manual terraform apply"
         " fails on the locked state anyway."),
    ),
    (
        "a newer command said beside an older one still run",
        ("Running the unit tests", "`pytest tests/unit` runs the unit tests in a minute."),
        ("Running the browser tests", "`playwright test` runs the browser tests; they need"
         " the dev server up."),
    ),
    (
        "a name the older note already says",
        ("Don't deploy with Heroku from a laptop", "Never push to Heroku by hand; Buildkite"
         " deploys after merge."),
        ("Deploys only through Buildkite", "Only Buildkite deploys, after review."),
    ),
    (
        "an acronym's plural is no name",
        ("Effective batch of the ranker", "The effective batch is 512: 64 per device, 8"
         " GPUs."),
        ("Ranker batch settings", "per_device_batch 64 across the 8 Nvidia cards (64 x 8 ="
         " 512)."),
    ),
    (
        "two identifiers in notes sharing one subject word",
        ("Orders queue name", "Order events are consumed from `orders_inbound` by the"
         " fulfilment worker."),
        ("Orders table retention", "The fulfilment worker prunes `orders_archive`"
         " nightly."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT_ALONE)


_read = kinds_norms_slots


def test_a_build_tools_task_is_a_subcommand_an_argument_is_not() -> None:
    assert tool_of("./gradlew assembleRelease") == "./gradlew assembleRelease"
    assert tool_of("./gradlew :app:assembleRelease") == "./gradlew :app:assembleRelease"
    assert tool_of("pnpm test:unit --watch") == "pnpm test:unit"
    assert tool_of("gunicorn app:api --workers 4") == "gunicorn"


def test_a_command_is_named_by_its_tool_its_program_and_its_own_task() -> None:
    assert mentions("flake8 src tests") == ("flake8 src tests", "flake8")
    # the newer note runs cargo itself: its "cargo" is not the older "cargo test"
    assert mentions("cargo test --workspace", frozenset({"cargo"})) == ("cargo test",)
    assert "bundlerelease" in mentions("./gradlew bundleRelease", frozenset({"./gradlew"}))


def test_a_command_is_retired_where_a_clause_says_it_fails_or_is_past() -> None:
    def retired(command: str, clauses: list[str]) -> bool:
        return retired_in(command, retiring_clauses(clauses))

    assert retired("make docs", ["make docs took four minutes"])
    assert retired("make docs", ["Nobody runs make docs anymore"])
    assert retired("npx tsc -b", ["a bare tsc -b fails in the monorepo"])
    assert not retired("make docs", ["make docs builds the site"])
    assert not retired("make docs", ["make docs was kept for the API pages"])
    assert not retired("make docs", ["the build failed", "make docs builds the site"])
    # the clauses a note says something fails in are filtered once, before any command
    assert retiring_clauses(["make docs builds the site", "the build failed"]) == [
        "the build failed"
    ]


def test_fenced_shell_lines_are_code_spans_other_languages_are_not() -> None:
    shell = "Deploy:\n```bash\n# from the root\n$ cd infra\nterraform apply\n```\nDone."
    assert fenced_as_spans(shell) == "Deploy:\n`cd infra` `terraform apply`\n\nDone."
    python = "```python\nimport os\n```"
    assert fenced_as_spans(python) == python
    read = _read("```\ncd infra/prod\nterraform apply -auto-approve\n```")
    assert ("command", "terraform apply -auto-approve", "") in read
    assert ("path", "infra/prod", "") in read  # `cd` says where, it is no task


def test_values_in_code_of_other_shapes() -> None:
    # a program by its path and its task, not a key and its value
    assert ("command", "./gradlew installrelease", "") in _read("`./gradlew installRelease`")
    # an object's fields
    fields = _read("Sent with `httpOnly: true, sameSite: 'lax'`.")
    assert ("flag", "lax", "samesite") in fields
    assert ("flag", "true", "httponly") in fields
    # an address given to a flag
    assert ("url", "pypi.corp.example/simple", "") in _read(
        "Use `--index-url https://pypi.corp.example/simple` there."
    )
    # a pin given to a command: the package's version
    assert ("version", "2.31.0", "requests") in _read('Run `pip install "requests==2.31.0"`.')


def test_a_branch_is_a_name_a_folder_a_path() -> None:
    assert ("name", "feature/sso-login", "") in _read("Rebase `feature/sso-login` daily.")
    assert ("name", "hotfix/2.4.1", "") in _read("Cut hotfix/2.4.1 from the tag.")
    assert ("path", "features/auth", "") in _read("The slice lives in `features/auth/`.")
    assert ("path", "release/notes.md", "") in _read("Edit `release/notes.md` first.")


def test_an_acronyms_plural_is_no_name() -> None:
    assert not [value for value in _read("It trains on 4 GPUs.") if value[0] == "name"]
