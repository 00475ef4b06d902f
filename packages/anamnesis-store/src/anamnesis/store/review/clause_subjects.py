"""What a sentence is about, said before its verb, and two sentences about two things.

"Product pages are cached for 5 minutes" and "Search results are cached for 30 seconds"
state two durations of one kind, in notes about caching, of two things: product pages and
search results. The words before the verb name what the value is of (the sentence's
subject). When the two subjects share no word, and neither note ever mentions the other's,
the values are of two things and both hold. A note that changes one thing names it again,
in some words ("Product pages are cached for 10 minutes now", "the product page cache"),
so a change keeps its subject; only a subject of the sentence counts, read up to its first
verb, and a sentence with no verb before its value has none (a setting in code, "Timeout:
30 s").
"""

from __future__ import annotations

import re

from anamnesis.store.review.reading.text import CODE_SPAN, content_stems

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.value import Value


def subjects_apart(a: Value, b: Value, older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether the two values' sentences are about two things: each has a subject, they
    share no word, and neither note mentions a word of the other's subject. Only of a
    number or a port, which say nothing of what they are of: a version is of the tool it
    names ("Every environment runs graphql-engine v2.44.0" is about graphql-engine)."""
    if a.kind not in _SAY_NOTHING_OF_WHAT:
        return False
    mine = _subject(older.clause(a.clause).text, a.shown)
    theirs = _subject(newer.clause(b.clause).text, b.shown)
    if not mine or not theirs or not mine.isdisjoint(theirs):
        return False
    return mine.isdisjoint(newer.prose_stems) and theirs.isdisjoint(older.prose_stems)


def _subject(text: str, shown: str) -> frozenset[str]:
    """The stems of the words before a sentence's first verb, when that verb comes before
    the value (empty otherwise, or when the value is not found as written)."""
    at = text.lower().find(shown.lower())
    if at <= 0:
        return frozenset()
    verb = _VERB.search(text, 0, at)
    if verb is None:
        return frozenset()
    return frozenset(content_stems(CODE_SPAN.sub(" ", text[: verb.start()])))


_SAY_NOTHING_OF_WHAT: Final = frozenset({"number", "port"})
# A sentence's first verb, where its subject ends: a form of "be", "have", a modal, or a
# verb a note says a value with ("gets", "keeps", "runs", "uses", "takes", "lives").
_VERB = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|can|could|will|would|must|should|may"
    r"|might|get|gets|got|stay|stays|keep|keeps|kept|live|lives|run|runs|use|uses|take"
    r"|takes|need|needs)\b",
    re.IGNORECASE,
)
