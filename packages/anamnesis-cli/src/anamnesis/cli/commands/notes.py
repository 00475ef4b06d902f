"""Reading and writing notes: search, list, show, write, edit, delete."""

from __future__ import annotations

import sys
import warnings
from typing import Annotated, Any

import typer

from anamnesis.cli import console
from anamnesis.cli.context import (
    MODE_OPTION,
    AgentFilterOption,
    HereFlag,
    JsonFlag,
    ModeOption,
    ProjectOption,
    ScopeOption,
    TypeOption,
    check_agent,
    check_date,
    check_mode,
    check_scope,
    check_type,
    date_option,
    get_note,
    open_home,
    open_store,
    project_filter,
    search_mode_help,
)
from anamnesis.cli.display import lines, note_tables, note_view, review_view
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.ops import start_background_embedding
from anamnesis.store import (
    Memory,
    MemoryStore,
    NoteLimits,
    NoteNotFound,
    NotesNotEmbeddedWarning,
    SearchResult,
    StoreError,
    VectorsUnavailableWarning,
    contradictions_reply,
    count_secrets,
    display_safe,
    every_note,
    is_due,
    is_expired,
    relative_scores,
    utc_now,
)


def register(app: typer.Typer) -> None:
    MODE_OPTION.help = search_mode_help()  # the store's search modes as they are now
    app.command()(search)
    app.command(name="list")(list_notes)
    app.command()(show)
    app.command()(write)
    app.command()(edit)
    app.command()(delete)


# The two dates a note may carry, as `write` and `edit` take them.
ValidUntilOption = Annotated[
    str | None,
    date_option(
        "--valid-until",
        "The note holds through this day; after it, search and the session's notes leave "
        "it out (--include-expired finds it).",
    ),
]
ReviewAfterOption = Annotated[
    str | None,
    date_option(
        "--review-after",
        "From this day the note is due for review (still found; `show` says so).",
    ),
]


