"""The pytest fixtures shared by the packages' test suites. A conftest imports the ones its
suite uses (``from anamnesis_testsupport.fixtures import isolated_home as isolated_home``):
a fixture imported into a conftest applies to that folder's tests only, autouse included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from anamnesis_testsupport import CannotLock, unwritable_folders

# Variables that change what the code under test does, and that nothing here sets: a
# developer's own values must not reach the tests.
_UNSET = (
    "ANAMNESIS_GIT_REMOTE",
    "ANAMNESIS_EMBED_MODEL",
    "ANAMNESIS_DEBUG",
    "ANAMNESIS_KEYWORD_RANKING",
)


@pytest.fixture
def anamnesis_machine_id() -> str | None:
    """The ``ANAMNESIS_MACHINE_ID`` that :func:`isolated_home` sets. None (this default)
    unsets it: the machine id then comes from config.json or the hostname. A suite whose
    tests expect one id from the environment overrides this fixture in its conftest."""
    return None


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, anamnesis_machine_id: str | None
) -> Path:
    """Every test runs against its own store and Claude Code folder, never the user's ones,
    and with none of the user's settings. Returns the store's folder (not created).

    - ``ANAMNESIS_HOME``: ``<tmp>/anamnesis-home``, the store.
    - ``CLAUDE_CONFIG_DIR``: ``<tmp>/claude-config``, Claude Code's folder (settings.json,
      native memory), so hooks and init never read or write ``~/.claude``.
    - ``CODEX_HOME``: ``<tmp>/codex-home`` (not created), Codex's folder, so init and
      doctor never read or write ``~/.codex``.
    - ``ANAMNESIS_MACHINE_ID``: the ``anamnesis_machine_id`` fixture (unset by default).
    - ``ANAMNESIS_SEARCH_MODE=keyword``: exact keyword results unless a test asks for vectors
      (the test_vectors.py files); no server starts the embedding thread and no model loads,
      in this process or in the processes it starts (they inherit this environment).
    - ``ANAMNESIS_EMBED_MODEL_PATH``: ``<tmp>/no-model-here``, a folder with no model, so
      nothing is ever downloaded, even by a test that forgets to pin the search mode.
    - ``ANAMNESIS_GIT_REMOTE``, ``ANAMNESIS_EMBED_MODEL``, ``ANAMNESIS_DEBUG``: unset (the
      remote from the environment, another model, fail-loud hooks).
    - ``GIT_CONFIG_GLOBAL`` (``<tmp>/no-global-gitconfig``, absent) and ``XDG_CONFIG_HOME``
      (``<tmp>/xdg-config``): project keys read URL shortcuts from the user's git config,
      and git reads identity and settings from there; never the real ones.

    ``HOME`` is left alone: the CLI suite's ``env`` fixture gives each machine its own, and
    the processes other suites start keep the user's caches (uv, Python). Suites layer what
    they need on top (the CLI's ``env``, the stores of the store and MCP suites).
    """
    home = tmp_path / "anamnesis-home"
    monkeypatch.setenv("ANAMNESIS_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    if anamnesis_machine_id is None:
        monkeypatch.delenv("ANAMNESIS_MACHINE_ID", raising=False)
    else:
        monkeypatch.setenv("ANAMNESIS_MACHINE_ID", anamnesis_machine_id)
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "keyword")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(tmp_path / "no-model-here"))
    for name in _UNSET:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    return home


@pytest.fixture
def make_unwritable() -> Iterator[Callable[[Path], None]]:
    """``make_unwritable(path)`` makes a folder refuse new files for the rest of the test,
    even for root (:func:`anamnesis_testsupport.unwritable_folders`); the test is skipped
    where the machine offers no way to do it."""
    with unwritable_folders() as lock:

        def lock_or_skip(path: Path) -> None:
            try:
                lock(path)
            except CannotLock as exc:
                pytest.skip(str(exc))

        yield lock_or_skip
