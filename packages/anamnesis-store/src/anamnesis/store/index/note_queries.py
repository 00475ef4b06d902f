"""The SQL behind listing, counting and summarising notes: small functions over the index,
and the filters listing and search share (:class:`Filters`).

Each takes checked arguments (the store validates what callers pass) and either builds a
statement or runs one on a connection the caller holds under the store's lock. Values are
always bound, never inlined.
"""

from __future__ import annotations

from anamnesis.store.errors import InvalidNote, InvalidQuery
from anamnesis.store.index import db as ix
from anamnesis.store.note import validity
from anamnesis.store.note.model import NOTE_TYPES, Memory, StoreStats
from anamnesis.store.note.timestamps import ranking_time, utc_now
from anamnesis.store.note.validation import is_agent_name
from anamnesis.store.record import Record

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable

_ID_LENGTH = 26


class Filters(Record):
    """Exact-match filters shared by search and list. None means "any".

    ``include_superseded`` and ``include_expired`` are search's alone
    (:meth:`eligible_sql`): a search hides superseded and expired notes unless they are
    set; listing and counting take their own flags. ``agent``: only notes that coding
    agent wrote (``prov_agent``). ``moment``: the first instant the question does not
    cover (:func:`.validity.moment`): now, or the end of an ``as_of`` date; ``as_of``
    says whether it was asked for (then notes created later, and supersede links they
    make, do not exist yet).
    """

    __slots__ = (
        "agent",
        "as_of",
        "include_expired",
        "include_superseded",
        "moment",
        "project",
        "scope",
        "tag",
        "types",
    )

    def __init__(
        self,
        project: str | None = None,
        types: tuple[str, ...] | None = None,
        scope: str | None = None,
        tag: str | None = None,
        include_superseded: bool = False,
        agent: str | None = None,
        include_expired: bool = False,
        as_of: bool = False,
        moment: str = "",
    ) -> None:
        self.project = project
        self.types = types
        self.scope = scope
        self.tag = tag
        self.include_superseded = include_superseded
        self.agent = agent
        self.include_expired = include_expired
        self.as_of = as_of
        self.moment = moment or validity.moment()

    @classmethod
    def checked(
        cls,
        project: str | None,
        note_type: str | Iterable[str] | None,
        scope: str | None,
        tag: str | None,
        include_superseded: bool = False,
        *,
        agent: str | None = None,
        include_expired: bool = False,
        as_of: str | None = None,
    ) -> Filters:
        """Filters from a caller's arguments; raises :class:`InvalidQuery` naming the bad
        one. ``note_type`` is one type or several; ``as_of`` a date or timestamp."""
        types: tuple[str, ...] | None
        if note_type is None:
            types = None
        elif isinstance(note_type, str):
            types = (note_type,)
        else:
            types = tuple(note_type)
        for value in types or ():
            if value not in NOTE_TYPES:
                raise InvalidQuery(f"type must be one of {', '.join(NOTE_TYPES)}, got {value!r}")
        if scope is not None and scope not in ("portable", "machine-local"):
            raise InvalidQuery(f"scope must be portable or machine-local, got {scope!r}")
        if project is not None and not isinstance(project, str):
            raise InvalidQuery(f"project must be text, got {project!r}")
        if not isinstance(include_superseded, bool):
            raise InvalidQuery(f"include_superseded must be a bool, got {include_superseded!r}")
        if agent is not None and not is_agent_name(agent):
            raise InvalidQuery(
                f"agent must be an agent's name (lowercase, e.g. claude-code, codex), got {agent!r}"
            )
        if not isinstance(include_expired, bool):
            raise InvalidQuery(f"include_expired must be a bool, got {include_expired!r}")
        when = ""
        if as_of is not None:
            try:
                when = validity.check_when(as_of, "as_of")
            except InvalidNote as exc:
                raise InvalidQuery(str(exc)) from None
        return cls(
            project,
            types,
            scope,
            tag,
            include_superseded,
            agent,
            include_expired,
            as_of=bool(when),
            moment=validity.moment(when or None),
        )

    def sql(self, alias: str = "m") -> tuple[str, list[object]]:
        """``AND ...`` clauses and their parameters (values are always bound, never inlined)."""
        clauses: list[str] = []
        params: list[object] = []
        if self.project is not None:
            clauses.append(f"{alias}.project = ?")
            params.append(self.project)
        if self.types is not None:
            clauses.append(f"{alias}.type IN ({','.join('?' * len(self.types))})")
            params.extend(self.types)
        if self.scope is not None:
            clauses.append(f"{alias}.scope = ?")
            params.append(self.scope)
        if self.tag is not None:
            clauses.append(
                f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.seq = {alias}.seq AND t.tag = ?)"
            )
            params.append(self.tag)
        if self.agent is not None:
            clauses.append(f"{alias}.prov_agent = ?")
            params.append(self.agent)
        return "".join(f" AND {clause}" for clause in clauses), params

    def eligible_sql(self) -> tuple[str, list[object]]:
        """:meth:`sql` for the notes a search may return (alias ``m``): superseded and
        expired notes are left out unless ``include_superseded`` / ``include_expired``, in
        which case they rank like any other; with ``as_of``, as the memory stood then."""
        where, params = self.sql()
        return self.live_sql(where, params, self.include_superseded, self.include_expired)

    def live_sql(
        self, where: str, params: list[object], include_superseded: bool, include_expired: bool
    ) -> tuple[str, list[object]]:
        """``where`` narrowed to the notes that exist at :attr:`moment` (with ``as_of``),
        then to those not superseded and not expired then, unless included."""
        params = list(params)
        if self.as_of:
            where += " AND m.created_at < ?"
            params.append(self.moment)
        if not include_superseded:
            if self.as_of:
                where += f" AND {NOT_SUPERSEDED_BY_THEN}"
                params.append(self.moment)
            else:
                where += f" AND {NOT_SUPERSEDED}"
        if not include_expired:
            where += f" AND {NOT_EXPIRED}"
            params.append(self.moment)
        return where, params


