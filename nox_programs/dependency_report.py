"""What one installed distribution pulls in (the `isolation` session): run inside the isolated
venv as `python dependency_report.py DISTRIBUTION`, it prints as JSON the distribution's direct
requirements (no extras), the closure of those requirements over what is installed (a
requirement a marker excludes is simply not installed), and every distribution installed.
The session checks them against its DIRECT_DEPENDENCIES and FORBIDDEN tables.

Stdlib only: it runs in a venv that holds nothing but the package under test.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from importlib import metadata

Requirement = tuple[str, tuple[str, ...]]


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


installed = {norm(d.metadata["Name"]) for d in metadata.distributions()}


def requirements(name: str, extras: tuple[str, ...] = ()) -> list[Requirement]:
    # (name, extras) pairs; requirements behind an extra count only when it was asked for.
    out = []
    for raw in metadata.distribution(name).requires or []:
        marker = raw.split(";", 1)[1] if ";" in raw else ""
        wanted = re.findall(r"\bextra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if wanted and not set(map(norm, wanted)) & set(extras):
            continue
        match = re.match(r"\s*([A-Za-z0-9._-]+)\s*(?:\[([^\]]*)\])?", raw)
        assert match is not None, raw  # every requirement starts with a name
        asked = tuple(norm(e) for e in (match.group(2) or "").split(",") if e.strip())
        out.append((norm(match.group(1)), asked))
    return out


package = sys.argv[1]
direct = [name for name, _ in requirements(package)]
closure: set[str] = set()
todo = [req for req in requirements(package) if req[0] in installed]
seen: set[Requirement] = set()
while todo:
    name, extras = todo.pop()
    if (name, extras) in seen:
        continue
    seen.add((name, extras))
    closure.add(name)
    todo.extend(r for r in requirements(name, extras) if r[0] in installed)
report: dict[str, Iterable[str]] = {"direct": direct, "closure": closure, "installed": installed}
print(json.dumps({key: sorted(value) for key, value in report.items()}))
