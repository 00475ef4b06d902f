"""The notes list (``/``): filters from the query string, one page of notes, the counts.

Project, type, scope and tag filter in SQL with the page's limit and offset (the store
does it). The store has no machine filter, so a machine filter reads every note's metadata
(no bodies) and pages in Python: about 15 ms at 2,000 notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode

from anamnesis.dashboard.views.query_numbers import query_number
from anamnesis.store import NOTE_TYPES, SCOPES, Memory, MemoryStore, StoreStats, every_note

PAGE_SIZE = 50
# 50 million notes, past any store; the offset it makes stays far inside SQLite's integers.
MAX_PAGE = 1_000_000
FILTER_KEYS = ("project", "type", "scope", "machine", "tag")


class BadFilter(ValueError):
    """A filter value this store cannot have (an unknown type or scope)."""


@dataclass(frozen=True, slots=True)
class ListQuery:
    project: str = ""
    type: str = ""
    scope: str = ""
    machine: str = ""
    tag: str = ""
    superseded: bool = False
    expired: bool = False  # notes past their valid_until, hidden unless asked for
    page: int = 1

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> ListQuery:
        fields = {key: params.get(key, "").strip() for key in FILTER_KEYS}
        if fields["type"] and fields["type"] not in NOTE_TYPES:
            raise BadFilter(f"type must be one of {', '.join(NOTE_TYPES)}")
        if fields["scope"] and fields["scope"] not in SCOPES:
            raise BadFilter(f"scope must be one of {', '.join(SCOPES)}")
        page = query_number(params, "page", 1, low=1, high=MAX_PAGE)
        return cls(
            **fields,
            superseded=params.get("superseded") == "1",
            expired=params.get("expired") == "1",
            page=page,
        )

    def link(self, **changes: object) -> str:
        """This list's address with some values changed: filters kept, back to the first
        page unless ``page`` is given."""
        values = {key: str(getattr(self, key)) for key in FILTER_KEYS}
        values["superseded"] = "1" if self.superseded else ""
        values["expired"] = "1" if self.expired else ""
        values.update({key: "" if value is None else str(value) for key, value in changes.items()})
        kept = [
            (key, value)
            for key, value in values.items()
            if value and not (key == "page" and value == "1")
        ]
        return "/?" + urlencode(kept) if kept else "/"

    @property
    def filtered(self) -> bool:
        """Whether any filter narrows the list (what "clear filters" undoes)."""
        return self.superseded or self.expired or any(getattr(self, key) for key in FILTER_KEYS)


@dataclass(frozen=True, slots=True)
class Page:
    notes: list[Memory]
    total: int  # notes matching the filters
    superseded: set[str]
    stats: StoreStats
    query: ListQuery

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // PAGE_SIZE))

    @property
    def first(self) -> int:
        """The place of this page's first note among all that match (1-based; 0: none)."""
        return (self.query.page - 1) * PAGE_SIZE + 1 if self.notes else 0

    @property
    def last(self) -> int:
        return self.first + len(self.notes) - 1 if self.notes else 0

    @property
    def newer(self) -> str | None:
        """The previous page's address (newer notes), None on the first page; from past
        the last page, the last page."""
        if self.query.page <= 1:
            return None
        return self.query.link(page=min(self.query.page - 1, self.pages))

    @property
    def older(self) -> str | None:
        """The next page's address (older notes), None on the last page."""
        return self.query.link(page=self.query.page + 1) if self.query.page < self.pages else None


def list_page(store: MemoryStore, query: ListQuery) -> Page:
    offset = (query.page - 1) * PAGE_SIZE
    project, tag = query.project or None, query.tag or None
    kind = query.type or None  # checked against NOTE_TYPES by ListQuery.parse
    scope = query.scope or None
    if query.machine:
        # No index on machine ids: the listing is read a page at a time, keeping only
        # this page's notes, so memory does not grow with the store.
        everything = every_note(
            store, project=project, type=kind, scope=scope, tag=tag,
            include_superseded=query.superseded, include_expired=query.expired,
            include_body=False,
        )  # fmt: skip
        notes, total = [], 0
        for note in everything:
            if note.machine_id == query.machine:
                if offset <= total < offset + PAGE_SIZE:
                    notes.append(note)
                total += 1
    else:
        notes = store.list(
            project=project, type=kind, scope=scope, tag=tag,
            include_superseded=query.superseded, include_expired=query.expired,
            include_body=False, limit=PAGE_SIZE, offset=offset,
        )  # fmt: skip
        total = store.count(
            project=project, type=kind, scope=scope, tag=tag,
            include_superseded=query.superseded, include_expired=query.expired,
        )  # fmt: skip
    superseded = store.superseded_ids() if query.superseded else set()
    return Page(notes, total, superseded, store.stats(), query)