NOT_SUPERSEDED = "m.id NOT IN (SELECT superseded_id FROM memory_supersedes)"
# Superseded only by notes that existed then (created before the moment bound after it).
NOT_SUPERSEDED_BY_THEN = (
    "m.id NOT IN (SELECT s.superseded_id FROM memory_supersedes s"
    " JOIN memories n ON n.id = s.memory_id WHERE n.created_at < ?)"
)
# Valid at the moment bound after it: no expiry, or one not reached before that moment.
NOT_EXPIRED = "(m.expires_at IS NULL OR m.expires_at >= ?)"

# Where a listing that ended with a note ranked it: its row's rank while the row is still
# that version of the note (the same ``updated_at``). A note edited or deleted since falls
# back to its date, never later than now: for every note not dated ahead that is the rank
# it had, and for one dated ahead it is no earlier than the rank it had, so the next page
# may repeat a few notes but never skips one.
_RANK_OF_AFTER = (
    "coalesce((SELECT r.ranked_at FROM memories r WHERE r.id = ? AND r.updated_at = ?), ?)"
)


def listing(
    filters: Filters,
    *,
    exclude_tag: str | None,
    include_superseded: bool,
    include_body: bool,
    limit: int | None,
    offset: int,
    after: Memory | None = None,
    include_expired: bool | None = None,
) -> tuple[str, list[object]]:
    """The statement :meth:`MemoryStore.list` runs: newest first (``ranked_at``: the
    note's ``updated_at``, never later than now, see :func:`.timestamps.ranking_time`;
    then ``confidence``, then id), from the note after ``after`` when given. Raises
    :class:`InvalidQuery` for a bad limit or offset."""
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise InvalidQuery(f"limit must be a whole number >= 0, got {limit!r}")
    if not isinstance(offset, int) or offset < 0:
        raise InvalidQuery(f"offset must be a whole number >= 0, got {offset!r}")
    where, params = filters.sql()
    if exclude_tag is not None:
        where += " AND NOT EXISTS (SELECT 1 FROM memory_tags t WHERE t.seq = m.seq AND t.tag = ?)"
        params.append(exclude_tag)
    where, params = filters.live_sql(
        where, params, include_superseded, _expired_too(include_expired, include_superseded)
    )
    if after is not None:
        # Where the recency indexes go on from: one seek, however deep the page.
        where += f" AND (m.ranked_at, m.confidence, m.id) < ({_RANK_OF_AFTER}, ?, ?)"
        fallback = ranking_time(after.updated_at, utc_now())
        params.extend([after.id, after.updated_at, fallback, after.confidence, after.id])
    base = ix.SELECT_NOTE if include_body else ix.SELECT_NOTE_NO_BODY
    sql = f"{base} WHERE 1 = 1{where} ORDER BY m.ranked_at DESC, m.confidence DESC, m.id DESC"
    if limit is not None or offset:
        sql += " LIMIT ? OFFSET ?"
        params.extend([-1 if limit is None else limit, offset])
    return sql, params


def _expired_too(include_expired: bool | None, include_superseded: bool) -> bool:
    """Whether a listing shows expired notes: as asked, else as it shows superseded ones
    (a listing of the live notes hides both; one of the history shows both)."""
    if include_expired is None:
        return include_superseded
    if not isinstance(include_expired, bool):
        raise InvalidQuery(f"include_expired must be a bool, got {include_expired!r}")
    return include_expired


