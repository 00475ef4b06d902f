"""The usage report: the notes used most with their titles, the notes nothing used (only
durable, current notes older than the window, and never hidden or removed), and how often
prompt recall found something."""

from __future__ import annotations

import time

from anamnesis.store import Memory, MemoryStore, usage_report

DAY = 86_400


def aged(store: MemoryStore, title: str, days: float, **fields: object) -> Memory:
    """A note created ``days`` days ago."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() - days * DAY))
    kind = fields.pop("type", "semantic")
    note = store.write(type=kind, title=title, body=f"{title} body", project="api", **fields)  # type: ignore[arg-type]
    return store.put(note.replace(created_at=stamp, updated_at=stamp))


def test_the_report_names_the_notes_used_most_and_those_never_used(store: MemoryStore) -> None:
    pool = aged(store, "Pool size is 20", 90)
    port = aged(store, "API listens on 8000", 90)
    stale = aged(store, "Deploy with fabric", 200)
    young = aged(store, "Use ruff", 3)  # younger than the window: not had its chance yet
    episode = aged(store, "Session: fixed the pool", 90, type="episodic")  # a session record
    replaced = aged(store, "Deploy with make", 120)
    newer = aged(store, "Deploy with just", 50, supersedes=[replaced.id])
    aged(store, "Staging runs Postgres 13", 90, valid_until="2020-01-01")  # expired: retired
    old_use = time.time() - 45 * DAY
    store.usage.record("injected", [stale.id], now=old_use)  # used, but before the window
    for _ in range(3):
        store.usage.record("injected", [pool.id, port.id], project="api", session="s1")
    store.usage.record("recalled", [pool.id], project="api", session="s1")
    store.usage.record("recalled", [], project="api", session="s1")
    store.usage.record("recalled", [], project="api", session="s1")
    store.usage.record("searched", [port.id], project="api", session="m1")
    store.usage.record("fetched", [port.id], project="api", session="m1")

    report = usage_report(store, days=30, limit=10)
    assert [used.note.title for used in report.most_used if used.note] == [
        port.title, pool.title
    ]  # fmt: skip
    assert report.most_used[0].use.counts == {"injected": 3, "searched": 1, "fetched": 1}
    # Oldest first; not the young note, the session's episode, the replaced or expired note.
    assert [note.id for note in report.never_used] == [stale.id, newer.id]
    assert report.never_used_count == 2
    assert report.prompt_recall.runs == 3 and report.prompt_recall.found == 1
    assert report.fetched_after_search == 1
    assert young.id not in {note.id for note in report.never_used}
    assert episode.id not in {note.id for note in report.never_used}
    assert store.get(stale.id).title == stale.title  # a suggestion: nothing is touched

    data = report.to_dict()
    assert data["prompt_recall"] == {"runs": 3, "found": 1, "notes": 1, "rate": 0.3333}
    assert data["most_used"][0] == {
        "id": port.id, "title": port.title, "project": "api", "type": "semantic", "uses": 5,
        "injected": 3, "recalled": 0, "searched": 1, "fetched": 1,
        "last_used": data["most_used"][0]["last_used"],
    }  # fmt: skip
    assert data["never_used"][0] == {
        "id": stale.id, "title": stale.title, "project": "api", "type": "semantic",
        "created_at": stale.created_at,
    }  # fmt: skip
    assert data["events"]["injected"]["runs"] == 3 and data["problem"] is None

    wider = usage_report(store, days=60)
    assert stale.id not in {note.id for note in wider.never_used}  # used 45 days ago
    assert wider.never_used == []  # the rest is younger than 60 days, replaced or an episode


def test_a_note_gone_from_the_store_is_counted_without_a_title(store: MemoryStore) -> None:
    note = aged(store, "Soon deleted", 1)
    store.usage.record("searched", [note.id])
    store.delete(note.id)
    (used,) = usage_report(store).most_used
    assert used.note is None and used.use.id == note.id
    assert used.to_dict()["title"] is None


def test_the_lists_are_cut_to_the_limit_and_the_count_says_how_many(store: MemoryStore) -> None:
    notes = [aged(store, f"Fact {n}", 40 + n) for n in range(5)]
    for note in notes:
        store.usage.record("injected", [note.id], now=time.time() - 35 * DAY)
    report = usage_report(store, days=30, limit=2)
    assert report.never_used_count == 5
    assert [note.title for note in report.never_used] == ["Fact 4", "Fact 3"]  # oldest first
    assert report.most_used == []
