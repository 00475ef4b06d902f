"""What makes two notes' names (a queue's, a topic's, a tool's) the older and the newer
name of one thing when their sentences share few words (issue 42's tuning splits showed
each wording), and the look-alikes each rule must leave alone:

* an identifier renamed: each note's only identifier, the last word of one among the
  other's words (what it holds: ``billing.invoices``, ``invoices-billing.v3``), each note
  saying of it the same kind of named thing ("queue", "topic", "table"); two identifiers
  of one service ending in two words (``payments.refunds.raw``, ``payments.refunds.dlq``),
  or a queue and a table, are two things.

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

import pytest

from anamnesis.store import MemoryStore
from pair_checks import Note, assert_found, assert_left_alone

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "an identifier renamed, the kind of thing said in both notes",
        ("Invoice queue", "The mailer worker drains `billing.invoices` and retries"
         " three times."),
        ("Where invoices are queued", "Invoices go onto the queue"
         " `invoices-billing.v3` (quorum, durable) since the broker move."),
        "name",
    ),
]  # fmt: skip

# (rule, older, newer)
LEFT: list[tuple[str, Note, Note]] = [
    (
        "two identifiers of one service ending in two words",
        ("Raw refunds topic", "Refunds are published to `payments.refunds.raw`."),
        ("Dead letter topic", "Messages the ledger cannot book go to"
         " `payments.refunds.dlq`, which keeps them 5 days."),
    ),
    (
        "two identifiers sharing their last word, of two kinds of thing",
        ("Refund queue", "The ledger consumes `ledger.refunds` from RabbitMQ."),
        ("Refund reporting table", "The nightly export reads `warehouse.refunds`"
         " for the finance dashboard."),
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
