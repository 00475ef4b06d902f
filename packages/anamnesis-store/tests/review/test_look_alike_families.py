"""Look-alikes the contradiction finder must leave alone, by family (issue 42's tuning
splits showed each family in two or more splits), each beside a pair of the same shape
that does contradict and is still found:

* a floor beside a ceiling, one of them said through a negation or a refusal before
  its bound: what "doesn't start a batch with fewer than 8 jobs" or "refuses a cooldown
  under 7 days" allows is a floor, what "rejects uploads above 50 MB" allows a ceiling
  (two floors that differ still differ).

The pairs are written here, not taken from the measured set."""

from __future__ import annotations

import pytest

from anamnesis.store import MemoryStore
from pair_checks import Note, assert_found, assert_left_alone

# (rule, older, newer, the kind of difference expected)
FOUND: list[tuple[str, Note, Note, str]] = [
    (
        "two floors that differ, one said through a refusal",
        ("Withdrawal cooldown", "Withdrawals wait a cooldown of at least 3 days."),
        ("Withdrawal cooldown change", "The vault refuses a withdrawal cooldown under 7"
         " days now."),
        "number",
    ),
    (
        "two ceilings that differ, one said through a refusal",
        ("Upload limit", "The gateway rejects uploads above 50 MB."),
        ("Largest upload allowed", "Uploads are capped at 200 MB since the video"
         " feature."),
        "number",
    ),
]  # fmt: skip

# (rule, older, newer)
LEFT: list[tuple[str, Note, Note]] = [
    (
        "a floor beside a ceiling said through a refusal",
        ("Withdrawal cooldown", "Withdrawals wait a cooldown of at least 3 days."),
        ("Longest cooldown", "setCooldown() reverts when a withdrawal cooldown is above 60"
         " days."),
    ),
    (
        "a ceiling beside a floor said through a negation",
        ("Batch size", "A batch holds at most 200 jobs."),
        ("Small batches", "The scheduler doesn't start a batch with fewer than 8 jobs"
         " unless a deadline is near."),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "old", "new", "kind"), FOUND, ids=[case[0] for case in FOUND])
def test_each_contradiction_is_still_found(
    store: MemoryStore, rule: str, old: Note, new: Note, kind: str
) -> None:
    assert_found(store, rule, old, new, kind)


@pytest.mark.parametrize(("rule", "old", "new"), LEFT, ids=[case[0] for case in LEFT])
def test_each_look_alike_is_left_alone(store: MemoryStore, rule: str, old: Note, new: Note) -> None:
    assert_left_alone(store, rule, old, new)
