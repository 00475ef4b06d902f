"""Small value classes without the dataclasses module.

``dataclasses`` imports ``inspect``, which costs a session hook ~20 ms of its 60 ms budget
on a slow machine. Records here spell out their ``__init__`` (so type checkers see the
real signature) and get equality, a readable repr and ``replace()`` from this base.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any, Self


class Record:
    """Equality, repr and ``replace()`` from the attributes named in ``__slots__``."""

    __slots__: tuple[str, ...] = ()

    def replace(self, **changes: Any) -> Self:
        """A copy with some attributes changed (like ``dataclasses.replace``)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        values = {name: getattr(self, name) for name in self.__slots__}
        values.update(changes)
        return type(self)(**values)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, Record)
        return self._values() == other._values()

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({inner})"

    __hash__ = None  # type: ignore[assignment]  # mutable values: not hashable
