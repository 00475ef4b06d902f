"""Prompt-time recall from the CLI's side: `anamnesis prompt`, its settings, doctor."""

from __future__ import annotations

import json

import pytest

from anamnesis.cli.config_file import config_keys
from cli_testing import Env


@pytest.fixture(autouse=True)
def no_recall_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own prompt recall settings never reach these tests."""
    monkeypatch.delenv("ANAMNESIS_PROMPT_RECALL", raising=False)
    monkeypatch.delenv("ANAMNESIS_PROMPT_RECALL_BUDGET", raising=False)


ASK = {"session_id": "s1", "prompt": "how do we deploy the web frontend after the canary?"}


def ask(env: Env, *args: str, session: str = "s1") -> str:
    payload = json.dumps({**ASK, "session_id": session, "cwd": str(env.root / "work")})
    result = env.run_process("prompt", *args, stdin=payload)  # a real stdin, as Claude Code
    assert result.code == 0 and result.err == "", result.err
    return result.out


def test_the_prompt_hook_through_the_cli(env: Env) -> None:
    assert env.run("write", "--title", "Deploy checklist", "--project", "acme/web",
                   "deploy the web frontend after the canary checks pass").code == 0  # fmt: skip
    (env.root / "work" / ".anamnesis").mkdir(parents=True)
    (env.root / "work" / ".anamnesis" / "project").write_text("acme/web\n")
    envelope = json.loads(ask(env, "--format", "json"))
    assert envelope["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "Deploy checklist" in envelope["hookSpecificOutput"]["additionalContext"]
    assert ask(env) == ""  # already shown in this session
    assert env.run("config", "set", "prompt_recall.enabled", "false").code == 0
    assert ask(env, session="s2") == ""
    assert env.run("config", "unset", "prompt_recall.enabled").code == 0
    assert "Deploy checklist" in ask(env, session="s3")


def test_help_describes_the_prompt_hook(env: Env) -> None:
    result = env.run("prompt", "--help")
    assert result.code == 0 and "UserPromptSubmit hook" in result.out


def test_settings_are_checked_when_set(env: Env) -> None:
    assert {"prompt_recall.enabled", "prompt_recall.budget"} <= set(config_keys())
    assert env.run("config", "set", "prompt_recall.enabled", " Off ").code == 0
    assert env.run("config", "set", "prompt_recall.budget", "3000").code == 0
    stored = json.loads((env.home / "config.json").read_text())
    assert stored == {"prompt_recall.enabled": "false", "prompt_recall.budget": "3000"}
    bad = env.run("config", "set", "prompt_recall.budget", "200")
    assert bad.code == 2 and bad.err_lines == [
        "anamnesis config set: prompt_recall.budget must be a whole number of characters "
        "from 1000 to 10000, got '200'"
    ]
    assert env.run("config", "set", "prompt_recall.enabled", "maybe").code == 2


def test_doctor_names_a_hand_edited_setting_the_hook_ignores(env: Env) -> None:
    assert env.run("write", "--title", "t", "body").code == 0
    path = env.home / "config.json"
    path.write_text(json.dumps({"prompt_recall.budget": 50}))
    path.chmod(0o600)
    checks = {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}
    config = checks["config"]
    assert config["status"] == "warn"
    assert f"prompt_recall.budget in {path} must be a whole number" in config["detail"]
    assert "(it is ignored)" in config["detail"]
    assert "anamnesis config unset prompt_recall.budget" in config["fix"]
