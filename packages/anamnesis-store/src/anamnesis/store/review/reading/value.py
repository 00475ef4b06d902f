"""A value one note states: its kind, what it is a value of, and the words around it
(:class:`Value`); and the parts of a clause already read as one (:class:`Spans`)."""

from __future__ import annotations

from anamnesis.store.record import Record

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

KINDS: Final = ("number", "version", "port", "path", "flag", "command", "name", "url")


class Value(Record):
    """One value a note states.

    ``norm``: what is compared (case and spacing folded; a duration in seconds, a size in
    bytes); ``shown``: as written. ``slot``: what it is a value of (a key, a tool, a
    unit), "" when only its clause says; ``keyed``: the slot names the thing itself (a
    key, a flag, a tool), not only a unit. ``low``/``high``: a version range's bounds
    (``>= 3.11``), or None; ``bound``: a number that is a minimum (``>=``, "at least 12")
    or a maximum (``<=``, "capped at 128"), "" for a number as it is. ``clause``: the
    index of its clause; ``stems``: the words around it (its own left out); ``near``: the
    words just before it; ``changed``: words beside it say it is a new state ("moved to",
    "now"); ``own``: the stems of its own words; ``named``: the proper names and acronyms
    around it, in lower case (``postgres``, ``http``: what it belongs to, when named).
    """

    __slots__ = (
        "kind", "norm", "shown", "slot", "keyed", "low", "high", "bound", "clause", "stems",
        "near", "changed", "own", "named",
    )  # fmt: skip

    def __init__(
        self,
        kind: str,
        norm: str,
        shown: str,
        slot: str = "",
        keyed: bool = False,
        low: tuple[int, ...] | None = None,
        high: tuple[int, ...] | None = None,
        bound: str = "",
        clause: int = 0,
        stems: frozenset[str] = frozenset(),
        near: tuple[str, ...] = (),
        changed: bool = False,
        own: frozenset[str] = frozenset(),
        named: frozenset[str] = frozenset(),
    ) -> None:
        self.kind = kind
        self.norm = norm
        self.shown = shown
        self.slot = slot
        self.keyed = keyed
        self.low = low
        self.high = high
        self.bound = bound
        self.clause = clause
        self.stems = stems
        self.near = near
        self.changed = changed
        self.own = own
        self.named = named

    def at_clause(self, clause: int) -> Value:
        """A copy of this value in clause ``clause`` (a clause's values are kept per text
        and shared by every clause of that text). Spelled out, not ``replace()``: a review
        copies every value of every clause it reads, and this is three times faster."""
        return Value(
            self.kind, self.norm, self.shown, self.slot, self.keyed, self.low, self.high,
            self.bound, clause, self.stems, self.near, self.changed, self.own, self.named,
        )  # fmt: skip


class Spans:
    """The parts of a clause already read as a value, so no later pattern reads them."""

    __slots__ = ("taken",)

    def __init__(self) -> None:
        self.taken: list[tuple[int, int]] = []

    def free(self, start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in self.taken)

    def take(self, start: int, end: int) -> None:
        self.taken.append((start, end))
