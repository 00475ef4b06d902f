"""Which project a working directory belongs to, the same on every machine.

Order: a ``.anamnesis/project`` marker (searched upward, never at or above $HOME), the
normalized ``origin`` remote (so an SSH clone and an HTTPS clone agree), the repository's
folder name, the working directory's name, ``global``. Git configuration is read from the
files directly (no git binary), including worktrees and submodules whose ``.git`` is a file.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

MARKER = Path(".anamnesis") / "project"
GLOBAL = "global"

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>(?!//).+)$")
_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_ENTRY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")


def resolve_project_key(cwd: str | Path, *, home: Path | None = None) -> str:
    """The project key for ``cwd`` (see the module docstring for the order)."""
    path = Path(cwd).expanduser()
    try:
        path = path.resolve()
    except OSError:
        pass
    marker = read_marker(path, home=home)
    if marker:
        return marker
    found = find_git_dir(path)
    if found is not None:
        worktree, git_dir = found
        url = origin_url(git_dir)
        if url:
            key = normalize_remote(url)
            if key:
                return key
        if worktree.name:
            return worktree.name.lower()
    return path.name.lower() or GLOBAL


def normalize_remote(url: str) -> str:
    """``git@github.com:o/r.git``, ``https://github.com/o/r`` and ``ssh://git@github.com:22/o/r``
    all give ``github.com/o/r``: no scheme, user, password or port, no ``.git``, lower case."""
    text = url.strip()
    if _SCHEME.match(text):
        parts = urlsplit(text)
        host = parts.hostname or ""
        key = f"{host}{parts.path}" if host else parts.path
    else:
        scp = _SCP.match(text)
        key = f"{scp.group('host')}/{scp.group('path')}" if scp else text
    key = key.rstrip("/")
    if key.endswith(".git"):
        key = key[: -len(".git")]
    return key.rstrip("/").lower()


def read_marker(cwd: Path, *, home: Path | None = None) -> str | None:
    """First non-empty line of the nearest ``.anamnesis/project`` below $HOME, if any."""
    stop = (home or Path.home()).resolve()
    for directory in [cwd, *cwd.parents]:
        if directory == stop or directory == directory.parent or _is_above(directory, stop):
            break
        marker = directory / MARKER
        try:
            text = marker.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for line in text.splitlines():
            if line.strip():
                return line.strip()
    return None


def find_git_dir(start: Path) -> tuple[Path, Path] | None:
    """(work tree root, git dir) of the repository holding ``start``, if any.

    ``.git`` may be a folder, or a file saying ``gitdir: <path>`` (worktrees, submodules).
    """
    for directory in [start, *start.parents]:
        dotgit = directory / ".git"
        if dotgit.is_dir():
            return directory, dotgit
        if dotgit.is_file():
            try:
                first = dotgit.read_text(encoding="utf-8").splitlines()[0]
            except (OSError, UnicodeDecodeError, IndexError):
                continue
            if first.startswith("gitdir:"):
                target = Path(first[len("gitdir:") :].strip())
                return directory, (target if target.is_absolute() else directory / target)
    return None


def origin_url(git_dir: Path) -> str | None:
    """``remote.origin.url`` from the repository's config (a worktree reads the shared
    config its ``commondir`` points to)."""
    common = git_dir
    try:
        pointer = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        pointer = ""
    if pointer:
        common = Path(pointer) if Path(pointer).is_absolute() else git_dir / pointer
    for candidate in (common / "config", git_dir / "config"):
        url = _config_value(candidate, "remote", "origin", "url")
        if url:
            return url
    return None


def _config_value(path: Path, section: str, subsection: str, key: str) -> str | None:
    """One value from a git config file (section names and keys are case-insensitive,
    subsection names are not; the first value wins, as with ``git remote get-url``)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        header = _SECTION.match(line)
        if header:
            name, sub = header.group(1).lower(), header.group(2)
            if sub is None and "." in name:  # old style [remote.origin]
                name, _, sub = name.partition(".")
            inside = name == section and (sub or "").replace('\\"', '"') == subsection
            continue
        entry = _ENTRY.match(line)
        if inside and entry and entry.group(1).lower() == key:
            return _unquote(entry.group(2) or "")
    return None


def _unquote(value: str) -> str:
    out: list[str] = []
    quoted = False
    index = 0
    while index < len(value):
        char = value[index]
        if char == '"':
            quoted = not quoted
        elif char == "\\" and index + 1 < len(value):
            index += 1
            out.append({"n": "\n", "t": "\t"}.get(value[index], value[index]))
        elif char in "#;" and not quoted:
            break  # an inline comment
        else:
            out.append(char)
        index += 1
    return "".join(out).strip()


def _is_above(directory: Path, home: Path) -> bool:
    """True when ``directory`` is an ancestor of ``home`` (markers there are ignored)."""
    try:
        home.relative_to(directory)
    except ValueError:
        return False
    return True
