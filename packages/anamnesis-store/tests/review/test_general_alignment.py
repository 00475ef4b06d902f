"""The general alignment's loosened gate (:mod:`anamnesis.store.review.alignment_by_context`),
beside the look-alikes it must still leave alone (each note's only command counted as
enough to align was taken out: 3 more pairs among 300 corpus notes; its look-alikes stay):

* two paths sharing two folders' names no project gives many folders (``backend`` and
  ``resources``; ``lua`` and ``marker``) lie in one tree, one place's, whatever words
  surround them; two paths sharing one such name are of two trees, and two things of one
  tree are still told apart by the filters (a config file beside a fixtures folder).

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from anamnesis.store.review import compare
from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "two folders of one project's tree, sharing two folders' names",
        (
            "Where test fixtures live",
            "Fixtures are read from `backend/src/test/resources/fixtures/`.",
        ),
        (
            "Adding a fixture",
            "Put new JSON under `backend/src/testFixtures/resources/` so Gradle shares it.",
        ),
        "path",
    ),
    (
        "two files of one plugin's tree, sharing two folders' names",
        ("Where marker's defaults live", "The defaults are kept in `lua/marker/config.lua`."),
        (
            "Adding an option to marker",
            "Each option and its default are declared in `lua/marker/options/init.lua`.",
        ),
        "path",
    ),
]

# (rule, older, newer)
LEFT: list[tuple[str, Note, Note]] = [
    (
        "each note's only command, two tasks",
        (
            "Regenerating the API client",
            "From the repo root: `openapi-generator-cli generate -g typescript-axios`.",
        ),
        (
            "Seeding the database",
            "`python manage.py loaddata fixtures.json` fills a fresh database.",
        ),
    ),
    (
        "each note's only command, another task of the site",
        (
            "Publishing the docs",
            "`mkdocs gh-deploy --force` pushes the pages to the gh-pages branch.",
        ),
        ("Site previews", "Netlify runs `npm run preview` on each pull request."),
    ),
    (
        "a file of one project's tree beside a folder of it, of two things",
        (
            "Where test fixtures live",
            "Fixtures are read from `backend/src/test/resources/fixtures/`.",
        ),
        ("Logging config", "Log levels are set in `backend/src/main/resources/logback.xml`."),
    ),
    (
        "two folders sharing one uncommon folder's name, two projects' trees",
        (
            "Where test fixtures live",
            "Fixtures are read from `backend/src/test/resources/fixtures/`.",
        ),
        ("Adding a mock", "Put new JSON under `frontend/src/mocks/resources/` so Vite serves it."),
    ),
]

test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def test_a_runner_alone_is_no_reordered_subcommand() -> None:
    """`pnpm dlx` alone names no tool (it runs one it is given, so its tool is empty):
    beside a command of three words it is no subcommand said in another order. The
    bench's review over the corpus and the set stopped on it with an IndexError."""
    assert not compare._reordered("prisma migrate deploy", "pnpm dlx")
    assert not compare._reordered("pnpm dlx", "prisma migrate deploy")
    assert compare._reordered("op get item", "op item get")
