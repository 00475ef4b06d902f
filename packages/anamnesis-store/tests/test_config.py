"""Machine-local settings: where the store is, who this machine is, where to sync."""

from __future__ import annotations

import json
import socket
import stat
from pathlib import Path

import pytest

from anamnesis.store import (
    read_config,
    resolve_home,
    resolve_machine_id,
    resolve_remote,
    write_config,
)


def test_home_from_env_or_default(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_home() == isolated_home
    monkeypatch.setenv("ANAMNESIS_HOME", "~/custom-store")
    assert resolve_home() == Path.home() / "custom-store"
    monkeypatch.delenv("ANAMNESIS_HOME")
    assert resolve_home() == Path.home() / ".anamnesis"


def test_machine_id_order(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_machine_id() == (socket.gethostname() or "unknown")
    write_config({"machine_id": "from-config"})
    assert resolve_machine_id() == "from-config"
    monkeypatch.setenv("ANAMNESIS_MACHINE_ID", "from-env")
    assert resolve_machine_id() == "from-env"


def test_remote_order(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_remote() is None
    write_config({"remote": "git@example.com:me/memory.git"})
    assert resolve_remote() == "git@example.com:me/memory.git"
    monkeypatch.setenv("ANAMNESIS_GIT_REMOTE", "/srv/memory.git")
    assert resolve_remote() == "/srv/memory.git"


@pytest.mark.parametrize("content", ["", "{not json", "[1, 2]", '"text"', '{"remote": 5}'])
def test_a_broken_config_never_breaks_resolution(isolated_home: Path, content: str) -> None:
    isolated_home.mkdir(parents=True)
    (isolated_home / "config.json").write_text(content)
    assert isinstance(read_config(), dict)
    assert resolve_remote() is None
    assert resolve_machine_id()


def test_config_is_written_atomically_and_privately(isolated_home: Path) -> None:
    path = write_config({"machine_id": "m", "remote": "https://user:pw@example.com/r.git"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == read_config()
    assert [p.name for p in isolated_home.iterdir()] == ["config.json"]  # no temp files left
