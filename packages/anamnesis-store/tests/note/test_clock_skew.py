"""A note dated in the future (written where the clock runs ahead) ranks as when this store
got it, never later than now: it does not outrank every newer note for ever. The store
names such notes, with their machine, from a small index."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

from anamnesis.store import Memory, MemoryStore, every_note
from anamnesis.store.exchange.note_pages import each_note_once
from store_testing import write_note

FUTURE = "2999-01-01T00:00:00+00:00"
HOUR = 3600


def arrived(
    store: MemoryStore, title: str, *, seconds_ago: int = 0, at: str = "", **fields: object
) -> Memory:
    """A note dated 2999 by a machine whose clock runs ahead, as a pull wrote it
    ``seconds_ago``, or ``at`` that moment (its file's time)."""
    note = write_note(store, title=title, machine_id="fast", **fields)
    note = store.put(note.replace(created_at=FUTURE, updated_at=FUTURE))
    if at:
        then = int(datetime.fromisoformat(at).timestamp()) * 1_000_000_000
    else:
        then = time.time_ns() - seconds_ago * 1_000_000_000
    os.utime(store.path_of(note), ns=(then, then))
    return note


def titles(notes: list[Memory]) -> list[str]:
    return [note.title for note in notes]


def test_a_note_dated_ahead_ranks_as_when_it_arrived(store: MemoryStore) -> None:
    old = write_note(store, title="yesterday's")
    store.put(old.replace(updated_at=_ago(24 * HOUR)))
    arrived(store, "from the future", seconds_ago=HOUR)
    write_note(store, title="written now")
    expected = ["written now", "from the future", "yesterday's"]
    assert titles(store.list()) == expected
    assert titles(store.list(project="p", limit=1)) == ["written now"]
    store.reindex()  # a full rebuild ranks it where it was: by its file's time
    assert titles(store.list()) == expected
    assert store.get(store.list()[1].id).updated_at == FUTURE  # the note itself is untouched


def test_newest_first_orders_any_notes_as_the_listing_does(store: MemoryStore) -> None:
    ahead = arrived(store, "from the future", seconds_ago=HOUR)
    recent = write_note(store, title="a minute ago")
    recent = store.put(recent.replace(updated_at=_ago(60)))
    gone = Memory(id="01JPQRST0000000000000000AB", type="semantic", title="not indexed",
                  body="b", updated_at=FUTURE)  # fmt: skip
    assert titles(store.newest_first([ahead, recent, gone])) == [
        "not indexed",  # no row: its own date, never later than now
        "a minute ago",
        "from the future",
    ]


def test_a_keyword_tie_goes_to_the_note_that_is_really_newer(store: MemoryStore) -> None:
    arrived(store, "same words", seconds_ago=HOUR, body="deploy with make ship")
    write_note(store, title="same words", body="deploy with make ship", machine_id="ok")
    hits = store.search("deploy ship", mode="keyword")
    assert [hit.machine_id for hit in hits] == ["ok", "fast"]


def test_pages_of_a_listing_pass_a_note_dated_ahead_once(store: MemoryStore) -> None:
    for day in range(1, 8):
        note = write_note(store, title=f"day {day}")
        store.put(note.replace(updated_at=f"2026-01-{day:02d}T00:00:00+00:00"))
    # Ranked between days 5 and 4: the last note of the second page of two.
    ahead = arrived(store, "from the future", at="2026-01-04T12:00:00+00:00")
    listed = titles(store.list())
    assert listed[:5] == ["day 7", "day 6", "day 5", "from the future", "day 4"]
    assert titles(list(every_note(store, page=2))) == listed
    # Edited once its page is read, it moves to now: the next page starts from now, and
    # an export still hands on every note once.
    walked: list[str] = []
    for note in each_note_once(store, page=2):
        walked.append(note.title)
        if note.id == ahead.id:
            store.put(store.get(ahead.id).replace(body="edited", updated_at=FUTURE))
    assert sorted(walked) == sorted(listed)


def test_the_store_names_notes_dated_ahead_with_their_machine(store: MemoryStore) -> None:
    write_note(store, title="on time")
    ahead = arrived(store, "from the future", seconds_ago=HOUR)
    created = write_note(store, title="created ahead", machine_id="other")
    store.put(created.replace(created_at=FUTURE))
    minute = write_note(store, title="a minute ahead", machine_id="drift")
    store.put(minute.replace(updated_at=_ago(-60)))  # ordinary skew: not named
    named = store.dated_ahead()
    assert [(note.title, note.machine_id) for note in named] == [
        ("from the future", "fast"),
        ("created ahead", "other"),
    ]
    assert named[0].id == ahead.id and named[0].body == ""


def test_the_dated_ahead_index_holds_only_such_notes(store: MemoryStore) -> None:
    for number in range(20):
        write_note(store, title=f"note {number}")
    arrived(store, "from the future", seconds_ago=HOUR)
    conn = store._connection()
    (rows,) = conn.execute(
        "SELECT count(*) FROM memories INDEXED BY idx_mem_dated_ahead"
        " WHERE updated_at > ranked_at OR created_at > ranked_at"
    ).fetchone()
    assert rows == 1


def test_the_ranking_rule() -> None:
    from anamnesis.store.note.timestamps import ranking_time, skew_limit, utc_now

    now = "2026-06-01T12:00:00+00:00"
    past = "2026-05-01T00:00:00+00:00"
    file_time = 1780000000 * 1_000_000_000  # 2026-05-28T...
    assert ranking_time(past, now, file_time) == past  # a sane date ranks as it is
    assert ranking_time(FUTURE, now) == now
    assert ranking_time(FUTURE, now, file_time).startswith("2026-05-28")
    assert ranking_time(FUTURE, now, 2**62) == now  # a file time past the year 9999
    assert skew_limit() > utc_now()


def _ago(seconds: int) -> str:
    moment = datetime.now(UTC) - timedelta(seconds=seconds)
    return moment.isoformat(timespec="seconds")
