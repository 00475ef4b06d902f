"""Values of the kinds number, version, port, URL and flag that two notes state for one
thing in constructions issue 42's tuning splits showed missed, and the look-alikes each
rule must leave alone:

* a setting said in prose "key is value", the value as code writes one: quoted
  ("log_format is 'json'") or an enum's constant ("id_strategy is ANY").

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

import pytest

from anamnesis.store import MemoryStore
from pair_checks import Note, assert_found, assert_left_alone

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
]  # fmt: skip

LEFT: list[tuple[str, Note, Note]] = [
    (
        "a plain word said to be an upper-case name is no setting",
        ("Who owns the billing service", "The billing service belongs to the payments"
         " team; page them for refunds."),
        ("Billing service on-call", "The contact is PAYMENTS on the rota; the team is"
         " small, so page one person."),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "old", "new", "kind"), FOUND, ids=[case[0] for case in FOUND])
def test_each_wording_is_found(
    store: MemoryStore, rule: str, old: Note, new: Note, kind: str
) -> None:
    assert_found(store, rule, old, new, kind)


@pytest.mark.parametrize(("rule", "old", "new"), LEFT, ids=[case[0] for case in LEFT])
def test_each_look_alike_is_left_alone(store: MemoryStore, rule: str, old: Note, new: Note) -> None:
    assert_left_alone(store, rule, old, new)
