"""Which settings.json hooks are ours: exact shapes only."""

from __future__ import annotations

from pathlib import Path

import pytest

from anamnesis.cli.hooks_settings import (
    HOOKS,
    InvalidSettings,
    hook_command,
    is_our_command,
    parse_settings,
    with_ours,
    without_ours,
)

EXE = ["/home/me/.local/bin/anamnesis"]
ENV = {"ANAMNESIS_HOME": "/home/me/my notes"}


@pytest.mark.parametrize("spec", HOOKS)
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
        "/bin/anamnesis-fork sync --quiet",
        "/bin/anamnesis sync",
        "OTHER=1 /bin/anamnesis capture",
        "/bin/anamnesis capture --source precompact",
        "python -m anamnesis.cli.extra inject --format json",
        "'unterminated",
        "",
    ],
)
def test_look_alikes_are_not_ours(command: str) -> None:
    assert not is_our_command(command)


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
    ours = hook_command(EXE, HOOKS[0], ENV)
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
