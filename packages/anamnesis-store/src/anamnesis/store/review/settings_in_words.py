"""A setting's number, and the same quantity said in prose by the other note, in the
key's own words: ``FORWARD_TIMEOUT_MS=120000`` against "waits 90 seconds" in a note on
the "Downstream forward timeout".
:mod:`.compare` asks this when nothing else aligns two numbers."""

from __future__ import annotations

from anamnesis.store.review.reading.quantities import counted, key_unit, key_words, unit_base
from anamnesis.store.review.reading.text import stem

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.value import Value


def setting_in_words(
    a: Value, b: Value, olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts
) -> float | None:
    """0.5 where one of two numbers is a setting's (``key=value``) and the other is said
    in prose, of the quantity the key measures (the unit its key ends in, ``_MS``; a
    rate where its key says so, ``ingestion_rate_mb``; or what it counts,
    ``max_send_retries``), in a note that says every word of the key but its unit: two
    words at least, or one its title names (:func:`_titled_alike`); the setting the only
    one of those words in its note. None otherwise."""
    if a.keyed == b.keyed:
        return None
    keyed, said, settings, facts = (a, b, olds, newer) if a.keyed else (b, a, news, older)
    if said.bound:
        return None  # "answers in <1s": a bound, not the setting
    words = _key_words(keyed.slot)
    if not words or _measures(keyed.slot, words) != said.slot.lstrip("~"):
        return None
    if not words <= facts.prose_stems | facts.title_stems:
        return None
    if len(words) == 1 and not _titled_alike(words, older, newer, facts):
        return None  # a key of one word ("timeout", "retries") is said of many things
    same = [v for v in settings if v.keyed and v.kind == "number" and _key_words(v.slot) == words]
    return 0.5 if len({v.norm for v in same}) == 1 else None


def _titled_alike(
    words: frozenset[str], older: NoteFacts, newer: NoteFacts, said_in: NoteFacts
) -> bool:
    """Whether a key of one word is the thing the prose note's title names ("Feature DAG
    retries"), in notes whose titles share another word ("default_args for feature
    DAGs"): the one setting of one thing, not "Session timeout" beside an HTTP client's
    ``TIMEOUT_MS``."""
    shared = (older.subject_stems & newer.subject_stems) - words
    return words <= said_in.title_stems and bool(shared)


def _key_words(key: str) -> frozenset[str]:
    """A key's words, as stems, less its unit and the words any key may hold."""
    unit = key_unit(key)
    return frozenset(
        stem(word.lower())
        for word in key_words(key)
        if word.lower() != unit and word.lower() not in _ANY_KEY and not word.isdigit()
    )


def _measures(key: str, words: frozenset[str]) -> str:
    """What a key's number is of, as a prose number's slot is: its unit's base (``s``,
    ``byte``), or the thing it counts (``attempt`` for ``retries``)."""
    unit = key_unit(key)
    if unit and not _RATE.isdisjoint(words):
        return "/s"  # ``ingestion_rate_mb``: megabytes a second
    if unit:
        return unit_base(unit)
    counts = {counted(word) for word in key_words(key)[-1:]}
    return counts.pop() if counts else ""


# Words of a key that make its number a rate, a second.
_RATE: Final = frozenset({"rate", "per", "throughput"})
# Words of a key that say nothing of what it sets.
_ANY_KEY: Final = frozenset({"default", "config", "settings", "setting", "app", "max", "min"})
