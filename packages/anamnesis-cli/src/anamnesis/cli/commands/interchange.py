"""Notes in and out of the store: `anamnesis export` and the sources of `anamnesis import`.

`import` used to be one command, Claude Code's own memory. It is a group now whose bare
form (`anamnesis import [--json]`) still runs that same import, unchanged; `import claude`
names it, and `import openchronicle DIR`, `import jsonl FILE` and `import markdown DIR`
read other sources. Those three are dry runs unless --apply, which writes every new and
changed note in one all-or-nothing batch and then starts embedding them in a background
process (as `write` and `sync` do); notes keep fixed ids, so importing the same thing
again adds nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from anamnesis.cli import console
from anamnesis.cli.commands import admin
from anamnesis.cli.context import JsonFlag, current_home, embed_in_background, open_store
from anamnesis.cli.display import lines
from anamnesis.cli.display.tables import Column, show
from anamnesis.cli.errors import UsageError, suggest
from anamnesis.store import (
    EXPORT_FORMATS,
    ImportPlan,
    export_store,
    load_project_map,
    plan_import,
    read_jsonl,
    read_markdown_export,
    read_openchronicle,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from anamnesis.store import ChronicleImport, Memory, ReadNotes

ApplyFlag = Annotated[bool, typer.Option("--apply", help="Write the notes (default: dry run).")]

# An OpenChronicle import's table: a file's name and its project key give way to the
# terminal's width (the name, which says which row is which, keeps the larger share), the
# type goes first when even that leaves them too narrow to read.
CHRONICLE_COLUMNS = [
    Column("file", cut=2, comfort=20),
    Column("type", drop=1),
    Column("project", cut=1, comfort=12),
    *(Column(header) for header in ("entries", "new", "updated", "unchanged", "skipped")),
]

IMPORT_HELP = """Import notes. Bare `anamnesis import` imports Claude Code's own memory
(~/.claude/projects/*/memory/*.md, or under $CLAUDE_CONFIG_DIR) as it always has; name a
source to read another one (dry run unless --apply)."""


def register(app: typer.Typer) -> None:
    """Add `export` and the `import` group, whose bare form imports Claude Code's own
    memory (admin's ``import_native``) as `anamnesis import` always has."""
    app.add_typer(import_app(), name="import")
    app.command(name="export")(export)


def import_app() -> typer.Typer:
    app = typer.Typer(help=IMPORT_HELP)

    @app.callback(invoke_without_command=True)
    def import_root(ctx: typer.Context, as_json: JsonFlag = False) -> None:
        if ctx.invoked_subcommand is None:
            admin.import_native(as_json=as_json)
        else:  # `anamnesis import --json jsonl FILE` means --json for the source too
            ctx.obj = {"json": as_json}

    @app.command(name="claude")
    def import_claude(ctx: typer.Context, as_json: JsonFlag = False) -> None:
        """Claude Code's own memory (what a bare `anamnesis import` does)."""
        admin.import_native(as_json=_json(ctx, as_json))

    app.command(name="openchronicle")(import_openchronicle)
    app.command(name="jsonl")(import_jsonl)
    app.command(name="markdown")(import_markdown)
    return app


def _json(ctx: typer.Context, as_json: bool) -> bool:
    return as_json or bool(isinstance(ctx.obj, dict) and ctx.obj.get("json"))


def import_openchronicle(
    ctx: typer.Context,
    folder: Annotated[Path, typer.Argument(metavar="DIR", help="OpenChronicle's memory folder.")],
    apply: ApplyFlag = False,
    project_map: Annotated[
        Path | None,
        typer.Option(
            "--project-map",
            metavar="FILE",
            help='A JSON object: file stem or prefix to project key, e.g. {"tool-": "global",'
            ' "project-api": "github.com/me/api"} (default: project-NAME files go to NAME,'
            " the rest to global).",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """OpenChronicle memory files: each entry one note (event- files episodic, the rest
    semantic), struck-through entries superseded by the entries that replace them."""
    mapping = load_project_map(project_map) if project_map is not None else None
    found = read_openchronicle(folder, project_map=mapping, machine_id=current_home().machine_id)
    # This machine's id is stamped on every note: importing on another machine is no change.
    plan, embedding = _plan_and_apply(found.notes, apply, ignore=("machine_id",))
    _report_openchronicle(found, plan, apply, _json(ctx, as_json))
    _say_embedding(embedding, _json(ctx, as_json))


def import_jsonl(
    ctx: typer.Context,
    file: Annotated[
        Path,
        typer.Argument(
            metavar="FILE",
            help="A JSONL export: the folder `anamnesis export DIR` wrote, or its notes.jsonl.",
        ),
    ],
    apply: ApplyFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """A JSONL export, ids and timestamps kept (another store's, or this one's backup)."""
    read = read_jsonl(file)
    plan, embedding = _plan_and_apply(read.notes, apply)
    _report_read(file, read, plan, apply, _json(ctx, as_json))
    _say_embedding(embedding, _json(ctx, as_json))


def import_markdown(
    ctx: typer.Context,
    folder: Annotated[
        Path,
        typer.Argument(
            metavar="DIR",
            help="A markdown export (`anamnesis export DIR --format markdown`).",
        ),
    ],
    apply: ApplyFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """A markdown export (memory/<type>/*.md and local/<type>/*.md), ids kept."""
    read = read_markdown_export(folder)
    plan, embedding = _plan_and_apply(read.notes, apply)
    _report_read(folder, read, plan, apply, _json(ctx, as_json))
    _say_embedding(embedding, _json(ctx, as_json))


def _plan_and_apply(
    notes: list[Memory], apply: bool, ignore: Iterable[str] = ()
) -> tuple[ImportPlan, str]:
    """Compare with the store and, with ``apply``, write what is new or changed in one
    batch, then start embedding what came in (the line saying so, or ""): imported notes
    are found by meaning once a background process has embedded them, as a sync's are.
    A dry run against a store that does not exist yet creates nothing."""
    if not apply and not current_home().exists():
        return ImportPlan(new=list(notes)), ""
    embedding = ""
    with open_store(must_exist=False) as store:
        plan = plan_import(store, notes, ignore=ignore)
        if apply and plan.changed:
            store.put_many(plan.changed)
            embedding = embed_in_background(store)
    return plan, embedding


def _say_embedding(embedding: str, as_json: bool) -> None:
    if embedding and not as_json:
        console.say(embedding)


def _counts(status: dict[str, str], ids: Iterable[str]) -> dict[str, int]:
    statuses = [status.get(note_id) for note_id in ids]
    return {name: statuses.count(name) for name in ("new", "updated", "unchanged")}


def _status_by_id(plan: ImportPlan) -> dict[str, str]:
    return {
        note.id: name for name in ("new", "updated", "unchanged") for note in getattr(plan, name)
    }


def _report_openchronicle(
    found: ChronicleImport, plan: ImportPlan, apply: bool, as_json: bool
) -> None:
    status = _status_by_id(plan)
    files: list[dict[str, Any]] = [
        {
            "file": f.name,
            "type": f.type,
            "project": f.project,
            "entries": f.entries,
            **_counts(status, f.note_ids),
            "skipped": [{"where": where, "reason": reason} for where, reason in f.skipped],
            "notices": list(f.notices),
            "error": f.error or None,
        }
        for f in found.files
    ]
    data: dict[str, Any] = {
        "source": str(found.folder),
        "applied": apply,
        "files": files,
        **_totals(plan),
        "skipped": sum(len(f.skipped) for f in found.files),
        "unread_files": sum(1 for f in found.files if f.error),
    }
    if as_json:
        console.print_json(data)
        return
    _say_header(data["source"], apply)
    if not files:
        console.say("no memory files (*.md) there")
        return
    show(
        CHRONICLE_COLUMNS,
        [[*_columns(f), "file not read" if f["error"] else len(f["skipped"])] for f in files],
    )
    for f in files:
        if f["error"]:
            lines.say_wrapped(f"{f['file']}: ", f"not read: {f['error']}", 2)
        for item in f["skipped"]:
            lines.say_wrapped(f"{f['file']}: ", f"skipped {item['where']}: {item['reason']}", 2)
        for notice in f["notices"]:
            lines.say_wrapped(f"{f['file']}: ", notice, 2)
    unread = f", {data['unread_files']} file(s) not read" if data["unread_files"] else ""
    entries = "entry" if data["skipped"] == 1 else "entries"
    _say_totals(data, apply, f"{data['skipped']} {entries} skipped{unread}")


def _columns(row: dict[str, Any]) -> list[object]:
    keys = ("file", "type", "project", "entries", "new", "updated", "unchanged")
    return [row[key] for key in keys]


def _report_read(
    source: Path, read: ReadNotes, plan: ImportPlan, apply: bool, as_json: bool
) -> None:
    data: dict[str, Any] = {
        "source": str(source),
        "applied": apply,
        **_totals(plan),
        "skipped": [{"where": where, "reason": reason} for where, reason in read.skipped],
        "notices": [{"where": where, "notice": notice} for where, notice in read.notices],
    }
    if as_json:
        console.print_json(data)
        return
    _say_header(data["source"], apply)
    for where, reason in read.skipped:
        lines.say_wrapped(f"skipped {where}: ", reason, 2)
    for where, notice in read.notices:
        lines.say_wrapped(f"{where}: ", notice, 2)
    _say_totals(data, apply, f"{len(read.skipped)} skipped")


def _totals(plan: ImportPlan) -> dict[str, int]:
    return {
        "new": len(plan.new),
        "updated": len(plan.updated),
        "unchanged": len(plan.unchanged),
    }


def _say_header(source: str, apply: bool) -> None:
    lines.say_wrapped("from ", source + ("" if apply else " (dry run: nothing written)"))


def _say_totals(data: dict[str, Any], apply: bool, skipped: str) -> None:
    counts = f"{data['new']} new, {data['updated']} updated, {data['unchanged']} unchanged"
    if apply:
        lines.say_wrapped("imported: ", f"{counts}, {skipped}", 2)
    else:
        lines.say_wrapped("would import: ", f"{counts}, {skipped}; add --apply to write them", 2)


def export(
    folder: Annotated[
        Path, typer.Argument(metavar="DIR", help="Where to write (created; must be empty).")
    ],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="jsonl (one JSON object per note, DIR/notes.jsonl) or markdown (the note "
            "files, DIR/memory/<type>/ and DIR/local/<type>/).",
        ),
    ] = "jsonl",
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Write into a folder that is not empty (the export's own files are "
            "replaced; nothing else is touched).",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Export every note (superseded and machine-local ones too) with its id, to read back
    with `anamnesis import jsonl DIR` or `anamnesis import markdown DIR`."""
    if fmt not in EXPORT_FORMATS:
        raise UsageError(f"--format must be one of {', '.join(EXPORT_FORMATS)}, got {fmt!r}")
    with open_store() as store:
        report = export_store(store, folder, fmt, force=force)
    data = {
        "format": report.format,
        "folder": str(report.folder),
        "notes": report.notes,
        "files": len(report.files),
    }
    if as_json:
        console.print_json(data)
        return
    where = report.files[0] if fmt == "jsonl" else report.folder
    console.say(f"exported {report.notes} note(s) to {where}")
    # The import of the same format reads the folder back (a dry run until --apply).
    console.say(
        f"to read it back, here or on another machine: {suggest('import', fmt, str(report.folder))}"
    )
