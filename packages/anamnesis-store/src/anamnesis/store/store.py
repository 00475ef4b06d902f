"""MemoryStore: markdown notes on disk, kept in step with a derived SQLite index.

The markdown files are the truth; the index can be deleted at any time. This class is the
store's public API. The work is done by collaborators, each in its own module and handed
what it needs explicitly: :mod:`.index.connection` (the connection and its repair),
:mod:`.index.indexer` (files to rows and back), :mod:`.index.catch_up` (changes made
behind the store's back), :mod:`.index.note_writer` (files with their rows, secrets
masked), :mod:`.search.store_search` (a search, from its mode to its hits) and
:mod:`.vectors.store_vectors` (the optional embeddings).

The writer, the search and the vectors are made on first use: a session hook that only
lists notes loads none of their code.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from functools import cached_property
from pathlib import Path

from anamnesis.store.config import resolve_home
from anamnesis.store.errors import (
    AmbiguousId,
    InvalidNote,
    InvalidQuery,
    NoteNotFound,
    StorageError,
)
from anamnesis.store.files.layout import StoreLayout
from anamnesis.store.index import db as ix
from anamnesis.store.index import note_queries
from anamnesis.store.index.broken_files import raise_if_broken, skipped_files
from anamnesis.store.index.catch_up import CatchUp
from anamnesis.store.index.connection import IndexConnection
from anamnesis.store.index.indexer import Indexer
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.note.ids import check_id, check_prefix, could_start_an_id, new_id
from anamnesis.store.note.model import (
    LeftoverFile,
    Memory,
    MemoryType,
    ReindexReport,
    Scope,
    SearchResult,
    SkippedFile,
    StoreStats,
)
from anamnesis.store.note.timestamps import skew_limit, utc_now
from anamnesis.store.note.validity import check_when, due_bound

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any, Self, TypeVar

    from anamnesis.store.index.note_writer import NoteWriter
    from anamnesis.store.note.model import SupersedeChain
    from anamnesis.store.review.finder import ContradictionFinder
    from anamnesis.store.review.records import Contradiction
    from anamnesis.store.search.store_search import StoreSearch
    from anamnesis.store.secrets.secret_scan import MaskedFile
    from anamnesis.store.usage.usage_log import UsageLog
    from anamnesis.store.vectors.embedding import Embedder
    from anamnesis.store.vectors.store_vectors import StoreVectors

    T = TypeVar("T")
    # The class has a method named ``list`` (the spec's name), which hides the builtin in
    # its method signatures: those use these names.
    Ids = list[str]
    Notes = list[Memory]
    SkippedFiles = list[SkippedFile]
    MaskedFiles = list[MaskedFile]
    Contradictions = list[Contradiction]
    LeftoverFiles = list[LeftoverFile]
    Params = list[object]

Progress = Callable[[int, int], None]

# A search embeds at most this many notes that lack a vector, newest first: what was just
# written is found by meaning at once, for a fraction of a second when the model is loaded
# for the query anyway. The rest wait for a background pass (the CLI starts one, the MCP
# server runs its own) or a reindex: a backlog of thousands once made every search embed
# 64 notes, for 2-4 s each time.
SEARCH_EMBED_LIMIT = 8


class MemoryStore:
    """File-first memory store with a rebuildable SQLite FTS5 index.

    Thread-safe: one connection, used under a lock. Process-safe: WAL, a busy timeout and
    ``BEGIN IMMEDIATE`` writers; a note file is written while holding the index write lock,
    so file and row change together.
    """

    def __init__(
        self,
        root: Path | str | None = None,
        *,
        embedder: Embedder | None = None,
        mask_secrets: bool = True,
    ) -> None:
        """Open (or create) the store at ``root`` (default: ``$ANAMNESIS_HOME``).

        ``embedder`` is used by vector and hybrid search; by default the vectors extra's
        fastembed model is used when the extra is installed (see :mod:`.embedding`).
        Every note written is masked for secrets; ``mask_secrets=False`` exists only for
        tests of the masking itself.
        """
        self.layout = StoreLayout(Path(root).expanduser() if root is not None else resolve_home())
        self._embedder = embedder
        self._mask_secrets = mask_secrets
        self._vector_state: StoreVectors | None = None
        # How many notes lacking a vector a search embeds before ranking (a fraction of a
        # second); a process that embeds in the background (the MCP server) sets 0.
        self.search_embed_limit = SEARCH_EMBED_LIMIT
        try:
            self.layout.memory_dir.mkdir(parents=True, exist_ok=True)
            self.layout.local_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"cannot create the store at {self.layout.root}: {exc.strerror or exc}; "
                "check the path and its permissions, or set ANAMNESIS_HOME"
            ) from None
        if self.layout.batch_journal.exists():  # only after a crash in the middle of a batch
            from anamnesis.store.files import batch_journal

            batch_journal.finish(self.layout)  # the batch lands whole before anything is read
        self._indexer = Indexer(self.layout)
        self._watcher = CatchUp(self._indexer)
        self._index = IndexConnection(
            self.layout.db_path, lambda conn: self._indexer.fill(conn, None)
        )

    # -- paths -----------------------------------------------------------------------

    @property
    def root(self) -> Path:
        return self.layout.root

    @property
    def memory_dir(self) -> Path:
        return self.layout.memory_dir

    @property
    def local_dir(self) -> Path:
        return self.layout.local_dir

    @property
    def db_path(self) -> Path:
        return self.layout.db_path

    def path_of(self, mem: Memory) -> Path:
        """Where the store writes a note's file: ``<tree>/<type>/<id>.md``. A note written
        by hand may live elsewhere until it is next saved: :meth:`file_of` says where."""
        return self.layout.note_path(mem.scope, mem.type, mem.id)

    def file_of(self, memory_id: str) -> Path:
        """The file that holds this note now (a hand-written note keeps the name its
        author gave it until the store next saves it); raises :class:`NoteNotFound`."""
        check_id(memory_id)

        def query(conn: sqlite3.Connection) -> Path:
            row = ix.rows_by_id(conn, [memory_id], with_body=False).get(memory_id)
            if row is None:
                raise NoteNotFound(memory_id)
            return self._indexer.row_path(row)

        return self._read(query)

    def __repr__(self) -> str:
        return f"MemoryStore({str(self.layout.root)!r})"

    # -- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        """Close the index connection. The store is unusable afterwards."""
        self._index.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------

    def write(
        self,
        *,
        type: MemoryType,
        title: str,
        body: str,
        project: str = "global",
        machine_id: str = "unknown",
        tags: Iterable[str] | None = None,
        scope: Scope = "portable",
        prov_source: str = "human",
        prov_model: str = "",
        prov_session: str = "",
        prov_agent: str = "",
        confidence: float = 1.0,
        supersedes: Iterable[str] | None = None,
        extra: dict[str, Any] | None = None,
        valid_until: str = "",
        review_after: str = "",
        reviewed_at: str = "",
        compatible_with: Iterable[str] | None = None,
    ) -> Memory:
        """Create a note with a fresh id and timestamps: write its file, then index it."""
        now = utc_now()
        mem = Memory(
            id=new_id(),
            type=type,
            title=title,
            body=body,
            project=project,
            machine_id=machine_id,
            scope=scope,
            tags=tags,  # Memory takes one tag given as a plain string as one tag
            created_at=now,
            updated_at=now,
            prov_source=prov_source,
            prov_model=prov_model,
            prov_session=prov_session,
            prov_agent=prov_agent,
            confidence=confidence,
            supersedes=supersedes,
            extra=dict(extra or {}),
            valid_until=valid_until,
            review_after=review_after,
            reviewed_at=reviewed_at,
            compatible_with=compatible_with,
        )
        return self._writer.save(mem, new=True)

    def put(self, mem: Memory, *, capture_digest: bool = False) -> Memory:
        """Store a fully formed note under its own id, replacing any note with that id.

        The caller's id and timestamps are kept (missing timestamps are set to now). If the
        note changed type or scope, its old file is removed in the same locked step that
        writes the new one. ``capture_digest``: stamp the digest that keeps a session's
        note capture's own (:func:`~anamnesis.store.is_capture_owned`).
        """
        return self._writer.save(mem, capture_digest=capture_digest)

    def put_if_changed(
        self, mem: Memory, current: Memory, *, capture_digest: bool = False
    ) -> tuple[Memory, bool]:
        """:meth:`put`, unless the note as it would be written (validated, secrets masked,
        the capture digest stamped when asked) is ``current`` but for ``updated_at``: then
        ``current`` is returned and nothing is written. The second value says whether the
        note was written. The note is validated and masked once, for both."""
        prepared = self._writer.prepare(mem, capture_digest=capture_digest)
        if prepared == current.replace(updated_at=prepared.updated_at):
            return current, False
        return self._writer.save_prepared(prepared), True

    def update(self, memory_id: str, **changes: Any) -> Memory:
        """Change some fields of a note and bump its ``updated_at``; ``id`` cannot change."""
        if "id" in changes:
            raise InvalidNote("id", "a note's id cannot change; write a new note instead")
        unknown = set(changes) - set(Memory.FIELDS)
        if unknown:
            raise InvalidNote(sorted(unknown)[0], "is not a field of a note")
        current = self.get(memory_id)
        updated = current.replace(**changes)
        if "updated_at" not in changes:
            updated = updated.replace(updated_at=utc_now())
        return self._writer.save(updated)

    def put_many(self, mems: Iterable[Memory]) -> Notes:
        """:meth:`put` for several notes at once, all or nothing: a crash leaves every
        note of the batch written or none (the next store to open the folder finishes an
        interrupted batch). Ids must differ. Returns the notes as written."""
        return self._writer.save_all(list(mems))

    def as_written(self, mem: Memory) -> Memory:
        """The note exactly as :meth:`put` would write it (validated, secrets masked), for
        a caller that compares or hashes a note before writing it; nothing is written.
        Raises :class:`InvalidNote`."""
        return self._writer.prepare(mem)

    def delete(self, memory_id: str) -> Memory:
        """Remove a note's file(s) and rows; return the note as it was.

        Every file known to hold the id goes: the indexed one, any at the id's canonical
        paths (even one that no longer parses) and copies reported as duplicates.
        """
        return self._writer.delete(check_id(memory_id))

    # -- reading ---------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory:
        """The note with this id, as its file says now."""
        check_id(memory_id)

        def query(conn: sqlite3.Connection) -> Memory:
            row = ix.rows_by_id(conn, [memory_id]).get(memory_id)
            if row is None:
                raise_if_broken(conn, self.layout, memory_id)
                raise NoteNotFound(memory_id)
            mem = self._indexer.current(conn, row, strict=True)
            if mem is None:
                raise NoteNotFound(memory_id)
            return mem

        return self._read(query)

    def resolve_id(self, text: str) -> str:
        """The full id of the one note whose id starts with ``text`` (6 or more characters,
        any case), as git resolves a short hash. A whole id is returned as it is, whether
        or not a note has it. Raises :class:`AmbiguousId` listing the candidates,
        :class:`NoteNotFound`, or :class:`InvalidNote` for what cannot be an id."""
        prefix = check_prefix(text)
        if not could_start_an_id(prefix):
            raise NoteNotFound(prefix)  # `ZZZZZZ`: no id starts so, none was ever made
        if len(prefix) == 26:
            return check_id(prefix)

        found = self._read(lambda conn: note_queries.ids_with_prefix(conn, prefix, 11))
        if not found:
            raise NoteNotFound(prefix)
        if len(found) > 1:
            raise AmbiguousId(prefix, found)
        return found[0]

    def list(
        self,
        *,
        project: str | None = None,
        type: MemoryType | Iterable[MemoryType] | None = None,
        scope: Scope | None = None,
        tag: str | None = None,
        exclude_tag: str | None = None,
        include_superseded: bool = True,
        limit: int | None = None,
        offset: int = 0,
        include_body: bool = True,
        after: Memory | None = None,
        agent: str | None = None,
        include_expired: bool | None = None,
    ) -> Notes:
        """Notes newest first (``updated_at``, then ``confidence``, then id), filtered.

        A note dated in the future (its machine's clock runs ahead) ranks as when this store
        got it, never later than now: see :meth:`newest_first`.

        Superseded notes are included unless ``include_superseded=False``: the history
        stays browsable. With ``include_body=False`` bodies are returned empty (cheaper).
        ``after``: only the notes that come after this one in that order (the next page
        of a listing that ended with it, :func:`.note_pages.every_note`). ``agent``: only
        the notes that coding agent wrote (``prov_agent``). ``include_expired``: whether
        notes past their ``valid_until`` are listed; None (the default) follows
        ``include_superseded``: a listing of the live notes hides both.
        """
        sql, params = note_queries.listing(
            Filters.checked(project, type, scope, tag, agent=agent),
            exclude_tag=exclude_tag,
            include_superseded=include_superseded,
            include_body=include_body,
            limit=limit,
            offset=offset,
            after=after,
            include_expired=include_expired,
        )
        return self._listed(sql, params, include_body)

    def newest_first(self, notes: Iterable[Memory]) -> Notes:
        """These notes in the order :meth:`list` gives them: newest first, where a note
        dated in the future ranks as when this store got it (never later than now; see
        :func:`.timestamps.ranking_time`), then by confidence, then by id. A note no longer
        indexed ranks by its own date, never later than now."""
        notes = list(notes)
        ids = list(dict.fromkeys(note.id for note in notes))
        ranks = self._read(lambda conn: note_queries.ranks_of(conn, ids))
        return note_queries.in_listing_order(notes, ranks)

    def dated_ahead(self) -> Notes:
        """Notes (without bodies) created or updated later than now by more than
        :data:`~.timestamps.CLOCK_SKEW_TOLERANCE`: written on a machine (``machine_id``)
        whose clock runs ahead. Latest first. Read from a small index of such notes, not
        by visiting every note."""
        sql, params = note_queries.dated_ahead(skew_limit())
        return self._listed(sql, params, include_body=False)

    def count(
        self,
        *,
        project: str | None = None,
        type: MemoryType | Iterable[MemoryType] | None = None,
        scope: Scope | None = None,
        tag: str | None = None,
        include_superseded: bool = True,
        agent: str | None = None,
        include_expired: bool | None = None,
    ) -> int:
        """How many notes :meth:`list` would return with these filters."""
        sql, params = note_queries.counting(
            Filters.checked(project, type, scope, tag, agent=agent),
            include_superseded=include_superseded,
            include_expired=include_expired,
        )

        def query(conn: sqlite3.Connection) -> int:
            total: int = conn.execute(sql, params).fetchone()[0]
            return total

        return self._read(query)

    def search(
        self,
        query: str,
        *,
        project: str | None = None,
        type: MemoryType | None = None,
        scope: Scope | None = None,
        k: int = 8,
        mode: str | None = None,
        include_superseded: bool = False,
        agent: str | None = None,
        include_expired: bool = False,
        as_of: str | None = None,
    ) -> Notes:
        """The best ``k`` notes for a free-text query, superseded notes hidden (with
        ``include_superseded`` they rank like any other: the history, searched).

        ``mode``: ``keyword`` (spec 002: quoted tokens OR-joined, BM25, newer first on a
        tie), ``vector`` (nearest embeddings) or ``hybrid`` (both, fused; see
        :mod:`.fusion`). None means :meth:`default_search_mode`. When vectors cannot run
        here, vector and hybrid search fall back to keyword search with one warning. A
        query that shares nothing with any note finds nothing in every mode (vector
        evidence counts only above :data:`~anamnesis.store.search.fusion.VECTOR_FLOOR`).
        ``agent``: only the notes that coding agent wrote (``prov_agent``). Notes past
        their ``valid_until`` are hidden like superseded ones unless ``include_expired``.
        ``as_of`` (a date or timestamp): the memory as it stood then: notes created later
        do not exist yet, supersede links count only from notes that existed, validity
        is evaluated then (notes are read as they are now: edits are not undone).
        """
        return self.search_scored(
            query,
            project=project,
            type=type,
            scope=scope,
            k=k,
            mode=mode,
            include_superseded=include_superseded,
            agent=agent,
            include_expired=include_expired,
            as_of=as_of,
        ).notes

    def search_scored(
        self,
        query: str,
        *,
        project: str | None = None,
        type: MemoryType | None = None,
        scope: Scope | None = None,
        k: int = 8,
        mode: str | None = None,
        include_superseded: bool = False,
        agent: str | None = None,
        include_expired: bool = False,
        as_of: str | None = None,
    ) -> SearchResult:
        """:meth:`search` with each hit's score, the notes superseding it (``superseded_by``,
        empty for a current note) and the mode that actually ran."""
        return self._search.search(
            query,
            project=project,
            type=type,
            scope=scope,
            k=k,
            mode=mode,
            include_superseded=include_superseded,
            embed_limit=self.search_embed_limit,
            agent=agent,
            include_expired=include_expired,
            as_of=as_of,
        )

    # -- review: contradictions and due notes ----------------------------------------

    def contradictions(
        self, *, project: str | None = None, limit: int | None = None
    ) -> Contradictions:
        """Every candidate pair of contradicting live notes (not superseded, not expired),
        or a project's: two notes of one project (or both global) about one subject that
        state different values, or one saying not to do (or that it no longer is) what the
        other states. Durable notes pair with durable ones and an episodic note with
        durable ones, never two episodic notes; pairs a person marked compatible are left
        out. Newest pairs first (by the newer note's ``created_at``). Deterministic: no
        provider, no network (:mod:`anamnesis.store.review`)."""
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise InvalidQuery(f"limit must be a whole number >= 0, got {limit!r}")
        return self._finder.contradictions(project, limit)

    def possible_contradictions(self, mem: Memory, *, limit: int = 5) -> Contradictions:
        """The live notes ``mem`` (a note just written, or about to be) may contradict,
        the likeliest first, at most ``limit``: the write-time check, cheap enough for
        every write (its neighbours by title and subject, then a value diff)."""
        if not isinstance(limit, int) or limit < 0:
            raise InvalidQuery(f"limit must be a whole number >= 0, got {limit!r}")
        return self._finder.possible(mem, limit)

    def wider_candidates(self, *, project: str | None = None) -> Contradictions:
        """The pairs a review compares that the rules leave out although their compared
        clauses hold different values of one kind (:mod:`anamnesis.store.review.value_clashes`):
        each with the values only each side holds, newest pairs first. Most are look-alikes
        (two things, two scopes), so none is a candidate on its own: they are what a reader
        of the words (``anamnesis review --confirm --wide``) is asked about. Deterministic,
        as :meth:`contradictions` is, and costs a review plus the reading of these pairs."""
        return self._finder.wider(project)

    def contradiction_between(
        self, first_id: str, second_id: str, *, wider: bool = False
    ) -> Contradiction | None:
        """The two notes as a candidate pair, older first, whether or not a review would
        compare them: how the rules find they differ, or with ``wider`` where the rules see
        nothing, their value clashes (:meth:`wider_candidates`). None when neither finds a
        difference, when a note is superseded or expired, or when the two are never a pair
        (two projects, both episodic, one supersedes the other, a person marked them both
        right). Raises ``InvalidNote`` for an id that is no id, ``NoteNotFound`` for one no
        note has."""
        from anamnesis.store.note.validity import is_expired
        from anamnesis.store.review.finder import pair_between

        first, second = self.get(first_id), self.get(second_id)
        superseded = self.superseded_ids()
        if any(n.id in superseded or is_expired(n) for n in (first, second)):
            return None
        return pair_between(first, second, wider=wider)

    def due_for_review(self, *, project: str | None = None, now: str | None = None) -> Notes:
        """Live notes whose ``review_after`` has come (:func:`~anamnesis.store.is_due` at
        ``now``, default the current time) and that no person confirmed since, the
        longest due first. Read from the index's small index of notes with a date."""
        when = check_when(now, "now") if now else None
        if when and len(when) == 10:  # a date: its first moment
            when = due_bound(when)
        return self._finder.due(project, when)

    def keep(self, keep_id: str, over_id: str) -> Memory:
        """Resolve a pair by keeping one note: it supersedes the other, which is never
        deleted (it stays in the history, out of recall). The kept note is marked
        confirmed (``reviewed_at``); its ``updated_at`` stays (a review changes no word).
        Returns the kept note as written."""
        from anamnesis.store.review.resolutions import kept

        keep, over = self.get(keep_id), self.get(over_id)
        return self.put(kept(keep, over, utc_now()))

    def mark_compatible(self, a_id: str, b_id: str) -> None:
        """Resolve a pair as "both are right": each note names the other in
        ``compatible_with`` (in the files, so other machines never propose the pair again
        either) and is marked confirmed; both written together, all or nothing."""
        from anamnesis.store.review.resolutions import both_right

        first, second = both_right(self.get(a_id), self.get(b_id), utc_now())
        self.put_many([first, second])

    def mark_reviewed(self, memory_id: str, *, review_after: str | None = None) -> Memory:
        """A due note confirmed by a person: ``reviewed_at`` is now, and ``review_after``
        moves to the date or timestamp given ("" clears it; None leaves it: the note is
        not due again until it is moved). Returns the note as written."""
        from anamnesis.store.review.resolutions import reviewed

        return self.put(reviewed(self.get(memory_id), utc_now(), review_after))

    # -- vectors (the optional extra) -------------------------------------------------

    def vectors_available(self) -> bool:
        """Whether vector and hybrid search can run here (cheap: no model is loaded)."""
        return self._vectors().ready()

    def default_search_mode(self) -> str:
        """The mode a search without ``mode`` uses: ``ANAMNESIS_SEARCH_MODE`` or config.json's
        ``search_mode`` if set, else ``hybrid`` when the vectors extra can run (also while
        its model cannot be downloaded: such a search runs as keyword search at once and
        says why), else ``keyword``."""
        return self._search.default_mode()

    def embed_missing(
        self,
        *,
        batch_size: int = 32,
        limit: int | None = None,
        progress: Progress | None = None,
        background: bool = False,
    ) -> int:
        """Embed notes lacking vectors (or all but their start) for the current model; return
        how many it embedded, first passages first (``embedding_pass.py``). Cached by content
        and model: unchanged text is never embedded twice. ``background``: at the lowest CPU
        priority, yielding to searches, writes and hooks. Raises :class:`VectorsUnavailable`.
        """
        return self._vectors().embed_missing(
            batch_size=batch_size, limit=limit, progress=progress, background=background
        )

    def embedding_status(self) -> dict[str, Any]:
        """Whether vectors run here, the model, and how many notes have (no) vector yet.
        When the model could not be downloaded a moment ago, ``model_unreachable`` says
        when and why, and when searches try again (:mod:`.model_download`)."""
        return self._vectors().status(self.default_search_mode())

    def embedding_backlog(self) -> int:
        """How many notes an embedding pass would work on (no vector yet, or a long note
        with its first passage only); 0 where vectors cannot run. Cheap: counts, no model."""
        return self._vectors().backlog()

    def stats(self) -> StoreStats:
        """Counts by type, project and scope, and how many notes are superseded."""
        return self._read(note_queries.stats)

    def superseded_ids(self) -> set[str]:
        """Ids named in some note's ``supersedes``: hidden from search and inject."""
        return self._read(note_queries.superseded_ids)

    def superseders(self) -> dict[str, Ids]:
        """For each superseded id, the ids of the notes that supersede it (sorted)."""
        return self._read(note_queries.superseders)

    def supersede_chain(self, memory_id: str) -> SupersedeChain:
        """What this note replaces (``older``) and what replaces it (``newer``), each
        followed link by link, nearest first; loops are walked once. Raises NoteNotFound."""
        from anamnesis.store.index.supersession import chain  # rare: off the hooks' path

        return self._read(lambda conn: chain(conn, check_id(memory_id)))

    @cached_property
    def usage(self) -> UsageLog:
        """What this machine's sessions used (:class:`~anamnesis.store.UsageLog`): the
        notes injected, recalled, searched and fetched, recorded by the hooks and the MCP
        server, read by ``anamnesis stats``. Machine-local, never synced, no part of the
        index; a file that cannot be written never fails the caller."""
        from anamnesis.store.usage.usage_log import UsageLog  # the recorders' alone

        return UsageLog(self.layout.usage_path, self.layout.logs_dir)

    def problems(self) -> SkippedFiles:
        """Note files the index could not read, and why (fix them and they reappear)."""
        return self._read(lambda conn: skipped_files(conn, self.layout))

    # -- reindexing and upkeep -------------------------------------------------------

    def reindex(
        self, progress: Progress | None = None, *, embed: bool | None = None
    ) -> ReindexReport:
        """Rebuild the whole index from the markdown. Files that do not parse are skipped
        and reported, never fatal.

        ``embed``: also embed notes that lack a vector (None: when searches use vectors
        here; cached vectors are reused, so only new or changed notes cost time).
        """
        report = self._run(lambda: self._indexer.rebuild(self._connection(), progress))
        report = report.replace(swept=tuple(self.sweep_leftovers()))
        from anamnesis.store.search.search_modes import needs_vectors  # search: on first use

        uses_vectors = needs_vectors(self.default_search_mode())
        if (uses_vectors or embed) and self.vectors_available():
            self._vectors().after_rebuild(embed=embed)
        elif embed:
            self._vectors().embed_missing()  # raises, saying why vectors cannot run
        return report

    def mask_secrets_in(self, paths: Iterable[str | Path]) -> MaskedFiles:
        """Mask secrets in these note files in place (a sync's outgoing files: hand edits
        and notes written before a rule existed are pushed otherwise), then reindex the
        ones that changed. Paths are absolute or relative to the store root; only files
        inside the note trees are touched. Returns what was masked."""
        from anamnesis.store.secrets.secret_scan import mask_files  # the rules cost an import

        masked = mask_files(self.layout, paths)
        if masked:
            self.reindex_paths([found.path for found in masked])
        return masked

    def sweep_leftovers(self, *, min_age_s: float | None = None) -> LeftoverFiles:
        """Remove temp files that killed writes left behind (older than a safe age: no live
        writer owns them, see :mod:`.leftovers`); return what was removed."""
        from anamnesis.store.files import leftovers  # upkeep: off the hooks' path

        return leftovers.sweep_store(self.layout, min_age_s=min_age_s)

    def leftovers(self) -> LeftoverFiles:
        """Temp files of interrupted (or running) writes, without removing any."""
        from anamnesis.store.files import leftovers  # upkeep: off the hooks' path

        return leftovers.find_in_store(self.layout)

    def reindex_changed(self, changed: Iterable[str]) -> ReindexReport | None:
        """Bring the index up to date after a sync changed these files, given as a sync
        reports them (relative to the synced ``memory/`` folder); None when none changed.
        The one way every caller (CLI, MCP server, hooks) makes pulled notes searchable."""
        paths = [self.memory_dir / path for path in changed]
        return self.reindex_paths(paths) if paths else None

    def reindex_paths(self, paths: Iterable[str | Path]) -> ReindexReport:
        """Bring the index up to date for these files only (after a sync changed them).

        Paths are absolute or relative to the store root. A path whose file is gone has its
        note removed from the index. Files outside the note trees are reported as skipped.
        """
        wanted = list(paths)

        def action() -> ReindexReport:
            conn = self._connection()
            with ix.write_transaction(conn, self.db_path):
                return self._indexer.index_paths(conn, wanted)

        return self._run(action)

    # -- internals -------------------------------------------------------------------

    def _connection(self) -> sqlite3.Connection:
        return self._index.connection()

    def _run(self, action: Callable[[], T]) -> T:
        """Run ``action`` under the index lock, repairing a broken index once."""
        return self._index.run(action)

    def _read(self, query: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read under the index lock, once the index has caught up with the files."""

        def action() -> T:
            self._catch_up()
            return query(self._connection())

        return self._run(action)

    def _listed(self, sql: str, params: Params, include_body: bool) -> Notes:
        """The notes a listing statement gives, as their files say now."""

        def query(conn: sqlite3.Connection) -> list[Memory]:
            def fetch() -> list[ix.NoteRow]:
                return [ix.note_row(row) for row in conn.execute(sql, params)]

            return self._indexer.settled(conn, fetch, include_body)

        return self._read(query)

    def _catch_up(self) -> None:
        """Index what changed on disk behind the store's back (a few stats if nothing)."""
        self._watcher.run(self._connection())

    @cached_property
    def _writer(self) -> NoteWriter:
        # Made on the first write: validation and masking cost a reader (the hooks) nothing.
        from anamnesis.store.index.note_writer import NoteWriter

        return NoteWriter(self._index, self._indexer, mask_secrets=self._mask_secrets)

    @cached_property
    def _finder(self) -> ContradictionFinder:
        # Made on first use: a hook that only lists notes loads none of the review code.
        from anamnesis.store.review.finder import ContradictionFinder
        from anamnesis.store.review.pair_memo import MEMO_FILE

        return ContradictionFinder(
            self._index,
            self._indexer,
            self._catch_up,
            self._vectors_for_review,
            memo=self.layout.cache_dir / MEMO_FILE,
        )

    def _vectors_for_review(self) -> StoreVectors | None:
        """The vectors a review finds neighbours with: when searches use them (the search
        mode in force) and they can run here; None otherwise."""
        from anamnesis.store.search.search_modes import needs_vectors

        if not needs_vectors(self.default_search_mode()):
            return None
        vectors = self._vectors()
        return vectors if vectors.ready() else None

    @cached_property
    def _search(self) -> StoreSearch:
        # Made on the first search: the SessionStart hook only lists notes.
        from anamnesis.store.search.store_search import StoreSearch

        return StoreSearch(
            self.root, self._index, self._indexer, self._catch_up, self._vectors,
            lambda: self.usage,
        )  # fmt: skip

    def _vectors(self) -> StoreVectors:
        # Made on first use: importing the vectors code costs the hooks' hot path.
        if self._vector_state is None:
            from anamnesis.store.vectors.store_vectors import StoreVectors

            self._vector_state = StoreVectors(
                self.root, self._embedder, self._index, self._catch_up
            )
        return self._vector_state
