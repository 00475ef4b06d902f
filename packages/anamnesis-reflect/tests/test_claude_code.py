"""The claude-code provider against a fake `claude` on PATH: its command line, the prompt on
stdin, the hooks' guard, errors, and a timeout that kills claude and what it started."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.fake_llm import AWS_KEY_ID, GITHUB_TOKEN, write_fake_claude

from anamnesis.reflect import (
    REFLECTION_ENV_GUARD,
    ClaudeCodeProvider,
    ProviderFailed,
    ProviderTimeout,
    ProviderUnavailable,
)

SYSTEM = "You distil sessions into notes. Answer with JSON only."


Received = Callable[[], dict[str, Any]]
Install = Callable[[str], Received]


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Install:
    """``fake_claude(mode)`` puts a fake `claude` acting out ``mode`` first on PATH and
    returns a function reading what it received."""

    def install(mode: str) -> Received:
        record = write_fake_claude(tmp_path / f"bin-{mode}", mode)
        monkeypatch.setenv("PATH", f"{record.parent}{os.pathsep}{os.environ['PATH']}")

        def received() -> dict[str, Any]:
            data: dict[str, Any] = json.loads(record.read_text())
            return data

        return received

    return install


def ask(provider: ClaudeCodeProvider, user: str = "the sessions", timeout_s: float = 20) -> str:
    return provider.complete(SYSTEM, user, max_tokens=500, timeout_s=timeout_s)


def test_runs_one_print_mode_turn_with_the_prompt_on_stdin(fake_claude: Install) -> None:
    received = fake_claude("ok")
    reply = ask(ClaudeCodeProvider("sonnet"), user="Session 1: fixed the flaky test.")
    assert reply == '```json\n{"notes": []}\n```'
    got = received()
    assert got["argv"] == [
        "--print",
        "--output-format",
        "json",
        "--max-turns",
        "1",
        "--system-prompt",
        SYSTEM,
        "--model",
        "sonnet",
    ]
    assert got["stdin"] == "Session 1: fixed the flaky test."


def test_no_model_flag_without_a_model(fake_claude: Install) -> None:
    received = fake_claude("ok")
    ask(ClaudeCodeProvider())
    assert "--model" not in received()["argv"]


def test_the_child_carries_the_hooks_guard_and_not_the_nesting_marker(
    fake_claude: Install, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Run from inside a Claude Code session, CLAUDECODE=1 is inherited; claude >= 2.1.39
    # refuses to start under it.
    monkeypatch.setenv("CLAUDECODE", "1")
    received = fake_claude("ok")
    ask(ClaudeCodeProvider())
    assert REFLECTION_ENV_GUARD == "ANAMNESIS_REFLECTING"
    assert received()["guard"] == "1"
    assert received()["claudecode"] is None
    assert REFLECTION_ENV_GUARD not in os.environ  # only the child's environment has it


def test_secrets_are_masked_in_the_prompt_and_the_system_text(fake_claude: Install) -> None:
    received = fake_claude("ok")
    provider = ClaudeCodeProvider()
    provider.complete(
        f"token {GITHUB_TOKEN}", f"aws_access_key_id={AWS_KEY_ID}", max_tokens=9, timeout_s=20
    )
    sent = json.dumps(received())
    assert GITHUB_TOKEN not in sent and AWS_KEY_ID not in sent
    assert sent.count("[REDACTED]") == 2


def test_an_error_result_fails_with_what_claude_said(fake_claude: Install) -> None:
    fake_claude("is_error")
    with pytest.raises(ProviderFailed) as caught:
        ask(ClaudeCodeProvider())
    message = str(caught.value)
    assert "error_during_execution" in message and "Credit balance is too low" in message


def test_a_nonzero_exit_fails_with_its_stderr(fake_claude: Install) -> None:
    fake_claude("exit")
    with pytest.raises(ProviderFailed) as caught:
        ask(ClaudeCodeProvider())
    assert str(caught.value) == (
        "claude exited with status 2: Error: Invalid API key. Please run /login"
    )


def test_output_that_is_not_a_json_result_fails(fake_claude: Install) -> None:
    fake_claude("not_json")
    with pytest.raises(ProviderFailed, match=r"printed no JSON result.*Hello from an old claude"):
        ask(ClaudeCodeProvider())


def _gone(pid: int) -> bool:
    """True when ``pid`` has exited (a zombie waiting for its reaper counts as exited)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return True
    return fields[0] in {"Z", "X"}


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
def test_a_timeout_kills_claude_and_everything_it_started(fake_claude: Install) -> None:
    received = fake_claude("hang")
    started = time.monotonic()
    with pytest.raises(ProviderTimeout, match="within 1 s and was stopped"):
        ask(ClaudeCodeProvider(), timeout_s=1)
    assert time.monotonic() - started < 8
    got = received()
    deadline = time.monotonic() + 5
    while not (_gone(got["pid"]) and _gone(got["worker_pid"])) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(got["pid"]), "claude outlived the timeout"
    assert _gone(got["worker_pid"]), "a process claude started outlived the timeout"


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
def test_output_without_end_stops_at_the_bound_and_kills_claude(fake_claude: Install) -> None:
    received = fake_claude("endless")
    started = time.monotonic()
    with pytest.raises(ProviderFailed, match=r"unusable reply: claude .* more than 4194304 bytes"):
        ask(ClaudeCodeProvider(), timeout_s=10)  # the default bound, llm.max_reply_bytes
    assert time.monotonic() - started < 5  # at the bound, not at the timeout
    deadline = time.monotonic() + 5
    while not _gone(received()["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(received()["pid"]), "claude outlived its unusable reply"


def test_json_nested_too_deep_is_an_unusable_reply_not_a_crash(fake_claude: Install) -> None:
    fake_claude("deep")
    with pytest.raises(ProviderFailed, match="unusable reply: claude printed no JSON result"):
        ask(ClaudeCodeProvider())


def test_claude_missing_from_path_says_how_to_fix_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(ProviderUnavailable) as caught:
        ask(ClaudeCodeProvider())
    message = str(caught.value)
    assert "`claude` is not on PATH" in message
    assert "install Claude Code" in message
    assert "anamnesis config set llm.provider" in message
