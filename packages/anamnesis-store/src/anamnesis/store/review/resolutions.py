"""What a person's answer to a review changes in the notes: plain functions from notes to
notes, which :class:`~anamnesis.store.MemoryStore` writes.

* keep one: the kept note supersedes the other (the other is never deleted: it stays in
  the history, out of recall);
* both are right: each note names the other in ``compatible_with``, so neither machine
  proposes the pair again (the field is in the files, which sync);
* a due note confirmed: ``review_after`` moved on or cleared.

Each sets ``reviewed_at`` (a person confirmed the note now). None changes ``updated_at``:
that says when a note's words last changed, and a review changes no word; listings,
inject and the sync of a note edited elsewhere keep the order and the dates they had.
"""

from __future__ import annotations

from anamnesis.store.errors import InvalidNote
from anamnesis.store.note.validity import check_when

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from anamnesis.store.note.model import Memory


def kept(keep: Memory, over: Memory, now: str) -> Memory:
    """``keep`` as it is once it supersedes ``over``, confirmed ``now``."""
    if keep.id == over.id:
        raise InvalidNote("supersedes", "a note cannot be kept over itself")
    supersedes = [*keep.supersedes, *([] if over.id in keep.supersedes else [over.id])]
    return keep.replace(supersedes=supersedes, reviewed_at=now)


def both_right(a: Memory, b: Memory, now: str) -> tuple[Memory, Memory]:
    """The two notes once a person said both are right: each names the other in
    ``compatible_with``, both confirmed ``now``."""
    if a.id == b.id:
        raise InvalidNote("compatible_with", "a note is always compatible with itself")

    def naming(mem: Memory, other: str) -> Memory:
        names = [*mem.compatible_with, *([] if other in mem.compatible_with else [other])]
        return mem.replace(compatible_with=names, reviewed_at=now)

    return naming(a, b.id), naming(b, a.id)


def reviewed(mem: Memory, now: str, review_after: str | None) -> Memory:
    """``mem`` confirmed ``now``; ``review_after`` set to the given date or timestamp
    ("" clears it; None leaves it, the note no longer due until then: a confirmation
    after the moment it fell due answers it)."""
    if review_after is None:
        return mem.replace(reviewed_at=now)
    return mem.replace(reviewed_at=now, review_after=check_when(review_after, "review_after"))
