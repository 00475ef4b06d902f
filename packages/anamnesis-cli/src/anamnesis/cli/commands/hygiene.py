"""`anamnesis clean` and `anamnesis secrets scan`: wiping this machine's store, and checking
the notes again for secrets with today's rules.

Both work on the files themselves, never through the index (which may be stale, and which
`clean` deletes). Nothing outside the store's root is ever removed or read: symbolic links
are removed as links, never followed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer

from anamnesis.cli import console
from anamnesis.cli.context import JsonFlag, current_home
from anamnesis.cli.errors import CliError, UsageError, suggest
from anamnesis.ops import Home, commit_for_sync
from anamnesis.store import NoteTrees, StoreLayout
from anamnesis.sync import SyncBusy, SyncError

SCOPES = ("memory", "all")
CONFIRM_WORD = "delete"
# Beside the notes, in the store's root. The batch journal lists renames into the note
# trees (an unfinished batch write): note state, so it goes with the notes.
BATCH_JOURNAL = ".batch-journal.json"
REFLECT_LOCK = "reflect.lock"
HISTORY = (
    "git history keeps the deleted notes: to purge them, rewrite the remote's history "
    "(`git filter-repo`, then force-push) or replace the remote with a new repository "
    "(`anamnesis config set remote NEW-URL` on each machine), then give every machine a "
    "fresh copy (`anamnesis clean memory --yes`, then `anamnesis sync`) so that none pushes "
    "the old history back"
)

CLEAN_HELP = """Delete this machine's notes, and what is derived from them.

`memory`: every note (portable in memory/, machine-local in local/), the search index
(index.db, its -wal/-shm files and moved-aside index.db.corrupt-* copies), the caches
derived from the notes' git history (cache/: the dashboard's) and the batch journal.
`all`: that, and the logs (logs/), what sessions used (usage.db: `anamnesis stats`), the
eval cases (eval/) and the reflection lock.
config.json is always kept. So is models/: it holds no note, only a downloaded copy of a
public embedding model; delete it by hand to free its space. And keys/: this machine's age
key, which encrypted remotes list as a recipient (a new key is a machine to add again).

