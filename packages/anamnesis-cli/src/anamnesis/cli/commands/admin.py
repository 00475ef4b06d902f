"""Looking after the store: status, reindex, import, migrate, dedup, project, doctor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from anamnesis.cli import config_file, console, maintenance
from anamnesis.cli.context import (
    JsonFlag,
    current_home,
    embed_in_background,
    open_home,
    open_store,
)
from anamnesis.cli.display import doctor_report, lines
from anamnesis.cli.display.tables import Column, show
from anamnesis.cli.doctor_vectors import backlog_words, search_words, vectors_fix
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.ops import (
    DEFAULT_REMOTE,
    claude_home,
    embedder_pid,
    import_native_memory,
    open_conflicts,
    remote_specs,
    remotes_state,
    resolve_project_key,
    swept_summary,
)
from anamnesis.store import (
    MODEL_FOLDER_HINT,
    SEARCH_MODES,
    MemoryStore,
    VectorsUnavailable,
    configured_search_mode,
    forget_unreachable_model,
)
from anamnesis.sync import redact_url

if TYPE_CHECKING:
    from anamnesis.store import LeftoverFile

ApplyFlag = Annotated[bool, typer.Option("--apply", help="Make the changes (default: dry run).")]
# The tables' columns: ids and counts whole, project keys and titles cut to the terminal
# (a project before a title: the title says which note it is).
PROJECT_COLUMNS = [Column("project", cut=1), Column("notes")]
MIGRATE_COLUMNS = [Column("from", cut=1), Column("to", cut=1), Column("notes")]
DEDUP_COLUMNS = [
    Column("project", cut=1, comfort=10, drop=1),
    Column("keep"),
    Column("remove"),
    Column("title", cut=2, comfort=20),
]


def register(app: typer.Typer) -> None:
    app.command()(status)
    app.command()(reindex)
    # `import` is a group (interchange.py): its bare form runs import_native.
    app.command()(migrate)
    app.command()(dedup)
    app.command()(project)
    app.command(name="doctor")(doctor_command)


def status(as_json: JsonFlag = False) -> None:
    """Counts, unreadable files and the sync state (no network)."""
    with open_home() as (home, store):
        swept = store.sweep_leftovers()  # housekeeping a status may do: nothing live is touched
        stats = store.stats()
        problems = store.problems()
        state = home.sync_state()
        report: dict[str, Any] = {
            "root": str(store.root),
            "db_path": str(store.db_path),
            "machine_id": home.machine_id,
            "total": stats.total,
            "by_type": stats.by_type,
            "by_project": stats.by_project,
            "by_scope": stats.by_scope,
            "superseded": stats.superseded,
            "problems": [{"path": p.path, "reason": p.reason} for p in problems],
            "swept": [{"path": f.path, "bytes": f.size} for f in swept],
            "sync": {
                "initialized": state.initialized,
                "remote": redact_url(state.remote) if state.remote else None,
                "head": state.head,
                "dirty": state.dirty,
                "ahead": state.ahead,
                "behind": state.behind,
                "conflicts": list(state.conflicts),
                "detail": state.detail,
                "git_locks": [
                    {"path": g.path, "age_s": round(g.age_s, 1)} for g in state.git_locks
                ],
                "unsynced": [
                    {"path": u.path, "kind": u.kind, "incoming": u.incoming} for u in state.unsynced
                ],
            },
            "kept_both": [
                {"id": note.id, "title": note.title, "conflict_with": others}
                for note, others in open_conflicts(store)
            ],
            "vectors": _vectors_status(store),
        }
        if remote_specs(home.config()):  # named remotes: each one's state, offline
            report["remotes"] = [state.as_dict() for state in remotes_state(home)]
    if as_json:
        console.print_json(report)
        return
    _say_status(report)


def _vectors_status(store: MemoryStore) -> dict[str, Any]:
    """The store's embedding status, with the search mode searches default to (a
    configured search_mode wins over what the extra makes possible) and the background
    process embedding the notes, if one is (``embedding_pid``)."""
    vectors = store.embedding_status()
    vectors["default_mode"] = configured_search_mode(store.root) or vectors["default_mode"]
    if not vectors["available"]:  # a fix that names how this copy is installed
        vectors["fix"] = vectors_fix(str(vectors["reason"]), str(vectors.get("fix") or ""))
    vectors["embedding_pid"] = embedder_pid(store.layout)
    return vectors


def _say_status(report: dict[str, Any]) -> None:
    # Each line wraps under its label on a terminal (ids, paths, commands whole).
    say = lines.say_wrapped
    sync, vectors = report["sync"], report["vectors"]
    named = [r for r in report.get("remotes", []) if r["name"] != DEFAULT_REMOTE]
    label = _labels([r["name"] for r in named])
    say(label("store"), f"{report['root']}  (machine {report['machine_id']})")
    say(label("notes"), f"{report['total']}  ({report['superseded']} superseded)")
    say(label("by type"), _counts(report["by_type"]))
    say(label("by scope"), _counts(report["by_scope"]))
    say(label("remote"), sync["remote"] or "(none: this machine only)")
    say(label("sync"), sync["detail"])
    for remote in named:  # the default remote's lines are the two above
        say(label(remote["name"]), f"{remote['url']}: {remote['detail']}")
    say(label("search"), search_words(vectors))
    if vectors.get("model_unreachable"):  # the search line says why: the notes wait
        say(
            label("vectors"),
            f"{vectors['model']}: {vectors['embedded']} embedded, "
            f"{vectors['pending']} waiting for the model",
        )
    elif vectors["available"]:
        pending, searched = vectors["pending"], SEARCH_MODES[vectors["default_mode"]]
        if not pending:
            todo = ""
        elif searched.needs_vectors:  # waiting for the background, or for a start
            todo = f", {backlog_words(pending, vectors['embedding_pid'])}"
        else:  # searches use keywords here: nothing embeds them by itself, and that is fine
            todo = f", {pending} not embedded (`anamnesis reindex` embeds them)"
        say(label("vectors"), f"{vectors['model']}: {vectors['embedded']} embedded{todo}")
        if vectors.get("needs_download"):
            say(
                label(""),
                "the model is not downloaded yet: it downloads on first use where "
                f"the network allows (offline: {MODEL_FOLDER_HINT})",
            )
    else:
        fix = f" (fix: {vectors['fix']})" if vectors.get("fix") else ""
        say(label("vectors"), f"off: {vectors['reason']}{fix}")
    for lock in sync["git_locks"]:
        say(
            label("git lock"),
            f"{lock['path']} ({lock['age_s']:.0f} s old; a killed sync left it: "
            "the next sync removes it)",
        )
    for item in sync["unsynced"]:
        where = "from the remote, not created here" if item["incoming"] else "not synced"
        say(label("unsynced"), f"{item['path']} is a {item['kind']} ({where})")
    if report["kept_both"]:
        console.say(f"kept both after a conflict ({len(report['kept_both'])} notes):")
        for item in report["kept_both"]:
            say("  ", f"{item['id']} {item['title']} <-> {', '.join(item['conflict_with'])}", 4)
    if report["swept"]:
        say(label("swept"), swept_summary([f["bytes"] for f in report["swept"]]))
    if report["problems"]:
        console.say(f"unreadable note files ({len(report['problems'])}):")
        for problem in report["problems"]:
            say("  ", f"{problem['path']}: {problem['reason']}", 4)
    if report["by_project"]:
        by_size = sorted(report["by_project"].items(), key=lambda item: (-item[1], item[0]))
        show(PROJECT_COLUMNS, by_size)


def _labels(remote_names: Sequence[str]) -> Callable[[str], str]:
    """The labels of status's lines (``"store:    "``), all one width so that every value
    starts in one column: wide enough for ``by scope:`` and for the longest named
    remote's name. ``label("")`` is the indent of a line that goes on under a value."""
    width = max([len("by scope: "), *(len(name) + 2 for name in remote_names)])

    def label(word: str) -> str:
        return f"{word}:".ljust(width) if word else " " * width

    return label


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items()) or "none"


