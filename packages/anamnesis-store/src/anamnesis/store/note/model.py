"""The Memory record: one note, exactly as its markdown file describes it."""

from __future__ import annotations

from anamnesis.store.record import Record

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, Final


# The constrained string fields. They stay plain ``str`` because values arrive from files,
# the CLI and MCP as text; ``validation`` enforces these sets.
MemoryType = str  # "procedural" | "semantic" | "episodic"
Scope = str  # "portable" | "machine-local"
ProvSource = str  # "human" | "session-end" | "reflection" | "import" | "merge"
# Which coding agent wrote the note ("claude-code", "codex", ...; "" when none did: a
# person, or a note older than the field). The hooks keep the table of agents; the store
# only checks the shape (``validation.is_agent_name``), so a name it has never heard of
# still round-trips.
AgentName = str

NOTE_TYPES: Final = ("procedural", "semantic", "episodic")
DURABLE_TYPES: Final = ("procedural", "semantic")
SCOPES: Final = ("portable", "machine-local")
PROV_SOURCES: Final = ("human", "session-end", "reflection", "import", "merge")

GLOBAL_PROJECT: Final = "global"


class Memory(Record):
    """A single memory note. Mirrors the markdown frontmatter plus the body.

    ``supersedes`` lists the ids this note replaces (a file holding a single id as a scalar
    still reads). ``extra`` keeps frontmatter keys the store does not know, so notes written
    by other tools or older releases survive a rewrite unchanged. ``replace(**changes)``
    gives a changed copy.

    Time and review (all optional, :mod:`.validity`): ``valid_until`` (a date or timestamp:
    past it the note is expired, hidden from recall like a superseded one), ``review_after``
    (from then on the note is due for review, still recalled), ``reviewed_at`` (when a
    person last confirmed the note) and ``compatible_with`` (notes a person said this one
    does not contradict: "both are right", never proposed again).
    """

    __slots__ = (
        "id",
        "type",
        "title",
        "body",
        "project",
        "machine_id",
        "scope",
        "tags",
        "created_at",
        "updated_at",
        "prov_source",
        "prov_model",
        "prov_session",
        "prov_agent",
        "confidence",
        "supersedes",
        "valid_until",
        "review_after",
        "reviewed_at",
        "compatible_with",
        "extra",
    )
    FIELDS: Final = __slots__

    def __init__(
        self,
        id: str,
        type: MemoryType,
        title: str,
        body: str,
        project: str = GLOBAL_PROJECT,
        machine_id: str = "unknown",
        scope: Scope = "portable",
        tags: Iterable[str] | None = None,
        created_at: str = "",
        updated_at: str = "",
        prov_source: ProvSource = "human",
        prov_model: str = "",
        prov_session: str = "",
        prov_agent: AgentName = "",
        confidence: float = 1.0,
        supersedes: Iterable[str] | None = None,
        extra: dict[str, Any] | None = None,
        valid_until: str = "",
        review_after: str = "",
        reviewed_at: str = "",
        compatible_with: Iterable[str] | None = None,
    ) -> None:
        self.id = id
        self.type = type
        self.title = title
        self.body = body
        self.project = project
        self.machine_id = machine_id
        self.scope = scope
        self.tags: list[str] = _as_list(tags)
        self.created_at = created_at
        self.updated_at = updated_at
        self.prov_source = prov_source
        self.prov_model = prov_model
        self.prov_session = prov_session
        self.prov_agent = prov_agent
        self.confidence = confidence
        self.supersedes: list[str] = _as_list(supersedes)
        self.valid_until = valid_until
        self.review_after = review_after
        self.reviewed_at = reviewed_at
        self.compatible_with: list[str] = _as_list(compatible_with)
        self.extra: dict[str, Any] = dict(extra) if extra is not None else {}

    def to_dict(self, *, include_body: bool = True) -> dict[str, Any]:
        """A JSON-ready dict of the note (what the CLI's --json and the MCP tools return)."""
        out: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "title": self.title,
            "project": self.project,
            "machine_id": self.machine_id,
            "scope": self.scope,
            "tags": list(self.tags),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "prov_source": self.prov_source,
            "prov_model": self.prov_model,
            "prov_session": self.prov_session,
            "prov_agent": self.prov_agent,
            "confidence": self.confidence,
            "supersedes": list(self.supersedes),
            "valid_until": self.valid_until,
            "review_after": self.review_after,
            "reviewed_at": self.reviewed_at,
            "compatible_with": list(self.compatible_with),
        }
        if include_body:
            out["body"] = self.body
        return out


