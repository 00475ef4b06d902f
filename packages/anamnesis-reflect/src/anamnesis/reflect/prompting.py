"""Text bound for a provider: secrets masked first, then fitted to a token budget.

Notes and session summaries can hold credentials that slipped past capture (or predate it),
and a provider is a third party: everything sent goes through the store's
``redact_secrets``. Masking comes before cutting, so a cut can never split a secret into a
piece the patterns no longer recognise.

Machine-local content never leaves the machine, and a model can copy anything it was sent
into anything it writes, citing what it likes: which note a reply's text came from cannot be
known, only what the prompt held. So every note written from a reply takes
:func:`reply_scope` of what was sent: machine-local when any of it was. The prompt builders
keep machine-local notes out of prompts whose notes should sync (reflect and merge send them
in calls of their own), so that rule never makes portable knowledge local.

Tokens are estimated, not counted: about four characters a token is the usual rule for
English prose with the GPT and Claude tokenizers. Code, non-Latin scripts and long numbers
take more tokens a character, which is why the default budget (``llm.max_input_tokens``)
stays well under the context windows of the models people use. A real tokenizer would mean
a dependency per provider for a number that only has to be roughly right.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from anamnesis.store import redact_secrets

CHARS_PER_TOKEN = 4
SEPARATOR = "\n\n"
CUT_MARKER = "[… cut here: over the token budget]"
# An item cut to less than this is left out instead: a stub of a note tells a model nothing.
# The first item is always cut rather than dropped, so a tiny budget still sends something.
MIN_CUT_CHARS = 80


MACHINE_LOCAL = "machine-local"
PORTABLE = "portable"


class Scoped(Protocol):
    """Anything sent that has a scope: a note, or a plan's copy of one."""

    @property
    def scope(self) -> str: ...


def reply_scope(sent: Iterable[Scoped]) -> str:
    """The scope of every note written from a reply to a prompt that held ``sent``:
    machine-local when any of it is, else portable."""
    return MACHINE_LOCAL if any(note.scope == MACHINE_LOCAL for note in sent) else PORTABLE


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens ``text`` is: its length divided by 4, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def redact_prompt(text: str) -> str:
    """``text`` with every secret-shaped span masked (the store's ``redact_secrets``)."""
    return redact_secrets(text)


@dataclass(frozen=True)
class Window:
    """What fits of a list of texts: the kept ones (masked; the last one maybe cut), how
    many were left out entirely, and whether one was cut."""

    items: tuple[str, ...]
    left_out: int
    cut: bool

    @property
    def text(self) -> str:
        """The kept items joined by blank lines: the text to send."""
        return SEPARATOR.join(self.items)

    @property
    def tokens(self) -> int:
        """The estimated tokens of :attr:`text` (never over the budget it was fitted to)."""
        return estimate_tokens(self.text)


def fit_to_budget(items: Iterable[str], max_tokens: int) -> Window:
    """Mask every item, then keep whole items in order while their joined text fits
    ``max_tokens``; the first one that does not fit is cut at a word boundary, with
    :data:`CUT_MARKER`, and it and everything after it that is not kept counts in
    ``left_out`` (a cut item is kept, not left out).

    Order is priority: a later, shorter item never jumps a long one that did not fit, so
    callers put what matters most first (the newest sessions, the note being merged)."""
    if max_tokens <= 0:
        raise ValueError(f"max_tokens must be positive, not {max_tokens}")
    budget = max_tokens * CHARS_PER_TOKEN
    pending = [redact_prompt(item) for item in items]
    kept: list[str] = []
    used = 0
    for index, item in enumerate(pending):
        joint = len(SEPARATOR) if kept else 0
        if used + joint + len(item) <= budget:
            kept.append(item)
            used += joint + len(item)
            continue
        head = _cut(item, budget - used - joint)
        if head and (len(head) >= MIN_CUT_CHARS or not kept):
            kept.append(f"{head} {CUT_MARKER}")
            return Window(tuple(kept), len(pending) - index - 1, cut=True)
        return Window(tuple(kept), len(pending) - index, cut=False)
    return Window(tuple(kept), 0, cut=False)


def _cut(text: str, room: int) -> str:
    """The start of ``text``, ending at a word boundary, short enough that it, a space and
    the marker fit in ``room`` characters ("" when nothing does)."""
    keep = room - len(CUT_MARKER) - 1
    if keep <= 0:
        return ""
    head = text[:keep]
    # Back up to the last whitespace, unless that throws away more than half (one long
    # token such as a URL or a minified line is cut where it stands).
    boundary = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    if boundary > keep // 2:
        head = head[:boundary]
    return head.rstrip()
