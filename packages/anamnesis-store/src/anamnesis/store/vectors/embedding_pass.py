"""One embedding pass over the notes that lack vectors: every waiting note's start first,
then the rest of each long note.

A note of the store bench's corpus (4 KB) is five passages of about 270 tokens, and this
model reads about 7,000 tokens a second on one core (bench/results/2026-11-28-embed-scale.md): a
whole note costs about 0.2 s of a core. Embedding notes one after another would leave
most of a large store unfindable by meaning for as long as the pass runs. So a pass first
gives every waiting note its first passage (:data:`.vector_index.HEAD`: the title and the
body's start, which is what most notes are about), newest notes first, then embeds the
other passages of each long note, newest first, and replaces its head with the whole set
(passage 0 is the head's vector, not computed twice).

The model runs outside the index lock, a group of about ``batch_size`` passages at a time,
and each group is saved before the next is read, so memory does not grow with the store.
Notes are read and given their vectors by rowid: no step scans the notes, except the one
query at the start of each phase that lists them.

``background``: the model runs on a thread at the lowest CPU priority (:mod:`.priority`),
so a search or a write of this process, or a hook's process, is not slowed by it; reading
and saving run on the caller's thread, at its own priority, because they hold the index
lock that a search waits for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial

from anamnesis.store.index import db as ix
from anamnesis.store.index.connection import IndexConnection
from anamnesis.store.priority import run_at_low_priority
from anamnesis.store.vectors import vector_index as vi
from anamnesis.store.vectors.embedding import Embedder, as_blob
from anamnesis.store.vectors.passages import passages

Progress = Callable[[int, int], None]
Note = tuple[vi.Pending, list[str]]  # a note waiting for vectors, and its passages

# Note texts read from the index at a time (bodies of up to 4 MB each, in the worst case).
_READ_NOTES = 32


class EmbedderFailed(Exception):
    """The embedder raised ``cause``: vectors cannot run (the index is not at fault)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


