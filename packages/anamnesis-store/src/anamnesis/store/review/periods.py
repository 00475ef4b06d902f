"""How often a thing runs, as two notes say it: "backups run nightly at 02:00", then
"pg_dump now runs every 6 hours". A duration is said of many things (a timeout, a
retention, a delay), so two are one thing's only where their words say so; a period is
said of one: how often the note's job runs. Each note's only period, in notes whose
titles share a word, is that job's, however few other words the two sentences share."""

from __future__ import annotations

import re

from anamnesis.store.review.reading.quantities import PERIOD_ADVERBS

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.value import Value

# A period as the number reader shows it: a word ("nightly", "every hour",
# :func:`.reading.quantities.period_words`), or a duration said after "every".
_PERIOD_SHOWN = re.compile(rf"(?i:every\b|{'|'.join(PERIOD_ADVERBS)})")
_EVERY_BEFORE = re.compile(r"(?i:\bevery)\s+$")


def one_period_each(
    a: Value, b: Value, olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts
) -> bool:
    """Whether ``a`` and ``b`` are their notes' only periods (:func:`is_period`)."""
    if not (is_period(a, older) and is_period(b, newer)):
        return False
    return all(other is a or not is_period(other, older) for other in olds) and all(
        other is b or not is_period(other, newer) for other in news
    )


def is_period(value: Value, facts: NoteFacts) -> bool:
    """Whether a number says how often something runs: "nightly", "every 6 hours"."""
    if value.kind != "number" or value.slot != "s" or value.keyed:
        return False
    if _PERIOD_SHOWN.match(value.shown):
        return True
    text = facts.clause(value.clause).text
    at = text.find(value.shown)
    return at != -1 and _EVERY_BEFORE.search(text, 0, at) is not None
