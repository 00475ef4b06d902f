"""Commands, negations and replacements the contradiction finder must find, by family
(issue 42's tuning splits showed each family in two or more splits), each beside a
look-alike of the same shape it must leave alone:

* a negation of a thing named with its owner ("we do not use Rails's server-side session
  store"), the older note saying it is done ("sessions are stored server-side"): the
  owner's name is a determiner, the rest of the thing's words name it; and a participle
  after "are" says how a thing is done, no kind of it (not "server-side" sessions of
  another kind than the store's);
* a thing the newer note works with turned off ("go out with symbol upload off"), the
  older saying it is on; "With X off, ..." opening a sentence is a condition, no ban;
* a negation of doing something to "them" or "it" ("do not check them in") is about what
  the note's title names, against an older clause that does something to it ("Commit
  the vendored wheels"), not one that only describes it;
* a program said in prose by its path in a bin folder (./vendor/bin/phpunit);
* a runner's own flags before its word (``npm --workspace @acme/api exec
  graphql-codegen``): the program is the one after the word, as without the flags;
* a class's method said to be gone ("Session.merge is gone") against an older note
  calling it on an object of any name (``session.merge(row)``);
* a thing said to have moved or migrated out of another ("moved out of the
  pg_search extension"): the other, as "moved from" it, is retired for it.

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from pair_checks import Note, wording_tests

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a negation of a thing named with its owner ('Rails's'), said as done in the older"
        " note ('are stored server-side')",
        (
            "Where sessions live",
            "Sessions are stored server-side in Redis, so a deploy keeps users signed in.",
        ),
        (
            "Session handling",
            "We do not use Rails's server-side session store; a signed cookie holds the session.",
        ),
        "negation",
    ),
    (
        "a thing the newer note does its work with turned off, the older saying it is on",
        ("Crash reports", "Symbol upload is on for every release build, so traces read well."),
        (
            "Shipping a release build",
            "Release builds go out with symbol upload off; the vendor kept our sources.",
        ),
        "negation",
    ),
    (
        "a negation of doing something to 'them', the note's titled thing",
        (
            "Vendored wheels",
            "Commit the vendored wheels under vendor/ after each upgrade, so offline builds work.",
        ),
        (
            "Vendored wheels and git",
            "CI fetches the wheels from the mirror now; do not"
            " check them in, they bloated every clone.",
        ),
        "negation",
    ),
    (
        "a runner's flags before its word: the program it runs is after them",
        (
            "Regenerating API types",
            "Run `npm --workspace @acme/api exec graphql-codegen` after editing the schema.",
        ),
        (
            "Regenerating API types after a schema edit",
            "`npm run codegen` from the repo root; it caches the output.",
        ),
        "command",
    ),
    (
        "a class's method said to be gone, the older note calling it on an object",
        (
            "Saving a batch",
            "For each row: `tx.merge(row)` inside one transaction, then commit.",
        ),
        (
            "Session.merge is gone",
            "Our ORM 3 upgrade removed Session.merge; batches go through `bulk_upsert(rows)` now.",
        ),
        "replacement",
    ),
    (
        "a thing said to have moved out of what the older note says provides it",
        (
            "Enabling full-text search",
            "`CREATE EXTENSION pg_search;` gives us BM25 ranking and the fuzzy matchers.",
        ),
        (
            "Fuzzy matching",
            "The fuzzy matchers moved out of the pg_search extension in"
            " 0.9; we also run `CREATE EXTENSION pg_fuzzy;`.",
        ),
        "replacement",
    ),
    (
        "a program said in prose by its path in a bin folder",
        (
            "Linting the frontend",
            "Lint the sources with ./node_modules/.bin/eslint from the web folder.",
        ),
        ("Frontend lint", "`pnpm biome check src` is what CI runs; it is faster."),
        "command",
    ),
]

LEFT: list[tuple[str, Note, Note]] = [
    (
        "a class's method said to be gone, the older note calling another method",
        (
            "Saving a batch",
            "For each row: `tx.add(row)` inside one transaction, then commit.",
        ),
        (
            "Session.merge is gone",
            "Our ORM 3 upgrade removed Session.merge; upserts go through `bulk_upsert(rows)` now.",
        ),
    ),
    (
        "a line of lower-case words with a path that is a sentence",
        (
            "Loading the sketch onto a board",
            "`arduino-cli upload -p /dev/ttyACM0 blink` after compiling.",
        ),
        ("Flashing boards", "plug it into /dev/ttyACM0 and wait for the LED"),
    ),
    (
        "a negation of doing something to 'them' beside an older note doing nothing to it",
        ("Vendored wheels", "The vendored wheels under vendor/ are built for Linux only."),
        ("Vendored wheels and git", "Do not edit them by hand; rebuild with the script."),
    ),
    (
        "a thing turned off only as a condition opening the sentence",
        ("Crash reports", "Symbol upload is on for every release build, so traces read well."),
        (
            "Shipping a release build",
            "With symbol upload off, a release build takes two minutes less.",
        ),
    ),
    (
        "a negation of one owner's thing beside another kind of it",
        ("Where sessions live", "Sessions are kept in Redis; the cookie holds only the id."),
        ("Session handling", "We do not use Rails's encrypted cookie session store."),
    ),
    (
        "one program's two subcommands on one target: two tasks",
        ("Checking the storefront", "`pnpm lint storefront` with the strict rules."),
        ("Shipping", "`pnpm build storefront` then upload the bundle."),
    ),
    (
        "a word of the older title said before another program's command that does another"
        " thing, in a note of many commands",
        ("Running the end-to-end checks", "`npx cypress run` headless against the preview."),
        (
            "Release day",
            "Tag the checks with `git tag -s v2`, then `npm publish`, then `gh release create v2`.",
        ),
    ),
]

test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)
