"""Which settings.json hooks are ours: exact shapes only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anamnesis.cli.agent_config.hooks_settings import (
    InvalidSettings,
    hook_command,
    hook_entries,
    is_our_command,
    missing_hooks,
    parse_settings,
    with_ours,
    without_ours,
)

EXE = ["/home/me/.local/bin/anamnesis"]
ENV = {"ANAMNESIS_HOME": "/home/me/my notes"}


@pytest.mark.parametrize("spec", hook_entries())
def test_what_we_write_is_recognised(spec: object) -> None:
    assert is_our_command(hook_command(EXE, spec, ENV))  # type: ignore[arg-type]
    module_form = ["/usr/bin/python3", "-m", "anamnesis.cli"]
    assert is_our_command(hook_command(module_form, spec, {}))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "command",
    [
        "echo anamnesis inject --format json",
        "echo 'ANAMNESIS_HOME=/x /bin/anamnesis inject --format json'",
        "ANAMNESIS_HOME=/x my-tool inject --format json",
        "/bin/anamnesis inject --format json && rm -rf /tmp/x",
        "/bin/anamnesis inject --format text",
        "/bin/anamnesis prompt",
        "/bin/anamnesis prompt --format json --budget 5000",
        "/bin/anamnesis-fork sync --quiet",
        "/bin/anamnesis sync",
        "OTHER=1 /bin/anamnesis capture",
        "/bin/anamnesis capture --source precompact",
        "python -m anamnesis.cli.extra inject --format json",
        "'unterminated",
        "",
        "nice -n 10 /bin/anamnesis sync",
        "nice -n 10",
        "nice /bin/anamnesis sync --quiet && rm -rf /tmp/x",
    ],
)
def test_look_alikes_are_not_ours(command: str) -> None:
    assert not is_our_command(command)


@pytest.mark.skipif(os.name != "posix", reason="nice is a POSIX command")
def test_only_the_background_sync_hook_starts_niced_and_older_commands_stay_ours() -> None:
    # The async session-start sync is work no session waits on: from its first instruction
    # it runs below the inject hook it starts beside (twenty sessions at once shared each
    # session's CPU between the two). Commands written before it was niced are still ours.
    commands = {spec.args: hook_command(EXE, spec, ENV) for spec in hook_entries()}
    assert commands[("sync", "--quiet")] == (
        "ANAMNESIS_HOME='/home/me/my notes' nice -n 10 /home/me/.local/bin/anamnesis sync --quiet"
    )
    assert [args for args, command in commands.items() if " nice " in command] == [
        ("sync", "--quiet")
    ]
    assert is_our_command("ANAMNESIS_HOME=/x /bin/anamnesis sync --quiet")
    installed = with_ours({}, EXE, ENV)
    assert missing_hooks(installed) == []
    upgraded = with_ours({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": "/bin/anamnesis sync --quiet", "async": True}]}]}},
        EXE, ENV)  # fmt: skip
    assert upgraded == installed  # the old un-niced entry is replaced, not kept beside


def test_merge_is_idempotent_and_removal_restores() -> None:
    user = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "date"}]}]}}
    once = with_ours(user, EXE, ENV)
    assert with_ours(once, EXE, ENV) == once
    assert without_ours(once) == user
    moved = with_ours(once, ["/opt/new/anamnesis"], ENV)  # a reinstall elsewhere replaces
    commands = [e["command"] for g in moved["hooks"]["SessionStart"] for e in g["hooks"]]
    assert sum("/opt/new/anamnesis" in c for c in commands) == 2
    assert not any("/home/me/.local" in c for c in commands)


def test_our_entry_inside_a_user_group_is_removed_alone() -> None:
    ours = hook_command(EXE, hook_entries()[0], ENV)
    date = {"type": "command", "command": "date"}
    mine = {"type": "command", "command": ours}
    mixed = {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [date, mine]}]}}
    expected = {"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [date]}]}}
    assert without_ours(mixed) == expected


def test_parse_settings_refuses_what_it_cannot_edit(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    assert parse_settings("", path) == {}
    for bad in ("{", "[]", '{"hooks": []}', '{"hooks": {"E": [1]}}'):
        with pytest.raises(InvalidSettings, match=str(path)):
            parse_settings(bad, path)


def test_the_prompt_hook_is_one_of_ours() -> None:
    [spec] = [spec for spec in hook_entries() if spec.event == "UserPromptSubmit"]
    assert spec.args == ("prompt", "--format", "json") and spec.matcher is None
    assert not spec.run_async  # its output must reach this prompt's context
    assert spec.timeout <= 10  # it holds up every prompt: never for long


def test_missing_hooks_are_named_by_event_and_arguments() -> None:
    assert missing_hooks({}) == hook_entries()
    every = with_ours({}, EXE, ENV)
    assert missing_hooks(every) == []
    older = without_ours(every)
    for spec in hook_entries():
        if spec.event != "UserPromptSubmit":
            group = {"hooks": [{"type": "command", "command": hook_command(EXE, spec, ENV)}]}
            older.setdefault("hooks", {}).setdefault(spec.event, []).append(group)
    assert [spec.event for spec in missing_hooks(older)] == ["UserPromptSubmit"]
    assert missing_hooks(with_ours(older, EXE, ENV)) == []
    # Our prompt command under another event is not the prompt hook.
    [prompt] = [spec for spec in hook_entries() if spec.event == "UserPromptSubmit"]
    entry = {"type": "command", "command": hook_command(EXE, prompt, ENV)}
    older["hooks"]["SessionEnd"].append({"hooks": [entry]})
    assert [spec.event for spec in missing_hooks(older)] == ["UserPromptSubmit"]