def search(
    query: Annotated[str, typer.Argument(help="What to find: names, error text, a question.")],
    project: ProjectOption = None,
    here: HereFlag = False,
    type: TypeOption = None,
    scope: ScopeOption = None,
    k: Annotated[int, typer.Option("-k", help="How many notes (1-1000).")] = 8,
    mode: ModeOption = None,
    include_superseded: Annotated[
        bool,
        typer.Option(
            "--include-superseded", help="Search replaced notes too (they rank like any other)."
        ),
    ] = False,
    include_expired: Annotated[
        bool,
        typer.Option(
            "--include-expired",
            help="Search notes past their valid_until too (the table says which).",
        ),
    ] = False,
    as_of: Annotated[
        str | None,
        date_option(
            "--as-of",
            "Answer as the memory stood then: notes written later left out, supersedes and "
            "valid_until as they were then (each note as it reads now: edits are not undone).",
        ),
    ] = None,
    agent: AgentFilterOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Search notes: keywords (BM25), meaning (vectors) or both; superseded notes, and notes
    past their valid_until, are hidden unless --include-superseded / --include-expired.

    Each result has a score relative to the best hit (1.00 for the best; in --json as
    "relative_score", beside the mode's raw "score") and, in --json, the ids of the notes
    that replace it ("superseded_by", empty for a current note); with
    --include-superseded the table says which rows are replaced. A query that shares
    nothing with any note finds nothing. Which mode ran is said on stderr (and in --json,
    as each result's "mode"): vector and hybrid fall back to keywords where vectors cannot
    run, and say why. In --json each result also says whether it is "expired" and "due"
    for review (at --as-of when given), and "why" it ranked there: its keyword score and
    rank, its vector score and rank, the weights that fused them and, in hybrid search,
    the kind of query found ("lexical": an exact name, date, number, identifier or rare
    word, listed as "anchors", lets keywords lead; "paraphrase": meaning leads).
    """
    if not 1 <= k <= 1000:
        raise UsageError(f"-k must be from 1 to 1000, got {k}")
    mode = check_mode(mode)
    when = check_date(as_of, "--as-of") or None
    with open_store() as store, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", VectorsUnavailableWarning)
        found = store.search_scored(
            query,
            project=project_filter(project, here),
            type=check_type(type),
            scope=check_scope(scope),
            k=k,
            mode=mode,
            include_superseded=include_superseded,
            agent=check_agent(agent),
            include_expired=include_expired,
            as_of=when,
        )
        waiting = [w.message for w in caught if isinstance(w.message, NotesNotEmbeddedWarning)]
        # The store embedded the newest few; the rest is a background process's work.
        embedding = start_background_embedding(store) if waiting else None
    expired = {hit.note.id for hit in found.hits if is_expired(hit.note, as_of=when)}
    console.warn(_mode_line(found, chosen=mode is not None, expired=len(expired), as_of=when))
    for warning in caught:  # the fallback is in the line above: say it once
        if embedding is not None and warning.message in waiting:
            console.warn(_embedding_line(waiting[0].missing, embedding.pid))
        elif found.mode == found.asked or warning.category is not VectorsUnavailableWarning:
            warnings.warn_explicit(warning.message, warning.category, warning.filename, 0)
    if as_json:
        relative = relative_scores([hit.score for hit in found.hits])  # as the table shows it
        console.print_json(
            [
                {
                    **hit.note.to_dict(),
                    "score": hit.score,
                    "relative_score": round(share, 4),
                    "mode": found.mode,
                    "superseded_by": list(hit.superseded_by),
                    "expired": hit.note.id in expired,
                    "due": is_due(hit.note, as_of=when),
                    "why": hit.why.to_dict() if hit.why is not None else None,
                }
                for hit, share in zip(found.hits, relative, strict=True)
            ]
        )
    elif not found.hits:
        console.say(f"no notes match {query!r}")
    else:
        note_tables.show_hits(
            found,
            include_superseded=include_superseded,
            expired=expired if include_expired else None,
        )


def _embedding_line(missing: int, pid: int) -> str:
    """Notes without vectors, being embedded in the background (not by this search)."""
    notes = "note has" if missing == 1 else "notes have"
    return (
        f"{missing} {notes} no embedding yet and can be found by keywords only until "
        f"embedded: embedding in the background (pid {pid})"
    )


def _mode_line(
    found: SearchResult, *, chosen: bool, expired: int = 0, as_of: str | None = None
) -> str:
    """The one stderr line saying how the search ran (``chosen``: --mode was given;
    ``expired``: how many hits are past their valid_until; ``as_of``: --as-of's date)."""
    count = f"{len(found.hits)} {'result' if len(found.hits) == 1 else 'results'}"
    replaced = sum(1 for hit in found.hits if hit.superseded_by)
    if replaced:
        count += f", {replaced} superseded"
    if expired:
        count += f", {expired} expired"
    if as_of:
        count += f", as of {as_of}"
    if found.mode == found.asked:
        return f"{found.mode} search: {count}"
    reason = " ".join(found.fallback.split()) or "vector search is unavailable"
    asked = "was asked for" if chosen else "is the default here"
    return (
        f"keyword search: {count} ({found.asked} {asked}, but {reason}; "
        "`anamnesis doctor` says how to fix it)"
    )


def list_notes(
    project: ProjectOption = None,
    here: HereFlag = False,
    type: TypeOption = None,
    scope: ScopeOption = None,
    tag: Annotated[str | None, typer.Option("--tag", help="Only notes with this tag.")] = None,
    agent: AgentFilterOption = None,
    limit: Annotated[int, typer.Option("--limit", help="At most this many (0: all).")] = 100,
    current: Annotated[
        bool,
        typer.Option(
            "--current",
            help="Only the notes search finds: none superseded, none past its valid_until.",
        ),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Notes newest first, without bodies: the whole history, superseded notes and notes
    past their valid_until included (the table names those with an "expired" column;
    --json says "expired" and "due" for each), unless --current."""
    if limit < 0:
        raise UsageError(f"--limit must be 0 (all) or more, got {limit}")
    with open_store() as store:
        filters: dict[str, Any] = {
            "project": project_filter(project, here),
            "type": check_type(type),
            "scope": check_scope(scope),
            "tag": tag,
            "agent": check_agent(agent),
            "include_superseded": not current,  # and expired notes with them (the store's rule)
        }
        if as_json:  # streamed: memory flat in the number of notes
            listed = every_note(store, **filters, limit=limit or None, include_body=False)
            console.print_json_array(_with_time(note, include_body=False) for note in listed)
            return
        notes = store.list(**filters, limit=limit or None, include_body=False)
        total = store.count(**filters) if limit and len(notes) == limit else len(notes)
    if not notes:
        console.say("no notes")
        return
    note_tables.show_notes(notes, expired={note.id for note in notes if is_expired(note)})
    if total > len(notes):
        console.say(f"... {total - len(notes)} more (--limit 0 shows all)")


def show(
    memory_id: Annotated[
        str, typer.Argument(metavar="ID", help="The note's id, or 6+ of its first characters.")
    ],
    raw: Annotated[bool, typer.Option("--raw", help="Print the markdown file as is.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """One note, in full, with its supersede chain: the notes it replaces, and the notes
    that replace it (each followed to the end, nearest first)."""
    with open_store() as store:
        note = get_note(store, memory_id)
        path = store.file_of(note.id)
        chain = store.supersede_chain(note.id)
        others = note_view.other_copies(note)  # keep-both's other copies of this note
        named = [*chain.older, *chain.newer, *others, *note.compatible_with]
        titles = {} if raw or as_json else _titles(store, named)
    superseded_by = sorted(newer for newer, older in chain.links if older == note.id)
    if raw:
        sys.stdout.write(path.read_text(encoding="utf-8"))
        return
    if as_json:
        console.print_json(
            {
                **_with_time(note),
                "path": str(path),
                "superseded_by": superseded_by,
                "conflict_with": others,
                "chain": {
                    "replaces": list(chain.older),
                    "replaced_by": list(chain.newer),
                    "latest": list(chain.latest),
                    "missing": list(chain.missing),
                    "links": [list(link) for link in chain.links],
                },
            }
        )
        return
    # The header fits the terminal (display.lines): ids and the path whole, the rest
    # wrapped under its label, a title in a chain cut; piped, each line as it always was.
    lines.say_wrapped("# ", note.title)
    note_view.say_conflict(others, titles)
    console.say(f"id:       {note.id}")
    lines.say_fields("type:     ", [note.type, f"scope: {note.scope}", f"project: {note.project}"])
    # Which coding agent wrote it, when one did (a person's own note names none).
    agent = [f"agent: {note.prov_agent}"] if note.prov_agent else []
    lines.say_fields("machine:  ", [note.machine_id, f"source: {note.prov_source}", *agent])
    lines.say_fields("created:  ", [note.created_at, f"updated: {note.updated_at}"])
    if note.tags:
        lines.say_wrapped("tags:     ", ", ".join(note.tags))
    _time_lines(note)
    _chain_lines("compatible:", tuple(note.compatible_with), titles)
    _chain_lines("replaces:", chain.older, titles)
    _chain_lines("replaced by:", chain.newer, titles)
    if chain.newer and not chain.latest:
        lines.say_wrapped("current:     ", "none (the supersedes links loop back to this note)")
    elif len(chain.newer) > len(chain.latest):  # replaced more than once: which is current
        _chain_lines("current:", chain.latest, titles)
    lines.say_whole("file:     ", str(path))
    console.say()
    note_view.say_body(note.body)


def _with_time(note: Memory, *, include_body: bool = True) -> dict[str, Any]:
    """A note as --json prints it: its fields, and whether it is expired and due now."""
    return {
        **note.to_dict(include_body=include_body),
        "expired": is_expired(note),
        "due": is_due(note),
    }


def _time_lines(note: Memory) -> None:
    """`show`'s lines about time, each only when the note has something to say: until when
    it holds (and that it no longer does), when it asks to be looked at again (and that it
    does now), when a person last confirmed it."""
    if note.valid_until:
        expired = ", expired: search leaves it out (--include-expired finds it)"
        lines.say_fields(
            "valid:    ", [f"until {note.valid_until}{expired if is_expired(note) else ''}"]
        )
    review: list[str] = []
    if note.review_after:
        review.append(f"after {note.review_after}{', due for review' if is_due(note) else ''}")
    if note.reviewed_at:
        review.append(f"last reviewed: {note.reviewed_at}")
    if review:
        lines.say_fields("review:   ", review)


def _titles(store: MemoryStore, ids: list[str]) -> dict[str, str]:
    """The title of each note, or why there is none."""
    titles: dict[str, str] = {}
    for memory_id in ids:
        try:
            titles[memory_id] = store.get(memory_id).title
        except NoteNotFound:
            titles[memory_id] = "(deleted)"
        except StoreError:  # a file that no longer parses
            titles[memory_id] = "(unreadable)"
    return titles


def _chain_lines(label: str, ids: tuple[str, ...], titles: dict[str, str]) -> None:
    """One line per note of a chain, nearest first: id and title, the label on the first."""
    for index, memory_id in enumerate(ids):
        lines.say_note(f"{label if index == 0 else '':<13}", memory_id, titles.get(memory_id, ""))


def write(
    body: Annotated[
        str | None,
        typer.Argument(help="The note's markdown; '-' or nothing reads it from stdin."),
    ] = None,
    type: Annotated[
        str, typer.Option("--type", "-t", help="procedural | semantic | episodic")
    ] = "semantic",
    title: Annotated[str, typer.Option("--title", help="One line: what it is about.")] = "",
    project: Annotated[
        str | None, typer.Option("--project", "-p", help="Project key (default: global).")
    ] = None,
    here: HereFlag = False,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="A tag (repeatable).")] = None,
    scope: Annotated[
        str, typer.Option("--scope", help="portable (synced) | machine-local")
    ] = "portable",
    supersedes: Annotated[
        list[str] | None,
        typer.Option(
            "--supersedes",
            metavar="ID",
            help="Id (or 6+ first characters) of a note this replaces; repeatable.",
        ),
    ] = None,
    valid_until: ValidUntilOption = None,
    review_after: ReviewAfterOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Write a new note (secrets are masked before it is saved)."""
    until = check_date(valid_until, "--valid-until") or ""
    after = check_date(review_after, "--review-after") or ""
    text = _body(body)
    if not title.strip():
        raise UsageError("--title is required: one line saying what the note is about")
    check_type(type)
    check_scope(scope)
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > NoteLimits.BODY_BYTES:  # the store's limit, said before anything is opened
        raise UsageError(
            f"the body is {size:,} bytes, over the limit of {NoteLimits.BODY_BYTES:,}; "
            "store a summary and where the full text lives"
        )
    tags = list(tag or [])
    # The store masks what it writes; this only counts what it will mask, to say so.
    masked = sum(count_secrets(t) for t in (title, text, *tags))
    with open_home() as (home, store):  # no store: `anamnesis init` first, as elsewhere
        # Replacing a note that does not exist is a typo; a prefix means its whole id.
        supersedes = [get_note(store, old).id for old in supersedes or []]
        try:
            note = store.write(
                type=type,
                title=" ".join(title.split()),
                body=text,
                project=project_filter(project, here) or "global",
                machine_id=home.machine_id,
                tags=tags,
                scope=scope,
                supersedes=supersedes,
                valid_until=until,
                review_after=after,
            )
        except StoreError as exc:
            raise CliError(str(exc)) from None
        path = store.path_of(note)
        # The live notes it may contradict: said now, while the writer can still act.
        contradicted = contradictions_reply(store, note)
        start_background_embedding(store)  # found by meaning soon, no search waiting for it
    if masked:
        console.warn(f"masked {masked} secret(s) before saving")
    if as_json:
        console.print_json(
            {
                **_with_time(note),
                "path": str(path),
                "redacted": masked,
                "possible_contradictions": contradicted,
            }
        )
    else:
        console.say(f"wrote {note.id} ({note.type}, {note.scope}, project {note.project})")
        console.say(f"  {path}")
        _time_lines(note)
        review_view.warn_contradicted(note.id, contradicted)


def edit(
    memory_id: Annotated[
        str, typer.Argument(metavar="ID", help="The note's id, or 6+ of its first characters.")
    ],
    valid_until: ValidUntilOption = None,
    review_after: ReviewAfterOption = None,
    title: Annotated[str | None, typer.Option("--title", help="A new title: one line.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Change a note's dates or title, only what is given.

    --valid-until "" and --review-after "" clear a date. The body is edited in the
    dashboard, or in the file itself. An edit is a person's word on the note: it is marked
    reviewed now (its "reviewed_at")."""
    changes: dict[str, str] = {}
    until = check_date(valid_until, "--valid-until")
    after = check_date(review_after, "--review-after")
    if until is not None:
        changes["valid_until"] = until
    if after is not None:
        changes["review_after"] = after
    if title is not None:
        if not title.strip():
            raise UsageError("--title is empty: give one line saying what the note is about")
        changes["title"] = " ".join(title.split())
    if not changes:
        raise UsageError("nothing to change: give --valid-until, --review-after or --title")
    with open_store() as store:
        note = get_note(store, memory_id)
        try:
            edited = store.update(note.id, **changes, reviewed_at=utc_now())
        except StoreError as exc:
            raise CliError(str(exc)) from None
        if "title" in changes:
            start_background_embedding(store)  # found by its new words' meaning soon
    if as_json:
        console.print_json(_with_time(edited))
        return
    lines.say_note("edited ", edited.id, edited.title)
    _time_lines(edited)
    if changes.get("valid_until") == "":
        console.say("valid:    no end date (cleared)")
    if changes.get("review_after") == "":
        console.say("review:   no review date (cleared)")


def _body(body: str | None) -> str:
    if body is not None and body != "-":
        text = body
    elif console.stdin_is_terminal():
        raise UsageError("give the note's body as an argument, or pipe it on stdin")
    else:
        raw = sys.stdin.buffer.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise CliError("the body on stdin is not UTF-8 text") from None
    if not text.strip():
        raise UsageError("the note's body is empty")
    return text


def delete(
    memory_id: Annotated[
        str, typer.Argument(metavar="ID", help="The note's id, or 6+ of its first characters.")
    ],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Delete a note (the next sync removes it on the other machines too)."""
    with open_store() as store:
        note = get_note(store, memory_id)
        if not yes:
            if not console.stdin_is_terminal():
                raise UsageError(f"deleting {memory_id} needs confirmation: add --yes")
            if not typer.confirm(f"Delete {note.id} ({display_safe(note.title)})?", default=False):
                raise CliError("nothing deleted")
        try:
            deleted = store.delete(note.id)
        except StoreError as exc:
            raise CliError(str(exc)) from None
    if as_json:
        console.print_json(deleted.to_dict())
    else:
        console.say(f"deleted {deleted.id} ({deleted.title})")
