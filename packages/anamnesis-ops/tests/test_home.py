"""A home: where things are, the settings read on every use, the one backend it makes."""

from __future__ import annotations

from pathlib import Path

import pytest

from anamnesis.ops import Home
from anamnesis.store import write_config


def test_the_home_is_anamnesis_home_else_dot_anamnesis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_HOME", str(tmp_path / "elsewhere"))
    assert Home.resolve().root == tmp_path / "elsewhere"
    assert Home.resolve(tmp_path / "given") == Home(tmp_path / "given")
    monkeypatch.delenv("ANAMNESIS_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert Home.resolve().root == tmp_path / "me" / ".anamnesis"


def test_settings_are_read_on_every_use(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANAMNESIS_GIT_REMOTE", raising=False)
    home = Home(tmp_path / "home")
    before = home.remote
    assert before is None and not home.exists()
    write_config({"remote": "/srv/notes.git", "machine_id": "laptop"}, home.root)
    assert (home.remote, home.machine_id) == ("/srv/notes.git", "laptop")
    assert home.sync_backend().remote == "/srv/notes.git"
    monkeypatch.setenv("ANAMNESIS_GIT_REMOTE", "/srv/other.git")
    assert home.remote == "/srv/other.git"  # the environment wins over config.json


def test_given_settings_win_over_environment_and_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_GIT_REMOTE", "/srv/env.git")
    monkeypatch.setenv("ANAMNESIS_MACHINE_ID", "from-env")
    pinned = Home(tmp_path / "home", machine_id="desktop", remote=None)
    assert (pinned.machine_id, pinned.remote) == ("desktop", None)
    backend = pinned.sync_backend()
    assert (backend.machine_id, backend.remote) == ("desktop", None)


def test_the_store_and_the_backend_live_where_the_layout_says(tmp_path: Path) -> None:
    home = Home(tmp_path / "home", machine_id="laptop", remote=None)
    with home.open_store() as store:
        note = store.write(type="semantic", title="t", body="b")
        assert store.file_of(note.id).is_relative_to(home.layout.memory_dir)
    assert home.exists() and not home.is_synced()
    home.sync_backend().init()
    assert home.is_synced() and home.sync_state().initialized
