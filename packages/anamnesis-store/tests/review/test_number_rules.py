"""The finder's rules for numbers, ports, versions, negations and replacements written the
ways developers write them: a setting's key in plain text with its value, a bound said
after its number, a call's one argument, a tool named ``Name.js``, a version with a
wildcard, a published port, a value the newer note names as what it left, a project's
name that is no scope, a gerund or a file name as what a replacement retires. The notes
are written here, not taken from the measured set (bench/contradictions)."""

from __future__ import annotations

import pytest

from anamnesis.store import Memory, MemoryStore
from anamnesis.store.review.text import clauses
from anamnesis.store.review.values import clause_values
from store_testing import write_note

Note = tuple[str, str]


def _read(body: str) -> list[tuple[str, str, str, bool, str]]:
    return [
        (value.kind, value.norm, value.slot, value.keyed, value.bound)
        for clause in clauses("", body)
        for value in clause_values(clause, False)
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("The gateway sets ConnectTimeout 3s and IdleTimeout 90s.",
         ("number", "3", "connecttimeout", True, "")),
        ("The client uses maxRetries 4 on every call.", ("number", "4", "maxretries", True, "")),
        ("The default of pool_size in config/db.yml is 25 now.",
         ("number", "25", "pool_size", True, "")),
        ("keepalive_timeout 75 seconds in the proxy.",
         ("number", "75", "keepalive_timeout", True, "")),
    ],
)  # fmt: skip
def test_a_key_in_plain_text_keys_its_number(
    body: str, expected: tuple[str, str, str, bool, str]
) -> None:
    assert expected in _read(body)


def test_a_product_and_its_version_is_no_key() -> None:
    read = _read("The web app is on TypeScript 5 now.")
    assert ("version", "5", "typescript", True, "") in read
    assert not [value for value in read if value[0] == "number"]


@pytest.mark.parametrize(
    ("body", "bound"),
    [
        ("Branch names: 40 characters at most.", "<="),
        ("Keep 3 replicas minimum.", ">="),
        ("Uploads are 25 MB max.", "<="),
        ("Give it 12 characters at least.", ">="),
        ("Wait 30 min before retrying.", ""),  # a unit, not a minimum
    ],
)
def test_a_bound_said_after_its_number(body: str, bound: str) -> None:
    (number,) = [value for value in _read(body) if value[0] == "number"]
    assert number[4] == bound


def _write(store: MemoryStore, note: Note) -> Memory:
    title, body = note
    return write_note(store, title=title, body=body, project="github.com/acme/shop")


def _kinds(store: MemoryStore, older: Memory, newer: Memory) -> list[list[str]]:
    return [
        [d.kind for d in pair.differs]
        for pair in store.contradictions()
        if pair.ids == (older.id, newer.id)
    ]


# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "a key in plain text against the same key in code",
        ("Gateway timeouts", "The gateway is built with ConnectTimeout 3s and IdleTimeout"
         " 90s."),
        ("Longer gateway connect timeout", "Slow upstreams in the EU made us raise"
         " `ConnectTimeout` to 8s now."),
        "number",
    ),
    (
        "a key with where it is set, then its value",
        ("Worker pool size", "Every worker starts with `pool_size = 10` from"
         " settings/base.py."),
        ("Bigger worker pools", "After the queue backed up, pool_size in settings/base.py"
         " is 30 now."),
        "number",
    ),
]  # fmt: skip

# (rule, older, newer): notes that look alike and both hold.
LEFT_ALONE: list[tuple[str, Note, Note]] = [
    (
        "a soft target under a maximum",
        ("Pull request title length", "PR titles: 70 characters at most (the bot checks)."),
        ("Pull request title style", "Aim for titles around 45 characters, in the"
         " imperative."),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "old", "new", "kind"), FOUND, ids=[c[0] for c in FOUND])
def test_each_rule_finds_its_pair(
    store: MemoryStore, rule: str, old: Note, new: Note, kind: str
) -> None:
    older, newer = _write(store, old), _write(store, new)
    found = _kinds(store, older, newer)
    assert found and kind in found[0], (rule, found)
    assert any(older.id in pair.ids for pair in store.possible_contradictions(newer))


@pytest.mark.parametrize(("rule", "old", "new"), LEFT_ALONE, ids=[c[0] for c in LEFT_ALONE])
def test_each_rule_leaves_its_look_alikes(
    store: MemoryStore, rule: str, old: Note, new: Note
) -> None:
    older, newer = _write(store, old), _write(store, new)
    assert _kinds(store, older, newer) == [], rule
    assert store.possible_contradictions(newer) == []
