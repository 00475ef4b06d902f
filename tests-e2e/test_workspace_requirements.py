"""Every requirement one of our packages places on another admits the version the workspace
builds, extras included. uv resolves workspace members from their folders and ignores
these specifiers, so a stale one passes every workspace test and only breaks an install
from wheels: `anamnesis-memory[vectors]` once asked for `anamnesis-store[vectors]<0.5`
beside `anamnesis-store>=0.8`, which no resolver can satisfy."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECTS = sorted([*ROOT.glob("packages/*/pyproject.toml"), ROOT / "tests-support/pyproject.toml"])


def project(path: Path) -> dict[str, Any]:
    table: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
    return table


def workspace_versions() -> dict[str, Version]:
    return {
        canonicalize_name(table["name"]): Version(table["version"])
        for table in map(project, PROJECTS)
    }


def requirements(table: dict[str, Any]) -> list[tuple[str, Requirement]]:
    """Each requirement with where it is declared: `dependencies` or `extra NAME`."""
    found = [("dependencies", Requirement(text)) for text in table.get("dependencies", [])]
    for extra, texts in table.get("optional-dependencies", {}).items():
        found += [(f"extra {extra}", Requirement(text)) for text in texts]
    return found


def test_every_requirement_on_a_workspace_package_admits_its_version() -> None:
    versions = workspace_versions()
    assert len(versions) >= 8, versions
    checked, stale = 0, []
    for path in PROJECTS:
        table = project(path)
        for where, requirement in requirements(table):
            name = canonicalize_name(requirement.name)
            if name not in versions:
                continue
            checked += 1
            if not requirement.specifier.contains(versions[name], prereleases=True):
                stale.append(f"{table['name']} ({where}): {requirement} excludes {versions[name]}")
    assert checked >= 10, checked
    assert not stale, "\n".join(stale)
