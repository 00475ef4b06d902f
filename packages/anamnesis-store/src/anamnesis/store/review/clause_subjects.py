"""What a sentence is about, said before its verb, and two sentences about two things.

"Product pages are cached for 5 minutes" and "Search results are cached for 30 seconds"
state two durations of one kind, in notes about caching, of two things: product pages and
search results. The words before the verb name what the value is of (the sentence's
subject). When the two subjects share no word, and each has a word the other note never
uses, the values are of two things and both hold ("The CI image has Python 3.10", "The
docs build uses Python 3.12"); when they share the thing's word, each side's own words
must be ones the other note never uses ("weekly quiz graders", "the capstone's grader").
A note that changes one thing names it again, in some words ("Product pages are cached
for 10 minutes now"), so a change keeps its subject. The subject is read from the verb's
own part of the sentence ("Partners asked for fewer duplicates, so an outbound webhook
gets ..." is about the webhook).

Only a subject said before the sentence's first verb counts, and only in prose: a
sentence with no such verb before its value has none (a setting in code, "Timeout: 30
s"), nor does a value inside code (`docker run ... image:v1.11`), nor a subject of every
one of its kind ("Every environment runs keycloak 25.0.2": everywhere; "all weekly
graders" are still weekly graders).
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
    """Whether the two values' sentences are about two things (see the module's text)."""
    if a.kind not in _KINDS:
        return False
    mine = _subject(older.clause(a.clause).text, a.shown)
    theirs = _subject(newer.clause(b.clause).text, b.shown)
    if not mine or not theirs:
        return False
    if mine.isdisjoint(theirs):
        return not mine.issubset(newer.prose_stems) and not theirs.issubset(older.prose_stems)
    # one kind of thing, each said with words the other note never uses: "weekly homework
    # autograders", "the final project's autograder"
    only_mine, only_theirs = mine - theirs, theirs - mine
    return (
        bool(only_mine)
        and bool(only_theirs)
        and only_mine.isdisjoint(newer.prose_stems)
        and only_theirs.isdisjoint(older.prose_stems)
    )


def _subject(text: str, shown: str) -> frozenset[str]:
    """The stems of the words before a sentence's first verb, when that verb comes before
    the value (empty otherwise: see the module's text)."""
    at = text.lower().find(shown.lower())
    if at <= 0:
        return frozenset()
    if text.count("`", 0, at) % 2:
        return frozenset()  # a value inside code: its command's words are no subject
    verb = _VERB.search(text, 0, at)
    if verb is None:
        return frozenset()
    # the subject of the verb's own part of the sentence: "Partners complained, so an
    # outbound webhook gets ..." is about the webhook
    said = _PART_START.split(CODE_SPAN.sub(" ", text[: verb.start()]))[-1]
    if _EVERY.search(said):
        return frozenset()
    return frozenset(content_stems(said))


# The kinds of value a sentence's subject says what of: a number, a port, a version, a
# path. A name, a command, a flag or a URL say it themselves.
_KINDS: Final = frozenset({"number", "port", "version", "path"})
# Where a part of a sentence starts: punctuation, or a word joining two parts.
_PART_START: Final = re.compile(r"[,;:]|\b(?:so|and|but|because|while|when|then|which)\b", re.I)
# Words that make a subject all of its kind, no one thing.
_EVERY: Final = re.compile(r"\b(?:every|both|each|any)\b", re.IGNORECASE)
# A sentence's first verb, where its subject ends: a form of "be", "have", a modal, or a
# verb a note says a value with ("gets", "keeps", "runs", "uses", "takes", "lives").
_VERB: Final = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|can|could|will|would|must|should|may"
    r"|might|get|gets|got|stay|stays|keep|keeps|kept|live|lives|run|runs|use|uses|take"
    r"|takes|need|needs)\b",
    re.IGNORECASE,
)