def reindex(
    no_embed: Annotated[
        bool, typer.Option("--no-embed", help="Skip embedding notes for vector search.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Rebuild the search index from the markdown files, then embed the notes that have
    no vector yet (when vector search can run here; unchanged notes are never re-embedded).

    A hand-written note without an id (frontmatter with at least a title, in a type
    folder) is adopted: it gets an id and its file is rewritten in the exact format."""
    with open_store() as store:
        if not no_embed:
            forget_unreachable_model(store.root)  # asked for: a failed download is tried now
        # Each phase its own bar: the notes read into the index, then the model's work.
        with console.progress("Indexing notes") as progress:
            report = store.reindex(progress=progress, embed=False)  # embedded below, with a bar
        embedded = None if no_embed else _embed_missing(store)
    skipped = [{"path": s.path, "reason": s.reason} for s in report.skipped]
    adopted = [{"path": a.path, "id": a.memory_id} for a in report.adopted]
    swept = [{"path": f.path, "bytes": f.size} for f in report.swept]
    if as_json:
        console.print_json(
            {
                "indexed": report.indexed,
                "skipped": skipped,
                "embedded": embedded,
                "adopted": adopted,
                "swept": swept,
            }
        )
        return
    console.say(f"indexed {report.indexed} notes")
    if report.swept:
        console.say(_swept_line(report.swept))
    for item in adopted:  # hand-written notes without an id: given one, file rewritten
        console.say(f"adopted {item['path']}: it is note {item['id']} now")
    if embedded is not None:
        console.say(f"embedded {embedded} notes for vector search")
    for item in skipped:
        console.warn(f"skipped {item['path']}: {item['reason']}")


def _swept_line(swept: Sequence[LeftoverFile]) -> str:
    paths = ", ".join(f.path for f in swept[:5]) + (" ..." if len(swept) > 5 else "")
    return f"{swept_summary([f.size for f in swept])}: {paths}"


def _embed_missing(store: MemoryStore) -> int | None:
    """How many notes were embedded; None when vector search cannot run here (the extra is
    optional: `status` and `doctor` say why it is off, reindex stays quiet about it)."""
    if not store.embedding_status()["available"]:
        return None
    try:
        with console.progress("Embedding") as progress:
            return store.embed_missing(progress=progress)
    except VectorsUnavailable:  # the model cannot load: the store has warned, once
        return None


def import_native(as_json: JsonFlag = False) -> None:
    """Import Claude Code's own memory (~/.claude/projects/*/memory/*.md; the folder is
    $CLAUDE_CONFIG_DIR where that is set)."""
    source = claude_home()
    with open_home(must_exist=False) as (home, store), console.progress("Importing") as progress:
        report = import_native_memory(
            store, claude_dir=source, machine_id=home.machine_id, progress=progress
        )
        # What came in is found by meaning once a process of its own has embedded it.
        embedding = embed_in_background(store) if report.created or report.updated else ""
    data = {
        "source": str(source / "projects"),
        "created": report.created,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "duplicates": report.duplicates,
        "problems": [{"path": path, "reason": reason} for path, reason in report.problems],
    }
    if as_json:
        console.print_json(data)
        return
    console.say(
        f"from {data['source']}: {report.created} new, {report.updated} updated, "
        f"{report.unchanged} unchanged, {report.duplicates} duplicate(s) skipped"
    )
    for path, reason in report.problems:
        console.warn(f"could not import {path}: {reason}")
    if embedding:
        console.say(embedding)


def migrate(
    mapping_file: Annotated[
        Path, typer.Argument(metavar="MAP.json", help='{"old-project": "new-project", ...}')
    ],
    apply: ApplyFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Re-key projects by a JSON map (dry run unless --apply)."""
    mapping = maintenance.read_project_map(mapping_file)
    with open_store() as store:
        plan = maintenance.plan_migrate(store, mapping)
        moved = maintenance.apply_migrate(store, plan) if apply else 0
    moves = [
        {"from": old, "to": mapping[old], "notes": len(ids)} for old, ids in plan.moves.items()
    ]
    data = {
        "applied": apply,
        "moves": moves,
        "total": plan.total,
        "moved": moved,
    }
    if as_json:
        console.print_json(data)
        return
    if not plan.moves:
        console.say("no notes carry those project keys")
        return
    show(MIGRATE_COLUMNS, [[m["from"], m["to"], m["notes"]] for m in moves])
    if apply:
        console.say(f"moved {moved} note(s); run `anamnesis sync` to share the change")
    else:
        console.say(f"dry run: {plan.total} note(s) would move; add --apply to do it")


def dedup(apply: ApplyFlag = False, as_json: JsonFlag = False) -> None:
    """Remove notes that repeat another note of the same project and type word for word
    (dry run unless --apply). The note in force, else the portable, else the oldest one is
    kept and takes on the others' tags; notes in other projects are never touched."""
    with open_store() as store:
        groups = maintenance.find_duplicates(store)
        removed = maintenance.apply_dedup(store, groups) if apply else 0
    data = {
        "applied": apply,
        "groups": [
            {
                "keep": g.keep.id,
                "title": g.keep.title,
                "project": g.keep.project,
                "type": g.keep.type,
                "remove": [d.id for d in g.drop],
            }
            for g in groups
        ],
        "removed": removed,
    }
    if as_json:
        console.print_json(data)
        return
    if not groups:
        console.say("no duplicate notes")
        return
    rows = [
        [g.keep.project, g.keep.id, lines.ids_cell([d.id for d in g.drop]), g.keep.title]
        for g in groups
    ]
    show(DEDUP_COLUMNS, rows)
    count = sum(len(g.drop) for g in groups)
    if apply:
        console.say(f"removed {removed} duplicate note(s)")
    else:
        console.say(f"dry run: {count} duplicate note(s) would be removed; add --apply to do it")


def project(
    cwd: Annotated[
        Path | None, typer.Option("--cwd", help="Directory to resolve (default: here).")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Print the project key of a directory (what inject and capture use)."""
    where = (cwd or Path.cwd()).resolve()
    if not where.is_dir():
        raise CliError(f"{where} is not a directory")
    key = resolve_project_key(where)
    if as_json:
        console.print_json({"project": key, "cwd": str(where)})
    else:
        console.say(key)


def doctor_command(
    offline: Annotated[
        bool,
        typer.Option("--offline", help="Contact nothing: not the remote, no model download."),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Check the store, index, config, hooks, MCP server, remote and vector search."""
    from anamnesis.cli import doctor  # its checks load sync and setup: doctor's alone

    with console.spinner("Checking"):  # the remote and the embedding model take a while
        checks = doctor.run_checks(current_home(), check_remote=not offline)
    failed = [c for c in checks if c.status == doctor.FAIL]
    if as_json:
        console.print_json({"ok": not failed, "checks": [c.to_dict() for c in checks]})
    else:
        doctor_report.say_checks(checks)
    if failed:
        raise CliError(f"{len(failed)} problem(s): {', '.join(c.name for c in failed)}", code=1)


def config_app() -> typer.Typer:
    app = typer.Typer(help="Read and change this machine's config.json.")

    @app.callback(invoke_without_command=True)
    def config_root(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:  # a short usage line, not the whole help
            raise UsageError(
                "missing a command: list, get, set or unset (see `anamnesis config --help`)"
            )

    @app.command(name="list")
    def config_list(
        every: Annotated[
            bool,
            typer.Option(
                "--all", help="Every setting there is: its value now, where that comes from."
            ),
        ] = False,
        as_json: JsonFlag = False,
    ) -> None:
        """The settings in config.json (passwords in the remote URL are hidden); with --all,
        every setting, set or not."""
        data = config_file.config_for_reading(current_home())
        if every:
            _list_every_setting(data, as_json)
            return
        shown = {k: _hidden_passwords(k, v) for k, v in sorted(data.items())}
        if as_json:
            console.print_json(shown)
        else:
            for key, value in shown.items():
                console.say(f"{key} = {value}")

    @app.command(name="get")
    def config_get(
        key: Annotated[str, typer.Argument(help="A setting's name.")],
        as_json: JsonFlag = False,
    ) -> None:
        """The value set, from an environment variable or config.json (nothing when the
        default applies), and on stderr where it comes from."""
        declared = config_file.check_key(key)
        data = config_file.config_for_reading(current_home())
        found = config_file.effective_setting(declared, data)
        if as_json:
            console.print_json(found.to_dict())
            return
        if found.value is not None:
            console.say(found.value)
        console.warn(f"{key}: {found.origin()}")

    @app.command(name="set")
    def config_set(
        key: Annotated[str, typer.Argument(help="A setting's name.")],
        value: Annotated[str, typer.Argument(help="Its new value.")],
    ) -> None:
        """Change one setting (`anamnesis config list --all` lists them)."""
        declared = config_file.check_key(key)
        home = current_home()
        before = config_file.effective_setting(declared, config_file.load_config(home))
        stored = config_file.checked_value(key, value)
        config_file.set_setting(home, key, stored)
        console.say(config_file.change_line(before, stored))
        if before.overridden():
            console.warn(before.overridden())

    @app.command(name="unset")
    def config_unset(key: Annotated[str, typer.Argument(help="A setting's name.")]) -> None:
        """Remove one setting (its default applies again)."""
        declared = config_file.check_key(key)
        home = current_home()
        before = config_file.effective_setting(declared, config_file.load_config(home))
        config_file.unset_setting(home, key)
        console.say(config_file.change_line(before, None))
        if before.overridden():
            console.warn(before.overridden())

    return app


def _hidden_passwords(key: str, value: Any) -> Any:
    """A setting as `config list` shows it: passwords in remote URLs hidden (the
    ``remote`` setting's, and each named remote's under ``remotes``)."""
    if key == "remote" and isinstance(value, str):
        return redact_url(value)
    if key == "remotes" and isinstance(value, list):
        return [
            {**entry, "url": redact_url(entry["url"])}
            if isinstance(entry, dict) and isinstance(entry.get("url"), str)
            else entry
            for entry in value
        ]
    return value


def _list_every_setting(data: dict[str, Any], as_json: bool) -> None:
    """Every declared setting: its value now, where that comes from, and what it does."""
    found = [config_file.effective_setting(k, data) for k in config_file.config_keys().values()]
    if as_json:
        console.print_json([{**f.to_dict(), "help": f.key.help} for f in found])
        return
    for item in found:
        show = redact_url if item.key.key == "remote" else str
        console.say(item.describe(show))
        console.say(f"    {item.key.help}")
