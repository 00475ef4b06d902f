"""The edit page's form: the fields a person edits (title, type, project, scope, tags, the
two dates of validity in time and the body), read from a note and back into one.

Everything else in the note (its id, machine, provenance, confidence, supersedes, the keys
other tools wrote) is not on the form: a save keeps it as the file has it. The raw view
(``?raw=1``) edits the whole file for what the form does not show.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from anamnesis.store import NOTE_TYPES, SCOPES, Memory, read_when

# The CLI's words for the same refusal (`anamnesis write` with an empty body): the store
# itself accepts an empty body, as a hand-written file may have one.
EMPTY_BODY = "the note's body is empty"
TAG_SEPARATOR = ","
TYPE_CHOICES = NOTE_TYPES
SCOPE_CHOICES = SCOPES
_PLAIN_DATE = 10  # len("2027-01-31"): what a date input shows; anything longer is a timestamp


def date_input(value: str) -> str:
    """The input type for a date field's ``value``: ``date`` (the browser's picker) for
    none or a day, ``text`` for a timestamp, which a date input would show as empty and a
    save would then clear."""
    return "date" if len(value) <= _PLAIN_DATE else "text"


@dataclass(frozen=True, slots=True)
class EditFields:
    """The form's values, as text (``tags`` comma-separated), in the form's order."""

    title: str
    type: str
    scope: str
    project: str
    tags: str
    valid_until: str
    review_after: str
    body: str

    @classmethod
    def of(cls, note: Memory) -> EditFields:
        return cls(
            title=note.title,
            type=note.type,
            scope=note.scope,
            project=note.project,
            tags=f"{TAG_SEPARATOR} ".join(note.tags),
            valid_until=note.valid_until,
            review_after=note.review_after,
            body=note.body,
        )

    @classmethod
    def from_form(cls, form: Mapping[str, str]) -> EditFields:
        """The posted form. A browser sends a textarea's line ends as CRLF: a note's are
        LF, so an unchanged body saves unchanged."""
        return cls(
            title=form.get("title", ""),
            type=form.get("type", ""),
            scope=form.get("scope", ""),
            project=form.get("project", ""),
            tags=form.get("tags", ""),
            valid_until=form.get("valid_until", ""),
            review_after=form.get("review_after", ""),
            body=form.get("body", "").replace("\r\n", "\n"),
        )

    def applied_to(self, note: Memory) -> Memory:
        """``note`` with these fields; the store validates the result as it writes it (an
        empty title or project is its refusal to word). A date is read as the CLI reads it
        (a time from today, ``+30d``, becomes a date): raises the store's ``InvalidNote``
        naming the field."""
        return note.replace(
            valid_until=read_when(self.valid_until, "valid_until"),
            review_after=read_when(self.review_after, "review_after"),
            title=self.title.strip(),
            type=self.type,
            scope=self.scope,
            project=self.project.strip(),
            tags=self.tags.split(TAG_SEPARATOR),  # the store strips them, drops empty ones
            body=self.body,
        )

    def as_text(self) -> str:
        """The fields as lines, for a diff a person reads: one line a field, then the body."""
        head = (f"{name}: {value}" for name, value in asdict(self).items() if name != "body")
        return "\n".join([*head, "", self.body])

    def as_data(self) -> dict[str, str]:
        """Field name to value: the merge page's ``data-*`` attributes, which its script
        copies into the form's fields of the same names."""
        return asdict(self)


def empty_body(body: str) -> bool:
    """Whether a body says nothing (the CLI's rule: only whitespace)."""
    return not body.strip()