def ranks_of(conn: sqlite3.Connection, ids: list[str]) -> dict[str, str]:
    """The ``ranked_at`` of each of these notes that is indexed."""
    out: dict[str, str] = {}
    for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(f"SELECT id, ranked_at FROM memories WHERE id IN ({marks})", chunk)
        out.update(rows.fetchall())
    return out


def in_listing_order(notes: list[Memory], ranks: dict[str, str]) -> list[Memory]:
    """These notes in the order :func:`listing` gives them: by rank (a note's
    :func:`ranks_of`, else its own date, never later than now), then by confidence, then
    by id, newest first."""
    now = utc_now()

    def recency(note: Memory) -> tuple[str, float, str]:
        rank = ranks.get(note.id) or ranking_time(note.updated_at, now)
        return (rank, note.confidence, note.id)

    return sorted(notes, key=recency, reverse=True)


def dated_ahead(limit: str) -> tuple[str, list[object]]:
    """The statement listing notes dated after ``limit`` (created or updated), latest
    first. The condition repeats the one of ``idx_mem_dated_ahead`` (schema.py) word for
    word, which lets SQLite read that small index instead of every row: every such note
    was dated past its rank when indexed, since its rank is never past the time it was
    indexed."""
    ahead = "(m.updated_at > m.ranked_at OR m.created_at > m.ranked_at)"
    sql = (
        f"{ix.SELECT_NOTE_NO_BODY} INDEXED BY idx_mem_dated_ahead WHERE {ahead}"
        " AND (m.updated_at > ? OR m.created_at > ?)"
        " ORDER BY max(m.updated_at, m.created_at) DESC, m.id"
    )
    return sql, [limit, limit]


def counting(
    filters: Filters, *, include_superseded: bool, include_expired: bool | None = None
) -> tuple[str, list[object]]:
    """The statement that counts what :func:`listing` would list."""
    where, params = filters.live_sql(
        *filters.sql(), include_superseded, _expired_too(include_expired, include_superseded)
    )
    return f"SELECT count(*) FROM memories m WHERE 1 = 1{where}", params


def ids_with_prefix(conn: sqlite3.Connection, prefix: str, most: int) -> list[str]:
    """Up to ``most`` ids starting with ``prefix`` (upper case). Every such id sorts between
    the prefix and the prefix followed by the highest character: one range scan of the
    primary key."""
    rows = conn.execute(
        "SELECT id FROM memories WHERE id >= ? AND id <= ? ORDER BY id LIMIT ?",
        (prefix, prefix + "Z" * (_ID_LENGTH - len(prefix)), most),
    )
    return [memory_id for (memory_id,) in rows]


def stats(conn: sqlite3.Connection) -> StoreStats:
    """Counts by type, project and scope, and how many notes are superseded."""
    with ix.read_transaction(conn):
        total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        counts = {
            column: dict(
                conn.execute(
                    f"SELECT {column}, count(*) FROM memories GROUP BY {column}"
                    f" ORDER BY count(*) DESC, {column}"
                ).fetchall()
            )
            for column in ("type", "project", "scope")
        }
        superseded = conn.execute(
            "SELECT count(*) FROM memories m WHERE m.id IN"
            " (SELECT superseded_id FROM memory_supersedes)"
        ).fetchone()[0]
    return StoreStats(
        total=total,
        by_type=counts["type"],
        by_project=counts["project"],
        by_scope=counts["scope"],
        superseded=superseded,
    )


def superseded_ids(conn: sqlite3.Connection) -> set[str]:
    """Ids named in some note's ``supersedes``."""
    rows = conn.execute("SELECT DISTINCT superseded_id FROM memory_supersedes")
    return {superseded_id for (superseded_id,) in rows}


def superseders(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """For each superseded id, the ids of the notes that supersede it (sorted)."""
    out: dict[str, list[str]] = {}
    rows = conn.execute(
        "SELECT superseded_id, memory_id FROM memory_supersedes ORDER BY superseded_id, memory_id"
    )
    for superseded_id, memory_id in rows:
        out.setdefault(superseded_id, []).append(memory_id)
    return out


def superseders_of(conn: sqlite3.Connection, ids: list[str]) -> dict[str, tuple[str, ...]]:
    """For each of these ids that some note supersedes, the ids of those notes (sorted):
    one lookup of the supersedes index per id (up to 500 ids a statement)."""
    out: dict[str, list[str]] = {}
    for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
        chunk = ids[start : start + 500]
        rows = conn.execute(
            "SELECT superseded_id, memory_id FROM memory_supersedes"
            f" WHERE superseded_id IN ({','.join('?' * len(chunk))})"
            " ORDER BY superseded_id, memory_id",
            chunk,
        )
        for superseded_id, memory_id in rows:
            out.setdefault(superseded_id, []).append(memory_id)
    return {superseded_id: tuple(newer) for superseded_id, newer in out.items()}