class EmbeddingPass:
    """The state of one pass: what it may still spend, and what it did.

    ``passage_budget``: start no new group once this many passages were embedded (the
    bounded wait of a search); the notes left wait for the next pass. ``progress`` is
    called after each group with the steps done and the steps known: a note's head is
    a step, and finishing a long note is another.
    """

    def __init__(
        self,
        index: IndexConnection,
        embedder: Embedder,
        *,
        batch_size: int,
        passage_budget: int | None,
        progress: Progress | None,
        background: bool,
    ) -> None:
        self._index = index
        self._embedder = embedder
        self._model = embedder.model_id
        self._batch_size = batch_size
        self._budget = passage_budget
        self._progress = progress
        self._background = background
        self.spent = 0  # passages embedded
        self.done = 0  # steps done (heads, finished notes, notes rewritten meanwhile)
        self.known = 0  # steps known so far
        self.touched: set[str] = set()  # texts given a head, or all of their passages

    def _texts(self, notes: list[vi.Pending]) -> dict[str, tuple[str, str]]:
        return vi.texts(self._index.connection(), notes)

    def _head_vectors(self, digests: list[str]) -> dict[str, bytes]:
        return vi.head_vectors(self._index.connection(), self._model, digests)

    def out_of_budget(self) -> bool:
        return self._budget is not None and self.spent >= self._budget

    def heads(self, todo: list[vi.Pending]) -> bool:
        """Give each of these notes (without vectors) its first passage; a short note's
        is all it has. False when the budget ran out first."""
        self.known += len(todo)
        if self._progress is not None and todo:  # the total, before the model loads
            self._progress(self.done, self.known)
        for group in self._groups(todo, lambda _texts: 1):  # a head is one passage
            if self.out_of_budget():
                return False
            vectors = self._embed([texts[0] for _note, texts in group])
            heads = [(note, v) for (note, texts), v in zip(group, vectors, strict=True)
                     if len(texts) > 1]  # fmt: skip
            whole = [(note, v) for (note, texts), v in zip(group, vectors, strict=True)
                     if len(texts) == 1]  # fmt: skip
            self._index.run(partial(self._save_heads, heads, whole))
            self._advance(group)
        return True

    def finish(self, todo: list[vi.Pending]) -> bool:
        """Embed the other passages of these notes (which have their head) and give them
        the whole set. False when the budget ran out first."""
        self.known += len(todo)
        for group in self._groups(todo, len):
            if self.out_of_budget():
                return False
            digests = [digest for (digest, _seq), _texts in group]
            heads = self._index.run(partial(self._head_vectors, digests))
            # A head lost meanwhile (the cache pruned by another process): embed it again.
            wanted = [(digest, number, text) for (digest, _seq), texts in group
                      for number, text in enumerate(texts)
                      if number > 0 or digest not in heads]  # fmt: skip
            vectors = self._embed([text for _d, _n, text in wanted])
            rows = [(digest, number, v) for (digest, number, _t), v in
                    zip(wanted, vectors, strict=True)]  # fmt: skip
            rows += [(digest, 0, heads[digest]) for digest in digests if digest in heads]
            notes = [note for note, _texts in group]
            self._index.run(partial(self._save_passages, notes, rows))
            self._advance(group)
        return True

    def _save_heads(
        self, heads: list[tuple[vi.Pending, bytes]], whole: list[tuple[vi.Pending, bytes]]
    ) -> None:
        """Save heads, and the single passage of short notes (which is the whole note)."""
        conn = self._index.connection()
        with ix.write_transaction(conn, self._index.db_path):
            vi.ensure_cache(conn)  # a repaired index starts without the table
            vi.store_heads(conn, self._model, heads)
            vi.store_passages(
                conn, self._model, [note for note, _v in whole],
                [(digest, 0, v) for (digest, _seq), v in whole],
            )  # fmt: skip

    def _save_passages(self, notes: list[vi.Pending], rows: list[tuple[str, int, bytes]]) -> None:
        conn = self._index.connection()
        with ix.write_transaction(conn, self._index.db_path):
            vi.ensure_cache(conn)
            vi.store_passages(conn, self._model, notes, rows)

    def _advance(self, group: list[Note], skipped: int = 0) -> None:
        self.done += len(group) + skipped
        self.touched.update(digest for (digest, _seq), _texts in group)
        if self._progress is not None:
            self._progress(self.done, self.known)

    def _embed(self, texts: list[str]) -> list[bytes]:
        """The vectors of these texts (as blobs), counted against the budget."""
        self.spent += len(texts)
        try:
            if self._background:
                return run_at_low_priority(lambda: _embed(self._embedder, texts))
            return _embed(self._embedder, texts)
        except Exception as exc:  # whatever the embedder raises
            raise EmbedderFailed(exc) from exc

    def _groups(
        self, todo: list[vi.Pending], cost: Callable[[list[str]], int]
    ) -> Iterator[list[Note]]:
        """These notes with their passages, read a few at a time, in groups of whole notes
        costing about ``batch_size`` passages. Notes rewritten since they were listed are
        left out (their new text is listed by the next pass) and counted as done."""
        group: list[Note] = []
        size = 0
        for start in range(0, len(todo), _READ_NOTES):
            chunk = todo[start : start + _READ_NOTES]
            found = self._index.run(partial(self._texts, chunk))
            gone = 0
            for note in chunk:
                if note[0] not in found:
                    gone += 1
                    continue
                texts = passages(*found[note[0]])
                if group and size + cost(texts) > self._batch_size:
                    yield group
                    group, size = [], 0
                group.append((note, texts))
                size += cost(texts)
            if gone:
                self._advance([], gone)
        if group:
            yield group


def _embed(embedder: Embedder, texts: Sequence[str]) -> list[bytes]:
    """The embedder's vectors of these texts as blobs, handed to it shortest first (an
    embedder that batches pads a batch to its longest)."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors = embedder.embed_documents([texts[i] for i in order])
    out: list[bytes] = [b""] * len(texts)
    for i, vector in zip(order, vectors, strict=True):
        out[i] = as_blob(vector)
    return out
