"""`anamnesis doctor`: check every part of the installation and say how to fix each problem."""

from __future__ import annotations

import os
import shlex
import sqlite3
import tempfile
import warnings
from collections.abc import Callable
from functools import partial
from pathlib import Path

from anamnesis.cli import hooks_settings, installation, mcp_registration
from anamnesis.cli.config_file import (
    RECALL_KEYS,
    ConfigUnreadable,
    check_keyword_ranking,
    check_machine_id,
    check_model_path,
    check_recall_value,
    check_search_mode,
    load_config,
)
from anamnesis.cli.doctor_checks import FAIL, OK, WARN, Check
from anamnesis.cli.doctor_vectors import vectors_check
from anamnesis.cli.errors import CliError
from anamnesis.cli.locations import anamnesis_command, claude_json_path, settings_path
from anamnesis.cli.maintenance import open_conflicts, swept_summary
from anamnesis.ops import Home
from anamnesis.store import Memory
from anamnesis.sync import redact_url

# Seconds the remote check waits for an answer: someone is watching the doctor run, and a
# remote that stays silent this long is a finding in itself.
REMOTE_TIMEOUT_S = 10.0
# A session's capture is filed a moment after the session ends; one still queued this long
# after is waiting for a worker that died (the machine slept, the process was killed).
STALE_CAPTURE_S = 300.0


__all__ = ["FAIL", "OK", "WARN", "Check", "run_checks"]


def run_checks(home: Home, *, check_remote: bool = True) -> list[Check]:
    """Every check; ``check_remote=False`` (``--offline``) contacts nothing on the network:
    neither the remote nor a model download."""
    checks: list[Callable[[Home], Check]] = [
        _installation,
        _store,
        _index,
        _clock,
        _config,
        _hooks,
        _captures,
        _mcp,
        _remote if check_remote else _remote_skipped,
        _sync_state,
        _vectors_check(offline=not check_remote),
    ]
    results = []
    for check in checks:
        try:
            results.append(check(home))
        except Exception as exc:  # a broken check is itself a finding, never a traceback
            name = check.__name__.strip("_")
            results.append(Check(name, FAIL, f"the check itself failed: {exc}"))
    return results


def _installation(home: Home) -> Check:
    inst = installation.detect()
    return Check("install", OK, inst.describe(), f"update: {installation.update_command(inst)}")


def _store(home: Home) -> Check:
    root = home.root
    if not root.is_dir():
        return Check("store", FAIL, f"no store at {root}", "run `anamnesis init`")
    try:
        with tempfile.NamedTemporaryFile(dir=root, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check(
            "store", FAIL, f"{root} is not writable: {exc.strerror or exc}",
            "fix the folder's permissions or free some disk space",
        )  # fmt: skip
    notes, local = (_note_files(tree) for tree in (home.layout.memory_dir, home.layout.local_dir))
    return Check("store", OK, f"{root}: {notes} portable and {local} machine-local note files")


def _note_files(tree: Path) -> int:
    return sum(1 for _ in tree.rglob("*.md")) if tree.is_dir() else 0


def _index(home: Home) -> Check:
    from anamnesis.store import IndexRebuiltWarning, StoreError

    if not home.root.is_dir():
        return Check("index", FAIL, "no store yet", "run `anamnesis init`")
    rebuilt = ""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IndexRebuiltWarning)
            with home.open_store() as store:
                total = store.count()
                problems = store.problems()
                db_path = store.db_path
                swept = store.sweep_leftovers()  # temp files of killed writes: no live owner
        rebuilt = next((str(w.message) for w in caught if w.category is IndexRebuiltWarning), "")
    except StoreError as exc:
        # The store moves an index it cannot use aside and rebuilds it by itself: when even
        # that failed, a reindex would fail the same way. The folder is what needs fixing.
        return Check(
            "index", FAIL, str(exc),
            f"make {home.root} and {home.layout.db_path} writable by you (or delete index.db); "
            "the notes are safe: the index is rebuilt from them",
        )  # fmt: skip
    with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as conn:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
    conn.close()
    if verdict != "ok":
        return Check(
            "index", FAIL, f"SQLite reports damage: {verdict}",
            f"delete {db_path} and run `anamnesis reindex` (the markdown is the truth)",
        )  # fmt: skip
    if problems:
        shown = "; ".join(f"{p.path}: {p.reason}" for p in problems[:3])
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        return Check(
            "index", WARN, f"{len(problems)} note file(s) cannot be read: {shown}{more}",
            "fix or delete those files; they are indexed again as soon as they parse",
        )  # fmt: skip
    detail = f"{total} notes indexed"
    if swept:
        detail += f"; {swept_summary([f.size for f in swept])}"
    if rebuilt:
        return Check("index", WARN, f"{detail}; it was rebuilt: {rebuilt}")
    return Check("index", OK, detail)


