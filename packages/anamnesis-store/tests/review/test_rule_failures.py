"""A contradiction rule that fails on a pair (the rules read any text, and one of them
once stopped the bench's review with an IndexError) costs that pair only: `review` lists
the other pairs, a write's reply is made, and the failure is logged with both ids."""

from __future__ import annotations

import logging

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.exchange.write_replies import contradictions_reply
from anamnesis.store.review import compare
from anamnesis.store.review.pair_memo import MEMO_FILE
from pair_checks import write


def test_a_failing_rule_costs_its_pair_not_the_review_nor_the_write(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("ANAMNESIS_REVIEW_PROCESSES", "1")  # the rule patched here is run
    port_old = write(store, ("Dev server port", "The dev server listens on port 3000."))
    port_new = write(store, ("Dev server port", "The dev server listens on port 8080 now."))
    flag_old = write(store, ("Test runner flags", "CI runs `jest --runInBand`."))
    flag_new = write(store, ("Test runner flags", "CI runs `jest --maxWorkers=2` now."))
    assert {pair.ids for pair in store.contradictions()} == {
        (port_old.id, port_new.id),
        (flag_old.id, flag_new.id),
    }
    rules = compare._differences

    def failing_on_ports(older: object, newer: object) -> object:
        if "port" in older.memory.title.lower():  # type: ignore[attr-defined]
            raise IndexError("a rule's bug")
        return rules(older, newer)  # type: ignore[arg-type]

    monkeypatch.setattr(compare, "_differences", failing_on_ports)
    (store.root / "cache" / MEMO_FILE).unlink(missing_ok=True)  # what the last review found
    with caplog.at_level(logging.ERROR, logger="anamnesis.store"):
        listed = store.contradictions()
        reply = contradictions_reply(store, port_new)
    assert [pair.ids for pair in listed] == [(flag_old.id, flag_new.id)]
    assert reply == []
    assert f"failed on {port_old.id} and {port_new.id}" in caplog.text
