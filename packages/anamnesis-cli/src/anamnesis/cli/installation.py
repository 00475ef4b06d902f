"""How this copy of Anamnesis was installed, and the commands that reinstall or update it.

Every fix hint that says "install ..." comes from here, so it names a command that works
for this copy: the package index's `anamnesis-memory` is an older, incompatible release
of this design (0.1.3), and following a hint that names it would replace this version
with that one. The source is read from the installed distribution's metadata (PEP 610's
``direct_url.json``): a checkout folder, a wheel file, an editable development install,
or the index. ``uv tool install`` also leaves a receipt beside the environment with the
Python it used.
"""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from anamnesis.cli.agent_config import mcp_registration
from anamnesis.cli.importable import importable

DISTRIBUTION = "anamnesis-memory"
CLI_PACKAGE_DIR = Path("packages") / "anamnesis-cli"


@dataclass(frozen=True, slots=True)
class Installation:
    """Where this copy came from: ``source`` is "checkout" (a folder), "wheel",
    "editable" (a development environment) or "index"; ``location`` the checkout's
    package folder or the wheel's folder; ``uv_tool`` whether `uv tool install` made it."""

    source: str
    location: Path | None
    uv_tool: bool
    python: str
    extras: tuple[str, ...]
    version: str

    @property
    def checkout(self) -> Path | None:
        """The repository root of a checkout install (``packages/anamnesis-cli``'s
        grandparent), when it is one."""
        if self.source not in ("checkout", "editable") or self.location is None:
            return None
        root = self.location.parent.parent
        return root if (root / CLI_PACKAGE_DIR).is_dir() else None

    def with_extras(self, *names: str) -> tuple[str, ...]:
        """The extras this copy has, plus ``names`` (for a hint that adds them)."""
        return tuple(dict.fromkeys((*names, *self.extras)))

    def describe(self) -> str:
        where = {
            "checkout": f"the checkout {self.location}",
            "editable": f"a development environment of {self.checkout or self.location}",
            "wheel": f"wheels in {self.location}",
            "index": "a package index",
        }[self.source]
        how = "uv tool" if self.uv_tool else "pip"
        extras = ", ".join(self.extras) or "none"
        return (
            f"anamnesis {self.version} from {where} ({how}, Python {self.python}, extras: {extras})"
        )


def detect() -> Installation:
    """This process's installation (the CLI's own distribution)."""
    try:
        dist: metadata.Distribution | None = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # running from a source tree, not installed
        dist = None
    source, location = _source(dist)
    receipt = _uv_receipt()
    if source == "index" and receipt is not None:
        # `uv tool install --find-links DIR` leaves no direct_url.json (the wheel came
        # from a folder acting as an index), but its receipt keeps the folder.
        source, location = _receipt_source(receipt)
    python = str(receipt.get("python") or "") if receipt else ""
    return Installation(
        source=source,
        location=location,
        uv_tool=receipt is not None,
        python=python or _base_python(),
        extras=installed_extras(),
        version=dist.version if dist is not None else "unknown",
    )


def installed_extras() -> tuple[str, ...]:
    """The extras whose packages are importable here."""
    extras = []
    if mcp_registration.mcp_extra_installed():
        extras.append("mcp")
    if importable("anamnesis.dashboard"):
        extras.append("dashboard")
    if importable("sqlite_vec", "fastembed"):
        extras.append("vectors")
    return tuple(extras)


