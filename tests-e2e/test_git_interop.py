"""The remote Anamnesis writes without git is an ordinary git repository (scenario 7).

Every other test runs anamnesis with a PATH that holds no git binary, so the suite passing
is the proof that nothing needs git. This one alone uses the real git, when there is one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from e2e_support import TIMEOUT_S, World, quiet_syncs


def git(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("git")
    assert binary is not None
    # No user or system config: the repository must stand on its own.
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LANG": "C",
    }
    return subprocess.run(
        [binary, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def test_git_clones_the_remote_fscks_clean_and_holds_the_markdown(
    world: World, tmp_path: Path
) -> None:
    if shutil.which("git") is None:
        pytest.skip("no git binary on this machine: nothing to compare against")
    laptop, desktop = world.laptop, world.desktop
    kept = laptop.write("Cache busting", "append the content hash to asset names")
    gone = laptop.write("Old CDN host", "assets come from cdn-old.example.com")
    theirs = desktop.write("Pager rota", "the rota lives in the ops wiki", "--type", "procedural")
    quiet_syncs(laptop, desktop)
    laptop.ok("delete", gone["id"], "--yes")
    quiet_syncs(laptop, desktop)
    assert sorted(laptop.notes()) == sorted(
        [f"semantic/{kept['id']}.md", f"procedural/{theirs['id']}.md"]
    )

    clone = tmp_path / "clone"
    cloned = git("clone", str(world.remote), str(clone), cwd=tmp_path, home=tmp_path)
    assert cloned.returncode == 0, cloned.stderr
    fsck = git("fsck", "--full", "--strict", "--no-dangling", cwd=clone, home=tmp_path)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    for word in ("error", "warning", "missing", "broken", "bad"):
        assert word not in (fsck.stdout + fsck.stderr).lower(), fsck.stdout + fsck.stderr
    status = git("status", "--porcelain", cwd=clone, home=tmp_path)
    assert status.returncode == 0, status.stderr
    assert status.stdout == "", status.stdout  # nothing modified or missing in the checkout

    # The checkout is exactly the notes, byte for byte, as both machines hold them.
    files = {
        path.relative_to(clone).as_posix(): path.read_bytes()
        for path in sorted(clone.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(clone).parts
    }
    assert files == laptop.notes() == desktop.notes()
    assert b"append the content hash to asset names" in files[f"semantic/{kept['id']}.md"]

    authors = git("log", "--format=%an <%ae>", cwd=clone, home=tmp_path).stdout.splitlines()
    assert set(authors) == {"anamnesis <anamnesis@laptop>", "anamnesis <anamnesis@desktop>"}
    deleted = git("log", "--diff-filter=D", "--name-only", "--format=", cwd=clone, home=tmp_path)
    assert deleted.stdout.split() == [f"semantic/{gone['id']}.md"]
