"""The store masks secrets on every write: whoever writes a note (CLI, MCP server, hooks,
another tool on the store alone), a credential never reaches its file or the index."""

from __future__ import annotations

from pathlib import Path

import pytest

from anamnesis.store import Memory, MemoryStore, parse_note

SECRET = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic, GitHub's token shape
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"  # AWS's documented example access key id


def _on_disk(store: MemoryStore, memory_id: str) -> str:
    return store.file_of(memory_id).read_text(encoding="utf-8")


def test_write_masks_every_text_field_in_the_file_and_the_index(store: MemoryStore) -> None:
    note = store.write(
        type="semantic",
        title=f"token {SECRET}",
        body=f"deploy with GITHUB_TOKEN={SECRET} and aws key {AWS_KEY}",
        project=f"https://deploy:{SECRET}@git.example.com/team/app",
        tags=["ci", SECRET],
        extra={"source": {"url": f"https://user:hunter2pass@host.example/{SECRET}"}},
    )
    text = _on_disk(store, note.id)
    assert SECRET not in text and AWS_KEY not in text and "hunter2pass" not in text
    assert note.title == "token [REDACTED]"  # what the caller gets back is what was stored
    assert note.tags == ["ci", "[REDACTED]"]
    assert note.project == "https://deploy:[REDACTED]@git.example.com/team/app"
    assert store.get(note.id) == note == parse_note(text, scope="portable")
    assert store.search(SECRET, mode="keyword") == []  # nor is the index ever given it
    assert [hit.id for hit in store.search("deploy", mode="keyword")] == [note.id]


@pytest.mark.parametrize("how", ["update", "put"])
def test_update_and_put_are_masked_too(store: MemoryStore, how: str) -> None:
    note = store.write(type="semantic", title="deploy", body="nothing secret yet")
    if how == "update":
        store.update(note.id, body=f"now the token is {SECRET}")
    else:
        store.put(note.replace(body=f"now the token is {SECRET}"))
    assert SECRET not in _on_disk(store, note.id)
    assert store.get(note.id).body == "now the token is [REDACTED]"


def test_two_secret_tags_do_not_leave_a_duplicate_tag(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="t", body="b", tags=[SECRET, AWS_KEY, "ci"])
    assert note.tags == ["[REDACTED]", "ci"]


def test_the_callers_note_is_left_as_it_was(store: MemoryStore) -> None:
    mine = Memory(id="01JC0000000000000000000000", type="semantic", title="t", body=SECRET)
    store.put(mine)
    assert mine.body == SECRET  # the store masks a copy
    assert store.get(mine.id).body == "[REDACTED]"


def test_masking_can_be_turned_off_only_by_a_test_of_masking_itself(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "raw", mask_secrets=False) as raw:
        note = raw.write(type="semantic", title="t", body=f"token {SECRET}")
        assert SECRET in _on_disk(raw, note.id)
        # What the unmasked store wrote is masked on its way out (see test_secret_scan).
        (masked,) = raw.mask_secrets_in([raw.file_of(note.id)])
        assert masked.secrets == 1 and SECRET not in _on_disk(raw, note.id)


def test_clean_text_is_written_byte_for_byte(store: MemoryStore) -> None:
    body = "sha 3f786850e387550fdab836ed7e6dc881de23001b, id 01JC0000000000000000000000"
    note = store.write(type="semantic", title="digests are not secrets", body=body)
    assert store.get(note.id).body == body


def test_the_capture_digest_is_over_the_note_as_stored(store: MemoryStore) -> None:
    """Stamped by the store on the masked title and body, so the note reads as capture's own."""
    from anamnesis.store import CAPTURE_DIGEST_KEY, content_digest, is_capture_owned

    fresh = Memory(id="01J0000000000000000000000A", type="episodic", title="session",
                   body=f"used {SECRET}", project="p", machine_id="m")  # fmt: skip
    note = store.put(fresh, capture_digest=True)
    assert SECRET not in note.body
    assert note.extra[CAPTURE_DIGEST_KEY] == content_digest(note.title, note.body)
    assert is_capture_owned(store.get(note.id))


def test_put_if_changed_writes_only_a_change(store: MemoryStore) -> None:
    """Compared as it would be written (masked, digest stamped): the same session with its
    secret again is unchanged, and nothing is written."""
    fresh = Memory(id="01J0000000000000000000000B", type="episodic", title="session",
                   body=f"used {SECRET}", project="p", machine_id="m",
                   created_at="2026-01-01T00:00:00+00:00",
                   updated_at="2026-01-01T00:00:00+00:00")  # fmt: skip
    stored = store.put(fresh, capture_digest=True)
    again = fresh.replace(updated_at="2026-01-02T00:00:00+00:00")
    assert store.put_if_changed(again, stored, capture_digest=True) == (stored, False)
    assert store.get(stored.id).updated_at == stored.updated_at
    changed, written = store.put_if_changed(
        again.replace(body="something else"), stored, capture_digest=True
    )
    assert written and store.get(stored.id) == changed and changed.body == "something else"
