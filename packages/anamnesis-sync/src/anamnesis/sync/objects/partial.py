"""While some notes are in conflict, the other incoming changes land at once.

A conflict used to stop the whole pull: every other note that came in stayed invisible
until the user resolved. Now the incoming changes that are not in conflict are committed
on the local branch as a *take* commit and written to disk (and reported, so they are
indexed); the conflicting notes keep their local version and wait for ``resolve``.

Why not a merge commit with the remote head as a parent: while a conflict stands, the
branch must not contain the remote head, or the next sync would see the local version of
a conflicting note as a change made after the remote's and push it over it, silently. So
a take is an ordinary commit, marked by a trailer, and two rules keep it honest
(``integrate.diverged`` and ``integrate.replay``):

* Both sides are measured from the merge base *advanced by what was taken*: a taken note
  the remote edits again is no conflict, and a taken note edited here meets the remote's
  next edit of it as a real one.
* Replaying local commits on the remote head skips takes: their content is the remote's
  own, which the remote head holds in its newest form (replaying one would undo a later
  remote edit). A take is therefore never pushed; resolving builds on the remote head.
"""

from __future__ import annotations

import os

from dulwich.objects import Commit, ObjectID

TRAILER = b"Anamnesis-Taken-From: "


def is_take(commit: Commit) -> bool:
    """True for a commit made by :func:`take_message`'s caller (see the module docstring)."""
    return any(line.startswith(TRAILER) for line in commit.message.splitlines())


def take_message(remote_head: ObjectID, taken: int, waiting: list[bytes], when: str) -> str:
    """The message of a take commit; its last line is the trailer :func:`is_take` reads."""
    names = ", ".join(os.fsdecode(path) for path in waiting)
    plural = "s" if taken != 1 else ""
    return (
        f"anamnesis: take {taken} incoming file{plural} from the remote at {when}; "
        f"{names} wait{'s' if len(waiting) == 1 else ''} for "
        "`anamnesis sync --resolve keep-both` (or ours, theirs)\n\n"
        f"{TRAILER.decode()}{remote_head.decode('ascii')}"
    )
