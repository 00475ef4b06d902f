"""Secrets in note files already on disk (hand edits, notes older than a rule) are masked
in place before a sync sends them: field by field for a note, value by value for a file
that is not one yet, never through a link, and the index follows."""

from __future__ import annotations

from pathlib import Path

from anamnesis.store import MemoryStore, parse_note, serialize_note

SECRET = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic, GitHub's token shape


def test_a_hand_edited_note_is_masked_field_by_field(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="deploy", body="uses the vault", tags=["ci"])
    path = store.file_of(note.id)
    text = path.read_text()
    path.write_text(text.replace("title: deploy", f"title: {SECRET}").replace(
        "uses the vault", f"token is {SECRET}"
    ).replace("- ci", f"- {SECRET}"))  # fmt: skip
    (masked,) = store.mask_secrets_in([path])
    assert masked.path == str(path) and masked.secrets == 3
    after = path.read_text()
    assert SECRET not in after
    again = parse_note(after)  # still a valid note: the title is text, not a YAML list
    assert (again.title, again.body, again.tags) == ("[REDACTED]", "token is [REDACTED]",
                                                     ["[REDACTED]"])  # fmt: skip
    assert serialize_note(again) == after
    assert store.get(note.id).title == "[REDACTED]"  # the index followed
    assert store.mask_secrets_in([path]) == []  # nothing left to mask


def test_files_outside_the_trees_links_and_clean_notes_are_left_alone(
    store: MemoryStore, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(f"---\nid: x\n---\n{SECRET}\n")
    link = store.memory_dir / "semantic" / "link.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    clean = store.write(type="semantic", title="clean", body="nothing to hide")
    before = store.file_of(clean.id).read_bytes()
    assert store.mask_secrets_in([outside, link, store.file_of(clean.id)]) == []
    assert outside.read_text().endswith(f"{SECRET}\n")  # not ours, and never followed
    assert store.file_of(clean.id).read_bytes() == before


def test_a_file_that_does_not_parse_loses_its_secret_too(store: MemoryStore) -> None:
    broken = store.memory_dir / "semantic" / "broken.md"
    broken.parent.mkdir(parents=True)
    broken.write_text(f"no frontmatter at all, and {SECRET} in it\n")
    (masked,) = store.mask_secrets_in([broken])
    assert masked.secrets == 1 and SECRET not in broken.read_text()
