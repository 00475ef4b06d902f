"""The wider net, on a real store: the pairs a review compares that the rules leave out
although their notes hold different values of one kind (``wider_candidates``), and one
pair's candidate whether or not a review compares it (``contradiction_between``). None of
these pairs is a candidate on its own: `review --confirm --wide` asks a model about them."""

from __future__ import annotations

import pytest

from anamnesis.store import Memory, MemoryStore, NoteNotFound
from anamnesis.store.review.reading.facts import NoteFacts
from anamnesis.store.review.value_clashes import SHOWN_VALUES, value_clashes

WEB = "github.com/acme/web"


def note(store: MemoryStore, title: str, body: str, project: str = WEB) -> Memory:
    return store.write(type="semantic", title=title, body=body, project=project)


def two_servers(store: MemoryStore, project: str = WEB) -> tuple[Memory, Memory]:
    """Two servers' ports: a look-alike the rules leave out, and a clash of ports."""
    api = note(store, "API server port", "The API server listens on port 9000.", project)
    admin = note(store, "Admin server port", "The admin server listens on port 9100.", project)
    return api, admin


def clashes(older_body: str, newer_body: str, title: str = "Server port") -> list[dict[str, str]]:
    older, newer = (
        Memory(id=f"01JQ8N0000000000000000000{n}", type="semantic", title=title, body=body)
        for n, body in ((1, older_body), (2, newer_body))
    )
    return [clash.to_dict() for clash in value_clashes(NoteFacts(older), NoteFacts(newer))]


def test_a_clash_is_the_values_of_one_kind_only_each_side_holds() -> None:
    assert clashes("The API listens on port 9000.", "The admin app listens on port 9100.") == [
        {"kind": "port", "subject": "", "old": "9000", "new": "9100"}
    ]
    # a value said by both is no part of the clash; the one added is
    assert clashes(
        "The API listens on port 9000 and the worker on 9001.",
        "The API listens on port 9000; the worker moved to port 9002.",
    ) == [{"kind": "port", "subject": "", "old": "9001", "new": "9002"}]


def test_no_clash_where_the_values_agree_or_one_side_has_none() -> None:
    assert clashes("The API listens on port 9000.", "Port 9000 is the API's.") == []
    assert clashes("The API listens on port 9000.", "The API is written in Go.") == []


def test_a_clash_names_a_few_values_and_counts_the_rest() -> None:
    ports = ", ".join(str(8000 + n) for n in range(SHOWN_VALUES + 2))
    (clash,) = clashes(f"The services listen on ports {ports}.", "All services use port 9999.")
    assert clash["new"] == "9999"
    assert clash["old"].count(",") == SHOWN_VALUES - 1 and clash["old"].endswith("(+2 more)")


def test_the_wider_net_holds_what_the_rules_leave_out_and_only_that(
    store: MemoryStore,
) -> None:
    moved = note(store, "Dev server port", "The dev server runs on port 3000.")
    moved_to = note(store, "Dev server port", "The dev server runs on port 5173.")
    api, admin = two_servers(store)

    rules = [pair.ids for pair in store.contradictions()]
    wider = {pair.ids: pair for pair in store.wider_candidates()}

    assert rules == [(moved.id, moved_to.id)]
    assert (moved.id, moved_to.id) not in wider  # a rules' pair is never the net's too
    pair = wider[(api.id, admin.id)]
    assert [d.to_dict() for d in pair.differs] == [
        {"kind": "port", "subject": "", "old": "9000", "new": "9100"}
    ]
    assert store.wider_candidates(project="another/project") == []
    assert {pair.ids for pair in store.wider_candidates(project=WEB)} == set(wider)


def test_the_wider_net_respects_what_a_person_settled(store: MemoryStore) -> None:
    api, admin = two_servers(store)
    assert (api.id, admin.id) in [pair.ids for pair in store.wider_candidates()]

    store.mark_compatible(api.id, admin.id)

    assert (api.id, admin.id) not in [pair.ids for pair in store.wider_candidates()]
    assert store.contradiction_between(api.id, admin.id, wider=True) is None


def test_one_pair_by_the_rules_or_with_the_wider_net(store: MemoryStore) -> None:
    older = note(store, "Dev server port", "The dev server runs on port 3000.")
    newer = note(store, "Dev server port", "The dev server runs on port 5173.")
    api, admin = two_servers(store)

    by_rules = store.contradiction_between(newer.id, older.id)  # either order
    assert by_rules is not None and by_rules.ids == (older.id, newer.id)
    assert by_rules.differs[0].subject == "dev server port"  # the rules' own difference
    assert store.contradiction_between(api.id, admin.id) is None
    wider = store.contradiction_between(api.id, admin.id, wider=True)
    assert wider is not None and wider.ids == (api.id, admin.id)
    assert [d.kind for d in wider.differs] == ["port"]


def test_no_pair_of_notes_that_are_never_a_pair(store: MemoryStore) -> None:
    api, admin = two_servers(store)
    elsewhere = note(store, "Admin server port", "The admin server listens on 9200.", "other")
    newest = note(store, "API server port", "The API server listens on port 9300.")

    assert store.contradiction_between(api.id, elsewhere.id, wider=True) is None  # 2 projects
    assert store.contradiction_between(api.id, api.id, wider=True) is None  # itself
    store.keep(newest.id, api.id)
    assert store.contradiction_between(api.id, admin.id, wider=True) is None  # superseded
    expired = store.update(admin.id, valid_until="2020-01-01")
    assert store.contradiction_between(newest.id, expired.id, wider=True) is None
    with pytest.raises(NoteNotFound):
        store.contradiction_between(api.id, "01JQ8N00000000000000000000", wider=True)
