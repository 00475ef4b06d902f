"""`anamnesis sync` on a full disk: one line saying what happened (notes written, space
needed, where) and exit 1, like any sync failure, never `unexpected error: OSError`; the
hook form logs it and exits 0; the next sync, with space, finishes the pull."""

from __future__ import annotations

import random
from pathlib import Path

from anamnesis_testsupport.full_disk import no_space_at, small_disk

from anamnesis.store import MemoryStore
from cli_testing import Env, bare_remote

NOTES = 200


def _published(tmp_path: Path) -> Path:
    """A remote holding NOTES notes, pushed by a laptop."""
    remote = bare_remote(tmp_path / "remote.git")
    laptop = Env.make(tmp_path, "laptop")
    assert laptop.run("init", "--yes", "--remote", str(remote)).code == 0
    rng = random.Random(3)  # text that does not compress away
    with MemoryStore(laptop.home) as store:
        for n in range(NOTES):
            words = " ".join(f"{rng.getrandbits(40):x}" for _ in range(80))
            store.write(type="semantic", title=f"runbook {n}", body=words, project="p")
    assert laptop.run("sync").code == 0
    return remote


def _desktop(tmp_path: Path, remote: Path, home: Path | None = None) -> Env:
    desktop = Env.make(tmp_path, "desktop")
    if home is not None:
        desktop.variables["ANAMNESIS_HOME"] = str(home)
    assert desktop.run("init", "--yes", "--local-only").code == 0
    assert desktop.run("config", "set", "remote", str(remote)).code == 0
    return desktop


def _says_the_disk_is_full(result_err: str, desktop: Env) -> None:
    [line] = result_err.strip().splitlines()
    assert line.startswith(f"anamnesis sync: the disk holding {desktop.home / 'memory'} is full")
    assert f"of the {NOTES} notes it brings" in line and " free" in line
    assert "unexpected error" not in line and "Traceback" not in result_err


def test_a_full_disk_is_one_line_and_exit_1_then_the_next_sync_finishes(tmp_path: Path) -> None:
    desktop = _desktop(tmp_path, _published(tmp_path))
    with no_space_at(write=5) as writes:
        full = desktop.run("sync")
    assert writes == [5]
    assert (full.code, full.out) == (1, "")
    _says_the_disk_is_full(full.err, desktop)
    with no_space_at(write=5):
        hook = desktop.run("sync", "--quiet")  # the hook form: fails open, logged
    assert (hook.code, hook.out, hook.err) == (0, "", "")
    log = (desktop.home / "logs" / "hooks.log").read_text(encoding="utf-8")
    assert f"sync: the disk holding {desktop.home / 'memory'} is full" in log
    done = desktop.run("sync", "--json")
    assert done.code == 0, done.err
    assert desktop.run("status", "--json").json()["total"] == NOTES
    assert len(desktop.run("search", "runbook", "-k", "1000", "--json").json()) == NOTES


def test_a_full_real_disk_through_the_installed_command(tmp_path: Path) -> None:
    """The same on a real tmpfs, every command a process. Skipped where mounting is not
    permitted."""
    remote = _published(tmp_path)
    with small_disk(tmp_path / "disk", "600k") as disk:
        desktop = _desktop(tmp_path, remote, home=disk.path / "anamnesis")
        full = desktop.run_process("sync")
        assert full.code == 1
        _says_the_disk_is_full(full.err, desktop)
        hook = desktop.run_process("sync", "--quiet")
        assert (hook.code, hook.out, hook.err) == (0, "", "")
        disk.resize("16m")
        done = desktop.run_process("sync")
        assert done.code == 0, done.err
        hits = desktop.run_process("search", "runbook", "-k", "1000", "--json").json()
        assert len(hits) == NOTES


def test_init_sets_up_all_the_same_and_says_its_first_sync_met_a_full_disk(
    tmp_path: Path,
) -> None:
    remote = _published(tmp_path)
    desktop = Env.make(tmp_path, "desktop")
    with no_space_at(write=5):
        init = desktop.run("init", "--yes", "--remote", str(remote))
    assert init.code == 1
    assert init.err_lines[-1].startswith("anamnesis init: first sync: the disk holding ")
    assert "unexpected error" not in init.err
    assert desktop.run("config", "get", "remote").out.strip() == str(remote)
    assert desktop.run("sync").code == 0  # with space
    assert desktop.run("status", "--json").json()["total"] == NOTES