def _as_list(values: Iterable[str] | None) -> list[str]:
    """A fresh list of the values; a lone string is one value, not a list of characters."""
    if values is None:
        return []
    if isinstance(values, str):
        return [values]
    return list(values)


class StoreStats(Record):
    """Counts over the index, for status reports."""

    __slots__ = ("by_project", "by_scope", "by_type", "superseded", "total")

    def __init__(
        self,
        total: int,
        by_type: dict[str, int],
        by_project: dict[str, int],
        by_scope: dict[str, int],
        superseded: int = 0,
    ) -> None:
        self.total = total
        self.by_type = by_type
        self.by_project = by_project
        self.by_scope = by_scope
        self.superseded = superseded


class SkippedFile(Record):
    """A file reindex could not index, and why."""

    __slots__ = ("path", "reason")

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason


class AdoptedFile(Record):
    """A hand-written file without an id that a reindex gave one (and rewrote in place)."""

    __slots__ = ("memory_id", "path")

    def __init__(self, path: str, memory_id: str) -> None:
        self.path = path
        self.memory_id = memory_id


class LeftoverFile(Record):
    """A temp file of an interrupted write: where, how big, and how old (seconds)."""

    __slots__ = ("age_s", "path", "size")

    def __init__(self, path: str, size: int, age_s: float) -> None:
        self.path = path
        self.size = size
        self.age_s = age_s


class ReindexReport(Record):
    """What a (full or partial) reindex did: notes indexed, removed, files skipped,
    hand-written files adopted (given an id), and temp files of killed writes swept."""

    __slots__ = ("adopted", "indexed", "removed", "skipped", "swept")

    def __init__(
        self,
        indexed: int,
        removed: int = 0,
        skipped: tuple[SkippedFile, ...] = (),
        adopted: tuple[AdoptedFile, ...] = (),
        swept: tuple[LeftoverFile, ...] = (),
    ) -> None:
        self.indexed = indexed
        self.removed = removed
        self.skipped = skipped
        self.adopted = adopted
        self.swept = swept

    @property
    def skipped_count(self) -> int:
        return len(self.skipped)


class RankReason(Record):
    """Why a hit ranked where it did: its evidence on each side and how the search weighed
    them (``search --json`` shows it as ``why``).

    ``keyword_score``: BM25, sign flipped (None: the note shares no word with the query);
    ``keyword_relative``: that score's share of the best keyword hit's (0 to 1);
    ``keyword_rank`` / ``vector_rank``: 1-based place in the keyword ranking / among the
    nearest vectors, as deep as the search read them (None: not among them);
    ``vector_score``: cosine similarity (None: not compared, or no vector). In hybrid
    search the fused score is ``keyword_weight * keyword_evidence + vector_weight *
    vector_score``, where ``keyword_evidence`` is ``keyword_relative ** (1 -
    information_weight) * held_information ** information_weight``: for a look-up the
    note's own share of the query's information (``held_information``, its words weighed
    by IDF) counts beside its BM25; for a paraphrase (``information_weight`` 0,
    ``held_information`` None) the evidence is ``keyword_relative``. ``query_kind`` is
    ``lexical`` or ``paraphrase``
    (:mod:`anamnesis.store.search.query_kind`) and ``anchors`` the (text, kind, notes
    holding it) that made it lexical; ``exact_keyword_hit``: a hit holding every query
    word and scoring near the best BM25, which vector evidence never pushes out;
    ``information``: the best keyword hit's share of the query's information (its words
    weighed by IDF), which decided the kind with the anchors (None outside hybrid search).
    Other modes fill their own side (weights 1 and 0, no kind).
    """

    __slots__ = (
        "query_kind", "anchors", "keyword_weight", "vector_weight", "keyword_score",
        "keyword_relative", "keyword_rank", "vector_score", "vector_rank", "exact_keyword_hit",
        "information", "held_information", "information_weight", "keyword_evidence",
    )  # fmt: skip

    def __init__(
        self,
        query_kind: str | None,
        anchors: tuple[tuple[str, str, int], ...],
        keyword_weight: float,
        vector_weight: float,
        keyword_score: float | None,
        keyword_relative: float | None,
        keyword_rank: int | None,
        vector_score: float | None,
        vector_rank: int | None,
        exact_keyword_hit: bool = False,
        information: float | None = None,
        held_information: float | None = None,
        information_weight: float = 0.0,
        keyword_evidence: float | None = None,
    ) -> None:
        self.query_kind = query_kind
        self.anchors = anchors
        self.keyword_weight = keyword_weight
        self.vector_weight = vector_weight
        self.keyword_score = keyword_score
        self.keyword_relative = keyword_relative
        self.keyword_rank = keyword_rank
        self.vector_score = vector_score
        self.vector_rank = vector_rank
        self.exact_keyword_hit = exact_keyword_hit
        self.information = information
        self.held_information = held_information
        self.information_weight = information_weight
        self.keyword_evidence = keyword_evidence

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: getattr(self, name) for name in self.__slots__}
        out["anchors"] = [
            {"text": text, "kind": kind, "notes": notes} for text, kind, notes in self.anchors
        ]
        return out