This is a wipe of this machine only: the next sync brings the remote's notes back. This
machine's copy of the sync repository (memory/.git) goes with the notes, so that no later
sync sends their deletion anywhere; the next sync re-creates it from the remote, as on a
new machine (the remote's history is untouched). Changes this machine never pushed are
lost: run `anamnesis sync` first to keep them.

--everywhere deletes the notes on every machine: the sync repository is kept and the
deletion is committed to it, and the next sync sends it. Git history keeps the notes: to
purge them, rewrite the remote's history (git filter-repo, then force-push) or replace the
remote with a new repository, then give every machine a fresh copy (`anamnesis clean memory
--yes`, then `anamnesis sync`) so that none pushes the old history back.

On a terminal it shows what goes and asks you to type `delete`; elsewhere --yes is needed.
Nothing outside the store's folder is removed: symbolic links are removed as links."""


def register(app: typer.Typer) -> None:
    app.command(help=CLEAN_HELP)(clean)


# -- clean ----------------------------------------------------------------------------


@dataclass
class CleanPlan:
    """What a clean removes, counted before it starts (shown for confirmation)."""

    home: Home
    what: str
    everywhere: bool
    portable: int  # note files in memory/
    local: int  # note files in local/
    targets: list[Path]
    remote: str | None
    repo: bool  # memory/.git exists (in a real notes folder, not behind a link)
    unpushed: str = ""  # why this machine may hold changes the remote lacks
    links: list[str] = field(default_factory=list)  # note trees that are symbolic links

    @property
    def notes(self) -> int:
        return self.portable + self.local

    @property
    def root(self) -> Path:
        return self.home.root

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


@dataclass
class CleanOutcome:
    removed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    commit: str | None = None
    propagated: bool = False
    detail: str = ""


def clean(
    what: Annotated[str, typer.Argument(metavar="memory|all", help="What to delete.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    everywhere: Annotated[
        bool,
        typer.Option(
            "--everywhere",
            help="Commit the notes' deletion for sync: the next sync removes them on every "
            "machine (git history keeps them).",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    if what not in SCOPES:
        raise UsageError(f"say what to delete: memory or all, got {what!r}")
    home = current_home()
    root = home.root
    if not root.is_dir():
        raise CliError(f"no memory store at {root}: nothing to clean")
    plan = plan_clean(home, what, everywhere=everywhere)
    if not yes:
        if not console.stdin_is_terminal():
            raise UsageError(
                f"{suggest('clean', what)} deletes {plan.notes} note(s) and needs "
                "confirmation: add --yes (nothing was deleted)"
            )
        if not confirm_clean(plan, err=as_json):
            raise CliError("nothing deleted")
    outcome = run_clean(plan)
    if as_json:
        console.print_json(
            {
                "root": str(root),
                "what": what,
                "everywhere": everywhere,
                "notes": {"portable": plan.portable, "machine_local": plan.local},
                "removed": outcome.removed,
                "failed": [{"path": p, "reason": r} for p, r in outcome.failed],
                "kept": _kept(home.layout),
                "commit": outcome.commit,
                "propagated": outcome.propagated,
                "detail": outcome.detail,
            }
        )
    else:
        _say_clean(plan, outcome)
    if outcome.failed:
        raise CliError(
            f"could not remove {len(outcome.failed)} item(s): "
            + "; ".join(f"{p} ({r})" for p, r in outcome.failed[:3])
        )


def plan_clean(home: Home, what: str, *, everywhere: bool) -> CleanPlan:
    memory, local = home.layout.memory_dir, home.layout.local_dir
    repo = _is_folder(memory) and _lexists(memory / ".git")
    plan = CleanPlan(
        home=home,
        what=what,
        everywhere=everywhere,
        portable=_count_notes(memory),
        local=_count_notes(local),
        targets=clean_targets(home.layout, what, everywhere=everywhere),
        remote=home.remote,
        repo=repo,
    )
    if repo and not everywhere:
        plan.unpushed = _unpushed(home)
    plan.links = [t.name for t in (memory, local) if t in plan.targets and t.is_symlink()]
    return plan


def clean_targets(layout: StoreLayout, what: str, *, everywhere: bool) -> list[Path]:
    """What to remove, in order: this machine's sync repository first (a wipe stopped
    half-way must never leave a repository with the notes deleted from it: a sync would
    send the deletion), then the notes, the index and the rest. Only the store's own
    names are listed, all inside its root."""
    targets: list[Path] = []
    root, memory, local = layout.root, layout.memory_dir, layout.local_dir
    # The named remotes' sync folders and pins, first for the same reason: with the notes
    # gone and a mirror left, its next sync would delete them from a team's remote. They
    # are rebuilt from the remotes by the next sync; even --everywhere leaves the named
    # remotes as they are (it deletes the notes on the default remote only).
    if _lexists(layout.remotes_dir):
        targets.append(layout.remotes_dir)
    if _is_folder(memory):
        names = sorted(child.name for child in memory.iterdir())
        if not everywhere:
            targets += [memory / n for n in names if n.lower() == ".git"]
        # sync's work tree (dulwich.index, ~40 ms): only when cleaning or scanning
        from anamnesis.sync import SYNC_LOCK_FILE

        targets += [memory / n for n in names if n.lower() != ".git" and n != SYNC_LOCK_FILE]
    elif _lexists(memory):  # a link (or a file): removed as itself, never followed
        targets.append(memory)
    if _is_folder(local):
        targets += sorted(local.iterdir())
    elif _lexists(local):
        targets.append(local)
    targets += sorted(p for p in root.iterdir() if _is_index_file(layout, p.name))
    # The cache is rebuilt from the notes' git history on use (the dashboard's): it goes
    # with them.
    targets += [p for p in (layout.cache_dir, root / BATCH_JOURNAL) if _lexists(p)]
    if what == "all":
        targets += [p for p, _label in _extras(layout) if _lexists(p)]
        targets += sorted(p for p in root.iterdir() if _is_usage_file(layout, p.name))
    return targets


def confirm_clean(plan: CleanPlan, *, err: bool = False) -> bool:
    """Show what goes, then ask for the word; True only when it was typed."""
    for line in describe_clean(plan):
        typer.echo(line, err=err)
    answer = typer.prompt(
        f"Type {CONFIRM_WORD} to delete, anything else to keep everything",
        default="",
        show_default=False,
        err=err,
    )
    return str(answer).strip().lower() == CONFIRM_WORD


def describe_clean(plan: CleanPlan) -> list[str]:
    """The plan in words, for the confirmation."""
    names = {plan.rel(t) for t in plan.targets}
    where = "on EVERY machine that syncs" if plan.everywhere else "on this machine only"
    lines = [f"anamnesis clean {plan.what}: deletes, {where}, from {plan.root}:"]
    lines.append(f"  {plan.portable} portable note(s) in memory/ (the whole folder's content)")
    if plan.repo and not plan.everywhere:
        lines.append(
            "  memory/.git, this machine's copy of the sync repository (the next sync "
            "re-creates it from the remote)"
        )
    lines.append(f"  {plan.local} machine-local note(s) in local/")
    layout = plan.home.layout
    index = sorted(n for n in names if _is_index_file(layout, n))
    if index:
        lines.append(f"  the search index: {', '.join(index)}")
    trees = {plan.rel(layout.memory_dir), plan.rel(layout.local_dir)}
    rest = sorted(n for n in names if "/" not in n and n not in trees)
    rest = [n for n in rest if not _is_index_file(layout, n)]
    if rest:
        lines.append(f"  {', '.join(rest)}")
    for link in _linked_trees(plan):
        lines.append(f"  {link}")
    lines.append(f"  kept: {', '.join(_kept(layout)) or 'nothing else'}")
    if plan.unpushed:
        lines.append(f"  warning: {plan.unpushed}")
    if plan.everywhere:
        lines.append(
            "The deletion is committed for sync: the next sync removes these notes on every "
            f"machine. {HISTORY[0].upper()}{HISTORY[1:]}."
        )
    elif plan.remote:
        lines.append("The next sync brings the remote's notes back to this machine.")
    else:
        lines.append("No remote is configured: nothing will bring these notes back.")
    return lines


def run_clean(plan: CleanPlan) -> CleanOutcome:
    """Remove what the plan names (listed again now, under the sync lock)."""
    home = plan.home
    memory, local = home.layout.memory_dir, home.layout.local_dir
    outcome = CleanOutcome()
    with _sync_paused(home):
        targets = clean_targets(home.layout, plan.what, everywhere=plan.everywhere)
        had_repo = _is_folder(memory) and _lexists(memory / ".git")
        for path in targets:
            rel = plan.rel(path)
            try:
                remove(path)
            except OSError as exc:
                outcome.failed.append((rel, exc.strerror or str(exc)))
                first = path == home.layout.remotes_dir  # see clean_targets: before the notes
                if first or (path.parent == memory and path.name.lower() == ".git"):
                    raise CliError(
                        f"could not remove {rel} ({exc.strerror or exc}), so nothing else was "
                        f"deleted (a sync would send the notes' deletion): remove {path} by "
                        "hand, then run this again"
                    ) from None
                continue
            outcome.removed.append(rel)
        for tree in (memory, local):  # an empty store: `status` and the hooks work on
            tree.mkdir(exist_ok=True)
        if had_repo and not plan.everywhere and not _lexists(memory / ".git"):
            _fresh_repo(home)  # as on a new machine: the next sync takes the remote's notes
    if plan.everywhere:
        _propagate(plan, outcome, had_repo=had_repo)
    return outcome


def remove(path: Path) -> None:
    """Remove ``path``: a folder with everything in it, anything else as itself. A symbolic
    link is removed as a link, whatever it points at: no link is ever followed."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        path.unlink()
        return
    for child in path.iterdir():
        remove(child)
    path.rmdir()


def _propagate(plan: CleanPlan, outcome: CleanOutcome, *, had_repo: bool) -> None:
    """Commit the deletion in the sync repository, so the next sync sends it."""
    if not had_repo:
        outcome.detail = (
            "nothing to propagate: this store has no sync repository (memory/.git), so the "
            "notes were deleted on this machine only"
        )
        return

    try:
        before = plan.home.sync_state().head
        # The commit takes whatever is left in the folder (a file that could not be
        # removed, one written since): masked first, as everything a sync sends is.
        outcome.commit = commit_for_sync(
            plan.home,
            NoteTrees(plan.root),
            f"anamnesis clean --everywhere: deleted {plan.portable} note(s)",
        )
    except (SyncError, OSError) as exc:  # OSError: a file left could not be masked
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        outcome.detail = (
            f"deleted, but the deletion is not committed yet ({why}); the next sync commits "
            "it and removes the notes on every machine"
        )
        return
    if outcome.commit is None or outcome.commit == before:
        outcome.detail = (
            "nothing to propagate: none of these notes had been committed for sync, so no "
            "other machine has them"
        )
        return
    outcome.propagated = True
    if plan.remote:
        outcome.detail = (
            f"committed the deletion ({outcome.commit}): the next sync removes these notes "
            "on every machine"
        )
    else:
        outcome.detail = (
            f"committed the deletion ({outcome.commit}); no remote is configured: it reaches "
            "other machines once this one syncs with them"
        )


def _fresh_repo(home: Home) -> None:
    """An empty sync repository, as `init` makes one, so the store looks set up."""
    try:
        home.sync_backend().init()
    except (SyncError, OSError) as exc:  # the next sync makes it
        console.warn(f"the sync repository will be re-created by the next sync ({exc})")


def _say_clean(plan: CleanPlan, outcome: CleanOutcome) -> None:
    parts = [f"{plan.portable} portable and {plan.local} machine-local note(s)"]
    removed = set(outcome.removed)
    layout = plan.home.layout
    if any(_is_index_file(layout, n) for n in removed):
        parts.append("the search index")
    if plan.what == "all":
        parts += [label for path, label in _extras(layout) if plan.rel(path) in removed]
        if any(_is_usage_file(layout, n) for n in removed):
            parts.append("what sessions used (usage.db)")
    console.say(f"deleted {', '.join(parts)} from {plan.root}")
    for link in _linked_trees(plan):
        console.say(link)
    console.say(f"kept {', '.join(_kept(layout)) or 'nothing else'}")
    if plan.everywhere:
        console.say(outcome.detail)
        if outcome.propagated:
            console.say(HISTORY)
    elif plan.remote:
        console.say(
            "this machine only: the next sync brings the remote's notes back "
            f"({suggest('clean', plan.what, '--everywhere')} deletes them on every machine)"
        )
    else:
        console.say("this machine only; no remote is configured, so nothing brings them back")


def _extras(layout: StoreLayout) -> tuple[tuple[Path, str], ...]:
    """What `clean all` removes beyond the notes, with how it is named when done."""
    return (
        (layout.logs_dir, "the logs"),
        (layout.eval_dir, "the eval cases"),
        (layout.root / REFLECT_LOCK, REFLECT_LOCK),
    )


def _linked_trees(plan: CleanPlan) -> list[str]:
    """A note tree that is a link to elsewhere: what happens to it, in words."""
    return [
        f"{name}/ is a symbolic link: the link is removed, not what it points to"
        for name in plan.links
    ]


def _kept(layout: StoreLayout) -> list[str]:
    """What a clean never removes (this machine's settings and key, a downloaded model)."""
    kept = (layout.config_path, layout.models_dir, layout.keys_dir)
    return [path.name for path in kept if _lexists(path)]


@contextmanager
def _sync_paused(home: Home) -> Iterator[None]:
    """Hold the notes folder's sync lock (a sync waits meanwhile): none commits or pushes
    a half-deleted folder. Not on a folder behind a link: nothing in it is touched."""
    if not _is_folder(home.memory_dir):
        yield
        return

    # The lock alone is taken: no repository is opened, nothing is contacted.
    try:
        with home.sync_backend().exclusive():
            yield
    except SyncBusy:
        raise CliError(
            "a sync is running on this store; nothing was deleted: try again when it is done"
        ) from None
    except SyncError as exc:  # the lock file cannot be opened (a link in its place)
        raise CliError(f"{exc}; nothing was deleted") from None


def _unpushed(home: Home) -> str:
    """A warning when this machine's sync repository may hold what no other copy has
    (empty when it holds nothing of the kind)."""
    remote = home.remote
    keep = "(run `anamnesis sync` first to keep them)"
    try:
        state = home.sync_state()
    except (SyncError, OSError):
        return f"the sync repository cannot be read: changes not pushed yet are lost {keep}"
    if remote is None:
        if state.head is None:
            return ""
        return "no remote is configured: memory/.git, the only history of these notes, goes too"
    if state.dirty or state.ahead:
        return f"this machine has changes it has not pushed yet: they are lost {keep}"
    if state.head is not None and state.ahead is None:
        return f"this machine never synced with the remote: its commits may be lost {keep}"
    return ""


def _count_notes(tree: Path) -> int:
    """Note files a clean deletes: none behind a link (the link goes, not what it holds)."""
    if not _is_folder(tree):
        return 0
    return sum(1 for path in tree_files(tree) if path.name.endswith(".md"))


def tree_files(tree: Path) -> Iterator[Path]:
    """The regular files of a note tree, outside git's folder; no link is followed (one
    in place of the tree itself is, as the store reads through it)."""
    if not tree.is_dir():
        return
    from anamnesis.sync import SYNC_LOCK_FILE  # see clean_targets

    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if d.lower() != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            if name == SYNC_LOCK_FILE or (name.startswith(".") and name.endswith(".tmp")):
                continue  # the sync lock, temp files of writes: never synced, not notes
            try:
                if stat.S_ISREG(path.lstat().st_mode):
                    yield path
            except OSError:
                continue


def _is_index_file(layout: StoreLayout, name: str) -> bool:
    """The index, its -wal/-shm files and the copies of a broken one moved aside."""
    index = layout.db_path.name
    return name == index or name.startswith((f"{index}-", f"{index}.corrupt-"))


def _is_usage_file(layout: StoreLayout, name: str) -> bool:
    """The usage log (machine-local: the notes come back with the next sync, so `clean
    memory` keeps it), its -wal/-shm files and a damaged one moved aside."""
    usage = layout.usage_path.name
    return name == usage or name.startswith((f"{usage}-", f"{usage}.broken"))


def _is_folder(path: Path) -> bool:
    """A real folder: not a link to one."""
    try:
        return stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


def _lexists(path: Path) -> bool:
    return os.path.lexists(path)
