"""Every reflect test runs against its own store and home, with none of the user's LLM
settings or keys, and with retry waits recorded instead of slept."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.fake_llm import FakeLLMServer

# isolated_home (autouse): its own ANAMNESIS_HOME and environment for every test.
from anamnesis_testsupport.fixtures import anamnesis_machine_id as anamnesis_machine_id
from anamnesis_testsupport.fixtures import isolated_home as isolated_home

from anamnesis.reflect.providers import http

# Test helpers live in reflect_testing.py beside this file (tests import it by name).
sys.path.insert(0, str(Path(__file__).parent))

# Variables that would change which provider a test gets, or hand it a real key.
_LLM_VARIABLES = (
    "ANAMNESIS_LLM_PROVIDER",
    "ANAMNESIS_LLM_MODEL",
    "ANAMNESIS_LLM_BASE_URL",
    "ANAMNESIS_LLM_API_KEY",
    "ANAMNESIS_LLM_TIMEOUT",
    "ANAMNESIS_REFLECTION_PROVIDER",
    "ANAMNESIS_REFLECTING",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "CLAUDECODE",
    # urllib sends even 127.0.0.1 through a configured proxy unless no_proxy says otherwise.
    "http_proxy",
    "HTTP_PROXY",
    "all_proxy",
    "ALL_PROXY",
)


@pytest.fixture(autouse=True)
def no_llm_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ANAMNESIS_LLM_* (or key) from the developer's shell, and a HOME of its own, so
    nothing reads ~/.anamnesis or a real key."""
    for name in _LLM_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


@pytest.fixture(autouse=True)
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The backoff waits the HTTP layer asked for, in order; none is actually slept."""
    asked: list[float] = []
    monkeypatch.setattr(http, "sleep", asked.append)
    return asked


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    """A scripted OpenAI/Anthropic-speaking server on 127.0.0.1, stopped after the test."""
    fake = FakeLLMServer()
    fake.start()
    yield fake
    fake.stop()