class SearchHit(Record):
    """One search result: the note, its score in the mode that ran (higher is better), the
    ids of the notes that supersede it and why it ranked there (:class:`RankReason`).

    keyword: BM25 relevance as FTS5 computes it, sign flipped (FTS5 gives lower-is-better);
    vector: cosine similarity of the note to the query (-1 to 1); hybrid: the fused score
    (0 to 1, see :mod:`anamnesis.store.search.fusion`). Scores compare within one search only.
    """

    __slots__ = ("note", "score", "superseded_by", "why")

    def __init__(
        self,
        note: Memory,
        score: float,
        superseded_by: tuple[str, ...] = (),
        why: RankReason | None = None,
    ) -> None:
        self.note = note
        self.score = score
        # The notes that list this one in their ``supersedes`` (sorted); empty for a note
        # that is current, which is every hit unless the search included superseded notes.
        self.superseded_by = superseded_by
        self.why = why


class SearchResult(Record):
    """What a search found, and how: ``mode`` is the mode that ran, which is keyword when
    vector or hybrid was asked for but vectors cannot run here (``fallback`` says why;
    empty when the search ran as asked)."""

    __slots__ = ("asked", "fallback", "hits", "mode")

    def __init__(self, hits: list[SearchHit], mode: str, asked: str, fallback: str = "") -> None:
        self.hits = hits
        self.mode = mode
        self.asked = asked
        self.fallback = fallback

    @property
    def notes(self) -> list[Memory]:
        return [hit.note for hit in self.hits]


class SupersedeChain(Record):
    """A note's place in its supersede chain (:meth:`MemoryStore.supersede_chain`).

    ``older``: every note this one replaces, directly or through the notes it replaces;
    ``newer``: every note that replaces it, directly or through notes replacing those. Both
    nearest first (then by id), the note itself never among them, each id once however the
    links branch or loop. ``links``: every (newer id, older id) pair walked, to draw the
    chain. ``missing``: ids in ``older`` that no note has any more (deleted notes).
    """

    __slots__ = ("id", "older", "newer", "links", "missing")

    def __init__(
        self,
        id: str,
        older: tuple[str, ...] = (),
        newer: tuple[str, ...] = (),
        links: tuple[tuple[str, str], ...] = (),
        missing: tuple[str, ...] = (),
    ) -> None:
        self.id = id
        self.older = older
        self.newer = newer
        self.links = links
        self.missing = missing

    @property
    def latest(self) -> tuple[str, ...]:
        """The current notes at the newest end of the chain: this note itself when nothing
        replaces it, else the newer notes that nothing replaces (none when the links loop)."""
        replaced = {older for _newer, older in self.links}
        return tuple(memory_id for memory_id in (self.id, *self.newer) if memory_id not in replaced)
