"""The doctor's vocabulary: one check's verdict, and the three verdicts it can have."""

from __future__ import annotations

from dataclasses import asdict, dataclass

OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass(frozen=True, slots=True)
class Check:
    """One part of the installation: its verdict, what was found, and how to fix it (on a
    passing check: what could be added, shown as a tip)."""

    name: str
    status: str
    detail: str
    fix: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)
