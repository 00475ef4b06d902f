"""Invisible characters: search reads words without them; listings show the dangerous ones.

A zero-width space or a soft hyphen inside a word made SQLite's tokenizer read two words,
so ``pass\\u200bword`` in a note was never found by ``password``. The index and the query
now compare text without them, while the file keeps its bytes.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from anamnesis_testsupport import OFFLINE_MODEL, vectors_unavailable_reason

from anamnesis.store import IndexRebuiltWarning, MemoryStore
from anamnesis.store.index import stored_text
from anamnesis.store.vectors import vector_index
from store_testing import write_note

# Zero-width space, non-joiner, joiner, word joiner, byte order mark, soft hyphen, a
# right-to-left override, a left-to-right mark, an invisible separator.
INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u200e",
             "\u2063"]  # fmt: skip
INVISIBLE_RE = re.compile("|".join(INVISIBLE))
VECTORS = vectors_unavailable_reason()


def _fts_is_consistent(store: MemoryStore) -> None:
    """FTS5's own check: the full-text index holds exactly what its content view gives (an
    insert or delete with other text than the view's makes it fail)."""
    store._connection().execute(
        "INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')"
    )


@pytest.mark.parametrize("char", INVISIBLE, ids=lambda c: f"U+{ord(c):04X}")
def test_a_word_split_by_an_invisible_character_is_found_by_the_word(
    store: MemoryStore, char: str
) -> None:
    hidden = write_note(store, title="vault notes", body=f"the admin pass{char}word is rotated")
    plain = write_note(store, title="other", body="nothing to see here")
    assert [m.id for m in store.search("password", mode="keyword")] == [hidden.id]
    # and the other way round: a query holding one finds the plain word
    shown = write_note(store, title="plain", body="the deploy password is in the vault")
    found = {m.id for m in store.search(f"pass{char}word", mode="keyword")}
    assert found == {hidden.id, shown.id}
    assert plain.id not in found
    _fts_is_consistent(store)


def test_titles_and_tags_are_matched_without_them_too(store: MemoryStore) -> None:
    note = write_note(store, title="Kuber\u200bnetes upgrade", tags=["on\u00adcall"], body="b")
    assert [m.id for m in store.search("kubernetes", mode="keyword")] == [note.id]
    assert [m.id for m in store.search("oncall", mode="keyword")] == [note.id]


def test_the_file_and_the_note_read_back_keep_their_bytes(store: MemoryStore) -> None:
    note = write_note(store, title="t\u200bt", body="pass\u200bword and soft\u00adhyphen")
    path = store.file_of(note.id)
    assert "pass\u200bword and soft\u00adhyphen" in path.read_text(encoding="utf-8")
    [hit] = store.search("password", mode="keyword")
    assert hit.body == "pass\u200bword and soft\u00adhyphen"
    assert hit.title == "t\u200bt"
    assert store.get(note.id).body == hit.body


def test_rewriting_and_deleting_such_a_note_keeps_the_full_text_index_exact(
    store: MemoryStore,
) -> None:
    note = write_note(store, title="zero\u200bwidth", body="first pass\u200bword text")
    store.update(note.id, body="second vers\u2060ion text")
    _fts_is_consistent(store)
    assert store.search("password", mode="keyword") == []
    assert [m.id for m in store.search("version", mode="keyword")] == [note.id]
    store.delete(note.id)
    _fts_is_consistent(store)
    assert store.search("version", mode="keyword") == []


def test_reindex_gives_the_same_index_as_writing(store: MemoryStore) -> None:
    note = write_note(store, body="the pass\u200bword again")
    store.reindex()
    _fts_is_consistent(store)
    assert [m.id for m in store.search("password", mode="keyword")] == [note.id]


def test_an_index_built_before_this_rule_is_rebuilt_on_open(tmp_path: Path) -> None:
    """An index of schema 109 holds the raw text (``pass`` and ``word``): opening it
    rebuilds it, and the word is found without a manual reindex."""
    root = tmp_path / "s"
    with MemoryStore(root) as store:
        note = write_note(store, body="the pass\u200bword of the old index")
    conn = sqlite3.connect(root / "index.db")
    stored_text.register(conn)
    conn.executescript(
        "DROP VIEW memories_text;"
        "CREATE VIEW memories_text AS"  # schema 109's
        "  SELECT seq, title, note_text(body_z) AS body, tags FROM memories;"
        "INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');"
        "PRAGMA user_version = 109;"
    )
    match = "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?"
    assert conn.execute(match, ('"password"',)).fetchone()[0] == 0
    conn.close()
    with pytest.warns(IndexRebuiltWarning, match="another version"):
        store = MemoryStore(root)
    with store:
        assert [m.id for m in store.search("password", mode="keyword")] == [note.id]
        _fts_is_consistent(store)


def test_match_text_leaves_visible_text_alone() -> None:
    from anamnesis.store import match_text

    text = "naïve café 東京 مرحبا שלום emoji 👍🏽 tab\tnew\nline"
    assert match_text(text) is text
    assert match_text("a\u200b\u200c\u00adb\ufeff") == "ab"


def test_display_safe_escapes_direction_and_control_characters() -> None:
    from anamnesis.store import display_safe

    assert display_safe("invoice\u202efdp.exe") == "invoice\\u202efdp.exe"
    assert (
        display_safe("\u2066a\u2069\u200f\x1b[2J\x07") == "\\u2066a\\u2069\\u200f\\u001b[2J\\u0007"
    )
    assert display_safe("C1 \x9b and DEL \x7f") == "C1 \\u009b and DEL \\u007f"
    kept = "naïve 東京 مرحبا pass\u200bword tab\tnew\nline\r"
    assert display_safe(kept) is kept


def test_display_safe_json_text_keeps_its_values() -> None:
    from anamnesis.store import display_safe

    value = {"title": "a\u202eb\x7f\x9b\u200fc", "tags": ["\u2066x\u2069"]}
    safe = display_safe(json.dumps(value, ensure_ascii=False, indent=2))
    assert "\u202e" not in safe
    assert json.loads(safe) == value


class RecordingEmbedder:
    """The real offline model, keeping every text it is asked to embed."""

    def __init__(self) -> None:
        from anamnesis.store import FastEmbedEmbedder

        self.inner = FastEmbedEmbedder(model_path=OFFLINE_MODEL)
        self.texts: list[str] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def embed_documents(self, texts: Sequence[str]) -> list[Sequence[float]]:
        self.texts += texts
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Sequence[float]:
        self.texts.append(text)
        return self.inner.embed_query(text)


@pytest.mark.skipif(VECTORS is not None, reason=VECTORS or "")
def test_vectors_embed_the_text_as_search_compares_it(tmp_path: Path) -> None:
    embedder = RecordingEmbedder()
    with MemoryStore(tmp_path / "v", embedder=embedder) as store:
        hidden = write_note(store, title="vault", body="rotate the pass\u200bword monthly")
        plain = write_note(store, title="plain", body="descale the coffee machine")
        store.embed_missing()
        hits = store.search("how often to rotate the pass\u2060word", mode="vector", k=1)
        assert [m.id for m in hits] == [hidden.id]
        assert embedder.texts and not any(INVISIBLE_RE.search(text) for text in embedder.texts)
        # A note without any keeps the hash of its raw text: its cached vectors stay valid.
        hashes = dict(store._connection().execute("SELECT id, embed_hash FROM memories"))
        assert hashes[plain.id] == vector_index.content_hash(plain.title, plain.body)
        assert hashes[hidden.id] == vector_index.content_hash(
            "vault", "rotate the password monthly"
        )