def install_command(
    inst: Installation, *, extras: tuple[str, ...] | None = None, python: str | None = None
) -> str:
    """The command that (re)installs this copy with ``extras`` (default: the ones it has)
    on ``python`` (default: the one it runs on)."""
    wanted = ",".join(extras if extras is not None else inst.extras)
    suffix = f"[{wanted}]" if wanted else ""
    chosen = python or inst.python
    if inst.source == "editable":
        root = inst.checkout or inst.location
        command = ["uv", "sync"] + (["--python", chosen] if python else [])
        return f"cd {shlex.quote(str(root))} && {shlex.join(command)}"
    if inst.source == "checkout" and inst.location is not None:
        requirement = f"{inst.location}{suffix}"
        finder: list[str] = []
    elif inst.source == "wheel" and inst.location is not None:
        requirement = f"{DISTRIBUTION}{suffix}>={inst.version}"
        finder = ["--find-links", str(inst.location)]
    else:
        # Never below this version: the index's older release has the same name, and a
        # hint must not trade this copy for it.
        floor = f">={inst.version}" if inst.version != "unknown" else ""
        requirement, finder = f"{DISTRIBUTION}{suffix}{floor}", []
    if inst.uv_tool or python:
        # --reinstall: uv caches a folder's build by its version, so an updated checkout
        # with the same version would otherwise be installed from the old build.
        command = ["uv", "tool", "install", "--reinstall", "--python", chosen, *finder]
    else:  # installed with pip into an environment of its own: the same way again
        command = [sys.executable, "-m", "pip", "install", "--force-reinstall", *finder]
    return shlex.join([*command, requirement])


def update_command(inst: Installation) -> str:
    """The command that brings this copy up to date with its source (a wheel install's,
    once new wheels are built: :func:`update_hint` says so)."""
    if inst.source == "index":
        return (
            "uv tool upgrade anamnesis-memory"
            if inst.uv_tool
            else f"{shlex.quote(sys.executable)} -m pip install --upgrade anamnesis-memory"
        )
    if inst.source == "wheel":
        return install_command(inst)
    root = inst.checkout
    pull = f"git -C {shlex.quote(str(root))} pull && " if root and (root / ".git").exists() else ""
    return pull + install_command(inst)


def update_hint(inst: Installation) -> str:
    """How to update this copy, for a message: each command in backticks, a wheel install
    building its new wheels first."""
    update = f"`{update_command(inst)}`"
    if inst.source != "wheel":
        return update
    build = shlex.join(["uv", "build", "--all-packages", "-o", str(inst.location)])
    return f"build new wheels in the checkout (`{build}`), then: {update}"


def _source(dist: metadata.Distribution | None) -> tuple[str, Path | None]:
    if dist is None:
        here = Path(__file__).resolve()
        # src/anamnesis/cli/installation.py inside packages/anamnesis-cli
        return "editable", here.parents[3]
    try:
        raw = dist.read_text("direct_url.json")
        info = json.loads(raw) if raw else None
    except (OSError, ValueError):
        info = None
    if not isinstance(info, dict) or not str(info.get("url", "")).startswith("file:"):
        return "index", None
    path = Path(unquote(urlparse(str(info["url"])).path))
    if "archive_info" in info or path.suffix == ".whl":
        return "wheel", path.parent
    dir_info = info.get("dir_info")
    editable = isinstance(dir_info, dict) and bool(dir_info.get("editable"))
    return ("editable" if editable else "checkout"), path


def _receipt_source(receipt: dict[str, object]) -> tuple[str, Path | None]:
    """Where a uv tool receipt says the wheels came from: a --find-links folder, else the
    index."""
    options = receipt.get("options")
    links = options.get("find-links") if isinstance(options, dict) else None
    if isinstance(links, list) and links and str(links[0]).startswith(("file:", "/")):
        raw = str(links[0])
        path = Path(unquote(urlparse(raw).path)) if raw.startswith("file:") else Path(raw)
        return "wheel", path
    return "index", None


def _uv_receipt() -> dict[str, object] | None:
    """The `tool` table of the uv receipt beside this environment, if uv made it."""
    try:
        with (Path(sys.prefix) / "uv-receipt.toml").open("rb") as file:
            tool = tomllib.load(file).get("tool")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return tool if isinstance(tool, dict) else None


def _base_python() -> str:
    """The interpreter this environment was made from (what a reinstall would reuse)."""
    base = getattr(sys, "_base_executable", "") or sys.executable
    return str(base)
