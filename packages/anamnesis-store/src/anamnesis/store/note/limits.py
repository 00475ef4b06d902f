"""How much a note may hold when the store writes it: one set of limits for every writer.

The CLI, the MCP server, capture, every import, reflect, merge, compact and the dashboard
all write through :class:`~anamnesis.store.MemoryStore`, whose write path checks these
(:func:`anamnesis.store.note.validation.check_limits`, on the note as it will be stored, secrets
masked). Callers that check earlier for a friendlier message use these same numbers.

Why these numbers: a note file is read back only up to :attr:`NoteLimits.FILE_BYTES`
(4,194,304 bytes, the whole file, frontmatter included: the cap of
:mod:`anamnesis.store.files.safe_files`); a note the store accepted and a later reindex
refused as too large would simply vanish. So the body gets 1,000,000 bytes
and the frontmatter a small fraction of the rest. Its fields hold at most
500 + 300 + 128 + 2 x 200 + 40 + 50 x 100 = 6,368 characters of text (the 40: an agent's
name, ``validation.AGENT_NAME``), which YAML writes in at most 10 bytes each (an escape
such as ``\\U0001F600``): 63,680 bytes; 1,000 ids in
``supersedes`` take 29 bytes a line: 29,000; ``extra`` holds at most 65,536 characters,
each value also counting how deep it is nested (YAML indents it), so under a megabyte as
YAML however it is escaped. Body and frontmatter together stay under 2.1 MB at worst,
half the read cap; the writer still measures every file against the cap before writing
it (:meth:`anamnesis.store.index.note_writer.NoteWriter.prepare`), which has the last word.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final


class NoteLimits:
    """The limits, as class attributes (never instantiated). Characters are Python
    characters (code points); bytes are UTF-8."""

    TITLE_CHARS: Final = 500
    BODY_BYTES: Final = 1_000_000
    PROJECT_CHARS: Final = 300
    MACHINE_ID_CHARS: Final = 128
    TAGS: Final = 50
    TAG_CHARS: Final = 100
    # prov_model (a model's name) and prov_session (a session's id).
    PROVENANCE_CHARS: Final = 200
    SUPERSEDES: Final = 1_000
    # The text of every key and value in ``extra``, plus each one's nesting depth; a value
    # that is not text counts as long as it is written (see validation's ``_extra_size``).
    EXTRA_CHARS: Final = 65_536
    # The whole file as written, frontmatter included: what a reindex reads back. A note
    # is a few KB; the CLI refuses bodies over 1 MB. A file far past that is not a note
    # anyone wrote by hand, and reading it whole would cost every reindex.
    FILE_BYTES: Final = 4 * 1024 * 1024
