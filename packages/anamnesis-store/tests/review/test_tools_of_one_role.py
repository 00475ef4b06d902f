"""Two tools of one role (:mod:`anamnesis.store.review.reading.tool_roles`) as one thing's
older and newer answer, and the look-alikes the rule must leave alone:

* two notes each naming one tool of a role, never the other's, about one thing (a title
  word they share, or a word of the role both say: "terminal", "dependency
  injection", "physics") state two answers, whether the tool is written capitalised, in
  lower case or first in its sentence ("Koin wires ...");
* a name read only because a role knows it (``recharts``, ``date-fns``) is compared only
  as a tool of its role: two roles' tools are two jobs';
* a note naming both tools (a comparison, a trial) states no single answer;
* titles naming one thing with two words before it ("Unit tests", "Legacy tests") name
  two parts of the role's work, each of which may hold its own tool; a note titled by
  the role's word ("Cache") beside one on another job that holds a tool of the role
  (a rate limiter's Memcached) is no answer changed (checked at the compare stage:
  such notes are a review's neighbours by meaning, with vectors);
* a tool named only to say nobody else uses it is no answer of the other note's;
* what the two tools differ in is said as their role ("kotlin dependency injection").

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

from anamnesis.store import MemoryStore
from anamnesis.store.review.reading.tool_roles import ROLE_CUES, TOOL_ROLES, role_of
from pair_checks import Note, compared, wording_tests, write

FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "two terminal emulators, one in lower case",
        ("Terminal emulator", "kitty on every machine, config in ~/.config/kitty/kitty.conf."),
        ("My terminal setup", "Terminal is WezTerm (~/.wezterm.lua, same file on macOS and"
         " Linux)."),
        "name",
    ),
    (
        "two dependency injectors, the older first in its sentence",
        ("Wiring the shared module", "Koin wires the repositories: `startKoin {"
         " modules(dataModule) }` in both apps, all dependency injection in one place."),
        ("How the apps get their dependencies", "Dependency injection is kotlin-inject now,"
         " generated at compile time by KSP."),
        "name",
    ),
    (
        "two physics crates written with underscores and digits",
        ("Physics in the platformer", "Collisions come from bevy_rapier2d (colliders built"
         " in `physics.rs`)."),
        ("Platformer physics after the rewrite", "Rigid bodies and collisions use avian2d,"
         " which is ECS-native."),
        "name",
    ),
]  # fmt: skip

LEFT: list[tuple[str, Note, Note]] = [
    (
        "two tools of two roles, read only because a role knows them",
        ("Charts on the reports page", "The reports page draws its charts with recharts."),
        ("Dates on the reports page", "The reports page formats dates with date-fns."),
    ),
    (
        "a note naming both tools of the role",
        ("Terminal emulator", "kitty on every machine, config in ~/.config/kitty/kitty.conf."),
        ("Trying another terminal", "Comparing kitty and WezTerm this week; kitty stays"
         " until WezTerm's ligatures work."),
    ),
    (
        "titles naming two parts of the role's work, one word apart",
        ("Unit tests", "Unit tests run with pytest; `pytest -q` before pushing."),
        ("Legacy tests", "The old integration tests still use unittest; nobody rewrote"
         " them."),
    ),
    (
        "the other note's tool named to say nobody else uses it",
        ("Editor on the laptop", "I write code in Neovim with lazy.nvim for plugins."),
        ("Pairing sessions", "For pairing we open the repo in VS Code with Live Share;"
         " nobody else uses Neovim."),
    ),
]  # fmt: skip


test_each_wording_is_found, test_each_look_alike_is_left_alone = wording_tests(FOUND, LEFT)


def test_each_spelling_names_one_tool_of_one_role() -> None:
    """Other spellings and multi-word names resolve to the tool's one spelling; a name no
    role holds, none; every role says what it is for."""
    assert role_of("PostgreSQL") == role_of("postgres") == ("relational database", "postgres")
    assert role_of("GitHub Actions") == ("ci service", "github actions")
    assert role_of("bevy_rapier2d") == ("bevy physics", "bevy_rapier2d")
    assert role_of("acme-internal-lib") is None
    assert all(ROLE_CUES[role] for role, _tool in TOOL_ROLES.values())


def test_the_difference_is_said_as_the_tools_role(store: MemoryStore) -> None:
    _rule, old, new, _kind = FOUND[1]
    older, newer = write(store, old), write(store, new)
    [pair] = [pair for pair in store.contradictions() if pair.ids == (older.id, newer.id)]
    assert [d.to_dict() for d in pair.differs] == [
        {
            "kind": "name",
            "subject": "kotlin dependency injection",
            "old": "Koin",
            "new": "kotlin-inject",
        }
    ]


def _compared(old: Note, new: Note) -> list[tuple[str, str, str]]:
    return [(d.kind, d.old, d.new) for d in compared(old, new)]


def test_a_word_of_the_role_said_by_one_note_only_ties_no_two_jobs() -> None:
    """A note titled by the role's word ("Cache", "Search") beside one on another job
    that holds a tool of the role (a rate limiter's counters, autocomplete) names two
    jobs; when both notes say the role's word, one."""
    cache = ("Cache", "The checkout API caches session data in Redis with a 24h TTL.")
    limiter = (
        "Rate limiter store",
        "The checkout API's rate limiter keeps its counters in Memcached, which the legacy"
        " PHP app already ran.",
    )
    assert _compared(cache, limiter) == []
    search = ("Search", "Product search runs on Elasticsearch.")
    suggest = (
        "Autocomplete",
        "Autocomplete suggestions come from Meilisearch, which is fast enough for prefixes.",
    )
    assert _compared(search, suggest) == []
    moved = ("Storefront search", "The storefront's search index moved to Meilisearch.")
    assert _compared(search, moved) == [("name", "Elasticsearch", "Meilisearch")]
