"""Every CLI test gets its own store, Claude Code folder and HOME: never the user's."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.fake_llm import FakeLLMServer

# isolated_home (autouse): its own ANAMNESIS_HOME and environment for every test (keyword
# search, no embedding model: a model costs seconds per process), with no
# ANAMNESIS_MACHINE_ID (anamnesis_machine_id's default); `env` layers a machine on top.
from anamnesis_testsupport.fixtures import anamnesis_machine_id as anamnesis_machine_id
from anamnesis_testsupport.fixtures import isolated_home as isolated_home
from anamnesis_testsupport.fixtures import make_unwritable as make_unwritable

# Test helpers live in cli_testing.py beside this file (tests import it by name).
sys.path.insert(0, str(Path(__file__).parent))

from cli_testing import Env


@pytest.fixture(autouse=True)
def fresh_notices() -> None:
    """Each test starts with no notice shown: ``console.warn`` says a notice once a run,
    and a test calling a command's function (not ``main``, which starts a run afresh)
    would otherwise miss one an earlier test in this process showed."""
    from anamnesis.cli import console

    console.forget_notices()


@pytest.fixture
def bare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    """One machine before `anamnesis init` (``Env.make``: its own Claude Code folder, HOME
    and PATH; no store yet), set in this process's environment over isolated_home's
    (autouse, so it runs first)."""
    environment = Env.make(tmp_path)
    for name, value in environment.variables.items():
        monkeypatch.setenv(name, value)
    for name in ("ANAMNESIS_GIT_REMOTE", "ANAMNESIS_MACHINE_ID", "ANAMNESIS_EMBED_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return environment


@pytest.fixture
def env(bare: Env) -> Env:
    """:func:`bare` with an empty store (notes can be written: `write` never creates a
    store), as most tests start."""
    bare.create_store()
    return bare


@pytest.fixture
def llm(env: Env) -> Iterator[FakeLLMServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1, and `env` set to use it."""
    server = FakeLLMServer()
    server.start()
    env.variables.update(
        ANAMNESIS_LLM_PROVIDER="openai",
        ANAMNESIS_LLM_MODEL="scripted-1",
        ANAMNESIS_LLM_BASE_URL=server.url,
        ANAMNESIS_LLM_TIMEOUT="5",
    )
    yield server
    server.stop()