def _clock(home: Home) -> Check:
    if not home.memory_dir.is_dir():
        return Check("clock", OK, "no notes yet")
    with home.open_store() as store:
        ahead = store.dated_ahead()  # read from a small index: fast at any store size
    if not ahead:
        return Check("clock", OK, "no note is dated in the future")
    by_machine: dict[str, list[Memory]] = {}
    for note in ahead:
        by_machine.setdefault(note.machine_id, []).append(note)
    named = "; ".join(f"{machine}: {_some(notes)}" for machine, notes in by_machine.items())
    return Check(
        "clock", WARN,
        f"{len(ahead)} note(s) dated in the future by this machine's clock: {named} (each "
        "ranks as when this store got it, never above newer notes)",
        f"set the clock right on {', '.join(by_machine)} (turn on network time), or on this"
        " machine if its own clock runs behind; a note stays flagged until its date has"
        " passed or its updated_at is corrected",
    )  # fmt: skip


def _some(notes: list[Memory]) -> str:
    shown = ", ".join(f"{n.id} ({max(n.updated_at, n.created_at)[:10]})" for n in notes[:3])
    return shown + (f" and {len(notes) - 3} more" if len(notes) > 3 else "")


def _config(home: Home) -> Check:
    path = home.layout.config_path
    if not path.exists():
        return Check("config", WARN, f"no {path}", "run `anamnesis init` to write it")
    try:
        config = load_config(home)  # `{}` is a valid, empty config: the defaults apply
    except ConfigUnreadable as exc:
        return Check(
            "config", FAIL, f"{exc.path} {exc.problem} (its settings are being ignored)",
            "fix it by hand, or move it aside and run `anamnesis init`",
        )  # fmt: skip
    machine_id = config.get("machine_id")
    if machine_id is not None:
        try:
            check_machine_id(str(machine_id), source=f"machine_id in {path}")
        except CliError as exc:
            return Check("config", FAIL, exc.message, "anamnesis config set machine_id NAME")
    checks: list[tuple[str, Callable[..., str]]] = [
        ("search_mode", check_search_mode), ("embed_model_path", check_model_path),
        ("keyword_ranking", check_keyword_ranking),
        *((key, partial(check_recall_value, key)) for key in RECALL_KEYS),
    ]  # fmt: skip
    for key, check in checks:
        if config.get(key) is not None:
            try:
                check(str(config[key]), source=f"{key} in {path}")
            except CliError as exc:  # the store ignores it: searches quietly use the default
                return Check(
                    "config", WARN, f"{exc.message} (it is ignored)",
                    f"`anamnesis config set {key} VALUE` or `anamnesis config unset {key}`",
                )  # fmt: skip
    if os.name == "posix" and path.stat().st_mode & 0o077:
        return Check(
            "config", WARN, f"{path} is readable by others (it may hold a remote's credentials)",
            f"chmod 600 {shlex.quote(str(path))}",
        )  # fmt: skip
    return Check("config", OK, f"machine_id = {config.get('machine_id', '(hostname)')}")


def _hooks(home: Home) -> Check:
    path = settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Check("hooks", FAIL, f"no {path}", "run `anamnesis init`")
    try:
        settings = hooks_settings.parse_settings(text, path)
    except hooks_settings.InvalidSettings as exc:
        return Check("hooks", FAIL, str(exc), "Claude Code cannot read it either: fix the JSON")
    ours = hooks_settings.our_hooks(settings)
    missing = hooks_settings.missing_hooks(settings)
    if missing:
        wanted = len(hooks_settings.HOOKS)
        named = ", ".join(f"{spec.event} ({' '.join(spec.args)})" for spec in missing)
        return Check(
            "hooks", FAIL,
            f"{wanted - len(missing)} of {wanted} Anamnesis hooks in {path}; missing: {named}",
            "run `anamnesis init`",
        )  # fmt: skip
    for _event, command in ours:
        read = hooks_settings.read_command(command)
        assert read is not None  # our_hooks lists only commands it reads as ours
        env, program = read.env, read.program
        if not Path(program).exists():
            return Check(
                "hooks", FAIL, f"the hooks run {program}, which no longer exists",
                "run `anamnesis init` again from the installed `anamnesis`",
            )  # fmt: skip
        if env.get("ANAMNESIS_HOME") and Path(env["ANAMNESIS_HOME"]) != home.root:
            return Check(
                "hooks", WARN,
                f"the hooks use the store at {env['ANAMNESIS_HOME']}, not {home.root}",
                "run `anamnesis init` to point them here",
            )  # fmt: skip
    return Check("hooks", OK, f"{len(ours)} hooks in {path}")


