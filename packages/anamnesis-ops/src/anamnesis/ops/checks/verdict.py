"""The doctor's vocabulary: one check's verdict, the three verdicts it can have, and the
runner that turns a check which raised into a finding instead of a traceback."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from anamnesis.ops.home import Home

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


HomeCheck: TypeAlias = "Callable[[Home], Check]"  # one check of a home
CheckTable: TypeAlias = "Sequence[tuple[str, HomeCheck]]"  # named checks, in the order shown


def run_check_table(home: Home, table: CheckTable) -> list[Check]:
    """Every check of ``table`` on ``home``, in order. A check that raises is itself a
    finding (FAIL, under its table name), never a traceback: the doctor runs to its end
    and shows what it could check, and so does the dashboard's status panel."""
    results = []
    for name, check in table:
        try:
            results.append(check(home))
        except Exception as exc:  # a broken check is itself a finding, never a traceback
            results.append(Check(name, FAIL, f"the check itself failed: {exc}"))
    return results
