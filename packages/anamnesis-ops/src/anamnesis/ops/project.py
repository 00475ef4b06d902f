"""Which project a working directory belongs to, the same on every machine.

Order: a ``.anamnesis/project`` marker (searched upward, never at or above $HOME), the
normalized ``origin`` remote (so an SSH clone and an HTTPS clone agree), the repository's
folder name, the working directory's name, ``global``. Git configuration is read from the
files directly (no git binary), including worktrees and submodules whose ``.git`` is a file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlsplit

MARKER = Path(".anamnesis") / "project"
GLOBAL = "global"

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP = re.compile(r"^(?:[^@/\s]+@)?(?P<host>[^:/\s]+):(?P<path>(?!//).+)$")
_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_ENTRY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")
_SLASHES = re.compile(r"/{2,}")


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
        url = origin_url(git_dir, home=home)
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
    # Lower case before the suffix goes, so ``R.GIT`` loses it as ``r.git`` does; doubled
    # slashes (``git@host:/o/r``) are the same path to the server.
    key = _SLASHES.sub("/", key.lower()).rstrip("/")
    if key.endswith(".git"):
        key = key[: -len(".git")]
    return key.rstrip("/")


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


def origin_url(git_dir: Path, *, home: Path | None = None) -> str | None:
    """``remote.origin.url`` as ``git remote get-url origin`` reports it.

    Read from the repository's config (a worktree reads the shared config its ``commondir``
    points to), then rewritten by the longest matching ``url.<base>.insteadOf`` prefix
    from that config or the user's global one (``gh:o/r`` shortcuts): otherwise a clone
    made with a shortcut would get another project key than a clone made with the URL.
    """
    common = git_dir
    try:
        pointer = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        pointer = ""
    if pointer:
        common = Path(pointer) if Path(pointer).is_absolute() else git_dir / pointer
    url: str | None = None
    rules: list[tuple[str, str]] = []
    for candidate in dict.fromkeys((common / "config", git_dir / "config")):
        entries = _read_config(candidate)
        url = url or _first_value(entries, "remote", "origin", "url")
        rules += _instead_of_rules(entries)
    if not url:
        return None
    for candidate in _global_configs(home):
        rules += _instead_of_rules(_read_config(candidate))
    return _rewrite(url, rules)


# One git config entry: (section in lower case, subsection as written or None, key in lower
# case, value unquoted).
ConfigEntry = tuple[str, str | None, str, str]


def _read_config(path: Path) -> list[ConfigEntry]:
    """Every entry of a git config file, in file order (no includes: they are rare where
    remotes and URL rewrites live, and following them costs reads on every hook call)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    entries: list[ConfigEntry] = []
    section, subsection = "", None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        header = _SECTION.match(line)
        if header:
            section, subsection = header.group(1).lower(), header.group(2)
            if subsection is None and "." in section:  # old style [remote.origin]
                section, _, subsection = section.partition(".")
            elif subsection is not None:
                subsection = subsection.replace('\\"', '"')
            continue
        entry = _ENTRY.match(line)
        if entry and section:
            entries.append(
                (section, subsection, entry.group(1).lower(), _unquote(entry.group(2) or ""))
            )
    return entries


def _first_value(entries: list[ConfigEntry], section: str, subsection: str, key: str) -> str | None:
    """The first value of a key (section names and keys are case-insensitive, subsection
    names are not; the first wins, as with ``git remote get-url``)."""
    for entry_section, entry_subsection, entry_key, value in entries:
        if (entry_section, entry_subsection, entry_key) == (section, subsection, key) and value:
            return value
    return None


def _instead_of_rules(entries: list[ConfigEntry]) -> list[tuple[str, str]]:
    """(base, prefix) for every ``[url "<base>"] insteadOf = <prefix>``."""
    return [
        (subsection, value)
        for section, subsection, key, value in entries
        if section == "url" and subsection is not None and key == "insteadof" and value
    ]


def _rewrite(url: str, rules: list[tuple[str, str]]) -> str:
    """Apply the longest matching ``insteadOf`` prefix, as git does."""
    best: tuple[str, str] | None = None
    for base, prefix in rules:
        if url.startswith(prefix) and (best is None or len(prefix) > len(best[1])):
            best = (base, prefix)
    return url if best is None else best[0] + url[len(best[1]) :]


def _global_configs(home: Path | None) -> list[Path]:
    """The user's git config files, where git looks for them."""
    override = os.environ.get("GIT_CONFIG_GLOBAL")
    if override:
        return [Path(override).expanduser()]
    if home is None:
        try:
            home = Path.home()
        except RuntimeError:  # no home directory can be determined
            return []
    xdg = os.environ.get("XDG_CONFIG_HOME")
    return [(Path(xdg) if xdg else home / ".config") / "git" / "config", home / ".gitconfig"]


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
