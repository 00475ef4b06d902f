"""The general alignment's loosened gates (:mod:`anamnesis.store.review.alignment_by_context`),
each beside the look-alike it must still leave alone:

* each note's only command is the way to do the task both notes are about, whatever
  words surround the two (a code generator, then another, for one API client), when
  the commands can be one task's (the newer said as a change, or doing what the older
  note's title names); two notes' only commands for two tasks, said without a change,
  stay two tasks.

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "each note's only command, the newer said as a change",
        (
            "Regenerating the API client",
            "From the repo root: `openapi-generator-cli generate -g typescript-axios`.",
        ),
        (
            "Codegen after a spec edit",
            "Now `orval --config orval.config.ts`. It regenerates"
            " the API client from the gateway's spec.",
        ),
        "command",
    ),
    (
        "each note's only command, the newer doing what the older note's title names",
        (
            "Publishing the docs",
            "`mkdocs gh-deploy --force` pushes the pages to the gh-pages branch.",
        ),
        ("Site hosting", "Netlify runs `npm run publish` on each merge to main."),
        "command",
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
]

test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)
