"""The wider net: two notes whose compared clauses hold different values of one kind, where
the rules (:func:`.compare.differences`) see no contradiction.

The rules leave a pair out when they cannot tell that its two values are of one thing:
most such pairs are look-alikes (two servers' ports, a floor and a ceiling, two scopes'
paths), and a list made of them would bury the real conflicts. Some are contradictions in
words no rule reads. Which is which takes reading the two notes, so these pairs are never
listed on their own: they are what a model is asked about in ``anamnesis review --confirm
--wide``, and only a pair it confirms is shown. Measured on the contradiction set's splits
the rules never saw, the rules and this net together hold 0.93 of the contradictions, the
rules alone 0.70; about two in three look-alikes hold a clash too, which is why no pair of
this net is shown without a reader's word
(``bench/results/2026-12-01-contradictions-the-wider-net-for-a-model.md``).

A clash is per kind, where both notes' clauses hold values of it and not the same ones: the
values only the older note holds against those only the newer holds (one of the two may be
none: a value one note adds beside the other's), at most :data:`SHOWN_VALUES` of each, in
:data:`.records.DIFFERENCE_KINDS` order.
"""

from __future__ import annotations

from anamnesis.store.review.records import DIFFERENCE_KINDS, Difference

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Container
    from typing import Final

    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.value import Value

# Values of one kind shown for a side: a clash is a pointer into the notes, which the
# reader reads whole; a note listing twenty ports needs no twenty in its summary line.
SHOWN_VALUES: Final = 3


def value_clashes(older: NoteFacts, newer: NoteFacts) -> tuple[Difference, ...]:
    """The kinds of value ``older`` and ``newer`` hold differently in the clauses compared
    between them (the clauses :meth:`.NoteFacts.relevant` picks for each other), each as a
    :class:`Difference` with no subject: the net knows no slot, only the kind."""
    theirs = older.values(older.relevant(newer))
    ours = newer.values(newer.relevant(older))
    clashes = []
    for kind in DIFFERENCE_KINDS:
        old, new = _shown(theirs, kind), _shown(ours, kind)
        if not old or not new or old.keys() == new.keys():
            continue
        clashes.append(Difference(kind, "", _listed(old, new.keys()), _listed(new, old.keys())))
    return tuple(clashes)


def _shown(values: list[Value], kind: str) -> dict[str, str]:
    """A side's values of ``kind``: each compared form once, as first written."""
    out: dict[str, str] = {}
    for value in values:
        if value.kind == kind:
            out.setdefault(value.norm, value.shown)
    return out


def _listed(side: dict[str, str], other: Container[str]) -> str:
    """The values only this side holds, as written, in the order said."""
    only = [shown for norm, shown in side.items() if norm not in other]
    more = len(only) - SHOWN_VALUES
    listed = ", ".join(only[:SHOWN_VALUES])
    return f"{listed} (+{more} more)" if more > 0 else listed
