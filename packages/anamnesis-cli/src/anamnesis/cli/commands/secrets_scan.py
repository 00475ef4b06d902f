"""`anamnesis secrets scan [--fix]`: every note file scanned again with today's secret rules
(notes written by hand, or before a rule existed), and masked in place on request."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from anamnesis.cli import console
from anamnesis.cli.commands.hygiene import tree_files
from anamnesis.cli.commands.reflecting import commit_to_sync
from anamnesis.cli.context import JsonFlag, open_home
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.store import StoreLayout, UnsafeFile, count_secrets, read_regular

SCAN_HELP = """Scan every note file again (memory/ and local/) with today's secret rules.

Prints each file that holds secrets and how many (never the secrets themselves); exit 1
when there are any. --fix masks them in place (as every note is masked when written) and
commits the masking once in the sync repository, if there is one.

A secret that reached a note may be on the remote and on your other machines
already, and git history keeps it after masking. So, in this order:

\b
1. rotate it: revoke the credential where it was issued and make a new one
   (that alone makes the leak harmless);
2. `anamnesis secrets scan --fix`, then `anamnesis sync`;
3. if it must be gone from history too, every copy of the history must go:
   the remote's and each machine's memory/.git (see "A secret reached a
   note" in docs/troubleshooting.md)."""


def register(app: typer.Typer) -> None:
    secrets = typer.Typer(help="Find (and mask) secrets in the notes.")

    @secrets.callback(invoke_without_command=True)
    def secrets_root(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:
            raise UsageError("missing a command: scan (see `anamnesis secrets --help`)")

    secrets.command(name="scan", help=SCAN_HELP)(secrets_scan)
    app.add_typer(secrets, name="secrets")


# -- secrets scan ---------------------------------------------------------------------


@dataclass
class Finding:
    path: Path
    rel: str
    secrets: int
    note: bool  # a note file (`--fix` masks those; anything else is fixed by hand)
    masked: bool = False
    remaining: int = 0


def secrets_scan(
    fix: Annotated[
        bool,
        typer.Option("--fix", help="Mask the secrets in place, then commit once for sync."),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    with open_home() as (home, store):
        scanned, findings, skipped = scan_notes(home.layout)
        commit = None
        if fix and findings:
            fixable = [f.path for f in findings if f.note]
            masked = {Path(m.path) for m in store.mask_secrets_in(fixable)}
            for finding in findings:
                finding.masked = finding.path in masked
                finding.remaining = _secrets_in(finding.path)
            # The portable notes masked: what the sync repository has to commit.
            done = [f for f in findings if f.masked and home.memory_dir in f.path.parents]
            if done:
                total = sum(f.secrets for f in done)
                commit = commit_to_sync(
                    home,
                    store,
                    f"anamnesis secrets scan --fix: masked {total} secret(s) in "
                    f"{len(done)} note(s)",
                )
        else:
            for finding in findings:
                finding.remaining = finding.secrets
    left = [f for f in findings if f.remaining]
    if as_json:
        console.print_json(
            {
                "scanned": scanned,
                "secrets": sum(f.secrets for f in findings),
                "fixed": fix,
                "files": [
                    {
                        "path": f.rel,
                        "secrets": f.secrets,
                        "note": f.note,
                        "masked": f.masked,
                        "remaining": f.remaining,
                    }
                    for f in findings
                ],
                "skipped": [{"path": p, "reason": r} for p, r in skipped],
                "commit": commit,
            }
        )
    else:
        _say_scan(scanned, findings, skipped, fix=fix, commit=commit)
    if left:
        count = sum(f.remaining for f in left)
        how = (
            "mask or delete them by hand (only note files are masked)"
            if fix
            else "rotate each credential, then `anamnesis secrets scan --fix`"
        )
        raise CliError(
            f"{count} secret(s) in {len(left)} file(s): {how} (see `anamnesis secrets scan --help`)"
        )


def scan_notes(layout: StoreLayout) -> tuple[int, list[Finding], list[tuple[str, str]]]:
    """(files scanned, those holding secrets, those that could not be read) over both
    note trees. Regular files only: links and other special files are never read."""
    scanned = 0
    findings: list[Finding] = []
    skipped: list[tuple[str, str]] = []
    for tree in (layout.memory_dir, layout.local_dir):
        for path in tree_files(tree):
            rel = f"{tree.name}/{path.relative_to(tree).as_posix()}"
            try:
                raw, _info = read_regular(path)
            except UnsafeFile as exc:
                skipped.append((rel, exc.strerror or str(exc)))
                continue
            except OSError as exc:
                skipped.append((rel, exc.strerror or str(exc)))
                continue
            scanned += 1
            found = count_secrets(raw.decode("utf-8", "replace"))
            if found:
                findings.append(Finding(path, rel, found, note=path.suffix == ".md"))
    return scanned, findings, skipped


def _secrets_in(path: Path) -> int:
    try:
        raw, _info = read_regular(path)
    except OSError:
        return 0  # gone since: nothing left in it
    return count_secrets(raw.decode("utf-8", "replace"))


def _say_scan(
    scanned: int,
    findings: list[Finding],
    skipped: list[tuple[str, str]],
    *,
    fix: bool,
    commit: str | None,
) -> None:
    for path, reason in skipped:
        console.warn(f"not scanned: {path}: {reason}")
    if not findings:
        console.say(f"no secrets in {scanned} note file(s)")
        return
    for f in findings:
        state = ""
        if fix:
            state = " (masked)" if f.masked and not f.remaining else " (NOT masked)"
            if not f.note:
                state += ": not a note file, fix it by hand"
        console.say(f"{f.rel}: {f.secrets} secret(s){state}")
    total = sum(f.secrets for f in findings)
    console.say(f"{total} secret(s) in {len(findings)} of {scanned} file(s)")
    masked = [f for f in findings if f.masked]
    if fix and masked:
        where = f"; committed for sync as {commit}" if commit else ""
        console.say(f"masked {sum(f.secrets for f in masked)} secret(s){where}")
        console.say(
            "git history and the other machines may still hold them: rotate each credential "
            "where it was issued (see `anamnesis secrets scan --help`)"
        )