def _captures(home: Home) -> Check:
    """Session captures still waiting to be filed, or refused by the store."""
    import time

    from anamnesis.hooks import queued_captures, refused_captures

    refused = refused_captures(home.root)
    if refused:
        return Check(
            "captures", WARN,
            f"{len(refused)} session capture(s) the store refused, kept in {refused[0].parent}",
            "hooks.log says why; each file holds the session's title and summary as JSON",
        )  # fmt: skip
    ages = []
    for path in queued_captures(home.root):
        try:
            ages.append(time.time() - path.stat().st_mtime)
        except OSError:
            continue  # filed meanwhile
    stale = [age for age in ages if age > STALE_CAPTURE_S]
    if stale:
        return Check(
            "captures", WARN,
            f"{len(stale)} session capture(s) not filed yet, the oldest queued"
            f" {max(stale) / 60:.0f} min ago",
            "run `anamnesis sync`, which files them (so does the next session's start)",
        )  # fmt: skip
    return Check("captures", OK, f"{len(ages)} session capture(s) waiting to be filed")


def _mcp(home: Home) -> Check:
    if not mcp_registration.mcp_extra_installed():
        from anamnesis.cli.setup import add_mcp_extra

        return Check(
            "mcp", WARN, "the MCP server is not installed (the memory_* tools are unavailable)",
            add_mcp_extra(),
        )  # fmt: skip
    entry = mcp_registration.registered_entry()
    command = anamnesis_command()
    env = {"ANAMNESIS_HOME": str(home.root)}
    if mcp_registration.is_current(entry, command, env):
        return Check("mcp", OK, "registered at user scope")
    if mcp_registration.find_claude() is None:
        # Nothing to fix here yet: Claude Code is not installed (or not on PATH). The line
        # to run once it is, exactly as `init` would have run it.
        line = mcp_registration.shell_line(mcp_registration.add_argv(command, env))
        return Check(
            "mcp", WARN,
            "Claude Code's `claude` command is not on PATH, so the MCP server is not "
            "registered yet (the hooks are installed and work once Claude Code is)",
            f"once Claude Code is installed, run: {line}",
        )  # fmt: skip
    if entry is None:
        return Check(
            "mcp", FAIL, f"no user-scope `anamnesis` server in {claude_json_path()}",
            "run `anamnesis init` (or `claude mcp list` to look for it in another scope)",
        )  # fmt: skip
    return Check(
        "mcp", WARN, f"registered, but as {entry.get('command')} {entry.get('args')}",
        "run `anamnesis init` to register this installation",
    )  # fmt: skip


def _remote(home: Home) -> Check:
    from anamnesis.sync import check_remote

    remote = home.remote
    if not remote:
        return Check(
            "remote", OK, "none: notes stay on this machine",
            "to sync between machines: `anamnesis init --remote URL`",
        )  # fmt: skip
    problem = check_remote(remote, timeout_s=REMOTE_TIMEOUT_S)
    if problem:
        return Check(
            "remote", FAIL, problem,
            "check the URL and the network; change it with `anamnesis init --remote URL`",
        )  # fmt: skip
    return Check("remote", OK, f"{redact_url(remote)} answers")


def _remote_skipped(home: Home) -> Check:
    remote = home.remote
    return Check("remote", OK, f"{redact_url(remote) if remote else 'none'} (not contacted)")


def _sync_state(home: Home) -> Check:
    if not home.memory_dir.is_dir():
        return Check("sync", WARN, "no store yet", "run `anamnesis init`")
    state = home.sync_state()
    if state.conflicts:
        return Check(
            "sync", FAIL, f"unresolved conflicts: {', '.join(state.conflicts)}",
            "`anamnesis sync --resolve keep-both` (or ours / theirs)",
        )  # fmt: skip
    if not state.initialized:
        return Check("sync", WARN, state.detail, "run `anamnesis sync`")
    if state.git_locks:
        locks = ", ".join(f"{lock.path} ({lock.age_s:.0f} s old)" for lock in state.git_locks)
        return Check(
            "sync", WARN, f"git lock(s) left by a killed sync: {locks}",
            "run `anamnesis sync`: under its own lock it removes locks no live sync holds",
        )  # fmt: skip
    if state.unsynced:
        shown = ", ".join(f"{u.path} ({u.kind})" for u in state.unsynced[:5])
        return Check(
            "sync", WARN, f"not synced, not being plain files: {shown}",
            "replace links with the files themselves (links are never followed or synced)",
        )  # fmt: skip
    kept = _kept_both(home)
    if kept:
        return Check(
            "sync", WARN,
            f"{len(kept)} note(s) kept both ways after a conflict: {', '.join(kept[:6])}",
            "keep one: `anamnesis write --supersedes OTHER_ID ...` (or merge them into a new "
            "note that supersedes both); both stay listed until then",
        )  # fmt: skip
    if state.ahead:
        return Check("sync", WARN, state.detail, "run `anamnesis sync` once the remote answers")
    return Check("sync", OK, state.detail)


def _kept_both(home: Home) -> list[str]:
    with home.open_store() as store:
        return [note.id for note, _others in open_conflicts(store)]


def _vectors_check(offline: bool) -> Callable[[Home], Check]:
    def _vectors(home: Home) -> Check:
        return vectors_check(home.root, offline=offline)

    return _vectors
