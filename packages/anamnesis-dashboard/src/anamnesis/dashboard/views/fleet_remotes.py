"""The fleet page per remote: for the default remote and each named one, the machines its
history has seen (the authors of its commits: ``memory/.git`` for the default, the
remote's mirror folder's ``.git`` for a named one), how many commits each made and when
it last synced; and where this machine's notes go (the routes ops gives, by remote).

Offline: nothing is contacted; a remote never synced here has no history yet. Each
history is read through its own :class:`HistoryCache` (derived, rebuilt when missing).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from anamnesis.dashboard.views.history_cache import HistoryCache
from anamnesis.ops import DEFAULT_REMOTE, Home, NoteFacts, RemoteState, Router, remotes_state
from anamnesis.store import Memory
from anamnesis.sync import SyncError

STAYS_HERE = "this machine only"  # a note no remote takes (no default remote, no rule)


@dataclass(frozen=True, slots=True)
class RemoteMachine:
    """A machine as one remote's history knows it."""

    machine_id: str
    commits: int
    last_commit: int  # unix seconds of its newest commit there


@dataclass(frozen=True, slots=True)
class RemoteFleet:
    """One remote: its state here (url, rules, encryption), how many of the notes here
    route to it, and the machines its history has seen, most recently active first."""

    name: str
    url: str
    encrypt: bool
    rules: str
    detail: str
    routed: int
    machines: list[RemoteMachine]
    problem: str = ""


def note_route(home: Home) -> Callable[[Memory], str]:
    """Which remote a portable note goes to (its name, or :data:`STAYS_HERE`): ops' rules
    and pins, read once; the note's facts from the note itself (no file is read)."""
    router = Router.of(home)

    def route(note: Memory) -> str:
        rel = f"{note.type}/{note.id}.md"
        found = router.route(rel, lambda: NoteFacts(note.project, tuple(note.tags)))
        return found.remote or STAYS_HERE

    return route


def remote_fleets(home: Home, history_of: Callable[[str, Path], HistoryCache]) -> list[RemoteFleet]:
    """Every remote of ``home`` in routing order (the default first), each with the
    machines of its history. ``history_of(name, repo_dir)`` gives that remote's cache.
    ``routed`` is 0 until :func:`with_routed` counts the notes."""
    fleets = []
    for state in remotes_state(home):
        repo_dir = home.memory_dir if state.name == DEFAULT_REMOTE else _mirror(home, state)
        machines: list[RemoteMachine] = []
        problem = state.problem
        if (repo_dir / ".git").is_dir():
            try:
                history = history_of(state.name, repo_dir)
                history.refresh()
                machines = _by_activity(history.machines().items())
            except (SyncError, OSError) as exc:
                problem = f"its history cannot be read: {exc}"
        row = state.as_dict()
        fleets.append(
            RemoteFleet(
                name=state.name,
                url=state.url,
                encrypt=bool(row["encrypt"]),
                rules=_rules(row),
                detail=str(row["detail"]),
                routed=0,
                machines=machines,
                problem=problem,
            )
        )
    return fleets


def with_routed(fleets: list[RemoteFleet], routes: Iterable[Counter[str]]) -> list[RemoteFleet]:
    """The remotes with how many notes here go to each (``routes``: each machine's)."""
    routed: Counter[str] = Counter()
    for counts in routes:
        routed.update(counts)
    return [replace(fleet, routed=routed[fleet.name]) for fleet in fleets]


def all_commits(
    notes_folder: dict[str, tuple[int, int]], fleets: list[RemoteFleet]
) -> dict[str, tuple[int, int]]:
    """Each machine's (commits, last commit) over the notes folder's history and every
    named remote's: a teammate that only ever synced the team remote has synced too."""
    merged = dict(notes_folder)
    for fleet in fleets:
        if fleet.name == DEFAULT_REMOTE:  # its history is the notes folder's, counted
            continue
        for m in fleet.machines:
            count, last = merged.get(m.machine_id, (0, m.last_commit))
            merged[m.machine_id] = (count + m.commits, max(last, m.last_commit))
    return merged


def _mirror(home: Home, state: RemoteState) -> Path:
    return home.layout.mirror_dir(state.name)


def _by_activity(rows: Iterable[tuple[str, tuple[int, int]]]) -> list[RemoteMachine]:
    machines = [RemoteMachine(m, count, last) for m, (count, last) in rows]
    return sorted(machines, key=lambda m: (-m.last_commit, m.machine_id))


def _rules(row: dict[str, object]) -> str:
    if row["name"] == DEFAULT_REMOTE:
        return "the rest (no rule of another remote matches)"
    parts = []
    for key in ("projects", "scopes", "tags"):
        values = row[key]
        if isinstance(values, list) and values:
            parts.append(f"{key} {', '.join(str(v) for v in values)}")
    return "; ".join(parts) or "no rule: only notes shared to it"
