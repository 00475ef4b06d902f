"""The package's public surface: its names declared once, each resolving, and importing
the package (or reading the settings) stays cheap and free of what it must never load."""

from __future__ import annotations

import json
import subprocess
import sys

from anamnesis_testsupport.public_names import check_public_names

from anamnesis.reflect import (
    AnthropicProvider,
    ClaudeCodeProvider,
    HeuristicProvider,
    OpenAIProvider,
    Provider,
)

_NEVER = ("mcp", "typer", "rich", "click", "dulwich", "anamnesis.hooks", "anamnesis.sync")


def test_public_names_are_the_declared_re_exports() -> None:
    check_public_names("anamnesis.reflect")


def test_providers_satisfy_the_protocol() -> None:
    # mypy checks each assignment against the protocol; the test checks what they say.
    providers: list[Provider] = [
        HeuristicProvider(),
        ClaudeCodeProvider("opus"),
        OpenAIProvider("gpt-x", base_url="http://127.0.0.1:1/v1"),
        AnthropicProvider("claude-x", api_key="k"),
    ]
    assert [(p.name, p.model) for p in providers] == [
        ("heuristic", ""),
        ("claude-code", "opus"),
        ("openai", "gpt-x"),
        ("anthropic", "claude-x"),
    ]


def _loaded_after(code: str) -> dict[str, bool]:
    probe = (
        f"import sys, json\n{code}\n"
        "names = ['urllib.request', 'subprocess', 'anamnesis.store.secrets.redact', *"
        f"{list(_NEVER)!r}]\n"
        "print(json.dumps({n: n in sys.modules for n in names}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    loaded: dict[str, bool] = json.loads(out)
    return loaded


def test_importing_the_package_loads_no_http_and_no_subprocess() -> None:
    loaded = _loaded_after("import anamnesis.reflect\nanamnesis.reflect.REFLECTION_ENV_GUARD")
    assert loaded["urllib.request"] is False
    assert loaded["subprocess"] is False


def test_reading_the_settings_loads_no_provider_code() -> None:
    loaded = _loaded_after("from anamnesis.reflect import load_settings\nload_settings()")
    assert loaded["urllib.request"] is False
    assert loaded["subprocess"] is False


def test_using_every_provider_loads_nothing_forbidden() -> None:
    loaded = _loaded_after(
        "import anamnesis.reflect as r\n"
        "[getattr(r, n) for n in r.__all__]\n"
        "r.fit_to_budget(['x'], 10)"
    )
    assert loaded["urllib.request"] is True and loaded["anamnesis.store.secrets.redact"] is True
    assert [name for name in _NEVER if loaded[name]] == []
